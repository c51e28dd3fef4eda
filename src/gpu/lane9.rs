//! Host side of `shaders/sudoku_lane9.wgsl`: 9×9 Sudoku with one board per GPU lane, and of
//! `shaders/sudoku_lone9.wgsl`, appended to it: a workgroup of 256 such lanes per puzzle for a batch of a few
//! (`NineKernel`).
//!
//! The shader's header explains the kernel; `src/sudoku/bands.rs` is its Rust model, and `super::lanes` the
//! driver it shares with the kernel of other shapes. Each puzzle goes up as value planes (48 bytes) and comes
//! back as a count, flags and the first solution's planes.

use std::borrow::Borrow;

use bytemuck::{Pod, Zeroable};

use super::lanes::{FLAG_OVERFLOW, LaneKernel, LaneLayout, driver_shader};
#[cfg(not(target_arch = "wasm32"))]
use super::pipeline::both;
use super::pipeline::trusted_module;
use super::squad9::Squad9Kernel;
#[cfg(not(target_arch = "wasm32"))]
use super::squad9::resident::ResidentSquads;
use super::sudoku_fork::{ForkConfig, ForkStats, GpuOutcome, NineKernel};
use super::{GpuContext, GpuError};
use crate::sudoku::Grid;
use crate::sudoku::bands::{self, pack};

/// Stack frames per lane by default: a branch waits per guess still open above the board, and the shared
/// sets need at most about 20 (`examples/lane_model.rs` counts them); a deeper search gives its stack's foot
/// to the pool.
const DEFAULT_DEPTH: u32 = 32;

/// How the kernel lays out a batch: 12 words a puzzle, 16 a result, frames of 8 vectors (the nine digit
/// boards, the solved cells and a tag, 30 words in 32).
const LAYOUT: LaneLayout = LaneLayout {
    side: 9,
    box_rows: 3,
    box_cols: 3,
    puzzle_words: 12,
    result_words: size_of::<Lane9Result>() / 4,
    frame_words: 32,
    default_depth: DEFAULT_DEPTH,
    // More than an H100 runs at once, so that cores stay busy while lanes drain (measured there: 16k to 262k
    // lanes within 10% of each other on a million puzzles).
    native_lanes: 1 << 16,
    // A pass runs some 60 loop iterations, a guess or a load a few more.
    pass_iterations: 156,
    invocations_per_lane: 1,
};

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
    /// Where the latency kernel (`shaders/sudoku_lone9.wgsl`) is with the puzzle: 0 not started, 1 searching,
    /// 2 finished (the lane kernel leaves it 0).
    pub started: u32,
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

const _: () = assert!(size_of::<Lane9Result>() == 64);

/// The compiled kernel, and the last batch's buffers.
pub struct Lane9Kernel {
    lanes: LaneKernel,
    /// The kernel for a batch of one (see [`NineKernel::Auto`]).
    squads: Squad9Kernel,
    /// The same kept waiting on the GPU between puzzles, natively where the device allows (Vulkan, memory the
    /// host can map): a batch of one goes there first.
    #[cfg(not(target_arch = "wasm32"))]
    resident: Option<std::sync::Mutex<ResidentSquads>>,
}

