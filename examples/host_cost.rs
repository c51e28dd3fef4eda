//! What the host spends per 9×9 puzzle around a GPU batch, on one core: checking the givens, packing the
//! value planes, unpacking a solution into a grid, checking it, making the answer. Each step over a million
//! kaggle records (memory as a batch meets it), then over a thousand (warm caches: the arithmetic alone).
//!
//! `cargo run --release --example host_cost` (from the repository root, with `../shared` beside it)

use std::hint::black_box;
use std::time::Instant;

use forkboard::sudoku::answer::{Mode, from_outcome, ready_for_solver};
use forkboard::sudoku::bands::{nine, pack, search, unpack};
use forkboard::sudoku::format::{Answer, ReadOptions, Reader, Record, check_givens};
use forkboard::sudoku::solver::Outcome;
use forkboard::sudoku::{Grid, verify};

/// Nanoseconds per item of `run` over `items` items.
fn per_item(items: usize, run: impl FnOnce() -> usize) -> String {
    let started = Instant::now();
    let sink = run();
    black_box(sink);
    format!(
        "{:.1} ns",
        started.elapsed().as_nanos() as f64 / items as f64
    )
}

fn main() {
    let bytes = std::fs::read("../shared/data/sudoku/kaggle_10k.csv").expect("the shared data");
    let base: Vec<Record> = Reader::new(&bytes[..], ReadOptions::default()).collect();
    let records: Vec<Record> = base.iter().cycle().take(1_000_000).cloned().collect();
    let n = records.len();
    let puzzles: Vec<&Grid> = records
        .iter()
        .map(|r| r.puzzle.as_ref().expect("valid"))
        .collect();
    let answers: Vec<[u32; 12]> = puzzles[..base.len()]
        .iter()
        .map(|p| search(&pack(p), 1).first.expect("solvable"))
        .collect();
    let solutions: Vec<Grid> = (0..n)
        .map(|i| Grid::new(nine(), &unpack(&answers[i % answers.len()])).expect("9×9"))
        .collect();
    println!("a million puzzles:");
    println!(
        "  givens check  {}",
        per_item(n, || records
            .iter()
            .filter(|r| ready_for_solver(r).is_ok())
            .count())
    );
    println!(
        "  pack          {}",
        per_item(n, || puzzles.iter().map(|p| pack(p)[0] as usize).sum())
    );
    println!(
        "  unpack + grid {}",
        per_item(n, || {
            (0..n)
                .map(|i| Grid::new(nine(), &unpack(&answers[i % answers.len()])).is_some() as usize)
                .sum()
        })
    );
    println!(
        "  solution check {}",
        per_item(n, || {
            puzzles
                .iter()
                .zip(&solutions)
                .filter(|(p, s)| verify::is_solution(p, s))
                .count()
        })
    );
    println!(
        "  answer (check included) {}",
        per_item(n, || {
            puzzles
                .iter()
                .zip(solutions.iter().cloned())
                .map(|(p, s)| {
                    let outcome = Outcome {
                        count: 1,
                        solution: Some(s),
                        hit_limit: true,
                        guesses: 0,
                        gave_up: false,
                    };
                    matches!(
                        from_outcome(1, p, outcome, Mode::First),
                        Answer::Solved { .. }
                    ) as usize
                })
                .sum()
        })
    );
    let (few, few_solutions) = (&puzzles[..1000], &solutions[..1000]);
    println!("a thousand puzzles, a thousand times (warm caches):");
    let warm = 1000 * few.len();
    println!(
        "  givens check  {}",
        per_item(warm, || (0..1000)
            .map(|_| few.iter().filter(|p| check_givens(p).is_ok()).count())
            .sum())
    );
    println!(
        "  pack          {}",
        per_item(warm, || (0..1000)
            .map(|_| few.iter().map(|p| pack(p)[0] as usize).sum::<usize>())
            .sum())
    );
    println!(
        "  unpack        {}",
        per_item(warm, || (0..warm)
            .map(|i| unpack(black_box(&answers[i % 1000]))[5] as usize)
            .sum())
    );
    println!(
        "  grid          {}",
        per_item(warm, || {
            let cells = unpack(&answers[0]);
            (0..warm)
                .filter(|_| Grid::new(nine(), &black_box(cells)).is_some())
                .count()
        })
    );
    println!(
        "  solution check {}",
        per_item(warm, || {
            (0..1000)
                .map(|_| {
                    few.iter()
                        .zip(few_solutions)
                        .filter(|(p, s)| verify::is_solution(p, s))
                        .count()
                })
                .sum()
        })
    );
}
