//! Choosing and running the engine for each chunk: the CPU on every core, or the GPU kernels.

use std::borrow::Borrow;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

use forkboard::gpu::lane9::Lane9Result;
use forkboard::gpu::nine_batch::solve_packed_nines_blocking;
use forkboard::gpu::sudoku_batch::{BatchReport, SudokuKernels, answer_chunk_blocking};
use forkboard::gpu::sudoku_fork::{CellsKernel, ForkConfig, NineKernel};
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::format::{Answer, NineAnswer, NinePiece, Record};
use forkboard::sudoku::with_thread_solver;

use crate::Engine;
use crate::gpus::describe_share;
use crate::seconds::seconds_text;
use setup::Setup;
pub use setup::{AutoTesting, RunProgress, exit};

mod setup;

/// Chunks smaller than this go to the CPU under `--engine auto`: uploading, dispatching and reading back cost
/// more than the CPU needs for a handful of puzzles. Measured on the H100 machine against the CPU engine on all
/// 16 cores (docs/benchmarks.md): the 9×9 lane kernel overtakes it at about 5 easy, 11 of the hardest and 30
/// top1465 puzzles.
pub const AUTO_GPU_MIN: usize = 32;

/// What an engine made of a chunk's plain 9×9 puzzles, in order.
pub enum NineResults {
    /// The GPU's raw results, each to be checked against its puzzle.
    Gpu(Vec<Lane9Result>),
    /// The CPU's answers.
    Cpu(Vec<NineAnswer>),
}

/// A ready GPU.
struct Gpu {
    ctx: GpuContext,
    kernel: SudokuKernels,
}

/// What one GPU did in a run that shared its chunks among several (`solve --gpus`).
#[derive(Clone, Debug)]
pub struct GpuShare {
    /// The adapter, for people.
    pub name: String,
    /// Puzzles it answered.
    pub puzzles: u64,
    /// Seconds its answering thread ran.
    pub seconds: f64,
    /// Why it stopped early, if it did (its chunk in flight was answered on the CPU, the rest by the others).
    pub failed: Option<String>,
}

/// The engine state of one run.
pub struct Engines {
    choice: Engine,
    config: ForkConfig,
    gpu: Option<Gpu>,
    /// Under auto, the preferred GPU looked for and set up on a thread of its own (naming the adapter takes some
    /// 80 ms on an NVIDIA driver; the device, every kernel compiled and warmed a few hundred more, seconds where
    /// the driver has no compiled shaders cached). Until it is ready the CPU answers, so that an input the CPU is
    /// through with sooner never waits for it.
    setting_up: Option<Setup>,
    /// For tests: a chunk that goes to the GPU waits for its setup instead (`solve --auto-waits-for-gpu`).
    wait_for_setup: bool,
    /// Auto's GPU was ready only once the CPU was through with the input.
    ready_after_run: bool,
    /// When auto's GPU setup began and ended, in seconds into the run.
    setup_timeline: Option<(f64, f64)>,
    /// `--lose-gpu-after`, for a GPU opened later.
    lose_after: Option<u64>,
    /// The other GPUs of `--gpus`: [`Engines::split_by_gpu`] gives each its own engine.
    more_gpus: Vec<Gpu>,
    /// The GPU's description, kept for the summary after a failure drops it.
    gpu_name: Option<String>,
    /// Why this engine's GPU failed, if it did.
    failure: Option<String>,
    /// Other GPUs share this run (an engine of [`Engines::split_by_gpu`]).
    shared: bool,
    /// What each GPU did, when several shared the run.
    shares: Vec<GpuShare>,
    /// Why the GPU is not used (under `auto`), or why it stopped being used.
    pub note: Option<String>,
    /// Totals of the GPU batches.
    pub gpu_report: BatchReport,
    /// Puzzles answered by each engine.
    pub on_gpu: u64,
    /// Puzzles answered by the CPU engine.
    pub on_cpu: u64,
}

