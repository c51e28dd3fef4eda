//! A count's dispatch loop on one kernel: the buffers of a run, dispatches sized to take about [`TARGET`] each,
//! the queue refilled from the caller's runs of nodes as the lanes empty it, and in the run's tail the busy
//! lanes' work given to idle ones (the shader's `split`), until every node is counted.

use std::borrow::Cow;

use web_time::Instant;
use wgpu::util::DeviceExt;

use super::{
    GROUP, LaneState, Masks, NodesCounted, QueensConfig, QueensControl, QueensKernel, QueensNode,
    QueensParams, QueensWork, TARGET,
};
use crate::gpu::queens_work::computed_tables;
use crate::gpu::{GpuContext, GpuError, pipeline::bind_buffers, readback};

impl QueensKernel {
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
}
