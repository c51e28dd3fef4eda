//! Grid geometry: the side `N = R×C`, the box shape, and the units (rows, columns, boxes).
//!
//! Cells are numbered row-major, `cell = row * N + col`. Boxes are `R` rows tall and `C` columns wide, so a grid
//! holds `C` bands of boxes vertically and `R` stacks horizontally; box `b` covers rows `(b / R) * R ..` and
//! columns `(b % R) * C ..`.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// The smallest grid side Forkboard accepts.
pub const MIN_SIDE: usize = 4;
/// The largest grid side Forkboard accepts (symbols fit one `u32` bit each with room to spare).
pub const MAX_SIDE: usize = 25;
/// The most cells any grid has (25×25).
pub const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;

/// The shape of a box: `rows` × `cols`; the grid side is their product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoxShape {
    rows: u8,
    cols: u8,
}

/// Why a box shape or a grid side was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShapeError {
    /// The text was not of the form `RxC`.
    #[error("box shape `{0}` is not of the form RxC (e.g. 3x3, 3x4)")]
    Syntax(String),
    /// A box side of 1 turns boxes into rows or columns.
    #[error("a box of {rows}×{cols} has a side of 1; both sides must be at least 2")]
    Degenerate {
        /// Box rows.
        rows: usize,
        /// Box columns.
        cols: usize,
    },
    /// The side is outside 4..=25 or has no box shape (a prime).
    #[error(
        "a grid side of {0} is not supported: sides are products R×C with R, C ≥ 2, from 4 to 25"
    )]
    Side(usize),
}

impl BoxShape {
    /// A box of `rows` × `cols`, checked: both at least 2, product from 4 to 25.
    pub fn new(rows: usize, cols: usize) -> Result<Self, ShapeError> {
        if rows < 2 || cols < 2 {
            return Err(ShapeError::Degenerate { rows, cols });
        }
        let side = rows * cols;
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(ShapeError::Side(side));
        }
        Ok(Self {
            rows: rows as u8,
            cols: cols as u8,
        })
    }

    /// The usual box for a side: the most square factorisation with rows ≤ cols (9 → 3×3, 12 → 3×4, 6 → 2×3).
    pub fn for_side(side: usize) -> Result<Self, ShapeError> {
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(ShapeError::Side(side));
        }
        (2..=side.isqrt())
            .rev()
            .find(|r| side.is_multiple_of(*r))
            .map(|r| Self::new(r, side / r).expect("factors of a side in range"))
            .ok_or(ShapeError::Side(side))
    }

    /// The default box for a cell count that is a square of a supported side (81 → 3×3), if any.
    pub fn for_cell_count(cells: usize) -> Option<Self> {
        let side = cells.isqrt();
        (side * side == cells).then(|| Self::for_side(side).ok())?
    }

    /// Box height in rows.
    pub fn rows(self) -> usize {
        self.rows as usize
    }

    /// Box width in columns.
    pub fn cols(self) -> usize {
        self.cols as usize
    }

    /// The grid side N (= symbols, rows, columns and boxes).
    pub fn side(self) -> usize {
        self.rows() * self.cols()
    }

    /// The number of cells, N².
    pub fn cells(self) -> usize {
        self.side() * self.side()
    }

    /// The box holding `(row, col)`.
    pub fn box_of(self, row: usize, col: usize) -> usize {
        (row / self.rows()) * self.rows() + col / self.cols()
    }

    /// The cells of box `b`, row-major.
    pub fn box_cells(self, b: usize) -> impl Iterator<Item = usize> {
        let n = self.side();
        let (top, left) = (
            (b / self.rows()) * self.rows(),
            (b % self.rows()) * self.cols(),
        );
        (0..self.rows())
            .flat_map(move |dr| (0..self.cols()).map(move |dc| (top + dr) * n + left + dc))
    }

    /// Every unit as its cells: the N rows, then the N columns, then the N boxes.
    pub fn units(self) -> Vec<Vec<usize>> {
        let n = self.side();
        let rows = (0..n).map(|r| (0..n).map(|c| r * n + c).collect());
        let cols = (0..n).map(|c| (0..n).map(|r| r * n + c).collect());
        let boxes = (0..n).map(|b| self.box_cells(b).collect());
        rows.chain(cols).chain(boxes).collect()
    }

    /// Names a unit from its index in [`BoxShape::units`].
    pub fn unit(self, index: usize) -> Unit {
        let n = self.side();
        match index / n {
            0 => Unit::Row(index % n),
            1 => Unit::Column(index % n),
            _ => Unit::Box(index % n),
        }
    }
}

impl fmt::Display for BoxShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

impl FromStr for BoxShape {
    type Err = ShapeError;

    /// Parses `RxC` (also `R×C` or `R*C`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || ShapeError::Syntax(s.to_string());
        let (r, c) = s
            .trim()
            .split_once(['x', 'X', '×', '*'])
            .ok_or_else(syntax)?;
        let r = r.trim().parse().map_err(|_| syntax())?;
        let c = c.trim().parse().map_err(|_| syntax())?;
        Self::new(r, c)
    }
}

/// A row, column or box, numbered from 0 (displayed from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Row index.
    Row(usize),
    /// Column index.
    Column(usize),
    /// Box index, row-major.
    Box(usize),
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Row(i) => write!(f, "row {}", i + 1),
            Unit::Column(i) => write!(f, "column {}", i + 1),
            Unit::Box(i) => write!(f, "box {}", i + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shapes_are_the_usual_ones() {
        let expect = [
            (4, "2x2"),
            (6, "2x3"),
            (8, "2x4"),
            (9, "3x3"),
            (10, "2x5"),
            (12, "3x4"),
            (15, "3x5"),
            (16, "4x4"),
            (20, "4x5"),
            (25, "5x5"),
        ];
        for (side, shape) in expect {
            assert_eq!(BoxShape::for_side(side).unwrap().to_string(), shape);
        }
        for prime in [5, 7, 11, 13, 17, 19, 23] {
            assert_eq!(BoxShape::for_side(prime), Err(ShapeError::Side(prime)));
        }
        assert!(BoxShape::for_side(3).is_err());
        assert!(BoxShape::for_side(26).is_err());
    }

    #[test]
    fn parses_and_checks_box_shapes() {
        assert_eq!("4x3".parse::<BoxShape>().unwrap().side(), 12);
        assert_eq!("2×3".parse::<BoxShape>().unwrap().cols(), 3);
        assert!(matches!(
            "1x9".parse::<BoxShape>(),
            Err(ShapeError::Degenerate { .. })
        ));
        assert!(matches!(
            "6x6".parse::<BoxShape>(),
            Err(ShapeError::Side(36))
        ));
        assert!(matches!(
            "3by3".parse::<BoxShape>(),
            Err(ShapeError::Syntax(_))
        ));
    }

    #[test]
    fn every_unit_is_a_permutation_target() {
        for shape in ["2x3", "3x2", "3x4", "4x3", "5x5"] {
            let shape: BoxShape = shape.parse().unwrap();
            let n = shape.side();
            let units = shape.units();
            assert_eq!(units.len(), 3 * n);
            for (i, unit) in units.iter().enumerate() {
                assert_eq!(unit.len(), n, "{shape} unit {i}");
                // Each cell is in exactly one row, one column and one box.
                let mut seen = unit.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), n);
            }
            for cell in 0..shape.cells() {
                let hits = units.iter().filter(|u| u.contains(&cell)).count();
                assert_eq!(hits, 3);
                let b = shape.box_of(cell / n, cell % n);
                assert!(units[2 * n + b].contains(&cell));
            }
        }
    }
}
