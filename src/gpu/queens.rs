//! N-Queens on the GPU: the host cuts the constellations' searches into nodes
//! ([`crate::queens::constellation`]); the WGSL kernel `shaders/queens.wgsl` runs persistent lanes that take
//! nodes one after another and park their stacks between dispatches (in the run's tail, busy lanes give their
//! lowest frames to idle ones as new nodes: the shader's `split`); the host adds the lanes' 64-bit weighted
//! counts into the total, and the classes follow from it and the symmetric solutions credited to the
//! constellations counted ([`crate::queens::constellation::Plan::symmetric`]), which the host works out meanwhile. The steps
//! per dispatch follow its measured time, so each stays short (a browser kills a long one) and the caller sees
//! progress between them and may cancel.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use web_time::{Duration, Instant};
use wgpu::util::DeviceExt;

use super::pipeline::{Binding, PipelineMaker, bind_buffers, buffer_layout, trusted_module};
use super::queens_work::{DEEP, SHALLOW, SHALLOW_FRAMES, computed_tables};
pub use super::queens_work::{QueensNode, QueensWork};
use super::{GpuContext, GpuError, readback};
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

/// The largest board [`QueensKernel::count_total`] counts on its constellations. Their cut is the smaller one up
/// to N=20 (1.6M nodes against the mirror split's 3.0M) and their steps are faster (N=20 on an H100: 2.5 s
/// against 3.2 s); at N=21 their cut is 22M nodes (357 MB) against 4.5M, too much to make before the count.
pub const TOTAL_ON_CONSTELLATIONS_UP_TO: u32 = 20;

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
    /// Counts a whole board on the mirror split instead of its constellations (measurements; the browser's
    /// [`QueensKernel::count_total`] does past [`TOTAL_ON_CONSTELLATIONS_UP_TO`]).
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
    /// `candidates`), which the host writes in place of its table ([`computed_tables`]).
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
        let pipelines = PipelineMaker::new(ctx, "queens", &layout);
        let pipeline = |depth, masks| pipelines.pipeline(&module(depth, masks), "count");
        let split = pipelines.pipeline(&module(SHALLOW, Masks::None), "split");
        let pipelines = [Masks::None, Masks::Table, Masks::Computed]
            .map(|masks| [pipeline(SHALLOW, masks), pipeline(DEEP, masks)]);
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "the N-Queens kernel did not compile: {error}"
            )));
        }
        let kernel = Self {
            layout,
            pipelines,
            split,
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
                self.count_streamed(ctx, plan, shard, config, progress)
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

    /// Counts every solution of an `n`-board (1..=32), its cut made before the count (the browser's: it has no
    /// thread to make a cut part by part while the GPU counts): on its constellations up to
    /// [`TOTAL_ON_CONSTELLATIONS_UP_TO`], on the mirror split past it or with `config.mirror`; see
    /// [`QueensKernel::count`].
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
        let plan = (n <= TOTAL_ON_CONSTELLATIONS_UP_TO && !config.mirror).then(|| Plan::new(n));
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

    /// Counts nodes of `work`'s board and tables on one kernel, the deep one or the shallow one, whose stacks
    /// hold every node it is given (the caller sees to it): `more(most)` hands it runs of nodes, the first as
    /// the lanes' first queue (of any length), each later one, of at most `most`, whenever the queue runs out;
    /// `None` once there are no more. `total` is how many it may hand out in all (it sizes the lanes; a pool
    /// shared with other GPUs hands fewer). Once `more` has none left, busy lanes give work to idle ones.
    /// `progress(done, total)` counts the nodes handed out and finished.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn count_on<'w>(
        &self,
        ctx: &GpuContext,
        work: &QueensWork,
        deep: bool,
        config: QueensConfig,
        total: usize,
        more: &mut dyn FnMut(usize) -> Option<Cow<'w, [QueensNode]>>,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<NodesCounted, GpuError> {
        let n = work.n;
        let lanes = config.lanes;
        let masks = Masks::of(work, config);
        let pipeline = &self.pipelines[masks as usize][usize::from(deep)];
        let total = total.min(u32::MAX as usize) as u32;
        if total == 0 {
            return Ok(NodesCounted::default());
        }
        let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
        let binding = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        // Several times what a large GPU runs at once: an H100 runs 25,344 lanes (132 cores × 6 groups; its
        // Vulkan driver gives each core 48 KiB of workgroup memory), and the groups beyond them run as later
        // waves of each dispatch, keeping the cores busy while a wave drains. Measured there at N=20: one
        // wave 22% slower than two (a variant of this kernel); 101k to 203k lanes within 1% of each other. A CPU adapter has few
        // cores.
        let lanes = u64::from(
            lanes
                .unwrap_or(if software { 1 << 10 } else { 118_272 })
                .max(1),
        )
        .min(binding / size_of::<LaneState>() as u64)
        // A small cut gets lanes to spare for what busy lanes give away in its tail, not the whole device's.
        .min(u64::from(total) * 8) as u32;
        // lavapipe stops an invocation's loops after 65,535 iterations in all; a lane loops at most `budget`
        // times (each pass taking a node or sixteen steps), so stay well below.
        let max_budget = if software { 1 << 14 } else { 1 << 20 };
        // Two queues of given-away nodes (or runs of `more`), each the next one's source while the other is
        // refilled: room for four nodes a lane (a split that finds no room leaves the lanes as they were).
        let room = lanes as usize * 4;
        // The first queue: eight nodes a lane, or everything a caller with one run hands over.
        let packed = match more(lanes as usize * 8) {
            Some(run) if !run.is_empty() => run,
            _ => return Ok(NodesCounted::default()),
        };
        let device = &ctx.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let storage = |label, size: u64, extra| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | extra,
                mapped_at_creation: false,
            })
        };
        let readable = |label, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("queens params"),
            size: size_of::<QueensParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let nodes = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("queens nodes"),
            contents: bytemuck::cast_slice(&packed),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let tables = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("queens tables"),
            contents: bytemuck::cast_slice(&match masks {
                Masks::Computed => Cow::Owned(computed_tables(n, &work.tables)),
                _ => Cow::Borrowed(&work.tables[..]),
            }),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // Fresh buffers are zeroed: every lane starts idle with zero counts.
        let lane_states = storage(
            "queens lanes",
            u64::from(lanes) * size_of::<LaneState>() as u64,
            wgpu::BufferUsages::empty(),
        );
        let control = storage(
            "queens control",
            size_of::<QueensControl>() as u64,
            wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        );
        let given_size = room as u64 * size_of::<QueensNode>() as u64;
        let given = [
            storage("queens given a", given_size, wgpu::BufferUsages::COPY_DST),
            storage("queens given b", given_size, wgpu::BufferUsages::COPY_DST),
        ];
        let counts_size = u64::from(lanes) * 2 * 4;
        let counts = storage("queens counts", counts_size, wgpu::BufferUsages::COPY_SRC);
        let control_read = readable("queens control read", size_of::<QueensControl>() as u64);
        let counts_read = readable("queens counts read", counts_size);
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "not enough GPU memory for {} nodes and {lanes} lanes: {error}",
                packed.len()
            )));
        }
        // The queue the lanes take nodes from and where a split puts what it gives away: the cut and the first
        // given queue, then the given queues in turn (a split runs only once its queue is empty).
        let bind_groups = [
            [&nodes, &given[0]],
            [&given[0], &given[1]],
            [&given[1], &given[0]],
        ]
        .map(|[queue, to]| {
            let buffers = [&params, queue, &lane_states, &control, &counts, &tables, to];
            bind_buffers(ctx, "queens", &self.layout, &buffers)
        });
        let mut source = 0;
        let mut queued = packed.len() as u32;
        // Whether the queue in use holds nodes of the cut (not parts given away), and the cut's nodes in the
        // queues before it: every one handed out.
        let (mut from_cut, mut cut_before) = (true, 0u32);
        // Start small: the first dispatch measures how fast lanes step on this device and board.
        let mut budget = 256u32;
        let mut counted = NodesCounted::default();
        let mut done = 0;
        loop {
            ctx.queue.write_buffer(
                &params,
                0,
                bytemuck::bytes_of(&QueensParams {
                    n,
                    nodes: queued,
                    budget,
                    lanes,
                }),
            );
            // `busy` is recounted by every dispatch.
            ctx.queue
                .write_buffer(&control, 4, bytemuck::bytes_of(&0u32));
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind_groups[source], &[]);
                pass.dispatch_workgroups(lanes.div_ceil(GROUP), 1, 1);
            }
            encoder.copy_buffer_to_buffer(&control, 0, &control_read, 0, None);
            let started = Instant::now();
            ctx.submit(encoder.finish());
            let state: QueensControl =
                *bytemuck::from_bytes(&readback::read(ctx, &control_read).await?);
            let took = started.elapsed();
            counted.dispatches += 1;
            // Every node of the cut handed out is finished but the one each busy lane holds (or a part of it);
            // once they are all out, the busy lanes bound what is left.
            let handed = cut_before + if from_cut { state.next.min(queued) } else { 0 };
            done = done.max(handed.saturating_sub(state.busy));
            if !progress(u64::from(done), u64::from(total)) {
                return Err(GpuError::Cancelled);
            }
            // The queue is empty: the next run of nodes, if there is one, goes where the lanes take it from.
            let run = if state.next >= queued {
                more(room).filter(|run| !run.is_empty())
            } else {
                None
            };
            let to = if source == 1 { 2 } else { 1 };
            if let Some(run) = run {
                assert!(run.len() <= room, "a later run fits its queue");
                ctx.queue
                    .write_buffer(&given[to - 1], 0, bytemuck::cast_slice(&run));
                cut_before += if from_cut { queued } else { 0 };
                (from_cut, source, queued) = (true, to, run.len() as u32);
                ctx.queue
                    .write_buffer(&control, 0, bytemuck::bytes_of(&0u32));
            } else if state.next >= queued && state.busy == 0 {
                break;
            } else if state.next >= queued && state.busy < lanes - lanes / 4 && !config.no_split {
                // The tail: the queue is empty and lanes idle while others work through their last nodes.
                // The busy lanes give their lowest frames away (the shader's `split`), which become the next
                // queue.
                let given = self
                    .split(ctx, &bind_groups[source], &control, &control_read, lanes)
                    .await?;
                let given = given.min(room as u32);
                if given > 0 {
                    counted.splits += 1;
                    cut_before += if from_cut { queued } else { 0 };
                    (from_cut, source, queued) = (false, to, given);
                    // The lanes take the new queue from its start.
                    ctx.queue
                        .write_buffer(&control, 0, bytemuck::bytes_of(&0u32));
                }
            }
            // Aim the next dispatch at TARGET, changing at most 4× at a time.
            let scale = (TARGET.as_secs_f64() / took.as_secs_f64().max(1e-4)).clamp(0.25, 4.0);
            budget = ((f64::from(budget) * scale) as u32).clamp(16, max_budget);
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&counts, 0, &counts_read, 0, None);
        ctx.submit(encoder.finish());
        let words: Vec<u32> =
            bytemuck::cast_slice(&readback::read(ctx, &counts_read).await?).to_vec();
        let sum: u64 = words
            .chunks_exact(2)
            .map(|lane| u64::from(lane[0]) | (u64::from(lane[1]) << 32))
            .sum();
        // Without row masks the kernel counts each solution once; every node of such a cut has one weight.
        counted.total = if work.row_masks {
            sum
        } else {
            sum * u64::from(work.tables[0][0])
        };
        Ok(counted)
    }

    /// Runs `split` over the parked lanes, putting what they give away into `bind_group`'s given queue: how
    /// many nodes they gave, as the shader counted them (past the queue's room when it ran out; the nodes up to
    /// the room are all written).
    async fn split(
        &self,
        ctx: &GpuContext,
        bind_group: &wgpu::BindGroup,
        control: &wgpu::Buffer,
        control_read: &wgpu::Buffer,
        lanes: u32,
    ) -> Result<u32, GpuError> {
        ctx.queue
            .write_buffer(control, 8, bytemuck::bytes_of(&0u32));
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.split);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(lanes.div_ceil(GROUP), 1, 1);
        }
        encoder.copy_buffer_to_buffer(control, 0, control_read, 0, None);
        ctx.submit(encoder.finish());
        let state: QueensControl = *bytemuck::from_bytes(&readback::read(ctx, control_read).await?);
        Ok(state.donated)
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
