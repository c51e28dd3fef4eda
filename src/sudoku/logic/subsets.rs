//! Naked and hidden subsets: k cells of a unit holding only k digits between them, or k digits of a unit with
//! only k places between them (pairs, triples and quads), and the locked pairs and triples that clear two units.

use super::board::{Board, Mark, bit, digits};
use super::{Step, Technique, first_combination};

/// A naked subset of `size` cells in some unit. With `locked`, only subsets inside one box and one line count,
/// and they clear both.
pub(super) fn naked(board: &Board, size: usize, locked: bool) -> Option<Step> {
    let n = board.side();
    let units: Vec<usize> = if locked {
        (2 * n..3 * n).collect()
    } else {
        (0..3 * n).collect()
    };
    units.into_iter().find_map(|u| {
        let open: Vec<usize> = board
            .unit(u)
            .iter()
            .copied()
            .filter(|&c| (2..=size as u32).contains(&board.candidates(c).count_ones()))
            .collect();
        first_combination(&open, size, |cells| {
            let mask = cells.iter().fold(0, |m, &c| m | board.candidates(c));
            if mask.count_ones() as usize != size {
                return None;
            }
            let mut clears = vec![u];
            if locked {
                let line = board.geo.shared_line(cells)?;
                clears.push(line);
            }
            let eliminations = strike(board, &clears, cells, mask);
            if eliminations.is_empty() {
                return None;
            }
            let technique = match (locked, size) {
                (true, 2) => Technique::LockedPair,
                (true, _) => Technique::LockedTriple,
                (false, 2) => Technique::NakedPair,
                (false, 3) => Technique::NakedTriple,
                _ => Technique::NakedQuad,
            };
            let basis = cells
                .iter()
                .flat_map(|&c| digits(board.candidates(c)).map(move |d| Mark::new(c, d)))
                .collect();
            let within = clears
                .iter()
                .map(|&u| board.geo.unit_name(u).to_string())
                .collect::<Vec<_>>()
                .join(" and ");
            Some(Step {
                technique,
                placements: Vec::new(),
                basis,
                sentence: format!(
                    "{}: within {within}, {} hold only {} between them, so {}.",
                    technique.name(),
                    board.cell_list(cells),
                    board.digit_list(mask),
                    board.mark_list(&eliminations)
                ),
                eliminations,
            })
        })
    })
}

/// A hidden subset of `size` digits in some unit: their places are `size` cells, which lose every other
/// candidate.
pub(super) fn hidden(board: &Board, size: usize) -> Option<Step> {
    let n = board.side();
    (0..3 * n).find_map(|u| {
        let cells = board.unit(u);
        let wanted: Vec<(u8, u32)> = (1..=n as u8)
            .map(|d| (d, board.positions(u, d)))
            .filter(|&(_, p)| (1..=size as u32).contains(&p.count_ones()))
            .collect();
        // Hidden subsets need at least `size + 1` open cells, or they are naked ones seen from the other side.
        let open = cells.iter().filter(|&&c| board.candidates(c) != 0).count();
        if open <= size + 1 {
            return None;
        }
        let indices: Vec<usize> = (0..wanted.len()).collect();
        first_combination(&indices, size, |chosen| {
            let places = chosen.iter().fold(0u32, |m, &i| m | wanted[i].1);
            if places.count_ones() as usize != size {
                return None;
            }
            let mask = chosen.iter().fold(0u32, |m, &i| m | bit(wanted[i].0));
            let within: Vec<usize> = digits(places).map(|i| cells[usize::from(i) - 1]).collect();
            let eliminations: Vec<Mark> = within
                .iter()
                .flat_map(|&c| digits(board.candidates(c) & !mask).map(move |d| Mark::new(c, d)))
                .collect();
            if eliminations.is_empty() {
                return None;
            }
            let technique = match size {
                2 => Technique::HiddenPair,
                3 => Technique::HiddenTriple,
                _ => Technique::HiddenQuad,
            };
            let basis = within
                .iter()
                .flat_map(|&c| digits(board.candidates(c) & mask).map(move |d| Mark::new(c, d)))
                .collect();
            Some(Step {
                technique,
                placements: Vec::new(),
                basis,
                sentence: format!(
                    "{}: within {}, {} can only go in {}, so those cells lose their other candidates ({}).",
                    technique.name(),
                    board.geo.unit_name(u),
                    board.digit_list(mask),
                    board.cell_list(&within),
                    board.mark_list(&eliminations)
                ),
                eliminations,
            })
        })
    })
}

