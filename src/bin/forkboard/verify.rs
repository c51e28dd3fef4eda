//! `forkboard verify`: every grid must be complete and valid (and, in a CSV, solve its puzzle).

use forkboard::sudoku::format::{ErrorKind, check_givens};
use forkboard::sudoku::{Grid, verify};

use crate::VerifyArgs;

/// What is wrong with a grid offered as a solution, if anything.
fn problem(grid: &Grid) -> Option<String> {
    if let Err(ErrorKind::Conflicts(conflicts)) = check_givens(grid) {
        let named: Vec<String> = conflicts.iter().map(ToString::to_string).collect();
        return Some(named.join("; "));
    }
    let n = grid.side();
    let empty: Vec<usize> = (0..grid.cells().len())
        .filter(|&i| grid.cells()[i] == 0)
        .collect();
    let first = empty.first()?;
    let cells = if empty.len() == 1 { "cell" } else { "cells" };
    Some(format!(
        "{} empty {cells} (the first at r{}c{})",
        empty.len(),
        first / n + 1,
        first % n + 1
    ))
}

/// Runs the command; `Ok(true)` when every grid is a valid solution.
pub fn run(args: VerifyArgs) -> Result<bool, String> {
    let mut reader = args.input.open()?.reader();
    let (mut grids, mut bad) = (0u64, 0u64);
    for record in reader.by_ref() {
        grids += 1;
        let verdict = match (&record.puzzle, &record.given_solution) {
            (Err(e), _) => Some(e.kind.to_string()),
            (Ok(puzzle), Some(solution)) => problem(solution).or_else(|| {
                (!verify::is_solution(puzzle, solution))
                    .then(|| "the solution changes a given of its puzzle".to_string())
            }),
            (Ok(grid), None) => problem(grid),
        };
        if let Some(why) = verdict {
            bad += 1;
            println!("line {}: {why}", record.line);
        }
    }
    if let Some(e) = reader.take_io_error() {
        return Err(format!("reading stopped after {grids} grids: {e}"));
    }
    println!("{grids} grids, {} valid, {bad} invalid", grids - bad);
    Ok(bad == 0)
}
