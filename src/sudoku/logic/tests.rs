//! Whole paths: every step agrees with the known solution, on every shape, and the grades read sensibly.

use super::*;
use crate::sudoku::generate;
use crate::sudoku::grid::nine_from_line;
use crate::sudoku::shape::BoxShape;

/// Solves `puzzle` (unique) logically and checks every placement and elimination against `solution`.
fn checked_path(puzzle: &Grid, solution: &Grid) -> Path {
    let path = solve_unique(puzzle, Symbols::Standard);
    assert_eq!(path.end, End::Solved, "{puzzle:?}");
    let truth = solution.cells();
    for step in &path.steps {
        for m in &step.placements {
            assert_eq!(truth[m.at()], m.digit, "{}", step.sentence);
        }
        for m in &step.eliminations {
            assert_ne!(truth[m.at()], m.digit, "{}", step.sentence);
        }
    }
    path
}

#[test]
fn an_easy_puzzle_is_singles_only() {
    let puzzle = nine_from_line(
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
    );
    let solution = crate::sudoku::solver::solve(&puzzle).unwrap();
    let path = checked_path(&puzzle, &solution);
    assert_eq!(path.steps.len(), 51);
    let rating = Rating::of(&path).unwrap();
    assert_eq!(rating.grade, Grade::Easy);
    assert_eq!(rating.hardest.unwrap().grade(), Grade::Easy);
    assert_eq!(path.search_guesses, 0);
}

#[test]
fn the_hardest_puzzles_need_forcing_chains_or_guesses_and_still_get_a_right_path() {
    let lines = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/sudoku/forum_hardest_11plus.txt"
    ))
    .unwrap();
    for line in lines.lines().take(5) {
        let puzzle = nine_from_line(line);
        let solution = crate::sudoku::solver::solve(&puzzle).unwrap();
        let path = checked_path(&puzzle, &solution);
        let rating = Rating::of(&path).unwrap();
        assert!(rating.grade >= Grade::Extreme, "{line}");
        assert!(
            path.steps
                .iter()
                .any(|s| s.technique == Technique::ForcingChain)
        );
        let guessed = path.steps.iter().any(|s| s.technique == Technique::Guess);
        assert_eq!(guessed, rating.grade == Grade::NeedsGuessing);
        assert_eq!(guessed, path.search_guesses > 0);
    }
}

#[test]
fn every_step_of_a_thousand_kaggle_puzzles_agrees_with_its_solution() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/sudoku/kaggle_10k.csv"
    ))
    .unwrap();
    let mut grades = [0usize; 6];
    for line in text.lines().skip(1).take(1000) {
        let (q, a) = line.split_once(',').unwrap();
        let path = checked_path(&nine_from_line(q), &nine_from_line(a));
        grades[Rating::of(&path).unwrap().grade as usize] += 1;
    }
    // Kaggle's puzzles are easy ones: singles, now and then a locked candidate.
    assert!(grades[Grade::Easy as usize] > 900, "{grades:?}");
    assert_eq!(grades[Grade::NeedsGuessing as usize], 0, "{grades:?}");
}

#[test]
fn hard_puzzles_use_the_harder_techniques_and_stay_right() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/sudoku/magictour_top1465.txt"
    ))
    .unwrap();
    let mut used = std::collections::HashSet::new();
    for line in text.lines().step_by(7).take(120) {
        let puzzle = nine_from_line(line);
        let solution = crate::sudoku::solver::solve(&puzzle).unwrap();
        let path = checked_path(&puzzle, &solution);
        used.extend(path.steps.iter().map(|s| s.technique));
    }
    for t in [
        Technique::Pointing,
        Technique::NakedPair,
        Technique::HiddenPair,
        Technique::XWing,
        Technique::XYWing,
        Technique::XChain,
        Technique::Aic,
        Technique::ForcingChain,
    ] {
        assert!(used.contains(&t), "{t} never used");
    }
}

#[test]
fn every_shape_gets_a_right_path() {
    for (rows, cols, seed) in [
        (2, 2, 1),
        (2, 3, 2),
        (3, 2, 3),
        (3, 4, 4),
        (4, 3, 5),
        (4, 4, 6),
    ] {
        let shape = BoxShape::new(rows, cols).unwrap();
        for k in 0..3 {
            let (puzzle, solution) = generate::puzzle(shape, seed * 10 + k, 0.6);
            let path = checked_path(&puzzle, &solution);
            assert!(Rating::of(&path).is_some());
        }
    }
}

#[test]
fn a_hint_is_the_next_step_or_a_guess_where_none_applies() {
    let easy = nine_from_line(
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
    );
    let board = Board::new(&easy);
    assert_eq!(hint(&board), next_step(&board));
    let hardest = nine_from_line(
        "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
    );
    // With every technique but the last resorts the logic stops short; a guess then comes from the search.
    let mut board = Board::new(&hardest);
    while let Some(step) = Technique::ORDER[..Technique::ORDER.len() - 2]
        .iter()
        .find_map(|&t| find(&board, t))
    {
        board.apply(&step);
    }
    let guess = search_guess(&board).unwrap();
    assert_eq!(guess.technique, Technique::Guess);
    let solution = crate::sudoku::solver::solve(&hardest).unwrap();
    let m = guess.placements[0];
    assert_eq!(solution.cells()[m.at()], m.digit);
    assert!(
        guess
            .sentence
            .starts_with("No technique here applies: the search (with ")
    );
}

#[test]
fn a_puzzle_without_a_solution_ends_so() {
    // Two 5s in row 1: the path says there is no solution instead of guessing.
    let mut cells = vec![0u8; 81];
    cells[0] = 5;
    cells[1] = 5;
    let puzzle = Grid::new(BoxShape::new(3, 3).unwrap(), &cells).unwrap();
    let path = solve(&puzzle, Symbols::Standard);
    assert!(matches!(path.end, End::NoSolution(_)));
    assert!(Rating::of(&path).is_none());
}

#[test]
fn first_combination_walks_in_order_and_stops_early() {
    let mut seen = Vec::new();
    let found = first_combination(&[1, 2, 3, 4], 2, |c| {
        seen.push(c.to_vec());
        (c == [2, 4]).then_some(c[0] * 10 + c[1])
    });
    assert_eq!(found, Some(24));
    assert_eq!(seen, [[1, 2], [1, 3], [1, 4], [2, 3], [2, 4]]);
    assert_eq!(first_combination(&[1, 2], 3, |_| Some(())), None);
}
