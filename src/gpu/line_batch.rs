//! Plain 9×9 lines on the GPU: [`NineLines`] in, [`LineAnswer`]s out, the usual large file's short way past
//! [`super::sudoku_batch::answer_chunk`].
//!
//! Each puzzle is packed for the 9×9 lane kernel straight from its line, and each result is checked against
//! that line where the read-back lies, on every core natively. A puzzle without a checked solution is read as
//! a record and answered as `answer_chunk` answers one (the CPU solving it where the kernel handed it back or
//! the check refused its solution), so the answers are the same.

use web_time::Instant;

use super::lane9::Lane9Kernel;
use super::sudoku_batch::{BatchReport, answer_lane};
use super::sudoku_fork::ForkConfig;
use super::{GpuContext, GpuError};
use crate::sudoku::answer::{Mode, ready_for_solver};
use crate::sudoku::bands::{self, pack_values};
use crate::sudoku::format::{LineAnswer, NineLines};
use crate::sudoku::{Grid, verify};

/// Answers the puzzles of `pieces`, in order (the first piece's, then the next's), on the 9×9 lane kernel;
/// `progress(finished, total)` may cancel by returning false.
pub async fn answer_lines(
    ctx: &GpuContext,
    kernel: &Lane9Kernel,
    pieces: &[&NineLines],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<LineAnswer>, BatchReport), GpuError> {
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
    let locate = |i: usize| {
        let k = starts.partition_point(|&start| start <= i) - 1;
        (pieces[k], i - starts[k])
    };
    let limit = mode.limit();
    let fallbacks = std::sync::atomic::AtomicU64::new(0);
    let started = Instant::now();
    let (answers, stats) = kernel
        .solve_planes(
            ctx,
            total,
            limit,
            config,
            progress,
            |i| {
                let (piece, j) = locate(i);
                pack_values(&piece.values(j))
            },
            |i, result| {
                let (piece, j) = locate(i);
                let solution = result.solution();
                if let Some(values) = solution
                    && verify::is_nine_solution(&piece.values(j), &values)
                {
                    let count = u64::from(result.count).min(limit);
                    return LineAnswer::Solved {
                        values,
                        count: matches!(mode, Mode::Count(_)).then_some((count, count >= limit)),
                    };
                }
                // The rare puzzle without a checked solution: as `answer_chunk` answers a record.
                let record = piece.record(j);
                let answer = match ready_for_solver(&record) {
                    Err(invalid) => invalid,
                    Ok(puzzle) => {
                        let grid = solution.and_then(|cells| Grid::new(bands::nine(), &cells));
                        let found = (result.count, result.overflowed(), grid);
                        let (answer, fell_back) =
                            answer_lane(&record, puzzle, found, mode, config.max_guesses);
                        if fell_back {
                            fallbacks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        answer
                    }
                };
                LineAnswer::Usual(Box::new((record, answer)))
            },
        )
        .await?;
    let report = BatchReport {
        kernel: stats,
        cpu_fallbacks: fallbacks.into_inner(),
        kernel_seconds: started.elapsed().as_secs_f64(),
    };
    Ok((answers, report))
}

/// [`answer_lines`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn answer_lines_blocking(
    ctx: &GpuContext,
    kernel: &Lane9Kernel,
    pieces: &[&NineLines],
    mode: Mode,
    config: ForkConfig,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(Vec<LineAnswer>, BatchReport), GpuError> {
    pollster::block_on(answer_lines(ctx, kernel, pieces, mode, config, progress))
}
