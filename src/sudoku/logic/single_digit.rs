//! Patterns of one digit built from strong links (a unit where the digit has exactly two places, so one of them
//! holds it): Skyscraper, 2-String Kite, Turbot fish, Empty rectangle and simple colouring.

use super::board::{Board, Mark};
use super::{Step, Technique};

/// A strong link: the only two places of a digit in a unit.
#[derive(Clone, Copy, Debug)]
pub(super) struct Link {
    pub a: usize,
    pub b: usize,
    pub unit: usize,
}

/// Every strong link of `digit`, one per pair of cells (the first unit that makes it).
pub(super) fn strong_links(board: &Board, digit: u8) -> Vec<Link> {
    let mut links: Vec<Link> = Vec::new();
    for unit in 0..3 * board.side() {
        let places = board.positions(unit, digit);
        if places.count_ones() != 2 {
            continue;
        }
        let cells = board.unit(unit);
        let a = cells[places.trailing_zeros() as usize];
        let b = cells[31 - places.leading_zeros() as usize];
        if !links.iter().any(|l| l.a == a && l.b == b) {
            links.push(Link { a, b, unit });
        }
    }
    links
}

/// Which of the three shapes two strong links joined by a weak one make.
fn turbot_kind(board: &Board, first: Link, second: Link, a1: usize, a2: usize) -> Technique {
    let n = board.side();
    let kind = |u: usize| u / n; // 0 row, 1 column, 2 box
    let (k1, k2) = (kind(first.unit), kind(second.unit));
    let geo = &board.geo;
    if k1 == k2 && k1 < 2 {
        // Parallel lines, joined by the perpendicular line through a1 and a2.
        let joined = if k1 == 0 {
            geo.col(a1) == geo.col(a2)
        } else {
            geo.row(a1) == geo.row(a2)
        };
        if joined {
            return Technique::Skyscraper;
        }
    }
    if k1 < 2 && k2 < 2 && k1 != k2 && geo.box_of(a1) == geo.box_of(a2) {
        return Technique::TwoStringKite;
    }
    Technique::TurbotFish
}

/// Two strong links of one digit joined at one end by a weak link, in the shape `wanted`: one of the far ends
/// holds the digit, so cells seeing both lose it.
pub(super) fn turbot(board: &Board, wanted: Technique) -> Option<Step> {
    let n = board.side();
    (1..=n as u8).find_map(|digit| {
        let links = strong_links(board, digit);
        for (i, &first) in links.iter().enumerate() {
            for &second in &links[i + 1..] {
                for (a1, b1) in [(first.a, first.b), (first.b, first.a)] {
                    for (a2, b2) in [(second.a, second.b), (second.b, second.a)] {
                        let four = [a1, b1, a2, b2];
                        if (1..4).any(|k| four[..k].contains(&four[k]))
                            || !board.geo.sees(a1, a2)
                            || turbot_kind(board, first, second, a1, a2) != wanted
                        {
                            continue;
                        }
                        let eliminations = board.seeing_all(digit, &[b1, b2], &four);
                        if eliminations.is_empty() {
                            continue;
                        }
                        let d = board.digit_name(digit);
                        let name = |c| board.cell_name(c);
                        return Some(Step {
                            technique: wanted,
                            placements: Vec::new(),
                            basis: four.iter().map(|&c| Mark::new(c, digit)).collect(),
                            sentence: format!(
                                "{} on {d}: {d} is in {} or {} (the only places in {}), and in {} or {} \
                                 (the only places in {}); {} and {} see each other, so {} or {} is {d}, and \
                                 {d} goes from {}.",
                                wanted.name(),
                                name(a1),
                                name(b1),
                                board.geo.unit_name(first.unit),
                                name(a2),
                                name(b2),
                                board.geo.unit_name(second.unit),
                                name(a1),
                                name(a2),
                                name(b1),
                                name(b2),
                                board.cell_list(
                                    &eliminations.iter().map(|m| m.at()).collect::<Vec<_>>()
                                )
                            ),
                            eliminations,
                        });
                    }
                }
            }
        }
        None
    })
}

