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

/// Guesses allowed to one uniqueness check of a `side`×`side` proposal (0: no limit): past it, the removal is
/// undone (counted as not unique). Small grids never come near it; a 25×25 dug deep can, and a puzzle that takes
/// that long to check is no puzzle for people. A GPU checker hands its kernel the same budget.
pub fn uniqueness_budget(side: usize) -> u64 {
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

/// The CPU's uniqueness check of a proposal (within [`uniqueness_budget`]): what [`make`] uses, and what a GPU
/// checker falls back to for a puzzle its kernel hands back.
pub fn unique_on_cpu(grid: &Grid) -> bool {
    let outcome = with_thread_solver(uniqueness_budget(grid.side()), |s| s.solve(grid, 2));
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

/// One attempt in progress: a full grid being dug towards a minimal unique puzzle (to half empty from 20×20 up),
/// one orbit at a time, each removal kept only if the puzzle stays unique.
struct Dig {
    solution: Grid,
    cells: Vec<u8>,
    order: Vec<Vec<usize>>,
    /// The next orbit of `order` to try.
    next: usize,
    /// The orbits emptied so far, in order.
    emptied: Vec<Vec<usize>>,
    empty: usize,
    most: usize,
}

impl Dig {
    fn new(request: &Request, rng: &mut SplitMix) -> Self {
        let shape = request.shape;
        let solution = generate::shuffled_grid(shape, rng.next_u64());
        let cells = solution.cells().to_vec();
        let mut order = orbits(shape.cells(), request.symmetric);
        rng.shuffle(&mut order);
        Self {
            solution,
            cells,
            order,
            next: 0,
            emptied: Vec::new(),
            empty: 0,
            most: (shape.cells() as f64 * max_empty_share(shape.side())) as usize,
        }
    }

    /// Empties the next orbit and returns the puzzle to check; `None` when digging is over.
    fn propose(&mut self) -> Option<&[u8]> {
        let orbit = self.order.get(self.next)?;
        if self.empty + orbit.len() > self.most {
            return None;
        }
        orbit.iter().for_each(|&c| self.cells[c] = 0);
        Some(&self.cells)
    }

    /// Keeps the proposed removal when the puzzle stayed unique, or puts the givens back.
    fn answer(&mut self, unique: bool) {
        let orbit = std::mem::take(&mut self.order[self.next]);
        self.next += 1;
        if unique {
            self.empty += orbit.len();
            self.emptied.push(orbit);
        } else {
            orbit
                .iter()
                .for_each(|&c| self.cells[c] = self.solution.cells()[c]);
        }
    }
}

/// The rating of a puzzle's logical solution.
fn rate(shape: BoxShape, cells: &[u8]) -> Rating {
    let grid = Grid::new(shape, cells).expect("cells of the shape");
    Rating::of(&logic::solve_unique(&grid, Symbols::Standard))
        .expect("a unique puzzle has a logical path")
}

/// One puzzle being made, as a sequence of uniqueness checks: [`Maker::propose`] gives the next puzzle to
/// check, [`Maker::answer`] takes its verdict. Grading and bringing a dug puzzle to the asked grade happen
/// in between, on the CPU (putting givens back never needs a check). [`make`] drives one with the CPU's
/// check; [`make_batch`] drives many in step, so a GPU can check all their proposals in one batch.
pub struct Maker {
    request: Request,
    rng: SplitMix,
    attempt: u32,
    max_attempts: u32,
    dig: Dig,
    /// Set when done: the puzzle, or `None` when no attempt reached the grade.
    done: Option<Option<Made>>,
}

impl Maker {
    /// Starts making one puzzle from `seed`, trying up to `max_attempts` full grids for the asked grade.
    pub fn new(request: &Request, seed: u64, max_attempts: u32) -> Self {
        let mut rng = SplitMix(seed ^ 0x5851_F42D_4C95_7F2D);
        let dig = Dig::new(request, &mut rng);
        Self {
            request: *request,
            rng,
            attempt: 1,
            max_attempts: max_attempts.max(1),
            dig,
            done: None,
        }
    }

    /// The next puzzle whose uniqueness is needed, or `None` when the maker is done (see [`Maker::finish`]).
    pub fn propose(&mut self) -> Option<Grid> {
        loop {
            if self.done.is_some() {
                return None;
            }
            if let Some(cells) = self.dig.propose() {
                return Some(Grid::new(self.request.shape, cells).expect("cells of the shape"));
            }
            self.settle_attempt();
        }
    }

    /// The verdict on the last proposal: whether it has exactly one solution.
    pub fn answer(&mut self, unique: bool) {
        self.dig.answer(unique);
    }

    /// The made puzzle once [`Maker::propose`] has returned `None`: `None` when no attempt reached the grade.
    pub fn finish(self) -> Option<Made> {
        self.done.flatten()
    }

    /// A finished dig: graded, brought to the asked grade, and either kept or followed by a fresh attempt.
    fn settle_attempt(&mut self) {
        let shape = self.request.shape;
        let dig = &mut self.dig;
        let mut rating = rate(shape, &dig.cells);
        if let Some(target) = self.request.grade {
            // Harder than asked: put givens back, the last emptied first, until it is no harder.
            let mut back = dig.emptied.iter().rev();
            while rating.grade > target {
                let Some(orbit) = back.next() else { break };
                orbit
                    .iter()
                    .for_each(|&c| dig.cells[c] = dig.solution.cells()[c]);
                rating = rate(shape, &dig.cells);
            }
            if rating.grade != target {
                if self.attempt >= self.max_attempts {
                    self.done = Some(None);
                } else {
                    self.attempt += 1;
                    self.dig = Dig::new(&self.request, &mut self.rng);
                }
                return;
            }
        }
        self.done = Some(Some(Made {
            puzzle: Grid::new(shape, &dig.cells).expect("cells of the shape"),
            solution: dig.solution.clone(),
            rating,
            attempts: self.attempt,
        }));
    }
}

/// Makes one puzzle from `seed`, trying up to `max_attempts` full grids for the asked grade; `None` when none
/// reached it. Uniqueness is checked on the CPU.
pub fn make(request: &Request, seed: u64, max_attempts: u32) -> Option<Made> {
    let mut maker = Maker::new(request, seed, max_attempts);
    while let Some(proposal) = maker.propose() {
        maker.answer(unique_on_cpu(&proposal));
    }
    maker.finish()
}

/// Makes one puzzle for each seed, the makers in step: each round gathers every unfinished maker's proposal
/// and asks `check` about all of them at once (one verdict per puzzle, in order: a GPU batch). With the CPU's
/// check this makes exactly what [`make`] makes for the same seeds.
pub fn make_batch(
    request: &Request,
    seeds: &[u64],
    max_attempts: u32,
    check: &mut dyn FnMut(&[Grid]) -> Vec<bool>,
) -> Vec<Option<Made>> {
    let mut makers: Vec<Maker> = seeds
        .iter()
        .map(|&seed| Maker::new(request, seed, max_attempts))
        .collect();
    loop {
        // Proposing also grades finished digs, the dear part: on every core natively.
        #[cfg(not(target_arch = "wasm32"))]
        let proposed: Vec<Option<Grid>> = {
            use rayon::prelude::*;
            makers.par_iter_mut().map(Maker::propose).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let proposed: Vec<Option<Grid>> = makers.iter_mut().map(Maker::propose).collect();
        let (waiting, proposals): (Vec<usize>, Vec<Grid>) = proposed
            .into_iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (i, p)))
            .unzip();
        if proposals.is_empty() {
            break;
        }
        let verdicts = check(&proposals);
        assert_eq!(verdicts.len(), proposals.len(), "one verdict per proposal");
        for (i, unique) in waiting.into_iter().zip(verdicts) {
            makers[i].answer(unique);
        }
    }
    makers.into_iter().map(Maker::finish).collect()
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
                    !unique_on_cpu(&Grid::new(nine(), &cells).unwrap()),
                    "seed {seed}: r{}c{} could go",
                    c / 9 + 1,
                    c % 9 + 1
                );
            }
            assert_eq!(make(&request, seed, 1).unwrap().puzzle, made.puzzle);
        }
    }

    #[test]
    fn makers_in_step_make_what_one_at_a_time_makes() {
        for (shape, grade) in [
            (nine(), None),
            (nine(), Some(Grade::Hard)),
            (BoxShape::new(2, 3).unwrap(), None),
        ] {
            let request = Request {
                shape,
                grade,
                symmetric: grade.is_some(),
            };
            let seeds: Vec<u64> = (10..16).collect();
            let mut rounds = 0;
            let mut largest = 0;
            let batch = make_batch(&request, &seeds, 50, &mut |grids| {
                rounds += 1;
                largest = largest.max(grids.len());
                grids.iter().map(unique_on_cpu).collect()
            });
            for (&seed, made) in seeds.iter().zip(&batch) {
                let one = make(&request, seed, 50);
                assert_eq!(
                    made.as_ref().map(|m| (&m.puzzle, m.attempts)),
                    one.as_ref().map(|m| (&m.puzzle, m.attempts)),
                    "{shape} seed {seed}"
                );
            }
            // The makers' proposals went together: one round per removal tried, not one per puzzle and removal.
            assert_eq!(largest, seeds.len());
            assert!(rounds < 81 * 50, "{rounds} rounds");
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
