//! Host side of `shaders/sudoku_lane9.wgsl`: 9×9 Sudoku with one board per GPU lane.
//!
//! The shader's header explains the kernel; `src/sudoku/bands.rs` is its Rust model. The host packs each
//! puzzle into value planes (48 bytes), uploads the batch once, and submits runs of the kernel — each a
//! `publish` (one invocation that moves the shared pool's boundaries) and a `run` (every lane searches for
//! `budget` passes, then parks) — reading back a small control block after each submission for progress, until
//! every puzzle has finished; then it reads the results (a count, flags and the first solution's planes per
//! puzzle). Nothing goes back to the CPU but a puzzle whose lane stack and the pool were both full at once.

use std::borrow::Borrow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use bytemuck::{Pod, Zeroable};
use web_time::{Duration, Instant};

use super::pipeline::{Binding, PipelineMaker, bind_buffers, buffer_layout, trusted_module};
use super::sudoku_fork::{ForkConfig, ForkStats, GpuOutcome};
use super::{GpuContext, GpuError, map_index, readback};
use crate::sudoku::Grid;
use crate::sudoku::bands::{self, pack};

/// Invocations per workgroup (`@workgroup_size` of `run`).
const GROUP: u32 = 64;
/// The result flag `OVERFLOW`: a stack and the pool were full, the host finishes the puzzle.
const FLAG_OVERFLOW: u32 = 2;
/// 16-byte vectors in a frame: nine digit boards, the solved cells and a tag, 30 words in 32.
const FRAME_VECTORS: u64 = 8;
/// Stack frames per lane by default: a branch waits per guess still open above the board, and the shared
/// sets need at most about 20 (`examples/lane_model.rs` counts them); a deeper search gives its stack's foot
/// to the pool.
const DEFAULT_DEPTH: u32 = 32;
/// Lanes on a hardware adapter natively: more than an H100 runs at once, so that cores stay busy while lanes
/// drain (measured there: 16k to 262k lanes within 10% of each other on a million puzzles).
const HARDWARE_LANES: u32 = 1 << 16;
/// Lanes on a browser's GPU: a laptop's GPU holds far fewer threads than an H100, and 16k lanes' stacks fit
/// WebGPU's default 128 MiB binding.
const BROWSER_LANES: u32 = 1 << 14;
/// Lanes on a software adapter (lavapipe, SwiftShader): a few per CPU core's SIMD width.
const SOFTWARE_LANES: u32 = 1 << 9;
/// A run aims at this long: far below what a browser allows a dispatch, long enough that launches cost little.
const TARGET: Duration = Duration::from_millis(8);
/// Results up to this size are copied back with every submission (see `copy_along`).
const COPY_ALONG_BYTES: u64 = 1 << 20;
/// Runs in one submission (each followed by the next without a word from the host); the host reads progress
/// once per submission.
const RUNS_PER_SUBMISSION: u32 = 16;

