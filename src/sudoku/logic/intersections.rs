//! Locked candidates: where a box meets a line, a digit confined to the meeting in one of them is struck from
//! the rest of the other.

use super::board::{Board, Mark};
use super::{Step, Technique};

/// A box whose places for a digit all lie in one row or column: the digit goes from the rest of that line.
pub(super) fn pointing(board: &Board) -> Option<Step> {
    let n = board.side();
    (2 * n..3 * n).find_map(|b| {
        (1..=n as u8).find_map(|digit| {
            let line = board.geo.shared_line(&placed_in(board, b, digit)?)?;
            locked(board, Technique::Pointing, b, line, digit)
        })
    })
}

/// A row or column whose places for a digit all lie in one box: the digit goes from the rest of that box.
pub(super) fn claiming(board: &Board) -> Option<Step> {
    let n = board.side();
    (0..2 * n).find_map(|line| {
        (1..=n as u8).find_map(|digit| {
            let b = board.geo.shared_unit(&placed_in(board, line, digit)?, 2)?;
            locked(board, Technique::Claiming, line, b, digit)
        })
    })
}

/// The cells of `unit` that may hold `digit`, if there are at least two.
fn placed_in(board: &Board, unit: usize, digit: u8) -> Option<Vec<usize>> {
    let cells: Vec<usize> = board
        .unit(unit)
        .iter()
        .copied()
        .filter(|&c| board.has(c, digit))
        .collect();
    (cells.len() >= 2).then_some(cells)
}

/// The step that strikes `digit` from `target` outside `source`, where `source` holds all its places.
fn locked(
    board: &Board,
    technique: Technique,
    source: usize,
    target: usize,
    digit: u8,
) -> Option<Step> {
    let inside: Vec<usize> = board
        .unit(source)
        .iter()
        .copied()
        .filter(|&c| board.has(c, digit))
        .collect();
    let eliminations: Vec<Mark> = board
        .unit(target)
        .iter()
        .copied()
        .filter(|c| board.has(*c, digit) && !inside.contains(c))
        .map(|c| Mark::new(c, digit))
        .collect();
    if eliminations.is_empty() {
        return None;
    }
    let d = board.digit_name(digit);
    Some(Step {
        technique,
        placements: Vec::new(),
        basis: inside.iter().map(|&c| Mark::new(c, digit)).collect(),
        sentence: format!(
            "{}: within {}, {d} can only go in {}, so {d} goes from {}.",
            technique.name(),
            board.geo.unit_name(source),
            board.geo.unit_name(target),
            board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>()),
        ),
        eliminations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::Grid;
    use crate::sudoku::grid::nine_from_line;

    /// An empty grid whose box 1 keeps 5 only in its top row.
    fn pointing_board() -> Board {
        let mut board = Board::new(&Grid::empty(crate::sudoku::BoxShape::new(3, 3).unwrap()));
        for cell in [9, 10, 11, 18, 19, 20] {
            board.eliminate(Mark::new(cell, 5));
        }
        board
    }

    #[test]
    fn a_box_confined_to_a_row_clears_the_row() {
        let step = pointing(&pointing_board()).unwrap();
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [3, 4, 5, 6, 7, 8]);
        assert!(step.eliminations.iter().all(|m| m.digit == 5));
        assert_eq!(
            step.sentence,
            "Locked candidates (pointing): within box 1, 5 can only go in row 1, so 5 goes from \
             r1c4, r1c5, r1c6, r1c7, r1c8 and r1c9."
        );
    }

    #[test]
    fn a_row_confined_to_a_box_clears_the_box() {
        // Row 1 keeps 5 only in columns 1-3: the rest of box 1 loses it.
        let mut board = Board::new(&Grid::empty(crate::sudoku::BoxShape::new(3, 3).unwrap()));
        for cell in 3..9 {
            board.eliminate(Mark::new(cell, 5));
        }
        // Pointing sees nothing: every box still has 5 in several rows and columns.
        assert!(pointing(&board).is_none());
        let step = claiming(&board).unwrap();
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [9, 10, 11, 18, 19, 20]);
    }

    #[test]
    fn nothing_is_locked_on_a_fresh_puzzle_without_confinement() {
        let board = Board::new(&nine_from_line(&format!("1{}", ".".repeat(80))));
        assert!(pointing(&board).is_none());
        assert!(claiming(&board).is_none());
    }
}
