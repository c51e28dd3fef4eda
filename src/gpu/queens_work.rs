//! The cut a GPU count hands its lanes: nodes (partial boards, each below a constellation or the mirror split's
//! table) and the tables they index, and which of the kernel's two stack depths holds each node's search.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use crate::queens::constellation::{Plan, Shard, Task};
use crate::queens::mirror::{self, HalfNode};

/// The kernels' stack depths: the shallow one leaves room for more lanes on each GPU core.
pub(crate) const SHALLOW: u32 = 16;
pub(crate) const DEEP: u32 = 32;
/// The frames a node's search may push on the shallow kernel: a lane's stack uses two levels of its own (a
/// dummy and a sentinel) and one a frame.
pub(crate) const SHALLOW_FRAMES: u32 = SHALLOW - 2;

/// Mirrors `Node` in `queens.wgsl`: a partial board below a constellation.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct QueensNode {
    /// Columns not yet taken.
    pub open: u32,
    /// Columns attacked along the down-left diagonals.
    pub left: u32,
    /// Columns attacked along the down-right diagonals.
    pub right: u32,
    /// Index of its constellation in the plan (and of its table).
    pub constellation: u32,
}

impl QueensNode {
    /// A node of the mirror split (its table is the mirror split's one, index 0).
    pub fn mirror(n: u32, node: &HalfNode) -> Self {
        Self {
            open: crate::queens::full_mask(n) & !node.down,
            left: node.left,
            right: node.right,
            constellation: 0,
        }
    }
}

/// What a run hands the GPU: the nodes of a cut and the tables they index.
#[derive(Clone)]
pub struct QueensWork {
    /// Board size.
    pub n: u32,
    /// The deepest row a node lies in: the row the search was cut at, or one below it where a constellation's
    /// node had to be cut deeper for its stack.
    pub row: u32,
    /// The nodes.
    pub nodes: Vec<QueensNode>,
    /// 32 words per table: word 0 what each solution below a node stands for, word r the columns row r may
    /// use ([`Plan::tables`]).
    pub tables: Vec<[u32; 32]>,
    /// True when the row words restrict anything (constellations); false for the mirror split, whose kernel
    /// then skips reading them.
    pub row_masks: bool,
}

impl QueensWork {
    /// The mirror split cut at `row`: each node stands for itself and its mirror image.
    pub fn mirror(n: u32, row: u32) -> Self {
        let mut nodes = Vec::new();
        mirror::visit(n, row, &mut |node| nodes.push(QueensNode::mirror(n, node)));
        let mut table = [crate::queens::full_mask(n); 32];
        table[0] = 2;
        Self {
            n,
            row,
            nodes,
            tables: vec![table],
            row_masks: false,
        }
    }

    /// The shard's constellations of `plan` cut at `row`, and a node whose stack would not fit the shallow
    /// kernel's levels cut deeper until its children's do: the deep kernel runs half as many lanes a core, and
    /// at N=23 every node of a cut at row 5 needed it (docs/benchmarks.md, "Ray").
    pub fn constellations(plan: &Plan, row: u32, shard: Shard) -> Self {
        Self::constellations_within(plan, row, shard, SHALLOW_FRAMES)
    }

    /// [`QueensWork::constellations`], each node's stack within `frames` frames (where the rows allow).
    pub(crate) fn constellations_within(plan: &Plan, row: u32, shard: Shard, frames: u32) -> Self {
        let cut = CutPlan::new(plan, row, shard, frames);
        let (nodes, deepest) = cut.make(plan, 0..cut.starts.len());
        Self {
            row: deepest.unwrap_or(row),
            nodes,
            ..Self::tables_of(plan)
        }
    }

    /// How many nodes [`QueensWork::constellations_within`] cuts at `row`.
    pub(crate) fn count_within(plan: &Plan, row: u32, shard: Shard, frames: u32) -> usize {
        CutPlan::new(plan, row, shard, frames).nodes()
    }
}

/// A constellations' cut before its nodes are made: where its walks start and how many nodes each makes. The
/// walks are independent, so the cut is made on every core natively (at N=23 a shard in 64 has 68M nodes, 2.2 s
/// on one core), and it can be made part by part as a GPU asks for nodes, in bounded memory whatever its size.
pub(crate) struct CutPlan {
    /// The row cut at (deeper where a stack would not fit).
    row: u32,
    /// For each table, the rows whose nodes fit the frames asked for ([`QueensWork::rows_within`]).
    shallow_rows: Vec<u32>,
    /// The starts, each with the nodes its walk makes.
    starts: Vec<(Task, usize)>,
}

