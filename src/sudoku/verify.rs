//! The independent checker: is a grid a complete, valid solution of its puzzle? Written apart from the solver
//! (plain unit masks, no shared tables) so a solver bug cannot hide behind itself.

use super::grid::Grid;
use super::shape::MAX_SIDE;

/// True when `solution` has the puzzle's shape, keeps every given, and every row, column and box holds each
/// value exactly once.
pub fn is_solution(puzzle: &Grid, solution: &Grid) -> bool {
    puzzle.shape() == solution.shape()
        && puzzle
            .cells()
            .iter()
            .zip(solution.cells())
            .all(|(&given, &value)| given == 0 || given == value)
        && is_complete_and_valid(solution)
}

/// True when every cell is filled and no unit repeats a value.
pub fn is_complete_and_valid(grid: &Grid) -> bool {
    let shape = grid.shape();
    let n = shape.side();
    let full = (1u32 << n) - 1;
    let (mut rows, mut cols, mut boxes) = ([0u32; MAX_SIDE], [0u32; MAX_SIDE], [0u32; MAX_SIDE]);
    for (i, &v) in grid.cells().iter().enumerate() {
        if v == 0 {
            return false;
        }
        let bit = 1 << (v - 1);
        let (r, c) = (i / n, i % n);
        rows[r] |= bit;
        cols[c] |= bit;
        boxes[shape.box_of(r, c)] |= bit;
    }
    // N cells per unit covering N values: each value exactly once.
    rows[..n]
        .iter()
        .chain(&cols[..n])
        .chain(&boxes[..n])
        .all(|&m| m == full)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::shape::BoxShape;

    #[test]
    fn accepts_solutions_and_rejects_near_misses() {
        let shape = BoxShape::for_side(4).unwrap();
        let good = Grid::new(shape, vec![1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]).unwrap();
        let puzzle =
            Grid::new(shape, vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert!(is_solution(&puzzle, &good));
        // Rows and columns fine, boxes wrong (a Latin square that is no Sudoku).
        let latin = Grid::new(shape, vec![1, 2, 3, 4, 2, 3, 4, 1, 3, 4, 1, 2, 4, 1, 2, 3]).unwrap();
        assert!(!is_complete_and_valid(&latin));
        let other = Grid::new(shape, vec![2, 1, 4, 3, 4, 3, 2, 1, 1, 2, 3, 4, 3, 4, 1, 2]).unwrap();
        assert!(is_complete_and_valid(&other) && !is_solution(&puzzle, &other));
        assert!(!is_complete_and_valid(&puzzle));
    }
}
