//! Records in, answers out, on the GPU: the GPU counterpart of [`crate::sudoku::answer::answer`].
//!
//! Puzzles whose givens clash are answered on the host (the kernels only ever see valid givens); the rest go to
//! the GPU grouped by shape: 9×9 to its own lane kernel ([`super::lane9`]), every other shape to the lane
//! kernel of cells ([`super::lane_cells`]). A puzzle a kernel hands back (its search outgrew the memory given to it) and any
//! solution that fails the independent check are solved again on the CPU, so the answers are always exact.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use web_time::Instant;

use super::lane_cells::LaneCellsKernel;
use super::lane9::Lane9Kernel;
use super::sudoku_fork::{ForkConfig, ForkStats, GpuOutcome};
use super::{GpuContext, GpuError, map_each};
use crate::sudoku::answer::{Mode, answer, checked_or_solved, from_outcome, ready_for_solver};
use crate::sudoku::bands;
use crate::sudoku::format::{Answer, Record};
use crate::sudoku::solver::Outcome;
use crate::sudoku::{BoxShape, Grid, Solver, with_thread_solver};

/// The compiled Sudoku kernels: one for 9×9, one for every other shape.
pub struct SudokuKernels {
    /// 9×9 with 3×3 boxes: one board per lane.
    pub lane9: Lane9Kernel,
    /// Every other shape: one board per lane, a value per cell; compiled on first use ([`SudokuKernels::cells`]).
    cells: OnceLock<LaneCellsKernel>,
}

impl SudokuKernels {
    /// Compiles the 9×9 kernel; the one for every other shape waits for its first puzzle.
    ///
    /// Most inputs are 9×9 alone, and the other kernel (its lanes and its teams, each warmed up) was a sixth of
    /// a GPU's setup on an H200 with the driver's shader cache warm, and about 0.65 s with it cold
    /// (docs/benchmarks.md, "Kernels compiled at once, and the kernel for other shapes only when needed"). Its
    /// warm-up would also park the run of resident squads that the 9×9 kernel's leaves waiting for the first
    /// puzzle.
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let lane9 = Lane9Kernel::new(ctx).await?;
        Ok(Self {
            lane9,
            cells: OnceLock::new(),
        })
    }

    /// The kernel for every shape but 9×9, compiled on `ctx` (the context these kernels were made on) the first
    /// time it is asked for. Two callers asking at once may both compile it; one copy is kept.
    pub async fn cells(&self, ctx: &GpuContext) -> Result<&LaneCellsKernel, GpuError> {
        if let Some(kernel) = self.cells.get() {
            return Ok(kernel);
        }
        let kernel = LaneCellsKernel::new(ctx).await?;
        Ok(self.cells.get_or_init(|| kernel))
    }

    /// Compiles the kernel for `shape` if it is not compiled yet: a batch's kernel seconds then hold no compile.
    pub async fn prepare(&self, ctx: &GpuContext, shape: BoxShape) -> Result<(), GpuError> {
        if shape != bands::nine() {
            self.cells(ctx).await?;
        }
        Ok(())
    }

    /// Whether the kernel for other shapes has been compiled yet.
    pub fn cells_compiled(&self) -> bool {
        self.cells.get().is_some()
    }

    /// [`SudokuKernels::new`], blocking (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking(ctx: &GpuContext) -> Result<Self, GpuError> {
        pollster::block_on(Self::new(ctx))
    }

    /// Solves puzzles of one shape on the kernel for that shape.
    pub async fn solve(
        &self,
        ctx: &GpuContext,
        puzzles: &[&Grid],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(Vec<GpuOutcome>, ForkStats), GpuError> {
        match puzzles.first() {
            Some(p) if p.shape() == bands::nine() => {
                self.lane9
                    .solve(ctx, puzzles, limit, config, progress)
                    .await
            }
            _ => {
                self.cells(ctx)
                    .await?
                    .solve(ctx, puzzles, limit, config, progress)
                    .await
            }
        }
    }
}

/// What a GPU batch did besides answering.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchReport {
    /// Kernel counters, summed over the shapes of the batch.
    pub kernel: ForkStats,
    /// Puzzles finished on the CPU instead (no room for its search on the GPU, past its guess budget, or a result that failed the check).
    pub cpu_fallbacks: u64,
    /// Seconds inside the kernels (packing, upload, every dispatch, read-back, unpacking); the rest of a
    /// batch's time is the host's checks before and after.
    pub kernel_seconds: f64,
}