/// Twin of `Params` in the shader (a uniform: a multiple of 16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Lane9Params {
    /// Puzzles in the batch.
    pub puzzles: u32,
    /// Solutions wanted per puzzle.
    pub limit: u32,
    /// Lanes (invocations that work).
    pub lanes: u32,
    /// Stack frames per lane (a power of two).
    pub depth: u32,
    /// Frames in the shared pool (a power of two).
    pub pool: u32,
    /// Passes per lane in one run.
    pub budget: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Twin of `Control` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Lane9Control {
    /// Puzzles handed out (may pass the batch size).
    pub next_puzzle: u32,
    /// Puzzles whose last branch has ended.
    pub finished: u32,
    /// Next pooled frame to take.
    pub pool_head: u32,
    /// Next pool slot to fill.
    pub pool_claim: u32,
    /// Pooled frames below this may be taken in the current run.
    pub pool_tail: u32,
    /// Pool slots below this may be filled in the current run.
    pub write_limit: u32,
    /// Branches each lane may give away in the current run.
    pub quota: u32,
    /// Lanes that parked a board at the end of the last run.
    pub busy: u32,
    /// Guesses since the host last reset it.
    pub guesses: u32,
    /// Branches given to the pool.
    pub donated: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Twin of `Result` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Lane9Result {
    /// Solutions found (may pass the limit by a few).
    pub count: u32,
    /// DONE (1), OVERFLOW (2).
    pub flags: u32,
    /// Branches alive (0 once the puzzle has finished).
    pub live: u32,
    /// Padding.
    pub pad: u32,
    /// The first solution's value planes.
    pub planes: [u32; 12],
}

impl Lane9Result {
    /// The search outgrew its stack and the pool: the caller must solve the puzzle itself.
    pub fn overflowed(&self) -> bool {
        self.flags & FLAG_OVERFLOW != 0
    }

    /// The first solution's cells, row-major, when one was found (unchecked: the caller checks it).
    pub fn solution(&self) -> Option<[u8; 81]> {
        (self.count > 0 && !self.overflowed()).then(|| bands::unpack(&self.planes))
    }
}

const _: () = assert!(size_of::<Lane9Params>() == 32);
const _: () = assert!(size_of::<Lane9Control>() == 48);
const _: () = assert!(size_of::<Lane9Result>() == 64);
/// Byte offset of `guesses` in the control block (the host zeroes it before each submission).
const GUESSES_OFFSET: u64 = 32;

/// The sizes of one batch's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    lanes: u32,
    depth: u32,
    pool: u32,
}

impl Plan {
    /// Frames in all: the stacks, the pool, a parking frame per lane.
    fn frames(self) -> u64 {
        u64::from(self.lanes) * u64::from(self.depth) + u64::from(self.pool) + u64::from(self.lanes)
    }

    fn frame_bytes(self) -> u64 {
        self.frames() * FRAME_VECTORS * 16
    }
}

/// What kind of adapter a batch runs on, for its default lane count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AdapterKind {
    /// A GPU through Vulkan (or another native API).
    Native,
    /// A GPU through a browser's WebGPU.
    Browser,
    /// A GPU emulated on the CPU (lavapipe, SwiftShader).
    Software,
}

impl AdapterKind {
    fn of(info: &wgpu::AdapterInfo) -> Self {
        if info.device_type == wgpu::DeviceType::Cpu {
            Self::Software
        } else if info.backend == wgpu::Backend::BrowserWebGpu {
            Self::Browser
        } else {
            Self::Native
        }
    }
}

/// Lanes, stack depth and pool for a batch: as many lanes as asked (or the adapter's default), fewer if one
/// storage binding cannot hold their frames.
fn plan(config: &ForkConfig, kind: AdapterKind, max_binding: u64) -> Plan {
    let depth = match config.stack_depth {
        0 => DEFAULT_DEPTH,
        d => d.next_power_of_two(),
    };
    let mut lanes = match (config.slots, kind) {
        (0, AdapterKind::Software) => SOFTWARE_LANES,
        (0, AdapterKind::Browser) => BROWSER_LANES,
        (0, AdapterKind::Native) => HARDWARE_LANES,
        (n, _) => n,
    }
    .max(1);
    loop {
        let plan = Plan {
            lanes,
            depth,
            pool: lanes.next_power_of_two(),
        };
        if plan.frame_bytes() <= max_binding || lanes == 1 {
            return plan;
        }
        lanes /= 2;
    }
}

/// The compiled kernel, and the last batch's buffers.
pub struct Lane9Kernel {
    layout: wgpu::BindGroupLayout,
    run: wgpu::ComputePipeline,
    publish: wgpu::ComputePipeline,
    cache: Mutex<Option<Buffers>>,
}

