//! What the lane kernels share: one board per GPU lane, lanes that persist across short runs, a shared
//! pool of branches for the lanes that run out of puzzles. `shaders/sudoku_lane9.wgsl` (9×9) and
//! `shaders/sudoku_lanes.wgsl` (every other shape) differ in how a board is held; their parameters, control
//! block, buffers and the host's submission loop are the same, and live here (the shaders' side of them in
//! `shaders/sudoku_driver.wgsl`, put in front of each kernel's own file: [`driver_shader`]). The team kernel
//! (`shaders/sudoku_teams.wgsl`, a workgroup per board) runs here too, each team standing for a lane, and so
//! does the 9×9 kernel's `lone` (`shaders/sudoku_lone9.wgsl`), a workgroup of lanes per puzzle for batches of a
//! few, which shares branches inside each run and needs no `publish`.
//!
//! The host packs each puzzle ([`LaneLayout::puzzle_words`] words), uploads the batch once, and submits runs
//! of the kernel — each a `publish` (one invocation that moves the shared pool's boundaries) and a `run` (every
//! lane searches for `budget` passes, then parks) — reading back a small control block after each submission
//! for progress, until every puzzle has finished; then it hands each puzzle's result words to the caller where
//! the read-back lies. Nothing goes back to the CPU but a puzzle whose lane stack and the pool were both full
//! at once, or (every shape but 9×9) one past its guess budget.

use std::borrow::Borrow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use bytemuck::{Pod, Zeroable};
use web_time::{Duration, Instant};

mod buffers;
mod plan;

use super::pipeline::{
    Binding, PipelineJob, PipelineMaker, bind_resources, buffer_layout, made_and_checked,
};
use super::sudoku_fork::{ForkConfig, ForkStats, NineKernel};
use super::{GpuContext, GpuError, map_index, readback};
use crate::sudoku::Grid;
use buffers::{BatchBuffers, Buffers, LaneBuffers, control_of, results_of, upload, upload_parts};
use plan::{AdapterKind, LonePlan, Plan, plan};

/// What every lane kernel's shader shares with this driver and the other kernels: the parameters, the control
/// block, a result's flags and words, the common bindings and `publish`.
pub(crate) const DRIVER_WGSL: &str = include_str!("../../shaders/sudoku_driver.wgsl");

/// A lane kernel's shader: [`DRIVER_WGSL`], then the kernel's own files in order.
pub(crate) fn driver_shader(
    label: &'static str,
    files: &[&str],
) -> wgpu::ShaderModuleDescriptor<'static> {
    let text = std::iter::once(DRIVER_WGSL)
        .chain(files.iter().copied())
        .collect::<String>();
    wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(text.into()),
    }
}

