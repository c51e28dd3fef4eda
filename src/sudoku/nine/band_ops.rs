//! The steps of the 9×9 band update that each build does its own way ([`BandOps`]: the plain one, and BMI2 with
//! AVX2), and which build this CPU takes.

use super::tables::ROW_BOXES;
use crate::sudoku::bands::ROW;

/// The steps of the band update that each build does its own way.
pub(super) trait BandOps {
    /// Whether an update that placed nothing returns at once, by a branch, rather than going through the
    /// placement's steps, which then change nothing. Half of all updates on the forum's hardest place
    /// nothing, with no pattern to predict; the branch wins where a misprediction is cheap (about 10 cycles
    /// on AMD's Zen 4) and loses where it is not (21–25 on the Intel Xeon of the GPU hosts): docs/benchmarks.md,
    /// "Why the same search ran slower on the GPU host's Xeon".
    const SKIP_UNPLACED: bool = true;

    /// The triads of a band word (bit 3r + k: row r of the band has a cell in box k).
    fn triads(w: u32) -> usize;

    /// Clears `cells` from band `b` of every digit; the dirty bits of the words it changed.
    #[inline(always)]
    fn cut_band(cand: &mut [u32; 27], b: usize, cells: u32) -> u32 {
        let mut dirty = 0;
        for (e, x) in cand[9 * b..9 * b + 9].iter_mut().enumerate() {
            let y = *x & !cells;
            dirty |= u32::from(*x != y) << e;
            *x = y;
        }
        dirty << (9 * b)
    }
}

/// `T`'s steps with the branch on an update that placed nothing, whether `T` has it or not: for a puzzle's
/// first settle, from its givens, where the branch pays on Intel's cores too (docs/benchmarks.md, "The first
/// settle with the branch on Intel's cores").
pub(super) struct Skipping<T>(std::marker::PhantomData<T>);

impl<T: BandOps> BandOps for Skipping<T> {
    const SKIP_UNPLACED: bool = true;

    #[inline(always)]
    fn triads(w: u32) -> usize {
        T::triads(w)
    }

    #[inline(always)]
    fn cut_band(cand: &mut [u32; 27], b: usize, cells: u32) -> u32 {
        T::cut_band(cand, b, cells)
    }
}

/// Table lookups and plain words: any CPU.
pub(super) struct Portable;

impl BandOps for Portable {
    /// Three lookups in [`ROW_BOXES`], one per row.
    #[inline(always)]
    fn triads(w: u32) -> usize {
        usize::from(ROW_BOXES[(w & ROW) as usize])
            | usize::from(ROW_BOXES[((w >> 9) & ROW) as usize]) << 3
            | usize::from(ROW_BOXES[(w >> 18) as usize]) << 6
    }

    /// In WebAssembly with SIMD (the page's workers): the band's first eight digits as two `v128`
    /// operations, the ninth on its own (the compiler leaves the plain loop scalar there).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn cut_band(cand: &mut [u32; 27], b: usize, cells: u32) -> u32 {
        use std::arch::wasm32::{
            i32x4_ne, u32x4_bitmask, u32x4_splat, v128, v128_andnot, v128_load, v128_store,
        };
        let base = 9 * b;
        let eight = &mut cand[base..base + 8];
        let cut = u32x4_splat(cells);
        let at = eight.as_mut_ptr().cast::<v128>();
        // SAFETY: the two 16-byte loads and stores are the eight words of `eight` (wasm's loads need no
        // alignment).
        let changed = unsafe {
            let (x0, x1) = (v128_load(at), v128_load(at.add(1)));
            let (y0, y1) = (v128_andnot(x0, cut), v128_andnot(x1, cut));
            v128_store(at, y0);
            v128_store(at.add(1), y1);
            u32::from(u32x4_bitmask(i32x4_ne(x0, y0)))
                | u32::from(u32x4_bitmask(i32x4_ne(x1, y1))) << 4
        };
        changed << base | cut_word(cand, base + 8, cells)
    }
}

/// BMI2's `pext` and AVX2: for use only in the build compiled for them; with or without the branch on an
/// update that placed nothing ([`BandOps::SKIP_UNPLACED`]).
#[cfg(target_arch = "x86_64")]
pub(super) struct BmiAvx2<const SKIP_UNPLACED: bool>;

#[cfg(target_arch = "x86_64")]
impl<const SKIP_UNPLACED: bool> BandOps for BmiAvx2<SKIP_UNPLACED> {
    const SKIP_UNPLACED: bool = SKIP_UNPLACED;

    #[inline(always)]
    fn triads(w: u32) -> usize {
        // Each triad's three cells ORed into its first (bit 9r + 3k), then those nine bits gathered in order,
        // which is 3r + k.
        let any = w | w >> 1 | w >> 2;
        // SAFETY: used only by `Search::run_with_bmi_avx2`, which runs where BMI2 was detected.
        unsafe { std::arch::x86_64::_pext_u32(any, 0o111_111_111) as usize }
    }

