//! Constellations: the unit of work of every N-Queens engine (threads, Web Workers, the GPU, shards).
//!
//! Every solution has exactly one queen on each edge of the board: one in the top row, one in the bottom row,
//! one in the left column and one in the right column (a corner queen serves two edges). Those four border
//! queens are the solution's *constellation*. The board's eight symmetries map solutions onto solutions and
//! constellations onto constellations, so only one constellation of each symmetry orbit needs searching: its
//! count times the orbit's size (8, or 4 or 2 for a constellation that a half or quarter turn leaves in place)
//! is the orbit's share of the total. That enumerates about an eighth of the boards, where the mirror split
//! enumerates half; and the queens fixed below the search's rows prune it early, from the first row on.
//!
//! The search below a constellation is the plain row-by-row bitmask search with one change: each row `r` has
//! a mask of the columns it may use ([`Plan::tables`]). An inner row leaves out the side columns, the bottom
//! queen's column and every square a border queen below it attacks; the rows of the left and right queens
//! offer only their own column, and the bottom row only the bottom queen's. Every pair of queens is still
//! checked the usual way when the lower one is placed, so the masks only prune sooner.
//!
//! Unique counts need the solutions a half or quarter turn leaves unchanged ([`super::symmetric`]); each is
//! credited to its constellation's orbit ([`Plan::symmetric`]), so the classes of any set of orbits (a shard)
//! are whole numbers and the shards' classes add up to the board's.

use std::collections::HashMap;

use super::counter::Classes;
use super::symmetric;
pub use crate::shard::Shard;

/// Four border queens: the columns of the top and bottom rows' queens, the rows of the left and right
/// columns' queens. The field order is the order in which an orbit's least member (its representative) is
/// picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Constellation {
    /// Column of the queen in row 0.
    pub top: u32,
    /// Column of the queen in row n − 1.
    pub bottom: u32,
    /// Row of the queen in column 0.
    pub left: u32,
    /// Row of the queen in column n − 1.
    pub right: u32,
}

impl Constellation {
    /// The constellation of a full board (`columns[row]` is the row's queen's column).
    pub fn of_solution(n: u32, columns: &[u32]) -> Self {
        let row_of = |col: u32| columns.iter().position(|&c| c == col).unwrap_or(0) as u32;
        Self {
            top: columns[0],
            bottom: columns[(n - 1) as usize],
            left: row_of(0),
            right: row_of(n - 1),
        }
    }

    /// The queens as (row, column) squares, a corner queen twice.
    fn squares(&self, n: u32) -> [(u32, u32); 4] {
        let last = n - 1;
        [
            (0, self.top),
            (last, self.bottom),
            (self.left, 0),
            (self.right, last),
        ]
    }

    /// Its images under the eight symmetries: four quarter turns, each with and without a left–right mirror.
    /// A clockwise quarter turn sends (r, c) to (c, n−1−r): the left queen goes to the top row, the bottom
    /// queen to the left column, the top queen to the right column and the right queen to the bottom row.
    pub fn images(&self, n: u32) -> [Self; 8] {
        let last = n - 1;
        let mut out = [*self; 8];
        let mut turned = *self;
        for pair in out.chunks_exact_mut(2) {
            pair[0] = turned;
            pair[1] = Self {
                top: last - turned.top,
                bottom: last - turned.bottom,
                left: turned.right,
                right: turned.left,
            };
            turned = Self {
                top: last - turned.left,
                bottom: last - turned.right,
                left: turned.bottom,
                right: turned.top,
            };
        }
        out
    }

    /// The least of its images: the representative of its orbit.
    pub fn canonical(&self, n: u32) -> Self {
        self.images(n).into_iter().min().expect("eight images")
    }

    /// How many constellations its orbit holds: 8, or 4 (a half turn maps it onto itself) or 2 (a quarter
    /// turn does). No N-Queens constellation is its own mirror image, as no solution is.
    pub fn weight(&self, n: u32) -> u32 {
        let mut images = self.images(n);
        images.sort_unstable();
        1 + images.windows(2).filter(|w| w[0] != w[1]).count() as u32
    }

