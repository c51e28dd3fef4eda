//! The CPU solver: bitmask candidates, naked and hidden singles, locked candidates, and depth-first search on
//! the cell with the fewest candidates, with an explicit stack (no recursion, so a 25×25 never meets a stack
//! limit).
//!
//! ## Layout
//! A board (`board::Board`) keeps one candidate mask per cell (bit `v - 1` ⇔ value `v` is still possible; a filled cell keeps
//! exactly its value's bit), one mask per unit of the values placed in it, and the list of open cells:
//!
//! ```text
//! cand: [ cell 0 .. cell N²-1 ]                                      bit v-1 ⇔ v possible here
//! used: [ row 0 .. row N-1 | col 0 .. col N-1 | box 0 .. box N-1 ]    bit v-1 ⇔ v placed in the unit
//! open: the unfilled cells, ascending (compacted as cells fill)
//! ```
//!
//! Placing a value clears its bit from the cell's peers (20 for 9×9, 72 for 25×25), so eliminations found by
//! reasoning persist down the search tree.
//!
//! ## One settle step
//! 1. Naked singles: walk the open cells; a cell with no candidate kills the board, a cell with one is placed
//!    at once (later cells of the same pass already see it). Repeat while anything was placed.
//! 2. Hidden singles: per unit, fold the candidates of its open cells into `once` (seen at least once) and
//!    `twice` (seen at least twice). A value neither placed nor in `once` has nowhere to go: dead. A value in
//!    `once & !twice` has exactly one place: put it there, then go back to 1.
//! 3. Locked candidates, near the root only (see `LOCKED_UNTIL`): where a box meets a row or column, a value
//!    confined to that meeting within the box leaves the rest of the line, and one confined to it within the
//!    line leaves the rest of the box. Any elimination: back to 1.
//! 4. From 16×16 up, once per node: every unit as an all-different constraint filtered in full (naked and
//!    hidden subsets of any size at once, `all_different`), except units unchanged since their last
//!    filtering (a hash per unit, `Board::filtered`). Any elimination: back to 1.
//! 5. Stuck: branch on the open cell with the fewest candidates (ties: lowest cell index), values ascending.
//!
//! ## Restarts, for a first solution
//! Completing a large grid near half empty has heavy-tailed search times: most orders finish at once, a few
//! take nearly forever. So a first solution not found within a thousand guesses (twenty thousand below
//! 16×16, more than any shared 9×9 puzzle needs) is searched for again in runs of growing length (the Luby
//! sequence), each a complete depth-first search in a randomized order that learns from the runs before it:
//! branch cells weighted by the dead ends met in their units ("dom/wdeg"), values first as on the deepest
//! board reached so far ("progress saving"), else the one that rules out the fewest peers' candidates.
//! Counting keeps the plain search (it must see the whole tree anyway) and its guard.
//!
//! Boards live in fixed-size arrays for three capacities (up to 9×9, 16×16, 25×25) so a branch is one `memcpy`.
//!
//! Standard 9×9 puzzles (3×3 boxes) are counted and first solved by the fast path in `nine.rs`; this
//! search takes them only for restarts and [`Solver::solve_shuffled`].
//!
//! This file holds the solver's face ([`Solver`], [`Outcome`]); the board and its rules (1–3, 5) are in
//! `board`, the full filtering (4) in `all_different`, the search and its restarts in `search`.

mod all_different;
mod board;
mod search;

use std::cell::RefCell;

use super::grid::Grid;
use super::nine;
use super::shape::BoxShape;
use board::{ALL_DIFFERENT_FROM, Tables};
use search::{FIRST_ATTEMPT, FIRST_ATTEMPT_LARGE, Search};

/// The result of solving one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Solutions found, at most the limit asked for.
    pub count: u64,
    /// The first solution in search order, if there is one.
    pub solution: Option<Grid>,
    /// True when the search stopped at the limit (there may be more solutions).
    pub hit_limit: bool,
    /// Branches taken (guesses), a rough measure of difficulty.
    pub guesses: u64,
    /// True when the search gave up: [`Solver::max_guesses`] guesses in a row found no new solution. The count
    /// is then a lower bound, and a missing solution says nothing.
    pub gave_up: bool,
}