impl CutPlan {
    /// The shard's constellations of `plan` cut at `row`, each node's stack within `frames` frames.
    pub(crate) fn new(plan: &Plan, row: u32, shard: Shard, frames: u32) -> Self {
        // The starts of the lazy cut, each walked once to count its nodes (on every core natively).
        let LazyCut {
            row,
            shallow_rows,
            starts,
            ..
        } = LazyCut::new(plan, row, shard, frames);
        let starts = super::map_each(&starts, |&start| {
            (
                start,
                QueensWork::nodes_below(plan, start, row, &shallow_rows),
            )
        });
        Self {
            row,
            shallow_rows,
            starts,
        }
    }

    /// The nodes of the whole cut.
    pub(crate) fn nodes(&self) -> usize {
        self.starts.iter().map(|&(_, count)| count).sum()
    }

    /// The nodes the starts `part` make.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn nodes_in(&self, part: Range<usize>) -> usize {
        self.starts[part].iter().map(|&(_, count)| count).sum()
    }

    /// The starts in parts of about `most` nodes each (at least one start each, so a start of more nodes is a
    /// part alone), in order; parts with no nodes are left out.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn parts(&self, most: usize) -> Vec<Range<usize>> {
        let mut parts = Vec::new();
        let (mut first, mut nodes) = (0, 0);
        for (i, &(_, count)) in self.starts.iter().enumerate() {
            if nodes > 0 && nodes + count > most {
                parts.push(first..i);
                (first, nodes) = (i, 0);
            }
            nodes += count;
        }
        if nodes > 0 {
            parts.push(first..self.starts.len());
        }
        parts
    }

    /// The nodes of the starts `part` (on every core natively), each start's written into its own slice of one
    /// vector of the exact size; and the deepest row among them (none when there are none).
    pub(crate) fn make(&self, plan: &Plan, part: Range<usize>) -> (Vec<QueensNode>, Option<u32>) {
        let starts = &self.starts[part];
        let mut nodes: Vec<QueensNode> =
            bytemuck::zeroed_vec(starts.iter().map(|&(_, count)| count).sum());
        let mut slices = Vec::with_capacity(starts.len());
        let mut rest = &mut nodes[..];
        for &(start, count) in starts {
            let (slice, after) = rest.split_at_mut(count);
            slices.push((start, slice));
            rest = after;
        }
        let fill = |(start, slice): (Task, &mut [QueensNode])| {
            let mut at = 0;
            let mut deepest = 0;
            QueensWork::visit_from(plan, start, self.row, &self.shallow_rows, &mut |task| {
                slice[at] = QueensNode::from(task);
                at += 1;
                deepest = deepest.max(task.row(plan.n));
            });
            debug_assert_eq!(
                at,
                slice.len(),
                "the second walk of a cut makes what the first counted"
            );
            deepest
        };
        #[cfg(not(target_arch = "wasm32"))]
        let deepest = {
            use rayon::prelude::*;
            slices.into_par_iter().map(fill).max()
        };
        #[cfg(target_arch = "wasm32")]
        let deepest = slices.into_iter().map(fill).max();
        (nodes, deepest)
    }
}

/// A constellations' cut made part by part without counting its nodes first, for a caller with one thread (a
/// browser page: counting N=22's 310M nodes before the first part held it for seconds). Each part walks the
/// next starts until it holds enough nodes; how many there are in all is estimated from a sample of the starts.
pub(crate) struct LazyCut {
    /// The row cut at (deeper where a stack would not fit).
    row: u32,
    /// For each table, the rows whose nodes fit the frames asked for ([`QueensWork::rows_within`]).
    shallow_rows: Vec<u32>,
    /// Where the walks start, in order.
    starts: Vec<Task>,
    /// The first start not yet walked.
    next: usize,
}

impl LazyCut {
    /// Starts sampled at the least for [`LazyCut::estimate`] (all of them where there are fewer).
    const SAMPLED: usize = 512;

