//! Choosing and running the engine for each chunk: the CPU on every core, or the GPU kernels.

use std::borrow::Borrow;

use rayon::prelude::*;

use forkboard::gpu::lane9::Lane9Result;
use forkboard::gpu::nine_batch::solve_packed_nines_blocking;
use forkboard::gpu::sudoku_batch::{BatchReport, SudokuKernels, answer_chunk_blocking};
use forkboard::gpu::sudoku_fork::{CellsKernel, ForkConfig};
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::format::{Answer, NineAnswer, NinePiece, Record};
use forkboard::sudoku::with_thread_solver;

use crate::Engine;

/// Chunks smaller than this go to the CPU under `--engine auto`: uploading, dispatching and reading back cost
/// more than the CPU needs for a handful of puzzles. Measured on the H100 machine against the CPU engine on all
/// 16 cores (docs/benchmarks.md): the 9×9 lane kernel overtakes it at about 5 easy, 11 of the hardest and 30
/// top1465 puzzles.
const AUTO_GPU_MIN: usize = 32;

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

/// The engine state of one run.
pub struct Engines {
    choice: Engine,
    config: ForkConfig,
    gpu: Option<Gpu>,
    /// The GPU's description, kept for the summary after a failure drops it.
    gpu_name: Option<String>,
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
    /// Sets up the engine asked for. `--engine gpu` fails here, clearly, when no GPU can be had.
    /// `max_guesses` is the CPU solver's guess budget per puzzle (0: none).
    pub fn new(choice: Engine, gpu_slots: u32, max_guesses: u64) -> Result<Self, String> {
        let mut engines = Self {
            choice,
            config: ForkConfig {
                slots: gpu_slots,
                max_guesses,
                ..ForkConfig::default()
            },
            gpu: None,
            gpu_name: None,
            note: None,
            gpu_report: BatchReport::default(),
            on_gpu: 0,
            on_cpu: 0,
        };
        match choice {
            Engine::Cpu => {}
            Engine::Gpu => {
                engines.gpu = Some(open_gpu().map_err(|e| format!("--engine gpu: {e}"))?)
            }
            Engine::Auto => match open_gpu() {
                Ok(gpu) if gpu.ctx.info.device_type == wgpu::DeviceType::Cpu => {
                    engines.note = Some(format!(
                        "the only GPU adapter, {}, is a software one: the CPU engine is faster",
                        gpu.ctx.describe()
                    ));
                }
                Ok(gpu) => engines.gpu = Some(gpu),
                Err(e) => engines.note = Some(format!("no GPU: {e}")),
            },
        }
        engines.gpu_name = engines.gpu.as_ref().map(|g| g.ctx.describe());
        Ok(engines)
    }

    /// Answers one chunk, in order, on the engine chosen for it (its records owned or borrowed).
    pub fn answer<R: Borrow<Record> + Sync>(
        &mut self,
        chunk: &[R],
        mode: Mode,
    ) -> Result<Vec<Answer>, String> {
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
        let use_gpu = match self.choice {
            Engine::Cpu => false,
            Engine::Gpu => true,
            Engine::Auto => puzzles >= AUTO_GPU_MIN,
        };
        self.gpu.as_ref().filter(|_| use_gpu)
    }

    /// After the GPU failed on a chunk: nothing of it was written yet, so the CPU answers all of it, and the
    /// rest of the run (under `--engine gpu` too: answers are never lost, and the warning and --stats say so).
    fn gpu_failed(&mut self, e: GpuError) {
        eprintln!("forkboard: the GPU failed ({e}); continuing on the CPU");
        self.note = Some(format!("the GPU failed mid-run ({e}); the CPU finished"));
        self.gpu = None;
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
    pub fn lose_gpu_after(&self, submissions: u64) {
        if let Some(gpu) = &self.gpu {
            gpu.ctx.lose_device_after(submissions);
        }
    }

    /// True while chunks go to the GPU, which wants them large.
    pub fn prefers_large_chunks(&self) -> bool {
        self.gpu.is_some()
    }

    /// The GPU in use ("name (backend)"), if any.
    pub fn gpu_name(&self) -> Option<&str> {
        self.gpu_name.as_deref()
    }

    /// One line on what ran, for `--stats`.
    pub fn describe(&self) -> String {
        let threads = rayon::current_num_threads();
        let mut parts = Vec::new();
        if let Some(name) = &self.gpu_name {
            let k = &self.gpu_report.kernel;
            parts.push(format!(
                "gpu {} — {} puzzles, {} lanes, {} runs, {} guesses, {} forks, {} finished on the CPU; \
                 seconds: {:.4} upload, {:.4} search, {:.4} download, {:.4} in all with the checks",
                name,
                self.on_gpu,
                k.slots,
                k.rounds,
                k.guesses,
                k.forks,
                self.gpu_report.cpu_fallbacks,
                k.upload_seconds,
                k.search_seconds,
                k.download_seconds,
                self.gpu_report.kernel_seconds,
            ));
        }
        if self.on_cpu > 0 || self.gpu_name.is_none() {
            parts.push(format!("cpu ({threads} threads) — {} puzzles", self.on_cpu));
        }
        let mut line = parts.join("; ");
        if let Some(note) = &self.note {
            line.push_str(&format!(" [{note}]"));
        }
        line
    }
}

fn open_gpu() -> Result<Gpu, GpuError> {
    let ctx = GpuContext::new_blocking()?;
    let kernel = SudokuKernels::new_blocking(&ctx)?;
    Ok(Gpu { ctx, kernel })
}
