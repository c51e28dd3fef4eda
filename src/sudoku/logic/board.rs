//! The board a person solves on: the values placed so far and the candidates (pencil marks) left in every
//! empty cell, with the geometry every technique asks about (which unit a cell is in, which cells see which).

use std::fmt::Write as _;

use super::super::grid::Grid;
use super::super::shape::{BoxShape, Unit};
use super::super::symbols::Symbols;

/// One candidate: a digit (1..=N) in a cell (row-major index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mark {
    /// The cell, `row * N + col`.
    pub cell: u16,
    /// The digit, 1..=N.
    pub digit: u8,
}

impl Mark {
    /// The candidate `digit` of `cell`.
    pub fn new(cell: usize, digit: u8) -> Self {
        Self {
            cell: cell as u16,
            digit,
        }
    }

    /// The cell as an index.
    pub fn at(self) -> usize {
        usize::from(self.cell)
    }
}

/// The bit of digit `d` (1..=N) in a candidate mask.
pub(super) fn bit(digit: u8) -> u32 {
    1 << (digit - 1)
}

/// The digits of a candidate mask, smallest first.
pub(super) fn digits(mut mask: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let d = mask.trailing_zeros() as u8 + 1;
            mask &= mask - 1;
            d
        })
    })
}

/// The rows, columns and boxes of one shape, as cell lists, and each cell's three units.
#[derive(Clone, Debug)]
pub(super) struct Geometry {
    pub shape: BoxShape,
    pub side: usize,
    /// Units 0..N are rows, N..2N columns, 2N..3N boxes (the order of [`BoxShape::units`]).
    pub units: Vec<Vec<usize>>,
    /// Each cell's row, column and box unit indices.
    pub cell_units: Vec<[usize; 3]>,
}

impl Geometry {
    fn new(shape: BoxShape) -> Self {
        let side = shape.side();
        let units = shape.units();
        let cell_units = (0..shape.cells())
            .map(|c| {
                let (r, col) = (c / side, c % side);
                [r, side + col, 2 * side + shape.box_of(r, col)]
            })
            .collect();
        Self {
            shape,
            side,
            units,
            cell_units,
        }
    }

    /// The row of a cell (from 0).
    pub fn row(&self, cell: usize) -> usize {
        cell / self.side
    }

    /// The column of a cell (from 0).
    pub fn col(&self, cell: usize) -> usize {
        cell % self.side
    }

    /// The box of a cell (from 0).
    pub fn box_of(&self, cell: usize) -> usize {
        self.cell_units[cell][2] - 2 * self.side
    }

    /// True when two different cells share a row, column or box.
    pub fn sees(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.cell_units[a], &self.cell_units[b]);
        a != b && (x[0] == y[0] || x[1] == y[1] || x[2] == y[2])
    }

    /// The unit of `kind` (0 row, 1 column, 2 box) holding every one of `cells`, if one does.
    pub fn shared_unit(&self, cells: &[usize], kind: usize) -> Option<usize> {
        let unit = self.cell_units[*cells.first()?][kind];
        cells
            .iter()
            .all(|&c| self.cell_units[c][kind] == unit)
            .then_some(unit)
    }

    /// The row or column holding every one of `cells`, if one does.
    pub fn shared_line(&self, cells: &[usize]) -> Option<usize> {
        self.shared_unit(cells, 0)
            .or_else(|| self.shared_unit(cells, 1))
    }

    /// A unit's name ("row 3", "column 5", "box 2").
    pub fn unit_name(&self, unit: usize) -> Unit {
        self.shape.unit(unit)
    }
}

/// A position being solved: placed values and the candidates of each empty cell.
#[derive(Clone, Debug)]
pub struct Board {
    pub(super) geo: Geometry,
    values: Vec<u8>,
    candidates: Vec<u32>,
    symbols: Symbols,
    /// The puzzle is known to have one solution, so the uniqueness techniques may be used.
    unique: bool,
}

