//! Fish: a digit whose places in k rows lie in only k columns (or the other way round) is struck from those
//! columns' other rows — X-Wing (k = 2), Swordfish (3), Jellyfish (4); and the finned X-Wing, whose extra places
//! (the fin) all lie in one box, so that only what sees the fin may go.

use super::board::{Board, Mark, digits};
use super::{Step, Technique, first_combination};

/// A basic fish of `size` lines on any digit, rows as the base first, then columns.
pub(super) fn basic(board: &Board, size: usize) -> Option<Step> {
    let n = board.side();
    (1..=n as u8).find_map(|digit| {
        [0, n]
            .into_iter()
            .find_map(|base_start| fish_on(board, size, digit, base_start))
    })
}

/// A fish on `digit` whose base lines are the rows (`base_start = 0`) or the columns (`base_start = N`).
fn fish_on(board: &Board, size: usize, digit: u8, base_start: usize) -> Option<Step> {
    let n = board.side();
    let cover_start = n - base_start;
    // Each base line with 2..=size places, as a mask of the cover lines it meets.
    let lines: Vec<(usize, u32)> = (base_start..base_start + n)
        .map(|u| (u, board.positions(u, digit)))
        .filter(|&(_, p)| (2..=size as u32).contains(&p.count_ones()))
        .collect();
    first_combination(&lines, size, |chosen| {
        let cover = chosen.iter().fold(0u32, |m, &(_, p)| m | p);
        if cover.count_ones() as usize != size {
            return None;
        }
        let base: Vec<usize> = chosen.iter().map(|&(u, _)| u).collect();
        let covers: Vec<usize> = digits(cover)
            .map(|i| cover_start + usize::from(i) - 1)
            .collect();
        let in_base = |c: usize| base.iter().any(|&u| board.geo.cell_units[c].contains(&u));
        let eliminations: Vec<Mark> = covers
            .iter()
            .flat_map(|&u| board.unit(u).iter().copied())
            .filter(|&c| board.has(c, digit) && !in_base(c))
            .map(|c| Mark::new(c, digit))
            .collect();
        if eliminations.is_empty() {
            return None;
        }
        let technique = match size {
            2 => Technique::XWing,
            3 => Technique::Swordfish,
            _ => Technique::Jellyfish,
        };
        let basis = marks_in(
            board,
            base.iter().flat_map(|&u| board.unit(u).iter().copied()),
            digit,
        );
        let (base_kind, cover_kind) = line_kinds(base_start);
        let numbers = |units: &[usize], start: usize| {
            let names: Vec<String> = units.iter().map(|u| (u - start + 1).to_string()).collect();
            names.join(", ")
        };
        let d = board.digit_name(digit);
        Some(Step {
            technique,
            placements: Vec::new(),
            basis,
            sentence: format!(
                "{} on {d}: in {base_kind} {}, {d} can only go in {cover_kind} {}, so {d} goes from {}.",
                technique.name(),
                numbers(&base, base_start),
                numbers(&covers, cover_start),
                board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>())
            ),
            eliminations,
        })
    })
}

/// The candidates `digit` among `cells`.
fn marks_in(board: &Board, cells: impl Iterator<Item = usize>, digit: u8) -> Vec<Mark> {
    cells
        .filter(|&c| board.has(c, digit))
        .map(|c| Mark::new(c, digit))
        .collect()
}

/// What the base and cover lines are called when the base lines start at unit `base_start` (rows at 0).
fn line_kinds(base_start: usize) -> (&'static str, &'static str) {
    if base_start == 0 {
        ("rows", "columns")
    } else {
        ("columns", "rows")
    }
}