impl Lane9Kernel {
    /// Compiles the shader; validation errors come back as [`GpuError::Api`].
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let source = wgpu::include_wgsl!("../../shaders/sudoku_lane9.wgsl");
        // SAFETY: every index in the shader is in bounds by construction. Puzzle and result indexes are below
        // `params.puzzles` (claims past it are refused before use), the sizes the host gives the `puzzles` and
        // `results` buffers. Lane indexes are below `params.lanes` (the shader returns early past it). Frame
        // indexes are a lane's stack slot `lane × depth + (k & (depth − 1))`, a pool slot `lanes × depth +
        // (n & (pool − 1))` or a parking slot `lanes × depth + pool + lane`, all below `Plan::frames`, the
        // frame buffer's size, with `depth` and `pool` powers of two. Every loop ends: a lane loops at most
        // `budget` times, its inner loops run a fixed count. Natively the checks wgpu would inject around
        // each access cost time on every pass.
        let module = unsafe { trusted_module(ctx, source) };
        use Binding::{Read, ReadWrite, Uniform};
        let layout = buffer_layout(
            ctx,
            "sudoku_lane9",
            &[Uniform, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite],
        );
        let pipelines = PipelineMaker::new(ctx, "sudoku_lane9", &layout);
        let (run, publish) = (
            pipelines.pipeline(&module, "run"),
            pipelines.pipeline(&module, "publish"),
        );
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "the 9×9 Sudoku kernel did not compile: {error}"
            )));
        }
        let kernel = Self {
            layout,
            run,
            publish,
            cache: Mutex::new(None),
        };
        // Drivers may finish compiling on the first dispatch: one puzzle now keeps that out of the first batch.
        let warm_up = Grid::empty(bands::nine());
        kernel
            .solve(ctx, &[warm_up], 1, ForkConfig::default(), &mut |_, _| true)
            .await?;
        Ok(kernel)
    }

    /// Solves a batch of 9×9 puzzles (3×3 boxes; any other shape panics), counting up to `limit` solutions
    /// each. Givens that clash come back without a solution. `progress(finished, total)` is called after each
    /// submission; returning false cancels.
    pub async fn solve<P: Borrow<Grid> + Sync>(
        &self,
        ctx: &GpuContext,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(Vec<GpuOutcome>, ForkStats), GpuError> {
        self.solve_each(ctx, puzzles, limit, config, progress, |_, r| {
            let count = u64::from(r.count).min(limit);
            GpuOutcome {
                count,
                solution: r
                    .solution()
                    .and_then(|cells| Grid::new(bands::nine(), &cells)),
                hit_limit: count >= limit,
                overflow: r.overflowed(),
            }
        })
        .await
    }

    /// [`Lane9Kernel::solve`], handing each puzzle's raw result to `each(index, result)` where the read-back
    /// lies (on every core natively) and returning what it makes of them, in order: a batch's results are
    /// read once, however much the caller does with each.
    pub async fn solve_each<P: Borrow<Grid> + Sync, T: Send>(
        &self,
        ctx: &GpuContext,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        each: impl Fn(usize, &Lane9Result) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        if puzzles.is_empty() {
            return Ok((Vec::new(), ForkStats::default()));
        }
        // (Checked only in debug builds: a serial walk over a million puzzles costs more than the GPU's search
        // of them, the batch driver has seen to it, and packing another shape panics anyway.)
        debug_assert!(
            puzzles.iter().all(|p| p.borrow().shape() == bands::nine()),
            "the lane kernel solves 9×9 with 3×3 boxes"
        );
        let n = puzzles.len() as u32;
        let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
        let max_binding = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        let plan = plan(&config, AdapterKind::of(&ctx.info), max_binding);
        let started = Instant::now();
        let buffers = self.buffers(ctx, plan, n).await?;
        upload(ctx, &buffers.batch.puzzles, puzzles)?;
        let mut stats = ForkStats {
            slots: plan.lanes,
            upload_seconds: started.elapsed().as_secs_f64(),
            ..ForkStats::default()
        };
        let started = Instant::now();
        // No results, every lane idle, an empty pool: cleared at the head of the first submission.
        let mut clearing = ctx.device.create_command_encoder(&Default::default());
        let result_bytes = u64::from(n) * size_of::<Lane9Result>() as u64;
        clearing.clear_buffer(&buffers.batch.results, 0, Some(result_bytes));
        clearing.clear_buffer(&buffers.lanes.control, 0, None);
        clearing.clear_buffer(&buffers.lanes.lanes, 0, None);
        let mut first = Some(clearing);
        // lavapipe stops an invocation's loops after 65,535 iterations in all, and a pass runs some 60 of them.
        let max_budget = if software { 256 } else { 1 << 16 };
        // Short runs first, many to a submission: a single hard puzzle spreads over the lanes one run at a time,
        // and an easy batch ends within the first submission.
        let mut budget = 16u32;
        let runs = RUNS_PER_SUBMISSION;
        // A small batch's results travel with every submission: the one that finishes the batch has brought
        // them back, and a round trip to the GPU is saved (a large one's are copied once, at the end).
        let copy_along = result_bytes <= COPY_ALONG_BYTES;
        loop {
            ctx.queue.write_buffer(
                &buffers.lanes.params,
                0,
                bytemuck::bytes_of(&Lane9Params {
                    puzzles: n,
                    limit: limit.clamp(1, u64::from(u32::MAX)) as u32,
                    lanes: plan.lanes,
                    depth: plan.depth,
                    pool: plan.pool,
                    budget,
                    pad: [0; 2],
                }),
            );
            ctx.queue.write_buffer(
                &buffers.lanes.control,
                GUESSES_OFFSET,
                bytemuck::bytes_of(&0u32),
            );
            let mut encoder = first
                .take()
                .unwrap_or_else(|| ctx.device.create_command_encoder(&Default::default()));
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &buffers.bind_group, &[]);
                for _ in 0..runs {
                    pass.set_pipeline(&self.publish);
                    pass.dispatch_workgroups(1, 1, 1);
                    pass.set_pipeline(&self.run);
                    pass.dispatch_workgroups(plan.lanes.div_ceil(GROUP), 1, 1);
                }
            }
            encoder.copy_buffer_to_buffer(
                &buffers.lanes.control,
                0,
                &buffers.lanes.control_read,
                0,
                None,
            );
            if copy_along {
                encoder.copy_buffer_to_buffer(
                    &buffers.batch.results,
                    0,
                    &buffers.batch.results_read,
                    0,
                    Some(result_bytes),
                );
            }
            let submitted = Instant::now();
            ctx.submit(encoder.finish());
            let state: Lane9Control =
                *bytemuck::from_bytes(&readback::read(ctx, &buffers.lanes.control_read).await?);
            let took = submitted.elapsed();
            stats.submissions += 1;
            stats.rounds += u64::from(runs);
            stats.guesses += u64::from(state.guesses);
            stats.forks = u64::from(state.donated);
            let finished = state.finished.min(n) as usize;
            if !progress(finished, puzzles.len()) {
                return Err(GpuError::Cancelled);
            }
            if finished == puzzles.len() {
                break;
            }
            // Aim each run at TARGET, changing at most 4× at a time.
            let per_run = took.as_secs_f64() / f64::from(runs);
            let scale = (TARGET.as_secs_f64() / per_run.max(1e-5)).clamp(0.25, 4.0);
            budget = ((f64::from(budget) * scale) as u32).clamp(16, max_budget);
        }
        stats.search_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        if !copy_along {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(
                &buffers.batch.results,
                0,
                &buffers.batch.results_read,
                0,
                Some(result_bytes),
            );
            ctx.submit(encoder.finish());
        }
        let overflowed = AtomicU64::new(0);
        let made = readback::with_mapped(ctx, &buffers.batch.results_read, |bytes| {
            stats.transfer_seconds = started.elapsed().as_secs_f64();
            let results: &[Lane9Result] = bytemuck::cast_slice(bytes);
            map_index(n as usize, |i| {
                if results[i].overflowed() {
                    overflowed.fetch_add(1, Ordering::Relaxed);
                }
                each(i, &results[i])
            })
        })
        .await?;
        stats.overflowed = overflowed.into_inner();
        stats.download_seconds = started.elapsed().as_secs_f64();
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Some(buffers);
        Ok((made, stats))
    }
}

