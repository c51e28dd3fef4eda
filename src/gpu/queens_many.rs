//! N-Queens on several GPUs of one host (native only): one cut, whose nodes a thread per GPU pulls in runs
//! whenever its lanes' queue runs out, so every GPU's lanes stay busy until the cut is used up and a slower or
//! busier GPU simply takes fewer. A constellations' cut is made part by part while the GPUs count (a host thread
//! a few parts ahead of them, `MadeParts`), so memory holds a few parts a GPU, not the cut; the mirror split's
//! is made whole first. Each GPU then has one tail (its busy lanes giving work to idle ones), not one per chunk.
//! A GPU that fails gives back every run (or part) it took (its counts are lost with it) for the others, and
//! stops; the count fails only when every GPU has.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use web_time::Instant;

use super::queens::{
    QueensConfig, QueensKernel, QueensStats, QueensWork, by_stack, classes_of, symmetric_counts,
};
use super::queens_stream::MadeParts;
use super::{GpuContext, GpuError};
use crate::queens::constellation::Plan;
use crate::queens::counter::Classes;
use crate::shard::Shard;

/// The runs of a cut's nodes not yet counted, shared by the GPU threads. A thread leaves only when no run is
/// left *and* no GPU is counting: a GPU that fails may still give runs back, and someone must be there to take
/// them.
struct NodePool {
    state: Mutex<PoolState>,
    changed: Condvar,
}

struct PoolState {
    /// The first node never handed out, and the cut's end.
    next: usize,
    end: usize,
    /// Runs given back by GPUs that failed.
    returned: Vec<Range<usize>>,
    /// GPUs counting now.
    counting: usize,
}

impl PoolState {
    fn has_work(&self) -> bool {
        self.next < self.end || !self.returned.is_empty()
    }
}