/// A box whose places for a digit lie on one row and one column of it, and a strong link of the digit in a
/// line outside the box, one end on the box's row (or column): the cell where the link's other end and the
/// box's column (or row) cross cannot hold the digit, or the box would have no place left for it.
pub(super) fn empty_rectangle(board: &Board) -> Option<Step> {
    let n = board.side();
    let geo = &board.geo;
    (1..=n as u8).find_map(|digit| {
        let links = strong_links(board, digit);
        (2 * n..3 * n).find_map(|b| {
            let places: Vec<usize> = board
                .unit(b)
                .iter()
                .copied()
                .filter(|&c| board.has(c, digit))
                .collect();
            if places.len() < 2 {
                return None;
            }
            let box_cells = board.unit(b);
            let mut rows: Vec<usize> = box_cells.iter().map(|&c| geo.row(c)).collect();
            let mut cols: Vec<usize> = box_cells.iter().map(|&c| geo.col(c)).collect();
            rows.dedup();
            cols.sort_unstable();
            cols.dedup();
            for &r in &rows {
                for &c in &cols {
                    let on_row = |p: &usize| geo.row(*p) == r;
                    let on_col = |p: &usize| geo.col(*p) == c;
                    if !places.iter().all(|p| on_row(p) || on_col(p))
                        || places.iter().all(on_row)
                        || places.iter().all(on_col)
                    {
                        continue;
                    }
                    for link in &links {
                        for (p, q) in [(link.a, link.b), (link.b, link.a)] {
                            // A link in a column meeting the box's row, or in a row meeting its column.
                            let target = if link.unit / n == 1
                                && geo.row(p) == r
                                && !cols.contains(&geo.col(p))
                                && !rows.contains(&geo.row(q))
                            {
                                geo.row(q) * n + c
                            } else if link.unit / n == 0
                                && geo.col(p) == c
                                && !rows.contains(&geo.row(p))
                                && !cols.contains(&geo.col(q))
                            {
                                r * n + geo.col(q)
                            } else {
                                continue;
                            };
                            if !board.has(target, digit) {
                                continue;
                            }
                            let d = board.digit_name(digit);
                            let mut basis: Vec<Mark> =
                                places.iter().map(|&c| Mark::new(c, digit)).collect();
                            basis.extend([Mark::new(p, digit), Mark::new(q, digit)]);
                            return Some(Step {
                                technique: Technique::EmptyRectangle,
                                placements: Vec::new(),
                                eliminations: vec![Mark::new(target, digit)],
                                basis,
                                sentence: format!(
                                    "Empty rectangle on {d}: within {}, {d} lies only on row {} and column {}; \
                                     {} or {} is {d} (the only places in {}); if {} were {d}, {} would be too, \
                                     and {} would have no place for {d}. So {d} goes from {}.",
                                    geo.unit_name(b),
                                    r + 1,
                                    c + 1,
                                    board.cell_name(p),
                                    board.cell_name(q),
                                    geo.unit_name(link.unit),
                                    board.cell_name(target),
                                    board.cell_name(p),
                                    geo.unit_name(b),
                                    board.cell_name(target)
                                ),
                            });
                        }
                    }
                }
            }
            None
        })
    })
}

/// Simple colouring: a digit's strong links joined into chains and coloured alternately, so that one colour
/// holds the digit everywhere. Two cells of one colour seeing each other make that colour false (a wrap); a
/// cell seeing both colours cannot hold the digit (a trap).
pub(super) fn simple_colouring(board: &Board) -> Option<Step> {
    let n = board.side();
    (1..=n as u8).find_map(|digit| {
        let links = strong_links(board, digit);
        let mut colour: Vec<Option<bool>> = vec![None; board.values().len()];
        for start in links.iter().map(|l| l.a) {
            if colour[start].is_some() {
                continue;
            }
            // Colour the cluster of `start` by a breadth-first walk over the strong links.
            let mut cluster = vec![start];
            colour[start] = Some(false);
            let mut next = 0;
            while next < cluster.len() {
                let cell = cluster[next];
                next += 1;
                let here = colour[cell].expect("coloured when queued");
                for l in &links {
                    let other = match (l.a == cell, l.b == cell) {
                        (true, _) => l.b,
                        (_, true) => l.a,
                        _ => continue,
                    };
                    if colour[other].is_none() {
                        colour[other] = Some(!here);
                        cluster.push(other);
                    }
                }
            }
            if cluster.len() < 3 {
                continue;
            }
            if let Some(step) = colour_step(board, digit, &cluster, &colour) {
                return Some(step);
            }
        }
        None
    })
}