impl BatchReport {
    /// Adds another batch's report.
    pub fn add(&mut self, more: &BatchReport) {
        self.kernel.add(&more.kernel);
        self.cpu_fallbacks += more.cpu_fallbacks;
        self.kernel_seconds += more.kernel_seconds;
    }
}

/// The puzzles of one shape in a chunk: their record indexes, and the puzzles themselves.
type ShapeGroup<'a> = (Vec<usize>, Vec<&'a Grid>);

/// Answers `records` in order; `progress(finished, total)` may cancel by returning false. The records may be
/// borrowed (`&[&Record]`), so that a caller holding them in pieces need not copy them together.
pub async fn answer_chunk<R: Borrow<Record> + Sync>(
    ctx: &GpuContext,
    kernel: &SudokuKernels,
    records: &[R],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Answer>, BatchReport), GpuError> {
    let mut report = BatchReport::default();
    let total = records.len();
    // The usual batch, puzzles of one shape as far as the eye can see, is read once on its way to the GPU and
    // once on its way back (at millions of puzzles a second, each pass over it shows).
    if let Some(puzzles) = one_shape(records) {
        kernel.prepare(ctx, puzzles[0].shape()).await?;
        let fallbacks = AtomicU64::new(0);
        let started = Instant::now();
        let answer_each = |i: usize, count: u32, overflowed: bool, solution: Option<Grid>| {
            let (answer, fell_back) = answer_lane(
                records[i].borrow(),
                puzzles[i],
                (count, overflowed, solution),
                mode,
                config.max_guesses,
            );
            if fell_back {
                fallbacks.fetch_add(1, Ordering::Relaxed);
            }
            answer
        };
        let limit = mode.limit();
        let (answers, stats) = if puzzles[0].shape() == bands::nine() {
            let nine = |cells: [u8; 81]| Grid::new(bands::nine(), &cells);
            kernel
                .lane9
                .solve_each(ctx, &puzzles, limit, config, progress, |i, r| {
                    answer_each(i, r.count, r.overflowed(), r.solution().and_then(nine))
                })
                .await?
        } else {
            kernel
                .cells(ctx)
                .await?
                .solve_each(ctx, &puzzles, limit, config, progress, |i, r| {
                    answer_each(i, r.count(), r.overflowed(), r.solution())
                })
                .await?
        };
        report.kernel_seconds = started.elapsed().as_secs_f64();
        report.kernel = stats;
        report.cpu_fallbacks = fallbacks.into_inner();
        return Ok((answers, report));
    }
    // The puzzles fit for a kernel; an invalid record's answer is worked out again below (they are rare, and
    // an answer is some hundred bytes where a pointer is eight).
    let ready: Vec<Option<&Grid>> = map_each(records, |r| ready_for_solver(r.borrow()).ok());
    // The usual batch, every puzzle valid and of one shape, is answered in place: at millions of puzzles a
    // second, even a serial pass over the batch on the host shows.
    let first_shape = ready.first().copied().flatten().map(Grid::shape);
    if let Some(shape) = first_shape
        && ready.iter().all(|r| r.is_some_and(|p| p.shape() == shape))
    {
        let puzzles: Vec<&Grid> = ready.into_iter().flatten().collect();
        let outcomes = solve_group(
            ctx,
            kernel,
            &puzzles,
            mode,
            config,
            &mut report,
            &mut |f, _| progress(f, total),
        )
        .await?;
        let (answers, fallbacks) =
            check_all(records, None, &puzzles, outcomes, mode, config.max_guesses);
        report.cpu_fallbacks += fallbacks;
        return Ok((answers, report));
    }
    let mut answers: Vec<Option<Answer>> = vec![None; records.len()];
    // Shapes in a stable order, each with the record indexes and puzzles (borrowed, not copied) it holds.
    let mut groups: BTreeMap<(usize, usize), ShapeGroup> = BTreeMap::new();
    for (i, ready) in ready.into_iter().enumerate() {
        match ready {
            None => answers[i] = ready_for_solver(records[i].borrow()).err(),
            Some(puzzle) => {
                let shape = puzzle.shape();
                let group = groups.entry((shape.rows(), shape.cols())).or_default();
                group.0.push(i);
                group.1.push(puzzle);
            }
        }
    }
    let mut done_before = total - groups.values().map(|g| g.0.len()).sum::<usize>();
    for (indexes, puzzles) in groups.values() {
        let outcomes = solve_group(
            ctx,
            kernel,
            puzzles,
            mode,
            config,
            &mut report,
            &mut |f, _| progress(done_before + f, total),
        )
        .await?;
        done_before += puzzles.len();
        let (checked, fallbacks) = check_all(
            records,
            Some(indexes),
            puzzles,
            outcomes,
            mode,
            config.max_guesses,
        );
        report.cpu_fallbacks += fallbacks;
        for (&i, answer) in indexes.iter().zip(checked) {
            answers[i] = Some(answer);
        }
    }
    let answers = answers
        .into_iter()
        .map(|a| a.expect("every record was answered"))
        .collect();
    Ok((answers, report))
}