impl Lane9Kernel {
    /// Buffers for a batch of `n` puzzles on `plan`: the last batch's where they fit (the lanes' buffers while
    /// the plan holds, the batch's while it has room: a file's chunks are all one size but the last), new ones
    /// otherwise. They leave the cache meanwhile, so a second batch at once (the page's engines) makes its own.
    async fn buffers(&self, ctx: &GpuContext, plan: Plan, n: u32) -> Result<Buffers, GpuError> {
        let cached = self.cache.lock().unwrap_or_else(|p| p.into_inner()).take();
        let (lanes, batch, bind_group) = match cached {
            Some(b) => (Some(b.lanes), Some(b.batch), Some(b.bind_group)),
            None => (None, None, None),
        };
        let lanes = lanes.filter(|l| l.plan == plan);
        let batch = batch.filter(|b| b.capacity >= n);
        let bind_group = bind_group.filter(|_| lanes.is_some() && batch.is_some());
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let lanes = lanes.unwrap_or_else(|| LaneBuffers::new(ctx, plan));
        let batch = batch.unwrap_or_else(|| BatchBuffers::new(ctx, n));
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "not enough GPU memory for {n} puzzles and {} lanes: {error}",
                plan.lanes
            )));
        }
        let bind_group = bind_group.unwrap_or_else(|| {
            let bound = [
                &lanes.params,
                &batch.puzzles,
                &batch.results,
                &lanes.control,
                &lanes.lanes,
                &lanes.frames,
            ];
            bind_buffers(ctx, "sudoku_lane9", &self.layout, &bound)
        });
        Ok(Buffers {
            lanes,
            batch,
            bind_group,
        })
    }
}