    /// True when the four queens can stand together: one on each edge (a queen in a corner counts for both
    /// of its edges, and only there), none attacking another.
    fn fits(&self, n: u32) -> bool {
        let last = n - 1;
        let edges_agree = (self.top == 0) == (self.left == 0)
            && (self.top == last) == (self.right == 0)
            && (self.bottom == 0) == (self.left == last)
            && (self.bottom == last) == (self.right == last);
        if !edges_agree {
            return false;
        }
        let squares = self.squares(n);
        squares.iter().enumerate().all(|(i, &(r1, c1))| {
            squares[i + 1..].iter().all(|&(r2, c2)| {
                (r1, c1) == (r2, c2) || (r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2))
            })
        })
    }

    /// The columns each row may use below this constellation (see the module's comment); slot 0 holds the
    /// weight instead, as row 0 is placed before any search starts.
    fn table(&self, n: u32) -> [u32; 32] {
        let last = n - 1;
        let mask = super::full_mask(n);
        let mut table = [0u32; 32];
        table[0] = self.weight(n);
        let squares = self.squares(n);
        for row in 1..n {
            table[row as usize] = if row == last {
                1 << self.bottom
            } else if row == self.left {
                1
            } else if row == self.right {
                1 << last
            } else {
                let mut allowed = mask & !(1 | 1 << last | 1 << self.bottom);
                for &(r, c) in &squares {
                    if r > row {
                        let d = r - row;
                        allowed &= !(1u32.checked_shl(c + d).unwrap_or(0));
                        if let Some(col) = c.checked_sub(d) {
                            allowed &= !(1 << col);
                        }
                    }
                }
                allowed
            };
        }
        table
    }
}

/// A partial board below a constellation: the rows above `row()` are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Task {
    /// Index of its constellation in [`Plan::constellations`].
    pub constellation: u32,
    /// Columns not yet taken.
    pub open: u32,
    /// Columns attacked in the next row along the down-left diagonals.
    pub left: u32,
    /// Columns attacked in the next row along the down-right diagonals.
    pub right: u32,
}

impl Task {
    /// The next row to place: every placed row took one column.
    pub fn row(&self, n: u32) -> u32 {
        n - self.open.count_ones()
    }

    /// The child with a queen on `bit` in the next row.
    fn child(&self, bit: u32) -> Self {
        Self {
            constellation: self.constellation,
            open: self.open ^ bit,
            left: (self.left | bit) << 1,
            right: (self.right | bit) >> 1,
        }
    }
}

/// Every constellation of an `n`-board (n ≥ 2) whose queens can stand together, in increasing order.
fn fitting(n: u32) -> impl Iterator<Item = Constellation> {
    let each = move |top, bottom, left| {
        (0..n).map(move |right| Constellation {
            top,
            bottom,
            left,
            right,
        })
    };
    (0..n)
        .flat_map(move |top| {
            (0..n).flat_map(move |bottom| (0..n).flat_map(move |left| each(top, bottom, left)))
        })
        .filter(move |c| c.fits(n))
}

/// The constellations of an `n`-board with the tables their searches read.
pub struct Plan {
    /// Board size.
    pub n: u32,
    /// One constellation per orbit, its least member, in increasing order.
    pub constellations: Vec<Constellation>,
    /// Per constellation: slot 0 its weight, slot r (1 ≤ r < n) the columns row r may use.
    pub tables: Vec<[u32; 32]>,
}

impl Plan {
    /// Every orbit of an `n`-board (n ≥ 2; N = 1's lone queen is its own answer, see [`Classes::tally`]).
    pub fn new(n: u32) -> Self {
        let constellations: Vec<Constellation> = if n >= 2 {
            fitting(n).filter(|c| c.canonical(n) == *c).collect()
        } else {
            Vec::new()
        };
        let tables = constellations.iter().map(|c| c.table(n)).collect();
        Self {
            n,
            constellations,
            tables,
        }
    }

    /// The indices of the shard's constellations, in order.
    pub fn held(&self, shard: Shard) -> impl Iterator<Item = usize> {
        (0..self.constellations.len()).filter(move |&i| shard.holds(i))
    }

