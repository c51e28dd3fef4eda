//! The CPU solver: bitmask candidates, naked and hidden singles, locked candidates, and depth-first search on
//! the cell with the fewest candidates, with an explicit stack (no recursion, so a 25×25 never meets a stack
//! limit).
//!
//! ## Layout
//! A [`Board`] keeps one candidate mask per cell (bit `v - 1` ⇔ value `v` is still possible; a filled cell keeps
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
//!    hidden subsets of any size at once, [`Board::all_different`]), except units unchanged since their last
//!    filtering (a hash per unit, [`Board::filtered`]). Any elimination: back to 1.
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

use std::cell::RefCell;

use super::grid::Grid;
use super::nine;
use super::rng::SplitMix;
use super::shape::BoxShape;

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

/// Locked candidates run while more than this share of the cells (in 1/64ths) is open. Near the root they cut
/// the tree a lot; deep down a pass costs more than the guesses it saves (measured on top1465: all the way
/// down is ~25% slower than stopping at half).
const LOCKED_UNTIL: usize = 32;

/// The smallest side whose searches filter every unit in full ([`Board::all_different`]) before each guess: on
/// large grids near half empty it cuts the guesses by far more than it costs; on 9×9 singles are nearly all.
const ALL_DIFFERENT_FROM: usize = 16;

/// The stored width of a candidate mask: `u16` up to 16×16 (half the bytes to copy per branch), `u32` above.
/// Arithmetic is done in `u32`; loads widen and stores narrow, both free.
trait Mask: Copy + Default + std::ops::BitAndAssign + std::ops::BitOrAssign {
    fn wide(self) -> u32;
    fn narrow(bits: u32) -> Self;
}

impl Mask for u16 {
    #[inline(always)]
    fn wide(self) -> u32 {
        u32::from(self)
    }
    #[inline(always)]
    fn narrow(bits: u32) -> Self {
        bits as u16
    }
}

impl Mask for u32 {
    #[inline(always)]
    fn wide(self) -> u32 {
        self
    }
    #[inline(always)]
    fn narrow(bits: u32) -> Self {
        bits
    }
}

/// Unit and peer lookups for one box shape.
struct Tables {
    shape: BoxShape,
    side: usize,
    full: u32,
    /// For each cell, its row, column and box unit indexes into `Board::used`.
    units_of: Vec<[u8; 3]>,
    /// The cells of each unit, `side` per unit, in the order of `Board::used`.
    unit_cells: Vec<u16>,
    /// For each cell, the other cells of its row, column and box, `peer_count` per cell.
    peers: Vec<u16>,
    peer_count: usize,
}

impl Tables {
    fn new(shape: BoxShape) -> Self {
        let side = shape.side();
        let units_of: Vec<[u8; 3]> = (0..shape.cells())
            .map(|cell| {
                let (r, c) = (cell / side, cell % side);
                [
                    r as u8,
                    (side + c) as u8,
                    (2 * side + shape.box_of(r, c)) as u8,
                ]
            })
            .collect();
        let units = shape.units();
        let mut peers = Vec::new();
        for (cell, its_units) in units_of.iter().enumerate() {
            let mut mine: Vec<u16> = its_units
                .iter()
                .flat_map(|&u| units[usize::from(u)].iter().map(|&c| c as u16))
                .filter(|&c| usize::from(c) != cell)
                .collect();
            mine.sort_unstable();
            mine.dedup();
            peers.extend(mine);
        }
        let peer_count = peers.len() / shape.cells();
        Self {
            shape,
            side,
            full: (1u32 << side) - 1,
            units_of,
            unit_cells: units.into_iter().flatten().map(|c| c as u16).collect(),
            peers,
            peer_count,
        }
    }

    // The accessors below take the side as a const parameter, `SIDE`: 0 means "known at run time", 9 means the
    // classic 3×3-box grid, for which every loop bound becomes a constant the compiler unrolls (measured on
    // top1465: from 0.74× to 1.07–1.11× msolve's rate, about +45%).

    #[inline(always)]
    fn side<const SIDE: usize>(&self) -> usize {
        if SIDE != 0 { SIDE } else { self.side }
    }

    #[inline(always)]
    fn full<const SIDE: usize>(&self) -> u32 {
        if SIDE != 0 {
            (1 << SIDE) - 1
        } else {
            self.full
        }
    }

    #[inline(always)]
    fn peers<const SIDE: usize>(&self, cell: usize) -> &[u16] {
        let k = if SIDE == 9 { 20 } else { self.peer_count };
        &self.peers[cell * k..(cell + 1) * k]
    }

