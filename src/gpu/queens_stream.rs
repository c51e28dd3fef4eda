//! A constellations' count whose cut is made part by part while the GPU counts (native only): a host thread
//! makes each part's nodes on every core and hands it over a channel of one, the GPU's lanes take runs of the
//! part in hand, and at most three parts live at once. So a shard's memory is bounded whatever its size (a
//! shard of N=23 in 64 held 1.3 GB of nodes at once; one of N=24 in 128 would have needed 455M nodes, more than
//! a storage binding holds, and went to the deep kernel), and the GPU starts as soon as the first part is made.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::mpsc;

use web_time::Instant;

use super::queens::{PART_NODES, QueensConfig, QueensKernel, QueensStats, QueensWork};
use super::queens_work::{CutPlan, QueensNode, SHALLOW_FRAMES};
use super::{GpuContext, GpuError};
use crate::queens::constellation::{Plan, Shard};

impl QueensKernel {
    /// The weighted solutions below the shard's constellations of `plan`, cut for the shallow kernel and made
    /// part by part (see the module's comment), and the stats; `progress` as for [`QueensKernel::count`].
    pub(crate) async fn count_streamed(
        &self,
        ctx: &GpuContext,
        plan: Arc<Plan>,
        shard: Shard,
        config: QueensConfig,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(u64, QueensStats), GpuError> {
        let started = Instant::now();
        let n = plan.n;
        // The plan of the last row the choice of row looked at, kept: usually the row chosen.
        let last = RefCell::new(None);
        let (row, _) = self.cut(ctx, n, config, 1, false, &|row| {
            let cut = CutPlan::new(&plan, row, shard, SHALLOW_FRAMES);
            let nodes = cut.nodes();
            last.replace(Some((row, cut)));
            nodes
        });
        let cut = match last.into_inner() {
            Some((planned, cut)) if planned == row => cut,
            _ => CutPlan::new(&plan, row, shard, SHALLOW_FRAMES),
        };
        let total = cut.nodes();
        let parts = cut.parts(config.part_nodes.unwrap_or(PART_NODES).max(1));
        let mut stats = QueensStats {
            nodes: total as u64,
            constellations: plan.held(shard).count() as u64,
            cut_row: row,
            cut_seconds: started.elapsed().as_secs_f64(),
            ..QueensStats::default()
        };
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
        let (mut part, mut at) = (Vec::new(), 0);
        let mut more = |most: usize| {
            while at == part.len() {
                part = receive.recv().ok()?;
                at = 0;
            }
            let end = part.len().min(at + most);
            let run = part[at..end].to_vec();
            at = end;
            Some(Cow::Owned(run))
        };
        let counted = self
            .count_on(ctx, &work, false, config, total, &mut more, progress)
            .await;
        // The maker stops at its next part once the receiver is gone.
        drop(receive);
        let deepest = maker.join().expect("the cut's maker does not panic");
        let counted = counted?;
        stats.cut_row = deepest.unwrap_or(row);
        stats.dispatches = counted.dispatches;
        stats.splits = counted.splits;
        Ok((counted.total, stats))
    }
}
