//! Puzzles made to order: a random full grid, givens taken away while the solution stays unique, then graded by
//! the logical solver and, when a grade is asked for, brought to it (givens put back where the puzzle came out
//! harder, a fresh grid where it came out easier). A seed always makes the same puzzles.

use super::generate;
use super::grid::Grid;
use super::logic::{self, Grade, Rating};
use super::rng::SplitMix;
use super::shape::BoxShape;
use super::solver::with_thread_solver;
use super::symbols::Symbols;

/// What to make.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// The grid's shape.
    pub shape: BoxShape,
    /// The grade to reach (`None`: whatever digging to a minimal puzzle gives).
    pub grade: Option<Grade>,
    /// Givens in pairs symmetric about the centre (180° rotation), as printed puzzles have them.
    pub symmetric: bool,
}

/// A made puzzle.
#[derive(Clone, Debug)]
pub struct Made {
    /// The puzzle.
    pub puzzle: Grid,
    /// Its one solution.
    pub solution: Grid,
    /// Its grade.
    pub rating: Rating,
    /// Full grids tried before this one came out at the asked grade.
    pub attempts: u32,
}

/// Guesses allowed to one uniqueness check: past it, the removal is undone (counted as not unique). Small grids
/// never come near it; a 25×25 dug deep can, and a puzzle that takes that long to check is no puzzle for people.
fn check_budget(side: usize) -> u64 {
    if side <= 12 {
        0
    } else if side <= 16 {
        200_000
    } else {
        20_000
    }
}

/// The most of a grid's cells digging empties. Up to 16×16 a puzzle is dug until no given can go; a 20×20 or
/// 25×25 stops at half, because past it each uniqueness check can take seconds (a 25×25 dug to 51% took
/// 457 s, to 50% 0.14 s).
fn max_empty_share(side: usize) -> f64 {
    if side <= 16 { 1.0 } else { 0.5 }
}

/// True when `cells` has exactly one solution (within the budget).
fn unique(shape: BoxShape, cells: &[u8]) -> bool {
    let grid = Grid::new(shape, cells).expect("cells of the shape");
    let outcome = with_thread_solver(check_budget(shape.side()), |s| s.solve(&grid, 2));
    outcome.count == 1 && !outcome.gave_up
}

/// The cells that go together: one cell, or a cell and its mirror through the centre.
fn orbits(cells: usize, symmetric: bool) -> Vec<Vec<usize>> {
    if !symmetric {
        return (0..cells).map(|c| vec![c]).collect();
    }
    (0..cells.div_ceil(2))
        .map(|c| {
            let mirror = cells - 1 - c;
            if mirror == c {
                vec![c]
            } else {
                vec![c, mirror]
            }
        })
        .collect()
}

/// One attempt: a full grid dug to a minimal unique puzzle (to half empty from 20×20 up). Returns the puzzle and the orbits it emptied, in the
/// order they were emptied.
fn dig(request: &Request, rng: &mut SplitMix) -> (Vec<u8>, Grid, Vec<Vec<usize>>) {
    let shape = request.shape;
    let solution = generate::shuffled_grid(shape, rng.next_u64());
    let mut cells = solution.cells().to_vec();
    let mut order = orbits(shape.cells(), request.symmetric);
    rng.shuffle(&mut order);
    let mut emptied = Vec::new();
    let most = (shape.cells() as f64 * max_empty_share(shape.side())) as usize;
    let mut empty = 0;
    for orbit in order {
        if empty + orbit.len() > most {
            break;
        }
        orbit.iter().for_each(|&c| cells[c] = 0);
        if unique(shape, &cells) {
            empty += orbit.len();
            emptied.push(orbit);
        } else {
            orbit.iter().for_each(|&c| cells[c] = solution.cells()[c]);
        }
    }
    (cells, solution, emptied)
}

/// The rating of a puzzle's logical solution.
fn rate(shape: BoxShape, cells: &[u8]) -> Rating {
    let grid = Grid::new(shape, cells).expect("cells of the shape");
    Rating::of(&logic::solve_unique(&grid, Symbols::Standard))
        .expect("a unique puzzle has a logical path")
}

/// Makes one puzzle from `seed`, trying up to `max_attempts` full grids for the asked grade; `None` when none
/// reached it.
pub fn make(request: &Request, seed: u64, max_attempts: u32) -> Option<Made> {
    let mut rng = SplitMix(seed ^ 0x5851_F42D_4C95_7F2D);
    for attempt in 1..=max_attempts.max(1) {
        let (mut cells, solution, emptied) = dig(request, &mut rng);
        let mut rating = rate(request.shape, &cells);
        if let Some(target) = request.grade {
            // Harder than asked: put givens back, the last emptied first, until it is no harder.
            let mut back = emptied.iter().rev();
            while rating.grade > target {
                let Some(orbit) = back.next() else { break };
                orbit.iter().for_each(|&c| cells[c] = solution.cells()[c]);
                rating = rate(request.shape, &cells);
            }
            if rating.grade != target {
                continue;
            }
        }
        return Some(Made {
            puzzle: Grid::new(request.shape, &cells).expect("cells of the shape"),
            solution,
            rating,
            attempts: attempt,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::solver;

    fn nine() -> BoxShape {
        BoxShape::new(3, 3).unwrap()
    }

    #[test]
    fn made_puzzles_are_unique_minimal_and_reproducible() {
        let request = Request {
            shape: nine(),
            grade: None,
            symmetric: false,
        };
        for seed in 0..5 {
            let made = make(&request, seed, 1).unwrap();
            let counted = solver::count(&made.puzzle, 2);
            assert_eq!(counted.count, 1);
            assert_eq!(counted.solution.as_ref(), Some(&made.solution));
            // Minimal: no given can go without a second solution appearing.
            for c in (0..81).filter(|&c| made.puzzle.cells()[c] != 0) {
                let mut cells = made.puzzle.cells().to_vec();
                cells[c] = 0;
                assert!(
                    !unique(nine(), &cells),
                    "seed {seed}: r{}c{} could go",
                    c / 9 + 1,
                    c % 9 + 1
                );
            }
            assert_eq!(make(&request, seed, 1).unwrap().puzzle, made.puzzle);
        }
    }

    #[test]
    fn the_asked_grade_is_met_and_symmetry_kept() {
        for grade in [Grade::Easy, Grade::Medium, Grade::Hard] {
            let request = Request {
                shape: nine(),
                grade: Some(grade),
                symmetric: true,
            };
            let made = make(&request, 7, 200).unwrap();
            assert_eq!(made.rating.grade, grade);
            assert_eq!(solver::count(&made.puzzle, 2).count, 1);
            let cells = made.puzzle.cells();
            assert!((0..81).all(|c| (cells[c] == 0) == (cells[80 - c] == 0)));
        }
    }

    #[test]
    fn other_shapes_are_made_too() {
        for (r, c) in [(2, 3), (3, 4), (4, 4)] {
            let request = Request {
                shape: BoxShape::new(r, c).unwrap(),
                grade: None,
                symmetric: false,
            };
            let made = make(&request, 3, 1).unwrap();
            assert_eq!(solver::count(&made.puzzle, 2).count, 1);
            assert!(made.puzzle.clues() < made.puzzle.cells().len() / 2);
        }
    }
}