/// Packs `puzzles` into the start of `buffer`. Each write goes through a staging buffer of its own, so
/// natively every core packs a run of puzzles into a small buffer (it stays in cache) and writes that into its
/// run's staging memory: the batch is read once and its planes written once.
fn upload<P: Borrow<Grid> + Sync>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    puzzles: &[P],
) -> Result<(), GpuError> {
    const RUN: usize = 4096;
    let plane_bytes = size_of::<[u32; 12]>();
    let write = |(i, run): (usize, &[P])| {
        let packed: Vec<[u32; 12]> = run.iter().map(|p| pack(p.borrow())).collect();
        let size =
            wgpu::BufferSize::new((run.len() * plane_bytes) as u64).expect("a run is never empty");
        let mut view = ctx
            .queue
            .write_buffer_with(buffer, (i * RUN * plane_bytes) as u64, size)
            .ok_or_else(|| GpuError::Api("the puzzles could not be staged for the GPU".into()))?;
        view.slice(..)
            .copy_from_slice(bytemuck::cast_slice(&packed));
        Ok(())
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        puzzles.par_chunks(RUN).enumerate().try_for_each(write)
    }
    #[cfg(target_arch = "wasm32")]
    puzzles.chunks(RUN).enumerate().try_for_each(write)
}

/// A batch's buffers and their bind group, kept by the kernel for the next batch.
struct Buffers {
    lanes: LaneBuffers,
    batch: BatchBuffers,
    bind_group: wgpu::BindGroup,
}

