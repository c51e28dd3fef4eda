//! Wings and remote pairs: small patterns of two- and three-candidate cells.

use super::board::{Board, Mark, bit, digits};
use super::single_digit::strong_links;
use super::{Step, Technique};

/// XY-Wing: a pivot {x,y} seeing a wing {x,z} and a wing {y,z}; whichever the pivot is, one wing is z.
pub(super) fn xy_wing(board: &Board) -> Option<Step> {
    let cells: Vec<usize> = board.bivalue_cells().collect();
    cells.iter().find_map(|&pivot| {
        let p = board.candidates(pivot);
        let wings: Vec<usize> = cells
            .iter()
            .copied()
            .filter(|&w| board.geo.sees(pivot, w))
            .filter(|&w| (board.candidates(w) & p).count_ones() == 1)
            .collect();
        for (i, &a) in wings.iter().enumerate() {
            for &b in &wings[i + 1..] {
                let (ma, mb) = (board.candidates(a), board.candidates(b));
                let z = ma & mb & !p;
                // The wings share z and take different digits of the pivot.
                if z.count_ones() != 1 || (ma & p) == (mb & p) {
                    continue;
                }
                let digit = z.trailing_zeros() as u8 + 1;
                if let Some(step) = wing_step(board, Technique::XYWing, digit, pivot, a, b, &[a, b])
                {
                    return Some(step);
                }
            }
        }
        None
    })
}

/// XYZ-Wing: a pivot {x,y,z} seeing a wing {x,z} and a wing {y,z}; one of the three is z.
pub(super) fn xyz_wing(board: &Board) -> Option<Step> {
    let pairs: Vec<usize> = board.bivalue_cells().collect();
    (0..board.values().len())
        .filter(|&c| board.candidates(c).count_ones() == 3)
        .find_map(|pivot| {
            let p = board.candidates(pivot);
            let wings: Vec<usize> = pairs
                .iter()
                .copied()
                .filter(|&w| board.geo.sees(pivot, w) && board.candidates(w) & !p == 0)
                .collect();
            for (i, &a) in wings.iter().enumerate() {
                for &b in &wings[i + 1..] {
                    let z = board.candidates(a) & board.candidates(b);
                    if z.count_ones() != 1 || board.candidates(a) == board.candidates(b) {
                        continue;
                    }
                    let digit = z.trailing_zeros() as u8 + 1;
                    let step = wing_step(
                        board,
                        Technique::XYZWing,
                        digit,
                        pivot,
                        a,
                        b,
                        &[pivot, a, b],
                    );
                    if step.is_some() {
                        return step;
                    }
                }
            }
            None
        })
}

/// The step of a wing: `digit` struck from the cells that see every cell of `seen`.
fn wing_step(
    board: &Board,
    technique: Technique,
    digit: u8,
    pivot: usize,
    a: usize,
    b: usize,
    seen: &[usize],
) -> Option<Step> {
    let eliminations = board.seeing_all(digit, seen, &[pivot, a, b]);
    if eliminations.is_empty() {
        return None;
    }
    let d = board.digit_name(digit);
    let holders = if technique == Technique::XYZWing {
        format!("one of the three is {d}")
    } else {
        format!("whichever the pivot holds, one wing is {d}")
    };
    Some(Step {
        technique,
        placements: Vec::new(),
        basis: [pivot, a, b]
            .iter()
            .flat_map(|&c| digits(board.candidates(c)).map(move |x| Mark::new(c, x)))
            .collect(),
        sentence: format!(
            "{}: pivot {} with wings {} and {}; {holders}, so {d} goes from {}.",
            technique.name(),
            board.cell_with_candidates(pivot),
            board.cell_with_candidates(a),
            board.cell_with_candidates(b),
            board.cell_list(&eliminations.iter().map(|m| m.at()).collect::<Vec<_>>())
        ),
        eliminations,
    })
}

