//! The puzzles of a file that take the CPU engine longest on one thread, with their times (the best of `REPS`
//! solves, 5 unless given) and guesses; with `TIMES`, every puzzle's line and time in µs written there, one a
//! line, for comparing solvers puzzle by puzzle.
//! `cargo run --release --example slowest -- FILE [COUNT] [TIMES] [REPS]`
use forkboard::sudoku::Solver;
use forkboard::sudoku::bands::{pack, search};
use forkboard::sudoku::format::{ReadOptions, Reader};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let count: usize = args.next().map_or(10, |c| c.parse().expect("a number"));
    let times_path = args.next();
    let reps: usize = args.next().map_or(5, |r| r.parse().expect("a number"));
    let bytes = std::fs::read(&path).expect("readable");
    let mut solver = Solver::new();
    let mut times: Vec<(f64, u64, u64, usize)> = Reader::new(&bytes[..], ReadOptions::default())
        .filter_map(|r| r.puzzle.ok().map(|p| (r.line, p)))
        .map(|(i, p)| {
            let mut best = f64::INFINITY;
            let mut guesses = 0;
            for _ in 0..reps {
                let started = Instant::now();
                guesses = solver.solve(&p, 1).guesses;
                best = best.min(started.elapsed().as_secs_f64());
            }
            let passes = search(&pack(&p), 1).passes;
            (best, guesses, passes, i)
        })
        .collect();
    if let Some(path) = times_path {
        let lines: String = times
            .iter()
            .map(|(t, _, _, line)| format!("{line} {:.2}\n", t * 1e6))
            .collect();
        std::fs::write(&path, lines).expect("TIMES writable");
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (t, g, p, line) in times.iter().take(count) {
        println!(
            "line {line}: {:.1} µs, {g} guesses (CPU engine); {p} lane passes",
            t * 1e6
        );
    }
}
