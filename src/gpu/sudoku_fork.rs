//! Host side of `shaders/sudoku_fork.wgsl`: the bitmask fork kernel over a pool of board slots.
//!
//! The shader's header explains a round (step, refill, reset, collect). The host uploads a batch of puzzles of
//! one shape, runs rounds in submissions of a few at a time (short dispatches: a browser kills long ones),
//! reads back a small [`Control`] block after each submission for progress, and reads the per-puzzle results
//! once every puzzle has finished. A puzzle whose search outgrew the pool comes back `overflow`; the caller
//! solves it on the CPU.

use std::borrow::Borrow;

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::pipeline::{Binding, PipelineMaker, bind_buffers, buffer_layout};
use super::{GpuContext, GpuError, readback};
use crate::sudoku::{BoxShape, Grid};

/// Invocations per workgroup; must equal `WG` and the `@workgroup_size` of the shader.
pub const WORKGROUP_SIZE: u32 = 64;
/// Most workgroups in one dimension of a dispatch (WebGPU's default limit).
const MAX_GROUPS_PER_DIM: u32 = 65_535;
/// The puzzle flag `OVERFLOW` of the shader: the search outgrew the pool, the host finishes it.
const FLAG_OVERFLOW: u32 = 2;

/// Twin of `Params` in `shaders/sudoku_fork.wgsl` (a uniform: 16-byte multiple).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ForkParams {
    /// Grid side N.
    pub side: u32,
    /// Box height R.
    pub box_rows: u32,
    /// Box width C.
    pub box_cols: u32,
    /// N².
    pub cells: u32,
    /// Pool size.
    pub slots: u32,
    /// Puzzles in the batch.
    pub puzzles: u32,
    /// Solutions wanted per puzzle.
    pub limit: u32,
    /// Free slots kept for forks when loading puzzles.
    pub reserve: u32,
    /// Failed forks before a puzzle goes to the CPU.
    pub max_stalls: u32,
    /// Workgroups per row of the 2-D step dispatch.
    pub grid_width: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

/// Twin of `SlotInfo` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SlotInfo {
    /// Index of the puzzle in the batch.
    pub puzzle: u32,
    /// FREE (0), ACTIVE (1) or PENDING (2).
    pub state: u32,
    /// Consecutive failed forks.
    pub stalls: u32,
    /// Padding.
    pub pad: u32,
}

/// Twin of `PuzzleState` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PuzzleState {
    /// Slots holding a branch of the puzzle.
    pub live: u32,
    /// Solutions found (may pass the limit by a few).
    pub count: u32,
    /// DONE (1), OVERFLOW (2).
    pub flags: u32,
    /// Padding.
    pub pad: u32,
}

/// Twin of `Control` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Control {
    /// Entries in the free list.
    pub free_count: u32,
    /// Entries claimed by forks this round.
    pub alloc: u32,
    /// Puzzles loaded into slots so far.
    pub next_puzzle: u32,
    /// Puzzles whose last branch ended.
    pub finished: u32,
    /// Successful forks.
    pub forks: u32,
    /// Failed fork attempts.
    pub stalls: u32,
    /// Padding.
    pub pad: [u32; 2],
}

const _: () = assert!(size_of::<ForkParams>() == 48);
const _: () = assert!(size_of::<SlotInfo>() == 16);
const _: () = assert!(size_of::<PuzzleState>() == 16);
const _: () = assert!(size_of::<Control>() == 32);

/// One dispatch of a round: the shader entry point and its workgroup counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// The entry point.
    pub entry: &'static str,
    /// Workgroups in x and y.
    pub groups: (u32, u32),
}

/// The dispatches of one round over `slots` slots, in order. Plain data, so its shape is tested without a GPU.
pub fn round_plan(slots: u32) -> [Dispatch; 4] {
    let per_slot = slots.div_ceil(WORKGROUP_SIZE);
    [
        Dispatch {
            entry: "step",
            groups: step_groups(slots),
        },
        Dispatch {
            entry: "refill",
            groups: (per_slot, 1),
        },
        Dispatch {
            entry: "reset",
            groups: (1, 1),
        },
        Dispatch {
            entry: "collect",
            groups: (per_slot, 1),
        },
    ]
}

