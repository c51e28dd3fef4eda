//! The native side of the pieces benchmark: a Batch page piece request of one-per-line 9×9 puzzles answered by
//! the function a CPU worker runs (`piece_protocol::serve`), timed.
//!
//! Run: `cargo run --release --example piece_native -- FILE [PER_PIECE] [PIECES]`.

use std::time::Instant;

use forkboard::sudoku::Solver;
use forkboard::sudoku::answer::Mode;
use forkboard::sudoku::format::{Format, ReadOptions, Splitter};
use forkboard::sudoku::piece_protocol::{PieceJob, request, serve};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: piece_native FILE [PER_PIECE] [PIECES]");
        std::process::exit(2);
    };
    let number = |i: usize, default: usize| {
        args.get(i)
            .map_or(default, |n| n.parse().expect("a number"))
    };
    let (per, pieces) = (number(1, 1600), number(2, 300));
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.split(',').next().unwrap_or("").trim())
        .filter(|line| line.len() == 81)
        .collect();
    let body: String = (0..per)
        .map(|i| format!("{}\n", lines[i % lines.len()]))
        .collect();
    let piece = Splitter::new(body.as_bytes(), ReadOptions::default())
        .next_piece(body.len())
        .expect("a piece");
    let job = PieceJob {
        mode: Mode::First,
        max_guesses: 0,
        format: Format::Line,
        graded: false,
    };
    let request = request(&job, &piece).expect("a text piece");
    let mut solver = Solver::new();
    for _ in 0..20 {
        serve(&request, &mut solver);
    }
    let start = Instant::now();
    for _ in 0..pieces {
        serve(&request, &mut solver);
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "native pieces: {per} puzzles a piece, {pieces} pieces, {:.0} puzzles/s, {:.2} ms a piece",
        (per * pieces) as f64 / seconds,
        seconds * 1000.0 / pieces as f64
    );
}