/// Invocations per workgroup (`@workgroup_size` of `run`).
pub(crate) const GROUP: u32 = 64;
/// The result flag `OVERFLOW` (the second word of every result): the host finishes the puzzle.
pub(crate) const FLAG_OVERFLOW: u32 = 2;
/// lavapipe stops an invocation's loops after 65,535 iterations in all: a run there stays below this many.
const SOFTWARE_LOOP_ITERATIONS: u32 = 40_000;
/// A run aims at this long: far below what a browser allows a dispatch, long enough that launches cost little.
const TARGET: Duration = Duration::from_millis(8);
/// Once every puzzle of a batch is claimed, its runs aim at this long instead. The pool of branches is refilled
/// and handed out only between runs, so in a batch's tail, where a few hard puzzles' searches are shared among
/// lanes that have run out of puzzles, a lane that finds the pool empty idles until the next run. Measured on an
/// H200 (docs/benchmarks.md): a thousand generated 16×16 counted to 2 took 241 ms at 8 ms, 166–180 at 2, 1 and
/// 0.5 ms; a million kaggle or forum puzzles the same at 8 and 1 ms.
const TAIL_TARGET: Duration = Duration::from_millis(1);
/// Results up to this size are copied back with every submission (see `copy_along`).
const COPY_ALONG_BYTES: u64 = 1 << 20;
/// Bytes of the control block, at the head of a batch's state buffer.
const CONTROL_BYTES: u64 = size_of::<LaneControl>() as u64;
/// Where a batch's results begin in its state buffer, after the control block: the largest alignment WebGPU may
/// ask of a storage binding's offset. One buffer holding both is cleared by one command and read back by one copy
/// and one mapping, where two took two of each (a small batch's fixed cost, docs/benchmarks.md).
const RESULTS_AT: u64 = 256;
/// Runs in one submission (each followed by the next without a word from the host); the host reads progress
/// once per submission.
const RUNS_PER_SUBMISSION: u32 = 16;
/// Runs in the first part of a small batch's first submission (see `solve_uploaded`).
const EARLY_RUNS: u32 = 4;
/// Invocations of `lone` per puzzle (its `@workgroup_size`).
const LONE_LANES: u32 = 256;
/// Batches up to this size go to `lone` ([`NineKernel::Auto`]), where the lanes hold 256 per puzzle (natively,
/// every batch up to it). Measured on an H200 (docs/benchmarks.md): batches of 16 to 256 of the forum's hardest
/// 3–4× sooner than on the lane kernel, of kaggle's level with it.
const LONE_UP_TO: usize = 256;
/// `Auto` takes `lone` where its lanes get at least this many frames, the lane kernel's own stack: its 256
/// lanes share a search, so each waits on fewer branches than one lane alone (a puzzle that fills a stack goes
/// to the CPU, never lost).
const LONE_AUTO_DEPTH: u32 = 32;
/// Rounds of `lone` in a run at first: the model (`examples/lone_model.rs`) has every puzzle of the forum's
/// hardest solved within 55 and counted to 2 within 73, so one run answers a hard puzzle alone.
const LONE_ROUNDS: u32 = 128;
/// Runs of `lone` in a submission after its first (a single run).
const LONE_RUNS_PER_SUBMISSION: u32 = 4;
/// The result word, the same in every kernel of this driver, that counts a puzzle's branches alive.
const LIVE_WORD: usize = 2;

/// Twin of `Params` in the three shaders of this driver (a uniform: a multiple of 16 bytes). The 9×9 kernel
/// reads only the first six words.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct LaneParams {
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
    /// Grid side N.
    pub side: u32,
    /// Box height R.
    pub box_rows: u32,
    /// Box width C.
    pub box_cols: u32,
    /// Words in a stack frame.
    pub frame_words: u32,
    /// Words in a puzzle's result.
    pub result_words: u32,
    /// Guesses per puzzle before it goes to the host.
    pub max_guesses: u32,
}

/// Twin of `Control` in the three shaders of this driver.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct LaneControl {
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
    /// Branches given to the pool (by `lone`, to idle lanes, splits' branches included).
    pub donated: u32,
    /// Of those, branches `lone`'s splits handed to idle lanes (several guesses at once).
    pub split: u32,
    /// Padding.
    pub pad: u32,
}

const _: () = assert!(size_of::<LaneParams>() == 48);
const _: () = assert!(size_of::<LaneControl>() == 48);
/// Byte offset of `guesses` in the control block (the host zeroes it before each submission).
const GUESSES_OFFSET: u64 = 32;

/// How one kernel lays out a batch of one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaneLayout {
    /// The shape's side and box, passed on to the kernel.
    pub side: u32,
    pub box_rows: u32,
    pub box_cols: u32,
    /// Words of a packed puzzle.
    pub puzzle_words: usize,
    /// Words of a puzzle's result (its count first, its flags second).
    pub result_words: usize,
    /// Words of a stack frame.
    pub frame_words: u32,
    /// Stack frames per lane unless asked otherwise.
    pub default_depth: u32,
    /// Lanes on a hardware adapter natively, unless asked otherwise.
    pub native_lanes: u32,
    /// Loop iterations a pass may take at most (bounds a run on software adapters).
    pub pass_iterations: u32,
    /// Invocations that share one lane's board: 1 for the lane kernels, a workgroup for the team kernel
    /// (`shaders/sudoku_teams.wgsl`, whose every workgroup is one lane to this driver).
    pub invocations_per_lane: u32,
}

