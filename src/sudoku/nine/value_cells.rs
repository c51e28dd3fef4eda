//! The cells of each value in a 9×9 grid's values, band by band, as the fast path loads a puzzle.

/// The cells of each value 0..=9 in a 9×9 grid's values (row-major), band by band: [`ValueCells::of`] has
/// bit p for cell p of band b. With SIMD, each value's cells of a band are two byte compares and two bit masks
/// on the band's first sixteen cells and its last sixteen (cells 11..27), which overlap by five and so stay
/// inside the grid's 81 bytes without a padded copy of them; the values are asked for one at a time, so no
/// table of all ten is built and moved (in the worker's WebAssembly, each copy of a few hundred bytes is a
/// `memory.copy` that V8 runs as a call out of the wasm code). Without SIMD, a bit set per cell.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(super) struct ValueCells {
    first: [Sixteen; 3],
    last: [Sixteen; 3],
}

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
impl ValueCells {
    #[inline(always)]
    pub(super) fn new(cells: &[u8]) -> Self {
        Self {
            first: std::array::from_fn(|b| sixteen(cells, 27 * b)),
            last: std::array::from_fn(|b| sixteen(cells, 27 * b + 11)),
        }
    }

    /// The cells holding `v`, band by band.
    #[inline(always)]
    pub(super) fn of(&self, v: u8) -> [u32; 3] {
        std::array::from_fn(|b| equal_bits(self.first[b], v) | equal_bits(self.last[b], v) << 11)
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
pub(super) struct ValueCells([[u32; 3]; 10]);

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
impl ValueCells {
    // A bit set per cell: this build has no byte compares to do better.
    pub(super) fn new(cells: &[u8]) -> Self {
        let mut given = [[0u32; 3]; 10];
        for (b, band) in cells.chunks_exact(27).enumerate() {
            for (p, &v) in band.iter().enumerate() {
                given[usize::from(v)][b] |= 1 << p;
            }
        }
        Self(given)
    }

    pub(super) fn of(&self, v: u8) -> [u32; 3] {
        self.0[usize::from(v)]
    }
}

/// Sixteen bytes of a grid, as the build's SIMD holds them.
#[cfg(target_arch = "x86_64")]
type Sixteen = std::arch::x86_64::__m128i;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Sixteen = std::arch::wasm32::v128;

/// The 16 bytes from `at`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sixteen(bytes: &[u8], at: usize) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128};
    let bytes = &bytes[at..at + 16];
    // SAFETY: SSE2 is part of x86-64; the unaligned load reads the 16 bytes of `bytes`.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>()) }
}

/// Bit i set where byte i of `x` is `v`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn equal_bits(x: std::arch::x86_64::__m128i, v: u8) -> u32 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is part of x86-64.
    unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(v as i8))) as u32 }
}

/// The 16 bytes from `at`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn sixteen(bytes: &[u8], at: usize) -> std::arch::wasm32::v128 {
    use std::arch::wasm32::{v128, v128_load};
    let bytes = &bytes[at..at + 16];
    // SAFETY: the load reads the 16 bytes of `bytes`; wasm's loads need no alignment.
    unsafe { v128_load(bytes.as_ptr().cast::<v128>()) }
}

/// Bit i set where byte i of `x` is `v`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn equal_bits(x: std::arch::wasm32::v128, v: u8) -> u32 {
    use std::arch::wasm32::{i8x16_bitmask, i8x16_eq, u8x16_splat};
    u32::from(i8x16_bitmask(i8x16_eq(x, u8x16_splat(v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_cells_are_the_cells_of_each_value() {
        // Every value 0..=9 in every band position, in a few arrangements.
        for shift in 0..10u8 {
            let cells: Vec<u8> = (0..81)
                .map(|i: usize| ((i * 7 + usize::from(shift)) % 10) as u8)
                .collect();
            let mut expected = [[0u32; 3]; 10];
            for (i, &v) in cells.iter().enumerate() {
                expected[usize::from(v)][i / 27] |= 1 << (i % 27);
            }
            let values = ValueCells::new(&cells);
            for v in 0..10u8 {
                assert_eq!(
                    values.of(v),
                    expected[usize::from(v)],
                    "shift {shift}, value {v}"
                );
            }
        }
    }
}