    /// The shard's constellations of `plan` cut at `row`, each node's stack within `frames` frames.
    pub(crate) fn new(plan: &Plan, row: u32, shard: Shard, frames: u32) -> Self {
        let shallow_rows = QueensWork::tables_of(plan).rows_within(frames);
        let starts = QueensWork::starts_within(plan, row, shard, &shallow_rows);
        Self {
            row,
            shallow_rows,
            starts,
            next: 0,
        }
    }

    /// About how many nodes the cut makes: the nodes of every k-th start, scaled to all of them (exact where
    /// there are at most [`LazyCut::SAMPLED`] starts).
    pub(crate) fn estimate(&self, plan: &Plan) -> usize {
        let every = (self.starts.len() / Self::SAMPLED).max(1);
        let sampled = self.starts.len().div_ceil(every);
        let nodes: usize = self
            .starts
            .iter()
            .step_by(every)
            .map(|&start| QueensWork::nodes_below(plan, start, self.row, &self.shallow_rows))
            .sum();
        (nodes as u128 * self.starts.len() as u128 / sampled.max(1) as u128) as usize
    }

    /// The next part's nodes, at least `most` where the starts left hold that many (a start's nodes stay in one
    /// part), and the deepest row among them (none when there are none); `None` once every start is walked.
    pub(crate) fn next_part(
        &mut self,
        plan: &Plan,
        most: usize,
    ) -> Option<(Vec<QueensNode>, Option<u32>)> {
        if self.next == self.starts.len() {
            return None;
        }
        let (mut nodes, mut deepest) = (Vec::new(), None);
        while self.next < self.starts.len() && nodes.len() < most {
            let start = self.starts[self.next];
            self.next += 1;
            QueensWork::visit_from(plan, start, self.row, &self.shallow_rows, &mut |task| {
                nodes.push(QueensNode::from(task));
                deepest = deepest.max(Some(task.row(plan.n)));
            });
        }
        Some((nodes, deepest))
    }
}

impl QueensWork {
    /// Where the shard's cut at `row` may be shared among threads: the constellations' roots, or where a shard
    /// holds few constellations (a shard of N=24 in 1,024 holds 22, some with ten times the nodes of others),
    /// the tasks each one's walk reaches in row 3 or the first row below it with enough of them.
    fn starts_within(plan: &Plan, row: u32, shard: Shard, shallow_rows: &[u32]) -> Vec<Task> {
        /// Shards holding fewer constellations than this split each into `PARTS` starts or more, where its
        /// rows allow.
        const FEW: usize = 1024;
        const PARTS: usize = 64;
        let held: Vec<usize> = plan.held(shard).collect();
        let too_deep = Self::too_deep(plan, shallow_rows);
        let split = |i: usize| {
            // Rows a constellation's border queens fill leave no choice, so one row down may not be enough.
            let mut until = 3;
            loop {
                let starts = plan.starts(i, row, until, &too_deep);
                if starts.len() >= PARTS || until + 3 >= plan.n {
                    return starts;
                }
                until += 1;
            }
        };
        if held.len() < FEW {
            held.iter().flat_map(|&i| split(i)).collect()
        } else {
            held.iter().map(|&i| plan.root(i)).collect()
        }
    }

    /// How many nodes the cut at `row` makes below `start`.
    fn nodes_below(plan: &Plan, start: Task, row: u32, shallow_rows: &[u32]) -> usize {
        let mut count = 0;
        Self::visit_from(plan, start, row, shallow_rows, &mut |_| count += 1);
        count
    }

    /// The nodes of a cut at `row` below `start`, each too deep for the frames `shallow_rows` allows
    /// ([`QueensWork::rows_within`]) replaced by its children, recursively.
    fn visit_from(
        plan: &Plan,
        start: Task,
        row: u32,
        shallow_rows: &[u32],
        each: &mut dyn FnMut(&Task),
    ) {
        plan.visit_from_deeper(start, row, &Self::too_deep(plan, shallow_rows), each);
    }

    /// Whether a task's stack would not fit the frames `shallow_rows` allows.
    fn too_deep<'a>(plan: &'a Plan, shallow_rows: &'a [u32]) -> impl Fn(&Task) -> bool + 'a {
        move |task: &Task| shallow_rows[task.constellation as usize] >> task.row(plan.n) & 1 == 0
    }

    /// `plan`'s tables, without nodes.
    pub(crate) fn tables_of(plan: &Plan) -> Self {
        Self {
            n: plan.n,
            row: 0,
            nodes: Vec::new(),
            tables: plan.tables.clone(),
            row_masks: true,
        }
    }
}