/// A lane kernel's pipelines, and the last batch's buffers.
pub(crate) struct LaneKernel {
    label: &'static str,
    layout: wgpu::BindGroupLayout,
    run: wgpu::ComputePipeline,
    publish: wgpu::ComputePipeline,
    /// The same module's `lone`, a workgroup per puzzle (9×9 only: `shaders/sudoku_lone9.wgsl`).
    lone: Option<wgpu::ComputePipeline>,
    cache: Mutex<Option<Buffers>>,
}

impl LaneKernel {
    /// The pipelines of `run` and `publish` (and `lone`, where `with_lone`) in the module `make_module`
    /// compiles; a validation error in any comes back as [`GpuError::Api`] naming the kernel (`what`).
    pub(crate) async fn compile(
        ctx: &GpuContext,
        label: &'static str,
        what: &str,
        with_lone: bool,
        make_module: impl FnOnce() -> wgpu::ShaderModule,
    ) -> Result<Self, GpuError> {
        use Binding::{Read, ReadWrite, Uniform};
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = make_module();
        let layout = buffer_layout(
            ctx,
            label,
            &[Uniform, Read, ReadWrite, ReadWrite, ReadWrite, ReadWrite],
        );
        let pipelines = PipelineMaker::new(ctx, label, &layout);
        let entries: &[&str] = if with_lone {
            &["run", "publish", "lone"]
        } else {
            &["run", "publish"]
        };
        let jobs = entries
            .iter()
            .map(|&entry| -> PipelineJob<wgpu::ComputePipeline> {
                let (pipelines, module) = (&pipelines, &module);
                Box::new(move || pipelines.pipeline(module, entry))
            })
            .collect();
        let mut made = made_and_checked(ctx, scope, what, jobs).await?;
        let mut next = || made.next().expect("a pipeline for each entry point");
        Ok(Self {
            label,
            run: next(),
            publish: next(),
            lone: with_lone.then(next),
            layout,
            cache: Mutex::new(None),
        })
    }

