//! A constellations' count whose cut is made part by part while the GPU counts, so that its memory is bounded
//! whatever the cut's size (a shard of N=23 in 64 held 1.3 GB of nodes at once; one of N=24 in 128 would have
//! needed 455M nodes, more than a storage binding holds, and went to the deep kernel), and the GPU starts as soon
//! as the first part is made. Natively a host thread makes each part's nodes on every core and hands it over a
//! channel of one, so at most three parts live at once; a browser page has no thread to spare, so there each
//! part is made when the lanes have taken the one before ([`Making`]). Several GPUs share the parts of one cut
//! the same way ([`MadeParts`], used by `queens_many`).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
#[cfg(not(target_arch = "wasm32"))]
use std::collections::HashMap;
#[cfg(not(target_arch = "wasm32"))]
use std::ops::Range;
use std::sync::Arc;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::mpsc;
#[cfg(not(target_arch = "wasm32"))]
use std::sync::{Condvar, Mutex};

use web_time::Instant;

use super::queens::{QueensConfig, QueensKernel, QueensStats, QueensWork};
#[cfg(not(target_arch = "wasm32"))]
use super::queens_work::CutPlan;
use super::queens_work::{LazyCut, QueensNode, SHALLOW_FRAMES};
use super::{GpuContext, GpuError};
use crate::queens::constellation::{Plan, Shard};

/// Where a streamed cut's parts are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Making {
    /// On a host thread, a part ahead of the GPU, each on every core (native).
    #[cfg(not(target_arch = "wasm32"))]
    Ahead,
    /// On the caller's thread, each part when the lanes have taken the one before: the GPU waits while it is
    /// made (about 1M nodes a part, a few hundredths of a second in a page).
    OnDemand,
}

/// Nodes per part made on demand: small enough that making one holds a page's thread only briefly.
pub const ON_DEMAND_PART_NODES: usize = 1 << 20;

impl Making {
    /// The nodes per part when the count's config names none.
    fn part_nodes(self) -> usize {
        match self {
            #[cfg(not(target_arch = "wasm32"))]
            Making::Ahead => super::queens::PART_NODES,
            Making::OnDemand => ON_DEMAND_PART_NODES,
        }
    }
}

/// The lanes' runs of nodes (at most `most` each, as [`QueensKernel::count_on`] asks for them) cut from the
/// parts `next_part` makes in order; `None` once it makes no more.
fn runs_of(
    mut next_part: impl FnMut() -> Option<Vec<QueensNode>>,
) -> impl FnMut(usize) -> Option<Cow<'static, [QueensNode]>> {
    let (mut part, mut at) = (Vec::new(), 0);
    move |most| {
        while at == part.len() {
            part = next_part()?;
            at = 0;
        }
        let end = part.len().min(at + most);
        let run = part[at..end].to_vec();
        at = end;
        Some(Cow::Owned(run))
    }
}