/// An [`Outcome`] whose solution is values borrowed (row-major), not a grid of its own: the 9×9 search's
/// ([`Solver::solve_nine`]), which the worker writes out as they are. In its WebAssembly a grid made, moved
/// and returned is several `memory.copy` and `memory.fill` a puzzle, which V8 runs as calls out of the wasm
/// code (docs/benchmarks.md).
pub(crate) struct Found<'a> {
    /// Solutions found, at most the limit.
    pub(crate) count: u64,
    /// The first solution's values, row-major.
    pub(crate) solution: Option<&'a [u8]>,
    /// The search stopped at the limit.
    pub(crate) hit_limit: bool,
    /// Branches tried.
    pub(crate) guesses: u64,
    /// The search gave up (see [`Outcome::gave_up`]).
    pub(crate) gave_up: bool,
}

impl<'a> Found<'a> {
    /// An outcome seen this way, its solution's values borrowed from its grid.
    pub(crate) fn of(outcome: &'a Outcome) -> Self {
        Self {
            count: outcome.count,
            solution: outcome.solution.as_ref().map(Grid::cells),
            hit_limit: outcome.hit_limit,
            guesses: outcome.guesses,
            gave_up: outcome.gave_up,
        }
    }

    /// As an [`Outcome`], its solution a grid of `shape`.
    pub(crate) fn outcome(&self, shape: BoxShape) -> Outcome {
        Outcome {
            count: self.count,
            solution: self.solution.and_then(|v| Grid::new(shape, v)),
            hit_limit: self.hit_limit,
            guesses: self.guesses,
            gave_up: self.gave_up,
        }
    }
}

/// The guess budget of [`Solver::new`]: guesses in a row without a new solution before the search gives up.
/// Every puzzle of the shared sets needs under 400,000 in all; a 25×25 with a random half of its cells emptied
/// can need far more (about 260,000 guesses/s natively, so this is roughly 20 s of 25×25 or 2 s of 9×9).
pub const DEFAULT_MAX_GUESSES: u64 = 5_000_000;

/// A reusable CPU solver: holds the unit tables of the last shape and the search stacks, so a batch allocates
/// nothing per puzzle. One per thread.
pub struct Solver {
    /// The guard against searches too big to finish: guesses in a row without a new solution before giving up
    /// (0: never give up). Counting goes on as long as solutions keep coming.
    pub max_guesses: u64,
    /// Guesses the plain search may take for a first solution before randomized restarts take over (`None`: by
    /// size, [`FIRST_ATTEMPT`] or [`FIRST_ATTEMPT_LARGE`]).
    pub(crate) restart_after: Option<u64>,
    tables: Option<Tables>,
    fast_nine: nine::Search,
    nine: Search<u16, 81, 27, 9>,
    small: Search<u16, 81, 27, 0>,
    medium: Search<u16, 256, 48, 0>,
    large: Search<u32, 625, 75, 0>,
}

impl Default for Solver {
    fn default() -> Self {
        Self {
            max_guesses: DEFAULT_MAX_GUESSES,
            restart_after: None,
            tables: None,
            fast_nine: nine::Search::default(),
            nine: Search::default(),
            small: Search::default(),
            medium: Search::default(),
            large: Search::default(),
        }
    }
}

impl Solver {
    /// A solver with nothing allocated yet and the default guess budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// A solver that gives up after `max_guesses` guesses in a row without a new solution (0: never).
    pub fn with_max_guesses(max_guesses: u64) -> Self {
        Self {
            max_guesses,
            ..Self::default()
        }
    }

    /// Solves `puzzle`, counting solutions up to `limit` (at least 1). `limit = 1` finds the first solution,
    /// `limit = 2` checks uniqueness.
    pub fn solve(&mut self, puzzle: &Grid, limit: u64) -> Outcome {
        self.solve_with(puzzle, limit, None)
    }

    /// The first solution of the restarts' randomized search from its first guess, its random choices drawn from
    /// `seed`: different seeds give different solutions of an open puzzle, as a generator wants.
    pub fn solve_shuffled(&mut self, puzzle: &Grid, seed: u64) -> Outcome {
        self.solve_with(puzzle, 1, Some(seed))
    }