    /// Solves a batch of one shape, counting up to `limit` solutions each: `pack(puzzle, words)` fills a
    /// puzzle's words, and `each(index, result)` makes what the caller wants of a puzzle's result words,
    /// where the read-back lies (on every core natively). `progress(finished, total)` is called after each
    /// submission; returning false cancels.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn solve_each<P: Borrow<Grid> + Sync, T: Send>(
        &self,
        ctx: &GpuContext,
        layout: &LaneLayout,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        pack: impl Fn(&Grid, &mut [u32]) + Sync,
        each: impl Fn(usize, &[u32]) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        let pack_at = |i: usize, words: &mut [u32]| pack(puzzles[i].borrow(), words);
        self.solve_indexed(
            ctx,
            layout,
            puzzles.len(),
            limit,
            config,
            progress,
            pack_at,
            each,
        )
        .await
    }

    /// [`LaneKernel::solve_each`] for `count` puzzles that are not grids: `pack(index, words)` fills puzzle
    /// `index`'s words from wherever the caller keeps it (the 9×9 lines of a file, read where they lie).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn solve_indexed<T: Send>(
        &self,
        ctx: &GpuContext,
        layout: &LaneLayout,
        count: usize,
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        pack: impl Fn(usize, &mut [u32]) + Sync,
        each: impl Fn(usize, &[u32]) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        let words = layout.puzzle_words;
        let upload = |buffer: &wgpu::Buffer| upload(ctx, buffer, count, words, &pack);
        self.solve_uploaded(ctx, layout, count, limit, config, progress, upload, each)
            .await
    }

    /// [`LaneKernel::solve_each`] for puzzles packed already: `parts`, one after another, hold their words.
    /// They are copied into the upload in one pass on this thread, so a caller that packs on other cores (the
    /// command line, in a stage before the device's) does not wait here for cores that are busy elsewhere.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn solve_packed<T: Send>(
        &self,
        ctx: &GpuContext,
        layout: &LaneLayout,
        parts: &[&[u32]],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        each: impl Fn(usize, &[u32]) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        let words: usize = parts.iter().map(|part| part.len()).sum();
        debug_assert_eq!(words % layout.puzzle_words, 0, "whole puzzles");
        let count = words / layout.puzzle_words;
        let upload = |buffer: &wgpu::Buffer| upload_parts(ctx, buffer, parts, words);
        self.solve_uploaded(ctx, layout, count, limit, config, progress, upload, each)
            .await
    }

    /// Solves `count` puzzles that `upload` writes into the puzzles' buffer (see [`LaneKernel::solve_each`]).
    #[allow(clippy::too_many_arguments)]
    async fn solve_uploaded<T: Send>(
        &self,
        ctx: &GpuContext,
        layout: &LaneLayout,
        count: usize,
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        upload: impl FnOnce(&wgpu::Buffer) -> Result<(), GpuError>,
        each: impl Fn(usize, &[u32]) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        if count == 0 {
            return Ok((Vec::new(), ForkStats::default()));
        }
        let n = count as u32;
        let kind = AdapterKind::of(&ctx.info);
        let max_binding = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        let plan = plan(&config, layout, kind, max_binding);
        // A workgroup holds GROUP lanes of a lane kernel, one of the team kernel.
        let lanes_per_group = (GROUP / layout.invocations_per_lane.max(1)).max(1);
        let puzzle_bytes = u64::from(n) * layout.puzzle_words as u64 * 4;
        let result_bytes = u64::from(n) * layout.result_words as u64 * 4;
        let started = Instant::now();
        let buffers = self.buffers(ctx, plan, puzzle_bytes, result_bytes).await?;
        upload(&buffers.batch.puzzles)?;
        let mut stats = ForkStats {
            slots: plan.lanes,
            upload_seconds: started.elapsed().as_secs_f64(),
            ..ForkStats::default()
        };
        let started = Instant::now();
        // A batch of a few 9×9 puzzles goes to `lone`, a workgroup per puzzle (see `LonePlan`).
        let lone = self.lone.as_ref().and_then(|pipeline| {
            let lone = LonePlan::new(plan, n)?;
            let wanted = match config.nine_kernel {
                NineKernel::Auto => count <= LONE_UP_TO && lone.depth >= LONE_AUTO_DEPTH,
                NineKernel::Lanes => false,
                NineKernel::Lone => true,
            };
            wanted.then_some((pipeline, lone))
        });
        // No results, every lane idle, an empty pool: cleared at the head of the first submission. `lone` reads
        // a lane's words only once its puzzle has started (results cleared say none has), so its lanes are not.
        let mut clearing = ctx.device.create_command_encoder(&Default::default());
        clearing.clear_buffer(&buffers.batch.state, 0, Some(RESULTS_AT + result_bytes));
        if lone.is_none() {
            clearing.clear_buffer(&buffers.lanes.lanes, 0, None);
        }
        let mut first = Some(clearing);
        let max_budget = if kind == AdapterKind::Software {
            (SOFTWARE_LOOP_ITERATIONS / layout.pass_iterations.max(1)).max(1)
        } else {
            1 << 16
        };
        // Short runs first, many to a submission: a single hard puzzle spreads over the lanes one run at a time,
        // and an easy batch ends within the first submission. `lone` shares branches within its runs: one run
        // of it answers most batches.
        let (min_budget, early_runs, runs_per_submission) = match lone {
            Some(_) => (LONE_ROUNDS, 1, LONE_RUNS_PER_SUBMISSION),
            None => (16, EARLY_RUNS, RUNS_PER_SUBMISSION),
        };
        let min_budget = min_budget.min(max_budget);
        let mut budget = min_budget;
        // A small batch's results travel with every submission: the one that finishes the batch has brought
        // them back, and a round trip to the GPU is saved (a large one's are copied once, at the end).
        let copy_along = result_bytes <= COPY_ALONG_BYTES;
        let words = layout.result_words;
        let overflowed = AtomicU64::new(0);
        let answer = |i: usize, results: &[u32]| {
            let result = &results[i * words..(i + 1) * words];
            if result[1] & FLAG_OVERFLOW != 0 {
                overflowed.fetch_add(1, Ordering::Relaxed);
            }
            each(i, result)
        };
        // A submission's runs, then its copy of the control block (with the results, where `copy_along`) to `to`.
        let submit =
            |encoder: Option<wgpu::CommandEncoder>, runs: u32, budget: u32, to: &wgpu::Buffer| {
                ctx.queue.write_buffer(
                    &buffers.lanes.params,
                    0,
                    bytemuck::bytes_of(&LaneParams {
                        puzzles: n,
                        limit: limit.clamp(1, u64::from(u32::MAX)) as u32,
                        lanes: lone.map_or(plan.lanes, |(_, l)| l.lanes),
                        depth: lone.map_or(plan.depth, |(_, l)| l.depth),
                        pool: plan.pool,
                        budget,
                        side: layout.side,
                        box_rows: layout.box_rows,
                        box_cols: layout.box_cols,
                        frame_words: layout.frame_words,
                        result_words: layout.result_words as u32,
                        max_guesses: config.max_guesses.min(u64::from(u32::MAX)) as u32,
                    }),
                );
                // Later submissions zero the guesses word; the first clears the whole state buffer.
                if encoder.is_none() {
                    ctx.queue.write_buffer(
                        &buffers.batch.state,
                        GUESSES_OFFSET,
                        bytemuck::bytes_of(&0u32),
                    );
                }
                let mut encoder = encoder
                    .unwrap_or_else(|| ctx.device.create_command_encoder(&Default::default()));
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    pass.set_bind_group(0, &buffers.bind_group, &[]);
                    if let Some((lone, _)) = lone {
                        // A workgroup per puzzle, which shares its branches itself: no `publish`.
                        pass.set_pipeline(lone);
                        for _ in 0..runs {
                            pass.dispatch_workgroups(n, 1, 1);
                        }
                    } else {
                        for _ in 0..runs {
                            pass.set_pipeline(&self.publish);
                            pass.dispatch_workgroups(1, 1, 1);
                            pass.set_pipeline(&self.run);
                            pass.dispatch_workgroups(plan.lanes.div_ceil(lanes_per_group), 1, 1);
                        }
                    }
                }
                let bytes = if copy_along {
                    RESULTS_AT + result_bytes
                } else {
                    CONTROL_BYTES
                };
                encoder.copy_buffer_to_buffer(&buffers.batch.state, 0, to, 0, Some(bytes));
                ctx.submit(encoder.finish());
            };
        // A small batch's first submission goes in two parts, the second queued before the first is read: most
        // puzzles have finished by the end of the first part, and the host checks them while the GPU searches
        // the slowest few (before, the checks of a thousand 25×25 puzzles, 0.3 ms on 16 cores, followed a
        // search of 0.7 ms that the slowest boards decide).
        let mut early = copy_along.then(|| {
            submit(
                first.take(),
                early_runs,
                budget,
                &buffers.batch.state_early_read,
            );
            Instant::now()
        });
        // Each puzzle's answer, where the first part's read-back already made it.
        let mut made_early: Option<Vec<Option<T>>> = None;
        // Every answer, from the results where `results` lies: the rest, then both merged in order, where the
        // first part's read-back made some (a small batch: this pass is short).
        let all_answers = |results: &[u32], early: Option<Vec<Option<T>>>| -> Vec<T> {
            match early {
                None => map_index(count, |i| answer(i, results)),
                Some(early) => {
                    let rest: Vec<usize> = (0..count).filter(|&i| early[i].is_none()).collect();
                    let mut late = map_index(rest.len(), |k| answer(rest[k], results)).into_iter();
                    early
                        .into_iter()
                        .map(|m| m.unwrap_or_else(|| late.next().expect("one for each left")))
                        .collect()
                }
            }
        };
        let state_bytes = RESULTS_AT..RESULTS_AT + result_bytes;
        // The answers once a read-back has brought every puzzle's final results (a small batch's), and the time
        // they took (counted as the download's, not the search's).
        let mut made: Option<Vec<T>> = None;
        let mut answering = Duration::ZERO;
        loop {
            // The first part's runs, if any, were submitted already; the rest make up a submission's worth.
            let earlier = if early.is_some() { early_runs } else { 0 };
            // `lone`'s first run answers nearly every batch (the model: every forum puzzle within 73 of its 128
            // rounds), so its second part waits for the first's read-back: encoding it took the host 20–40 µs
            // that an easy puzzle's answer waited on (H200).
            let second_later = early.is_some() && lone.is_some();
            if !second_later {
                submit(
                    first.take(),
                    runs_per_submission - earlier,
                    budget,
                    &buffers.batch.state_read,
                );
            }
            let submitted = early.unwrap_or_else(Instant::now);
            let runs = runs_per_submission;
            if early.take().is_some() {
                // One mapping for the control block and the results.
                let early_read = &buffers.batch.state_early_read;
                let (state, early_made) =
                    readback::with_mapped_range(ctx, early_read, 0..state_bytes.end, |bytes| {
                        let state = control_of(bytes);
                        let results = results_of(bytes, result_bytes);
                        // Claimed, with no branch alive: its result words are final.
                        let claimed = state.next_puzzle.min(n) as usize;
                        let settled = |i: usize| i < claimed && results[i * words + LIVE_WORD] == 0;
                        let made = map_index(count, |i| settled(i).then(|| answer(i, results)));
                        (state, made)
                    })
                    .await?;
                stats.submissions += 1;
                stats.guesses += u64::from(state.guesses);
                let finished = state.finished.min(n) as usize;
                if !progress(finished, count) {
                    return Err(GpuError::Cancelled);
                }
                let answered = early_made.iter().filter(|m| m.is_some()).count();
                stats.answered_early = answered as u64;
                if answered == count {
                    // The second part is left to run out unread.
                    stats.rounds += u64::from(early_runs);
                    stats.forks = u64::from(state.donated);
                    stats.split = u64::from(state.split);
                    stats.search_seconds = started.elapsed().as_secs_f64();
                    stats.overflowed = overflowed.load(Ordering::Relaxed);
                    let made = early_made.into_iter().flatten().collect();
                    *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Some(buffers);
                    return Ok((made, stats));
                }
                made_early = Some(early_made);
                if second_later {
                    submit(
                        None,
                        runs_per_submission - earlier,
                        budget,
                        &buffers.batch.state_read,
                    );
                }
            }
            // A small batch's read-back brings its results too: answered here once every puzzle has finished.
            let read = &buffers.batch.state_read;
            let state = if copy_along {
                let early = &mut made_early;
                readback::with_mapped_range(ctx, read, 0..state_bytes.end, |bytes| {
                    let state = control_of(bytes);
                    if state.finished >= n {
                        let at = Instant::now();
                        made = Some(all_answers(results_of(bytes, result_bytes), early.take()));
                        answering = at.elapsed();
                    }
                    state
                })
                .await?
            } else {
                readback::with_mapped_range(ctx, read, 0..CONTROL_BYTES, control_of).await?
            };
            let took = submitted.elapsed();
            stats.submissions += 1;
            stats.rounds += u64::from(runs);
            stats.guesses += u64::from(state.guesses);
            stats.forks = u64::from(state.donated);
            stats.split = u64::from(state.split);
            let finished = state.finished.min(n) as usize;
            if !progress(finished, count) {
                return Err(GpuError::Cancelled);
            }
            if finished == count {
                break;
            }
            // Aim each run at its target, changing at most 4× at a time.
            let target = if state.next_puzzle >= n {
                TAIL_TARGET
            } else {
                TARGET
            };
            let per_run = took.as_secs_f64() / f64::from(runs);
            let scale = (target.as_secs_f64() / per_run.max(1e-5)).clamp(0.25, 4.0);
            budget = ((f64::from(budget) * scale) as u32).clamp(min_budget, max_budget);
        }
        stats.search_seconds = started.elapsed().saturating_sub(answering).as_secs_f64();
        let started = Instant::now();
        let made = match made {
            Some(made) => made,
            None => {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(
                    &buffers.batch.state,
                    RESULTS_AT,
                    &buffers.batch.state_read,
                    RESULTS_AT,
                    Some(result_bytes),
                );
                ctx.submit(encoder.finish());
                let read = &buffers.batch.state_read;
                readback::with_mapped_range(ctx, read, state_bytes.clone(), |bytes| {
                    stats.transfer_seconds = started.elapsed().as_secs_f64();
                    all_answers(bytemuck::cast_slice(bytes), made_early.take())
                })
                .await?
            }
        };
        stats.overflowed = overflowed.load(Ordering::Relaxed);
        stats.download_seconds = (started.elapsed() + answering).as_secs_f64();
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Some(buffers);
        Ok((made, stats))
    }

    /// Buffers for a batch on `plan`: the last batch's where they fit (the lanes' buffers while the plan holds,
    /// the batch's while they have room: a file's chunks are all one size but the last), new ones otherwise.
    /// They leave the cache meanwhile, so a second batch at once (the page's engines) makes its own.
    async fn buffers(
        &self,
        ctx: &GpuContext,
        plan: Plan,
        puzzle_bytes: u64,
        result_bytes: u64,
    ) -> Result<Buffers, GpuError> {
        let cached = self.cache.lock().unwrap_or_else(|p| p.into_inner()).take();
        let (lanes, batch, bind_group) = match cached {
            Some(b) => (Some(b.lanes), Some(b.batch), Some(b.bind_group)),
            None => (None, None, None),
        };
        let lanes = lanes.filter(|l| l.plan == plan);
        let batch =
            batch.filter(|b| b.puzzles.size() >= puzzle_bytes && b.result_room() >= result_bytes);
        let bind_group = bind_group.filter(|_| lanes.is_some() && batch.is_some());
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let lanes = lanes.unwrap_or_else(|| LaneBuffers::new(ctx, self.label, plan));
        let batch =
            batch.unwrap_or_else(|| BatchBuffers::new(ctx, self.label, puzzle_bytes, result_bytes));
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Api(format!(
                "not enough GPU memory for the batch and {} lanes: {error}",
                plan.lanes
            )));
        }
        let bind_group = bind_group.unwrap_or_else(|| {
            // Results and control share the state buffer, apart (see `RESULTS_AT`).
            let range = |offset, size| {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &batch.state,
                    offset,
                    size: wgpu::BufferSize::new(size),
                })
            };
            let bound = [
                lanes.params.as_entire_binding(),
                batch.puzzles.as_entire_binding(),
                range(RESULTS_AT, batch.result_room()),
                range(0, CONTROL_BYTES),
                lanes.lanes.as_entire_binding(),
                lanes.frames.as_entire_binding(),
            ];
            bind_resources(ctx, self.label, &self.layout, &bound)
        });
        Ok(Buffers {
            lanes,
            batch,
            bind_group,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_s_shader_mirrors_the_host_and_each_kernel_adds_its_own() {
        let fields = |wgsl: &str, name: &str| -> Vec<String> {
            let body = wgsl.split(&format!("struct {name} {{")).nth(1).unwrap();
            let body = body.split('}').next().unwrap();
            body.lines()
                .filter_map(|l| l.split(':').next())
                .map(|f| f.trim().to_string())
                .filter(|f| !f.is_empty() && !f.starts_with("//"))
                .collect()
        };
        assert_eq!(
            fields(DRIVER_WGSL, "Params").len(),
            size_of::<LaneParams>() / 4
        );
        assert_eq!(
            fields(DRIVER_WGSL, "Control").len(),
            size_of::<LaneControl>() / 4
        );
        // `guesses` is the ninth word of Control.
        assert_eq!(fields(DRIVER_WGSL, "Control")[8], "guesses");
        assert_eq!(GUESSES_OFFSET, 8 * 4);
        // A result's third word counts its branches alive (the host reads it in `solve_uploaded`).
        assert!(DRIVER_WGSL.contains(&format!("const LIVE: u32 = {LIVE_WORD}u;")));
        assert!(DRIVER_WGSL.contains(&format!("const OVERFLOW: u32 = {FLAG_OVERFLOW}u;")));
        let lane9 = include_str!("../../shaders/sudoku_lane9.wgsl");
        assert_eq!(fields(lane9, "Result")[LIVE_WORD], "live");
        for (wgsl, size) in [
            (lane9, GROUP),
            (include_str!("../../shaders/sudoku_lanes.wgsl"), GROUP),
            (
                include_str!("../../shaders/sudoku_teams.wgsl"),
                super::super::team_cells::TEAM,
            ),
        ] {
            // A lane kernel's workgroup is GROUP lanes, the team kernel's one team.
            assert!(wgsl.contains(&format!("@workgroup_size({size})")));
            // What the driver's file declares is declared there only.
            for shared in [
                "struct Params",
                "struct Control",
                "fn publish",
                "@binding(0)",
            ] {
                assert!(!wgsl.contains(shared), "{shared}");
            }
        }
    }
}
