//! N-Queens on the GPU: the host cuts the constellations' searches into nodes
//! ([`crate::queens::constellation`]); the WGSL kernel `shaders/queens.wgsl` runs persistent lanes that take
//! nodes one after another and park their stacks between dispatches (in the run's tail, busy lanes give their
//! lowest frames to idle ones as new nodes: the shader's `split`); the host adds the lanes' 64-bit weighted
//! counts into the total, and the classes follow from it and the symmetric solutions credited to the
//! constellations counted ([`crate::queens::constellation::Plan::symmetric`]), which the host works out meanwhile. The steps
//! per dispatch follow its measured time, so each stays short (a browser kills a long one) and the caller sees
//! progress between them and may cancel.

mod dispatch;

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use web_time::{Duration, Instant};

use super::pipeline::{
    Binding, PipelineJob, PipelineMaker, buffer_layout, made_and_checked, trusted_module,
};
use super::queens_stream::Making;
use super::queens_work::{DEEP, SHALLOW, SHALLOW_FRAMES};
pub use super::queens_work::{QueensNode, QueensWork};
use super::{GpuContext, GpuError};
use crate::queens::constellation::{Plan, Shard};
use crate::queens::counter::Classes;
use crate::queens::mirror;
use crate::queens::symmetric;

/// Mirrors `Params` in `queens.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct QueensParams {
    /// Board size.
    pub n: u32,
    /// Nodes in the cut.
    pub nodes: u32,
    /// Search steps per lane in one dispatch.
    pub budget: u32,
    /// Lanes (invocations that do work).
    pub lanes: u32,
}

/// Frames a lane's parked search has room for (the deep kernel's depth).
const MAX_FRAMES: usize = DEEP as usize;

/// Mirrors `Lane` in `queens.wgsl`: one lane's parked search (only the GPU reads it; the host sizes it).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LaneState {
    /// Frames parked; the last of them is the lane's top frame (0: the lane holds no node).
    pub top: u32,
    /// The constellation of the lane's node.
    pub constellation: u32,
    /// Padding: the frames are 16-byte vectors.
    pub pad: [u32; 2],
    /// (open columns, left, right, untried candidates) of each row on the stack.
    pub frames: [[u32; 4]; MAX_FRAMES],
}

/// Mirrors `Control` in `queens.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct QueensControl {
    /// The next node to hand out.
    pub next: u32,
    /// Lanes still searching at the end of the last dispatch (each holds one unfinished node).
    pub busy: u32,
    /// Nodes the last `split` gave away (may pass the room for them).
    pub donated: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// Invocations per workgroup (`@workgroup_size` in the shader).
const GROUP: u32 = 32;
/// A dispatch aims at this long: far below the time a browser allows, long enough that submitting costs little.
const TARGET: Duration = Duration::from_millis(40);

/// Tuning of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueensConfig {
    /// Nodes to aim for in the cut (`None`: chosen from N and the device).
    pub nodes: Option<usize>,
    /// Lanes (searching invocations; `None`: chosen from the device).
    pub lanes: Option<u32>,
    /// Runs the deep-stack kernel even where the shallow one would do (tests and measurements).
    pub deep: bool,
    /// Never lets busy lanes give work to idle ones in the run's tail (measurements).
    pub no_split: bool,
    /// Counts a whole board on the mirror split instead of its constellations (measurements).
    pub mirror: bool,
    /// Reads a constellation's row masks from its table at every step instead of working them out from its
    /// border queens (the kernel before; tests and measurements).
    pub table_masks: bool,
    /// Nodes per part of a constellations' cut made as the GPU counts (`None`: [`PART_NODES`]; tests make it
    /// small to have many parts).
    pub part_nodes: Option<usize>,
}

/// Nodes per part of a constellations' cut made as the GPU counts, natively: 8M nodes are 128 MB, and at most
/// three parts are held at once (one counted, one made, one waiting between them).
pub const PART_NODES: usize = 1 << 23;

/// What [`QueensKernel::count_nodes`] counted and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodesCounted {
    /// The weighted solutions below the nodes.
    pub total: u64,
    /// Counting dispatches submitted.
    pub dispatches: u64,
    /// Times busy lanes gave work to idle ones.
    pub splits: u64,
}

