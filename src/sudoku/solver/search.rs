//! The general solver's depth-first search over boards, with an explicit stack, and its randomized restarts for
//! a first solution (the module header of `solver` says why).

use super::Outcome;
use super::board::{Board, Mask, NO_UNIT, Settled, Tables};
use crate::sudoku::grid::Grid;
use crate::sudoku::rng::SplitMix;

/// A branch point: the board before the guess, and the cell's values not yet tried.
#[derive(Clone, Copy)]
struct Frame<M, const CAP: usize, const UNITS: usize> {
    board: Board<M, CAP, UNITS>,
    cell: u16,
    untried: u32,
}

/// Guesses the plain search may take for a first solution before randomized restarts take over. Every puzzle of
/// the shared 9×9 sets needs fewer (their hardest, about 3,000), so those keep their deterministic path.
pub(super) const FIRST_ATTEMPT: u64 = 20_000;

/// [`FIRST_ATTEMPT`] from 16×16 up, where a plain search that has not finished after a thousand guesses is
/// usually in a long tail, and the restarts (with what they learn) finish sooner.
pub(super) const FIRST_ATTEMPT_LARGE: u64 = 1_000;

/// Guesses in one randomized run per unit of the Luby sequence (1, 1, 2, 1, 1, 2, 4, …). Random completion of
/// large grids has heavy-tailed search times (Gomes, Selman and Kautz, 1998): most orders finish quickly and a
/// few take nearly forever, so short runs in fresh random orders, with an occasional long one (which keeps the
/// search complete: runs grow without bound), cut off the tail.
const RESTART_UNIT: u64 = 1_000;

