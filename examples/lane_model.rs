//! Counts what the GPU lane kernel's search does on a set, with its Rust model ([`forkboard::sudoku::bands`]):
//! passes, guesses and stack depth per puzzle, so a kernel change can be weighed before it meets a GPU.
//!
//! `cargo run --release --example lane_model -- FILE [LIMIT]`

use forkboard::sudoku::bands::{pack, search};
use forkboard::sudoku::format::{ReadOptions, Reader};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: lane_model FILE [LIMIT]");
    let limit: u64 = args.next().map_or(1, |l| l.parse().expect("a number"));
    let bytes = std::fs::read(&path).expect("a readable file");
    let grids: Vec<_> = Reader::new(&bytes[..], ReadOptions::default())
        .filter_map(|r| r.puzzle.ok())
        .filter(|g| g.side() == 9)
        .collect();
    let started = std::time::Instant::now();
    let mut runs: Vec<(u64, u64, usize, usize)> = grids
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let s = search(&pack(g), limit);
            (s.passes, s.guesses, s.depth, i)
        })
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    let n = runs.len() as f64;
    let passes: u64 = runs.iter().map(|r| r.0).sum();
    let guesses: u64 = runs.iter().map(|r| r.1).sum();
    runs.sort_unstable();
    let worst = runs.last().expect("a puzzle");
    let mut depths: Vec<usize> = runs.iter().map(|r| r.2).collect();
    depths.sort_unstable();
    println!(
        "{path}: {} puzzles, limit {limit}: passes/puzzle {:.1} (median {}, max {} at #{}), guesses/puzzle {:.1}, \
         depth median {} p99 {} max {}; model {:.0} puzzles/s on one core",
        runs.len(),
        passes as f64 / n,
        runs[runs.len() / 2].0,
        worst.0,
        worst.3 + 1,
        guesses as f64 / n,
        depths[depths.len() / 2],
        depths[depths.len() * 99 / 100],
        depths.last().expect("a puzzle"),
        n / seconds
    );
}
