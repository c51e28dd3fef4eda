//! Chains: alternating inference chains over candidates, and the two narrower kinds people name on their own.
//!
//! A strong link (`=`) joins two candidates of which at least one is true: a cell's two candidates, or a
//! digit's two places in a unit. A weak link (`-`) joins two that are not both true: two candidates of one
//! cell, or one digit in two cells that see each other. A chain starts and ends on strong links and alternates,
//! so if its first candidate is false its last is true: one of the two ends holds. Chains are searched
//! breadth-first from every candidate, and the shortest one that eliminates something is the step.

use super::board::{Board, Mark, digits};
use super::{Step, Technique};

/// Which links a chain may use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One digit: its strong links in units, weak links between its places that see each other.
    X(u8),
    /// Two-candidate cells only: strong inside a cell, weak between cells on a shared digit.
    Xy,
    /// Every candidate and every link.
    Any,
}

/// The candidates a chain may visit and their links.
struct Graph {
    nodes: Vec<Mark>,
    strong: Vec<Vec<u32>>,
    weak: Vec<Vec<u32>>,
}

impl Graph {
    fn new(board: &Board, kind: Kind) -> Self {
        let n = board.side();
        let cells = board.values().len();
        let wanted = |cell: usize, digit: u8| match kind {
            Kind::X(d) => digit == d,
            Kind::Xy => board.candidates(cell).count_ones() == 2,
            Kind::Any => true,
        };
        let nodes: Vec<Mark> = (0..cells)
            .flat_map(|c| digits(board.candidates(c)).map(move |d| Mark::new(c, d)))
            .filter(|m| wanted(m.at(), m.digit))
            .collect();
        let mut index = vec![u32::MAX; cells * n];
        for (i, m) in nodes.iter().enumerate() {
            index[m.at() * n + usize::from(m.digit) - 1] = i as u32;
        }
        let id = |cell: usize, digit: u8| index[cell * n + usize::from(digit) - 1];
        let mut strong = vec![Vec::new(); nodes.len()];
        let mut weak = vec![Vec::new(); nodes.len()];
        for (i, m) in nodes.iter().enumerate() {
            let (cell, digit) = (m.at(), m.digit);
            let mask = board.candidates(cell);
            // Inside the cell: strong when the cell has two candidates, weak always (one-digit chains stay out).
            if !matches!(kind, Kind::X(_)) {
                for other in digits(mask).filter(|&d| d != digit) {
                    let j = id(cell, other);
                    if j == u32::MAX {
                        continue;
                    }
                    if mask.count_ones() == 2 {
                        strong[i].push(j);
                    }
                    if kind == Kind::Any {
                        weak[i].push(j);
                    }
                }
            }
            // Across cells: one digit, strong when the unit has no third place for it.
            for u in board.geo.cell_units[cell] {
                let places = board.positions(u, digit);
                for (k, &peer) in board.unit(u).iter().enumerate() {
                    let j = id(peer, digit);
                    if peer == cell || places & (1 << k) == 0 || j == u32::MAX {
                        continue;
                    }
                    if places.count_ones() == 2 && kind != Kind::Xy && !strong[i].contains(&j) {
                        strong[i].push(j);
                    }
                    if !weak[i].contains(&j) {
                        weak[i].push(j);
                    }
                }
            }
        }
        Self {
            nodes,
            strong,
            weak,
        }
    }
}

/// A chain of one digit (X-Chain).
pub(super) fn x_chain(board: &Board) -> Option<Step> {
    let n = board.side();
    (1..=n as u8).find_map(|d| search(board, Kind::X(d), Technique::XChain))
}

/// A chain of two-candidate cells (XY-Chain).
pub(super) fn xy_chain(board: &Board) -> Option<Step> {
    search(board, Kind::Xy, Technique::XYChain)
}

/// Any alternating inference chain.
pub(super) fn aic(board: &Board) -> Option<Step> {
    search(board, Kind::Any, Technique::Aic)
}