/// The wrap or trap a coloured cluster gives, if any.
fn colour_step(
    board: &Board,
    digit: u8,
    cluster: &[usize],
    colour: &[Option<bool>],
) -> Option<Step> {
    let side = |c: bool| -> Vec<usize> {
        cluster
            .iter()
            .copied()
            .filter(|&x| colour[x] == Some(c))
            .collect()
    };
    let (blue, green) = (side(false), side(true));
    let d = board.digit_name(digit);
    let basis: Vec<Mark> = cluster.iter().map(|&c| Mark::new(c, digit)).collect();
    let intro = format!(
        "Simple colouring on {d}: {d}'s strong links join {} in one colour and {} in the other, and one \
         colour holds {d} throughout",
        board.cell_list(&blue),
        board.cell_list(&green)
    );
    for same in [&blue, &green] {
        let clash = same.iter().enumerate().find_map(|(i, &x)| {
            same[i + 1..]
                .iter()
                .find(|&&y| board.geo.sees(x, y))
                .map(|&y| (x, y))
        });
        if let Some((x, y)) = clash {
            let eliminations: Vec<Mark> = same.iter().map(|&c| Mark::new(c, digit)).collect();
            return Some(Step {
                technique: Technique::SimpleColouring,
                placements: Vec::new(),
                basis,
                sentence: format!(
                    "{intro}; {} and {} share a colour and see each other, so that colour is false and {d} \
                     goes from {}.",
                    board.cell_name(x),
                    board.cell_name(y),
                    board.cell_list(same)
                ),
                eliminations,
            });
        }
    }
    let eliminations: Vec<Mark> = board
        .cells_with(digit)
        .filter(|c| !cluster.contains(c))
        .filter(|&c| {
            blue.iter().any(|&x| board.geo.sees(c, x))
                && green.iter().any(|&x| board.geo.sees(c, x))
        })
        .map(|c| Mark::new(c, digit))
        .collect();
    (!eliminations.is_empty()).then(|| Step {
        technique: Technique::SimpleColouring,
        placements: Vec::new(),
        basis,
        sentence: format!(
            "{intro}; {} {} both colours, so {d} goes from {}.",
            board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>()),
            if eliminations.len() == 1 {
                "sees"
            } else {
                "see"
            },
            board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>()),
        ),
        eliminations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::{BoxShape, Grid};

    /// An empty 9×9 board where `digit` may go only where `keep` says, in each of `rows` (by row).
    fn board_with(digit: u8, keep: &[(usize, &[usize])]) -> Board {
        let mut board = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap()));
        for &(r, cols) in keep {
            for c in (0..9).filter(|c| !cols.contains(c)) {
                board.eliminate(Mark::new(r * 9 + c, digit));
            }
        }
        board
    }

    #[test]
    fn a_skyscraper_clears_what_sees_both_tops() {
        // Row 1: 6 only in c1, c5; row 6: only in c1, c6. Column 1 joins them, so r1c5 or r6c6 is 6.
        let board = board_with(6, &[(0, &[0, 4]), (5, &[0, 5])]);
        let step = turbot(&board, Technique::Skyscraper).unwrap();
        let mut cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        cells.sort_unstable();
        // r2c6 and r3c6 (column 6, box 2), r4c5 and r5c5 (column 5, box 5).
        assert_eq!(cells, [14, 23, 31, 40]);
        assert!(
            step.sentence
                .starts_with("Skyscraper on 6: 6 is in r1c1 or r1c5")
        );
    }

    #[test]
    fn a_two_string_kite_joins_a_row_and_a_column_in_a_box() {
        // Row 1: 2 only in c2, c7. Column 1: 2 only in r3, r8. r1c2 and r3c1 share box 1.
        let mut board = board_with(2, &[(0, &[1, 6])]);
        for r in (0..9).filter(|r| *r != 2 && *r != 7) {
            board.eliminate(Mark::new(r * 9, 2));
        }
        assert!(turbot(&board, Technique::Skyscraper).is_none());
        let step = turbot(&board, Technique::TwoStringKite).unwrap();
        // r1c7 or r8c1 holds 2: r8c7 loses it.
        assert_eq!(step.eliminations, [Mark::new(69, 2)]);
    }

    #[test]
    fn an_empty_rectangle_and_a_column_link_clear_their_crossing() {
        // Box 1 keeps 1 on row 1 and column 1 only; column 6 keeps it only in r1 and r7.
        let mut board = Board::new(&Grid::empty(BoxShape::new(3, 3).unwrap()));
        for cell in [10, 11, 19, 20] {
            board.eliminate(Mark::new(cell, 1));
        }
        for r in (0..9).filter(|r| *r != 0 && *r != 6) {
            board.eliminate(Mark::new(r * 9 + 5, 1));
        }
        let step = empty_rectangle(&board).unwrap();
        // If r7c1 held 1, r7c6 would not, r1c6 would, and box 1 would have no place for 1.
        assert_eq!(step.eliminations, [Mark::new(54, 1)]);
        assert!(
            step.sentence.starts_with(
                "Empty rectangle on 1: within box 1, 1 lies only on row 1 and column 1"
            )
        );
    }

    #[test]
    fn colouring_traps_the_cells_that_see_both_colours() {
        // Row 1: 3 only in c1, c7; column 7: only in r1, r6; row 6: only in c7, c3. Blue r1c1 and r6c7, green
        // r1c7 and r6c3.
        let mut board = board_with(3, &[(0, &[0, 6]), (5, &[2, 6])]);
        for r in (0..9).filter(|r| *r != 0 && *r != 5) {
            board.eliminate(Mark::new(r * 9 + 6, 3));
        }
        let step = simple_colouring(&board).unwrap();
        // r2c3, r3c3 (column 3, box 1) and r4c1, r5c1 (column 1, box 4) see r1c1 and r6c3.
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [11, 20, 27, 36]);
        assert!(step.sentence.starts_with(
            "Simple colouring on 3: 3's strong links join r1c1 and r6c7 in one colour and r1c7 and r6c3"
        ));
    }
}