/// What a GPU count did besides counting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueensStats {
    /// Nodes in the cut.
    pub nodes: u64,
    /// Constellations (orbits) counted.
    pub constellations: u64,
    /// The deepest row of the cut's nodes ([`QueensWork::row`]).
    pub cut_row: u32,
    /// Dispatches submitted.
    pub dispatches: u64,
    /// Times the busy lanes gave work to idle ones in the run's tail (`split` in the shader).
    pub splits: u64,
    /// Host time spent cutting the search into nodes before the GPU starts (natively, a constellations' cut is
    /// only planned then: its nodes are made part by part during the count).
    pub cut_seconds: f64,
    /// Host time spent counting the symmetric solutions (alongside the GPU natively).
    pub symmetric_seconds: f64,
}

/// The compiled kernel.
pub struct QueensKernel {
    layout: wgpu::BindGroupLayout,
    /// `[masks][deep]`: stacks of [`SHALLOW`] levels for cuts that leave fewer rows than that (a node r
    /// rows from the bottom needs r + 1 levels: a dummy, a sentinel and at most r − 1 frames below the top),
    /// of [`DEEP`] levels otherwise; without row masks for the mirror split, with them for constellations
    /// (read from their table at each step, or worked out from the border queens: [`Masks`]).
    pipelines: [[wgpu::ComputePipeline; 2]; 3],
    /// `split`: busy lanes give their lowest frame's candidates away as nodes.
    split: wgpu::ComputePipeline,
}

/// How a kernel gets each row's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Masks {
    /// No row masks: the mirror split.
    None = 0,
    /// Each step reads its child's row mask from the constellation's table.
    Table = 1,
    /// Each step works its child's row mask out from the constellation's border queens (the shader's
    /// `candidates`), which the host writes in place of its table ([`super::queens_work::computed_tables`]).
    Computed = 2,
}

impl Masks {
    /// The masks a count of `work` uses.
    fn of(work: &QueensWork, config: QueensConfig) -> Self {
        match (work.row_masks, config.table_masks) {
            (false, _) => Self::None,
            (true, false) => Self::Computed,
            (true, true) => Self::Table,
        }
    }
}

