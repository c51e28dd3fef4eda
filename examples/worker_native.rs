//! The native side of `scripts/bench-sudoku-wasm.mjs`: the request a CPU worker gets for every puzzle of a file
//! (9×9, one per line; repeated to at least 50,000), answered by the same function the worker runs (`worker_protocol::serve`), timed.
//!
//! Run: `cargo run --release --example worker_native -- FILE [LIMIT] [ROUNDS]`.

use std::time::Instant;

use forkboard::sudoku::Solver;
use forkboard::sudoku::worker_protocol::serve;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: worker_native FILE [LIMIT] [ROUNDS]");
        std::process::exit(2);
    };
    let limit = args.get(1).map_or("1", String::as_str);
    let rounds: usize = args
        .get(2)
        .map_or(5, |r| r.parse().expect("ROUNDS is a number"));
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The same selection and share text as the script: 81 cells per line (a CSV's first column).
    let puzzles: Vec<String> = text
        .lines()
        .map(|line| line.split(',').next().unwrap_or("").trim())
        .filter(|line| line.len() == 81 && line.bytes().all(|b| b == b'.' || b.is_ascii_digit()))
        .map(|line| format!("3x3-{}", line.replace('0', ".")))
        .collect();
    // Repeated to at least 50,000 puzzles, as the script does.
    let copies = 50_000usize.div_ceil(puzzles.len().max(1));
    let puzzles: Vec<&String> = std::iter::repeat_n(&puzzles, copies).flatten().collect();
    let request = format!(
        "{limit} 0\n{}",
        puzzles
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let mut solver = Solver::new();
    serve(&request, &mut solver);
    let rates: Vec<String> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            let reply = serve(&request, &mut solver);
            let seconds = start.elapsed().as_secs_f64();
            assert_eq!(
                reply
                    .split(|&b| b == b'\n')
                    .filter(|l| l.starts_with(b"S "))
                    .count(),
                puzzles.len()
            );
            format!("{:.0}", puzzles.len() as f64 / seconds)
        })
        .collect();
    println!(
        "native: {file} limit={limit} puzzles={} puzzles/s={}",
        puzzles.len(),
        rates.join(",")
    );
}