fn new_buffer(ctx: &GpuContext, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// The buffers of a plan, whatever the batch: parameters, control, the lanes' states and their frames
/// (stacks, pool, parking: most of the memory).
struct LaneBuffers {
    plan: Plan,
    params: wgpu::Buffer,
    control: wgpu::Buffer,
    lanes: wgpu::Buffer,
    frames: wgpu::Buffer,
    control_read: wgpu::Buffer,
}

impl LaneBuffers {
    fn new(ctx: &GpuContext, plan: Plan) -> Self {
        use wgpu::BufferUsages as Use;
        let control_size = size_of::<Lane9Control>() as u64;
        Self {
            plan,
            params: new_buffer(
                ctx,
                "lane9 params",
                size_of::<Lane9Params>() as u64,
                Use::UNIFORM | Use::COPY_DST,
            ),
            control: new_buffer(
                ctx,
                "lane9 control",
                control_size,
                Use::STORAGE | Use::COPY_DST | Use::COPY_SRC,
            ),
            lanes: new_buffer(
                ctx,
                "lane9 lanes",
                u64::from(plan.lanes) * 16,
                Use::STORAGE | Use::COPY_DST,
            ),
            frames: new_buffer(ctx, "lane9 frames", plan.frame_bytes(), Use::STORAGE),
            control_read: new_buffer(
                ctx,
                "lane9 control read",
                control_size,
                Use::MAP_READ | Use::COPY_DST,
            ),
        }
    }
}

/// The buffers sized by the batch: its puzzles and results.
struct BatchBuffers {
    /// Puzzles they have room for.
    capacity: u32,
    puzzles: wgpu::Buffer,
    results: wgpu::Buffer,
    results_read: wgpu::Buffer,
}

impl BatchBuffers {
    fn new(ctx: &GpuContext, capacity: u32) -> Self {
        use wgpu::BufferUsages as Use;
        let results_size = u64::from(capacity) * size_of::<Lane9Result>() as u64;
        Self {
            capacity,
            puzzles: new_buffer(
                ctx,
                "lane9 puzzles",
                u64::from(capacity) * size_of::<[u32; 12]>() as u64,
                Use::STORAGE | Use::COPY_DST,
            ),
            results: new_buffer(
                ctx,
                "lane9 results",
                results_size,
                Use::STORAGE | Use::COPY_DST | Use::COPY_SRC,
            ),
            results_read: new_buffer(
                ctx,
                "lane9 results read",
                results_size,
                Use::MAP_READ | Use::COPY_DST,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shader_declares_the_same_structs_and_group() {
        let wgsl = include_str!("../../shaders/sudoku_lane9.wgsl");
        assert!(wgsl.contains(&format!("@workgroup_size({GROUP})")));
        for name in ["struct Params", "struct Control", "struct Result"] {
            assert!(wgsl.contains(name), "{name}");
        }
        // `guesses` is the ninth word of Control.
        let control = wgsl.split("struct Control {").nth(1).unwrap();
        let ninth = control.lines().filter(|l| l.contains(':')).nth(8).unwrap();
        assert!(ninth.trim_start().starts_with("guesses"), "{ninth}");
        assert_eq!(GUESSES_OFFSET, 8 * 4);
    }

    #[test]
    fn plans_fit_the_binding_and_keep_powers_of_two() {
        let config = ForkConfig::default();
        let big = plan(&config, AdapterKind::Native, u64::MAX);
        assert_eq!(
            (big.lanes, big.depth, big.pool),
            (HARDWARE_LANES, 32, HARDWARE_LANES)
        );
        // A binding limit of 128 MiB (WebGPU's default) holds fewer lanes.
        let small = plan(&config, AdapterKind::Native, 128 << 20);
        assert!(
            small.frame_bytes() <= 128 << 20 && small.lanes >= 1 << 14,
            "{small:?}"
        );
        let page = plan(&config, AdapterKind::Browser, 128 << 20);
        assert!(
            page.lanes == BROWSER_LANES && page.frame_bytes() <= 128 << 20,
            "{page:?}"
        );
        let software = plan(&config, AdapterKind::Software, u64::MAX);
        assert_eq!(software.lanes, SOFTWARE_LANES);
        let odd = plan(
            &ForkConfig {
                slots: 3,
                stack_depth: 3,
                ..config
            },
            AdapterKind::Software,
            u64::MAX,
        );
        assert_eq!((odd.lanes, odd.depth, odd.pool), (3, 4, 4));
    }
}