/// One workgroup per slot, folded into two dimensions past the per-dimension limit.
fn step_groups(slots: u32) -> (u32, u32) {
    let width = slots.min(MAX_GROUPS_PER_DIM);
    (width, slots.div_ceil(width))
}

/// How a batch runs (on either Sudoku kernel).
#[derive(Clone, Copy, Debug)]
pub struct ForkConfig {
    /// Boards in flight: the pool's slots for this kernel, the lanes for the 9×9 lane kernel
    /// ([`super::lane9`]); 0 picks a size from the batch and the device's limits.
    pub slots: u32,
    /// The 9×9 lane kernel's stack frames per lane (rounded up to a power of two; 0: the default).
    pub stack_depth: u32,
    /// Failed forks before a puzzle is handed to the CPU.
    pub max_stalls: u32,
    /// The CPU's guess budget for the puzzles handed back (see [`crate::sudoku::solver::Solver::max_guesses`]).
    pub max_guesses: u64,
}

impl Default for ForkConfig {
    fn default() -> Self {
        Self {
            slots: 0,
            stack_depth: 0,
            max_stalls: 8,
            max_guesses: crate::sudoku::solver::DEFAULT_MAX_GUESSES,
        }
    }
}

/// What the GPU found for one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuOutcome {
    /// Solutions counted, clamped to the limit.
    pub count: u64,
    /// The first solution found (unchecked: the caller checks it).
    pub solution: Option<Grid>,
    /// The count reached the limit.
    pub hit_limit: bool,
    /// The search outgrew the pool: the caller must solve this puzzle itself.
    pub overflow: bool,
}

/// Counters of one batch (on either Sudoku kernel).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForkStats {
    /// Rounds run (the lane kernel: runs).
    pub rounds: u64,
    /// Submissions (each followed by a small read-back).
    pub submissions: u64,
    /// Successful forks (the lane kernel: branches given to idle lanes).
    pub forks: u64,
    /// Guesses (the lane kernel counts them; this kernel's forks are its guesses).
    pub guesses: u64,
    /// Failed fork attempts (a full pool).
    pub stalls: u64,
    /// Puzzles handed back for the CPU.
    pub overflowed: u64,
    /// The pool size used (the lane kernel: its lanes).
    pub slots: u32,
    /// Seconds packing and uploading the batch (the lane kernel).
    pub upload_seconds: f64,
    /// Seconds from the first submission until every puzzle had finished (the lane kernel).
    pub search_seconds: f64,
    /// Seconds reading the results back and handing them on (the lane kernel).
    pub download_seconds: f64,
    /// Of those, the seconds until the results were mapped on the host.
    pub transfer_seconds: f64,
}

impl ForkStats {
    /// Adds another batch's counters (the pool size kept is the largest).
    pub fn add(&mut self, more: &ForkStats) {
        self.rounds += more.rounds;
        self.submissions += more.submissions;
        self.forks += more.forks;
        self.guesses += more.guesses;
        self.stalls += more.stalls;
        self.overflowed += more.overflowed;
        self.upload_seconds += more.upload_seconds;
        self.search_seconds += more.search_seconds;
        self.download_seconds += more.download_seconds;
        self.transfer_seconds += more.transfer_seconds;
        self.slots = self.slots.max(more.slots);
    }
}

