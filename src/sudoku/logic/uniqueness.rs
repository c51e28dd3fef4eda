//! Techniques that rest on the puzzle having one solution: a unique rectangle (four unsolved cells in two rows,
//! two columns and two boxes that could all hold the same two digits would let those digits swap, giving two
//! solutions, so something must stop it) and BUG+1 (a board of two-candidate cells but one would have two
//! solutions, so the odd cell's odd digit is true). Only used on a board known to have one solution
//! ([`Board::assuming_unique`]).

use super::board::{Board, Mark, bit, digits};
use super::{Step, Technique};

/// The first unique rectangle of type 1, 2 or 4.
pub(super) fn rectangle(board: &Board, technique: Technique) -> Option<Step> {
    if !board.is_assumed_unique() {
        return None;
    }
    let geo = &board.geo;
    let n = board.side();
    let floors: Vec<usize> = board.bivalue_cells().collect();
    // A floor is two cells holding exactly the same two digits in one row (or column); the roof is the two
    // cells of another row (column) in the same columns (rows), both holding the two digits.
    for (i, &p) in floors.iter().enumerate() {
        for &q in &floors[i + 1..] {
            let pair = board.candidates(p);
            if board.candidates(q) != pair {
                continue;
            }
            let along_row = geo.row(p) == geo.row(q);
            if !along_row && geo.col(p) != geo.col(q) {
                continue;
            }
            for other in 0..n {
                let (r1, r2) = if along_row {
                    let (r, cp, cq) = (geo.row(p), geo.col(p), geo.col(q));
                    if other == r {
                        continue;
                    }
                    (other * n + cp, other * n + cq)
                } else {
                    let (c, rp, rq) = (geo.col(p), geo.row(p), geo.row(q));
                    if other == c {
                        continue;
                    }
                    (rp * n + other, rq * n + other)
                };
                let corners = [p, q, r1, r2];
                let boxes = {
                    let mut b: Vec<usize> = corners.iter().map(|&c| geo.box_of(c)).collect();
                    b.sort_unstable();
                    b.dedup();
                    b.len()
                };
                if boxes != 2 || corners.iter().any(|&c| board.candidates(c) & pair != pair) {
                    continue;
                }
                if let Some(step) = rectangle_step(board, technique, pair, corners) {
                    return Some(step);
                }
            }
        }
    }
    None
}

/// What a rectangle with floor `corners[..2]` and roof `corners[2..]` on `pair` allows, for one type.
fn rectangle_step(
    board: &Board,
    technique: Technique,
    pair: u32,
    corners: [usize; 4],
) -> Option<Step> {
    let [_, _, r1, r2] = corners;
    let (e1, e2) = (board.candidates(r1) & !pair, board.candidates(r2) & !pair);
    let names = board.cell_list(&corners);
    let digits_named = board.digit_list(pair);
    let basis: Vec<Mark> = corners
        .iter()
        .flat_map(|&c| digits(pair).map(move |d| Mark::new(c, d)))
        .collect();
    let deadly = format!(
        "{names} could all hold only {digits_named}, and a puzzle with one solution cannot"
    );
    let (eliminations, why) = match technique {
        Technique::UniqueRectangle1 => {
            // Three corners hold only the pair: the fourth must be something else.
            let odd = match (e1, e2) {
                (0, e) if e != 0 => r2,
                (e, 0) if e != 0 => r1,
                _ => return None,
            };
            let marks: Vec<Mark> = digits(pair).map(|d| Mark::new(odd, d)).collect();
            let why = format!("so {} is neither", board.cell_name(odd));
            (marks, why)
        }
        Technique::UniqueRectangle2 => {
            // Both roof cells hold one same extra digit: one of them is that digit.
            if e1 == 0 || e1 != e2 || e1.count_ones() != 1 {
                return None;
            }
            let x = e1.trailing_zeros() as u8 + 1;
            let marks = board.seeing_all(x, &[r1, r2], &[r1, r2]);
            let why = format!(
                "so {} or {} is {}, and {} goes from what sees both",
                board.cell_name(r1),
                board.cell_name(r2),
                board.digit_name(x),
                board.digit_name(x)
            );
            (marks, why)
        }
        Technique::UniqueRectangle4 => {
            // In a unit holding both roof cells, one pair digit has no other place: the roof holds it, so the
            // other pair digit would complete the pattern and goes from both.
            if e1 == 0 || e2 == 0 {
                return None;
            }
            let shared = shared_units(board, r1, r2);
            let found = digits(pair).find_map(|d| {
                shared
                    .iter()
                    .find(|&&u| {
                        board
                            .unit(u)
                            .iter()
                            .all(|&c| c == r1 || c == r2 || !board.has(c, d))
                    })
                    .map(|&u| (d, u))
            })?;
            let (d, unit) = found;
            let other = digits(pair & !bit(d)).next()?;
            let marks = vec![Mark::new(r1, other), Mark::new(r2, other)];
            let why = format!(
                "{} must be in {} or {} within {}, so {} goes from both",
                board.digit_name(d),
                board.cell_name(r1),
                board.cell_name(r2),
                board.geo.unit_name(unit),
                board.digit_name(other)
            );
            (marks, why)
        }
        _ => return None,
    };
    if eliminations.is_empty() {
        return None;
    }
    Some(Step {
        technique,
        placements: Vec::new(),
        eliminations,
        basis,
        sentence: format!("{}: {deadly}; {why}.", technique.name()),
    })
}