/// W-Wing: two cells holding only {x,y} that do not see each other, and a strong link of x whose ends see one
/// cell each: one of the two cells is y.
pub(super) fn w_wing(board: &Board) -> Option<Step> {
    let cells: Vec<usize> = board.bivalue_cells().collect();
    for (i, &p) in cells.iter().enumerate() {
        for &q in &cells[i + 1..] {
            let mask = board.candidates(p);
            if board.candidates(q) != mask || board.geo.sees(p, q) {
                continue;
            }
            for x in digits(mask) {
                let y = (mask & !bit(x)).trailing_zeros() as u8 + 1;
                for link in strong_links(board, x) {
                    for (a, b) in [(link.a, link.b), (link.b, link.a)] {
                        if [p, q].contains(&a)
                            || [p, q].contains(&b)
                            || !board.geo.sees(a, p)
                            || !board.geo.sees(b, q)
                        {
                            continue;
                        }
                        let eliminations = board.seeing_all(y, &[p, q], &[p, q]);
                        if eliminations.is_empty() {
                            continue;
                        }
                        let (dx, dy) = (board.digit_name(x), board.digit_name(y));
                        return Some(Step {
                            technique: Technique::WWing,
                            placements: Vec::new(),
                            basis: vec![
                                Mark::new(p, x),
                                Mark::new(p, y),
                                Mark::new(q, x),
                                Mark::new(q, y),
                                Mark::new(a, x),
                                Mark::new(b, x),
                            ],
                            sentence: format!(
                                "W-Wing: {} and {} hold only {dx} and {dy}; {dx} is in {} or {} (the only \
                                 places in {}), which see one of them each, so they cannot both be {dx}: one \
                                 is {dy}, and {dy} goes from {}.",
                                board.cell_name(p),
                                board.cell_name(q),
                                board.cell_name(a),
                                board.cell_name(b),
                                board.geo.unit_name(link.unit),
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
    }
    None
}

/// Remote pair: a chain of cells holding the same two digits, each seeing the next, alternates them; cells
/// seeing two of its cells an odd number of links apart (three or more) lose both digits.
pub(super) fn remote_pair(board: &Board) -> Option<Step> {
    let cells: Vec<usize> = board.bivalue_cells().collect();
    for &start in &cells {
        let mask = board.candidates(start);
        let same: Vec<usize> = cells
            .iter()
            .copied()
            .filter(|&c| board.candidates(c) == mask)
            .collect();
        if same.len() < 4 {
            continue;
        }
        // Breadth-first from `start`: the shortest chain to every cell of the same pair.
        let mut parent: Vec<Option<usize>> = vec![None; same.len()];
        let mut depth: Vec<usize> = vec![usize::MAX; same.len()];
        let s = same
            .iter()
            .position(|&c| c == start)
            .expect("start is in its own set");
        depth[s] = 0;
        let mut queue = vec![s];
        let mut next = 0;
        while next < queue.len() {
            let i = queue[next];
            next += 1;
            for j in 0..same.len() {
                if depth[j] == usize::MAX && board.geo.sees(same[i], same[j]) {
                    depth[j] = depth[i] + 1;
                    parent[j] = Some(i);
                    queue.push(j);
                }
            }
        }
        for (end, &d) in depth.iter().enumerate() {
            if d == usize::MAX || d < 3 || d % 2 == 0 {
                continue;
            }
            let mut chain = vec![same[end]];
            let mut at = end;
            while let Some(p) = parent[at] {
                chain.push(same[p]);
                at = p;
            }
            chain.reverse();
            let eliminations: Vec<Mark> = digits(mask)
                .flat_map(|digit| board.seeing_all(digit, &[start, same[end]], &chain))
                .collect();
            if eliminations.is_empty() {
                continue;
            }
            let pair = board.digit_list(mask);
            return Some(Step {
                technique: Technique::RemotePair,
                placements: Vec::new(),
                basis: chain
                    .iter()
                    .flat_map(|&c| digits(mask).map(move |x| Mark::new(c, x)))
                    .collect(),
                sentence: format!(
                    "Remote pair: {} hold only {pair} and each sees the next, so the digits alternate along \
                     the chain and its ends hold {pair} between them: {}.",
                    board.cell_list(&chain),
                    board.mark_list(&eliminations)
                ),
                eliminations,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::board::{empty_nine, narrow};
    use super::*;

    #[test]
    fn an_xy_wing_clears_what_both_wings_see() {
        let mut board = empty_nine();
        narrow(&mut board, 0, &[1, 2]); // pivot r1c1
        narrow(&mut board, 5, &[1, 3]); // wing r1c6
        narrow(&mut board, 36, &[2, 3]); // wing r5c1
        let step = xy_wing(&board).unwrap();
        // r5c6 is the one cell that sees both wings (row 5 and column 6).
        assert_eq!(step.eliminations, [Mark::new(41, 3)]);
        assert_eq!(
            step.sentence,
            "XY-Wing: pivot r1c1{1,2} with wings r1c6{1,3} and r5c1{2,3}; whichever the pivot holds, one wing \
             is 3, so 3 goes from r5c6."
        );
    }

    #[test]
    fn an_xyz_wing_clears_what_all_three_see() {
        let mut board = empty_nine();
        narrow(&mut board, 0, &[1, 2, 3]); // pivot r1c1
        narrow(&mut board, 2, &[1, 3]); // wing r1c3 (row and box)
        narrow(&mut board, 18, &[2, 3]); // wing r3c1 (column and box)
        let step = xyz_wing(&board).unwrap();
        // Only box 1's other cells see all three.
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [1, 9, 10, 11, 19, 20]);
        assert!(xy_wing(&board).is_none());
    }

    #[test]
    fn a_w_wing_uses_a_strong_link_between_its_cells() {
        let mut board = empty_nine();
        narrow(&mut board, 0, &[4, 7]); // r1c1
        narrow(&mut board, 4 * 9 + 8, &[4, 7]); // r5c9
        // Column 5 keeps 4 only in r1 and r5: r1c5 sees r1c1, r5c5 sees r5c9.
        for r in (0..9).filter(|r| *r != 0 && *r != 4) {
            board.eliminate(Mark::new(r * 9 + 4, 4));
        }
        let step = w_wing(&board).unwrap();
        assert_eq!(step.technique, Technique::WWing);
        // r1c9 and r5c1 see both cells: they lose 7.
        assert_eq!(step.eliminations, [Mark::new(8, 7), Mark::new(36, 7)]);
    }

    #[test]
    fn a_remote_pair_of_four_cells_clears_what_sees_both_ends() {
        let mut board = empty_nine();
        // r1c1 – r1c5 – r4c5 – r4c8, all {2,9}.
        for cell in [0, 4, 31, 34] {
            narrow(&mut board, cell, &[2, 9]);
        }
        let step = remote_pair(&board).unwrap();
        // The ends r1c1 and r4c8 both see r1c8 and r4c1, which lose 2 and 9.
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        assert_eq!(cells, [7, 27, 7, 27]);
        assert!(step.sentence.starts_with(
            "Remote pair: r1c1, r1c5, r4c5 and r4c8 hold only 2 and 9 and each sees the next"
        ));
    }
}
