//! N-Queens on several GPUs of one host (native only): one cut, its nodes dealt out in chunks to a thread per
//! GPU that takes the next chunk whenever it is free, so a slower or busier GPU simply takes fewer. A GPU that
//! fails puts its chunk back for the others and stops; the count fails only when every GPU has.

use std::sync::atomic::{AtomicU64, Ordering};

use web_time::Instant;

use super::queens::{
    QueensConfig, QueensKernel, QueensStats, QueensWork, classes_of, symmetric_counts,
};
use super::{GpuContext, GpuError};
use crate::queens::constellation::Plan;
use crate::queens::counter::Classes;
use crate::shard::Shard;

/// The most chunks per GPU: enough that the last chunks to finish are short beside the whole run.
const CHUNKS_PER_GPU: usize = 32;
/// The fewest nodes per lane in a chunk.
const NODES_PER_LANE: usize = 8;

/// The chunks not yet counted, shared by the GPU threads. A thread leaves only when none is waiting *and* none is
/// being counted: a chunk in flight may still come back from a GPU that fails, and someone must be there to take
/// it.
struct ChunkQueue {
    state: std::sync::Mutex<(Vec<usize>, usize)>,
    changed: std::sync::Condvar,
}

impl ChunkQueue {
    /// A queue of chunks `0..count`, handed out from the first.
    fn new(count: usize) -> Self {
        Self {
            state: std::sync::Mutex::new(((0..count).rev().collect(), 0)),
            changed: std::sync::Condvar::new(),
        }
    }

    /// The next chunk to count, waiting while others are in flight; `None` once every chunk is done.
    fn take(&self) -> Option<usize> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(index) = state.0.pop() {
                state.1 += 1;
                return Some(index);
            }
            if state.1 == 0 {
                return None;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A chunk taken is finished (`counted`) or goes back for another GPU.
    fn settle(&self, index: usize, counted: bool) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.1 -= 1;
        if !counted {
            state.0.push(index);
        }
        self.changed.notify_all();
    }

    /// Whether chunks are left over (every GPU failed).
    fn unfinished(self) -> bool {
        !self
            .state
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .is_empty()
    }
}

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
/// is cut on the mirror split, a shard on its constellations, as on one GPU. `progress(done, total)` (nodes)
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
    // The cut aims at the wish of one GPU times their number (the node buffers are per chunk).
    let wide = QueensConfig {
        nodes: config.nodes.map(|w| w * gpus.len()),
        ..config
    };
    let plan = (shard != Shard::WHOLE || config.constellations).then(|| Plan::new(n));
    let (work, mut stats) = first_kernel.prepare(first_ctx, n, plan.as_ref(), shard, wide);
    // A chunk runs until its slowest node is done, its other lanes idling meanwhile: each needs many nodes
    // per lane (a device runs about 2^17 lanes at once), and takes every k-th node of the cut so that its
    // nodes are a fair sample of the cut's sizes (neighbouring nodes share a top and are alike).
    let lanes = if first_ctx.info.device_type == wgpu::DeviceType::Cpu {
        1 << 10
    } else {
        1 << 17
    };
    let count = (work.nodes.len() / (NODES_PER_LANE * lanes))
        .clamp(gpus.len(), CHUNKS_PER_GPU * gpus.len());
    let chunks: Vec<QueensWork> = (0..count)
        .map(|k| QueensWork {
            nodes: work.nodes.iter().skip(k).step_by(count).copied().collect(),
            tables: work.tables.clone(),
            ..work
        })
        .collect();
    let pending = ChunkQueue::new(chunks.len());
    let total_nodes = work.nodes.len() as u64;
    let done = AtomicU64::new(0);
    let found = AtomicU64::new(0);
    let dispatches = AtomicU64::new(0);
    let splits = AtomicU64::new(0);
    let (shares, (symmetric, symmetric_seconds)) = std::thread::scope(|scope| {
        let symmetric = scope.spawn(|| {
            let started = Instant::now();
            let counts = symmetric_counts(n, plan.as_ref());
            (counts, started.elapsed().as_secs_f64())
        });
        let threads: Vec<_> = gpus
            .iter()
            .map(|&(ctx, kernel)| {
                let (chunks, pending) = (&chunks, &pending);
                let (done, found, dispatches, splits) = (&done, &found, &dispatches, &splits);
                scope.spawn(move || {
                    let mut share = GpuShare {
                        name: ctx.describe(),
                        ..GpuShare::default()
                    };
                    let began = Instant::now();
                    while let Some(index) = pending.take() {
                        let part = &chunks[index];
                        let run = pollster::block_on(kernel.count_nodes(
                            ctx,
                            part,
                            config,
                            &mut |_, _| true,
                        ));
                        pending.settle(index, run.is_ok());
                        match run {
                            Ok(counted) => {
                                found.fetch_add(counted.total, Ordering::Relaxed);
                                dispatches.fetch_add(counted.dispatches, Ordering::Relaxed);
                                splits.fetch_add(counted.splits, Ordering::Relaxed);
                                share.nodes += part.nodes.len() as u64;
                                let now =
                                    done.fetch_add(part.nodes.len() as u64, Ordering::Relaxed);
                                progress(now + part.nodes.len() as u64, total_nodes);
                            }
                            Err(e) => {
                                share.failed = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    share.seconds = began.elapsed().as_secs_f64();
                    share
                })
            })
            .collect();
        let shares: Vec<GpuShare> = threads
            .into_iter()
            .map(|t| t.join().expect("a GPU thread does not panic"))
            .collect();
        (
            shares,
            symmetric
                .join()
                .expect("the symmetric count does not panic"),
        )
    });
    stats.symmetric_seconds = symmetric_seconds;
    stats.dispatches = dispatches.into_inner();
    stats.splits = splits.into_inner();
    if pending.unfinished() {
        let why: Vec<String> = shares
            .iter()
            .filter_map(|s| s.failed.as_ref().map(|f| format!("{}: {f}", s.name)))
            .collect();
        return Err(GpuError::Api(format!(
            "every GPU failed before the count was done ({})",
            why.join("; ")
        )));
    }
    let total = found.into_inner();
    let classes = classes_of(plan.as_ref(), shard, total, &symmetric);
    Ok((classes, stats, shares))
}

#[cfg(test)]
mod tests {
    use super::ChunkQueue;

    #[test]
    fn a_chunk_put_back_late_is_still_taken() {
        // One GPU holds chunk 0 while the other counts chunk 1 and asks for more: it must wait, not leave,
        // and take chunk 0 when the first GPU fails and puts it back.
        let queue = ChunkQueue::new(2);
        assert_eq!(queue.take(), Some(0));
        assert_eq!(queue.take(), Some(1));
        queue.settle(1, true);
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| {
                let taken = queue.take();
                if let Some(index) = taken {
                    queue.settle(index, true);
                }
                (taken, queue.take())
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            queue.settle(0, false);
            assert_eq!(waiting.join().unwrap(), (Some(0), None));
        });
        assert!(!queue.unfinished());
    }

    #[test]
    fn chunks_left_when_every_gpu_fails_are_reported() {
        let queue = ChunkQueue::new(3);
        let index = queue.take().unwrap();
        queue.settle(index, false);
        assert!(queue.unfinished());
    }
}