/// The compiled kernel: four pipelines over one bind group layout.
pub struct ForkKernel {
    layout: wgpu::BindGroupLayout,
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl ForkKernel {
    /// Compiles the shader; validation errors come back as [`GpuError::Api`].
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = ctx
            .device
            .create_shader_module(wgpu::include_wgsl!("../../shaders/sudoku_fork.wgsl"));
        // Binding index = position in `Buffers::bound`.
        use Binding::{Read, ReadWrite, Uniform};
        let layout = buffer_layout(
            ctx,
            "sudoku_fork",
            &[
                Uniform, ReadWrite, ReadWrite, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite,
                Read,
            ],
        );
        let maker = PipelineMaker::new(ctx, "sudoku_fork", &layout);
        let pipelines = ["step", "refill", "reset", "collect"]
            .into_iter()
            .map(|entry| (entry, maker.pipeline(&module, entry)))
            .collect();
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "the Sudoku kernel did not compile: {error}"
            )));
        }
        let kernel = Self { layout, pipelines };
        // Drivers may compile pipelines on their first dispatch: one tiny batch now makes that part of setting
        // up, not of the first real batch.
        let warm_up = Grid::empty(BoxShape::for_side(4).expect("4×4 exists"));
        kernel
            .solve(ctx, &[warm_up], 1, ForkConfig::default(), &mut |_, _| true)
            .await?;
        Ok(kernel)
    }

    fn pipeline(&self, entry: &str) -> &wgpu::ComputePipeline {
        &self
            .pipelines
            .iter()
            .find(|(name, _)| *name == entry)
            .expect("every planned entry point has a pipeline")
            .1
    }

    /// The pool size for a batch: enough slots for wide searches, within the device's storage limit.
    fn pool_size(&self, ctx: &GpuContext, shape: BoxShape, puzzles: usize, asked: u32) -> u32 {
        let per_board = (shape.cells() * 4) as u64;
        let by_memory =
            (ctx.limits.max_storage_buffer_binding_size / per_board).min(u32::MAX as u64) as u32;
        let wanted = if asked > 0 {
            asked
        } else {
            // Every slot costs a workgroup launch per round, busy or not, so the pool follows the batch: 16 slots
            // a puzzle (top1465 on an H200: 292k/s with 23,440 slots, 192k/s with 93,760). The floor covers
            // small batches of hard puzzles, which fan out to hundreds of branches each (100 top1465 puzzles in
            // 1,600 slots sent 62 to the CPU).
            (puzzles as u32).saturating_mul(16).clamp(4096, 1 << 17)
        };
        wanted.min(by_memory).max(2)
    }

    /// Solves a batch of puzzles of one shape with valid givens, counting up to `limit` solutions each.
    /// `progress(finished, total)` is called after each submission; returning false cancels.
    pub async fn solve<P: Borrow<Grid>>(
        &self,
        ctx: &GpuContext,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(Vec<GpuOutcome>, ForkStats), GpuError> {
        let Some(first) = puzzles.first() else {
            return Ok((Vec::new(), ForkStats::default()));
        };
        let shape = first.borrow().shape();
        assert!(
            puzzles.iter().all(|p| p.borrow().shape() == shape),
            "one shape per batch"
        );
        let cells = shape.cells() as u32;
        let n = puzzles.len() as u32;
        let slots = self.pool_size(ctx, shape, puzzles.len(), config.slots);
        let limit32 = limit.clamp(1, u32::MAX as u64) as u32;
        let params = ForkParams {
            side: shape.side() as u32,
            box_rows: shape.rows() as u32,
            box_cols: shape.cols() as u32,
            cells,
            slots,
            puzzles: n,
            limit: limit32,
            reserve: slots / 4,
            max_stalls: config.max_stalls.max(1),
            grid_width: step_groups(slots).0,
            pad: [0; 2],
        };
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffers = Buffers::new(ctx, &params, puzzles);
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "not enough GPU memory for {slots} slots: {error}"
            )));
        }
        let bind_group = bind_buffers(ctx, "sudoku_fork", &self.layout, &buffers.bound());
        let plan = round_plan(slots);
        let mut stats = ForkStats {
            slots,
            ..ForkStats::default()
        };
        // Each submission runs a few rounds, then reads back the control block for progress. The first also
        // lists the free slots. Rounds per submission grow while puzzles remain, so an easy batch finishes in
        // one submission and a hard one does not pay a read-back per round.
        let mut rounds_per_submit = 4u32;
        let mut first = true;
        loop {
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &bind_group, &[]);
                let setup = if first { &plan[2..] } else { &plan[..0] };
                let rounds = (0..rounds_per_submit).flat_map(|_| plan.iter());
                for dispatch in setup.iter().chain(rounds) {
                    pass.set_pipeline(self.pipeline(dispatch.entry));
                    pass.dispatch_workgroups(dispatch.groups.0, dispatch.groups.1, 1);
                }
            }
            first = false;
            encoder.copy_buffer_to_buffer(&buffers.control, 0, &buffers.control_read, 0, None);
            ctx.submit(encoder.finish());
            stats.rounds += u64::from(rounds_per_submit);
            stats.submissions += 1;
            let control: Control =
                *bytemuck::from_bytes(&readback::read(ctx, &buffers.control_read).await?);
            stats.forks = u64::from(control.forks);
            stats.guesses = stats.forks;
            stats.stalls = u64::from(control.stalls);
            let finished = control.finished.min(n) as usize;
            if !progress(finished, puzzles.len()) {
                return Err(GpuError::Cancelled);
            }
            if finished == puzzles.len() {
                break;
            }
            rounds_per_submit = (rounds_per_submit * 2).min(64);
        }
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&buffers.results, 0, &buffers.results_read, 0, None);
        encoder.copy_buffer_to_buffer(&buffers.solutions, 0, &buffers.solutions_read, 0, None);
        ctx.submit(encoder.finish());
        let states: Vec<PuzzleState> =
            bytemuck::cast_slice(&readback::read(ctx, &buffers.results_read).await?).to_vec();
        let values: Vec<u32> =
            bytemuck::cast_slice(&readback::read(ctx, &buffers.solutions_read).await?).to_vec();
        let outcomes = states
            .iter()
            .zip(values.chunks(cells as usize))
            .map(|(state, solution)| {
                let overflow = state.flags & FLAG_OVERFLOW != 0;
                let count = u64::from(state.count).min(limit);
                let solution = (count > 0 && !overflow)
                    .then(|| Grid::from_fn(shape, |i| solution[i].min(255) as u8))
                    .flatten();
                GpuOutcome {
                    count,
                    solution,
                    hit_limit: count >= limit,
                    overflow,
                }
            })
            .collect::<Vec<_>>();
        stats.overflowed = outcomes.iter().filter(|o| o.overflow).count() as u64;
        Ok((outcomes, stats))
    }
}