    #[inline(always)]
    fn unit<const SIDE: usize>(&self, u: usize) -> &[u16] {
        let n = self.side::<SIDE>();
        &self.unit_cells[u * n..(u + 1) * n]
    }

    #[inline(always)]
    fn box_rows_cols<const SIDE: usize>(&self) -> (usize, usize) {
        if SIDE == 9 {
            (3, 3)
        } else {
            (self.shape.rows(), self.shape.cols())
        }
    }
}

/// One search state. `CAP` is the most cells, `UNITS` the most units (3 × side) of its capacity class.
#[derive(Clone, Copy)]
struct Board<M, const CAP: usize, const UNITS: usize> {
    cand: [M; CAP],
    used: [M; UNITS],
    /// The open cells, ascending; only the first `open` are meaningful, and some of those may have been filled
    /// since the last naked pass (by a guess or a hidden single), which the pass drops.
    open_cells: [u16; CAP],
    open: usize,
    /// The units a contradiction was found in (`NO_UNIT` where none), for the restarts' weighted branching.
    blame: [u8; 3],
    /// Per unit, a hash of its open cells and their candidates as [`Board::all_different`] last left them (0:
    /// never filtered). A filtered unit keeps only values some matching uses, so filtering it again before it
    /// changes finds nothing: an equal hash skips it.
    filtered: [u64; UNITS],
}

/// No unit, in [`Board::blame`].
const NO_UNIT: u8 = u8::MAX;

/// Where a settle step left a board.
enum Settled {
    /// A contradiction: this branch has no solution.
    Dead,
    /// Every cell is filled.
    Solved,
    /// Stuck: branch on this cell, over these candidates.
    Branch(usize, u32),
}

impl<M: Mask, const CAP: usize, const UNITS: usize> Board<M, CAP, UNITS> {
    /// The board of a puzzle's givens, or `None` when two givens clash.
    fn from_puzzle(t: &Tables, puzzle: &Grid) -> Option<Self> {
        let cells = puzzle.cells();
        let mut board = Self {
            cand: [M::default(); CAP],
            used: [M::default(); UNITS],
            open_cells: [0; CAP],
            open: 0,
            blame: [NO_UNIT; 3],
            filtered: [0; UNITS],
        };
        // Givens first into the unit masks only (three ORs each); then every open cell's candidates at once,
        // rather than clearing each given from its peers one by one.
        for (cell, &value) in cells.iter().enumerate() {
            if value == 0 {
                board.open_cells[board.open] = cell as u16;
                board.open += 1;
                continue;
            }
            let bit = 1 << (value - 1);
            let units = t.units_of[cell].map(usize::from);
            if units.iter().any(|&u| board.used[u].wide() & bit != 0) {
                return None;
            }
            units
                .iter()
                .for_each(|&u| board.used[u] = M::narrow(board.used[u].wide() | bit));
            board.cand[cell] = M::narrow(bit);
        }
        for &cell in &board.open_cells[..board.open] {
            let cell = usize::from(cell);
            let [r, c, b] = t.units_of[cell].map(usize::from);
            board.cand[cell] = M::narrow(
                t.full & !(board.used[r].wide() | board.used[c].wide() | board.used[b].wide()),
            );
        }
        Some(board)
    }

    /// Places a single-bit value and clears it from every peer.
    #[inline(always)]
    fn place<const SIDE: usize>(&mut self, t: &Tables, cell: usize, bit: u32) {
        self.cand[cell] = M::narrow(bit);
        let keep = M::narrow(!bit);
        for u in t.units_of[cell] {
            self.used[usize::from(u)] |= M::narrow(bit);
        }
        for &p in t.peers::<SIDE>(cell) {
            self.cand[usize::from(p)] &= keep;
        }
    }

    /// The value of a filled cell (1..=N).
    fn value(&self, cell: usize) -> u8 {
        self.cand[cell].wide().trailing_zeros() as u8 + 1
    }