impl QueensWork {
    /// The most frames a lane's stack holds under `node` (levels 2 and up, see the shader's stack comment): one
    /// for each row from the node's to the one before the last that can leave a candidate untried, which a row
    /// limited to one column (a constellation's border queen) never does.
    pub fn frames_below(&self, node: &QueensNode) -> u32 {
        self.frames_from(node.constellation as usize, self.n - node.open.count_ones())
    }

    /// [`QueensWork::frames_below`] for a node of table `table` in row `row`.
    fn frames_from(&self, table: usize, row: u32) -> u32 {
        let table = &self.tables[table];
        (row..self.n.saturating_sub(1))
            .filter(|&r| !self.row_masks || table[r as usize].count_ones() > 1)
            .count() as u32
    }

    /// For each table, bit r set when a node of it in row r needs at most `frames` frames: one lookup a node
    /// where a cut has millions of them.
    pub(crate) fn rows_within(&self, frames: u32) -> Vec<u32> {
        (0..self.tables.len())
            .map(|table| {
                (0..self.n.min(32))
                    .filter(|&row| self.frames_from(table, row) <= frames)
                    .fold(0, |rows, row| rows | 1 << row)
            })
            .collect()
    }

    /// The same work with only the nodes `keep` picks.
    pub(crate) fn only(&self, keep: impl Fn(&QueensNode) -> bool) -> Self {
        Self {
            nodes: self
                .nodes
                .iter()
                .copied()
                .filter(|node| keep(node))
                .collect(),
            tables: self.tables.clone(),
            ..*self
        }
    }
}

impl From<&Task> for QueensNode {
    fn from(task: &Task) -> Self {
        Self {
            open: task.open,
            left: task.left,
            right: task.right,
            constellation: task.constellation,
        }
    }
}

