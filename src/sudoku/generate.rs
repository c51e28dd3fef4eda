//! Seeded puzzle generation for every shape: a valid full grid from a pattern, shuffled by the symmetries that
//! keep it valid, then emptied cell by cell while the puzzle keeps exactly one solution.

use super::grid::Grid;
use super::rng::SplitMix;
use super::shape::BoxShape;
use super::solver::Solver;

/// A permutation of `0..groups * size` that shuffles whole groups and the members within each.
fn grouped_order(rng: &mut SplitMix, groups: usize, size: usize) -> Vec<usize> {
    let mut outer: Vec<usize> = (0..groups).collect();
    rng.shuffle(&mut outer);
    outer
        .into_iter()
        .flat_map(|g| {
            let mut inner: Vec<usize> = (0..size).map(|i| g * size + i).collect();
            rng.shuffle(&mut inner);
            inner
        })
        .collect()
}

/// A full, valid grid of `shape`, different for each seed.
pub fn solved_grid(shape: BoxShape, seed: u64) -> Grid {
    let (n, r, c) = (shape.side(), shape.rows(), shape.cols());
    let mut rng = SplitMix(seed);
    // The pattern: row `i` is row 0 shifted by `c * (i % r) + i / r`, which makes every box a permutation.
    let pattern = |row: usize, col: usize| (c * (row % r) + row / r + col) % n;
    // Rows may move within their band and bands among themselves; likewise columns within stacks.
    let rows = grouped_order(&mut rng, n / r, r);
    let cols = grouped_order(&mut rng, n / c, c);
    let mut values: Vec<u8> = (1..=n as u8).collect();
    rng.shuffle(&mut values);
    Grid::from_fn(shape, |i| values[pattern(rows[i / n], cols[i % n])])
        .expect("a pattern grid is in range")
}

/// A full, valid grid of `shape` with none of the pattern's structure: the first solution of a search of the
/// empty grid in a random order (so not drawn uniformly, but with no band or stack left in lockstep).
pub fn shuffled_grid(shape: BoxShape, seed: u64) -> Grid {
    Solver::with_max_guesses(0)
        .solve_shuffled(&Grid::empty(shape), seed)
        .solution
        .expect("an empty grid has a solution")
}

/// A solvable puzzle and the full grid it came from: [`shuffled_grid`] with `empty_share` of its cells emptied at
/// random, uniqueness not kept. Near half emptied, large grids of this kind are where completion gets hard (the
/// quasigroup-completion phase transition): the benchmark of large grids uses them.
pub fn with_holes(shape: BoxShape, seed: u64, empty_share: f64) -> (Grid, Grid) {
    let solution = shuffled_grid(shape, seed);
    let mut rng = SplitMix(seed ^ 0x6A09_E667_F3BC_C909);
    let mut order: Vec<usize> = (0..shape.cells()).collect();
    rng.shuffle(&mut order);
    let holes = (shape.cells() as f64 * empty_share.clamp(0.0, 1.0)).round() as usize;
    let mut cells = solution.cells().to_vec();
    order[..holes].iter().for_each(|&i| cells[i] = 0);
    (Grid::new(shape, &cells).expect("same shape"), solution)
}

/// A puzzle with exactly one solution (returned alongside), about `empty_share` of its cells empty (fewer if
/// uniqueness stops the digging first).
pub fn puzzle(shape: BoxShape, seed: u64, empty_share: f64) -> (Grid, Grid) {
    let solution = solved_grid(shape, seed);
    let mut rng = SplitMix(seed ^ 0xD1B5_4A32_D192_ED03);
    let mut order: Vec<usize> = (0..shape.cells()).collect();
    rng.shuffle(&mut order);
    let target = (shape.cells() as f64 * empty_share.clamp(0.0, 1.0)) as usize;
    let mut cells = solution.cells().to_vec();
    let mut solver = Solver::new();
    // Empty cells in small batches, keeping a batch only while the solution stays unique; batches keep the
    // number of uniqueness checks low on 25×25.
    let batch = (shape.side() / 3).max(1);
    let mut emptied = 0;
    for group in order.chunks(batch) {
        if emptied >= target {
            break;
        }
        let saved = cells.clone();
        group.iter().for_each(|&i| cells[i] = 0);
        let trial = Grid::new(shape, &cells).expect("same shape");
        if solver.solve(&trial, 2).count == 1 {
            emptied += group.len();
        } else {
            cells = saved;
        }
    }
    (Grid::new(shape, &cells).expect("same shape"), solution)
}

/// Test puzzles for the 9×9 engines, which must agree on them: unique puzzles 50–80% empty, and every third
/// one with a quarter of its givens taken away, so that several solutions are left to count.
#[cfg(test)]
pub(crate) fn mixed_nine(seed: u64) -> Grid {
    let shape = BoxShape::new(3, 3).expect("3×3 boxes exist");
    let share = [0.5, 0.6, 0.7, 0.8][seed as usize % 4];
    let (puzzle, _) = puzzle(shape, seed, share);
    if !seed.is_multiple_of(3) {
        return puzzle;
    }
    let mut cells = puzzle.cells().to_vec();
    cells
        .iter_mut()
        .filter(|v| **v != 0)
        .step_by(4)
        .for_each(|v| *v = 0);
    Grid::new(shape, &cells).expect("same shape")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::verify;

    #[test]
    fn solved_grids_are_valid_for_every_shape_and_vary_with_the_seed() {
        for (r, c) in [
            (2, 2),
            (2, 3),
            (3, 2),
            (2, 4),
            (3, 3),
            (2, 5),
            (3, 4),
            (4, 3),
            (3, 5),
            (4, 4),
            (4, 5),
            (5, 5),
        ] {
            let shape = BoxShape::new(r, c).unwrap();
            let a = solved_grid(shape, 1);
            assert!(verify::is_complete_and_valid(&a), "{shape}");
            assert_ne!(a, solved_grid(shape, 2), "{shape}");
        }
    }

    #[test]
    fn shuffled_grids_are_valid_and_puzzles_with_holes_keep_their_grid() {
        for side in [4, 6, 9, 12, 16, 20, 25] {
            let shape = BoxShape::for_side(side).unwrap();
            let full = shuffled_grid(shape, 11);
            assert!(verify::is_complete_and_valid(&full), "{shape}");
            assert_ne!(full, shuffled_grid(shape, 12), "{shape}");
            let (puzzle, solution) = with_holes(shape, 5, 0.5);
            assert_eq!(
                puzzle.clues(),
                shape.cells() - (shape.cells() as f64 * 0.5).round() as usize
            );
            assert!(verify::is_solution(&puzzle, &solution), "{shape}");
            assert_eq!(
                with_holes(shape, 5, 0.5),
                (puzzle, solution),
                "a seed repeats"
            );
        }
    }

    #[test]
    fn puzzles_are_unique_and_keep_their_solution() {
        let shape = BoxShape::for_side(9).unwrap();
        let (p, s) = puzzle(shape, 7, 0.6);
        assert!(p.clues() < 50);
        let out = Solver::new().solve(&p, 2);
        assert_eq!((out.count, out.solution), (1, Some(s)));
    }
}
