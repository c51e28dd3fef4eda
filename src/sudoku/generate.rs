//! Seeded puzzle generation for every shape: a valid full grid from a pattern, shuffled by the symmetries that
//! keep it valid, then emptied cell by cell while the puzzle keeps exactly one solution.

use super::grid::Grid;
use super::shape::BoxShape;
use super::solver::Solver;

/// SplitMix64: a tiny, well-mixed PRNG, so generation needs no dependency and a seed always gives the same grid.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

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
    fn puzzles_are_unique_and_keep_their_solution() {
        let shape = BoxShape::for_side(9).unwrap();
        let (p, s) = puzzle(shape, 7, 0.6);
        assert!(p.clues() < 50);
        let out = Solver::new().solve(&p, 2);
        assert_eq!((out.count, out.solution), (1, Some(s)));
    }
}