    /// The band's first eight digits in one AVX2 operation, the ninth on its own.
    #[inline(always)]
    fn cut_band(cand: &mut [u32; 27], b: usize, cells: u32) -> u32 {
        use std::arch::x86_64::{
            __m256i, _mm256_andnot_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi32,
            _mm256_loadu_si256, _mm256_movemask_ps, _mm256_set1_epi32, _mm256_storeu_si256,
        };
        let base = 9 * b;
        let eight = &mut cand[base..base + 8];
        // SAFETY: used only by `Search::run_with_bmi_avx2`, which runs where AVX2 was detected; the
        // eight words are `eight`, read and written unaligned.
        let changed = unsafe {
            let at = eight.as_mut_ptr().cast::<__m256i>();
            let x = _mm256_loadu_si256(at);
            let y = _mm256_andnot_si256(_mm256_set1_epi32(cells as i32), x);
            _mm256_storeu_si256(at, y);
            let same = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, y)));
            !(same as u32) & 0xFF
        };
        changed << base | cut_word(cand, base + 8, cells)
    }
}

/// Clears `mask` from `cand[i]`; its dirty bit if that changed it, without a branch.
#[inline(always)]
pub(super) fn cut_word(cand: &mut [u32; 27], i: usize, mask: u32) -> u32 {
    let x = cand[i];
    let y = x & !mask;
    cand[i] = y;
    u32::from(x != y) << i
}

/// Which of [`super::Search::run_values`]'s builds this CPU takes.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) enum Build {
    /// The plain one: no BMI2 or AVX2, or `pext` in microcode ([`slow_pext`]).
    Plain,
    /// [`super::Search::run_with_bmi_avx2`], with the branch on an update that placed nothing
    /// ([`BandOps::SKIP_UNPLACED`]) or, on Intel's cores, without it ([`dear_mispredictions`]).
    BmiAvx2 { skip_unplaced: bool },
}

/// The build this CPU takes. Asked once (`cpuid` leaves a virtual machine for its host, microseconds), then a
/// load per puzzle.
#[cfg(target_arch = "x86_64")]
pub(super) fn build() -> Build {
    use std::arch::x86_64::__cpuid;
    static BUILD: std::sync::OnceLock<Build> = std::sync::OnceLock::new();
    *BUILD.get_or_init(|| {
        let leaf0 = __cpuid(0);
        let vendor = (leaf0.ebx, leaf0.edx, leaf0.ecx);
        if has_bmi_avx2() && !slow_pext(vendor, __cpuid(1).eax) {
            Build::BmiAvx2 {
                skip_unplaced: !dear_mispredictions(vendor),
            }
        } else {
            Build::Plain
        }
    })
}

/// `cpuid` leaf 0's vendor strings as (EBX, EDX, ECX): "GenuineIntel", "AuthenticAMD", "HygonGenuine".
#[cfg(any(target_arch = "x86_64", test))]
const INTEL: (u32, u32, u32) = (0x756E_6547, 0x4965_6E69, 0x6C65_746E);
#[cfg(any(target_arch = "x86_64", test))]
const AMD: (u32, u32, u32) = (0x6874_7541, 0x6974_6E65, 0x444D_4163);
#[cfg(any(target_arch = "x86_64", test))]
const HYGON: (u32, u32, u32) = (0x6F67_7948, 0x6E65_476E, 0x656E_6975);

/// Whether the CPU with this `cpuid` vendor (leaf 0: EBX, EDX, ECX) pays enough for a mispredicted branch
/// that the band update does better without its branch on a placement: Intel's cores. Measured on the GPU
/// hosts' Xeon (family 6, model 207: Emerald Rapids) at 21–25 cycles a misprediction, against about 10 on
/// AMD's Zen 4, where the branch is the faster way (docs/benchmarks.md).
#[cfg(any(target_arch = "x86_64", test))]
fn dear_mispredictions(vendor: (u32, u32, u32)) -> bool {
    vendor == INTEL
}

/// Whether the CPU with this `cpuid` vendor (leaf 0: EBX, EDX, ECX) and version (leaf 1: EAX) runs `pext` in
/// microcode, tens of cycles where others take three: AMD's cores before Zen 3 (family 0x19), and Hygon's,
/// which are Zen 1.
#[cfg(any(target_arch = "x86_64", test))]
fn slow_pext(vendor: (u32, u32, u32), version: u32) -> bool {
    let family = match (version >> 8) & 0xF {
        0xF => 0xF + ((version >> 20) & 0xFF),
        base => base,
    };
    (vendor == AMD || vendor == HYGON) && family < 0x19
}

/// Whether this CPU has BMI1, BMI2, LZCNT and AVX2 (cached by the standard library).
#[cfg(target_arch = "x86_64")]
pub(super) fn has_bmi_avx2() -> bool {
    std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pext_counts_as_slow_on_amd_before_zen_3_only() {
        let (amd, intel, hygon) = (AMD, INTEL, HYGON);
        // Leaf 1's EAX: base family in bits 8–11, extended family (added when the base is 0xF) in 20–27.
        let family = |f: u32| {
            if f < 0xF {
                f << 8
            } else {
                0xF << 8 | (f - 0xF) << 20
            }
        };
        assert!(slow_pext(amd, family(0x17))); // Zen 2
        assert!(slow_pext(amd, family(0x15))); // Bulldozer
        assert!(!slow_pext(amd, family(0x19))); // Zen 3 and 4
        assert!(!slow_pext(amd, family(0x1A))); // Zen 5
        assert!(slow_pext(hygon, family(0x18)));
        assert!(!slow_pext(intel, family(6)));
    }

    #[test]
    fn the_band_update_goes_without_its_branch_on_intel_only() {
        assert!(dear_mispredictions(INTEL));
        assert!(!dear_mispredictions(AMD));
        assert!(!dear_mispredictions(HYGON));
    }
}