    /// Runs singles (with locked candidates near the root, and all-different filtering once on large grids) to
    /// a fixed point.
    fn settle<const SIDE: usize>(&mut self, t: &Tables) -> Settled {
        // Filtering every unit in full is worth it once per node: a second time, after the singles it led to,
        // finds little and costs as much (measured on 60 25×25 at 55% emptied: the worst 3.6 s with every round,
        // 1.3 s with one).
        let mut all_different_left = SIDE == 0 && t.side >= ALL_DIFFERENT_FROM;
        loop {
            // Naked singles, compacting the open list as cells fill.
            let mut placed = false;
            let mut kept = 0;
            for i in 0..self.open {
                let cell = usize::from(self.open_cells[i]);
                let m = self.cand[cell].wide();
                if m == 0 {
                    self.blame = t.units_of[cell];
                    return Settled::Dead;
                }
                if m & (m - 1) == 0 {
                    // One candidate: either filled since the last pass (its bit is placed in its row), or a
                    // naked single to place now.
                    if self.used[usize::from(t.units_of[cell][0])].wide() & m == 0 {
                        self.place::<SIDE>(t, cell, m);
                        placed = true;
                    }
                } else {
                    self.open_cells[kept] = cell as u16;
                    kept += 1;
                }
            }
            self.open = kept;
            if kept == 0 {
                return Settled::Solved;
            }
            if placed {
                continue;
            }
            match self.hidden_singles::<SIDE>(t) {
                None => return Settled::Dead,
                Some(true) => continue,
                Some(false) => {}
            }
            if self.open * 64 > t.shape.cells() * LOCKED_UNTIL {
                match self.locked_candidates::<SIDE>(t) {
                    None => {
                        self.blame = [NO_UNIT; 3];
                        return Settled::Dead;
                    }
                    Some(true) => continue,
                    Some(false) => {}
                }
            }
            if all_different_left {
                all_different_left = false;
                match self.all_different::<SIDE>(t) {
                    None => return Settled::Dead,
                    Some(true) => continue,
                    Some(false) => {}
                }
            }
            return self.branch_cell();
        }
    }

    /// The open cell with the fewest candidates, the lowest on ties. A separate scan rather than a by-product
    /// of the naked passes: only the last pass's answer would be used, and this scan can stop at the first cell
    /// with two candidates (measured: ~13% faster on top1465).
    fn branch_cell(&self) -> Settled {
        let mut best = (u32::MAX, 0usize, 0u32);
        for &cell in &self.open_cells[..self.open] {
            let cell = usize::from(cell);
            let m = self.cand[cell].wide();
            let n = m.count_ones();
            if n < best.0 {
                best = (n, cell, m);
                if n == 2 {
                    break;
                }
            }
        }
        Settled::Branch(best.1, best.2)
    }

    /// The branch cell of a randomized run ("dom/wdeg", Boussemart et al., 2004): the open cell with the fewest
    /// candidates per unit of weight of its row, column and box, where a unit's weight counts the dead ends found
    /// in it so far in this puzzle (restarts keep them: they are what the runs learn). Ties are broken at random
    /// (reservoir sampling). Returns the cell and its candidates.
    fn weighted_branch(&self, t: &Tables, weights: &[u32], rng: &mut SplitMix) -> (usize, u32) {
        // best: (candidates, weight), compared as fractions by cross-multiplying.
        let (mut best, mut chosen, mut ties) = ((u64::MAX, 1u64), (0, 0), 0);
        for &cell in &self.open_cells[..self.open] {
            let cell = usize::from(cell);
            let m = self.cand[cell].wide();
            let n = u64::from(m.count_ones());
            let w: u64 = t.units_of[cell]
                .iter()
                .map(|&u| u64::from(weights[usize::from(u)]))
                .sum();
            let (lhs, rhs) = (n * best.1, best.0.saturating_mul(w));
            if lhs < rhs {
                (best, chosen, ties) = ((n, w), (cell, m), 1);
            } else if lhs == rhs {
                ties += 1;
                if rng.below(ties) == 0 {
                    chosen = (cell, m);
                }
            }
        }
        chosen
    }

    /// The value of `mask` that the fewest peers of `cell` could also take (it rules out the fewest of their
    /// candidates), ties at random.
    fn least_constraining<const SIDE: usize>(
        &self,
        t: &Tables,
        cell: usize,
        mask: u32,
        rng: &mut SplitMix,
    ) -> u32 {
        let (mut best, mut chosen, mut ties) = (usize::MAX, 0, 0);
        let mut m = mask;
        while m != 0 {
            let bit = m & m.wrapping_neg();
            m &= m - 1;
            let n = t
                .peers::<SIDE>(cell)
                .iter()
                .filter(|&&p| self.cand[usize::from(p)].wide() & bit != 0)
                .count();
            if n < best {
                (best, chosen, ties) = (n, bit, 1);
            } else if n == best {
                ties += 1;
                if rng.below(ties) == 0 {
                    chosen = bit;
                }
            }
        }
        chosen
    }