impl Engines {
    /// Sets up the engine asked for: the preferred GPU, or each adapter of `gpus` (numbers as `--gpus` gives
    /// them). `--engine gpu` and a listed GPU fail here, clearly, when they cannot be had; `--engine cpu`
    /// opens none. `max_guesses` is the CPU solver's guess budget per puzzle (0: none). `testing` changes auto
    /// for tests.
    pub fn new(
        choice: Engine,
        gpu_slots: u32,
        max_guesses: u64,
        gpus: Option<&[usize]>,
        testing: AutoTesting,
    ) -> Result<Self, String> {
        let config = ForkConfig {
            slots: gpu_slots,
            max_guesses,
            ..ForkConfig::default()
        };
        let mut engines = Self::without_gpus(choice, config);
        engines.wait_for_setup = testing.wait_for_setup;
        match (choice, gpus) {
            (Engine::Cpu, _) => {}
            (_, Some(list)) => {
                for &index in list {
                    let gpu =
                        open_gpu(Some(index)).map_err(|e| format!("--gpus: GPU {index}: {e}"))?;
                    match engines.gpu {
                        None => engines.gpu = Some(gpu),
                        Some(_) => engines.more_gpus.push(gpu),
                    }
                }
            }
            (Engine::Gpu, None) => {
                engines.gpu = Some(open_gpu(None).map_err(|e| format!("--engine gpu: {e}"))?)
            }
            (Engine::Auto, None) => engines.setting_up = Some(Setup::start(testing.software_gpu)),
        }
        if let Some(gpu) = &engines.gpu {
            engines.gpu_name = Some(gpu.ctx.describe());
        }
        Ok(engines)
    }

    /// An engine of `choice` with no GPU opened yet and nothing answered.
    fn without_gpus(choice: Engine, config: ForkConfig) -> Self {
        Self {
            choice,
            config,
            gpu: None,
            setting_up: None,
            wait_for_setup: false,
            ready_after_run: false,
            setup_timeline: None,
            lose_after: None,
            more_gpus: Vec::new(),
            gpu_name: None,
            failure: None,
            shared: false,
            shares: Vec::new(),
            note: None,
            gpu_report: BatchReport::default(),
            on_gpu: 0,
            on_cpu: 0,
        }
    }

    /// With several GPUs, one engine for each, which takes the GPU along (each answers chunks on a thread of
    /// its own; [`Engines::absorb`] takes back what they did and the GPUs still working). Empty with one GPU
    /// or none: this engine answers on its own.
    pub fn split_by_gpu(&mut self) -> Vec<Engines> {
        if self.more_gpus.is_empty() {
            return Vec::new();
        }
        let gpus: Vec<Gpu> = self
            .gpu
            .take()
            .into_iter()
            .chain(self.more_gpus.drain(..))
            .collect();
        gpus.into_iter()
            .map(|gpu| {
                let mut engine = Self::without_gpus(self.choice, self.config);
                engine.gpu_name = Some(gpu.ctx.describe());
                engine.gpu = Some(gpu);
                engine.shared = true;
                engine
            })
            .collect()
    }

    /// Takes back the engines of [`Engines::split_by_gpu`], each with the seconds its thread ran: their
    /// counts, their GPUs that still work (for a later run), and a share each for `--stats`.
    pub fn absorb(&mut self, parts: Vec<(Engines, f64)>) {
        let working = parts.iter().filter(|(part, _)| part.gpu.is_some()).count();
        let failed: Vec<String> = parts
            .iter()
            .filter_map(|(part, _)| {
                let name = part.gpu_name.as_deref().unwrap_or("a GPU");
                part.failure.as_ref().map(|e| format!("{name}: {e}"))
            })
            .collect();
        if !failed.is_empty() {
            let failed = failed.join("; ");
            self.note = Some(if working > 0 {
                format!("a GPU failed mid-run ({failed}); the other GPUs finished")
            } else {
                format!("every GPU failed mid-run ({failed}); the CPU finished")
            });
        }
        for (part, seconds) in parts {
            self.gpu_report.add(&part.gpu_report);
            self.on_gpu += part.on_gpu;
            self.on_cpu += part.on_cpu;
            self.shares.push(GpuShare {
                name: part.gpu_name.unwrap_or_default(),
                puzzles: part.on_gpu,
                seconds,
                failed: part.failure,
            });
            if let Some(gpu) = part.gpu {
                match self.gpu {
                    None => self.gpu = Some(gpu),
                    Some(_) => self.more_gpus.push(gpu),
                }
            }
        }
    }

