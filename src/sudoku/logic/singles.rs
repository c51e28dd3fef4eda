//! Singles: the last empty cell of a unit, a cell with one candidate, a digit with one place in a unit.

use super::board::{Board, Mark, bit, digits};
use super::{Step, Technique};

/// A unit with one empty cell left: that cell holds the unit's missing digit.
pub(super) fn full_house(board: &Board) -> Option<Step> {
    let values = board.values();
    (0..3 * board.side()).find_map(|u| {
        let cells = board.unit(u);
        let mut empty = cells.iter().filter(|&&c| values[c] == 0);
        let (&cell, None) = (empty.next()?, empty.next()) else {
            return None;
        };
        let digit = digits(board.candidates(cell)).next()?;
        (board.candidates(cell).count_ones() == 1).then(|| Step {
            technique: Technique::FullHouse,
            placements: vec![Mark::new(cell, digit)],
            eliminations: Vec::new(),
            basis: vec![Mark::new(cell, digit)],
            sentence: format!(
                "Full house: {} is the last empty cell of {}, so it is {}.",
                board.cell_name(cell),
                board.geo.unit_name(u),
                board.digit_name(digit)
            ),
        })
    })
}

/// A cell with one candidate left.
pub(super) fn naked_single(board: &Board) -> Option<Step> {
    (0..board.values().len()).find_map(|cell| {
        let mask = board.candidates(cell);
        (mask.count_ones() == 1).then(|| {
            let digit = mask.trailing_zeros() as u8 + 1;
            Step {
                technique: Technique::NakedSingle,
                placements: vec![Mark::new(cell, digit)],
                eliminations: Vec::new(),
                basis: vec![Mark::new(cell, digit)],
                sentence: format!(
                    "Naked single: {} can only be {}.",
                    board.cell_name(cell),
                    board.digit_name(digit)
                ),
            }
        })
    })
}

/// A digit with one place left in a unit; boxes are looked at first, as people do.
pub(super) fn hidden_single(board: &Board) -> Option<Step> {
    let n = board.side();
    let units = (2 * n..3 * n).chain(0..2 * n);
    units.into_iter().find_map(|u| {
        let cells = board.unit(u);
        let placed = cells
            .iter()
            .map(|&c| board.values()[c])
            .filter(|&v| v != 0)
            .fold(0u32, |m, v| m | bit(v));
        let all = (1u32 << n) - 1;
        digits(all & !placed).find_map(|digit| {
            let places = board.positions(u, digit);
            (places.count_ones() == 1).then(|| {
                let cell = cells[places.trailing_zeros() as usize];
                Step {
                    technique: Technique::HiddenSingle,
                    placements: vec![Mark::new(cell, digit)],
                    eliminations: Vec::new(),
                    basis: vec![Mark::new(cell, digit)],
                    sentence: format!(
                        "Hidden single: {} can only go in {} within {}.",
                        board.digit_name(digit),
                        board.cell_name(cell),
                        board.geo.unit_name(u)
                    ),
                }
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::nine_from_line;

    #[test]
    fn a_unit_with_one_gap_is_a_full_house() {
        let board = Board::new(&nine_from_line(
            "123456780........................................................................",
        ));
        let step = full_house(&board).unwrap();
        assert_eq!(step.placements, [Mark::new(8, 9)]);
        assert_eq!(
            step.sentence,
            "Full house: r1c9 is the last empty cell of row 1, so it is 9."
        );
    }

    #[test]
    fn a_cell_with_one_candidate_is_a_naked_single() {
        // r1c1 sees 2..8 in its row and 9 in its column.
        let board = Board::new(&nine_from_line(
            ".2345678.9.......................................................................",
        ));
        assert!(full_house(&board).is_none());
        let step = naked_single(&board).unwrap();
        assert_eq!(step.placements, [Mark::new(0, 1)]);
        assert_eq!(step.sentence, "Naked single: r1c1 can only be 1.");
    }

    #[test]
    fn a_digit_with_one_place_in_a_box_is_a_hidden_single() {
        // The 1s in rows 2 and 3 and columns 2 and 3 leave r1c1 the only place for 1 in box 1.
        let board = Board::new(&nine_from_line(
            ".........\
             ...1.....\
             ......1..\
             .1.......\
             .........\
             .........\
             ..1......\
             .........\
             .........",
        ));
        assert!(naked_single(&board).is_none());
        let step = hidden_single(&board).unwrap();
        assert_eq!(step.placements, [Mark::new(0, 1)]);
        assert_eq!(
            step.sentence,
            "Hidden single: 1 can only go in r1c1 within box 1."
        );
    }
}
