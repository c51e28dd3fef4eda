//! The solutions that a half turn or a quarter turn of the board leaves unchanged, counted fast, and the
//! classes of 2, 4 and 8 that follow from them and the total (Burnside's lemma).
//!
//! A board the same after a turn is fixed by its top half (a half turn) or its top-left quarter (a quarter
//! turn), so these searches place a queen together with its turned copies and go only half or a quarter as
//! deep as a full search: milliseconds where counting every solution takes seconds. With them the GPU needs to
//! count only the total, the simplest and fastest search; every class size follows exactly:
//!
//! - a class of 2 is two boards, each the same after a quarter turn: `C2 = R90 / 2`;
//! - the boards the same after a half turn are those of the classes of 2 and 4: `R180 = 2·C2 + 4·C4`;
//! - every other board lies in a class of 8: `total = 2·C2 + 4·C4 + 8·C8`.
//!
//! (`burnside.rs` counts the same two numbers the slow, plain way for the tests.)

use super::counter::Classes;

/// Columns, rows and both diagonals taken, the diagonals indexed across the whole board (`row + col` and
/// `row − col + n − 1`, below 64 for n ≤ 32), so that queens far apart need no shifting.
#[derive(Clone, Copy, Default)]
struct Lines {
    rows: u32,
    cols: u32,
    rising: u64,
    falling: u64,
    /// Each placed row's queen's column.
    board: [u32; 32],
}

impl Lines {
    /// Takes the square's lines; false (and nothing taken) when one is already taken.
    fn take(&mut self, n: u32, row: u32, col: u32) -> bool {
        let rising = 1u64 << (row + col);
        let falling = 1u64 << (row + n - 1 - col);
        if self.rows >> row & 1 != 0
            || self.cols >> col & 1 != 0
            || self.rising & rising != 0
            || self.falling & falling != 0
        {
            return false;
        }
        self.rows |= 1 << row;
        self.cols |= 1 << col;
        self.rising |= rising;
        self.falling |= falling;
        self.board[row as usize] = col;
        true
    }
}

/// Solutions of an `n`-board that a half turn leaves unchanged.
///
/// Row `i` of the top half and row `n − 1 − i` are placed together: a queen at column `c` and its partner at
/// `n − 1 − c`. Every taken line set is then symmetric under the half turn, which lets the free columns of
/// row `i` come from shifts of the whole-board masks alone (see the comments inside).
pub fn fixed_by_half_turn(n: u32) -> u64 {
    let mut found = 0;
    visit_half_turn_fixed(n, &mut |_| found += 1);
    found
}

/// Hands each solution of an `n`-board that a half turn leaves unchanged to `each`, as its queens' columns
/// row by row (see [`fixed_by_half_turn`]).
pub fn visit_half_turn_fixed(n: u32, each: &mut dyn FnMut(&[u32])) {
    visit_half_turn_fixed_from(n, &[], each);
}

/// [`visit_half_turn_fixed`] for the solutions with a queen on each of `placed`'s squares (each with its
/// half-turn partner; a square given twice, or its partner given too, counts once). Rows already placed are
/// passed over, so a caller that fixes the queens on the border searches only below them.
pub fn visit_half_turn_fixed_from(n: u32, placed: &[(u32, u32)], each: &mut dyn FnMut(&[u32])) {
    if n == 1 {
        return each(&[0]);
    }
    let mask = super::full_mask(n);
    let middle = (n - 1) / 2;
    let mut start = Lines::default();
    if n % 2 == 1 {
        // The middle row's queen must be its own partner: the centre square.
        start.take(n, middle, middle);
    }
    for &(row, col) in placed {
        for (r, c) in [(row, col), (n - 1 - row, n - 1 - col)] {
            let already = start.rows >> r & 1 == 1 && start.board[r as usize] == c;
            if already {
                continue;
            }
            if !start.take(n, r, c) {
                return;
            }
        }
    }
    fn search(n: u32, mask: u32, row: u32, lines: Lines, each: &mut dyn FnMut(&[u32])) {
        if row == n / 2 {
            return each(&lines.board[..n as usize]);
        }
        if lines.rows >> row & 1 == 1 {
            return search(n, mask, row + 1, lines, each);
        }
        // Column c of row i is on rising diagonal i + c (bit c of `rising >> i`) and on falling diagonal
        // i − c + n − 1, whose half-turn partner n − 1 − i + c is taken exactly when it is (bit c of
        // `falling >> (n − 1 − i)`). The partner square (n − 1 − i, n − 1 − c) is free exactly when this one is.
        // A queen and its partner clash among themselves on column n − 1 − i (the same rising diagonal) and on
        // column i (the same falling one).
        let clash = (1 << row) | (1 << (n - 1 - row));
        let mut free = mask
            & !lines.cols
            & !((lines.rising >> row) as u32)
            & !((lines.falling >> (n - 1 - row)) as u32)
            & !clash;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let col = bit.trailing_zeros();
            let mut next = lines;
            let placed = next.take(n, row, col) && next.take(n, n - 1 - row, n - 1 - col);
            debug_assert!(placed, "the free columns were computed from the same lines");
            search(n, mask, row + 1, next, each);
        }
    }
    search(n, mask, 0, start, each)
}