    /// The search's starting point below constellation `i`: row 0's queen placed.
    pub fn root(&self, i: usize) -> Task {
        let bit = 1 << self.constellations[i].top;
        Task {
            constellation: i as u32,
            open: super::full_mask(self.n) ^ bit,
            left: bit << 1,
            right: bit >> 1,
        }
    }

    /// Every task of the shard's constellations with the rows above `row` placed (kept within 1..=n−1, so
    /// that no board is completed while cutting), in order.
    pub fn visit(&self, row: u32, shard: Shard, each: &mut dyn FnMut(&Task)) {
        self.visit_deeper(row, shard, &|_| false, each);
    }

    /// [`Plan::visit`], going on below `row` with every task for which `deeper(task)` holds, down to the row
    /// two before the last (the GPU cuts deeper where a node's stack would not fit its fast kernel).
    pub fn visit_deeper(
        &self,
        row: u32,
        shard: Shard,
        deeper: &dyn Fn(&Task) -> bool,
        each: &mut dyn FnMut(&Task),
    ) {
        for i in self.held(shard) {
            self.visit_from_deeper(self.root(i), row, deeper, each);
        }
    }

    /// Where [`Plan::visit_deeper`]'s walk of constellation `i` reaches row `until`, or ends above it: tasks
    /// from which [`Plan::visit_from_deeper`] makes the same nodes, each walk independent of the others (so a
    /// caller may share one constellation's cut among threads).
    pub fn starts(
        &self,
        i: usize,
        row: u32,
        until: u32,
        deeper: &dyn Fn(&Task) -> bool,
    ) -> Vec<Task> {
        let (stop, deepest) = self.bounds(row);
        let mut starts = Vec::new();
        self.expand(self.root(i), stop, deepest, until, deeper, &mut |task| {
            starts.push(*task)
        });
        starts
    }

    /// [`Plan::visit_deeper`]'s walk below `task` (a constellation's root, or one of its [`Plan::starts`]).
    pub fn visit_from_deeper(
        &self,
        task: Task,
        row: u32,
        deeper: &dyn Fn(&Task) -> bool,
        each: &mut dyn FnMut(&Task),
    ) {
        let (stop, deepest) = self.bounds(row);
        self.expand(task, stop, deepest, u32::MAX, deeper, each);
    }

    /// The rows a cut at `row` stops at: at least that one (kept within 1..=n−1, so that no board is completed
    /// while cutting), and at most the row two before the last.
    fn bounds(&self, row: u32) -> (u32, u32) {
        let stop = row.clamp(1, self.n.saturating_sub(1).max(1));
        (stop, self.n.saturating_sub(2).max(stop))
    }