impl QueensKernel {
    /// The row to cut the shard's constellations of `plan` at for the shallow kernel (as
    /// [`QueensKernel::cut`] chooses it), and that cut planned.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn plan_cut(
        &self,
        ctx: &GpuContext,
        plan: &Plan,
        shard: Shard,
        config: QueensConfig,
    ) -> (u32, CutPlan) {
        let (row, cut, _) = self.choose_cut(
            ctx,
            plan,
            config,
            |row| CutPlan::new(plan, row, shard, SHALLOW_FRAMES),
            CutPlan::nodes,
        );
        (row, cut)
    }

    /// The row [`QueensKernel::cut`] chooses for `plan`'s constellations, the cut `make` plans at that row and
    /// its nodes as `nodes` counts (or estimates) them. The cut of the last row looked at is kept: usually the
    /// row chosen.
    fn choose_cut<C>(
        &self,
        ctx: &GpuContext,
        plan: &Plan,
        config: QueensConfig,
        make: impl Fn(u32) -> C,
        nodes: impl Fn(&C) -> usize,
    ) -> (u32, C, usize) {
        let last = RefCell::new(None);
        let (row, counted) = self.cut(ctx, plan.n, config, 1, false, &|row| {
            let cut = make(row);
            let counted = nodes(&cut);
            last.replace(Some((row, cut)));
            counted
        });
        let cut = match last.into_inner() {
            Some((planned, cut)) if planned == row => cut,
            _ => make(row),
        };
        (row, cut, counted)
    }

    /// The weighted solutions below the shard's constellations of `plan`, cut for the shallow kernel and made
    /// part by part where `making` says (see the module's comment), and the stats; `progress` as for
    /// [`QueensKernel::count`].
    pub(crate) async fn count_streamed(
        &self,
        ctx: &GpuContext,
        plan: Arc<Plan>,
        shard: Shard,
        config: QueensConfig,
        making: Making,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(u64, QueensStats), GpuError> {
        let started = Instant::now();
        let most = config.part_nodes.unwrap_or(making.part_nodes()).max(1);
        let mut stats = QueensStats {
            constellations: plan.held(shard).count() as u64,
            ..QueensStats::default()
        };
        let (counted, deepest, row) = match making {
            #[cfg(not(target_arch = "wasm32"))]
            Making::Ahead => {
                let (row, cut) = self.plan_cut(ctx, &plan, shard, config);
                let total = cut.nodes();
                let parts = cut.parts(most);
                (stats.nodes, stats.cut_seconds) = (total as u64, started.elapsed().as_secs_f64());
                let work = QueensWork {
                    row,
                    ..QueensWork::tables_of(&plan)
                };
                let (send, receive) = mpsc::sync_channel::<Vec<QueensNode>>(1);
                let maker = std::thread::spawn(move || {
                    let mut deepest = None;
                    for part in parts {
                        let (nodes, part_deepest) = cut.make(&plan, part);
                        deepest = deepest.max(part_deepest);
                        if send.send(nodes).is_err() {
                            break;
                        }
                    }
                    deepest
                });
                let mut more = runs_of(move || receive.recv().ok());
                let counted = self
                    .count_on(ctx, &work, false, config, total, &mut more, progress)
                    .await;
                // The maker stops at its next part once the receiver is gone.
                drop(more);
                let deepest = maker.join().expect("the cut's maker does not panic");
                (counted, deepest, row)
            }
            Making::OnDemand => {
                let (row, mut cut, estimate) = self.choose_cut(
                    ctx,
                    &plan,
                    config,
                    |row| LazyCut::new(&plan, row, shard, SHALLOW_FRAMES),
                    |cut| cut.estimate(&plan),
                );
                stats.cut_seconds = started.elapsed().as_secs_f64();
                let work = QueensWork {
                    row,
                    ..QueensWork::tables_of(&plan)
                };
                let (deepest, made) = (Cell::new(None), Cell::new(0));
                let mut more = runs_of(|| {
                    let (nodes, part_deepest) = cut.next_part(&plan, most)?;
                    deepest.set(deepest.get().max(part_deepest));
                    made.set(made.get() + nodes.len());
                    Some(nodes)
                });
                // The total is an estimate until the last part is made: the progress shown stays short of the
                // whole until the count ends.
                let mut shown =
                    |done: u64, total: u64| progress(done.min(total.saturating_sub(1)), total);
                let counted = self
                    .count_on(
                        ctx,
                        &work,
                        false,
                        config,
                        estimate.max(1),
                        &mut more,
                        &mut shown,
                    )
                    .await;
                stats.nodes = made.get() as u64;
                (counted, deepest.get(), row)
            }
        };
        let counted = counted?;
        stats.cut_row = deepest.unwrap_or(row);
        stats.dispatches = counted.dispatches;
        stats.splits = counted.splits;
        Ok((counted.total, stats))
    }
}

#[cfg(not(target_arch = "wasm32"))]
/// The parts of one planned cut, made in order by a host thread ([`MadeParts::make_all`]) a few ahead of the
/// GPUs that take them, for a count shared among GPUs. Parts are numbered; a GPU takes part `i` once a pool of
/// part numbers hands it `i`, and a part that a failed GPU gave back is made again by whoever takes it next (a
/// part's nodes are the same each time it is made). So memory holds a few parts per GPU, never the whole cut.
pub(crate) struct MadeParts<'a> {
    plan: &'a Plan,
    cut: &'a CutPlan,
    parts: Vec<Range<usize>>,
    /// Parts made and not yet taken, at most.
    ahead: usize,
    state: Mutex<Made>,
    changed: Condvar,
}