    /// Places every hidden single; `None` on a contradiction, else whether anything was placed.
    ///
    /// (Branching on a value with two places in a unit, as exact-cover solvers may, was tried for large grids
    /// where cells keep many candidates: it changed nothing measurable, so only cells are branched on.)
    fn hidden_singles<const SIDE: usize>(&mut self, t: &Tables) -> Option<bool> {
        let mut placed = false;
        for u in 0..3 * t.side::<SIDE>() {
            let cells = t.unit::<SIDE>(u);
            // Tally unit by unit in registers (filled cells included: their value is in `used`, masked below).
            // Tallying cell by cell into per-unit arrays was slower: each cell's three read-modify-writes
            // chain through memory.
            let (once, twice) = once_twice(cells.iter().map(|&c| self.cand[usize::from(c)].wide()));
            if once != t.full::<SIDE>() {
                self.blame = [u as u8, NO_UNIT, NO_UNIT];
                return None;
            }
            let mut lone = once & !twice & !self.used[u].wide();
            while lone != 0 {
                let bit = lone & lone.wrapping_neg();
                lone &= lone - 1;
                // An earlier hidden single of this pass may have taken the only home: contradiction.
                let Some(cell) = cells
                    .iter()
                    .map(|&c| usize::from(c))
                    .find(|&c| self.cand[c].wide() & bit != 0)
                else {
                    self.blame = [u as u8, NO_UNIT, NO_UNIT];
                    return None;
                };
                self.place::<SIDE>(t, cell, bit);
                placed = true;
            }
        }
        Some(placed)
    }

    /// Every unit as one all-different constraint, filtered in full (Régin, 1994): a value stays in a cell only if
    /// some assignment of the unit's values to its cells (a perfect matching) puts it there. That covers naked
    /// and hidden pairs, triples and larger sets at once. `None` on a contradiction (no perfect matching), else
    /// whether any candidate went.
    ///
    /// How: match cells to values, then look at the values as a graph with an edge `a → b` where the cell holding
    /// `a` could take `b` instead. A cell holding `a` may take `b` in another perfect matching exactly when `a`
    /// and `b` lie on one cycle, i.e. in one strongly connected component; each component comes from a forward
    /// and a backward closure over bitmasks (n ≤ 25 values, so a set of values is one word).
    fn all_different<const SIDE: usize>(&mut self, t: &Tables) -> Option<bool> {
        let n = t.side::<SIDE>();
        let mut changed = false;
        for u in 0..3 * n {
            // Only the open cells and the values not yet placed take part: a placed value has left every open
            // cell of the unit already. Cells are numbered by their place in `open`, values by their bit.
            let mut open = [0u16; 32];
            let mut dom = [0u32; 32];
            let mut k = 0;
            let mut values = 0u32;
            let mut hash = UNIT_HASH_SEED;
            for &c in t.unit::<SIDE>(u) {
                let m = self.cand[usize::from(c)].wide();
                if m & (m - 1) != 0 {
                    (open[k], dom[k]) = (c, m);
                    values |= m;
                    hash = unit_hash(hash, c, m);
                    k += 1;
                }
            }
            if hash == self.filtered[u] {
                // Unchanged since it was filtered (about half the units of a node on 25×25).
                continue;
            }
            if k < 3 {
                // Two open cells: hidden and naked singles have said all there is.
                continue;
            }
            // A greedy matching first (each cell takes a free value if it has one), then augmenting paths for
            // the cells left: most cells find a free value at once, and a search from scratch for every cell
            // took half of the solver's time.
            let mut owner = [FREE; 32];
            let mut taken = 0u32;
            let mut unmatched = 0u32;
            for (i, &d) in dom[..k].iter().enumerate() {
                let free = d & !taken;
                if free != 0 {
                    let v = free.trailing_zeros() as usize;
                    owner[v] = i as u8;
                    taken |= 1 << v;
                } else {
                    unmatched |= 1 << i;
                }
            }
            while unmatched != 0 {
                let i = unmatched.trailing_zeros() as usize;
                unmatched &= unmatched - 1;
                let mut seen = 0;
                if !augment(i, &dom, &mut owner, &mut seen) {
                    self.blame = [u as u8, NO_UNIT, NO_UNIT];
                    return None;
                }
            }
            if values.count_ones() as usize != k {
                // More values than open cells can happen only before singles have run to the end; leaving a
                // unit unfiltered is always sound.
                continue;
            }
            // The components, one at a time: the values reachable from the lowest one left and those that reach
            // it back (forward and backward closures over bitmasks; most units are one component, found in a
            // few steps each way).
            let out = |v: usize| dom[usize::from(owner[v])];
            let mut left = values;
            while left != 0 {
                let a = left.trailing_zeros() as usize;
                let (mut forward, mut frontier) = (1u32 << a, 1u32 << a);
                while frontier != 0 {
                    let mut next = 0;
                    let mut f = frontier;
                    while f != 0 {
                        next |= out(f.trailing_zeros() as usize);
                        f &= f - 1;
                    }
                    frontier = next & left & !forward;
                    forward |= frontier;
                }
                let mut component = 1u32 << a;
                loop {
                    let mut grew = 0;
                    let mut f = forward & !component;
                    while f != 0 {
                        let v = f.trailing_zeros() as usize;
                        f &= f - 1;
                        if out(v) & component != 0 {
                            grew |= 1 << v;
                        }
                    }
                    if grew == 0 {
                        break;
                    }
                    component |= grew;
                }
                left &= !component;
                // A cell whose value is in this component keeps only this component's values.
                let mut f = component;
                while f != 0 {
                    let i = usize::from(owner[f.trailing_zeros() as usize]);
                    f &= f - 1;
                    let kept = dom[i] & component;
                    if kept != dom[i] {
                        self.cand[usize::from(open[i])] = M::narrow(kept);
                        changed = true;
                    }
                }
            }
            // What the unit holds now, hashed as the gather above will see it (a cell left with one value drops
            // out of the open ones).
            self.filtered[u] = open[..k].iter().fold(UNIT_HASH_SEED, |hash, &c| {
                let m = self.cand[usize::from(c)].wide();
                if m & (m - 1) != 0 {
                    unit_hash(hash, c, m)
                } else {
                    hash
                }
            });
        }
        Some(changed)
    }