    /// The 9×9 fast path ([`nine`]) of [`Solver::solve`] on a puzzle with 3×3 boxes given as its 81 values
    /// (row-major, 0 for an empty cell; clashing givens need no check first: such a puzzle has no solution), the
    /// solution left in the solver rather than made a grid: for counting and for a first attempt. `Err` with
    /// the guesses spent where a first solution was not found within that attempt: [`Solver::solve`] takes
    /// those on with restarts from the general solver.
    pub(crate) fn solve_nine(&mut self, cells: &[u8], limit: u64) -> Result<Found<'_>, u64> {
        let limit = limit.max(1);
        let (budget, restart_after) = (self.budget(), self.restart_after(9));
        if limit > 1 || budget <= restart_after {
            return Ok(self.fast_nine.run_values(cells, limit, budget));
        }
        let first = self.fast_nine.run_values(cells, 1, restart_after);
        if first.gave_up {
            Err(first.guesses)
        } else {
            Ok(first)
        }
    }

    /// Guesses in a row without a new solution before a search gives up (`max_guesses`, 0 for never).
    fn budget(&self) -> u64 {
        match self.max_guesses {
            0 => u64::MAX,
            n => n,
        }
    }

    /// Guesses the plain search takes for a first solution of a grid of this side before restarts.
    fn restart_after(&self, side: usize) -> u64 {
        self.restart_after.unwrap_or(if side >= ALL_DIFFERENT_FROM {
            FIRST_ATTEMPT_LARGE
        } else {
            FIRST_ATTEMPT
        })
    }

    fn solve_with(&mut self, puzzle: &Grid, limit: u64, shuffle: Option<u64>) -> Outcome {
        let shape = puzzle.shape();
        if self.tables.as_ref().is_none_or(|t| t.shape != shape) {
            self.tables = Some(Tables::new(shape));
        }
        let limit = limit.max(1);
        let (budget, restart_after) = (self.budget(), self.restart_after(shape.side()));
        let tables = self.tables.as_ref().expect("tables were just built");
        match shape.cells() {
            81 if shape.rows() == 3 && shuffle.is_none() => {
                // The fast path; restarts, if one is needed, from the general solver (starting at once:
                // `restart_after` 0).
                let spent = match self.solve_nine(puzzle.cells(), limit) {
                    Ok(found) => return found.outcome(shape),
                    Err(spent) => spent,
                };
                let tables = self.tables.as_ref().expect("tables were just built");
                let mut rest = self.nine.run(tables, puzzle, 1, budget - spent, None, 0);
                rest.guesses += spent;
                rest
            }
            81 if shape.rows() == 3 => {
                self.nine
                    .run(tables, puzzle, limit, budget, shuffle, restart_after)
            }
            0..=81 => self
                .small
                .run(tables, puzzle, limit, budget, shuffle, restart_after),
            82..=256 => self
                .medium
                .run(tables, puzzle, limit, budget, shuffle, restart_after),
            _ => self
                .large
                .run(tables, puzzle, limit, budget, shuffle, restart_after),
        }
    }
}

/// Runs `f` with this thread's solver, its guess budget set to `max_guesses`. A solver builds its tables and
/// grows its stack once and keeps them; one solver per thread for the thread's life does that once, where a
/// solver per task of a parallel loop did it for every task (at 16 threads, a fifth of the time went there).
/// `f` must not call this again.
pub fn with_thread_solver<T>(max_guesses: u64, f: impl FnOnce(&mut Solver) -> T) -> T {
    thread_local! {
        static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
    }
    SOLVER.with_borrow_mut(|solver| {
        solver.max_guesses = max_guesses;
        f(solver)
    })
}

/// The first solution of `puzzle`, if any (a fresh solver; use [`Solver`] for batches).
pub fn solve(puzzle: &Grid) -> Option<Grid> {
    Solver::new().solve(puzzle, 1).solution
}

