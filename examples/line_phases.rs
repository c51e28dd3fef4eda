//! Where the host time of a file's plain 9×9 lines goes (`forkboard solve --engine gpu`'s short way, see
//! `src/sudoku/format/nine_piece.rs`): each host step per line on one core — cutting the text into a piece,
//! taking it as plain lines, reading a line's values and packing them for the kernel, unpacking a result and
//! checking it against its line, and writing the solution lines. Kaggle's 10,000 puzzles, 13 times over.
//!
//! `cargo run --release --example line_phases [DATA_DIR]`

use std::hint::black_box;
use std::time::Instant;

use forkboard::sudoku::bands::{pack_values, unpack};
use forkboard::sudoku::format::{Format, NineAnswer, ReadOptions, Splitter, write_nines};
use forkboard::sudoku::{Symbols, verify};

/// Milliseconds of the best of five runs of `run`.
fn best_ms<T>(mut run: impl FnMut() -> T) -> f64 {
    (0..5)
        .map(|_| {
            let started = Instant::now();
            black_box(run());
            started.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let data = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/data/sudoku".into());
    let csv = std::fs::read_to_string(format!("{data}/kaggle_10k.csv")).expect("the shared data");
    let (mut text, mut solutions) = (String::new(), Vec::new());
    for _ in 0..13 {
        for row in csv.lines().skip(1) {
            let (quiz, solution) = row.split_once(',').expect("quizzes,solutions");
            text.push_str(quiz);
            text.push('\n');
            let values: Vec<u8> = solution.bytes().map(|b| b - b'0').collect();
            solutions.push(pack_values(&values.try_into().expect("81 cells")));
        }
    }
    let n = solutions.len();
    let options = ReadOptions::default();
    let piece = || {
        Splitter::new(text.as_bytes(), options)
            .next_piece(usize::MAX)
            .expect("one piece")
    };
    let cut = best_ms(piece);
    let taken = best_ms(|| {
        piece()
            .into_nine_piece(options)
            .unwrap_or_else(|_| panic!("plain lines"))
    });
    let lines = piece()
        .into_nine_piece(options)
        .unwrap_or_else(|_| panic!("plain lines"));
    let pack = best_ms(|| {
        (0..n)
            .map(|i| pack_values(&lines.values(i))[0])
            .fold(0, |a, b| a ^ b)
    });
    let check = |i: usize| {
        let values = unpack(&solutions[i]);
        assert!(verify::is_nine_solution(&lines.values(i), &values));
        NineAnswer::Solved {
            values,
            count: None,
        }
    };
    let answer = best_ms(|| (0..n).map(check).collect::<Vec<_>>());
    let answers: Vec<NineAnswer> = (0..n).map(check).collect();
    let write = best_ms(|| {
        let mut out = Vec::new();
        write_nines(
            answers.iter().cloned(),
            Format::Line,
            Symbols::Standard,
            &mut out,
        );
        out
    });
    let ns = |ms: f64| ms * 1e6 / n as f64;
    println!("{n} lines, nanoseconds a line on one core:");
    println!("  cut into a piece          {:6.1}", ns(cut));
    println!("  taken as plain lines      {:6.1}", ns(taken - cut));
    println!("  values read and packed    {:6.1}", ns(pack));
    println!("  unpacked, checked, kept   {:6.1}", ns(answer));
    println!("  solution lines written    {:6.1}", ns(write));
}
