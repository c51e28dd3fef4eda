//! The corner-split counter: each class of solutions under the board's eight symmetries is found once, then
//! sorted by its size.
//!
//! The first row is split in two. A queen in the corner (column 0) sits on the main diagonal, so no rotation maps
//! the solution onto itself: every such class has 8 members. Searching only those with the second queen in a
//! column `bound1 ≥ 2` and column 1 kept free above row `bound1` visits each class once. Otherwise the first queen
//! stands in a column `bound1` of the left half and every edge of the board must hold its queen at least as far
//! from the corners (the `sidemask`/`lastmask` rules), which leaves few candidates; [`Branch::classify`] then
//! compares the board with its rotations, skips it when a rotation is smaller (that one is the class's
//! representative) and tells a class of 2 (same after 90°) and of 4 (same after 180°) from one of 8.
//!
//! The search itself ([`count_node`]) is written without a branch on the board: N-Queens boards are too
//! irregular for a branch predictor (each node asks "has this child a free square?", and the answer is close to
//! a coin toss), so a recursive search spends most of its time recovering from wrong guesses. Each step instead
//! tries one candidate and picks the next top frame with conditional moves, as the GPU kernel does
//! (`shaders/queens.wgsl`), and the branch's pruning rules become a table indexed by row ([`RowRule`]). On
//! one core, N=16 then takes 1.7 s where the recursive form of the same search took 2.2 s and a plain C
//! counter takes 1.9 s (`gcc -O3 -march=native`) or 2.3 s (`-O2`): `scripts/bench-queens-cpu.sh`,
//! docs/benchmarks.md. Interleaving two searches in one loop, or finding the row from the open columns'
//! popcount instead of keeping it in the frame, measured no faster (the first runs out of registers, the second
//! lengthens each step's chain of dependent instructions).

/// Solutions found, by the size of their symmetry class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    /// Classes of 2 (the board is the same after a quarter turn).
    pub c2: u64,
    /// Classes of 4 (the same after a half turn only).
    pub c4: u64,
    /// Classes of 8 (no rotation maps it onto itself).
    pub c8: u64,
}

impl Classes {
    /// Adds another count.
    pub fn add(&mut self, other: &Classes) {
        self.c2 += other.c2;
        self.c4 += other.c4;
        self.c8 += other.c8;
    }

    /// Total and unique counts of an `n`-board counted into these classes. N = 1 is apart: its lone queen is
    /// a class of one, which the corner split has no place for.
    pub fn tally(&self, n: u32) -> super::Tally {
        if n == 1 {
            return super::Tally {
                total: 1,
                unique: 1,
            };
        }
        super::Tally {
            total: 2 * self.c2 + 4 * self.c4 + 8 * self.c8,
            unique: self.c2 + self.c4 + self.c8,
        }
    }
}

/// What a found board is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A rotation of it is smaller: its class is counted at that board.
    Skip,
    /// Representative of a class of 2.
    Two,
    /// Representative of a class of 4.
    Four,
    /// Representative of a class of 8.
    Eight,
}

/// One choice for the first row (or, with a corner queen, the first two rows) and the pruning rules it implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    /// Board size.
    pub n: u32,
    /// True for the corner split (queen at column 0 of row 0).
    pub corner: bool,
    /// Corner: the second row's column. Otherwise: the first row's column.
    pub bound1: u32,
    /// The mirror row of `bound1` (`n - 1 - bound1`), used by the side rules.
    pub bound2: u32,
    /// Columns 0 and n-1.
    pub sidemask: u32,
    /// The `bound1` outermost columns on either side: where the last row's queen may not stand.
    pub lastmask: u32,
    /// The column where the last row's queen stands when a half turn can map the board onto itself.
    pub endbit: u32,
}

/// A partial board: the rows above `row` are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The first-row choice it descends from.
    pub branch: Branch,
    /// The next row to place.
    pub row: u32,
    /// Columns attacked in `row` along the down-left diagonals.
    pub left: u32,
    /// Columns taken.
    pub down: u32,
    /// Columns attacked in `row` along the down-right diagonals.
    pub right: u32,
    /// One bit per placed row: its queen's column.
    pub board: [u32; 32],
}

impl Branch {
    fn last(&self) -> u32 {
        self.n - 1
    }

    fn mask(&self) -> u32 {
        super::full_mask(self.n)
    }

    fn topbit(&self) -> u32 {
        1 << (self.n - 1)
    }

