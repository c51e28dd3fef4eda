//! Uniqueness checks in GPU batches, for the generator ([`crate::sudoku::generator::make_batch`]): every
//! proposal of a round counted to two on the Sudoku kernel of its shape, with the generator's own guess budget.

use super::sudoku_batch::SudokuKernels;
use super::sudoku_fork::{ForkConfig, ForkStats};
use super::{GpuContext, GpuError, map_index};
use crate::sudoku::generator::{unique_on_cpu, uniqueness_budget};
use crate::sudoku::{Grid, verify};

/// A batch's verdicts, and what it took.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Whether each puzzle has exactly one solution, in the batch's order.
    pub verdicts: Vec<bool>,
    /// The kernel's counters and seconds.
    pub stats: ForkStats,
    /// Puzzles decided by the CPU's check instead (handed back, or a solution that failed the check).
    pub on_cpu: u64,
}

/// Whether each of `puzzles` (one shape) has exactly one solution. A puzzle the kernel hands back (past the
/// budget, or no room for its search), or whose one solution fails the independent check, is decided by the
/// CPU's check, so the verdicts are the CPU's wherever the two could differ.
pub async fn unique_batch(
    ctx: &GpuContext,
    kernels: &SudokuKernels,
    puzzles: &[Grid],
) -> Result<Checked, GpuError> {
    let Some(first) = puzzles.first() else {
        return Ok(Checked::default());
    };
    let budget = match uniqueness_budget(first.side()) {
        0 => u64::MAX,
        n => n,
    };
    let config = ForkConfig {
        max_guesses: budget,
        ..ForkConfig::default()
    };
    let refs: Vec<&Grid> = puzzles.iter().collect();
    let (outcomes, stats) = kernels
        .solve(ctx, &refs, 2, config, &mut |_, _| true)
        .await?;
    // The verdict where the kernel's is final; `None` where the CPU's check decides.
    let kernel_verdicts: Vec<Option<bool>> = outcomes
        .iter()
        .zip(puzzles)
        .map(|(out, puzzle)| {
            let proven = |s: &Grid| verify::is_solution(puzzle, s);
            let doubtful =
                out.overflow || (out.count == 1 && !out.solution.as_ref().is_some_and(proven));
            (!doubtful).then_some(out.count == 1)
        })
        .collect();
    let on_cpu = kernel_verdicts.iter().filter(|v| v.is_none()).count() as u64;
    // A handed-back check can take the CPU a second (a 25×25): natively they run on every core.
    let verdicts = map_index(puzzles.len(), |i| {
        kernel_verdicts[i].unwrap_or_else(|| unique_on_cpu(&puzzles[i]))
    });
    Ok(Checked {
        verdicts,
        stats,
        on_cpu,
    })
}

/// [`unique_batch`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_batch_blocking(
    ctx: &GpuContext,
    kernels: &SudokuKernels,
    puzzles: &[Grid],
) -> Result<Checked, GpuError> {
    pollster::block_on(unique_batch(ctx, kernels, puzzles))
}