/// What the kernel on computed masks reads of each constellation (the shader's `node_frame`), made from its
/// table of row masks: the weight, the bottom queen's column as a bit, the rows of the left and right queens
/// as bits `n − row` (rows strictly between the top and bottom ones only: a corner queen is the top or bottom
/// one), the side column of whichever of those two rows comes first, and the two rows (0 for a corner).
/// An inner row's mask never holds a side column, so a row whose mask is a lone side column is a side queen's.
pub(crate) fn computed_tables(n: u32, tables: &[[u32; 32]]) -> Vec<[u32; 32]> {
    let last = n.saturating_sub(1);
    tables
        .iter()
        .map(|table| {
            let side_row = |column: u32| {
                (1..last)
                    .find(|&row| table[row as usize] == column)
                    .unwrap_or(0)
            };
            let (k, l) = (side_row(1), side_row(1 << last));
            let row_bit = |row: u32| if row == 0 { 0 } else { 1 << (n - row) };
            let first_side = match (k, l) {
                (0, 0) => 0,
                (0, _) => 1 << last,
                (_, 0) => 1,
                _ if k < l => 1,
                _ => 1 << last,
            };
            let mut out = [0u32; 32];
            out[..6].copy_from_slice(&[
                table[0],
                table[last as usize],
                row_bit(k) | row_bit(l),
                first_side,
                k,
                l,
            ]);
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_keep_their_masks() {
        let plan = Plan::new(12);
        let task = plan.tasks(5, Shard::WHOLE)[7];
        let packed = QueensNode::from(&task);
        assert_eq!(
            (packed.open, packed.left, packed.right, packed.constellation),
            (task.open, task.left, task.right, task.constellation)
        );
    }

    #[test]
    fn nodes_too_deep_for_the_stacks_are_cut_deeper_and_count_the_same() {
        // N=12 cut at row 1 with room for 4 frames: most nodes must go down several rows, each by its own
        // constellation's free rows; the weighted counts below them still add up to the published total.
        let plan = Plan::new(12);
        let work = QueensWork::constellations_within(&plan, 1, Shard::WHOLE, 4);
        let rows: Vec<u32> = work
            .nodes
            .iter()
            .map(|node| 12 - node.open.count_ones())
            .collect();
        assert!(rows.iter().any(|&r| r > 2), "{rows:?}");
        assert!(work.nodes.iter().all(|node| work.frames_below(node) <= 4));
        let total: u64 = work
            .nodes
            .iter()
            .map(|node| {
                let task = Task {
                    constellation: node.constellation,
                    open: node.open,
                    left: node.left,
                    right: node.right,
                };
                plan.weight(&task) * plan.count_task(&task)
            })
            .sum();
        assert_eq!(total, 14_200);
        // With the shallow stacks' room, small boards are not cut deeper than asked.
        let shallow = QueensWork::constellations(&plan, 3, Shard::WHOLE);
        assert_eq!(shallow.nodes.len(), plan.count_tasks(3, Shard::WHOLE));
    }

    #[test]
    fn parts_of_a_cut_make_its_nodes() {
        // A shard of N=12 in parts of about 50 nodes: every start in exactly one part, each part near the
        // size asked (one start alone may pass it), and the parts' nodes the whole cut's, in order.
        let plan = Plan::new(12);
        let shard = Shard { index: 2, of: 3 };
        let cut = CutPlan::new(&plan, 4, shard, SHALLOW_FRAMES);
        let parts = cut.parts(50);
        assert!(parts.len() > 3, "{parts:?}");
        assert_eq!(parts.first().map(|p| p.start), Some(0));
        assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
        let largest = cut
            .starts
            .iter()
            .map(|&(_, count)| count)
            .max()
            .unwrap_or(0);
        let mut nodes = Vec::new();
        for part in parts {
            let (made, _) = cut.make(&plan, part);
            assert!(!made.is_empty() && made.len() <= 50.max(largest));
            nodes.extend(made);
        }
        let whole = QueensWork::constellations_within(&plan, 4, shard, SHALLOW_FRAMES);
        assert_eq!(nodes, whole.nodes);
        assert_eq!(nodes.len(), cut.nodes());
    }

    #[test]
    fn a_lazy_cut_makes_the_planned_cut_in_order_and_estimates_its_size() {
        for (n, shard, most) in [
            (7, Shard::WHOLE, 2),
            (12, Shard { index: 2, of: 3 }, 50),
            (16, Shard::WHOLE, 50_000),
        ] {
            let plan = Plan::new(n);
            let planned = CutPlan::new(&plan, 4, shard, SHALLOW_FRAMES);
            let whole = QueensWork::constellations_within(&plan, 4, shard, SHALLOW_FRAMES);
            let mut lazy = LazyCut::new(&plan, 4, shard, SHALLOW_FRAMES);
            let estimate = lazy.estimate(&plan);
            if lazy.starts.len() <= LazyCut::SAMPLED {
                assert_eq!(estimate, planned.nodes(), "N={n}: every start sampled");
            } else {
                let ratio = estimate as f64 / planned.nodes() as f64;
                assert!(
                    (0.8..1.25).contains(&ratio),
                    "N={n}: estimate {estimate} of {}",
                    planned.nodes()
                );
            }
            // Parts of at least `most` nodes where the starts last, a start's nodes never split.
            let (mut nodes, mut parts, mut deepest) = (Vec::new(), 0, None);
            while let Some((made, part_deepest)) = lazy.next_part(&plan, most) {
                parts += 1;
                deepest = deepest.max(part_deepest);
                nodes.extend(made);
            }
            assert!(parts > 2, "N={n}: {parts} parts");
            assert_eq!(nodes, whole.nodes, "N={n}");
            assert_eq!(deepest, Some(whole.row), "N={n}");
            assert!(lazy.next_part(&plan, most).is_none());
        }
    }

    #[test]
    fn computed_tables_name_the_border_queens() {
        for n in [5, 8, 11] {
            let plan = Plan::new(n);
            let computed = computed_tables(n, &plan.tables);
            let last = n - 1;
            let inner = |row: u32| if (1..last).contains(&row) { row } else { 0 };
            for (c, words) in plan.constellations.iter().zip(&computed) {
                let (k, l) = (inner(c.left), inner(c.right));
                let rows = [k, l]
                    .iter()
                    .filter(|&&r| r != 0)
                    .fold(0, |bits, r| bits | 1 << (n - r));
                let first_side = match (k, l) {
                    (0, 0) => 0,
                    (0, _) => 1 << last,
                    (_, 0) => 1,
                    _ => {
                        if k < l {
                            1
                        } else {
                            1 << last
                        }
                    }
                };
                assert_eq!(
                    words[..6],
                    [c.weight(n), 1 << c.bottom, rows, first_side, k, l],
                    "N={n}, {c:?}"
                );
            }
        }
    }
}