/// Batches up to this many records have their shapes checked on the calling thread ([`one_shape`]).
const SERIAL_SHAPE_CHECK: usize = 16_384;

/// The puzzles when every record holds a readable one and all are of one shape, in one pass on every core
/// natively (on this thread for a small batch).
fn one_shape<R: Borrow<Record> + Sync>(records: &[R]) -> Option<Vec<&Grid>> {
    fn of_shape(r: &Record, shape: BoxShape) -> Option<&Grid> {
        r.puzzle.as_ref().ok().filter(|p| p.shape() == shape)
    }
    let shape = records.first()?.borrow().puzzle.as_ref().ok()?.shape();
    // A small batch on this thread: asking a record its shape takes nanoseconds, and waking the pool's idle
    // threads for the two passes below cost a thousand 16×16 puzzles about 0.1 ms of their 0.7 on the GPU
    // (docs/benchmarks.md, "Where a small batch's time goes").
    if records.len() <= SERIAL_SHAPE_CHECK {
        return records
            .iter()
            .map(|r| of_shape(r.borrow(), shape))
            .collect();
    }
    // Asked first, then collected: collecting `Option`s straight into `Option<Vec>` cannot write each item in
    // its place, so rayon gathers pieces and copies them together.
    #[cfg(not(target_arch = "wasm32"))]
    let every = {
        use rayon::prelude::*;
        records
            .par_iter()
            .all(|r| of_shape(r.borrow(), shape).is_some())
    };
    #[cfg(target_arch = "wasm32")]
    let every = records
        .iter()
        .all(|r| of_shape(r.borrow(), shape).is_some());
    every.then(|| {
        map_each(records, |r| {
            of_shape(r.borrow(), shape).expect("checked above")
        })
    })
}

/// An answer from a lane kernel's result (its count, whether it was handed back, its first solution), checked
/// like any other engine's; also says whether the CPU had to solve the puzzle. The givens were not checked
/// before: a solution that passes the independent check keeps every given and repeats no value, which shows
/// the givens consistent; any other result has them checked (and an invalid puzzle answered as such) before
/// it is answered or searched on the CPU.
pub(crate) fn answer_lane(
    record: &Record,
    puzzle: &Grid,
    (count, overflowed, solution): (u32, bool, Option<Grid>),
    mode: Mode,
    max_guesses: u64,
) -> (Answer, bool) {
    let limit = mode.limit();
    if let Some(solution) = solution {
        let count = u64::from(count).min(limit);
        let outcome = Outcome {
            count,
            solution: Some(solution),
            hit_limit: count >= limit,
            guesses: 0,
            gave_up: false,
        };
        let answer = from_outcome(record.line, puzzle, outcome, mode);
        if !matches!(answer, Answer::Invalid(_)) {
            return (answer, false);
        }
    }
    if let Err(invalid) = ready_for_solver(record) {
        return (invalid, false);
    }
    if count == 0 && !overflowed {
        return (Answer::NoSolution, false);
    }
    // Handed back (its search outgrew the GPU memory given to it, or its guess budget), or a solution the
    // check refused.
    (
        with_thread_solver(max_guesses, |cpu| answer(record, cpu, mode)),
        true,
    )
}