/// A finned (or, missing a corner, sashimi) X-Wing on any digit, rows as the base first, then columns.
pub(super) fn finned_x_wing(board: &Board, technique: Technique) -> Option<Step> {
    let n = board.side();
    let sashimi = technique == Technique::SashimiXWing;
    for digit in 1..=n as u8 {
        for base_start in [0, n] {
            // The cell where base line `b` meets cover line `c` (both counted from 0).
            let at = |b: usize, c: usize| {
                if base_start == 0 {
                    b * n + c
                } else {
                    c * n + b
                }
            };
            for clean in 0..n {
                let cover = board.positions(base_start + clean, digit);
                if cover.count_ones() != 2 {
                    continue;
                }
                for finned in (0..n).filter(|&b| b != clean) {
                    let places = board.positions(base_start + finned, digit);
                    let (corners, fin) = (places & cover, places & !cover);
                    if fin == 0 || corners == 0 || (corners == cover) == sashimi {
                        continue;
                    }
                    let fins: Vec<usize> = digits(fin)
                        .map(|c| at(finned, usize::from(c) - 1))
                        .collect();
                    let fin_box = board.geo.box_of(fins[0]);
                    if fins.iter().any(|&f| board.geo.box_of(f) != fin_box) {
                        continue;
                    }
                    // The cover line whose corner on the finned line shares the fin's box.
                    let Some(line) = digits(cover)
                        .map(|c| usize::from(c) - 1)
                        .find(|&c| board.geo.box_of(at(finned, c)) == fin_box)
                    else {
                        continue;
                    };
                    let eliminations: Vec<Mark> = (0..n)
                        .filter(|&b| b != clean && b != finned)
                        .map(|b| at(b, line))
                        .filter(|&c| board.geo.box_of(c) == fin_box && board.has(c, digit))
                        .map(|c| Mark::new(c, digit))
                        .collect();
                    if eliminations.is_empty() {
                        continue;
                    }
                    let basis = marks_in(
                        board,
                        [clean, finned]
                            .iter()
                            .flat_map(|&b| (0..n).map(move |c| at(b, c))),
                        digit,
                    );
                    let (base_kind, cover_kind) = line_kinds(base_start);
                    let covers: Vec<String> = digits(cover).map(|c| c.to_string()).collect();
                    let d = board.digit_name(digit);
                    let sentence = format!(
                        "{} on {d}: in {base_kind} {} and {}, {d} goes only in {cover_kind} {} but for the fin {}; \
                         either way {d} is in {} {} within box {}, so {d} goes from {}.",
                        technique.name(),
                        clean.min(finned) + 1,
                        clean.max(finned) + 1,
                        covers.join(" and "),
                        board.cell_list(&fins),
                        &cover_kind[..cover_kind.len() - 1],
                        line + 1,
                        fin_box + 1,
                        board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>())
                    );
                    return Some(Step {
                        technique,
                        placements: Vec::new(),
                        eliminations,
                        basis,
                        sentence,
                    });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::{BoxShape, Grid};

    /// An empty 9×9 board where `digit` may go, in each of `rows`, only in `cols`.
    fn confined(digit: u8, rows: &[usize], cols: &[usize]) -> Board {
        let mut board = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap()));
        for &r in rows {
            for c in (0..9).filter(|c| !cols.contains(c)) {
                board.eliminate(Mark::new(r * 9 + c, digit));
            }
        }
        board
    }

    #[test]
    fn a_finned_x_wing_clears_only_what_sees_its_fin() {
        // 5 in row 2 only in columns 3 and 8; in row 7 in columns 3 and 8 and the fin r7c9 (box 9).
        let mut board = confined(5, &[1], &[2, 7]);
        for c in (0..9).filter(|c| ![2, 7, 8].contains(c)) {
            board.eliminate(Mark::new(6 * 9 + c, 5));
        }
        assert!(basic(&board, 2).is_none());
        assert!(finned_x_wing(&board, Technique::SashimiXWing).is_none());
        let step = finned_x_wing(&board, Technique::FinnedXWing).unwrap();
        // Column 8 within box 9, off rows 2 and 7: r8c8 and r9c8.
        assert_eq!(
            step.eliminations,
            vec![Mark::new(7 * 9 + 7, 5), Mark::new(8 * 9 + 7, 5)]
        );
        assert_eq!(
            step.sentence,
            "Finned X-Wing on 5: in rows 2 and 7, 5 goes only in columns 3 and 8 but for the fin r7c9; either way \
             5 is in column 8 within box 9, so 5 goes from r8c8 and r9c8."
        );
        // Without the corner r7c8 it is a sashimi X-Wing, with the same eliminations.
        board.eliminate(Mark::new(6 * 9 + 7, 5));
        assert!(finned_x_wing(&board, Technique::FinnedXWing).is_none());
        let sashimi = finned_x_wing(&board, Technique::SashimiXWing).unwrap();
        assert_eq!(sashimi.eliminations, step.eliminations);
    }

    #[test]
    fn an_x_wing_clears_its_columns() {
        let board = confined(5, &[1, 6], &[2, 7]);
        let step = basic(&board, 2).unwrap();
        assert_eq!(step.technique, Technique::XWing);
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        let expect: Vec<usize> = [2, 7]
            .iter()
            .flat_map(|&c| {
                (0..9)
                    .filter(|r| *r != 1 && *r != 6)
                    .map(move |r| r * 9 + c)
            })
            .collect();
        assert_eq!(cells, expect);
        assert!(step.sentence.starts_with(
            "X-Wing on 5: in rows 2, 7, 5 can only go in columns 3, 8, so 5 goes from r1c3"
        ));
        // Only two rows are confined: there is no third line for a Swordfish.
        assert!(basic(&board, 3).is_none());
    }

    #[test]
    fn a_swordfish_needs_three_lines() {
        // Rows 1, 4, 7 keep 4 in columns {1,5}, {5,9}, {1,9}: no two of them make an X-Wing.
        let mut board = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap()));
        for (r, cols) in [(0, [0, 4]), (3, [4, 8]), (6, [0, 8])] {
            for c in (0..9).filter(|c| !cols.contains(c)) {
                board.eliminate(Mark::new(r * 9 + c, 4));
            }
        }
        assert!(basic(&board, 2).is_none());
        let step = basic(&board, 3).unwrap();
        assert_eq!(step.technique, Technique::Swordfish);
        assert_eq!(step.eliminations.len(), 3 * 6);
        assert!(
            step.eliminations
                .iter()
                .all(|m| [0, 4, 8].contains(&(m.at() % 9)))
        );
    }
}