    /// The walk below `task`: a task in row `stop` or lower becomes a node unless `deeper` holds for it above
    /// row `deepest`; any task in row `until` is handed over as it is.
    fn expand(
        &self,
        task: Task,
        stop: u32,
        deepest: u32,
        until: u32,
        deeper: &dyn Fn(&Task) -> bool,
        each: &mut dyn FnMut(&Task),
    ) {
        let row = task.row(self.n);
        if row >= until || row >= stop && (row >= deepest || !deeper(&task)) {
            each(&task);
            return;
        }
        let mut free = self.candidates(&task);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            self.expand(task.child(bit), stop, deepest, until, deeper, each);
        }
    }

    /// A task's candidates in its next row.
    fn candidates(&self, task: &Task) -> u32 {
        let row = task.row(self.n);
        task.open
            & !(task.left | task.right)
            & self.tables[task.constellation as usize][row as usize]
    }

    /// The tasks of a cut at `row`.
    pub fn tasks(&self, row: u32, shard: Shard) -> Vec<Task> {
        let mut out = Vec::new();
        self.visit(row, shard, &mut |task| out.push(*task));
        out
    }

    /// How many tasks a cut at `row` has.
    pub fn count_tasks(&self, row: u32, shard: Shard) -> usize {
        let mut count = 0;
        self.visit(row, shard, &mut |_| count += 1);
        count
    }

    /// The cut row that gives at least about `wanted` tasks (and at most n − 2, leaving the search two rows).
    pub fn row_for(&self, wanted: usize, shard: Shard) -> u32 {
        let deepest = self.n.saturating_sub(2).max(1);
        let mut row = 1;
        while row < deepest && self.count_tasks(row, shard) < wanted {
            row += 1;
        }
        row
    }

    /// The orbit's size of the task's constellation: what each solution below it stands for.
    pub fn weight(&self, task: &Task) -> u64 {
        u64::from(self.tables[task.constellation as usize][0])
    }

    /// The solutions below a task (of its constellation alone; times [`Plan::weight`] for its orbit).
    ///
    /// The same branch-free step as the GPU's (`shaders/queens.wgsl`): take the top frame's lowest candidate,
    /// count the child if it takes the last column, enter it if it has candidates, and keep the top frame
    /// only while it has candidates left; the frame below comes back when neither holds.
    pub fn count_task(&self, task: &Task) -> u64 {
        use std::hint::select_unpredictable as pick;
        let table = &self.tables[task.constellation as usize];
        // Slot 0 is a dummy frame, the task's own starts at 1. A frame is pushed only from a row above the
        // last, so slots stay below 32; `& 31` tells the compiler so.
        let mut stack = [[0u32; 5]; 32];
        let (mut open, mut left, mut right) = (task.open, task.left, task.right);
        let mut row = task.row(self.n);
        let mut candidates = self.candidates(task);
        let mut slot = usize::from(candidates != 0);
        let mut found = 0u64;
        while slot != 0 {
            let bit = candidates & candidates.wrapping_neg();
            let rest = candidates ^ bit;
            let child_open = open ^ bit;
            // Bits shifted past the edge never come back (no frame is rebuilt from its child): `child_open`
            // keeps the candidates on the board. A full board reads slot 0 or n, and has no open column.
            let child_left = (left | bit) << 1;
            let child_right = (right | bit) >> 1;
            let child_row = row + 1;
            let free = child_open & !(child_left | child_right) & table[(child_row & 31) as usize];
            found += u64::from(child_open == 0);
            stack[slot & 31] = [open, left, right, rest, row];
            let below = stack[(slot - 1) & 31];
            let enter = free != 0;
            let keep = rest != 0;
            slot = slot - 1 + usize::from(enter) + usize::from(keep);
            open = pick(enter, child_open, pick(keep, open, below[0]));
            left = pick(enter, child_left, pick(keep, left, below[1]));
            right = pick(enter, child_right, pick(keep, right, below[2]));
            candidates = pick(enter, free, pick(keep, rest, below[3]));
            row = pick(enter, child_row, pick(keep, row, below[4]));
        }
        found
    }

    /// Each constellation's place in the plan.
    fn index(&self) -> HashMap<Constellation, usize> {
        self.constellations
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, i))
            .collect()
    }

    /// The solutions a quarter turn and a half turn leave unchanged, credited to their constellations' orbits:
    /// `(quarter, half)` per constellation, over its whole orbit.
    pub fn symmetric(&self) -> Vec<(u64, u64)> {
        let mut out = vec![(0, 0); self.constellations.len()];
        if self.n < 2 {
            return out;
        }
        let index = self.index();
        let n = self.n;
        let slot = |columns: &[u32]| {
            let rep = Constellation::of_solution(n, columns).canonical(n);
            *index
                .get(&rep)
                .expect("every solution's constellation is in the plan")
        };
        symmetric::visit_quarter_turn_fixed(n, &mut |columns| out[slot(columns)].0 += 1);
        symmetric::visit_half_turn_fixed(n, &mut |columns| out[slot(columns)].1 += 1);
        out
    }

    /// [`Plan::symmetric`] for the shard's constellations alone (the others' entries are 0). A solution the half
    /// turn leaves unchanged has its constellation fixed by two queens, the one in row 0 and the one in column
    /// 0 (their partners are the bottom and right queens); one the quarter turn leaves unchanged by the one in
    /// row 0. So each search starts from those queens of one of the shard's constellations, and a shard does
    /// only its own part: every shard of N=24 repeated 17.6 s of the whole board's search before.
    pub fn symmetric_of(&self, shard: Shard) -> Vec<(u64, u64)> {
        let mut out = vec![(0, 0); self.constellations.len()];
        let n = self.n;
        if n < 2 {
            return out;
        }
        let index = self.index();
        // The shard's index of a constellation whose queens can stand together, if the plan holds it (one
        // without solutions may be missing: then no symmetric solution has it either).
        let held = |c: Constellation| {
            c.fits(n)
                .then(|| index.get(&c.canonical(n)).copied())
                .flatten()
                .filter(|&i| shard.holds(i))
        };
        let last = n - 1;
        for top in 0..n {
            for left in 0..n {
                let half = Constellation {
                    top,
                    bottom: last - top,
                    left,
                    right: last - left,
                };
                if let Some(i) = held(half) {
                    let placed = [(0, top), (left, 0)];
                    symmetric::visit_half_turn_fixed_from(n, &placed, &mut |_| out[i].1 += 1);
                }
            }
            let quarter = Constellation {
                top,
                bottom: last - top,
                left: last - top,
                right: top,
            };
            if let Some(i) = held(quarter) {
                symmetric::visit_quarter_turn_fixed_from(n, Some(top), &mut |_| out[i].0 += 1);
            }
        }
        out
    }

    /// The classes of the shard's orbits from its weighted total and the symmetric solutions credited to them.
    pub fn classes(&self, shard: Shard, total: u64, symmetric: &[(u64, u64)]) -> Classes {
        let (quarter, half) = symmetric
            .iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .fold((0, 0), |(q, h), (_, &(dq, dh))| (q + dq, h + dh));
        symmetric::classes_from_counts(total, quarter, half)
    }
}

