//! The independent checker: is a grid a complete, valid solution of its puzzle? Written apart from the solver
//! (plain unit masks, no shared tables) so a solver bug cannot hide behind itself.

use super::grid::Grid;
use super::shape::MAX_CELLS;

/// True when `solution` has the puzzle's shape, keeps every given, and every row, column and box holds each
/// value exactly once.
pub fn is_solution(puzzle: &Grid, solution: &Grid) -> bool {
    puzzle.shape() == solution.shape()
        && keeps_givens(puzzle.cells(), solution.cells())
        && is_complete_and_valid(solution)
}

/// [`is_solution`] for a 9×9 puzzle with 3×3 boxes and a candidate solution kept as values (0 for an empty
/// cell, else 1 to 9, row-major) rather than in grids: the lines of a file, checked where they lie.
pub fn is_nine_solution(puzzle: &[u8; 81], solution: &[u8; 81]) -> bool {
    // A value above 9 would set a bit outside the full mask, so `or == full` refuses it too.
    keeps_givens(puzzle, solution) && units::<81>(solution, 3, 3, |or, _| or == 0x1FF)
}

/// True when every given (nonzero) cell of `puzzle` has the same value in `solution`.
fn keeps_givens(puzzle: &[u8], solution: &[u8]) -> bool {
    puzzle
        .iter()
        .zip(solution)
        // Without short-circuiting, so that the compiler compares many cells at once.
        .fold(true, |kept, (&given, &value)| {
            kept & ((given == 0) | (given == value))
        })
}

/// True when every cell is filled and no unit repeats a value.
pub fn is_complete_and_valid(grid: &Grid) -> bool {
    let full = (1u32 << grid.side()) - 1;
    // N cells covering N values: each value exactly once (an empty cell contributes no bit).
    every_unit(grid, |or, _| or == full)
}

/// True when some row, column or box holds a value twice (empty cells aside).
pub fn has_repeats(grid: &Grid) -> bool {
    // Each cell is one bit (or none): a unit's bits add up to more than they OR to exactly when two coincide.
    !every_unit(grid, |or, sum| or == sum)
}

/// Calls `unit(or, sum)` with the OR and the sum of each unit's cell bits (`1 << (value − 1)`, 0 for empty),
/// rows then columns then boxes, while it returns true; true if it always did.
///
/// Every answer of every engine passes through here, millions a second from the GPU. The units are
/// independent reductions of one bit per cell (no mask is read back and written per cell, which chained each
/// cell to the last through memory), and the common shape gets its own copy with its sizes known at compile
/// time.
fn every_unit(grid: &Grid, unit: impl FnMut(u32, u32) -> bool) -> bool {
    let shape = grid.shape();
    if (shape.rows(), shape.cols()) == (3, 3) {
        units::<81>(grid.cells(), 3, 3, unit)
    } else {
        units::<MAX_CELLS>(grid.cells(), shape.rows(), shape.cols(), unit)
    }
}

/// [`every_unit`] for boxes of `box_rows` × `box_cols`, with room for `CELLS` cells.
#[inline(always)]
fn units<const CELLS: usize>(
    cells: &[u8],
    box_rows: usize,
    box_cols: usize,
    mut unit: impl FnMut(u32, u32) -> bool,
) -> bool {
    let n = box_rows * box_cols;
    let mut bits = [0u32; CELLS];
    for (bit, &v) in bits.iter_mut().zip(cells) {
        *bit = (1u32 << v) >> 1;
    }
    // (or, sum) of the bits at the given cells.
    let fold = |(or, sum): (u32, u32), i: usize| (or | bits[i], sum + bits[i]);
    for r in 0..n {
        let (or, sum) = (0..n).map(|c| r * n + c).fold((0, 0), fold);
        if !unit(or, sum) {
            return false;
        }
    }
    for c in 0..n {
        let (or, sum) = (0..n).map(|r| r * n + c).fold((0, 0), fold);
        if !unit(or, sum) {
            return false;
        }
    }
    for top in (0..n).step_by(box_rows) {
        for left in (0..n).step_by(box_cols) {
            let mut acc = (0, 0);
            for r in top..top + box_rows {
                acc = (left..left + box_cols).map(|c| r * n + c).fold(acc, fold);
            }
            if !unit(acc.0, acc.1) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::shape::BoxShape;

    #[test]
    fn accepts_solutions_and_rejects_near_misses() {
        let shape = BoxShape::for_side(4).unwrap();
        let good = Grid::new(shape, &[1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]).unwrap();
        let puzzle = Grid::new(shape, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert!(is_solution(&puzzle, &good));
        // Rows and columns fine, boxes wrong (a Latin square that is no Sudoku).
        let latin = Grid::new(shape, &[1, 2, 3, 4, 2, 3, 4, 1, 3, 4, 1, 2, 4, 1, 2, 3]).unwrap();
        assert!(!is_complete_and_valid(&latin));
        let other = Grid::new(shape, &[2, 1, 4, 3, 4, 3, 2, 1, 1, 2, 3, 4, 3, 4, 1, 2]).unwrap();
        assert!(is_complete_and_valid(&other) && !is_solution(&puzzle, &other));
        assert!(!is_complete_and_valid(&puzzle));
    }
}