    /// Box/line interactions in both directions, for rows and columns; `None` on a contradiction, else whether
    /// any candidate was removed.
    fn locked_candidates<const SIDE: usize>(&mut self, t: &Tables) -> Option<bool> {
        let n = t.side::<SIDE>();
        let (r, c) = t.box_rows_cols::<SIDE>();
        // Rows: segment (row, j) is row ∩ box column j, C cells; a row crosses R boxes, a band holds R rows.
        let rows = self.lock_lines(n, r, c, |row, j, k| row * n + j * c + k)?;
        // Columns: segment (col, i) is column ∩ box row i, R cells; a column crosses C boxes, a band C columns.
        let cols = self.lock_lines(n, c, r, |col, i, k| (i * r + k) * n + col)?;
        Some(rows || cols)
    }

    /// One direction of [`Board::locked_candidates`]: `n` lines, each crossing `k` boxes in segments of `len`
    /// cells (`cell(line, segment, i)`); the `k` consecutive lines of a band cross the same boxes.
    ///
    /// Within a box, a value seen in exactly one of its segments is confined to that line ("pointing": it
    /// leaves the line's other segments); within a line, a value seen in exactly one segment is confined to that
    /// box ("claiming": it leaves the box's other segments). A value confined twice in one line or one box
    /// would need two homes there: dead. Returns whether any candidate went.
    fn lock_lines(
        &mut self,
        n: usize,
        k: usize,
        len: usize,
        cell: impl Fn(usize, usize, usize) -> usize,
    ) -> Option<bool> {
        // n * k ≤ n * n ≤ CAP, so per-segment arrays fit in CAP entries.
        let mut seg = [0u32; CAP];
        let mut in_line_only = [0u32; CAP];
        let mut in_box_only = [0u32; CAP];
        for line in 0..n {
            for s in 0..k {
                seg[line * k + s] = (0..len).fold(0, |m, i| m | self.cand[cell(line, s, i)].wide());
            }
            let (_, twice) = once_twice((0..k).map(|s| seg[line * k + s]));
            for s in 0..k {
                in_line_only[line * k + s] = seg[line * k + s] & !twice;
            }
        }
        for first in (0..n).step_by(k) {
            for s in 0..k {
                let (_, twice) = once_twice((first..first + k).map(|l| seg[l * k + s]));
                for l in first..first + k {
                    in_box_only[l * k + s] = seg[l * k + s] & !twice;
                }
            }
        }
        let mut changed = false;
        for line in 0..n {
            let (pointing, clash) = once_twice((0..k).map(|s| in_box_only[line * k + s]));
            if clash != 0 {
                return None;
            }
            let first = line - line % k;
            for s in 0..k {
                let at = line * k + s;
                let (claiming, clash) =
                    once_twice((first..first + k).map(|l| in_line_only[l * k + s]));
                if clash != 0 {
                    return None;
                }
                let clear = (pointing & !in_box_only[at]) | (claiming & !in_line_only[at]);
                // `seg` is this segment's union before any clearing of this pass, and a segment is only cleared
                // here: an overlap means a candidate really goes.
                if clear & seg[at] != 0 {
                    changed = true;
                    let keep = M::narrow(!clear);
                    for i in 0..len {
                        self.cand[cell(line, s, i)] &= keep;
                    }
                }
            }
        }
        Some(changed)
    }
}