/// Counts the shard's part of an `n`-board on this thread.
pub fn count(n: u32, shard: Shard) -> Classes {
    let plan = Plan::new(n);
    let total = plan
        .tasks(1, shard)
        .iter()
        .map(|task| plan.weight(task) * plan.count_task(task))
        .sum();
    plan.classes(shard, total, &plan.symmetric_of(shard))
}

/// Counts the shard's part of an `n`-board on every core (natively): the tasks of a cut are shared out by
/// rayon while one thread credits the symmetric solutions. `progress(done, total)` hears of each finished task
/// (from any thread).
#[cfg(not(target_arch = "wasm32"))]
pub fn count_parallel(n: u32, shard: Shard, progress: &(dyn Fn(u64, u64) + Sync)) -> Classes {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    let plan = Plan::new(n);
    // Many more tasks than threads: subtrees differ wildly in size, and work stealing evens them out.
    let tasks = plan.tasks(
        plan.row_for(rayon::current_num_threads() * 256, shard),
        shard,
    );
    let all = tasks.len() as u64;
    let done = AtomicU64::new(0);
    let (total, symmetric) = rayon::join(
        || {
            tasks
                .par_iter()
                .map(|task| {
                    let found = plan.weight(task) * plan.count_task(task);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, all);
                    found
                })
                .sum::<u64>()
        },
        || plan.symmetric_of(shard),
    );
    plan.classes(shard, total, &symmetric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::known;

    #[test]
    fn a_shards_symmetric_solutions_are_the_whole_boards_of_its_constellations() {
        for n in 1..=14 {
            let plan = Plan::new(n);
            let whole = plan.symmetric();
            assert_eq!(plan.symmetric_of(Shard::WHOLE), whole, "N={n}");
            for of in [2, 3, 7] {
                let mut sum = vec![(0, 0); whole.len()];
                for index in 1..=of {
                    let shard = Shard { index, of };
                    for (i, &(q, h)) in plan.symmetric_of(shard).iter().enumerate() {
                        if !shard.holds(i) {
                            assert_eq!((q, h), (0, 0), "N={n}, {shard}, constellation {i}");
                        }
                        sum[i].0 += q;
                        sum[i].1 += h;
                    }
                }
                assert_eq!(sum, whole, "N={n}, {of} shards");
            }
        }
        // Boards with solutions a quarter turn leaves unchanged are among them (N = 4k, 4k + 1).
        assert!(Plan::new(12).symmetric().iter().any(|&(q, _)| q > 0));
    }

    #[test]
    fn weighted_sums_are_the_published_counts() {
        for n in 1..=12 {
            let classes = count(n, Shard::WHOLE);
            assert_eq!(Some(classes.tally(n)), known(n), "N={n}");
        }
        #[cfg(not(target_arch = "wasm32"))]
        for n in 13..=16 {
            let classes = count_parallel(n, Shard::WHOLE, &|_, _| {});
            assert_eq!(Some(classes.tally(n)), known(n), "N={n}");
        }
    }

    #[test]
    fn classes_match_the_corner_split() {
        for n in 4..=12 {
            assert_eq!(count(n, Shard::WHOLE), crate::queens::count(n), "N={n}");
        }
    }

    #[test]
    fn every_cut_adds_up() {
        for n in 4..=10 {
            let plan = Plan::new(n);
            let whole: u64 = count(n, Shard::WHOLE).tally(n).total;
            for row in 1..n {
                let sum: u64 = plan
                    .tasks(row, Shard::WHOLE)
                    .iter()
                    .map(|t| plan.weight(t) * plan.count_task(t))
                    .sum();
                assert_eq!(sum, whole, "N={n}, cut at row {row}");
            }
        }
    }

    #[test]
    fn shards_add_up_to_the_whole() {
        for n in 4..=11 {
            for of in [1, 2, 3, 8] {
                let mut sum = Classes::default();
                for index in 1..=of {
                    sum.add(&count(n, Shard { index, of }));
                }
                assert_eq!(Some(sum.tally(n)), known(n), "N={n}, {of} shards");
            }
        }
    }

    #[test]
    fn orbits_are_whole() {
        // Summing each orbit's weight over every fitting constellation counts each one once.
        let n = 9;
        let plan = Plan::new(n);
        let weights: u32 = plan.constellations.iter().map(|c| c.weight(n)).sum();
        let fitting = fitting(n).count() as u32;
        assert_eq!(weights, fitting);
        assert!(
            plan.constellations
                .iter()
                .all(|c| [2, 4, 8].contains(&c.weight(n)))
        );
    }

    #[test]
    fn images_are_the_symmetries() {
        // The images of a board's constellation are the constellations of the board's images.
        let n = 8;
        let board = [0u32, 4, 7, 5, 2, 6, 1, 3];
        let turn = |cols: &[u32]| {
            // (r, c) → (c, n−1−r).
            let mut out = vec![0; n as usize];
            for (r, &c) in cols.iter().enumerate() {
                out[c as usize] = n - 1 - r as u32;
            }
            out
        };
        let mirror = |cols: &[u32]| cols.iter().map(|&c| n - 1 - c).collect::<Vec<_>>();
        let mut cols = board.to_vec();
        let images = Constellation::of_solution(n, &board).images(n);
        for pair in images.chunks_exact(2) {
            assert_eq!(pair[0], Constellation::of_solution(n, &cols));
            assert_eq!(pair[1], Constellation::of_solution(n, &mirror(&cols)));
            cols = turn(&cols);
        }
    }

    #[test]
    fn walks_from_the_starts_make_the_same_nodes() {
        // Row by row as the cut goes deeper for some tasks (here those whose open columns have an odd count);
        // starts in rows below, above and at the cut row.
        let plan = Plan::new(11);
        let deeper = |task: &Task| task.open.count_ones() % 2 == 1 && task.row(11) < 7;
        for row in [1, 3, 5] {
            let mut whole = Vec::new();
            plan.visit_deeper(row, Shard::WHOLE, &deeper, &mut |task| whole.push(*task));
            for until in [2, 3, 4, 6] {
                let mut split = Vec::new();
                for i in 0..plan.constellations.len() {
                    for start in plan.starts(i, row, until, &deeper) {
                        plan.visit_from_deeper(start, row, &deeper, &mut |task| split.push(*task));
                    }
                }
                assert_eq!(split, whole, "cut at row {row}, started at row {until}");
            }
        }
    }
}