impl Board {
    /// The board of a puzzle: its givens placed, every other cell holding the digits none of its peers holds.
    pub fn new(puzzle: &Grid) -> Self {
        let shape = puzzle.shape();
        let geo = Geometry::new(shape);
        let all = (1u32 << shape.side()) - 1;
        let mut board = Self {
            values: vec![0; shape.cells()],
            candidates: vec![all; shape.cells()],
            geo,
            symbols: Symbols::Standard,
            unique: false,
        };
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v != 0 {
                board.place(cell, v);
            }
        }
        board
    }

    /// The board of a puzzle with some candidates already struck out (a person's pencil marks): `keep` says,
    /// for each cell, which candidates it may keep; a cell's mask is narrowed, never widened.
    pub fn with_candidates(puzzle: &Grid, keep: &[u32]) -> Self {
        let mut board = Self::new(puzzle);
        for (c, &mask) in board.candidates.iter_mut().zip(keep) {
            *c &= mask;
        }
        board
    }

    /// The same board, known to have exactly one solution: the uniqueness techniques (unique rectangles, BUG+1)
    /// rest on it, and would be wrong on a puzzle with several.
    pub fn assuming_unique(mut self) -> Self {
        self.unique = true;
        self
    }

    /// Whether the board is known to have exactly one solution.
    pub fn is_assumed_unique(&self) -> bool {
        self.unique
    }

    /// The same board, writing digits with `symbols` in its sentences.
    pub fn with_symbols(mut self, symbols: Symbols) -> Self {
        self.symbols = symbols;
        self
    }

    /// The box shape.
    pub fn shape(&self) -> BoxShape {
        self.geo.shape
    }

    /// The grid side N.
    pub fn side(&self) -> usize {
        self.geo.side
    }

    /// The placed values, row-major, `0` for empty.
    pub fn values(&self) -> &[u8] {
        &self.values
    }

    /// The placed values as a grid.
    pub fn grid(&self) -> Grid {
        Grid::new(self.geo.shape, &self.values).expect("values stay in range")
    }

    /// The candidates of a cell as a bit mask (bit `d - 1` for digit `d`); `0` once the cell holds a value.
    pub fn candidates(&self, cell: usize) -> u32 {
        self.candidates[cell]
    }

    /// Every cell's candidates (see [`Board::candidates`]).
    pub fn candidate_masks(&self) -> &[u32] {
        &self.candidates
    }

    /// True when `cell` is empty and may still hold `digit`.
    pub fn has(&self, cell: usize, digit: u8) -> bool {
        self.candidates[cell] & bit(digit) != 0
    }

    /// True when every cell holds a value.
    pub fn is_solved(&self) -> bool {
        self.values.iter().all(|&v| v != 0)
    }

    /// The first sign that the position has no solution: an empty cell without candidates, or a digit with no
    /// place left in a unit.
    pub fn dead_end(&self) -> Option<String> {
        if let Some(cell) =
            (0..self.values.len()).find(|&c| self.values[c] == 0 && self.candidates[c] == 0)
        {
            return Some(format!("{} has no candidate left", self.cell_name(cell)));
        }
        for (u, cells) in self.geo.units.iter().enumerate() {
            let placed = cells
                .iter()
                .filter(|&&c| self.values[c] != 0)
                .fold(0, |m, &c| m | bit(self.values[c]));
            let open = cells.iter().fold(0, |m, &c| m | self.candidates[c]);
            let all = (1u32 << self.side()) - 1;
            if let Some(d) = digits(all & !placed & !open).next() {
                return Some(format!(
                    "{} has no place left for {}",
                    self.geo.unit_name(u),
                    self.digit_name(d)
                ));
            }
        }
        None
    }

    /// Places `digit` in `cell` and strikes it from the cell's peers.
    pub fn place(&mut self, cell: usize, digit: u8) {
        self.values[cell] = digit;
        self.candidates[cell] = 0;
        let gone = !bit(digit);
        for u in self.geo.cell_units[cell] {
            for &peer in &self.geo.units[u] {
                self.candidates[peer] &= gone;
            }
        }
    }

    /// Strikes one candidate.
    pub fn eliminate(&mut self, mark: Mark) {
        self.candidates[mark.at()] &= !bit(mark.digit);
    }

    /// A unit's cells.
    pub(super) fn unit(&self, unit: usize) -> &[usize] {
        &self.geo.units[unit]
    }

    /// Where `digit` may go in `unit`, as a mask over the unit's cells (bit `i` for its `i`-th cell).
    pub(super) fn positions(&self, unit: usize, digit: u8) -> u32 {
        let b = bit(digit);
        self.geo.units[unit]
            .iter()
            .enumerate()
            .filter(|&(_, &c)| self.candidates[c] & b != 0)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The empty cells holding `digit` as a candidate.
    pub(super) fn cells_with(&self, digit: u8) -> impl Iterator<Item = usize> + '_ {
        let b = bit(digit);
        (0..self.candidates.len()).filter(move |&c| self.candidates[c] & b != 0)
    }

    /// The empty cells with exactly two candidates.
    pub(super) fn bivalue_cells(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.candidates.len()).filter(|&c| self.candidates[c].count_ones() == 2)
    }

    /// The candidates `digit` of the cells (other than `skip`) that see every cell of `seen`.
    pub(super) fn seeing_all(&self, digit: u8, seen: &[usize], skip: &[usize]) -> Vec<Mark> {
        self.cells_with(digit)
            .filter(|c| !skip.contains(c) && seen.iter().all(|&s| self.geo.sees(*c, s)))
            .map(|c| Mark::new(c, digit))
            .collect()
    }

    /// A cell's name, `r3c5` (rows and columns from 1).
    pub fn cell_name(&self, cell: usize) -> String {
        format!("r{}c{}", self.geo.row(cell) + 1, self.geo.col(cell) + 1)
    }

    /// A digit as this board writes it.
    pub fn digit_name(&self, digit: u8) -> char {
        char::from(self.symbols.write(digit))
    }

    /// Cells named in a list: "r1c1", "r1c1 and r2c2", "r1c1, r2c2 and r3c3".
    pub(super) fn cell_list(&self, cells: &[usize]) -> String {
        let names: Vec<String> = cells.iter().map(|&c| self.cell_name(c)).collect();
        join_and(&names)
    }

    /// Digits named in a list: "3", "3 and 8", "1, 4 and 7".
    pub(super) fn digit_list(&self, mask: u32) -> String {
        let names: Vec<String> = digits(mask).map(|d| self.digit_name(d).into()).collect();
        join_and(&names)
    }

    /// Candidates named in a list, grouped by digit: "7 from r3c7 and r3c8; 2 from r1c1".
    pub(super) fn mark_list(&self, marks: &[Mark]) -> String {
        let mut by_digit: Vec<(u8, Vec<usize>)> = Vec::new();
        for m in marks {
            match by_digit.iter_mut().find(|(d, _)| *d == m.digit) {
                Some((_, cells)) => cells.push(m.at()),
                None => by_digit.push((m.digit, vec![m.at()])),
            }
        }
        let parts: Vec<String> = by_digit
            .iter()
            .map(|(d, cells)| format!("{} from {}", self.digit_name(*d), self.cell_list(cells)))
            .collect();
        parts.join("; ")
    }

    /// A cell with its candidates, `r3c5{3,8}`.
    pub(super) fn cell_with_candidates(&self, cell: usize) -> String {
        let mut s = self.cell_name(cell);
        s.push('{');
        for (i, d) in digits(self.candidates[cell]).enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{}", self.digit_name(d));
        }
        s.push('}');
        s
    }
}

