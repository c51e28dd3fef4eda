//! Records in, answers out, on the GPU: the GPU counterpart of [`crate::sudoku::answer::answer`].
//!
//! Puzzles whose givens clash are answered on the host (the kernel only ever sees valid givens); the rest go to
//! the fork kernel grouped by shape. A puzzle the kernel hands back (its search outgrew the pool) and any
//! solution that fails the independent check are solved again on the CPU, so the answers are always exact.

use std::collections::BTreeMap;

use super::sudoku_fork::{ForkConfig, ForkKernel, ForkStats, GpuOutcome};
use super::{GpuContext, GpuError};
use crate::sudoku::answer::{Mode, checked_or_solved, ready_for_solver};
use crate::sudoku::format::{Answer, Record};
use crate::sudoku::solver::Outcome;
use crate::sudoku::{Grid, Solver};

/// What a GPU batch did besides answering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchReport {
    /// Kernel counters, summed over the shapes of the batch.
    pub kernel: ForkStats,
    /// Puzzles finished on the CPU instead (pool overflow, or a result that failed the check).
    pub cpu_fallbacks: u64,
}

impl BatchReport {
    /// Adds another batch's report.
    pub fn add(&mut self, more: &BatchReport) {
        self.kernel.add(&more.kernel);
        self.cpu_fallbacks += more.cpu_fallbacks;
    }
}

/// The puzzles of one shape in a chunk: their record indexes, and the puzzles themselves.
type ShapeGroup<'a> = (Vec<usize>, Vec<&'a Grid>);

/// Answers `records` in order; `progress(finished, total)` may cancel by returning false.
pub async fn answer_chunk(
    ctx: &GpuContext,
    kernel: &ForkKernel,
    records: &[Record],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Answer>, BatchReport), GpuError> {
    let mut answers: Vec<Option<Answer>> = vec![None; records.len()];
    // Shapes in a stable order, each with the record indexes and puzzles (borrowed, not copied) it holds.
    let mut groups: BTreeMap<(usize, usize), ShapeGroup> = BTreeMap::new();
    for (i, record) in records.iter().enumerate() {
        match ready_for_solver(record) {
            Err(answer) => answers[i] = Some(answer),
            Ok(puzzle) => {
                let shape = puzzle.shape();
                let group = groups.entry((shape.rows(), shape.cols())).or_default();
                group.0.push(i);
                group.1.push(puzzle);
            }
        }
    }
    let mut report = BatchReport::default();
    let total = records.len();
    let mut done_before = total - groups.values().map(|g| g.0.len()).sum::<usize>();
    for (indexes, puzzles) in groups.values() {
        let (outcomes, stats) = kernel
            .solve(ctx, puzzles, mode.limit(), config, &mut |finished, _| {
                progress(done_before + finished, total)
            })
            .await?;
        done_before += puzzles.len();
        report.kernel.add(&stats);
        let jobs: Vec<(usize, &Grid, GpuOutcome)> = indexes
            .iter()
            .zip(puzzles)
            .zip(outcomes)
            .map(|((&i, &puzzle), outcome)| (i, puzzle, outcome))
            .collect();
        for (i, answer, fell_back) in check_all(records, jobs, mode, config.max_guesses) {
            report.cpu_fallbacks += u64::from(fell_back);
            answers[i] = Some(answer);
        }
    }
    let answers = answers
        .into_iter()
        .map(|a| a.expect("every record was answered"))
        .collect();
    Ok((answers, report))
}

/// Checks each kernel result on the host (solving it on the CPU where the kernel gave up or the check fails):
/// `(record index, answer, fell back to the CPU)`.
fn check_all(
    records: &[Record],
    jobs: Vec<(usize, &Grid, GpuOutcome)>,
    mode: Mode,
    max_guesses: u64,
) -> Vec<(usize, Answer, bool)> {
    let check = |cpu: &mut Solver, (i, puzzle, outcome): (usize, &Grid, GpuOutcome)| {
        // An overflowed puzzle has no result: the CPU solves it.
        let outcome = (!outcome.overflow).then_some(Outcome {
            count: outcome.count,
            solution: outcome.solution,
            hit_limit: outcome.hit_limit,
            guesses: 0,
            gave_up: false,
        });
        let (answer, fell_back) = checked_or_solved(records[i].line, puzzle, outcome, mode, cpu);
        (i, answer, fell_back)
    };
    // Natively the checks (and any CPU re-solves) run on every core; they would otherwise be serial host work
    // beside a GPU that finishes an easy batch in a few milliseconds.
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        jobs.into_par_iter()
            .map_init(|| Solver::with_max_guesses(max_guesses), check)
            .collect()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut cpu = Solver::with_max_guesses(max_guesses);
        jobs.into_iter().map(|job| check(&mut cpu, job)).collect()
    }
}

/// [`answer_chunk`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn answer_chunk_blocking(
    ctx: &GpuContext,
    kernel: &ForkKernel,
    records: &[Record],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Answer>, BatchReport), GpuError> {
    pollster::block_on(answer_chunk(ctx, kernel, records, mode, config, progress))
}