impl NodePool {
    /// A pool of the nodes `0..len`, handed out from the first.
    fn new(len: usize) -> Self {
        Self {
            state: Mutex::new(PoolState {
                next: 0,
                end: len,
                returned: Vec::new(),
                counting: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until there is work (true: the caller counts, and calls [`NodePool::end`] after) or every node is
    /// counted (false).
    fn begin(&self) -> bool {
        let mut state = self.lock();
        loop {
            if state.has_work() {
                state.counting += 1;
                return true;
            }
            if state.counting == 0 {
                return false;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The next run of at most `most` nodes (runs given back first); `None` when none is left.
    fn take(&self, most: usize) -> Option<Range<usize>> {
        let mut state = self.lock();
        if let Some(run) = state.returned.pop() {
            let end = run.end.min(run.start + most);
            if end < run.end {
                state.returned.push(end..run.end);
            }
            return Some(run.start..end);
        }
        if state.next == state.end {
            return None;
        }
        let start = state.next;
        state.next = state.end.min(start + most);
        Some(start..state.next)
    }

    /// The caller stopped counting; `lost`: the runs it took and did not count (its GPU failed).
    fn end(&self, lost: Vec<Range<usize>>) {
        let mut state = self.lock();
        state.counting -= 1;
        state.returned.extend(lost);
        self.changed.notify_all();
    }

    /// Whether nodes are left over (every GPU failed).
    fn unfinished(&self) -> bool {
        self.lock().has_work()
    }
}

/// Nodes per part of a constellations' cut shared among GPUs at most: a GPU takes whole parts, as many as fill
/// its queue (four nodes a lane: 473k for the default lanes), so parts of about that share the work as finely
/// as runs of a cut made whole. With one GPU's parts ([`super::queens::PART_NODES`], 8M) N=21's 22M nodes made
/// three, and on two H200s one GPU counted two of them for 14.7 s while the other was done after 7.7 s.
const SHARED_PART_NODES: usize = 1 << 19;

/// What one GPU did in a shared count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuShare {
    /// The adapter, for people.
    pub name: String,
    /// Nodes it counted.
    pub nodes: u64,
    /// Seconds it spent counting.
    pub seconds: f64,
    /// Why it stopped early, if it did (its unfinished chunk went to the others).
    pub failed: Option<String>,
}

/// Counts an `n`-board (or the shard's part of it) on every given GPU; see the module's comment. The whole board
/// and a shard are cut on their constellations (the whole board on the mirror split with `config.mirror`), as on
/// one GPU. `progress(done, total)` (nodes)
/// hears of each finished chunk, from any thread.
pub fn count_on_many(
    gpus: &[(&GpuContext, &QueensKernel)],
    n: u32,
    shard: Shard,
    config: QueensConfig,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Classes, QueensStats, Vec<GpuShare>), GpuError> {
    let (first_ctx, first_kernel) = *gpus
        .first()
        .ok_or_else(|| GpuError::NoAdapter("no GPU given".into()))?;
    if n < 4 {
        // Nothing to share: one GPU answers the small boards at once.
        let (classes, stats) =
            first_kernel.count_blocking(first_ctx, n, shard, config, &mut |_, _| true)?;
        return Ok((classes, stats, Vec::new()));
    }
    // The cut aims at the wish of one GPU times their number: finer runs to share.
    let wide = QueensConfig {
        nodes: config.nodes.map(|w| w * gpus.len()),
        ..config
    };
    let started = Instant::now();
    let plan = (shard != Shard::WHOLE || !config.mirror).then(|| Plan::new(n));
    // A constellations' cut is made part by part as the GPUs count (as on one GPU); the mirror split's, or
    // one the deep kernel is asked for, whole before they start.
    let streamed = plan
        .as_ref()
        .filter(|_| !config.deep)
        .map(|plan| (plan, first_kernel.plan_cut(first_ctx, plan, shard, wide)));
    let made = streamed.as_ref().map(|(plan, (_, cut))| {
        // A small cut in smaller parts, eight a GPU at least.
        let most = config.part_nodes.unwrap_or(
            SHARED_PART_NODES
                .min(cut.nodes().div_ceil(8 * gpus.len()))
                .max(1),
        );
        MadeParts::new(plan, cut, most, 4 * gpus.len())
    });
    // The cut made whole, where it is.
    let prepared = streamed
        .is_none()
        .then(|| first_kernel.prepare(first_ctx, n, plan.as_ref(), shard, wide));
    let (stages, mut stats) = match (&streamed, &made, &prepared) {
        (Some((plan, (row, cut))), Some(made), _) => {
            let work = QueensWork {
                row: *row,
                ..QueensWork::tables_of(plan)
            };
            let stats = QueensStats {
                nodes: cut.nodes() as u64,
                constellations: plan.held(shard).count() as u64,
                cut_row: *row,
                cut_seconds: started.elapsed().as_secs_f64(),
                ..QueensStats::default()
            };
            (vec![(Cow::Owned(work), false, Source::Parts(made))], stats)
        }
        (_, _, Some((work, stats))) => {
            let stages = by_stack(work, config)
                .into_iter()
                .map(|(part, deep)| (part, deep, Source::Nodes))
                .collect::<Vec<_>>();
            (stages, *stats)
        }
        _ => unreachable!("a count is streamed or prepared"),
    };
    let total_nodes = stats.nodes;
    let sums = Sums::default();
    // Nodes each GPU has finished, for `progress`.
    let finished: Vec<AtomicU64> = gpus.iter().map(|_| AtomicU64::new(0)).collect();
    let report = |gpu: usize, done: u64| {
        finished[gpu].store(done, Ordering::Relaxed);
        let all: u64 = finished.iter().map(|f| f.load(Ordering::Relaxed)).sum();
        progress(all.min(total_nodes), total_nodes);
    };
    let mut shares: Vec<GpuShare> = gpus
        .iter()
        .map(|(ctx, _)| GpuShare {
            name: ctx.describe(),
            ..GpuShare::default()
        })
        .collect();
    let mut unfinished = false;
    let (symmetric, symmetric_seconds) = std::thread::scope(|scope| {
        let symmetric = scope.spawn(|| {
            let started = Instant::now();
            let counts = symmetric_counts(n, plan.as_ref(), shard);
            (counts, started.elapsed().as_secs_f64())
        });
        let maker = made.as_ref().map(|made| scope.spawn(|| made.make_all()));
        // The shallow kernel's nodes, then the deep one's (usually none), each shared among the GPUs that
        // have not failed.
        let mut before = 0;
        for (part, deep, source) in &stages {
            let pool = NodePool::new(source.len(part));
            let stage_nodes = match source {
                Source::Nodes => part.nodes.len() as u64,
                Source::Parts(_) => total_nodes,
            };
            let working: Vec<usize> = (0..gpus.len())
                .filter(|&i| shares[i].failed.is_none())
                .collect();
            let results: Vec<GpuShare> = std::thread::scope(|inner| {
                let threads: Vec<_> = working
                    .iter()
                    .map(|&i| {
                        let (ctx, kernel) = gpus[i];
                        let (pool, sums, report) = (&pool, &sums, &report);
                        let one = Shared {
                            part,
                            deep: *deep,
                            config,
                            total: stage_nodes as usize,
                            source,
                            pool,
                            sums,
                        };
                        inner
                            .spawn(move || one.count(ctx, kernel, &|done| report(i, before + done)))
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|t| t.join().expect("a GPU thread does not panic"))
                    .collect()
            });
            for (&i, result) in working.iter().zip(results) {
                shares[i].nodes += result.nodes;
                shares[i].seconds += result.seconds;
                shares[i].failed = result.failed;
            }
            before += stage_nodes;
            if pool.unfinished() {
                unfinished = true;
                break;
            }
        }
        if let (Some(made), Some(maker)) = (&made, maker) {
            let deepest = made.stop();
            maker.join().expect("the cut's maker does not panic");
            stats.cut_row = deepest.unwrap_or(stats.cut_row);
        }
        symmetric
            .join()
            .expect("the symmetric count does not panic")
    });
    stats.symmetric_seconds = symmetric_seconds;
    stats.dispatches = sums.dispatches.into_inner();
    stats.splits = sums.splits.into_inner();
    if unfinished {
        let why: Vec<String> = shares
            .iter()
            .filter_map(|s| s.failed.as_ref().map(|f| format!("{}: {f}", s.name)))
            .collect();
        return Err(GpuError::Api(format!(
            "every GPU failed before the count was done ({})",
            why.join("; ")
        )));
    }
    let total = sums.found.into_inner();
    let classes = classes_of(plan.as_ref(), shard, total, &symmetric);
    Ok((classes, stats, shares))
}

/// What the GPUs of a shared count add up.
#[derive(Default)]
struct Sums {
    found: AtomicU64,
    dispatches: AtomicU64,
    splits: AtomicU64,
}

/// Where a shared count's nodes come from.
enum Source<'a> {
    /// The nodes of the stage's work, made before the count: the pool hands out runs of them.
    Nodes,
    /// Parts made as the GPUs count: the pool hands out part numbers.
    Parts(&'a MadeParts<'a>),
}

impl Source<'_> {
    /// What the pool hands out: nodes of `work`, or parts.
    fn len(&self, work: &QueensWork) -> usize {
        match self {
            Source::Nodes => work.nodes.len(),
            Source::Parts(made) => made.len(),
        }
    }
}

/// One stage of a cut (the nodes of one kernel) shared among GPUs through a pool.
struct Shared<'a> {
    part: &'a QueensWork,
    deep: bool,
    config: QueensConfig,
    /// The stage's nodes in all.
    total: usize,
    source: &'a Source<'a>,
    pool: &'a NodePool,
    sums: &'a Sums,
}

impl Shared<'_> {
    /// One GPU's share: runs of the pool counted until it is used up, or until the GPU fails, giving back the
    /// runs (or parts) of the count it was in. `report(done)` hears of the nodes it has finished. Returns what
    /// it did.
    fn count(&self, ctx: &GpuContext, kernel: &QueensKernel, report: &dyn Fn(u64)) -> GpuShare {
        let mut share = GpuShare::default();
        while self.pool.begin() {
            let mut taken: Vec<Range<usize>> = Vec::new();
            let began = Instant::now();
            let nodes = &self.part.nodes;
            // The part in hand (parts only) and how far its nodes are handed out.
            let (mut part, mut at) = (Vec::new(), 0);
            let mut more = |most: usize| match self.source {
                Source::Nodes => {
                    let run = self.pool.take(most)?;
                    taken.push(run.clone());
                    Some(Cow::Borrowed(&nodes[run]))
                }
                Source::Parts(made) => {
                    // Up to `most` nodes, from as many parts as it takes (a small cut's parts are small).
                    let mut run = Vec::new();
                    while run.len() < most {
                        if at == part.len() {
                            let Some(index) = self.pool.take(1) else {
                                break;
                            };
                            part = made.take(index.start);
                            taken.push(index);
                            at = 0;
                            continue;
                        }
                        let end = part.len().min(at + most - run.len());
                        run.extend_from_slice(&part[at..end]);
                        at = end;
                    }
                    (!run.is_empty()).then_some(Cow::Owned(run))
                }
            };
            let run = pollster::block_on(kernel.count_on(
                ctx,
                self.part,
                self.deep,
                self.config,
                self.total,
                &mut more,
                &mut |done, _| {
                    report(share.nodes + done);
                    true
                },
            ));
            share.seconds += began.elapsed().as_secs_f64();
            match run {
                Ok(counted) => {
                    self.pool.end(Vec::new());
                    self.sums.found.fetch_add(counted.total, Ordering::Relaxed);
                    let sums = &self.sums;
                    sums.dispatches
                        .fetch_add(counted.dispatches, Ordering::Relaxed);
                    sums.splits.fetch_add(counted.splits, Ordering::Relaxed);
                    share.nodes += taken
                        .iter()
                        .map(|r| match self.source {
                            Source::Nodes => r.len() as u64,
                            Source::Parts(made) => made.nodes_in(r.start) as u64,
                        })
                        .sum::<u64>();
                }
                Err(e) => {
                    self.pool.end(taken);
                    share.failed = Some(e.to_string());
                    break;
                }
            }
        }
        share
    }
}

#[cfg(test)]
mod tests {
    use super::NodePool;

    #[test]
    fn runs_given_back_late_are_still_taken() {
        // One GPU counts nodes 0..4 while the other takes 4..6 and finds the pool empty: it must wait, not
        // leave, and take 0..4 back (in runs of its size) when the first GPU fails.
        let pool = NodePool::new(6);
        assert!(pool.begin());
        assert_eq!(pool.take(4), Some(0..4));
        assert!(pool.begin());
        assert_eq!(pool.take(4), Some(4..6));
        assert_eq!(pool.take(4), None);
        pool.end(Vec::new());
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| {
                assert!(pool.begin());
                let runs = [pool.take(3), pool.take(3), pool.take(3)];
                pool.end(Vec::new());
                (runs, pool.begin())
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            pool.end(std::iter::once(0..4).collect());
            let (runs, more) = waiting.join().unwrap();
            assert_eq!(runs, [Some(0..3), Some(3..4), None]);
            assert!(!more);
        });
        assert!(!pool.unfinished());
    }

    #[test]
    fn nodes_left_when_every_gpu_fails_are_reported() {
        let pool = NodePool::new(3);
        assert!(pool.begin());
        let run = pool.take(2).unwrap();
        pool.end(vec![run]);
        assert!(pool.unfinished());
    }
}