/// Solutions of an `n`-board that a quarter turn leaves unchanged.
///
/// The first empty row's queen is placed with its three turned copies, which fill up to four rows at once;
/// only boards of 4k and 4k + 1 squares a side have any (a quarter turn pairs the queens up in fours, apart from
/// a centre queen).
pub fn fixed_by_quarter_turn(n: u32) -> u64 {
    let mut found = 0;
    visit_quarter_turn_fixed(n, &mut |_| found += 1);
    found
}

/// Hands each solution of an `n`-board that a quarter turn leaves unchanged to `each`, as its queens' columns
/// row by row (see [`fixed_by_quarter_turn`]).
pub fn visit_quarter_turn_fixed(n: u32, each: &mut dyn FnMut(&[u32])) {
    visit_quarter_turn_fixed_from(n, None, each);
}

/// [`visit_quarter_turn_fixed`] for the solutions whose row 0 has its queen in column `top` (with its three
/// turned copies), or all of them (`None`).
pub fn visit_quarter_turn_fixed_from(n: u32, top: Option<u32>, each: &mut dyn FnMut(&[u32])) {
    if n == 1 {
        return each(&[0]);
    }
    if n % 4 == 2 || n % 4 == 3 {
        return;
    }
    let mut start = Lines::default();
    if n % 2 == 1 {
        // The middle row's queen turns onto the middle column: it must be the centre.
        start.take(n, n / 2, n / 2);
    }
    if let Some(col) = top {
        let (mut r, mut c) = (0, col);
        for _ in 0..4 {
            // A corner queen turns onto the next corner; the four are distinct unless they clash.
            if !start.take(n, r, c) {
                return;
            }
            (r, c) = (c, n - 1 - r);
        }
    }
    fn search(n: u32, lines: Lines, each: &mut dyn FnMut(&[u32])) {
        let row = (!lines.rows).trailing_zeros();
        if row >= n {
            return each(&lines.board[..n as usize]);
        }
        for col in 0..n {
            let mut next = lines;
            let (mut r, mut c) = (row, col);
            let mut fits = true;
            for _ in 0..4 {
                if !next.take(n, r, c) {
                    fits = false;
                    break;
                }
                (r, c) = (c, n - 1 - r);
            }
            if fits {
                search(n, next, each);
            }
        }
    }
    search(n, start, each)
}

/// Both symmetric counts of an `n`-board: (quarter turn, half turn).
pub fn fixed_counts(n: u32) -> (u64, u64) {
    (fixed_by_quarter_turn(n), fixed_by_half_turn(n))
}

/// The classes of an `n`-board (n ≥ 2) from its total, counting the symmetric solutions.
pub fn classes_from_total(n: u32, total: u64) -> Classes {
    if n < 2 {
        // N = 1 is apart: [`Classes::tally`] answers it.
        return Classes::default();
    }
    let (quarter, half) = fixed_counts(n);
    classes_from_counts(total, quarter, half)
}

/// The classes of a board (n ≥ 2) from its total and its solutions fixed by a quarter and by a half turn.
pub fn classes_from_counts(total: u64, quarter: u64, half: u64) -> Classes {
    Classes {
        c2: quarter / 2,
        c4: (half - quarter) / 4,
        c8: (total - half) / 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::{burnside, counter, known};

    #[test]
    fn symmetric_counts_match_the_plain_search() {
        for n in 1..=12 {
            assert_eq!(
                fixed_by_half_turn(n),
                burnside::fixed(n as usize, 2),
                "N={n}"
            );
            assert_eq!(
                fixed_by_quarter_turn(n),
                burnside::fixed(n as usize, 4),
                "N={n}"
            );
        }
    }

    #[test]
    fn classes_follow_from_the_total() {
        for n in 2..=13 {
            let classes = counter::count(n);
            let total = classes.tally(n).total;
            assert_eq!(classes_from_total(n, total), classes, "N={n}");
        }
        // Beyond what the counter does in a test: the published unique counts.
        for n in 14..=20 {
            let want = known(n).unwrap();
            assert_eq!(classes_from_total(n, want.total).tally(n), want, "N={n}");
        }
    }
}