/// The shortest eliminating chain of a kind, over every start.
fn search(board: &Board, kind: Kind, technique: Technique) -> Option<Step> {
    let graph = Graph::new(board, kind);
    let states = 2 * graph.nodes.len();
    let mut depth = vec![u32::MAX; states];
    let mut parent = vec![u32::MAX; states];
    let mut best: Option<(u32, Vec<u32>, Vec<Mark>)> = None;
    for start in 0..graph.nodes.len() {
        if graph.strong[start].is_empty() {
            continue;
        }
        depth.iter_mut().for_each(|d| *d = u32::MAX);
        // State `2 * node` is the node false, `2 * node + 1` true; the start is assumed false.
        let first = 2 * start;
        depth[first] = 0;
        let mut queue = vec![first as u32];
        let mut next = 0;
        while next < queue.len() {
            let state = queue[next] as usize;
            next += 1;
            let d = depth[state];
            if best.as_ref().is_some_and(|(len, _, _)| d + 1 >= *len) {
                break;
            }
            let (node, on) = (state / 2, state % 2 == 1);
            let links = if on {
                &graph.weak[node]
            } else {
                &graph.strong[node]
            };
            for &j in links {
                let to = 2 * j as usize + usize::from(!on);
                if depth[to] != u32::MAX || depth[2 * j as usize + usize::from(on)] != u32::MAX {
                    continue;
                }
                depth[to] = d + 1;
                parent[to] = state as u32;
                queue.push(to as u32);
                if !on && d + 1 >= 3 {
                    let chain = path(&parent, first, to);
                    let removed = eliminations(board, kind, &graph, &chain);
                    if !removed.is_empty() {
                        best = Some((d + 1, chain, removed));
                        break;
                    }
                }
            }
        }
        if best.as_ref().is_some_and(|(len, _, _)| *len == 3) {
            break;
        }
    }
    let (_, chain, eliminations) = best?;
    Some(chain_step(board, technique, &graph, &chain, eliminations))
}

/// The nodes from `first` to `last` along the parents.
fn path(parent: &[u32], first: usize, last: usize) -> Vec<u32> {
    let mut chain = vec![(last / 2) as u32];
    let mut at = last;
    while at != first {
        at = parent[at] as usize;
        chain.push((at / 2) as u32);
    }
    chain.reverse();
    chain
}

/// What a chain from a false start to a true end removes.
fn eliminations(board: &Board, kind: Kind, graph: &Graph, chain: &[u32]) -> Vec<Mark> {
    let s = graph.nodes[chain[0] as usize];
    let e = graph.nodes[*chain.last().expect("a chain has nodes") as usize];
    let on_chain: Vec<Mark> = chain.iter().map(|&i| graph.nodes[i as usize]).collect();
    if s.digit == e.digit && s.cell != e.cell {
        return board
            .seeing_all(s.digit, &[s.at(), e.at()], &[])
            .into_iter()
            .filter(|m| !on_chain.contains(m))
            .collect();
    }
    if kind != Kind::Any || s.digit == e.digit {
        return Vec::new();
    }
    if s.cell == e.cell {
        // The cell is one of the two ends' digits: its other candidates go.
        let keep = super::board::bit(s.digit) | super::board::bit(e.digit);
        return digits(board.candidates(s.at()) & !keep)
            .map(|d| Mark::new(s.at(), d))
            .collect();
    }
    if !board.geo.sees(s.at(), e.at()) {
        return Vec::new();
    }
    [Mark::new(s.at(), e.digit), Mark::new(e.at(), s.digit)]
        .into_iter()
        .filter(|m| board.has(m.at(), m.digit) && !on_chain.contains(m))
        .collect()
}