/// Runs one shape's puzzles on its kernel, adding the kernel's counters and time to `report`.
async fn solve_group(
    ctx: &GpuContext,
    kernel: &SudokuKernels,
    puzzles: &[&Grid],
    mode: Mode,
    config: ForkConfig,
    report: &mut BatchReport,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Vec<GpuOutcome>, GpuError> {
    if let Some(first) = puzzles.first() {
        kernel.prepare(ctx, first.shape()).await?;
    }
    let started = Instant::now();
    let (outcomes, stats) = kernel
        .solve(ctx, puzzles, mode.limit(), config, progress)
        .await?;
    report.kernel_seconds += started.elapsed().as_secs_f64();
    report.kernel.add(&stats);
    Ok(outcomes)
}

/// Checks each kernel result on the host, solving it on the CPU where the kernel gave up or the check fails.
/// `puzzles[k]` is record `indexes[k]` (record `k` without indexes). Returns the answers in the order of
/// `puzzles`, and how many the CPU had to solve.
fn check_all<R: Borrow<Record> + Sync>(
    records: &[R],
    indexes: Option<&[usize]>,
    puzzles: &[&Grid],
    outcomes: Vec<GpuOutcome>,
    mode: Mode,
    max_guesses: u64,
) -> (Vec<Answer>, u64) {
    let check = |cpu: &mut Solver, (k, outcome): (usize, GpuOutcome)| {
        // An overflowed puzzle has no result: the CPU solves it.
        let outcome = (!outcome.overflow).then_some(Outcome {
            count: outcome.count,
            solution: outcome.solution,
            hit_limit: outcome.hit_limit,
            guesses: 0,
            gave_up: false,
        });
        let line = records[indexes.map_or(k, |ix| ix[k])].borrow().line;
        checked_or_solved(line, puzzles[k], outcome, mode, cpu)
    };
    // Natively the checks (and any CPU re-solves) run on every core; they would otherwise be serial host work
    // beside a GPU that finishes an easy batch in a few milliseconds.
    #[cfg(not(target_arch = "wasm32"))]
    let (answers, fell_back): (Vec<Answer>, Vec<bool>) = {
        use rayon::prelude::*;
        outcomes
            .into_par_iter()
            .enumerate()
            .map(|job| with_thread_solver(max_guesses, |cpu| check(cpu, job)))
            .unzip()
    };
    #[cfg(target_arch = "wasm32")]
    let (answers, fell_back): (Vec<Answer>, Vec<bool>) = {
        let mut cpu = Solver::with_max_guesses(max_guesses);
        outcomes
            .into_iter()
            .enumerate()
            .map(|job| check(&mut cpu, job))
            .unzip()
    };
    (answers, fell_back.iter().filter(|&&f| f).count() as u64)
}

/// [`answer_chunk`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn answer_chunk_blocking<R: Borrow<Record> + Sync>(
    ctx: &GpuContext,
    kernel: &SudokuKernels,
    records: &[R],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Answer>, BatchReport), GpuError> {
    pollster::block_on(answer_chunk(ctx, kernel, records, mode, config, progress))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::format::{ErrorKind, PuzzleError};

    fn record(line: usize, shape: BoxShape) -> Record {
        Record {
            line,
            puzzle: Ok(Grid::empty(shape)),
            given_solution: None,
        }
    }

    /// The small batch's pass on this thread and the large one's on every core agree: every record of one
    /// shape gives its puzzles in order; one of another shape, or one that could not be read, gives none.
    #[test]
    fn one_shape_is_the_same_on_one_thread_and_on_every_core() {
        let nine = bands::nine();
        let sixteen = BoxShape::new(4, 4).unwrap();
        for len in [
            2,
            100,
            SERIAL_SHAPE_CHECK,
            SERIAL_SHAPE_CHECK + 1,
            3 * SERIAL_SHAPE_CHECK,
        ] {
            let mut records: Vec<Record> = (1..=len).map(|line| record(line, nine)).collect();
            let puzzles = one_shape(&records).expect("one shape");
            assert_eq!(puzzles.len(), len);
            // Each record's own puzzle, in the records' order.
            assert!(
                puzzles
                    .iter()
                    .zip(&records)
                    .all(|(p, r)| std::ptr::eq(*p, r.puzzle.as_ref().expect("readable")))
            );
            let last = len - 1;
            records[last] = record(len, sixteen);
            assert!(one_shape(&records).is_none(), "{len}: a 16×16 among 9×9");
            records[last].puzzle = Err(PuzzleError {
                line: len,
                kind: ErrorKind::Length(80),
            });
            assert!(one_shape(&records).is_none(), "{len}: an unreadable record");
        }
        assert!(one_shape::<Record>(&[]).is_none());
    }
}