    /// This branch's pruning rules as a table indexed by row, read by the search and by the cuts:
    ///
    /// - corner: column 1 stays free above row bound1 (otherwise the board's diagonal mirror is the smaller
    ///   one of its class);
    /// - otherwise no queen stands on a side column above row bound1 (its rotation would put the first queen
    ///   nearer a corner), both side columns hold their queens once row bound2 is placed (else a rotation is
    ///   smaller), and the last row's queen stays out of `lastmask`.
    pub fn rules(&self) -> [RowRule; 32] {
        let mask = self.mask();
        let mut rules = [RowRule {
            allowed: mask,
            taken_above: 0,
        }; 32];
        for rule in &mut rules[..self.bound1 as usize] {
            rule.allowed = mask & if self.corner { !2 } else { !self.sidemask };
        }
        if !self.corner {
            rules[(self.bound2 + 1) as usize].taken_above = self.sidemask;
            rules[self.last() as usize].allowed &= !self.lastmask;
        }
        rules
    }

    /// Compares a full board with its quarter, half and three-quarter turns, as numbers read row by row with
    /// the column bits reversed or rows swapped. The inner loops find each rotated row's value without building
    /// the rotated board, and stop at the first row that differs.
    pub fn classify(&self, board: &[u32; 32]) -> Class {
        let last = self.last() as usize;
        let topbit = self.topbit();
        // A quarter turn: only possible when row bound2 holds its queen in column 0.
        if board[self.bound2 as usize] == 1 {
            let mut own = 1;
            let mut ptn = 2u32;
            while own <= last {
                let mut bit = 1u32;
                let mut you = last;
                while board[you] != ptn && board[own] >= bit {
                    bit <<= 1;
                    you = you.wrapping_sub(1);
                }
                if board[own] > bit {
                    return Class::Skip;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                ptn <<= 1;
            }
            if own > last {
                return Class::Two;
            }
        }
        // A half turn: the last row's queen mirrors the first row's.
        if board[last] == self.endbit {
            let mut own = 1;
            let mut you = last - 1;
            while own <= last {
                let mut bit = 1u32;
                let mut ptn = topbit;
                while ptn != board[you] && board[own] >= bit {
                    bit <<= 1;
                    ptn >>= 1;
                }
                if board[own] > bit {
                    return Class::Skip;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                you = you.wrapping_sub(1);
            }
            if own > last {
                return Class::Four;
            }
        }
        // Three quarters: only when row bound1 holds its queen in the last column.
        if board[self.bound1 as usize] == topbit {
            let mut own = 1;
            let mut ptn = topbit >> 1;
            while own <= last {
                let mut bit = 1u32;
                let mut you = 0;
                while board[you] != ptn && board[own] >= bit {
                    bit <<= 1;
                    you += 1;
                }
                if board[own] > bit {
                    return Class::Skip;
                }
                if board[own] < bit {
                    break;
                }
                own += 1;
                ptn >>= 1;
            }
        }
        Class::Eight
    }

    /// The partial board this branch starts from.
    pub fn root(&self) -> Node {
        let mut board = [0u32; 32];
        if self.corner {
            let bit = 1 << self.bound1;
            board[0] = 1;
            board[1] = bit;
            Node {
                branch: *self,
                row: 2,
                left: (2 | bit) << 1,
                down: 1 | bit,
                right: bit >> 1,
                board,
            }
        } else {
            let bit = 1 << self.bound1;
            board[0] = bit;
            Node {
                branch: *self,
                row: 1,
                left: bit << 1,
                down: bit,
                right: bit >> 1,
                board,
            }
        }
    }
}

/// The first-row choices of an `n`-board (none for n ≤ 3: N = 1 is counted apart, 2 and 3 have no solution).
pub fn branches(n: u32) -> Vec<Branch> {
    if n < 4 {
        return Vec::new();
    }
    let last = n - 1;
    let topbit = 1u32 << last;
    let mut out: Vec<Branch> = (2..last)
        .map(|bound1| Branch {
            n,
            corner: true,
            bound1,
            bound2: 0,
            sidemask: 0,
            lastmask: 0,
            endbit: 0,
        })
        .collect();
    let sidemask = topbit | 1;
    let mut lastmask = sidemask;
    let mut endbit = topbit >> 1;
    let mut bound1 = 1;
    while bound1 < last - bound1 {
        out.push(Branch {
            n,
            corner: false,
            bound1,
            bound2: last - bound1,
            sidemask,
            lastmask,
            endbit,
        });
        // The next branch's first queen is one column further in: one more column on each side is barred
        // from the last row, and the half-turn partner moves one column in too.
        lastmask |= (lastmask >> 1) | (lastmask << 1);
        endbit >>= 1;
        bound1 += 1;
    }
    out
}

/// One row's pruning rule, as data ([`Branch::rules`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowRule {
    /// The columns this row's queen may take.
    pub allowed: u32,
    /// Columns that the rows above must all have taken; otherwise the board is given up before this row.
    pub taken_above: u32,
}

impl RowRule {
    /// The candidates of a row with `open` columns not yet taken and the columns in `attacked` on a queen's
    /// diagonal: none when the rows above left a column of `taken_above` open. Without a branch, for the
    /// search's inner loop.
    #[inline(always)]
    pub fn candidates(&self, open: u32, attacked: u32) -> u32 {
        std::hint::select_unpredictable(
            open & self.taken_above != 0,
            0,
            open & !attacked & self.allowed,
        )
    }
}

/// Finishes the search below `node`, adding what it finds to `classes`.
///
/// A frame is one row of the search: its open columns (not yet taken), the columns its diagonals attack
/// (`left`, `right`), its untried candidates and its row. The top frame lives in registers, the ones below it
/// in `stack`. One step takes the lowest candidate of the top frame and builds the child, then:
///
/// - the parent goes on the stack if it has candidates left *and* the child is entered, else it is written to
///   the free slot above the stack, harmlessly (an unconditional store is cheaper than a branch);
/// - the new top is the child if it has candidates, else the parent if it has some left, else the frame
///   below: a frame that runs out is dropped at once, so it is never popped later.
///
/// A board is complete when a step takes the last open column; the branch to `record` is the only one in the
/// loop apart from its end, and it is rarely taken (one step in 125 at N=16).
pub fn count_node(node: &Node, classes: &mut Classes) {
    use std::hint::select_unpredictable as pick;
    let branch = node.branch;
    let rules = branch.rules();
    let mut board = node.board;
    // Slot 0 holds a dummy frame (the one "below" the node's own), real frames start at slot 1. Frames are
    // pushed only from rows above the last, so a node at row r ≥ 1 pushes at most n − 1 − r ≤ 30: every slot
    // stays below 32. The `& 31` on each index says so to the compiler, which then drops its bounds checks.
    let mut stack = [[0u32; 5]; 32];
    let mut open = branch.mask() & !node.down;
    let (mut left, mut right, mut row) = (node.left, node.right, node.row);
    let mut candidates = rules[(row & 31) as usize].candidates(open, left | right);
    let mut slot = usize::from(candidates != 0);
    while slot != 0 {
        // Steps until a board is complete or the node is done: the board is recorded outside the inner loop,
        // so the loop keeps its state in registers (with the call inside, the compiler spilled it each step).
        let complete = loop {
            // The lowest candidate; two's complement isolates it.
            let bit = candidates & candidates.wrapping_neg();
            let rest = candidates ^ bit;
            board[(row & 31) as usize] = bit;
            let child_open = open ^ bit;
            // Bits shifted past the board's edge never come back (no frame is rebuilt from its child), so
            // nothing needs masking: `child_open` keeps `free` on the board.
            let child_left = (left | bit) << 1;
            let child_right = (right | bit) >> 1;
            let child_row = row + 1;
            // Row n (a complete board) reads the rule of row 0 or n; it has no open column, so none applies.
            let free =
                rules[(child_row & 31) as usize].candidates(child_open, child_left | child_right);
            stack[slot & 31] = [open, left, right, rest, row];
            let below = stack[(slot - 1) & 31];
            let enter = free != 0;
            let keep = rest != 0;
            slot = slot - 1 + usize::from(enter) + usize::from(keep);
            open = pick(enter, child_open, pick(keep, open, below[0]));
            left = pick(enter, child_left, pick(keep, left, below[1]));
            right = pick(enter, child_right, pick(keep, right, below[2]));
            candidates = pick(enter, free, pick(keep, rest, below[3]));
            row = pick(enter, child_row, pick(keep, row, below[4]));
            if child_open == 0 {
                break true;
            }
            if slot == 0 {
                break false;
            }
        };
        if complete {
            record(&branch, &board, classes);
        }
    }
}

/// Counts a complete board of `branch` into its class.
#[cold]
#[inline(never)]
fn record(branch: &Branch, board: &[u32; 32], classes: &mut Classes) {
    if branch.corner {
        classes.c8 += 1;
        return;
    }
    match branch.classify(board) {
        Class::Skip => {}
        Class::Two => classes.c2 += 1,
        Class::Four => classes.c4 += 1,
        Class::Eight => classes.c8 += 1,
    }
}

/// Counts the solutions of an `n`-board on this thread (n in 1..=32; see [`Classes::tally`]).
pub fn count(n: u32) -> Classes {
    let mut classes = Classes::default();
    for branch in branches(n) {
        count_node(&branch.root(), &mut classes);
    }
    classes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::known;

    #[test]
    fn counts_match_the_published_ones_up_to_13() {
        for n in 1..=13 {
            assert_eq!(Some(count(n).tally(n)), known(n), "N={n}");
        }
    }

    #[test]
    fn classes_of_eight_queens() {
        // The twelve classes of the eight-queens puzzle: one is symmetric under a half turn.
        assert_eq!(
            count(8),
            Classes {
                c2: 0,
                c4: 1,
                c8: 11
            }
        );
    }

    /// The rules of [`Branch::rules`] above the last row, spelled out as conditions on the row and the columns
    /// taken (`down`): the candidates left of `free`, 0 to give up the board. Row bound2 sees what the table
    /// says of the row below it: none of the side columns taken yet leaves nothing, one leaves the other.
    fn restrict(branch: &Branch, row: u32, down: u32, free: u32) -> u32 {
        if branch.corner {
            if row < branch.bound1 { free & !2 } else { free }
        } else if row < branch.bound1 {
            free & !branch.sidemask
        } else if row == branch.bound2 {
            match down & branch.sidemask {
                0 => 0,
                taken if taken != branch.sidemask => free & branch.sidemask,
                _ => free,
            }
        } else {
            free
        }
    }

    /// The recursive search with [`restrict`] and the last row's rule spelled out, the twin of the
    /// table-driven [`count_node`]: hands each complete board to `found`, and stops when that returns true.
    fn search_recursively(
        branch: &Branch,
        row: u32,
        masks: (u32, u32, u32),
        board: &mut [u32; 32],
        found: &mut dyn FnMut(&[u32; 32]) -> bool,
    ) -> bool {
        let (left, down, right) = masks;
        let free = branch.mask() & !(left | down | right);
        if row == branch.last() {
            board[row as usize] = free;
            return free != 0 && free & branch.lastmask == 0 && found(board);
        }
        let mut free = restrict(branch, row, down, free);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            board[row as usize] = bit;
            let next = ((left | bit) << 1, down | bit, (right | bit) >> 1);
            if search_recursively(branch, row + 1, next, board, found) {
                return true;
            }
        }
        false
    }