/// The candidates of `mask` in `units`, outside `keep`.
fn strike(board: &Board, units: &[usize], keep: &[usize], mask: u32) -> Vec<Mark> {
    let mut marks: Vec<Mark> = units
        .iter()
        .flat_map(|&u| board.unit(u).iter().copied())
        .filter(|c| !keep.contains(c))
        .flat_map(|c| digits(board.candidates(c) & mask).map(move |d| Mark::new(c, d)))
        .collect();
    marks.sort_unstable();
    marks.dedup();
    marks
}

#[cfg(test)]
mod tests {
    use super::super::board::{empty_nine, narrow};
    use super::*;

    #[test]
    fn a_naked_pair_clears_its_row() {
        let mut board = empty_nine();
        // r1c1 and r1c5: {3,8}; not in one box, so not locked.
        narrow(&mut board, 0, &[3, 8]);
        narrow(&mut board, 4, &[3, 8]);
        assert!(naked(&board, 2, true).is_none());
        let step = naked(&board, 2, false).unwrap();
        assert_eq!(step.technique, Technique::NakedPair);
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [1, 1, 2, 2, 3, 3, 5, 5, 6, 6, 7, 7, 8, 8]);
        assert!(
            step.eliminations
                .iter()
                .all(|m| m.digit == 3 || m.digit == 8)
        );
        assert!(step.sentence.starts_with(
            "Naked pair: within row 1, r1c1 and r1c5 hold only 3 and 8 between them, so 3 from r1c2"
        ));
    }

    #[test]
    fn a_locked_pair_clears_its_box_and_its_line() {
        let mut board = empty_nine();
        narrow(&mut board, 0, &[3, 8]);
        narrow(&mut board, 1, &[3, 8]);
        let step = naked(&board, 2, true).unwrap();
        assert_eq!(step.technique, Technique::LockedPair);
        // The 7 other cells of row 1 and the 6 of box 1 outside it, each losing 3 and 8.
        assert_eq!(step.eliminations.len(), 2 * (7 + 6));
    }

    #[test]
    fn a_hidden_pair_strips_its_cells() {
        let mut board = empty_nine();
        // In row 1, 4 and 6 may go only in r1c2 and r1c7.
        for cell in [0, 2, 3, 4, 5, 7, 8] {
            board.eliminate(Mark::new(cell, 4));
            board.eliminate(Mark::new(cell, 6));
        }
        let step = hidden(&board, 2).unwrap();
        assert_eq!(step.technique, Technique::HiddenPair);
        let mut expect: Vec<Mark> = [1, 6]
            .iter()
            .flat_map(|&c| [1, 2, 3, 5, 7, 8, 9].map(|d| Mark::new(c, d)))
            .collect();
        expect.sort_unstable();
        let mut got = step.eliminations.clone();
        got.sort_unstable();
        assert_eq!(got, expect);
        assert!(naked(&board, 2, false).is_none());
    }

    #[test]
    fn a_naked_triple_need_not_fill_each_cell() {
        let mut board = empty_nine();
        // {1,2}, {2,3}, {1,3} in column 1.
        narrow(&mut board, 0, &[1, 2]);
        narrow(&mut board, 27, &[2, 3]);
        narrow(&mut board, 54, &[1, 3]);
        assert!(naked(&board, 2, false).is_none());
        let step = naked(&board, 3, false).unwrap();
        assert_eq!(step.technique, Technique::NakedTriple);
        assert_eq!(step.eliminations.len(), 6 * 3);
    }
}