/// The units (row, column, box) holding both cells.
fn shared_units(board: &Board, a: usize, b: usize) -> Vec<usize> {
    let (x, y) = (board.geo.cell_units[a], board.geo.cell_units[b]);
    (0..3).filter(|&k| x[k] == y[k]).map(|k| x[k]).collect()
}

/// BUG+1: every unsolved cell holds two candidates but one, which holds three; without its odd digit the board
/// would have two solutions, so that digit (the one appearing three times in the cell's row) is placed.
pub(super) fn bug_plus_one(board: &Board) -> Option<Step> {
    if !board.is_assumed_unique() {
        return None;
    }
    let mut odd = None;
    for c in 0..board.values().len() {
        match board.candidates(c).count_ones() {
            0 | 2 => {}
            3 if odd.is_none() => odd = Some(c),
            _ => return None,
        }
    }
    let cell = odd?;
    let row = board.geo.cell_units[cell][0];
    let digit =
        digits(board.candidates(cell)).find(|&d| board.positions(row, d).count_ones() == 3)?;
    let d = board.digit_name(digit);
    Some(Step {
        technique: Technique::BugPlusOne,
        placements: vec![Mark::new(cell, digit)],
        eliminations: Vec::new(),
        basis: vec![Mark::new(cell, digit)],
        sentence: format!(
            "BUG+1: every unsolved cell but {} holds two candidates; without {d} there, each digit would have two \
             places in every unit and the puzzle two solutions, so {} is {d}.",
            board.cell_name(cell),
            board.cell_name(cell)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::{BoxShape, Grid};

    /// An empty 9×9 board, known unique, with the given cells narrowed to the given candidates.
    fn narrowed(cells: &[(usize, &[u8])]) -> Board {
        let mut board = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap())).assuming_unique();
        for &(c, keep) in cells {
            for d in 1..=9 {
                if !keep.contains(&d) {
                    board.eliminate(Mark::new(c, d));
                }
            }
        }
        board
    }

    #[test]
    fn type_1_strikes_the_pair_from_the_fourth_corner() {
        // r1c1, r1c4, r2c1 hold only 3 and 8; r2c4 holds 3, 8 and 5.
        let board = narrowed(&[(0, &[3, 8]), (3, &[3, 8]), (9, &[3, 8]), (12, &[3, 5, 8])]);
        let step = rectangle(&board, Technique::UniqueRectangle1).unwrap();
        assert_eq!(step.eliminations, vec![Mark::new(12, 3), Mark::new(12, 8)]);
        assert_eq!(
            step.sentence,
            "Unique rectangle type 1: r1c1, r1c4, r2c1 and r2c4 could all hold only 3 and 8, and a puzzle with one \
             solution cannot; so r2c4 is neither."
        );
        // Not without the uniqueness assumption, nor where the rectangle spans four boxes.
        let mut unknown = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap()));
        for m in &step.eliminations {
            assert!(unknown.has(m.at(), m.digit));
        }
        unknown.eliminate(Mark::new(0, 1));
        assert!(rectangle(&unknown, Technique::UniqueRectangle1).is_none());
        let four_boxes = narrowed(&[(0, &[3, 8]), (3, &[3, 8]), (36, &[3, 8]), (39, &[3, 5, 8])]);
        assert!(rectangle(&four_boxes, Technique::UniqueRectangle1).is_none());
    }

    #[test]
    fn type_2_strikes_the_shared_extra_digit_from_what_sees_both_roof_cells() {
        let board = narrowed(&[
            (0, &[3, 8]),
            (3, &[3, 8]),
            (9, &[3, 5, 8]),
            (12, &[3, 5, 8]),
        ]);
        assert!(rectangle(&board, Technique::UniqueRectangle1).is_none());
        let step = rectangle(&board, Technique::UniqueRectangle2).unwrap();
        // 5 goes from the rest of row 2 (r2c1 and r2c4 share it, and no box holds both).
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, vec![10, 11, 13, 14, 15, 16, 17]);
        assert!(step.eliminations.iter().all(|m| m.digit == 5));
    }

    #[test]
    fn type_4_strikes_the_other_digit_when_one_is_locked_in_the_roof() {
        let mut board = narrowed(&[
            (0, &[3, 8]),
            (3, &[3, 8]),
            (9, &[3, 5, 8]),
            (12, &[3, 6, 8]),
        ]);
        // 8 has no other place in row 2.
        for c in (9..18).filter(|&c| c != 9 && c != 12) {
            board.eliminate(Mark::new(c, 8));
        }
        assert!(rectangle(&board, Technique::UniqueRectangle2).is_none());
        let step = rectangle(&board, Technique::UniqueRectangle4).unwrap();
        assert_eq!(step.eliminations, vec![Mark::new(9, 3), Mark::new(12, 3)]);
        assert!(
            step.sentence
                .ends_with("8 must be in r2c1 or r2c4 within row 2, so 3 goes from both.")
        );
    }

    #[test]
    fn bug_plus_one_places_the_digit_seen_three_times() {
        // A 4×4 where every cell holds its solution's digit and one more, each digit twice in every unit (a
        // BUG: two solutions), and r1c1 holds a third candidate.
        let shape = BoxShape::new(2, 2).unwrap();
        let solution = [1u8, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
        let second = [2u8, 1, 4, 3, 4, 3, 2, 1, 1, 2, 3, 4, 3, 4, 1, 2];
        let keep = |third: u32| -> Vec<u32> {
            (0..16)
                .map(|c| bit(solution[c]) | bit(second[c]) | if c == 0 { third } else { 0 })
                .collect()
        };
        let bug = Board::with_candidates(&Grid::empty(shape), &keep(0)).assuming_unique();
        assert!(
            bug_plus_one(&bug).is_none(),
            "no cell with three candidates"
        );
        let plus = Board::with_candidates(&Grid::empty(shape), &keep(bit(3))).assuming_unique();
        // Row 1 now offers 3 in three places (r1c1, r1c3, r1c4) and 1 and 2 in two: BUG+1 places 3 in r1c1.
        let step = bug_plus_one(&plus).unwrap();
        assert_eq!(step.placements, vec![Mark::new(0, 3)]);
        assert!(
            step.sentence
                .starts_with("BUG+1: every unsolved cell but r1c1 holds two candidates")
        );
        assert!(
            bug_plus_one(&Board::with_candidates(&Grid::empty(shape), &keep(bit(3)))).is_none()
        );
    }
}
