//! Uniqueness checks in GPU batches, for the generator ([`crate::sudoku::generator::make_batch`]): every
//! proposal of a round counted to two on the Sudoku kernel of its shape, with the generator's own guess budget.

use super::GpuContext;
use super::GpuError;
use super::sudoku_batch::SudokuKernels;
use super::sudoku_fork::ForkConfig;
use crate::sudoku::generator::{unique_on_cpu, uniqueness_budget};
use crate::sudoku::{Grid, verify};

/// Whether each of `puzzles` (one shape) has exactly one solution. A puzzle the kernel hands back (past the
/// budget, or no room for its search), or whose one solution fails the independent check, is decided by the
/// CPU's check, so the verdicts are the CPU's wherever the two could differ.
pub async fn unique_batch(
    ctx: &GpuContext,
    kernels: &SudokuKernels,
    puzzles: &[Grid],
) -> Result<Vec<bool>, GpuError> {
    let Some(first) = puzzles.first() else {
        return Ok(Vec::new());
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
    let (outcomes, _) = kernels
        .solve(ctx, &refs, 2, config, &mut |_, _| true)
        .await?;
    Ok(outcomes
        .iter()
        .zip(puzzles)
        .map(|(out, puzzle)| match (&out.solution, out.count) {
            _ if out.overflow => unique_on_cpu(puzzle),
            (Some(solution), 1) if verify::is_solution(puzzle, solution) => true,
            (Some(_), 1) => unique_on_cpu(puzzle),
            _ => false,
        })
        .collect())
}

/// [`unique_batch`], blocking (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn unique_batch_blocking(
    ctx: &GpuContext,
    kernels: &SudokuKernels,
    puzzles: &[Grid],
) -> Result<Vec<bool>, GpuError> {
    pollster::block_on(unique_batch(ctx, kernels, puzzles))
}
