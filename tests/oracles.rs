//! The CPU engine against the shared puzzle sets: every solution checked by the independent checker, kaggle's
//! given solutions matched, uniqueness confirmed where the set promises it, serg puzzles counted ≥ 2, and
//! generated puzzles of every size from 4×4 to 25×25 solved to their known solutions.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::format::{Answer, Format, ReadOptions, Reader, Record};
use forkboard::sudoku::generate;
use forkboard::sudoku::{BoxShape, Grid, Solver, verify};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/sudoku")
        .join(name)
}

fn records(name: &str) -> Vec<Record> {
    let file = File::open(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Reader::new(BufReader::new(file), ReadOptions::default()).collect()
}

/// Solves a whole set, checking every solution independently; returns the answers.
fn solve_set(name: &str, mode: Mode, expected: usize) -> Vec<(Record, Answer)> {
    let recs = records(name);
    assert_eq!(recs.len(), expected, "{name}: puzzle count");
    let mut solver = Solver::new();
    recs.into_iter()
        .map(|rec| {
            let ans = answer(&rec, &mut solver, mode);
            let puzzle = rec
                .puzzle
                .as_ref()
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            match &ans {
                Answer::Solved { solution, .. } => {
                    assert!(
                        verify::is_solution(puzzle, solution),
                        "{name} line {}",
                        rec.line
                    )
                }
                other => panic!("{name} line {}: {other:?}", rec.line),
            }
            (rec, ans)
        })
        .collect()
}

fn assert_all_unique(name: &str, answers: &[(Record, Answer)]) {
    for (rec, ans) in answers {
        assert!(
            matches!(
                ans,
                Answer::Solved {
                    count: Some((1, false)),
                    ..
                }
            ),
            "{name} line {}: {}",
            rec.line,
            ans.status()
        );
    }
}

#[test]
fn top95_in_both_layouts_gives_the_same_unique_solutions() {
    let lines = solve_set("top95.txt", Mode::Count(2), 95);
    let blocks = solve_set("top95.in", Mode::Count(2), 95);
    assert_all_unique("top95", &lines);
    for ((_, a), (_, b)) in lines.iter().zip(&blocks) {
        assert_eq!(a, b);
    }
}

#[test]
fn top1465_solves_uniquely() {
    assert_all_unique(
        "top1465",
        &solve_set("magictour_top1465.txt", Mode::Count(2), 1465),
    );
}

#[test]
fn every_17_clue_puzzle_has_exactly_one_solution() {
    assert_all_unique("17-clue", &solve_set("17_clue.txt", Mode::Count(2), 49158));
}

#[test]
fn kaggle_solutions_match_the_given_ones() {
    let answers = solve_set("kaggle_10k.csv", Mode::First, 10000);
    for (rec, ans) in &answers {
        let given: &Grid = rec
            .given_solution
            .as_deref()
            .expect("kaggle gives solutions");
        let Answer::Solved { solution, .. } = ans else {
            unreachable!()
        };
        assert_eq!(solution, given, "kaggle line {}", rec.line);
    }
}

#[test]
fn every_serg_puzzle_has_several_solutions() {
    let answers = solve_set("serg_multi_10k.txt", Mode::Count(2), 10000);
    for (rec, ans) in &answers {
        assert!(
            matches!(
                ans,
                Answer::Solved {
                    count: Some((2, true)),
                    ..
                }
            ),
            "serg line {}: {}",
            rec.line,
            ans.status()
        );
    }
}

#[test]
fn every_size_from_4_to_25_solves_to_its_known_solution() {
    let shapes = [
        "2x2", "2x3", "3x2", "2x4", "4x2", "3x3", "2x5", "3x4", "4x3", "2x7", "3x5", "4x4", "3x6",
        "4x5", "3x7", "2x11", "4x6", "5x5",
    ];
    let mut solver = Solver::new();
    for (seed, shape) in shapes.iter().enumerate() {
        let shape: BoxShape = shape.parse().unwrap();
        for k in 0..3 {
            // Near 40-50% givens, large Latin-square-like grids enter a hard phase (heavy-tailed search, a
            // known property of quasigroup completion): large sizes dig a little less deep.
            let share = if shape.side() <= 12 { 0.6 } else { 0.45 };
            let (puzzle, solution) = generate::puzzle(shape, (seed * 10 + k) as u64, share);
            assert!(puzzle.clues() < shape.cells(), "{shape}: some cells empty");
            let out = solver.solve(&puzzle, 2);
            assert_eq!(out.count, 1, "{shape} seed {k}: unique");
            assert_eq!(out.solution.as_ref(), Some(&solution), "{shape} seed {k}");
            // And through the text formats: written as one line, read back, solved again.
            let line = puzzle.to_line(forkboard::sudoku::Symbols::Standard);
            let opts = ReadOptions {
                format: Some(Format::Line),
                shape: Some(shape),
                ..ReadOptions::default()
            };
            let rec = Reader::new(line.as_bytes(), opts).next().unwrap();
            assert_eq!(rec.puzzle.as_ref(), Ok(&puzzle));
        }
    }
}

#[test]
fn a_25x25_that_needs_branching_solves() {
    // Half the cells of a full grid emptied at random: several solutions, and singles alone do not finish it.
    let shape = BoxShape::for_side(25).unwrap();
    let full = generate::solved_grid(shape, 1);
    let mut x: u64 = 12345;
    let cells: Vec<u8> = full
        .cells()
        .iter()
        .map(|&v| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 1000 < 500 { 0 } else { v }
        })
        .collect();
    let puzzle = forkboard::sudoku::Grid::new(shape, &cells).unwrap();
    let out = Solver::new().solve(&puzzle, 1);
    assert!(out.guesses > 0, "the test should exercise the search");
    assert!(verify::is_solution(&puzzle, out.solution.as_ref().unwrap()));
}

/// N-Queens: the corner-split counter on every core against the published counts up to 16 (N ≤ 13 are in the
/// unit tests; these three take a few seconds).
#[test]
fn queens_counts_match_the_published_ones_for_14_to_16() {
    use forkboard::queens::{known, prefix};
    for n in 14..=16 {
        let classes = prefix::count_parallel(n, &|_, _| {});
        assert_eq!(Some(classes.tally(n)), known(n), "N={n}");
    }
}
