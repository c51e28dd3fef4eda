//! The logical solver: the named techniques people use, tried easiest first, one step at a time, each step
//! written as data (what it rests on, what it places or strikes out) and as one plain sentence. Where no
//! technique applies the search supplies one cell and says so, so every puzzle with a solution gets a path.
//! A puzzle's path gives its grade ([`Rating`]).
//!
//! Every size and box shape is handled; the techniques are written for any unit size.

mod board;
mod chains;
mod fish;
mod forcing;
mod intersections;
mod rating;
mod single_digit;
mod singles;
mod subsets;
mod technique;
mod uniqueness;
mod wings;

pub use board::{Board, Mark};
pub use rating::Rating;
pub use technique::{Grade, Technique};

use super::grid::Grid;
use super::solver::{DEFAULT_MAX_GUESSES, with_thread_solver};
use super::symbols::Symbols;

/// One deduction: the technique, what it rests on, what it places or strikes out, and its sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The technique used.
    pub technique: Technique,
    /// The values it places (singles and guesses).
    pub placements: Vec<Mark>,
    /// The candidates it strikes out.
    pub eliminations: Vec<Mark>,
    /// The candidates the deduction rests on (what a hint highlights).
    pub basis: Vec<Mark>,
    /// The step in one sentence, cells as `r3c5` from 1.
    pub sentence: String,
}

impl Board {
    /// Carries out a step: places its values and strikes its candidates.
    pub fn apply(&mut self, step: &Step) {
        for m in &step.placements {
            self.place(m.at(), m.digit);
        }
        for &m in &step.eliminations {
            self.eliminate(m);
        }
    }
}

/// The first step of `technique` on the board, if it applies (never a guess).
pub fn find(board: &Board, technique: Technique) -> Option<Step> {
    use Technique::*;
    match technique {
        FullHouse => singles::full_house(board),
        NakedSingle => singles::naked_single(board),
        HiddenSingle => singles::hidden_single(board),
        LockedPair => subsets::naked(board, 2, true),
        LockedTriple => subsets::naked(board, 3, true),
        Pointing => intersections::pointing(board),
        Claiming => intersections::claiming(board),
        NakedPair => subsets::naked(board, 2, false),
        NakedTriple => subsets::naked(board, 3, false),
        HiddenPair => subsets::hidden(board, 2),
        HiddenTriple => subsets::hidden(board, 3),
        NakedQuad => subsets::naked(board, 4, false),
        HiddenQuad => subsets::hidden(board, 4),
        XWing => fish::basic(board, 2),
        Swordfish => fish::basic(board, 3),
        Jellyfish => fish::basic(board, 4),
        RemotePair => wings::remote_pair(board),
        BugPlusOne => uniqueness::bug_plus_one(board),
        UniqueRectangle1 | UniqueRectangle2 | UniqueRectangle4 => {
            uniqueness::rectangle(board, technique)
        }
        FinnedXWing | SashimiXWing => fish::finned_x_wing(board, technique),
        Skyscraper | TwoStringKite | TurbotFish => single_digit::turbot(board, technique),
        EmptyRectangle => single_digit::empty_rectangle(board),
        WWing => wings::w_wing(board),
        XYWing => wings::xy_wing(board),
        XYZWing => wings::xyz_wing(board),
        SimpleColouring => single_digit::simple_colouring(board),
        XChain => chains::x_chain(board),
        XYChain => chains::xy_chain(board),
        Aic => chains::aic(board),
        ForcingChain => forcing::contradiction(board),
        Guess => None,
    }
}

/// The next logical step: the first technique, in [`Technique::ORDER`], that applies.
pub fn next_step(board: &Board) -> Option<Step> {
    if board.is_solved() || board.dead_end().is_some() {
        return None;
    }
    Technique::ORDER.iter().find_map(|&t| find(board, t))
}

/// The next step for a person at this position: the next logical step, or where no technique applies, one cell
/// from the search's solution (a [`Technique::Guess`]). `None` when the board is full or has no solution.
pub fn hint(board: &Board) -> Option<Step> {
    next_step(board).or_else(|| {
        let stuck = !board.is_solved() && board.dead_end().is_none();
        stuck.then(|| search_guess(board)).flatten()
    })
}

/// A guess from a fresh search of the board, if it has a solution.
fn search_guess(board: &Board) -> Option<Step> {
    let outcome = with_thread_solver(DEFAULT_MAX_GUESSES, |s| s.solve(&board.grid(), 1));
    let solution = outcome.solution?;
    Some(guess(board, &solution, outcome.guesses))
}

