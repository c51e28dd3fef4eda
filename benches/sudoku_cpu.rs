//! Single-thread CPU benchmark: Forkboard's solver beside the MIT-licensed `msolve` crate on each shared data
//! set, both counting up to 2 solutions (the uniqueness check, as in `../shared/data/README.md`), both from
//! puzzles parsed beforehand. Median of 3 runs; compare the ratio columns, not absolute figures, across runs.
//! The engine column is the same count through what the CPU engine does for every record (`answer`: the givens
//! checked, the thread's solver, the answer checked and built), as a share of the raw solver's rate.
//!
//! Run: `cargo bench --bench sudoku_cpu` (from the repository root, with `../shared` beside it).

use std::path::PathBuf;
use std::time::Instant;

use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::format::{Answer, ReadOptions, Reader, Record};
use forkboard::sudoku::solver::DEFAULT_MAX_GUESSES;
use forkboard::sudoku::{Grid, Solver, with_thread_solver};

const SETS: [&str; 4] = [
    "kaggle_10k.csv",
    "17_clue.txt",
    "magictour_top1465.txt",
    "top95.txt",
];
const RUNS: usize = 3;

fn load(name: &str) -> Vec<Record> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/sudoku")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Reader::new(&bytes[..], ReadOptions::default()).collect()
}

/// Puzzles per second, median of `RUNS`, and a checksum so no run can be optimised away.
fn rate(puzzles: usize, mut run: impl FnMut() -> u64) -> (f64, u64) {
    let mut rates: Vec<f64> = Vec::new();
    let mut check = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        check = run();
        rates.push(puzzles as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    (rates[RUNS / 2], check)
}

fn main() {
    println!(
        "| set | puzzles | forkboard (puzzles/s) | msolve 0.6 (puzzles/s) | ratio | guesses/puzzle | engine path | share of raw |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for name in SETS {
        let records = load(name);
        let grids: Vec<Grid> = records
            .iter()
            .map(|r| r.puzzle.clone().expect("the shared sets are valid"))
            .collect();
        let cells: Vec<[u8; 81]> = grids
            .iter()
            .map(|g| g.cells().try_into().expect("9×9"))
            .collect();
        let mut solver = Solver::new();
        let mut guesses = 0;
        let (ours, found) = rate(grids.len(), || {
            guesses = 0;
            grids
                .iter()
                .map(|g| {
                    let out = solver.solve(g, 2);
                    guesses += out.guesses;
                    out.count
                })
                .sum()
        });
        let (theirs, found_too) = rate(grids.len(), || {
            cells
                .iter()
                .map(|c| msolve::Sudoku::from(c).count_solutions(2) as u64)
                .sum()
        });
        let (engine, found_by_engine) = rate(records.len(), || {
            with_thread_solver(DEFAULT_MAX_GUESSES, |solver| {
                records
                    .iter()
                    .map(|r| match answer(r, solver, Mode::Count(2)) {
                        Answer::Solved {
                            count: Some((n, _)),
                            ..
                        } => n,
                        _ => 0,
                    })
                    .sum()
            })
        });
        assert_eq!(
            found, found_too,
            "{name}: both solvers count the same solutions"
        );
        assert_eq!(
            found, found_by_engine,
            "{name}: the engine path counts alike"
        );
        println!(
            "| {name} | {} | {ours:.0} | {theirs:.0} | {:.2} | {:.1} | {engine:.0} | {:.2} |",
            grids.len(),
            ours / theirs,
            guesses as f64 / grids.len() as f64,
            engine / ours
        );
    }
}