    /// Answers one chunk, in order, on the engine chosen for it (its records owned or borrowed).
    pub fn answer<R: Borrow<Record> + Sync>(
        &mut self,
        chunk: &[R],
        mode: Mode,
    ) -> Result<Vec<Answer>, String> {
        self.take_ready_gpu(chunk.len());
        if let Some(gpu) = self.gpu_for(chunk.len()) {
            let run = answer_chunk_blocking(
                &gpu.ctx,
                &gpu.kernel,
                chunk,
                mode,
                self.config,
                &mut |_, _| true,
            );
            match run {
                Ok((answers, report)) => {
                    self.gpu_report.add(&report);
                    self.on_gpu += chunk.len() as u64;
                    return Ok(answers);
                }
                Err(e) => self.gpu_failed(e),
            }
        }
        self.on_cpu += chunk.len() as u64;
        let max_guesses = self.config.max_guesses;
        Ok(chunk
            .par_iter()
            .map(|record| {
                with_thread_solver(max_guesses, |solver| answer(record.borrow(), solver, mode))
            })
            .collect())
    }

    /// Answers pieces of plain 9×9 puzzles, in order, on the engine chosen for them: on the GPU from their
    /// puzzles packed already (`packed[k]`, piece k's, [`forkboard::gpu::nine_batch::pack_nines`]; its raw
    /// results, which the caller makes answers of where it formats them,
    /// [`forkboard::gpu::nine_batch::answer_nine`]), on the CPU as records read from them.
    pub fn answer_nines(
        &mut self,
        pieces: &[&NinePiece],
        packed: &[&[[u32; 12]]],
        mode: Mode,
    ) -> Result<NineResults, String> {
        let puzzles: usize = pieces.iter().map(|piece| piece.len()).sum();
        self.take_ready_gpu(puzzles);
        if let Some(gpu) = self.gpu_for(puzzles) {
            let run = solve_packed_nines_blocking(
                &gpu.ctx,
                &gpu.kernel.lane9,
                packed,
                mode.limit(),
                self.config,
                &mut |_, _| true,
            );
            match run {
                Ok((results, report)) => {
                    self.gpu_report.add(&report);
                    self.on_gpu += puzzles as u64;
                    return Ok(NineResults::Gpu(results));
                }
                Err(e) => self.gpu_failed(e),
            }
        }
        self.on_cpu += puzzles as u64;
        let engines = &*self;
        Ok(NineResults::Cpu(
            pieces
                .par_iter()
                .flat_map_iter(|piece| engines.answer_nines_on_this_thread(piece, mode))
                .collect(),
        ))
    }

    /// Which GPU kernel searches shapes other than 9×9 (`bench --cells-kernel`).
    pub fn set_cells_kernel(&mut self, kernel: CellsKernel) {
        self.config.cells_kernel = kernel;
    }

    /// Which GPU kernel searches 9×9 (`bench --nine-kernel`).
    pub fn set_nine_kernel(&mut self, kernel: NineKernel) {
        self.config.nine_kernel = kernel;
    }

    /// Stack frames per GPU lane or team, 0 for each kernel's default (`bench --gpu-depth`).
    pub fn set_stack_depth(&mut self, depth: u32) {
        self.config.stack_depth = depth;
    }

    /// The CPU solver's guess budget per puzzle (0: none).
    pub fn max_guesses(&self) -> u64 {
        self.config.max_guesses
    }

    /// Counts puzzles of a GPU chunk that the CPU had to solve after all (found where its results were made
    /// answers, after [`Engines::answer_nines`]).
    pub fn add_cpu_fallbacks(&mut self, puzzles: u64) {
        self.gpu_report.cpu_fallbacks += puzzles;
    }

    /// The GPU, when a chunk of `puzzles` goes to it.
    fn gpu_for(&self, puzzles: usize) -> Option<&Gpu> {
        self.gpu.as_ref().filter(|_| self.wants_gpu(puzzles))
    }

    /// Whether a chunk of `puzzles` goes to the GPU, where there is one.
    fn wants_gpu(&self, puzzles: usize) -> bool {
        match self.choice {
            Engine::Cpu => false,
            Engine::Gpu => true,
            Engine::Auto => puzzles >= AUTO_GPU_MIN,
        }
    }