/// The buffers of one batch.
struct Buffers {
    params: wgpu::Buffer,
    boards: wgpu::Buffer,
    slot_info: wgpu::Buffer,
    puzzles: wgpu::Buffer,
    results: wgpu::Buffer,
    solutions: wgpu::Buffer,
    control: wgpu::Buffer,
    free_list: wgpu::Buffer,
    tables: wgpu::Buffer,
    control_read: wgpu::Buffer,
    results_read: wgpu::Buffer,
    solutions_read: wgpu::Buffer,
}

impl Buffers {
    fn new<P: Borrow<Grid>>(ctx: &GpuContext, params: &ForkParams, puzzles: &[P]) -> Self {
        let device = &ctx.device;
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let zeroed = |label: &str, size: u64| {
            // New buffers are zero-filled by wgpu: FREE slots, empty results, a zero control block.
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4),
                usage: storage,
                mapped_at_creation: false,
            })
        };
        let read = |label: &str, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let cells = u64::from(params.cells);
        let slots = u64::from(params.slots);
        let n = puzzles.len() as u64;
        let values: Vec<u32> = puzzles
            .iter()
            .flat_map(|p| p.borrow().cells().iter().map(|&v| u32::from(v)))
            .collect();
        Self {
            params: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: bytemuck::bytes_of(params),
                usage: wgpu::BufferUsages::UNIFORM,
            }),
            boards: zeroed("boards", slots * cells * 4),
            slot_info: zeroed("slot_info", slots * size_of::<SlotInfo>() as u64),
            puzzles: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("puzzles"),
                contents: bytemuck::cast_slice(&values),
                usage: wgpu::BufferUsages::STORAGE,
            }),
            results: zeroed("results", n * size_of::<PuzzleState>() as u64),
            solutions: zeroed("solutions", n * cells * 4),
            control: zeroed("control", size_of::<Control>() as u64),
            free_list: zeroed("free_list", slots * 4),
            tables: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("tables"),
                contents: bytemuck::cast_slice(&shape_tables(puzzles[0].borrow().shape())),
                usage: wgpu::BufferUsages::STORAGE,
            }),
            control_read: read("control_read", size_of::<Control>() as u64),
            results_read: read("results_read", n * size_of::<PuzzleState>() as u64),
            solutions_read: read("solutions_read", n * cells * 4),
        }
    }

    /// The bound buffers, in binding order.
    fn bound(&self) -> [&wgpu::Buffer; 9] {
        [
            &self.params,
            &self.boards,
            &self.slot_info,
            &self.puzzles,
            &self.results,
            &self.solutions,
            &self.control,
            &self.free_list,
            &self.tables,
        ]
    }
}

