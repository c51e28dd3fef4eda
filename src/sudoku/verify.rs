//! The independent checker: is a grid a complete, valid solution of its puzzle? Written apart from the solver
//! (plain unit masks, no shared tables) so a solver bug cannot hide behind itself.

use super::grid::Grid;
use super::shape::MAX_SIDE;

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
    keeps_givens(puzzle, solution) && nine_units_full(solution)
}

/// True when every row, column and 3×3 box of a 9×9 grid (values row-major) holds 1 to 9, in one pass over
/// the cells: each cell's bit joins its row's, its column's and its box's ORs at once (the columns' and the
/// boxes' kept side by side), and every unit's OR is ANDed into one word. Nine cells cover the nine bits only
/// when each holds a different value from 1 to 9 (an empty cell adds no bit, a value above 9 one outside
/// them), so the word is full exactly when every unit is. Every 9×9 answer of every engine passes here: this
/// took 33–42 ns an answer on the development VM, where folding each unit from an array of the cells' bits
/// ([`units`]) took 57–64.
fn nine_units_full(cells: &[u8; 81]) -> bool {
    let mut columns = [0u32; 9];
    let mut all = 0x1FF;
    for band in cells.chunks_exact(27) {
        let mut boxes = [0u32; 3];
        for row in band.chunks_exact(9) {
            let mut row_or = 0;
            for (c, &v) in row.iter().enumerate() {
                // `min` keeps the shift in range; a value of 31 or more sets bit 30, outside the nine.
                let bit = (1u32 << v.min(31)) >> 1;
                row_or |= bit;
                columns[c] |= bit;
                boxes[c / 3] |= bit;
            }
            all &= row_or;
        }
        all &= boxes[0] & boxes[1] & boxes[2];
    }
    columns.iter().fold(all, |all, &column| all & column) == 0x1FF
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
    let shape = grid.shape();
    if (shape.rows(), shape.cols()) == (3, 3) {
        let cells = grid.cells().try_into().expect("a 9×9 grid has 81 cells");
        return nine_units_full(cells);
    }
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
/// once for each row, column and box, while it returns true; true if it always did.
///
/// Every answer of every engine passes through here, millions a second from the GPU. The units are
/// independent reductions of one bit per cell (no mask is read back and written per cell, which chained each
/// cell to the last through memory), and the common shape gets its own copy with its sizes known at compile
/// time; the others go row by row ([`units_by_rows`]).
fn every_unit(grid: &Grid, unit: impl FnMut(u32, u32) -> bool) -> bool {
    let shape = grid.shape();
    if (shape.rows(), shape.cols()) == (3, 3) {
        units::<81>(grid.cells(), 3, 3, unit)
    } else {
        units_by_rows(grid.cells(), shape.rows(), shape.cols(), unit)
    }
}

/// Each value's bit into `bits`: `1 << (value − 1)`, none for an empty cell (0).
#[inline(always)]
fn value_bits(values: &[u8], bits: &mut [u32]) {
    for (bit, &v) in bits.iter_mut().zip(values) {
        *bit = (1u32 << v) >> 1;
    }
}

/// [`every_unit`] for any shape, row by row. A row's cells lie together (one short reduction); the columns'
/// running ORs and sums are kept side by side and each row adds to all of them at once, as are its box band's,
/// so that the work is N-wide steps the compiler vectorizes. (Folding down each column in turn, as [`units`]
/// does, made each column one chain of N dependent steps: a 25×25 answer took about 1 µs to check of the
/// 2–3 µs the host spent on it, where the GPU answers a thousand 25×25 puzzles in about 1 ms.)
fn units_by_rows(
    cells: &[u8],
    box_rows: usize,
    box_cols: usize,
    mut unit: impl FnMut(u32, u32) -> bool,
) -> bool {
    let n = box_rows * box_cols;
    let (mut column_or, mut column_sum) = ([0u32; MAX_SIDE], [0u32; MAX_SIDE]);
    let (mut band_or, mut band_sum) = ([0u32; MAX_SIDE], [0u32; MAX_SIDE]);
    for (r, row) in cells.chunks_exact(n).enumerate() {
        let mut bits = [0u32; MAX_SIDE];
        value_bits(row, &mut bits);
        let (or, sum) = bits.iter().fold((0, 0), |(or, sum), &b| (or | b, sum + b));
        if !unit(or, sum) {
            return false;
        }
        for c in 0..MAX_SIDE {
            column_or[c] |= bits[c];
            column_sum[c] += bits[c];
            band_or[c] |= bits[c];
            band_sum[c] += bits[c];
        }
        if (r + 1) % box_rows == 0 {
            for left in (0..n).step_by(box_cols) {
                let or = band_or[left..left + box_cols].iter().fold(0, |a, &b| a | b);
                let sum = band_sum[left..left + box_cols].iter().sum();
                if !unit(or, sum) {
                    return false;
                }
            }
            (band_or, band_sum) = ([0; MAX_SIDE], [0; MAX_SIDE]);
        }
    }
    (0..n).all(|c| unit(column_or[c], column_sum[c]))
}

/// [`every_unit`] for boxes of `box_rows` × `box_cols`, with room for `CELLS` cells (the 9×9 grid's).
#[inline(always)]
fn units<const CELLS: usize>(
    cells: &[u8],
    box_rows: usize,
    box_cols: usize,
    mut unit: impl FnMut(u32, u32) -> bool,
) -> bool {
    let n = box_rows * box_cols;
    let mut bits = [0u32; CELLS];
    value_bits(cells, &mut bits);
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

    #[test]
    fn a_nine_solution_with_a_value_past_nine_is_refused() {
        let solved = crate::sudoku::generate::shuffled_grid(BoxShape::new(3, 3).unwrap(), 3);
        let cells: [u8; 81] = solved.cells().try_into().unwrap();
        assert!(is_nine_solution(&[0; 81], &cells));
        for bad in [10, 15, 31, 32, 255] {
            let mut changed = cells;
            changed[40] = bad;
            assert!(!is_nine_solution(&[0; 81], &changed), "value {bad}");
        }
    }

    /// The rows, columns and boxes of a grid as lists of values, the plain way.
    fn plain_units(grid: &Grid) -> Vec<Vec<u8>> {
        let (n, (br, bc)) = (grid.side(), (grid.shape().rows(), grid.shape().cols()));
        let mut units: Vec<Vec<u8>> = Vec::new();
        units.extend((0..n).map(|r| (0..n).map(|c| grid.get(r, c)).collect()));
        units.extend((0..n).map(|c| (0..n).map(|r| grid.get(r, c)).collect()));
        for top in (0..n).step_by(br) {
            for left in (0..n).step_by(bc) {
                let cells = (top..top + br).flat_map(|r| (left..left + bc).map(move |c| (r, c)));
                units.push(cells.map(|(r, c)| grid.get(r, c)).collect());
            }
        }
        units
    }

    #[test]
    fn every_shape_is_checked_as_the_plain_way_checks_it() {
        use crate::sudoku::generate;
        let shapes = [
            "2x2", "2x3", "3x2", "2x4", "4x2", "3x3", "3x4", "4x3", "2x7", "4x4", "4x5", "5x4",
            "5x5",
        ];
        for (k, shape) in shapes.iter().enumerate() {
            let shape: BoxShape = shape.parse().unwrap();
            let n = shape.side();
            let solved = generate::shuffled_grid(shape, k as u64);
            // The solution, grids a step off it: two cells of a row swapped (rows stay whole), a cell
            // emptied, a cell given its neighbour's value, and two cells of a column swapped.
            // And a Latin square that is no Sudoku: rows and columns whole, boxes not.
            let latin = (0..n * n)
                .map(|i| ((i / n + i % n) % n + 1) as u8)
                .collect();
            let mut grids = vec![solved.cells().to_vec(), latin];
            for step in 0..4 * n {
                let (r, c) = (step % n, (step * 7 + 3) % n);
                let (i, j) = (r * n + c, r * n + (c + 1) % n);
                let mut g = solved.cells().to_vec();
                match step % 4 {
                    0 => g.swap(i, j),
                    1 => g[i] = 0,
                    2 => g[i] = g[j],
                    _ => g.swap(i, ((r + 1) % n) * n + c),
                }
                grids.push(g);
            }
            for cells in grids {
                let grid = Grid::new(shape, &cells).unwrap();
                let units = plain_units(&grid);
                let whole = |u: &Vec<u8>| {
                    let mut v = u.clone();
                    v.sort_unstable();
                    v.iter().copied().eq(1..=n as u8)
                };
                let repeats = |u: &Vec<u8>| {
                    let mut v: Vec<u8> = u.iter().copied().filter(|&x| x != 0).collect();
                    let len = v.len();
                    v.sort_unstable();
                    v.dedup();
                    v.len() != len
                };
                assert_eq!(
                    is_complete_and_valid(&grid),
                    units.iter().all(whole),
                    "{shape} {cells:?}"
                );
                if let Ok(nine) = <[u8; 81]>::try_from(&cells[..]) {
                    assert_eq!(
                        is_nine_solution(&[0; 81], &nine),
                        units.iter().all(whole),
                        "{cells:?}"
                    );
                }
                assert_eq!(
                    has_repeats(&grid),
                    units.iter().any(repeats),
                    "{shape} {cells:?}"
                );
            }
        }
    }
}