    /// Before a chunk of `puzzles`: takes the GPU set up in the background (auto) once it is ready. If it could
    /// not be set up, the CPU answers, and `--stats` says why.
    fn take_ready_gpu(&mut self, puzzles: usize) {
        let Some(setup) = &self.setting_up else {
            return;
        };
        let outcome = if self.wants_gpu(puzzles) && self.wait_for_setup {
            setup.wait()
        } else {
            match setup.ready() {
                Some(outcome) => outcome,
                None => return,
            }
        };
        // (The thread is done, or about to be: `Setup` joins it when dropped.)
        self.setup_timeline = setup.timeline();
        match outcome {
            Ok(gpu) => {
                if let Some(submissions) = self.lose_after {
                    gpu.ctx.lose_device_after(submissions);
                }
                self.gpu_name = Some(gpu.ctx.describe());
                self.gpu = Some(gpu);
            }
            Err(why) => self.note = Some(why),
        }
        self.setting_up = None;
    }

    /// After the run: what became of auto's GPU, if its setup ended meanwhile (for `--stats`).
    pub fn settle(&mut self) {
        let had = self.gpu.is_some();
        self.take_ready_gpu(0);
        self.ready_after_run = !had && self.gpu.is_some();
    }

    /// Under auto, while the GPU is being set up and the CPU answers: a flag its setup raises once the GPU is
    /// ready, for the CPU's way to hand the rest of the input to the GPU's ([`crate::stages`]).
    pub fn gpu_ready_flag(&self) -> Option<Arc<AtomicBool>> {
        self.setting_up
            .as_ref()
            .filter(|_| self.is_racing())
            .map(Setup::ready_flag)
    }

    /// Under auto, while its GPU's setup is to come or under way: how far the run has come, which the run keeps
    /// up to date so that no GPU is set up for a run the CPU will be through with sooner.
    pub fn run_progress(&self) -> Option<Arc<RunProgress>> {
        self.setting_up.as_ref().map(Setup::progress)
    }

    /// True while auto's GPU is being set up and the CPU answers meanwhile (not for `--auto-waits-for-gpu`).
    pub fn is_racing(&self) -> bool {
        self.setting_up.is_some() && !self.wait_for_setup
    }

    /// After the GPU failed on a chunk: nothing of it was written yet, so the CPU answers all of it, and the
    /// rest of the run (under `--engine gpu` too: answers are never lost, and the warning and --stats say so).
    fn gpu_failed(&mut self, e: GpuError) {
        if self.shared {
            let name = self.gpu_name.as_deref().unwrap_or("a GPU");
            eprintln!(
                "forkboard: {name} failed ({e}); its chunk goes to the CPU, the rest to the GPUs still \
                 working (or the CPU, if none is)"
            );
        } else {
            eprintln!("forkboard: the GPU failed ({e}); continuing on the CPU");
        }
        self.note = Some(format!("the GPU failed mid-run ({e}); the CPU finished"));
        self.failure = Some(e.to_string());
        self.gpu = None;
    }

    /// True while a GPU answers this engine's chunks.
    pub fn has_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Answers records one after another on this thread's CPU solver, for a caller that spreads its work over
    /// the cores itself; it says how many with [`Engines::count_on_cpu`].
    pub fn answer_on_this_thread(&self, records: &[Record], mode: Mode) -> Vec<Answer> {
        with_thread_solver(self.config.max_guesses, |solver| {
            records
                .iter()
                .map(|record| answer(record, solver, mode))
                .collect()
        })
    }

    /// [`Engines::answer_on_this_thread`] for plain 9×9 puzzles: each read as a record straight from its
    /// values, and its answer kept as values where it writes the same ([`NineAnswer::from_answer`]).
    pub fn answer_nines_on_this_thread(&self, nines: &NinePiece, mode: Mode) -> Vec<NineAnswer> {
        with_thread_solver(self.config.max_guesses, |solver| {
            (0..nines.len())
                .map(|i| {
                    let record = nines.record(i);
                    let answer = answer(&record, solver, mode);
                    NineAnswer::from_answer(record, answer)
                })
                .collect()
        })
    }

    /// Counts puzzles answered on the CPU by [`Engines::answer_on_this_thread`].
    pub fn count_on_cpu(&mut self, puzzles: u64) {
        self.on_cpu += puzzles;
    }

    /// Fault injection (`--lose-gpu-after`): the GPU device is destroyed after `submissions` submissions.
    pub fn lose_gpu_after(&mut self, submissions: u64) {
        self.lose_after = Some(submissions);
        if let Some(gpu) = &self.gpu {
            gpu.ctx.lose_device_after(submissions);
        }
    }

    /// True while chunks go to a GPU, which wants them large.
    pub fn prefers_large_chunks(&self) -> bool {
        self.gpu.is_some() || self.setting_up.is_some() || !self.more_gpus.is_empty()
    }