/// The starting value of a unit's hash in [`Board::filtered`] (not 0, which marks a unit never filtered).
const UNIT_HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// Folds one open cell and its candidates into a unit's hash (multiply and xor: any change to a cell or its
/// candidates changes the hash, but for a collision about once in 2^64, which would only skip one filtering).
#[inline(always)]
fn unit_hash(hash: u64, cell: u16, mask: u32) -> u64 {
    (hash ^ (u64::from(cell) << 32 | u64::from(mask))).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// No cell in [`Board::all_different`]'s matchings.
const FREE: u8 = u8::MAX;

/// Augments a matching of a unit's cells to values by one, from cell `i` (Kuhn's augmenting paths): `owner[v]`
/// is the cell holding value bit `v`, `seen` the values this search has visited. Whether `i` got a value.
fn augment(i: usize, dom: &[u32; 32], owner: &mut [u8; 32], seen: &mut u32) -> bool {
    let mut options = dom[i] & !*seen;
    while options != 0 {
        let v = options.trailing_zeros() as usize;
        options &= options - 1;
        *seen |= 1 << v;
        if owner[v] == FREE || augment(usize::from(owner[v]), dom, owner, seen) {
            owner[v] = i as u8;
            return true;
        }
    }
    false
}

/// Folds masks into (seen at least once, seen at least twice).
#[inline(always)]
fn once_twice(masks: impl Iterator<Item = u32>) -> (u32, u32) {
    masks.fold((0, 0), |(once, twice), m| (once | m, twice | (once & m)))
}

/// A branch point: the board before the guess, and the cell's values not yet tried.
#[derive(Clone, Copy)]
struct Frame<M, const CAP: usize, const UNITS: usize> {
    board: Board<M, CAP, UNITS>,
    cell: u16,
    untried: u32,
}

/// Guesses the plain search may take for a first solution before randomized restarts take over. Every puzzle of
/// the shared 9×9 sets needs fewer (their hardest, about 3,000), so those keep their deterministic path.
const FIRST_ATTEMPT: u64 = 20_000;

/// [`FIRST_ATTEMPT`] from 16×16 up, where a plain search that has not finished after a thousand guesses is
/// usually in a long tail, and the restarts (with what they learn) finish sooner.
const FIRST_ATTEMPT_LARGE: u64 = 1_000;

/// Guesses in one randomized run per unit of the Luby sequence (1, 1, 2, 1, 1, 2, 4, …). Random completion of
/// large grids has heavy-tailed search times (Gomes, Selman and Kautz, 1998): most orders finish quickly and a
/// few take nearly forever, so short runs in fresh random orders, with an occasional long one (which keeps the
/// search complete: runs grow without bound), cut off the tail.
const RESTART_UNIT: u64 = 1_000;

/// The Luby sequence, 1-based: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, …
fn luby(i: u64) -> u64 {
    let mut i = i;
    loop {
        // The smallest k with i <= 2^k - 1.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// The depth-first search of one capacity class, with its reusable stack.
#[derive(Default)]
struct Search<M, const CAP: usize, const UNITS: usize, const SIDE: usize> {
    stack: Vec<Frame<M, CAP, UNITS>>,
    /// Dead ends per unit in the current puzzle's randomized runs (see [`Board::weighted_branch`]).
    weights: Vec<u32>,
    /// The values of the deepest board any run of this puzzle reached (0 where open), and its open count: later
    /// runs try these values first ("progress saving", as SAT solvers do), so a restart does not lose the
    /// parts of the grid the last run had right.
    phase: Vec<u32>,
    deepest: usize,
    use_phase: bool,
}

impl<M: Mask, const CAP: usize, const UNITS: usize, const SIDE: usize> Search<M, CAP, UNITS, SIDE> {
    /// The search of [`Solver::solve`]: a plain depth-first search, except that a first solution not found
    /// within `restart_after` guesses ([`FIRST_ATTEMPT`] by default) is looked for again with randomized restarts (see [`RESTART_UNIT`]).
    /// With `shuffle`, every run is randomized from that seed, the first too.
    fn run(
        &mut self,
        t: &Tables,
        puzzle: &Grid,
        limit: u64,
        budget: u64,
        shuffle: Option<u64>,
        restart_after: u64,
    ) -> Outcome {
        let mut spent = 0;
        if shuffle.is_none() {
            if limit > 1 || budget <= restart_after {
                return self.search(t, puzzle, limit, budget, None);
            }
            let first = self.search(t, puzzle, 1, restart_after, None);
            if !first.gave_up {
                return first;
            }
            spent = first.guesses;
        }
        self.weights.clear();
        self.weights.resize(3 * t.side, 1);
        self.phase.clear();
        self.phase.resize(t.shape.cells(), 0);
        self.deepest = usize::MAX;
        // A fixed seed by default: the same puzzle always takes the same path, so answers and guess counts repeat.
        let mut rng = SplitMix(shuffle.unwrap_or(0x5EED_F0CB_0A2D_0001));
        for run in 1.. {
            let allowed = (luby(run) * RESTART_UNIT).min(budget.saturating_sub(spent).max(1));
            // Every third run ignores the saved values, so that a run kept in a wrong corner by them is
            // followed by one that may leave it (without it, one grid of 200 took the whole 5M-guess budget).
            self.use_phase = run % 3 != 0;
            let mut outcome = self.search(t, puzzle, 1, allowed, Some(&mut rng));
            spent += outcome.guesses;
            // A run that ends within its allowance has searched its whole tree (in another order): its answer,
            // solution or none, is exact.
            if !outcome.gave_up || spent >= budget {
                outcome.guesses = spent;
                return outcome;
            }
        }
        unreachable!("the loop returns once the budget is spent")
    }

    /// One depth-first search within `budget` guesses in a row without a new solution. With `rng`, each branch
    /// takes a random cell among those with the fewest candidates and tries a random value of it first.
    fn search(
        &mut self,
        t: &Tables,
        puzzle: &Grid,
        limit: u64,
        budget: u64,
        mut rng: Option<&mut SplitMix>,
    ) -> Outcome {
        let mut outcome = Outcome {
            count: 0,
            solution: None,
            hit_limit: false,
            guesses: 0,
            gave_up: false,
        };
        // The guard: guesses taken since the last solution (or the start).
        let mut fruitless = 0u64;
        let Some(mut board) = Board::<M, CAP, UNITS>::from_puzzle(t, puzzle) else {
            return outcome;
        };
        self.stack.clear();
        loop {
            match board.settle::<SIDE>(t) {
                Settled::Solved => {
                    outcome.count += 1;
                    if outcome.solution.is_none() {
                        outcome.solution = Grid::from_fn(t.shape, |c| board.value(c));
                    }
                    if outcome.count >= limit {
                        outcome.hit_limit = true;
                        return outcome;
                    }
                    fruitless = 0;
                }
                Settled::Branch(cell, mask) => {
                    if fruitless >= budget {
                        outcome.gave_up = true;
                        return outcome;
                    }
                    fruitless += 1;
                    let (cell, mask, bit) = match rng.as_deref_mut() {
                        None => (cell, mask, mask & mask.wrapping_neg()),
                        Some(rng) => {
                            let (cell, mask) = board.weighted_branch(t, &self.weights, rng);
                            let saved = if self.use_phase {
                                self.phase[cell] & mask
                            } else {
                                0
                            };
                            let bit = if saved != 0 {
                                saved
                            } else {
                                board.least_constraining::<SIDE>(t, cell, mask, rng)
                            };
                            (cell, mask, bit)
                        }
                    };
                    self.stack.push(Frame {
                        board,
                        cell: cell as u16,
                        untried: mask & !bit,
                    });
                    board.place::<SIDE>(t, cell, bit);
                    outcome.guesses += 1;
                    continue;
                }
                Settled::Dead => {
                    if rng.is_some() && board.open < self.deepest {
                        self.deepest = board.open;
                        for (p, c) in self.phase.iter_mut().zip(&board.cand[..t.shape.cells()]) {
                            let m = c.wide();
                            *p = if m.is_power_of_two() { m } else { 0 };
                        }
                    }
                    if rng.is_some() {
                        for u in board.blame {
                            if u != NO_UNIT {
                                self.weights[usize::from(u)] += 1;
                            }
                        }
                    }
                }
            }
            // Backtrack: the next untried value of the deepest branch point. The last value reuses the frame's
            // board without copying it back onto the stack.
            let Some(top) = self.stack.last_mut() else {
                return outcome;
            };
            if fruitless >= budget {
                outcome.gave_up = true;
                return outcome;
            }
            fruitless += 1;
            let cell = usize::from(top.cell);
            let bit = top.untried & top.untried.wrapping_neg();
            top.untried &= !bit;
            board = if top.untried == 0 {
                self.stack.pop().expect("top exists").board
            } else {
                top.board
            };
            board.place::<SIDE>(t, cell, bit);
            outcome.guesses += 1;
        }
    }
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
    fn all_different_keeps_only_what_some_matching_allows() {
        let shape = BoxShape::for_side(16).unwrap();
        let t = Tables::new(shape);
        let empty = || Board::<u16, 256, 48>::from_puzzle(&t, &Grid::empty(shape)).unwrap();
        // A naked triple: r1c1..r1c3 hold 1..3 between them, so 1 leaves r1c4 (which keeps 4 and 5), and 1..3
        // leave the rest of row 1 and of box 1.
        let mut b = empty();
        (0..3).for_each(|c| b.cand[c] = 0b111);
        b.cand[3] = 0b11001;
        assert_eq!(b.all_different::<0>(&t), Some(true));
        assert_eq!(b.cand[3], 0b11000);
        assert!((4..16).all(|c| b.cand[c] == !0b111u16), "row");
        assert!(
            (1..4).all(|r| (0..4).all(|c| b.cand[16 * r + c] == !0b111u16)),
            "box"
        );
        assert!(
            (16..256)
                .filter(|c| c % 16 >= 4 && c / 16 >= 4)
                .all(|c| b.cand[c] == 0xFFFF),
            "the rest"
        );
        assert_eq!(
            b.all_different::<0>(&t),
            Some(false),
            "a second pass finds nothing more"
        );
        // A hidden pair: 1 and 2 can go only in r1c1 and r1c2, which then keep only them.
        let mut b = empty();
        (2..16).for_each(|c| b.cand[c] &= !0b11);
        assert_eq!(b.all_different::<0>(&t), Some(true));
        assert_eq!((b.cand[0], b.cand[1]), (0b11, 0b11));
        // Four cells sharing three values: no way to fill the row.
        let mut b = empty();
        (0..4).for_each(|c| b.cand[c] = 0b111);
        assert_eq!(b.all_different::<0>(&t), None);
    }

    #[test]
    fn filtering_skips_only_units_that_have_not_changed() {
        // Down random paths of placements, the filter with its hashes kept gives what a filter from scratch
        // (every hash cleared) gives: the same candidates, the same answer.
        let shape = BoxShape::for_side(25).unwrap();
        let t = Tables::new(shape);
        let mut rng = SplitMix(7);
        for seed in 0..6 {
            let (puzzle, _) = crate::sudoku::generate::with_holes(shape, seed, 0.6);
            let mut kept = Board::<u32, 625, 75>::from_puzzle(&t, &puzzle).unwrap();
            // Units that kept a hash from an earlier pass (skipped as unchanged), and units looked at.
            let (mut skipped, mut looked_at) = (0, 0);
            for _ in 0..40 {
                let before = kept.filtered;
                let mut fresh = kept;
                fresh.filtered = [0; 75];
                let (a, b) = (kept.all_different::<0>(&t), fresh.all_different::<0>(&t));
                assert_eq!(a, b, "seed {seed}");
                assert!(kept.cand == fresh.cand, "seed {seed}");
                if a.is_none() {
                    break;
                }
                skipped += (0..75)
                    .filter(|&u| before[u] != 0 && kept.filtered[u] == before[u])
                    .count();
                looked_at += 75;
                // Place a random candidate of a random open cell.
                let open: Vec<usize> = (0..625)
                    .filter(|&c| kept.cand[c].count_ones() > 1)
                    .collect();
                let Some(&cell) = open.get(rng.below(open.len().max(1))) else {
                    break;
                };
                let m = kept.cand[cell];
                let bits: Vec<u32> = (0..25).map(|v| 1 << v).filter(|b| m & b != 0).collect();
                kept.place::<0>(&t, cell, bits[rng.below(bits.len())]);
                if kept.cand.contains(&0) {
                    // A dead end (the solver's naked pass would stop here).
                    break;
                }
            }
            assert!(
                skipped > 0 && skipped < looked_at,
                "seed {seed}: {skipped} of {looked_at}"
            );
        }
    }

    #[test]
    fn the_luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
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