/// How a logical path ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// Every cell is filled.
    Solved,
    /// The position has no solution; the text says where that shows.
    NoSolution(String),
}

/// A puzzle's logical solution: its steps in order and how it ended.
#[derive(Clone, Debug)]
pub struct Path {
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// How it ended.
    pub end: End,
    /// Guesses the search needed, summed over the times no technique applied (0 when none was needed).
    pub search_guesses: u64,
}

/// Solves `puzzle` step by step, writing digits with `symbols`. When no technique applies, the search's
/// solution fills the empty cell with the fewest candidates (a [`Technique::Guess`] step) and the logic goes on.
pub fn solve(puzzle: &Grid, symbols: Symbols) -> Path {
    solve_from(Board::new(puzzle).with_symbols(symbols))
}

/// [`solve`] for a puzzle known to have exactly one solution: the uniqueness techniques (unique rectangles,
/// BUG+1) may be used, as HoDoKu and SudokuWiki do.
pub fn solve_unique(puzzle: &Grid, symbols: Symbols) -> Path {
    solve_from(Board::new(puzzle).with_symbols(symbols).assuming_unique())
}

/// Whether a grid has exactly one solution (so the uniqueness techniques may be used on it); false where the
/// search gave up (after `max_guesses` guesses in a row without a new solution) before it could tell.
pub fn has_one_solution(grid: &Grid, max_guesses: u64) -> bool {
    let counted = with_thread_solver(max_guesses, |s| s.solve(grid, 2));
    counted.count == 1 && !counted.gave_up
}

/// Solves on from a board (a person's position, pencil marks included).
pub fn solve_from(mut board: Board) -> Path {
    let mut steps = Vec::new();
    let mut search_guesses = 0;
    let mut solution: Option<Grid> = None;
    loop {
        if board.is_solved() {
            return Path {
                steps,
                end: End::Solved,
                search_guesses,
            };
        }
        if let Some(why) = board.dead_end() {
            return Path {
                steps,
                end: End::NoSolution(why),
                search_guesses,
            };
        }
        let step = match Technique::ORDER.iter().find_map(|&t| find(&board, t)) {
            Some(step) => step,
            None => {
                if solution.is_none() {
                    let outcome =
                        with_thread_solver(DEFAULT_MAX_GUESSES, |s| s.solve(&board.grid(), 1));
                    search_guesses += outcome.guesses;
                    solution = outcome.solution;
                }
                match solution.as_ref().map(|s| guess(&board, s, search_guesses)) {
                    Some(step) => step,
                    None => {
                        return Path {
                            steps,
                            end: End::NoSolution(
                                "no technique applies and the search finds no solution".into(),
                            ),
                            search_guesses,
                        };
                    }
                }
            }
        };
        board.apply(&step);
        steps.push(step);
    }
}

/// The step that fills the empty cell with the fewest candidates from the search's solution.
fn guess(board: &Board, solution: &Grid, guesses: u64) -> Step {
    let cell = (0..board.values().len())
        .filter(|&c| board.values()[c] == 0)
        .min_by_key(|&c| board.candidates(c).count_ones())
        .expect("an unsolved board has an empty cell");
    let digit = solution.cells()[cell];
    let plural = if guesses == 1 { "" } else { "es" };
    Step {
        technique: Technique::Guess,
        placements: vec![Mark::new(cell, digit)],
        eliminations: Vec::new(),
        basis: vec![Mark::new(cell, digit)],
        sentence: format!(
            "No technique here applies: the search (with {guesses} guess{plural}) puts {} in {}.",
            board.digit_name(digit),
            board.cell_name(cell)
        ),
    }
}

/// Calls `f` on each `k`-combination of `items` in lexicographic order until it returns something.
fn first_combination<T: Copy, R>(
    items: &[T],
    k: usize,
    mut f: impl FnMut(&[T]) -> Option<R>,
) -> Option<R> {
    fn walk<T: Copy, R>(
        items: &[T],
        k: usize,
        from: usize,
        chosen: &mut Vec<T>,
        f: &mut impl FnMut(&[T]) -> Option<R>,
    ) -> Option<R> {
        if chosen.len() == k {
            return f(chosen);
        }
        let left = k - chosen.len();
        for i in from..=items.len().saturating_sub(left) {
            if i >= items.len() {
                break;
            }
            chosen.push(items[i]);
            let found = walk(items, k, i + 1, chosen, f);
            chosen.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }
    if k == 0 || items.len() < k {
        return None;
    }
    walk(items, k, 0, &mut Vec::with_capacity(k), &mut f)
}

#[cfg(test)]
mod tests;
