//! The puzzles of a file that take the CPU engine longest on one thread, with their times and guesses.
//! `cargo run --release --example slowest -- FILE [COUNT]`
use forkboard::sudoku::Solver;
use forkboard::sudoku::bands::{pack, search};
use forkboard::sudoku::format::{ReadOptions, Reader};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let count: usize = args.next().map_or(10, |c| c.parse().expect("a number"));
    let bytes = std::fs::read(&path).expect("readable");
    let mut solver = Solver::new();
    let mut times: Vec<(f64, u64, u64, usize)> = Reader::new(&bytes[..], ReadOptions::default())
        .enumerate()
        .filter_map(|(i, r)| r.puzzle.ok().map(|p| (i, p)))
        .map(|(i, p)| {
            let started = Instant::now();
            let mut guesses = 0;
            for _ in 0..5 {
                guesses = solver.solve(&p, 1).guesses;
            }
            let passes = search(&pack(&p), 1).passes;
            (
                started.elapsed().as_secs_f64() / 5.0,
                guesses,
                passes,
                i + 1,
            )
        })
        .collect();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (t, g, p, line) in times.iter().take(count) {
        println!(
            "line {line}: {:.1} µs, {g} guesses (CPU engine); {p} lane passes",
            t * 1e6
        );
    }
}