impl Lane9Kernel {
    /// Compiles the shader; validation errors come back as [`GpuError::Api`].
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        // The latency kernel (a workgroup per puzzle) shares this kernel's board, passes and bindings: its file
        // is appended to the lane kernel's.
        let source = driver_shader(
            "sudoku_lane9",
            &[
                include_str!("../../shaders/sudoku_lane9.wgsl"),
                include_str!("../../shaders/sudoku_lone9.wgsl"),
            ],
        );
        // SAFETY: every index in the shader is in bounds by construction. Puzzle and result indexes are below
        // `params.puzzles` (claims past it are refused before use; `lone`'s workgroup index is checked), the
        // sizes the host gives the `puzzles` and `results` buffers. Lane indexes are below `params.lanes` (the
        // shader returns early past it; `lone` returns where a workgroup's 256 lanes would pass it). Frame
        // indexes are a lane's stack slot `lane × depth + (k & (depth − 1))`, a pool slot `lanes × depth +
        // (n & (pool − 1))` or a parking slot `lanes × depth + pool + lane`, all below the frames the driver
        // allocates (`lanes::Plan::frames`), with `depth` and `pool` powers of two; `lone`'s offers are such
        // stack slots, at indexes below the idle lanes it counted (at most 256). Every loop ends: a lane loops
        // at most `budget` times, its inner loops run a fixed count. Natively the checks wgpu would inject
        // around each access cost time on every pass.
        let lanes = || {
            LaneKernel::compile(
                ctx,
                "sudoku_lane9",
                "the 9×9 Sudoku kernel",
                true,
                || unsafe { trusted_module(ctx, source) },
            )
        };
        let exchange = super::squad9::Exchange::best(ctx);
        // Natively the three kernels are made at once (`super::pipeline::made_at_once` says why).
        #[cfg(not(target_arch = "wasm32"))]
        let (lanes, (squads, resident)) = both(
            || pollster::block_on(lanes()),
            || {
                both(
                    || pollster::block_on(Squad9Kernel::new(ctx, exchange, 0)),
                    // Where the device cannot have it (not Vulkan, no memory to map), the one-shot squads
                    // answer alone.
                    || {
                        pollster::block_on(ResidentSquads::new(ctx, exchange, 0))
                            .ok()
                            .map(std::sync::Mutex::new)
                    },
                )
            },
        );
        #[cfg(not(target_arch = "wasm32"))]
        let (lanes, squads) = (lanes?, squads?);
        #[cfg(target_arch = "wasm32")]
        let (lanes, squads) = (lanes().await?, Squad9Kernel::new(ctx, exchange, 0).await?);
        let kernel = Self {
            lanes,
            squads,
            #[cfg(not(target_arch = "wasm32"))]
            resident,
        };
        // Drivers may finish compiling on the first dispatch: one puzzle on each kernel now keeps that out of
        // the first batch.
        let warm_up = Grid::empty(bands::nine());
        for nine_kernel in [NineKernel::Lanes, NineKernel::Lone] {
            let config = ForkConfig {
                nine_kernel,
                ..ForkConfig::default()
            };
            kernel
                .solve(ctx, &[&warm_up], 1, config, &mut |_, _| true)
                .await?;
        }
        kernel.squads.solve(ctx, &pack(&warm_up), 1).await?;
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(resident) = &kernel.resident {
            let mut resident = resident.lock().unwrap_or_else(|p| p.into_inner());
            resident.solve(ctx, &pack(&warm_up), 1)?;
        }
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
        // (Checked only in debug builds: a serial walk over a million puzzles costs more than the GPU's search
        // of them, the batch driver has seen to it, and packing another shape panics anyway.)
        debug_assert!(
            puzzles.iter().all(|p| p.borrow().shape() == bands::nine()),
            "the lane kernel solves 9×9 with 3×3 boxes"
        );
        if self.squads_for(puzzles.len(), config) {
            let planes = pack(puzzles[0].borrow());
            return self.alone(ctx, &planes, limit, progress, each).await;
        }
        self.lanes
            .solve_each(
                ctx,
                &LAYOUT,
                puzzles,
                limit,
                config,
                progress,
                |puzzle, words| words.copy_from_slice(&pack(puzzle)),
                |i, words| each(i, bytemuck::from_bytes(bytemuck::cast_slice(words))),
            )
            .await
    }

    /// [`Lane9Kernel::solve_each`] for `count` puzzles kept elsewhere than in grids: `planes(index)` gives
    /// puzzle `index`'s value planes ([`bands::pack_values`]), made where the caller keeps it (the lines of
    /// a file, read where they lie) and written straight into the upload.
    #[allow(clippy::too_many_arguments)]
    pub async fn solve_planes<T: Send>(
        &self,
        ctx: &GpuContext,
        count: usize,
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        planes: impl Fn(usize) -> [u32; 12] + Sync,
        each: impl Fn(usize, &Lane9Result) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        if self.squads_for(count, config) {
            return self.alone(ctx, &planes(0), limit, progress, each).await;
        }
        self.lanes
            .solve_indexed(
                ctx,
                &LAYOUT,
                count,
                limit,
                config,
                progress,
                |i, words| words.copy_from_slice(&planes(i)),
                |i, words| each(i, bytemuck::from_bytes(bytemuck::cast_slice(words))),
            )
            .await
    }

    /// [`Lane9Kernel::solve_planes`] for puzzles whose value planes are made already: `parts`, one after
    /// another, copied into the upload as they are.
    pub async fn solve_packed<T: Send>(
        &self,
        ctx: &GpuContext,
        parts: &[&[[u32; 12]]],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        each: impl Fn(usize, &Lane9Result) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        let count = parts.iter().map(|part| part.len()).sum();
        if self.squads_for(count, config) {
            let planes = parts.iter().flat_map(|part| part.iter()).next();
            let planes = planes.expect("a batch of one holds a puzzle");
            return self.alone(ctx, planes, limit, progress, each).await;
        }
        let words: Vec<&[u32]> = parts
            .iter()
            .map(|part| bytemuck::cast_slice::<[u32; 12], u32>(part))
            .collect();
        self.lanes
            .solve_packed(ctx, &LAYOUT, &words, limit, config, progress, |i, words| {
                each(i, bytemuck::from_bytes(bytemuck::cast_slice(words)))
            })
            .await
    }

    /// Whether the squads kernel answers a batch of `count` puzzles: a batch of one, unless `config` asks for a
    /// lane kernel by name.
    fn squads_for(&self, count: usize, config: ForkConfig) -> bool {
        config.nine_kernel == NineKernel::Auto && count == 1
    }

    /// A batch of one on the squads kernel (the run waiting on the GPU where there is one), its result made what
    /// the caller wants by `each`.
    async fn alone<T: Send>(
        &self,
        ctx: &GpuContext,
        planes: &[u32; 12],
        limit: u64,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        each: impl Fn(usize, &Lane9Result) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        #[cfg(not(target_arch = "wasm32"))]
        let answered = match &self.resident {
            Some(resident) => {
                let mut resident = resident.lock().unwrap_or_else(|p| p.into_inner());
                Some(resident.solve(ctx, planes, limit)?)
            }
            None => None,
        };
        #[cfg(target_arch = "wasm32")]
        let answered = None;
        let (result, stats) = match answered {
            Some(answered) => answered,
            None => self.squads.solve(ctx, planes, limit).await?,
        };
        progress(1, 1);
        Ok((vec![each(0, &result)], stats))
    }
}
