//! Forcing chains by contradiction: suppose a candidate is true, follow the singles it forces, and if they run
//! into a dead end (a cell with no candidate, a digit with no place in a unit), the candidate is false.
//!
//! This is the last technique before guessing. Unlike a guess it never commits: it only strikes a candidate it
//! has proved false, so every step stays certain.

use super::board::{Board, Mark, digits};
use super::{Step, Technique, singles};

/// Placements followed from one supposition before giving up on it (a whole grid's worth is plenty).
fn follow_limit(board: &Board) -> usize {
    board.values().len()
}

/// The singles that follow from placing `digit` in `cell`, and the dead end they reach, if they reach one.
fn follow(board: &Board, cell: usize, digit: u8) -> Option<(Vec<Mark>, String)> {
    let mut trial = board.clone();
    trial.place(cell, digit);
    let mut placed = Vec::new();
    for _ in 0..follow_limit(board) {
        if let Some(why) = trial.dead_end() {
            return Some((placed, why));
        }
        let step = singles::full_house(&trial)
            .or_else(|| singles::naked_single(&trial))
            .or_else(|| singles::hidden_single(&trial))?;
        placed.extend(step.placements.iter().copied());
        trial.apply(&step);
    }
    None
}

/// The first candidate, in the cells with the fewest candidates, whose singles end in a contradiction.
pub(super) fn contradiction(board: &Board) -> Option<Step> {
    let mut cells: Vec<usize> = (0..board.values().len())
        .filter(|&c| board.candidates(c).count_ones() >= 2)
        .collect();
    cells.sort_by_key(|&c| board.candidates(c).count_ones());
    cells.into_iter().find_map(|cell| {
        digits(board.candidates(cell)).find_map(|digit| {
            let (placed, why) = follow(board, cell, digit)?;
            let d = board.digit_name(digit);
            let mut chain: Vec<String> = placed
                .iter()
                .take(6)
                .map(|m| format!("{}={}", board.cell_name(m.at()), board.digit_name(m.digit)))
                .collect();
            if placed.len() > 6 {
                chain.push(format!("… ({} singles in all)", placed.len()));
            }
            let reach = if chain.is_empty() {
                format!("then at once {why}")
            } else {
                format!(
                    "the singles that follow ({}) reach a dead end: {why}",
                    chain.join(", ")
                )
            };
            let mut basis = vec![Mark::new(cell, digit)];
            basis.extend(placed.iter().copied());
            let name = board.cell_name(cell);
            Some(Step {
                technique: Technique::ForcingChain,
                placements: Vec::new(),
                eliminations: vec![Mark::new(cell, digit)],
                basis,
                sentence: format!(
                    "Forcing chain: if {name} were {d}, {reach}. So {d} goes from {name}."
                ),
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::nine_from_line;
    use crate::sudoku::solver;

    #[test]
    fn a_contradiction_strikes_only_false_candidates() {
        // magictour top1465, line 1: graded Extreme, by forcing chains.
        let puzzle = nine_from_line(
            "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
        );
        let solution = solver::solve(&puzzle).unwrap();
        let mut board = Board::new(&puzzle);
        let mut forcing = 0;
        while let Some(step) = super::super::next_step(&board) {
            for m in &step.eliminations {
                assert_ne!(solution.cells()[m.at()], m.digit, "{}", step.sentence);
            }
            if step.technique == Technique::ForcingChain {
                forcing += 1;
                assert!(
                    step.sentence.starts_with("Forcing chain: if r"),
                    "{}",
                    step.sentence
                );
                assert!(step.placements.is_empty() && step.eliminations.len() == 1);
            }
            board.apply(&step);
        }
        assert!(forcing > 0);
        assert_eq!(board.grid(), solution);
    }
}
