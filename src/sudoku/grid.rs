//! A grid of values: a puzzle (with empty cells) or a solution.

use std::fmt;

use smallvec::SmallVec;

use super::shape::{BoxShape, Unit};
use super::symbols::Symbols;

/// A Sudoku grid: its box shape and N² cell values, row-major, `0` for empty and `1..=N` otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    shape: BoxShape,
    cells: Cells,
}

/// A grid's cell values: up to 9×9 inside the grid itself, larger grids on the heap.
type Cells = SmallVec<[u8; 81]>;

/// Two or more equal values in one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The repeated value (1..=N).
    pub value: u8,
    /// The unit holding the repeats.
    pub unit: Unit,
    /// Where it stands, as `(row, col)` from 0.
    pub cells: Vec<(usize, usize)>,
}

impl Grid {
    /// A grid from cell values; `None` if the length is not N² or a value exceeds N.
    pub fn new(shape: BoxShape, cells: &[u8]) -> Option<Self> {
        (cells.len() == shape.cells() && in_range(cells, shape.side())).then(|| Self {
            shape,
            cells: Cells::from_slice(cells),
        })
    }

    /// A grid whose cell `i` (row-major) holds `value(i)`; `None` if a value exceeds N. Builds a 9×9 grid
    /// without touching the heap.
    pub fn from_fn(shape: BoxShape, value: impl FnMut(usize) -> u8) -> Option<Self> {
        let cells: Cells = (0..shape.cells()).map(value).collect();
        in_range(&cells, shape.side()).then_some(Self { shape, cells })
    }

    /// An empty grid of the given shape.
    pub fn empty(shape: BoxShape) -> Self {
        Self {
            shape,
            cells: smallvec::smallvec![0; shape.cells()],
        }
    }

    /// The box shape.
    pub fn shape(&self) -> BoxShape {
        self.shape
    }

    /// The side N.
    pub fn side(&self) -> usize {
        self.shape.side()
    }

    /// The cell values, row-major, `0` = empty.
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The value at `(row, col)`, `0` if empty.
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.side() + col]
    }

    /// The number of filled cells.
    pub fn clues(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// How many different values the filled cells use.
    pub fn distinct_values(&self) -> usize {
        let mask = self.cells.iter().fold(0u32, |m, &v| m | (1 << v));
        (mask >> 1).count_ones() as usize
    }

    /// True when no cell is empty.
    pub fn is_full(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// Every value repeated within a row, column or box, in unit order.
    pub fn conflicts(&self) -> Vec<Conflict> {
        let mut found = Vec::new();
        for (index, unit) in self.shape.units().iter().enumerate() {
            let side = self.side();
            let mut seen: Vec<Vec<(usize, usize)>> = vec![Vec::new(); side + 1];
            for &cell in unit {
                seen[usize::from(self.cells[cell])].push((cell / side, cell % side));
            }
            for (value, cells) in seen.into_iter().enumerate().skip(1) {
                if cells.len() > 1 {
                    found.push(Conflict {
                        value: value as u8,
                        unit: self.shape.unit(index),
                        cells,
                    });
                }
            }
        }
        found
    }

    /// The grid as one line of N² symbols, `.` for empty.
    pub fn to_line(&self, symbols: Symbols) -> String {
        // Bytes first, in one allocation of the exact size (a `char` at a time grew the string as it went).
        let mut bytes = Vec::with_capacity(self.cells.len());
        symbols.extend(&mut bytes, &self.cells);
        String::from_utf8(bytes).expect("every symbol is ASCII")
    }
}

/// A 9×9 grid from a line of 81 characters, digits for values and anything else empty (tests' puzzles).
#[cfg(test)]
pub(crate) fn nine_from_line(line: &str) -> Grid {
    let cells: Vec<u8> = line
        .bytes()
        .map(|b| if b.is_ascii_digit() { b - b'0' } else { 0 })
        .collect();
    Grid::new(BoxShape::new(3, 3).expect("3×3 boxes exist"), &cells).expect("81 cells")
}

/// True when every value is at most `side`. Without short-circuiting, so that the compiler checks many cells at
/// once: every answer of every engine is made through here.
fn in_range(cells: &[u8], side: usize) -> bool {
    cells
        .iter()
        .fold(true, |ok, &v| ok & (usize::from(v) <= side))
}

impl fmt::Display for Grid {
    /// One line of N² standard symbols.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line(Symbols::Standard))
    }
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = match self.cells.len() {
            2 => "two".to_string(),
            3 => "three".to_string(),
            n => n.to_string(),
        };
        let at: Vec<String> = self
            .cells
            .iter()
            .map(|(r, c)| format!("r{}c{}", r + 1, c + 1))
            .collect();
        write!(
            f,
            "{count} {}s in {} ({})",
            char::from(Symbols::Standard.write(self.value)),
            self.unit,
            at.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(line: &str) -> Grid {
        let shape = BoxShape::for_cell_count(line.len()).unwrap();
        let cells: Vec<u8> = line
            .bytes()
            .map(|b| match Symbols::Standard.read(b, shape.side()) {
                super::super::symbols::Cell::Value(v) => v,
                _ => 0,
            })
            .collect();
        Grid::new(shape, &cells).unwrap()
    }

    #[test]
    fn names_each_repeat_with_its_unit_and_cells() {
        let g = grid("1..1............");
        let conflicts = g.conflicts();
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].to_string(), "two 1s in row 1 (r1c1, r1c4)");
        let g = grid("1.......1.......");
        let text: Vec<String> = g.conflicts().iter().map(|c| c.to_string()).collect();
        assert_eq!(text, ["two 1s in column 1 (r1c1, r3c1)"]);
        let g = grid("1....1..........");
        assert_eq!(g.conflicts()[0].unit, Unit::Box(0));
    }

    #[test]
    fn counts_clues_and_distinct_values() {
        let puzzle = grid("1.......1.......");
        assert_eq!(puzzle.clues(), 2);
        assert_eq!(puzzle.distinct_values(), 1);
        assert_eq!(grid("1234341221434321").distinct_values(), 4);
    }
}