impl QueensKernel {
    /// Compiles the shader; validation errors come back as [`GpuError::Api`].
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let text = include_str!("../../shaders/queens.wgsl");
        let line = format!("const DEPTH: u32 = {SHALLOW}u;");
        let masks_line = "const ROW_MASKS: bool = true;";
        let computed_line = "const COMPUTED: bool = false;";
        assert!(
            text.contains(&line) && text.contains(masks_line) && text.contains(computed_line),
            "the shader declares its stack depth and row masks"
        );
        let module = |depth: u32, masks: Masks| {
            let row_masks = masks != Masks::None;
            let computed = masks == Masks::Computed;
            let source = wgpu::ShaderModuleDescriptor {
                label: Some("queens"),
                source: wgpu::ShaderSource::Wgsl(
                    text.replace(&line, &format!("const DEPTH: u32 = {depth}u;"))
                        .replace(masks_line, &format!("const ROW_MASKS: bool = {row_masks};"))
                        .replace(
                            computed_line,
                            &format!("const COMPUTED: bool = {computed};"),
                        )
                        .into(),
                ),
            };
            // SAFETY: every index in the shader is in bounds by construction. A lane's stack slots are
            // (level × 32 + its index in the group) with level < DEPTH: `count_nodes` runs a node on the
            // shallow kernel only when its stack fits there, a dummy, a sentinel and at most one frame a row
            // from the node's to the one before the last that can leave a candidate untried
            // (`QueensWork::frames_below`: a row limited to one column never does; a node r rows from the
            // bottom pushes at most r − 1, which the deep kernel holds for every N up to 32); a step reads
            // the level below its top, at least the dummy;
            // a parked stack comes back with the same frames. Lanes, nodes and counts are indexed below
            // `params.lanes` and `params.nodes`, which the host sets to the sizes of the buffers it binds;
            // tables at a node's table (32 words, each below the table count) plus a row masked to 0..=31, or
            // (computed masks) plus 1 to 5.
            // Every loop ends: a lane steps at most `budget` times (plus one pass of sixteen) and the
            // parking loops run to its stack's top. Dropping wgpu's injected bounds checks and loop counters
            // matters here: they sit in the innermost loop (and the stack indices go unmasked: masking cost 9%).
            unsafe { trusted_module(ctx, source) }
        };
        use Binding::{Read, ReadWrite, Uniform};
        let layout = buffer_layout(
            ctx,
            "queens",
            &[
                Uniform, Read, ReadWrite, ReadWrite, ReadWrite, Read, ReadWrite,
            ],
        );
        let maker = PipelineMaker::new(ctx, "queens", &layout);
        // The six counting kernels (two depths, three kinds of row mask) and the split, made at once.
        let variants = [Masks::None, Masks::Table, Masks::Computed]
            .into_iter()
            .flat_map(|masks| [(SHALLOW, masks, "count"), (DEEP, masks, "count")])
            .chain([(SHALLOW, Masks::None, "split")]);
        let jobs = variants
            .map(
                |(depth, masks, entry)| -> PipelineJob<wgpu::ComputePipeline> {
                    let (maker, module) = (&maker, &module);
                    Box::new(move || maker.pipeline(&module(depth, masks), entry))
                },
            )
            .collect();
        let mut made = made_and_checked(ctx, scope, "the N-Queens kernel", jobs).await?;
        let mut next = || made.next().expect("a pipeline for each variant");
        let pipelines = [(); 3].map(|_| [next(), next()]);
        let kernel = Self {
            layout,
            pipelines,
            split: next(),
        };
        // Drivers may finish compiling on the first dispatch: a small board now keeps that out of the first count.
        kernel
            .count(
                ctx,
                8,
                Shard::WHOLE,
                QueensConfig::default(),
                &mut |_, _| true,
            )
            .await?;
        Ok(kernel)
    }

    /// The row to cut an `n`-board at (`count(row)` being the nodes there, from `first` on): nodes enough to
    /// fill the device many times over (subtrees differ wildly in size), as many as one storage binding holds
    /// at most. `shallow_first`: go deeper until the shallow kernel's stacks hold the nodes (the mirror split,
    /// whose rows widen slowly); else take the first row with enough nodes (constellations, whose rows widen
    /// by a factor of tens, and whose nodes too deep for the shallow stacks `count` counts cut deeper).
    pub(crate) fn cut(
        &self,
        ctx: &GpuContext,
        n: u32,
        config: QueensConfig,
        first: u32,
        shallow_first: bool,
        count: &dyn Fn(u32) -> usize,
    ) -> (u32, usize) {
        let by_memory = max_nodes(ctx);
        let wanted = config
            .nodes
            .unwrap_or(match n {
                ..=14 => 1 << 14,
                15..=17 => 1 << 17,
                18..=19 => 1 << 20,
                _ => 1 << 22,
            })
            .min(by_memory);
        // The shallow kernel's stacks need the cut within SHALLOW − 1 rows of the bottom.
        let shallowest = if shallow_first {
            n.saturating_sub(SHALLOW - 1)
        } else {
            0
        };
        let deepest = n.saturating_sub(2).max(first);
        // Each row's count costs a walk of the cut: stop at the first row within 4× of the wish, so the walks
        // add up to little more than the final cut.
        let mut row = first;
        let mut nodes = count(row);
        while row < deepest && (nodes < wanted / 4 || row < shallowest) {
            let next = count(row + 1);
            if next > by_memory {
                break;
            }
            (row, nodes) = (row + 1, next);
        }
        (row, nodes)
    }

    /// The cut a count hands the GPU and the stats of making it: the mirror split (`plan` none), or the shard's
    /// constellations of `plan`.
    pub(crate) fn prepare(
        &self,
        ctx: &GpuContext,
        n: u32,
        plan: Option<&Plan>,
        shard: Shard,
        config: QueensConfig,
    ) -> (QueensWork, QueensStats) {
        let started = Instant::now();
        let (work, constellations) = match plan {
            None => {
                let (row, _) =
                    self.cut(ctx, n, config, 2, true, &|row| mirror::count_nodes(n, row));
                (QueensWork::mirror(n, row), 0)
            }
            Some(plan) => {
                let cut_within = |frames: u32| {
                    self.cut(ctx, n, config, 1, false, &|row| {
                        QueensWork::count_within(plan, row, shard, frames)
                    })
                };
                let mut frames = SHALLOW_FRAMES;
                let (mut row, nodes) = cut_within(frames);
                if nodes > max_nodes(ctx) {
                    // The shallow stacks need more nodes than a binding holds (a shard of N=24 in 128 needs
                    // 455M): the nodes are cut as they come, and the deep kernel takes those that need it.
                    frames = DEEP - 2;
                    (row, _) = cut_within(frames);
                }
                let orbits = plan.held(shard).count();
                let work = QueensWork::constellations_within(plan, row, shard, frames);
                (work, orbits as u64)
            }
        };
        let stats = QueensStats {
            nodes: work.nodes.len() as u64,
            constellations,
            cut_row: work.row,
            cut_seconds: started.elapsed().as_secs_f64(),
            ..QueensStats::default()
        };
        (work, stats)
    }

    /// Counts the solutions of an `n`-board (1..=32), or of the shard's constellations of it, in classes. The
    /// whole board is counted on its constellations (or the mirror split, `config.mirror`) while the host counts
    /// the symmetric solutions; a shard on its constellations while the host credits the symmetric solutions to
    /// them (so the shards' classes add up). Natively the host works beside the GPU; in a
    /// browser [`QueensKernel::count_total`] lets the caller hand it to a worker instead. `progress(done,
    /// total)` (nodes) is called after each dispatch; returning false cancels.
    pub async fn count(
        &self,
        ctx: &GpuContext,
        n: u32,
        shard: Shard,
        config: QueensConfig,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(Classes, QueensStats), GpuError> {
        if n < 4 && shard == Shard::WHOLE {
            // No GPU needed: N = 1 is answered by `Classes::tally`, 2 and 3 have no solution.
            let _ = progress(0, 0);
            return Ok((Classes::default(), QueensStats::default()));
        }
        let plan =
            (shard != Shard::WHOLE || !config.mirror).then(|| std::sync::Arc::new(Plan::new(n)));
        let for_host = plan.clone();
        let symmetric = move || {
            let started = Instant::now();
            let counts = symmetric_counts(n, for_host.as_deref(), shard);
            (counts, started.elapsed().as_secs_f64())
        };
        #[cfg(not(target_arch = "wasm32"))]
        let beside = std::thread::spawn(symmetric);
        let (total, mut stats) = match plan.clone() {
            // Natively a constellations' cut is made part by part as the GPU counts (memory bounded whatever
            // the shard's size, every node on the shallow kernel); the deep kernel is asked for by tests alone.
            #[cfg(not(target_arch = "wasm32"))]
            Some(plan) if !config.deep => {
                self.count_streamed(ctx, plan, shard, config, Making::Ahead, progress)
                    .await?
            }
            _ => {
                let (work, mut stats) = self.prepare(ctx, n, plan.as_deref(), shard, config);
                let counted = self.count_nodes(ctx, &work, config, progress).await?;
                stats.dispatches = counted.dispatches;
                stats.splits = counted.splits;
                (counted.total, stats)
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        let (counts, seconds) = beside.join().expect("the symmetric count does not panic");
        #[cfg(target_arch = "wasm32")]
        let (counts, seconds) = symmetric();
        stats.symmetric_seconds = seconds;
        Ok((classes_of(plan.as_deref(), shard, total, &counts), stats))
    }

    /// Counts every solution of an `n`-board (1..=32) on its constellations (or the mirror split,
    /// `config.mirror`), the cut made on this thread part by part as the lanes take it: the browser's count, a
    /// page having no thread to make parts ahead of the GPU (at N=21 the whole cut would be 22M nodes, 357 MB);
    /// see [`QueensKernel::count`].
    pub async fn count_total(
        &self,
        ctx: &GpuContext,
        n: u32,
        config: QueensConfig,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(u64, QueensStats), GpuError> {
        if n < 4 {
            let _ = progress(0, 0);
            return Ok((u64::from(n == 1), QueensStats::default()));
        }
        if !config.mirror && !config.deep {
            let plan = std::sync::Arc::new(Plan::new(n));
            return self
                .count_streamed(ctx, plan, Shard::WHOLE, config, Making::OnDemand, progress)
                .await;
        }
        let plan = (!config.mirror).then(|| Plan::new(n));
        let (work, mut stats) = self.prepare(ctx, n, plan.as_ref(), Shard::WHOLE, config);
        let counted = self.count_nodes(ctx, &work, config, progress).await?;
        stats.dispatches = counted.dispatches;
        stats.splits = counted.splits;
        Ok((counted.total, stats))
    }

    /// Counts the solutions below a cut's nodes: their weighted sum, the dispatches it took and the times the
    /// busy lanes gave work to idle ones once the cut's nodes were all handed out (the shader's `split`). Nodes
    /// whose stacks fit the shallow kernel's levels run there, the others on the deep kernel after them.
    pub async fn count_nodes(
        &self,
        ctx: &GpuContext,
        work: &QueensWork,
        config: QueensConfig,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<NodesCounted, GpuError> {
        let all = work.nodes.len() as u64;
        let mut before = 0;
        let mut counted = NodesCounted::default();
        for (part, deep) in by_stack(work, config) {
            let mut nodes = Some(&part.nodes[..]);
            let part_counted = self
                .count_on(
                    ctx,
                    &part,
                    deep,
                    config,
                    part.nodes.len(),
                    &mut |_| nodes.take().map(Cow::Borrowed),
                    &mut |done, _| progress(before + done, all),
                )
                .await?;
            before += part.nodes.len() as u64;
            counted.total += part_counted.total;
            counted.dispatches += part_counted.dispatches;
            counted.splits += part_counted.splits;
        }
        Ok(counted)
    }

    /// [`QueensKernel::count`], blocking (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn count_blocking(
        &self,
        ctx: &GpuContext,
        n: u32,
        shard: Shard,
        config: QueensConfig,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(Classes, QueensStats), GpuError> {
        pollster::block_on(self.count(ctx, n, shard, config, progress))
    }
}

/// The most nodes one storage binding of the device holds.
fn max_nodes(ctx: &GpuContext) -> usize {
    (ctx.limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size)
        / size_of::<QueensNode>() as u64)
        .min(u64::from(u32::MAX / GROUP)) as usize
}

/// A cut's nodes by the kernel whose stacks hold them, each part with whether it needs the deep one: nodes
/// whose stacks fit the shallow kernel's levels run there, the others on the deep kernel after them. That is
/// every node of the mirror split and of a constellations' cut ([`QueensWork::constellations`] cuts deeper
/// where a node would not fit); the deep kernel runs nodes put together by hand, or every node where the
/// configuration asks for it. A cut of one kind is borrowed whole.
pub(crate) fn by_stack(
    work: &QueensWork,
    config: QueensConfig,
) -> Vec<(Cow<'_, QueensWork>, bool)> {
    let shallow_rows = work.rows_within(SHALLOW_FRAMES);
    let fits = |node: &QueensNode| {
        let row = work.n - node.open.count_ones();
        shallow_rows[node.constellation as usize] >> row & 1 == 1
    };
    let deep_nodes = if config.deep {
        work.nodes.len()
    } else {
        work.nodes.iter().filter(|node| !fits(node)).count()
    };
    if deep_nodes == 0 || deep_nodes == work.nodes.len() {
        return vec![(Cow::Borrowed(work), deep_nodes > 0)];
    }
    vec![
        (Cow::Owned(work.only(fits)), false),
        (Cow::Owned(work.only(|node| !fits(node))), true),
    ]
}

/// The symmetric solutions a count's classes need: the board's two counts for a whole board (`plan` none), or
/// those of each of the shard's constellations of `plan` ([`Plan::symmetric_of`]).
pub(crate) fn symmetric_counts(n: u32, plan: Option<&Plan>, shard: Shard) -> Vec<(u64, u64)> {
    match plan {
        None => vec![symmetric::fixed_counts(n)],
        Some(plan) => plan.symmetric_of(shard),
    }
}

/// The classes of a count (n ≥ 4) from its total and [`symmetric_counts`].
pub(crate) fn classes_of(
    plan: Option<&Plan>,
    shard: Shard,
    total: u64,
    counts: &[(u64, u64)],
) -> Classes {
    match plan {
        None => symmetric::classes_from_counts(total, counts[0].0, counts[0].1),
        Some(plan) => plan.classes(shard, total, counts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_shader() {
        // WGSL: Params, Control and Node are four u32 (16 bytes); Lane is two u32, two of padding and
        // array<vec4<u32>, 32> (16 + 512 bytes).
        assert_eq!(size_of::<QueensParams>(), 16);
        assert_eq!(size_of::<QueensControl>(), 16);
        assert_eq!(size_of::<QueensNode>(), 16);
        assert_eq!(size_of::<LaneState>(), 528);
    }
}