#[cfg(not(target_arch = "wasm32"))]
struct Made {
    /// Parts made and not yet taken.
    ready: HashMap<usize, Vec<QueensNode>>,
    /// Parts made so far (the first ones, in order).
    made: usize,
    /// The deepest row among the nodes made.
    deepest: Option<u32>,
    /// Set once no GPU will take another part.
    stop: bool,
}

#[cfg(not(target_arch = "wasm32"))]
impl<'a> MadeParts<'a> {
    /// `cut`'s parts of about `most` nodes, at most `ahead` of them made and waiting at a time.
    pub(crate) fn new(plan: &'a Plan, cut: &'a CutPlan, most: usize, ahead: usize) -> Self {
        Self {
            plan,
            cut,
            parts: cut.parts(most.max(1)),
            ahead: ahead.max(1),
            state: Mutex::new(Made {
                ready: HashMap::new(),
                made: 0,
                deepest: None,
                stop: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Made> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many parts there are.
    pub(crate) fn len(&self) -> usize {
        self.parts.len()
    }

    /// The nodes of part `i`.
    pub(crate) fn nodes_in(&self, i: usize) -> usize {
        self.cut.nodes_in(self.parts[i].clone())
    }

    /// Makes every part in order, waiting while `ahead` of them wait to be taken, until all are made or
    /// [`MadeParts::stop`] is called.
    pub(crate) fn make_all(&self) {
        for (i, part) in self.parts.iter().enumerate() {
            {
                let mut state = self.lock();
                while state.ready.len() >= self.ahead && !state.stop {
                    state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                if state.stop {
                    return;
                }
            }
            let (nodes, deepest) = self.cut.make(self.plan, part.clone());
            let mut state = self.lock();
            state.deepest = state.deepest.max(deepest);
            state.ready.insert(i, nodes);
            state.made = i + 1;
            self.changed.notify_all();
        }
    }

    /// Part `i`'s nodes: waits for the maker to reach it, or makes it here if it was made and taken before (a
    /// part given back).
    pub(crate) fn take(&self, i: usize) -> Vec<QueensNode> {
        let mut state = self.lock();
        loop {
            if let Some(nodes) = state.ready.remove(&i) {
                self.changed.notify_all();
                return nodes;
            }
            if i < state.made || state.stop {
                drop(state);
                return self.cut.make(self.plan, self.parts[i].clone()).0;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Tells the maker to stop (every GPU is done or failed), and the deepest row among the nodes it made.
    pub(crate) fn stop(&self) -> Option<u32> {
        let mut state = self.lock();
        state.stop = true;
        state.ready.clear();
        self.changed.notify_all();
        state.deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_come_from_the_parts_in_order_and_never_span_two() {
        let node = |k: u32| QueensNode {
            open: k,
            ..QueensNode::default()
        };
        let mut parts =
            vec![(0..5).map(node).collect::<Vec<_>>(), vec![], vec![node(5)]].into_iter();
        let mut more = runs_of(move || parts.next());
        let mut runs = Vec::new();
        while let Some(run) = more(2) {
            runs.push(run.iter().map(|n| n.open).collect::<Vec<_>>());
        }
        assert_eq!(runs, [vec![0, 1], vec![2, 3], vec![4], vec![5]]);
    }

    #[test]
    fn parts_are_made_ahead_and_again_when_given_back() {
        let plan = Plan::new(11);
        let cut = CutPlan::new(&plan, 4, Shard::WHOLE, SHALLOW_FRAMES);
        let made = MadeParts::new(&plan, &cut, 500, 2);
        assert!(made.len() > 4, "{} parts", made.len());
        std::thread::scope(|scope| {
            let maker = scope.spawn(|| made.make_all());
            let expected = |i: usize| cut.make(&plan, cut.parts(500)[i].clone()).0;
            for i in 0..made.len() {
                let nodes = made.take(i);
                assert_eq!(nodes.len(), made.nodes_in(i));
                assert_eq!(nodes, expected(i), "part {i}");
            }
            // A part given back after it was taken is made again, the same.
            assert_eq!(made.take(1), expected(1));
            made.stop();
            maker.join().unwrap();
        });
    }
}
