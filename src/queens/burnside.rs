//! A second, independent way to the unique count, for the tests: Burnside's lemma over the eight symmetries of
//! the square. No solution of N ≥ 2 is its own mirror image (a queen and its mirror would share a row, a column
//! or a diagonal), so only the identity and the turns fix any: unique = (total + 2·R90 + R180) / 8, where R90
//! and R180 count the solutions that a quarter and a half turn leave unchanged. Each is counted here by a plain
//! search that places a queen together with its turned copies, with no bit tricks shared with the counter.

use super::Tally;

/// Placed queens and the lines they hold.
struct Board {
    n: usize,
    column_of: Vec<Option<usize>>,
    columns: Vec<bool>,
    rising: Vec<bool>,
    falling: Vec<bool>,
}

impl Board {
    fn new(n: usize) -> Self {
        Self {
            n,
            column_of: vec![None; n],
            columns: vec![false; n],
            rising: vec![false; 2 * n],
            falling: vec![false; 2 * n],
        }
    }

    fn free(&self, row: usize, col: usize) -> bool {
        self.column_of[row].is_none()
            && !self.columns[col]
            && !self.rising[row + col]
            && !self.falling[row + self.n - col]
    }

    fn set(&mut self, row: usize, col: usize, on: bool) {
        self.column_of[row] = on.then_some(col);
        self.columns[col] = on;
        self.rising[row + col] = on;
        self.falling[row + self.n - col] = on;
    }

    /// Places every queen of `queens` (distinct squares) or none; true when all fit.
    fn place_all(&mut self, queens: &[(usize, usize)]) -> bool {
        for (i, &(row, col)) in queens.iter().enumerate() {
            if !self.free(row, col) {
                for &(r, c) in &queens[..i] {
                    self.set(r, c, false);
                }
                return false;
            }
            self.set(row, col, true);
        }
        true
    }

    fn remove_all(&mut self, queens: &[(usize, usize)]) {
        for &(row, col) in queens {
            self.set(row, col, false);
        }
    }
}

/// The squares a queen at (row, col) occupies together with its images under the turns of order `order`
/// (2: a half turn; 4: quarter turns), without repeats.
fn orbit(n: usize, row: usize, col: usize, order: usize) -> Vec<(usize, usize)> {
    let mut out = vec![(row, col)];
    let (mut r, mut c) = (row, col);
    let step = if order == 4 { 1 } else { 2 };
    for _ in 1..order {
        for _ in 0..step {
            (r, c) = (c, n - 1 - r);
        }
        if !out.contains(&(r, c)) {
            out.push((r, c));
        }
    }
    out
}

/// Solutions left unchanged by a half turn (`order` 2) or a quarter turn (`order` 4).
pub(crate) fn fixed(n: usize, order: usize) -> u64 {
    fn search(board: &mut Board, order: usize) -> u64 {
        let Some(row) = (0..board.n).find(|&r| board.column_of[r].is_none()) else {
            return 1;
        };
        let mut found = 0;
        for col in 0..board.n {
            let queens = orbit(board.n, row, col, order);
            if board.place_all(&queens) {
                found += search(board, order);
                board.remove_all(&queens);
            }
        }
        found
    }
    search(&mut Board::new(n), order)
}

/// Every solution, with no symmetry used.
fn total(n: usize) -> u64 {
    fn search(board: &mut Board, row: usize) -> u64 {
        if row == board.n {
            return 1;
        }
        let mut found = 0;
        for col in 0..board.n {
            if board.free(row, col) {
                board.set(row, col, true);
                found += search(board, row + 1);
                board.set(row, col, false);
            }
        }
        found
    }
    search(&mut Board::new(n), 0)
}

/// Total and unique counts by Burnside's lemma (slow: for tests up to N ≈ 12).
pub fn count(n: u32) -> Tally {
    let n = n as usize;
    let total = total(n);
    if n == 1 {
        return Tally { total, unique: 1 };
    }
    let half = fixed(n, 2);
    let quarter = fixed(n, 4);
    Tally {
        total,
        unique: (total + 2 * quarter + half) / 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::{counter, known};

    #[test]
    fn burnside_agrees_with_the_corner_split() {
        for n in 1..=11u32 {
            assert_eq!(count(n), counter::count(n).tally(n), "N={n}");
            assert_eq!(Some(count(n)), known(n), "N={n}");
        }
    }

    #[test]
    fn symmetric_solutions_of_small_boards() {
        // N=4: both solutions are fixed by a quarter turn; N=8: four solutions survive a half turn, none a quarter.
        assert_eq!((fixed(4, 4), fixed(4, 2)), (2, 2));
        assert_eq!((fixed(8, 4), fixed(8, 2)), (0, 4));
    }
}
