//! The 9×9 fast path's lookup tables, made at compile time: a band word's triads, the triads that lie on a
//! permutation, their cells, and each digit's triad summary (the module header of `nine` says what they are).

use crate::sudoku::bands::{BOX, ROW};

/// For a row's 9 bits: which of the three boxes it touches (bit k for box k).
pub(super) const ROW_BOXES: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut f = 0;
    while f < 512 {
        t[f] =
            ((f & 0o7 != 0) as u8) | ((f & 0o70 != 0) as u8) << 1 | ((f & 0o700 != 0) as u8) << 2;
        f += 1;
    }
    t
};

/// For a triad summary (bit 3r + k: row r may hold the digit in box k): the union of the permutations
/// (r → k, one box per row and one row per box) that lie inside it; 0 when there is none.
/// (The low bits of [`TRIAD_SUMMARY`], kept as a table of their own for the band update's lookups.)
pub(super) const PERMUTATIONS: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = (TRIAD_SUMMARY[s] & 0x1FF) as u16;
        s += 1;
    }
    t
};

/// For a triad mask: the band cells of its triads (triad 3r + k is columns 3k..3k+2 of row r).
pub(super) const TRIAD_CELLS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        let mut i = 0;
        while i < 9 {
            if s >> i & 1 == 1 {
                t[s] |= 7 << (9 * (i / 3) + 3 * (i % 3));
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// [`PERMUTATIONS`] and [`TRIAD_CELLS`] in one lookup: for a triad summary, the band cells of the triads that
/// lie on a permutation inside it (0: dead). The band update's chain of dependent loads is one shorter.
pub(super) const PERMUTATION_CELLS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        t[s] = TRIAD_CELLS[PERMUTATIONS[s] as usize];
        s += 1;
    }
    t
};

/// The six permutations of three rows over three boxes, as triad masks.
pub(super) const PERMS: [u16; 6] = [
    1 | 1 << 4 | 1 << 8,
    1 | 1 << 5 | 1 << 7,
    1 << 1 | 1 << 3 | 1 << 8,
    1 << 1 | 1 << 5 | 1 << 6,
    1 << 2 | 1 << 3 | 1 << 7,
    1 << 2 | 1 << 4 | 1 << 6,
];

/// For a triad summary: the triads on some permutation inside it (bits 0–8), the triads on every one of them
/// (bits 16–24: where the digit must go), and how many there are (bits 28–30); 0 when there is none.
pub(super) const TRIAD_SUMMARY: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut s = 0;
    while s < 512 {
        let (mut union, mut every, mut n) = (0u32, 0x1FFu32, 0u32);
        let mut p = 0;
        while p < 6 {
            if PERMS[p] & !(s as u16) == 0 {
                union |= PERMS[p] as u32;
                every &= PERMS[p] as u32;
                n += 1;
            }
            p += 1;
        }
        t[s] = if n == 0 {
            0
        } else {
            union | every << 16 | n << 28
        };
        s += 1;
    }
    t
};

/// For a cell of a band (bit 9r + c): the other cells of its row and box within the band.
pub(super) const ROW_BOX_PEERS: [u32; 27] = {
    let mut t = [0u32; 27];
    let mut p = 0;
    while p < 27 {
        let (r, c) = (p / 9, p % 9);
        let row = ROW << (9 * r);
        let box_ = BOX << (3 * (c / 3));
        t[p] = (row | box_) & !(1 << p);
        p += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_keep_only_triads_on_a_matching() {
        // All nine triads: every permutation fits.
        assert_eq!(PERMUTATIONS[0x1FF], 0x1FF);
        // Row 0 only in box 0: no other row may use box 0, and row 0 nothing else.
        let summary = 0x1FF & !0b110;
        assert_eq!(
            PERMUTATIONS[summary],
            0x1FF & !0b110 & !(1 << 3) & !(1 << 6)
        );
        // Row 2 has no triad: dead.
        assert_eq!(PERMUTATIONS[0o077], 0);
        // Two rows confined to the same single box: dead.
        assert_eq!(PERMUTATIONS[1 | 1 << 3 | 0o700], 0);
    }

    #[test]
    fn triads_and_peers_cover_the_right_cells() {
        assert_eq!(TRIAD_CELLS[1], 0b111);
        assert_eq!(TRIAD_CELLS[1 << 5], 0b111 << (9 + 6));
        assert_eq!(PERMUTATION_CELLS[0o077], 0);
        assert_eq!(PERMUTATION_CELLS[0x1FF], (1 << 27) - 1);
        assert_eq!(ROW_BOX_PEERS[0], (ROW | BOX) & !1);
        assert_eq!(ROW_BOXES[0b100_000_001], 0b101);
    }

    #[test]
    fn triad_summaries_say_what_is_possible_forced_and_counted() {
        assert_eq!(TRIAD_SUMMARY[0x1FF], 0x1FF | 6 << 28);
        let one = u32::from(PERMS[3]);
        assert_eq!(TRIAD_SUMMARY[one as usize], one | one << 16 | 1 << 28);
        // Row 0 only in box 0: triad 0 is forced, the other two rows share boxes 1 and 2 (two ways).
        let summary = 0x1FF & !0b110;
        let union = 0x1FF & !0b110 & !(1 << 3) & !(1 << 6);
        assert_eq!(TRIAD_SUMMARY[summary], union | 1 << 16 | 2 << 28);
        assert_eq!(TRIAD_SUMMARY[0o077], 0);
    }
}
