//! The large-grid benchmark's generator and timer: seeded solvable puzzles of every asked side and share of
//! emptied cells (a shuffled full grid with that share emptied at random, so not necessarily unique), each
//! solved once by the CPU engine on one thread. Writes `puzzles.txt` (one puzzle a line: side, share, seed and
//! the cells, 0 for empty) and `forkboard.csv` (the time, guesses and outcome of each) into the folder given.
//! `scripts/bench-large-grids.sh` runs it and CaDiCaL on the same puzzles and prints the table.
//!
//! `cargo run --release --example large_grids -- OUT_DIR [COUNT] [SIDES] [SHARES] [FIRST_SEED]`
//! (defaults: 100 of each; 16,20,25; 30,40,50,55,60,70; seeds from 0)
use forkboard::sudoku::{BoxShape, Solver, generate, verify};
use std::fmt::Write as _;
use std::time::Instant;

fn list(arg: Option<String>, default: &str) -> Vec<usize> {
    arg.as_deref()
        .unwrap_or(default)
        .split(',')
        .map(|v| v.parse().expect("a comma-separated list of numbers"))
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().expect("OUT_DIR"));
    let count: u64 = args
        .next()
        .map_or(100, |c| c.parse().expect("COUNT, a number"));
    let sides = list(args.next(), "16,20,25");
    let shares = list(args.next(), "30,40,50,55,60,70");
    let first_seed: u64 = args
        .next()
        .map_or(0, |s| s.parse().expect("FIRST_SEED, a number"));
    std::fs::create_dir_all(&out).expect("OUT_DIR can be made");
    let (mut puzzles, mut times) = (
        String::new(),
        String::from("side,share,seed,seconds,guesses,outcome\n"),
    );
    let mut solver = Solver::new();
    for &side in &sides {
        let shape = BoxShape::for_side(side).expect("a side the engine knows");
        for &share in &shares {
            let mut slowest = 0f64;
            for seed in first_seed..first_seed + count {
                let (puzzle, _) = generate::with_holes(shape, seed, share as f64 / 100.0);
                let cells: Vec<String> = puzzle.cells().iter().map(u8::to_string).collect();
                writeln!(puzzles, "{side} {share} {seed} {}", cells.join(",")).unwrap();
                let started = Instant::now();
                let outcome = solver.solve(&puzzle, 1);
                let seconds = started.elapsed().as_secs_f64();
                slowest = slowest.max(seconds);
                let verdict = match &outcome.solution {
                    Some(s) if verify::is_solution(&puzzle, s) => "solved",
                    Some(_) => "WRONG",
                    None if outcome.gave_up => "gave up",
                    None => "no solution",
                };
                writeln!(
                    times,
                    "{side},{share},{seed},{seconds:.6},{},{verdict}",
                    outcome.guesses
                )
                .unwrap();
            }
            eprintln!("{side}×{side}, {share}% emptied: {count} puzzles, slowest {slowest:.3} s");
        }
    }
    std::fs::write(out.join("puzzles.txt"), puzzles).expect("puzzles.txt written");
    std::fs::write(out.join("forkboard.csv"), times).expect("forkboard.csv written");
}