    /// [`search_recursively`] counting every board below `node`.
    fn count_recursively(node: &Node) -> Classes {
        let mut classes = Classes::default();
        let mut board = node.board;
        let masks = (node.left, node.down, node.right);
        search_recursively(&node.branch, node.row, masks, &mut board, &mut |board| {
            record(&node.branch, board, &mut classes);
            false
        });
        classes
    }

    #[test]
    fn the_rule_table_prunes_as_the_conditions_do() {
        for n in 4..=11 {
            for row in 1..n {
                for node in crate::queens::prefix::nodes(n, row) {
                    let mut classes = Classes::default();
                    count_node(&node, &mut classes);
                    assert_eq!(classes, count_recursively(&node), "N={n}, {node:?}");
                }
            }
        }
    }

    #[test]
    fn thirty_two_columns_fit() {
        // The widest board, where the masks use every bit. Counting a whole branch would take hours, so each
        // search starts 20 rows down the branch's first solution (found depth first, ~85 M placements).
        let all = branches(32);
        let corner = all.iter().find(|b| b.corner).unwrap();
        let side = all.iter().find(|b| !b.corner).unwrap();
        for branch in [corner, side] {
            let mut node = branch.root();
            let masks = (node.left, node.down, node.right);
            assert!(search_recursively(
                branch,
                node.row,
                masks,
                &mut node.board,
                &mut |_| true
            ));
            while node.row < 20 {
                let bit = node.board[node.row as usize];
                (node.left, node.down, node.right) = (
                    (node.left | bit) << 1,
                    node.down | bit,
                    (node.right | bit) >> 1,
                );
                node.row += 1;
            }
            let mut classes = Classes::default();
            count_node(&node, &mut classes);
            assert_eq!(classes, count_recursively(&node), "{branch:?}");
            assert!(classes.c2 + classes.c4 + classes.c8 > 0, "{branch:?}");
        }
    }

    #[test]
    fn small_boards_have_no_branches() {
        assert!(branches(3).is_empty());
        assert_eq!(count(2), Classes::default());
    }
}
