//! Plain 9×9 puzzles on the GPU: [`NinePiece`] in, the 9×9 lane kernel's results out, and each result made a
//! [`NineAnswer`] against its puzzle: the usual large file's short way past
//! [`super::sudoku_batch::answer_chunk`].
//!
//! Each puzzle is packed for the kernel straight from its text, or beforehand ([`pack_nines`]: the command line
//! packs in the stage before the device's). Its result is checked against that text by [`answer_nine`], which
//! a caller runs wherever it formats the answers (the command line: on every core, a stage after the
//! device's, so that the device's stage only copies the puzzles in and reads the results back). A puzzle
//! without a checked solution is read as a record and answered as `answer_chunk` answers one (the CPU solving
//! it where the kernel handed it back or the check refused its solution), so the answers are the same.

use web_time::Instant;

use super::lane9::{Lane9Kernel, Lane9Result};
use super::sudoku_batch::{BatchReport, answer_lane};
use super::sudoku_fork::{ForkConfig, ForkStats};
use super::{GpuContext, GpuError};
use crate::sudoku::answer::{Mode, ready_for_solver};
use crate::sudoku::bands::{self, pack_values};
use crate::sudoku::format::{NineAnswer, NinePiece};
use crate::sudoku::{Grid, verify};

/// Runs the puzzles of `pieces` on the 9×9 lane kernel, in order (the first piece's, then the next's), and
/// returns each one's raw result, to be made an answer by [`answer_nine`]. `progress(finished, total)` may
/// cancel by returning false.
pub async fn solve_nines(
    ctx: &GpuContext,
    kernel: &Lane9Kernel,
    pieces: &[&NinePiece],
    limit: u64,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Lane9Result>, BatchReport), GpuError> {
    // Where each piece's puzzles start in the batch; puzzle i is in the last piece starting at or before it.
    let starts: Vec<usize> = pieces
        .iter()
        .scan(0, |start, piece| {
            let here = *start;
            *start += piece.len();
            Some(here)
        })
        .collect();
    let total = pieces.iter().map(|p| p.len()).sum();
    let started = Instant::now();
    let (results, stats) = kernel
        .solve_planes(
            ctx,
            total,
            limit,
            config,
            progress,
            |i| {
                let k = starts.partition_point(|&start| start <= i) - 1;
                pack_values(&pieces[k].values(i - starts[k]))
            },
            |_, result| *result,
        )
        .await?;
    Ok((results, report(stats, started)))
}

/// A piece's puzzles packed for the 9×9 lane kernel ([`pack_values`]), in order, for
/// [`solve_packed_nines`]: made wherever there are cores to spare (the command line packs each piece in the
/// stage that reads it, on every core, so that the device's stage only copies the words into the upload).
pub fn pack_nines(nines: &NinePiece) -> Vec<[u32; 12]> {
    (0..nines.len())
        .map(|i| pack_values(&nines.values(i)))
        .collect()
}

/// [`solve_nines`] for pieces packed already by [`pack_nines`]: `packed[k]` holds piece k's puzzles.
pub async fn solve_packed_nines(
    ctx: &GpuContext,
    kernel: &Lane9Kernel,
    packed: &[&[[u32; 12]]],
    limit: u64,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Lane9Result>, BatchReport), GpuError> {
    let started = Instant::now();
    let (results, stats) = kernel
        .solve_packed(ctx, packed, limit, config, progress, |_, result| *result)
        .await?;
    Ok((results, report(stats, started)))
}

/// A run's report: the kernel's figures and its time since `started`, every puzzle answered on the GPU.
fn report(kernel: ForkStats, started: Instant) -> BatchReport {
    BatchReport {
        kernel,
        cpu_fallbacks: 0,
        kernel_seconds: started.elapsed().as_secs_f64(),
    }
}

/// The answer to puzzle `i` of `nines` from its kernel result: the solution when it passes the independent
/// check against the puzzle, else the puzzle read as a record and answered as `answer_chunk` answers one. Also
/// says whether the CPU had to solve it.
pub fn answer_nine(
    nines: &NinePiece,
    i: usize,
    result: &Lane9Result,
    mode: Mode,
    max_guesses: u64,
) -> (NineAnswer, bool) {
    let solution = result.solution();
    if let Some(values) = solution
        && verify::is_nine_solution(&nines.values(i), &values)
    {
        let limit = mode.limit();
        let count = u64::from(result.count).min(limit);
        let count = matches!(mode, Mode::Count(_)).then_some((count, count >= limit));
        return (NineAnswer::Solved { values, count }, false);
    }
    // The rare puzzle without a checked solution.
    let record = nines.record(i);
    let (answer, fell_back) = match ready_for_solver(&record) {
        Err(invalid) => (invalid, false),
        Ok(puzzle) => {
            let grid = solution.and_then(|cells| Grid::new(bands::nine(), &cells));
            let found = (result.count, result.overflowed(), grid);
            answer_lane(&record, puzzle, found, mode, max_guesses)
        }
    };
    (NineAnswer::Usual(Box::new((record, answer))), fell_back)
}

/// [`solve_packed_nines`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn solve_packed_nines_blocking(
    ctx: &GpuContext,
    kernel: &Lane9Kernel,
    packed: &[&[[u32; 12]]],
    limit: u64,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<Lane9Result>, BatchReport), GpuError> {
    pollster::block_on(solve_packed_nines(
        ctx, kernel, packed, limit, config, progress,
    ))
}
