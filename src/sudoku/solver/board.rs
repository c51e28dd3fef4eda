//! The general solver's board and its rules: one candidate mask per cell, singles, locked candidates, the
//! choice of a branch cell (the module header of `solver` describes them). Filtering a unit in full is in
//! `all_different`, the search over boards in `search`.

use crate::sudoku::grid::Grid;
use crate::sudoku::rng::SplitMix;
use crate::sudoku::shape::BoxShape;

/// Locked candidates run while more than this share of the cells (in 1/64ths) is open. Near the root they cut
/// the tree a lot; deep down a pass costs more than the guesses it saves (measured on top1465: all the way
/// down is ~25% slower than stopping at half).
const LOCKED_UNTIL: usize = 32;

/// The smallest side whose searches filter every unit in full ([`Board::all_different`]) before each guess: on
/// large grids near half empty it cuts the guesses by far more than it costs; on 9×9 singles are nearly all.
pub(super) const ALL_DIFFERENT_FROM: usize = 16;

/// The stored width of a candidate mask: `u16` up to 16×16 (half the bytes to copy per branch), `u32` above.
/// Arithmetic is done in `u32`; loads widen and stores narrow, both free.
pub(super) trait Mask:
    Copy + Default + std::ops::BitAndAssign + std::ops::BitOrAssign
{
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
pub(super) struct Tables {
    pub(super) shape: BoxShape,
    pub(super) side: usize,
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
    pub(super) fn new(shape: BoxShape) -> Self {
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
    pub(super) fn side<const SIDE: usize>(&self) -> usize {
        if SIDE != 0 { SIDE } else { self.side }
    }

    #[inline(always)]
    pub(super) fn full<const SIDE: usize>(&self) -> u32 {
        if SIDE != 0 {
            (1 << SIDE) - 1
        } else {
            self.full
        }
    }

    #[inline(always)]
    pub(super) fn peers<const SIDE: usize>(&self, cell: usize) -> &[u16] {
        let k = if SIDE == 9 { 20 } else { self.peer_count };
        &self.peers[cell * k..(cell + 1) * k]
    }

    #[inline(always)]
    pub(super) fn unit<const SIDE: usize>(&self, u: usize) -> &[u16] {
        let n = self.side::<SIDE>();
        &self.unit_cells[u * n..(u + 1) * n]
    }

    #[inline(always)]
    pub(super) fn box_rows_cols<const SIDE: usize>(&self) -> (usize, usize) {
        if SIDE == 9 {
            (3, 3)
        } else {
            (self.shape.rows(), self.shape.cols())
        }
    }
}

/// One search state. `CAP` is the most cells, `UNITS` the most units (3 × side) of its capacity class.
#[derive(Clone, Copy)]
pub(super) struct Board<M, const CAP: usize, const UNITS: usize> {
    pub(super) cand: [M; CAP],
    used: [M; UNITS],
    /// The open cells, ascending; only the first `open` are meaningful, and some of those may have been filled
    /// since the last naked pass (by a guess or a hidden single), which the pass drops.
    open_cells: [u16; CAP],
    pub(super) open: usize,
    /// The units a contradiction was found in (`NO_UNIT` where none), for the restarts' weighted branching.
    pub(super) blame: [u8; 3],
    /// Per unit, a hash of its open cells and their candidates as [`Board::all_different`] last left them (0:
    /// never filtered). A filtered unit keeps only values some matching uses, so filtering it again before it
    /// changes finds nothing: an equal hash skips it.
    pub(super) filtered: [u64; UNITS],
}

/// No unit, in [`Board::blame`].
pub(super) const NO_UNIT: u8 = u8::MAX;

/// Where a settle step left a board.
pub(super) enum Settled {
    /// A contradiction: this branch has no solution.
    Dead,
    /// Every cell is filled.
    Solved,
    /// Stuck: branch on this cell, over these candidates.
    Branch(usize, u32),
}

impl<M: Mask, const CAP: usize, const UNITS: usize> Board<M, CAP, UNITS> {
    /// The board of a puzzle's givens, or `None` when two givens clash.
    pub(super) fn from_puzzle(t: &Tables, puzzle: &Grid) -> Option<Self> {
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
    pub(super) fn place<const SIDE: usize>(&mut self, t: &Tables, cell: usize, bit: u32) {
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
    pub(super) fn value(&self, cell: usize) -> u8 {
        self.cand[cell].wide().trailing_zeros() as u8 + 1
    }

    /// Runs singles (with locked candidates near the root, and all-different filtering once on large grids) to
    /// a fixed point.
    pub(super) fn settle<const SIDE: usize>(&mut self, t: &Tables) -> Settled {
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
    pub(super) fn weighted_branch(
        &self,
        t: &Tables,
        weights: &[u32],
        rng: &mut SplitMix,
    ) -> (usize, u32) {
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
    pub(super) fn least_constraining<const SIDE: usize>(
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

/// Folds masks into (seen at least once, seen at least twice).
#[inline(always)]
fn once_twice(masks: impl Iterator<Item = u32>) -> (u32, u32) {
    masks.fold((0, 0), |(once, twice), m| (once | m, twice | (once & m)))
}
