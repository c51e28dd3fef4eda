//! Forkboard's CPU solver on one thread, raw, as the yardsticks' harnesses measure theirs (`../shared/anchors/`):
//! the puzzles parsed beforehand, then solved in a loop over the file for a few seconds; prints one line per
//! file with puzzles per second and guesses per puzzle.
//!
//! Run: `cargo run --release --example one_core -- LIMIT SECONDS FILE...` (LIMIT 1: the first solution; 2: the
//! uniqueness check).

use std::time::Instant;

use forkboard::sudoku::format::{ReadOptions, Reader};
use forkboard::sudoku::{Grid, Solver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [limit, seconds, files @ ..] = &args[..] else {
        eprintln!("usage: one_core LIMIT SECONDS FILE...");
        std::process::exit(2);
    };
    let limit: u64 = limit.parse().expect("LIMIT is a number");
    let seconds: f64 = seconds.parse().expect("SECONDS is a number");
    for file in files {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let grids: Vec<Grid> = Reader::new(&bytes[..], ReadOptions::default())
            .filter_map(|r| r.puzzle.ok())
            .collect();
        let mut solver = Solver::new();
        let (mut solved, mut guesses, mut found) = (0u64, 0u64, 0u64);
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < seconds {
            for grid in &grids {
                let out = solver.solve(grid, limit);
                found += out.count;
                guesses += out.guesses;
            }
            solved += grids.len() as u64;
        }
        let rate = solved as f64 / start.elapsed().as_secs_f64();
        println!(
            "one_core limit={limit} file={file} puzzles={} puzzles/s={rate:.0} guesses/puzzle={:.1} solutions/puzzle={:.2}",
            grids.len(),
            guesses as f64 / solved as f64,
            found as f64 / solved as f64
        );
    }
}