    /// The GPU in use ("name (backend)"), if any.
    pub fn gpu_name(&self) -> Option<&str> {
        self.gpu_name.as_deref()
    }

    /// One line on what ran, for `--stats`.
    pub fn describe(&self) -> String {
        let threads = rayon::current_num_threads();
        let mut parts = Vec::new();
        let mut note = self.note.clone();
        // Under auto, a GPU that was given no chunk (every one too small) did not run: the line says so rather
        // than list it with no puzzles.
        let stood_by =
            matches!(self.choice, Engine::Auto) && self.on_gpu == 0 && self.shares.is_empty();
        if note.is_none() {
            note = match (stood_by, &self.gpu_name, &self.setting_up) {
                (true, Some(name), _) if self.ready_after_run => Some(format!(
                    "auto: the CPU was through with the input as the GPU, {name}, became ready"
                )),
                (true, Some(name), _) => Some(format!(
                    "auto: chunks under {AUTO_GPU_MIN} puzzles are answered sooner on the CPU, so the GPU, \
                     {name}, was not used"
                )),
                (true, None, Some(setup)) if setup.began() => Some(
                    "auto: the CPU was through with the input before a GPU was set up".to_string(),
                ),
                (true, None, Some(_)) => Some(
                    "auto: the CPU was through with the input sooner than a GPU could be set up, so none was"
                        .to_string(),
                ),
                (false, Some(_), _) if !self.wait_for_setup => {
                    self.setup_timeline.map(|(began, ended)| {
                        format!(
                            "auto: the CPU answered while the GPU was set up, from {} s into the run to {} s",
                            seconds_text(began),
                            seconds_text(ended)
                        )
                    })
                }
                _ => None,
            };
        }
        if let Some(name) = self.gpu_name.as_ref().filter(|_| !stood_by) {
            let k = &self.gpu_report.kernel;
            let which = match self.shares.len() {
                0 | 1 => format!("gpu {name}"),
                several => format!("{several} gpus"),
            };
            parts.push(format!(
                "{} — {} puzzles, {} lanes, {} runs, {} guesses, {} forks ({} from splits), {} finished on the CPU, \
                 {} answered during the search; \
                 seconds: {} upload, {} search, {} download, {} in all with the checks",
                which,
                self.on_gpu,
                k.slots,
                k.rounds,
                k.guesses,
                k.forks,
                k.split,
                self.gpu_report.cpu_fallbacks,
                k.answered_early,
                seconds_text(k.upload_seconds),
                seconds_text(k.search_seconds),
                seconds_text(k.download_seconds),
                seconds_text(self.gpu_report.kernel_seconds),
            ));
        }
        if !self.shares.is_empty() {
            let each: Vec<String> = self
                .shares
                .iter()
                .map(|share| {
                    let detail = format!(
                        "{} puzzles, {} s",
                        share.puzzles,
                        seconds_text(share.seconds)
                    );
                    let failed = share.failed.as_deref();
                    describe_share(&share.name, share.puzzles, self.on_gpu, &detail, failed)
                })
                .collect();
            parts.push(format!("each gpu: {}", each.join(", ")));
        }
        if self.on_cpu > 0 || self.gpu_name.is_none() || stood_by {
            parts.push(format!("cpu ({threads} threads) — {} puzzles", self.on_cpu));
        }
        let mut line = parts.join("; ");
        if let Some(note) = &note {
            line.push_str(&format!(" [{note}]"));
        }
        line
    }
}

/// Opens the preferred GPU, or adapter `index` of [`GpuContext::adapters`], and compiles the kernels.
fn open_gpu(index: Option<usize>) -> Result<Gpu, GpuError> {
    let ctx = match index {
        None => GpuContext::new_blocking()?,
        Some(i) => GpuContext::on_adapter_blocking(i)?,
    };
    with_kernels(ctx)
}

/// Opens `adapter` and compiles the kernels.
fn open_on(adapter: wgpu::Adapter) -> Result<Gpu, GpuError> {
    with_kernels(GpuContext::on_blocking(adapter)?)
}

/// The kernels compiled on `ctx`.
fn with_kernels(ctx: GpuContext) -> Result<Gpu, GpuError> {
    let kernel = SudokuKernels::new_blocking(&ctx)?;
    Ok(Gpu { ctx, kernel })
}