/// Counts the solutions of `puzzle` up to `limit` (a fresh solver; use [`Solver`] for batches).
pub fn count(puzzle: &Grid, limit: u64) -> Outcome {
    Solver::new().solve(puzzle, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::symbols::{Cell, Symbols};

    fn grid(line: &str) -> Grid {
        let shape = BoxShape::for_cell_count(line.len()).expect("square length");
        let cells: Vec<u8> = line
            .bytes()
            .map(|b| match Symbols::Standard.read(b, shape.side()) {
                Cell::Value(v) => v,
                _ => 0,
            })
            .collect();
        Grid::new(shape, &cells).unwrap()
    }

    #[test]
    fn the_thread_solver_takes_each_callers_budget_and_moves_between_shapes() {
        let nine = grid(
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        );
        let four = grid("1...............");
        let open = open_25x25();
        // Each caller's budget holds for its own call (the 25×25 needs far more guesses than either).
        for budget in [100, 200] {
            let out = with_thread_solver(budget, |s| s.solve(&open, 1));
            assert_eq!((out.gave_up, out.guesses), (true, budget));
        }
        // The same solver then takes other shapes (other tables) in turn.
        let solved = with_thread_solver(0, |s| s.solve(&nine, 2));
        assert_eq!((solved.count, solved.gave_up), (1, false));
        assert_eq!(with_thread_solver(0, |s| s.solve(&four, 1000)).count, 72);
        assert_eq!(with_thread_solver(0, |s| s.solve(&nine, 2)), solved);
    }

    #[test]
    fn restarts_find_what_the_plain_search_gives_up_on_and_keep_exact_answers() {
        // Large grids half emptied at random: the plain search's heavy tail (some take millions of guesses).
        // With restarts every one is solved, the solution fits the puzzle, and a seed-free solve repeats.
        let shape = BoxShape::for_side(25).unwrap();
        for seed in 0..6 {
            let (puzzle, _) = crate::sudoku::generate::with_holes(shape, seed, 0.55);
            let mut solver = Solver::new();
            let out = solver.solve(&puzzle, 1);
            assert!(!out.gave_up, "seed {seed}: {} guesses", out.guesses);
            let solution = out.solution.clone().expect("solvable by construction");
            assert!(crate::sudoku::verify::is_solution(&puzzle, &solution));
            assert_eq!(
                solver.solve(&puzzle, 1),
                out,
                "seed {seed}: the same path again"
            );
        }
        // With restarts from the first guess (the 9×9 fast path hands over at its first guess), a hard puzzle
        // keeps its one solution, and one with no solution (a given that clashes with nothing but the answer)
        // is still proven to have none.
        let mut solver = Solver {
            restart_after: Some(0),
            ..Solver::new()
        };
        let hard = grid(
            "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
        );
        let out = solver.solve(&hard, 1);
        assert!(out.guesses > 0, "the hand-over is exercised");
        let solution = count(&hard, 1).solution.expect("solvable");
        assert_eq!(out.solution.as_ref(), Some(&solution));
        let cells = hard.cells();
        let wrong = (0..81)
            .filter(|&i| cells[i] == 0)
            .flat_map(|i| (1..=9).map(move |v| (i, v)))
            .find_map(|(i, v)| {
                let mut c = cells.to_vec();
                c[i] = v;
                let g = Grid::new(hard.shape(), &c)?;
                (v != solution.cells()[i] && g.conflicts().is_empty()).then_some(g)
            })
            .expect("some empty cell takes a wrong value without a clash");
        let none = solver.solve(&wrong, 1);
        assert_eq!((none.count, none.gave_up), (0, false));
    }

    #[test]
    fn solves_a_hard_9x9_and_proves_it_unique() {
        let p = grid(
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        );
        let out = count(&p, 2);
        assert_eq!(out.count, 1);
        assert!(!out.hit_limit);
        let s = out.solution.unwrap();
        assert!(crate::sudoku::verify::is_solution(&p, &s));
        assert_eq!(
            s.to_string(),
            "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
        );
    }

    #[test]
    fn counts_stop_at_the_limit() {
        let empty = Grid::empty(BoxShape::for_side(9).unwrap());
        let out = count(&empty, 1000);
        assert_eq!(out.count, 1000);
        assert!(out.hit_limit);
        // All 288 4×4 grids.
        let out = count(&Grid::empty(BoxShape::for_side(4).unwrap()), 10_000);
        assert_eq!(out.count, 288);
        assert!(!out.hit_limit);
    }

    /// A 25×25 with 60% of its cells emptied at random (not dug for uniqueness): the hard phase of large
    /// grids, where one seed takes ~350,000 guesses.
    fn open_25x25() -> Grid {
        let shape = BoxShape::for_side(25).unwrap();
        let mut cells = crate::sudoku::generate::solved_grid(shape, 1)
            .cells()
            .to_vec();
        let mut x = 1u64.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for c in cells.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 1000 < 600 {
                *c = 0;
            }
        }
        Grid::new(shape, &cells).unwrap()
    }

    #[test]
    fn the_guess_budget_stops_a_search_too_big_to_finish() {
        let open = open_25x25();
        // Counting keeps the plain search: this grid's first solution lies beyond 10,000 guesses of it.
        let out = Solver::with_max_guesses(10_000).solve(&open, 2);
        assert!(out.gave_up && out.solution.is_none(), "{out:?}");
        assert_eq!(out.guesses, 10_000);
        // A budget no larger than the first attempt stops the first-solution search too.
        let out = Solver::with_max_guesses(FIRST_ATTEMPT_LARGE).solve(&open, 1);
        assert!(out.gave_up && out.solution.is_none());
        // With room for restarts, the first solution comes well within the same 10,000.
        let out = Solver::with_max_guesses(10_000).solve(&open, 1);
        assert!(!out.gave_up && out.guesses < 10_000, "{out:?}");
        assert!(crate::sudoku::verify::is_solution(
            &open,
            &out.solution.unwrap()
        ));
        // The default budget is far above what counting needs here.
        let out = Solver::new().solve(&open, 2);
        assert!(!out.gave_up && out.count == 2, "{out:?}");
        assert!(out.guesses > 10_000);
    }

    #[test]
    fn empty_and_full_grids_of_every_size() {
        for side in [4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20, 21, 22, 24, 25] {
            let shape = BoxShape::for_side(side).unwrap();
            // Empty: the uniqueness check stops at the second solution, without a give-up.
            let out = count(&Grid::empty(shape), 2);
            assert_eq!(
                (out.count, out.hit_limit, out.gave_up),
                (2, true, false),
                "{side}"
            );
            // Full: its own single solution, no guess.
            let full = crate::sudoku::generate::solved_grid(shape, side as u64);
            let out = count(&full, 2);
            assert_eq!((out.count, out.guesses), (1, 0), "{side}");
            assert_eq!(out.solution, Some(full));
        }
    }

    #[test]
    fn counting_goes_on_while_solutions_keep_coming() {
        // 100,000 solutions of an empty 9×9 take far more than 1,000 guesses in all, but never 1,000 in a row
        // without a new one.
        let empty = Grid::empty(BoxShape::for_side(9).unwrap());
        let out = Solver::with_max_guesses(1_000).solve(&empty, 100_000);
        assert_eq!(
            (out.count, out.hit_limit, out.gave_up),
            (100_000, true, false)
        );
        assert!(out.guesses > 1_000);
    }

    #[test]
    fn clashing_givens_and_dead_ends_have_no_solution() {
        let clash = grid("11..............");
        assert_eq!(count(&clash, 2).count, 0);
        // Valid givens, no solution: r1c4 can be neither 1, 2 nor 3, and 4 is in its column.
        let dead = grid("123............4");
        assert_eq!(dead.conflicts(), vec![]);
        assert_eq!(count(&dead, 2).count, 0);
    }

    #[test]
    fn a_solved_grid_is_its_own_solution() {
        let full = grid("1234341221434321");
        let out = count(&full, 2);
        assert_eq!((out.count, out.solution.as_ref()), (1, Some(&full)));
        assert_eq!(out.guesses, 0);
    }

    #[test]
    fn empty_grids_of_every_shape_fill_validly() {
        for shape in [
            "2x2", "2x3", "3x2", "2x4", "3x3", "2x5", "3x4", "4x3", "3x5", "4x4", "4x5", "5x5",
        ] {
            let shape: BoxShape = shape.parse().unwrap();
            let empty = Grid::empty(shape);
            let s = solve(&empty).unwrap_or_else(|| panic!("{shape} has a solution"));
            assert!(crate::sudoku::verify::is_solution(&empty, &s), "{shape}");
        }
    }

    #[test]
    fn the_nine_by_nine_values_get_what_the_grid_gets() {
        // `solve_nine` against `solve` on the same puzzles: mixed 9×9s, an open grid, a clash and a hard one,
        // first solution and counted to 2 and 30.
        let hard = grid(
            "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
        );
        let mut clash = hard.cells().to_vec();
        clash[2] = 9;
        let clash = Grid::new(hard.shape(), &clash).unwrap();
        let puzzles = (0..40).map(crate::sudoku::generate::mixed_nine).chain([
            Grid::empty(hard.shape()),
            clash,
            hard.clone(),
        ]);
        let (mut by_grid, mut by_values) = (Solver::new(), Solver::new());
        for puzzle in puzzles {
            for limit in [1, 2, 30] {
                let expected = by_grid.solve(&puzzle, limit);
                let found = by_values
                    .solve_nine(puzzle.cells(), limit)
                    .expect("no first attempt gives up here");
                assert_eq!(found.outcome(puzzle.shape()), expected, "limit {limit}");
            }
        }
        // A first attempt that gives up is left to `solve`, which takes it on with restarts.
        let mut solver = Solver {
            restart_after: Some(1),
            ..Solver::new()
        };
        assert!(solver.solve_nine(hard.cells(), 1).is_err());
        assert!(solver.solve(&hard, 1).solution.is_some());
    }
}