/// "a", "a and b", "a, b and c".
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// An empty 9×9 board, for the techniques' tests.
#[cfg(test)]
pub(super) fn empty_nine() -> Board {
    Board::new(&Grid::empty(BoxShape::new(3, 3).expect("3×3 boxes exist")))
}

/// Leaves `cell` of a 9×9 board holding only the candidates `keep` (tests build positions with it).
#[cfg(test)]
pub(super) fn narrow(board: &mut Board, cell: usize, keep: &[u8]) {
    for d in (1..=9).filter(|d| !keep.contains(d)) {
        board.eliminate(Mark::new(cell, d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::nine_from_line;

    #[test]
    fn candidates_follow_the_givens() {
        let grid = nine_from_line(
            "530070000600195000098000060800060003400803001700020006060000280000419005000080079",
        );
        let board = Board::new(&grid);
        // r1c3 sees 5, 3, 7 (row), 6, 9, 8 (box) and 8 (column): 1, 2 and 4 are left.
        assert_eq!(digits(board.candidates(2)).collect::<Vec<_>>(), [1, 2, 4]);
        assert_eq!(board.candidates(0), 0);
        assert!(board.dead_end().is_none());
        assert_eq!(board.cell_name(2), "r1c3");
        assert_eq!(board.cell_with_candidates(2), "r1c3{1,2,4}");
        assert_eq!(board.positions(0, 1), 0b0_1100_0100);
    }

    #[test]
    fn a_cell_without_candidates_is_a_dead_end() {
        let mut board = Board::new(&Grid::empty(BoxShape::for_side(4).unwrap()));
        for d in 1..=4 {
            board.eliminate(Mark::new(5, d));
        }
        assert_eq!(board.dead_end().unwrap(), "r2c2 has no candidate left");
    }

    #[test]
    fn lists_read_as_prose() {
        let board = Board::new(&Grid::empty(BoxShape::for_side(9).unwrap()));
        assert_eq!(board.cell_list(&[0, 10, 80]), "r1c1, r2c2 and r9c9");
        assert_eq!(board.digit_list(0b101), "1 and 3");
        let marks = [Mark::new(0, 7), Mark::new(1, 7), Mark::new(2, 2)];
        assert_eq!(board.mark_list(&marks), "7 from r1c1 and r1c2; 2 from r1c3");
    }
}