/// The shader's lookup tables for a shape: the cells of each unit (rows, columns, boxes; N each), then each
/// cell's three unit indexes packed `row | col << 8 | box << 16`.
pub fn shape_tables(shape: BoxShape) -> Vec<u32> {
    let n = shape.side();
    let mut tables: Vec<u32> = shape
        .units()
        .into_iter()
        .flatten()
        .map(|c| c as u32)
        .collect();
    tables.extend((0..shape.cells()).map(|cell| {
        let (r, c) = (cell / n, cell % n);
        (r | (n + c) << 8 | (2 * n + shape.box_of(r, c)) << 16) as u32
    }));
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_steps_every_slot_then_refills_then_relists() {
        let plan = round_plan(1000);
        let entries: Vec<&str> = plan.iter().map(|d| d.entry).collect();
        assert_eq!(entries, ["step", "refill", "reset", "collect"]);
        assert_eq!(plan[0].groups, (1000, 1));
        assert_eq!(plan[1].groups, (16, 1));
        assert_eq!(plan[2].groups, (1, 1));
        // Past 65,535 workgroups the step folds into a second dimension that covers every slot.
        let (x, y) = round_plan(200_000)[0].groups;
        assert!(x <= 65_535 && u64::from(x) * u64::from(y) >= 200_000);
    }

    #[test]
    fn tables_list_units_then_pack_each_cells_units() {
        let shape: BoxShape = "2x3".parse().unwrap();
        let t = shape_tables(shape);
        assert_eq!(t.len(), 3 * 6 * 6 + 36);
        assert_eq!(&t[..6], &[0, 1, 2, 3, 4, 5], "row 0");
        assert_eq!(&t[6 * 6..6 * 6 + 6], &[0, 6, 12, 18, 24, 30], "column 0");
        assert_eq!(
            &t[12 * 6 + 6..12 * 6 + 12],
            &[3, 4, 5, 9, 10, 11],
            "box 1: rows 0-1, columns 3-5"
        );
        // Cell 9 is row 1, column 3, box 1: units 1, 6 + 3, 12 + 1.
        assert_eq!(t[108 + 9], 1 | (9 << 8) | (13 << 16));
    }

    #[test]
    fn the_shader_names_the_same_workgroup_size_and_structs() {
        let wgsl = include_str!("../../shaders/sudoku_fork.wgsl");
        assert!(wgsl.contains(&format!("const WG: u32 = {WORKGROUP_SIZE}u;")));
        assert_eq!(wgsl.matches("@workgroup_size(64)").count(), 3);
        for name in [
            "struct Params",
            "struct SlotInfo",
            "struct PuzzleState",
            "struct Control",
        ] {
            assert!(wgsl.contains(name), "{name}");
        }
    }
}
