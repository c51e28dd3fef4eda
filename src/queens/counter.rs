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

    /// The candidates of a row above the last one after this branch's pruning (0: give up this board).
    #[inline(always)]
    pub fn restrict(&self, row: u32, down: u32, free: u32) -> u32 {
        if self.corner {
            self.restrict_as::<true>(row, down, free)
        } else {
            self.restrict_as::<false>(row, down, free)
        }
    }

    /// [`Branch::restrict`] with the branch kind known at compile time.
    #[inline(always)]
    fn restrict_as<const CORNER: bool>(&self, row: u32, down: u32, free: u32) -> u32 {
        if CORNER {
            // Column 1 stays free above row bound1: otherwise the diagonal mirror is the smaller board.
            if row < self.bound1 { free & !2 } else { free }
        } else if row < self.bound1 {
            // No queen on the side columns above bound1: its rotation would put the first queen nearer a corner.
            free & !self.sidemask
        } else if row == self.bound2 {
            // By row bound2 the left and right columns both hold a queen (else a rotation is smaller); where one
            // is still free, this row's queen must take it.
            match down & self.sidemask {
                0 => 0,
                taken if taken != self.sidemask => free & self.sidemask,
                _ => free,
            }
        } else {
            free
        }
    }

    /// Places the last row's queen (`free`: its candidates) and classifies the board.
    #[inline(always)]
    pub fn leaf(&self, board: &mut [u32; 32], free: u32) -> Class {
        if free == 0 {
            return Class::Skip;
        }
        if self.corner {
            return Class::Eight;
        }
        if free & self.lastmask != 0 {
            return Class::Skip;
        }
        board[self.last() as usize] = free;
        self.classify(board)
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

/// Finishes the search below `node`, adding what it finds to `classes`.
pub fn count_node(node: &Node, classes: &mut Classes) {
    let mut search = Search {
        branch: node.branch,
        mask: node.branch.mask(),
        last: node.branch.last(),
        board: node.board,
        classes: Classes::default(),
    };
    if node.row == search.last {
        // Only the last row is left (a cut this deep happens only on tiny boards).
        let free = search.mask & !(node.left | node.down | node.right);
        search.tally(free);
    } else if node.branch.corner {
        search.descend::<true>(node.row, node.left, node.down, node.right);
    } else {
        search.descend::<false>(node.row, node.left, node.down, node.right);
    }
    classes.add(&search.classes);
}

/// The recursive search of one branch.
struct Search {
    branch: Branch,
    mask: u32,
    last: u32,
    board: [u32; 32],
    classes: Classes,
}

impl Search {
    /// Places rows `row..last` (`row < last`). `CORNER` is the branch kind as a constant, so each kind gets
    /// its own compiled loop without the other's rules.
    fn descend<const CORNER: bool>(&mut self, row: u32, left: u32, down: u32, right: u32) {
        let free = self.mask & !(left | down | right);
        let mut free = self.branch.restrict_as::<CORNER>(row, down, free);
        while free != 0 {
            // The lowest free column; two's complement isolates it.
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let (left, down, right) = ((left | bit) << 1, down | bit, (right | bit) >> 1);
            if row + 1 == self.last {
                // The last row's queen is forced: no call for it.
                let last_free = self.mask & !(left | down | right);
                if last_free != 0 {
                    if CORNER {
                        self.classes.c8 += 1;
                    } else {
                        self.board[(row & 31) as usize] = bit;
                        self.tally(last_free);
                    }
                }
            } else {
                if !CORNER {
                    // Corner boards never need classifying, so only side branches keep the board.
                    self.board[(row & 31) as usize] = bit;
                }
                self.descend::<CORNER>(row + 1, left, down, right);
            }
        }
    }

    /// Classifies a board whose last row can take `free` and counts it.
    fn tally(&mut self, free: u32) {
        match self.branch.leaf(&mut self.board, free) {
            Class::Skip => {}
            Class::Two => self.classes.c2 += 1,
            Class::Four => self.classes.c4 += 1,
            Class::Eight => self.classes.c8 += 1,
        }
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

    #[test]
    fn small_boards_have_no_branches() {
        assert!(branches(3).is_empty());
        assert_eq!(count(2), Classes::default());
    }
}