/// The step of a chain, with the chain written in Eureka's notation.
fn chain_step(
    board: &Board,
    technique: Technique,
    graph: &Graph,
    chain: &[u32],
    eliminations: Vec<Mark>,
) -> Step {
    let marks: Vec<Mark> = chain.iter().map(|&i| graph.nodes[i as usize]).collect();
    let mut written = String::new();
    for (k, m) in marks.iter().enumerate() {
        if k > 0 {
            written.push(if k % 2 == 1 { '=' } else { '-' });
        }
        written.push_str(&format!(
            "({}){}",
            board.digit_name(m.digit),
            board.cell_name(m.at())
        ));
    }
    let (s, e) = (marks[0], marks[marks.len() - 1]);
    let ends = if s.digit == e.digit {
        format!(
            "{} or {} is {}",
            board.cell_name(s.at()),
            board.cell_name(e.at()),
            board.digit_name(s.digit)
        )
    } else {
        format!(
            "{} is {} or {} is {}",
            board.cell_name(s.at()),
            board.digit_name(s.digit),
            board.cell_name(e.at()),
            board.digit_name(e.digit)
        )
    };
    Step {
        technique,
        placements: Vec::new(),
        basis: marks,
        sentence: format!(
            "{}: {written} (\"=\": one of the two is true, \"-\": not both); so {ends}, and {}.",
            technique.name(),
            board.mark_list(&eliminations)
        ),
        eliminations,
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::{empty_nine, narrow};
    use super::*;

    #[test]
    fn an_xy_chain_of_four_cells_clears_what_sees_both_ends() {
        let mut board = empty_nine();
        // r1c1{1,2} - r1c5{2,3} - r6c5{3,4} - r6c9{4,1}: r1c1 or r6c9 is 1.
        narrow(&mut board, 0, &[1, 2]);
        narrow(&mut board, 4, &[2, 3]);
        narrow(&mut board, 49, &[3, 4]);
        narrow(&mut board, 53, &[4, 1]);
        let step = xy_chain(&board).unwrap();
        let cells: Vec<usize> = step.eliminations.iter().map(|m| m.at()).collect();
        // r1c9 and r6c1 see both ends.
        assert_eq!(cells, [8, 45]);
        assert!(step.eliminations.iter().all(|m| m.digit == 1));
        assert_eq!(step.basis.len(), 8);
        assert!(
            step.sentence
                .starts_with("XY-Chain: (1)r1c1=(2)r1c1-(2)r1c5=(3)r1c5-")
        );
    }

    #[test]
    fn an_x_chain_of_five_links_clears_what_sees_both_ends() {
        let mut board = empty_nine();
        // 7 only in c1, c4 of row 1; c6, c8 of row 2; c8, c2 of row 5. r1c4 and r2c6 share box 2, r2c8 and
        // r5c8 column 8.
        for (r, keep) in [(0usize, [0usize, 3]), (1, [5, 7]), (4, [7, 1])] {
            for c in (0..9).filter(|c| !keep.contains(c)) {
                board.eliminate(Mark::new(r * 9 + c, 7));
            }
        }
        let step = x_chain(&board).unwrap();
        assert_eq!(step.technique, Technique::XChain);
        assert_eq!(step.basis.len(), 6);
        let (first, last) = (step.basis[0], step.basis[5]);
        assert_eq!([first.digit, last.digit], [7, 7]);
        assert!(!step.eliminations.is_empty());
        for m in &step.eliminations {
            assert!(board.geo.sees(m.at(), first.at()) && board.geo.sees(m.at(), last.at()));
            assert!(!step.basis.contains(m));
        }
    }

    #[test]
    fn an_aic_may_end_on_two_digits_in_cells_that_see_each_other() {
        let mut board = empty_nine();
        // Row 1 keeps 1 only in c1 and c5; box 2 keeps 2 only in r1c5 and r1c6. If r1c1 is not 1, r1c5 is 1,
        // so not 2, so r1c6 is 2: either way r1c1 is not 2.
        for c in (1..9).filter(|&c| c != 4) {
            board.eliminate(Mark::new(c, 1));
        }
        for cell in [3, 12, 13, 14, 21, 22, 23] {
            board.eliminate(Mark::new(cell, 2));
        }
        let step = aic(&board).unwrap();
        assert_eq!(step.eliminations, [Mark::new(0, 2)]);
        assert!(
            step.sentence
                .starts_with("Alternating inference chain: (1)r1c1=(1)r1c5-(2)r1c5=(2)r1c6")
        );
    }
}