/// The Luby sequence, 1-based: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, …
fn luby(i: u64) -> u64 {
    let mut i = i;
    loop {
        // The smallest k with i <= 2^k - 1.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
}

/// The depth-first search of one capacity class, with its reusable stack.
#[derive(Default)]
pub(super) struct Search<M, const CAP: usize, const UNITS: usize, const SIDE: usize> {
    stack: Vec<Frame<M, CAP, UNITS>>,
    /// Dead ends per unit in the current puzzle's randomized runs (see [`Board::weighted_branch`]).
    weights: Vec<u32>,
    /// The values of the deepest board any run of this puzzle reached (0 where open), and its open count: later
    /// runs try these values first ("progress saving", as SAT solvers do), so a restart does not lose the
    /// parts of the grid the last run had right.
    phase: Vec<u32>,
    deepest: usize,
    use_phase: bool,
}

impl<M: Mask, const CAP: usize, const UNITS: usize, const SIDE: usize> Search<M, CAP, UNITS, SIDE> {
    /// The search of [`super::Solver::solve`]: a plain depth-first search, except that a first solution not found
    /// within `restart_after` guesses ([`FIRST_ATTEMPT`] by default) is looked for again with randomized restarts (see [`RESTART_UNIT`]).
    /// With `shuffle`, every run is randomized from that seed, the first too.
    pub(super) fn run(
        &mut self,
        t: &Tables,
        puzzle: &Grid,
        limit: u64,
        budget: u64,
        shuffle: Option<u64>,
        restart_after: u64,
    ) -> Outcome {
        let mut spent = 0;
        if shuffle.is_none() {
            if limit > 1 || budget <= restart_after {
                return self.search(t, puzzle, limit, budget, None);
            }
            let first = self.search(t, puzzle, 1, restart_after, None);
            if !first.gave_up {
                return first;
            }
            spent = first.guesses;
        }
        self.weights.clear();
        self.weights.resize(3 * t.side, 1);
        self.phase.clear();
        self.phase.resize(t.shape.cells(), 0);
        self.deepest = usize::MAX;
        // A fixed seed by default: the same puzzle always takes the same path, so answers and guess counts repeat.
        let mut rng = SplitMix(shuffle.unwrap_or(0x5EED_F0CB_0A2D_0001));
        for run in 1.. {
            let allowed = (luby(run) * RESTART_UNIT).min(budget.saturating_sub(spent).max(1));
            // Every third run ignores the saved values, so that a run kept in a wrong corner by them is
            // followed by one that may leave it (without it, one grid of 200 took the whole 5M-guess budget).
            self.use_phase = run % 3 != 0;
            let mut outcome = self.search(t, puzzle, 1, allowed, Some(&mut rng));
            spent += outcome.guesses;
            // A run that ends within its allowance has searched its whole tree (in another order): its answer,
            // solution or none, is exact.
            if !outcome.gave_up || spent >= budget {
                outcome.guesses = spent;
                return outcome;
            }
        }
        unreachable!("the loop returns once the budget is spent")
    }

    /// One depth-first search within `budget` guesses in a row without a new solution. With `rng`, each branch
    /// takes a random cell among those with the fewest candidates and tries a random value of it first.
    fn search(
        &mut self,
        t: &Tables,
        puzzle: &Grid,
        limit: u64,
        budget: u64,
        mut rng: Option<&mut SplitMix>,
    ) -> Outcome {
        let mut outcome = Outcome {
            count: 0,
            solution: None,
            hit_limit: false,
            guesses: 0,
            gave_up: false,
        };
        // The guard: guesses taken since the last solution (or the start).
        let mut fruitless = 0u64;
        let Some(mut board) = Board::<M, CAP, UNITS>::from_puzzle(t, puzzle) else {
            return outcome;
        };
        self.stack.clear();
        loop {
            match board.settle::<SIDE>(t) {
                Settled::Solved => {
                    outcome.count += 1;
                    if outcome.solution.is_none() {
                        outcome.solution = Grid::from_fn(t.shape, |c| board.value(c));
                    }
                    if outcome.count >= limit {
                        outcome.hit_limit = true;
                        return outcome;
                    }
                    fruitless = 0;
                }
                Settled::Branch(cell, mask) => {
                    if fruitless >= budget {
                        outcome.gave_up = true;
                        return outcome;
                    }
                    fruitless += 1;
                    let (cell, mask, bit) = match rng.as_deref_mut() {
                        None => (cell, mask, mask & mask.wrapping_neg()),
                        Some(rng) => {
                            let (cell, mask) = board.weighted_branch(t, &self.weights, rng);
                            let saved = if self.use_phase {
                                self.phase[cell] & mask
                            } else {
                                0
                            };
                            let bit = if saved != 0 {
                                saved
                            } else {
                                board.least_constraining::<SIDE>(t, cell, mask, rng)
                            };
                            (cell, mask, bit)
                        }
                    };
                    self.stack.push(Frame {
                        board,
                        cell: cell as u16,
                        untried: mask & !bit,
                    });
                    board.place::<SIDE>(t, cell, bit);
                    outcome.guesses += 1;
                    continue;
                }
                Settled::Dead => {
                    if rng.is_some() && board.open < self.deepest {
                        self.deepest = board.open;
                        for (p, c) in self.phase.iter_mut().zip(&board.cand[..t.shape.cells()]) {
                            let m = c.wide();
                            *p = if m.is_power_of_two() { m } else { 0 };
                        }
                    }
                    if rng.is_some() {
                        for u in board.blame {
                            if u != NO_UNIT {
                                self.weights[usize::from(u)] += 1;
                            }
                        }
                    }
                }
            }
            // Backtrack: the next untried value of the deepest branch point. The last value reuses the frame's
            // board without copying it back onto the stack.
            let Some(top) = self.stack.last_mut() else {
                return outcome;
            };
            if fruitless >= budget {
                outcome.gave_up = true;
                return outcome;
            }
            fruitless += 1;
            let cell = usize::from(top.cell);
            let bit = top.untried & top.untried.wrapping_neg();
            top.untried &= !bit;
            board = if top.untried == 0 {
                self.stack.pop().expect("top exists").board
            } else {
                top.board
            };
            board.place::<SIDE>(t, cell, bit);
            outcome.guesses += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
