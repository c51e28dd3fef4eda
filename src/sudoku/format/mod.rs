//! Puzzle files: one-line puzzles, the block layout of the original CUDA solver, pretty grids, and CSV.
//!
//! Reading is streaming ([`Reader`] is an iterator of [`Record`]s over any `BufRead`), byte-based (invalid
//! UTF-8, NUL bytes and over-long lines become per-record errors, never panics) and forgiving of BOMs, CRLF and
//! tabs. Every failure names its line and what is wrong. [`Writer`] writes answers back in the input's layout.

mod detect;
mod lines;
mod nine_piece;
mod piece;
mod read;
mod split;
mod write;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::grid::{Conflict, Grid};
use super::shape::BoxShape;
use super::symbols::Symbols;

pub use detect::detect;
#[cfg(test)]
pub(crate) use nine_piece::pretty_of;
pub use nine_piece::{NineAnswer, NineLayout, NinePiece, write_csv_nines, write_nines};
pub use piece::Piece;
pub use read::Reader;
pub use split::Splitter;
pub use write::{Answer, GradeColumn, Writer, opening};

/// The layout of a puzzle file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One puzzle per line: N² symbols (anything after a space, `,` or `;` is ignored). `#` starts a comment.
    Line,
    /// N lines of N symbols per puzzle, puzzles separated by a blank line (the CUDA solver's `.in` files).
    Block,
    /// Pretty grids as pasted from web pages: cells with `|`, `+`, `-` and spaces between boxes.
    Grid,
    /// CSV with a header naming a `quizzes` or `puzzle` column (and optionally `solutions`/`solution`).
    Csv,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "line" => Ok(Format::Line),
            "block" => Ok(Format::Block),
            "grid" => Ok(Format::Grid),
            "csv" => Ok(Format::Csv),
            _ => Err(format!(
                "unknown format `{s}`: use line, block, grid or csv"
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Line => "line",
            Format::Block => "block",
            Format::Grid => "grid",
            Format::Csv => "csv",
        })
    }
}

/// How to read a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// The layout, or `None` to detect it from the first lines.
    pub format: Option<Format>,
    /// The alphabet of the cells.
    pub symbols: Symbols,
    /// The box shape for sizes with more than one (e.g. 12 as 4×3); `None` takes each size's usual shape.
    pub shape: Option<BoxShape>,
}

/// One puzzle read from a file, or why it could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The 1-based line where the puzzle starts.
    pub line: usize,
    /// The puzzle, or what is wrong with it.
    pub puzzle: Result<Grid, PuzzleError>,
    /// The solution the file gives alongside (a CSV `solutions` column), if any. Boxed: most files have none,
    /// and every record of a file is moved between threads.
    pub given_solution: Option<Box<Grid>>,
}

/// A puzzle that could not be read or is invalid, with the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct PuzzleError {
    /// The 1-based line of the input.
    pub line: usize,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ErrorKind {
    /// A one-line puzzle whose length is no N² of a supported side.
    #[error(
        "{0} cells is not a supported size (16, 36, 64, 81, 100, 144, 196, 225, 256, 324, 400, 441, 484, 576 or 625)"
    )]
    Length(usize),
    /// A cell that is neither a symbol of this size nor an empty marker.
    #[error("bad symbol {found} at row {row} column {col} (a {side}×{side} grid uses {alphabet})")]
    BadSymbol {
        /// 1-based row.
        row: usize,
        /// 1-based column.
        col: usize,
        /// The character, quoted, or its byte value when not printable.
        found: String,
        /// The grid side.
        side: usize,
        /// A description of the symbols allowed.
        alphabet: String,
    },
    /// A row of a block or pretty grid with the wrong number of cells.
    #[error("row {row} (line {at}) has {found} cells, expected {expected}")]
    RowWidth {
        /// 1-based row within the puzzle.
        row: usize,
        /// The line the row is on.
        at: usize,
        /// Cells found.
        found: usize,
        /// Cells expected.
        expected: usize,
    },
    /// The first row of a block or pretty grid has a width that is no grid side.
    #[error(
        "a row of {0} cells is no supported grid side (4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20, 21, 22, 24 or 25)"
    )]
    Side(usize),
    /// A block or pretty grid that ended early.
    #[error("only {found} of {expected} rows before the puzzle ended")]
    MissingRows {
        /// Rows found.
        found: usize,
        /// Rows expected.
        expected: usize,
    },
    /// The explicit box shape does not fit the puzzle's size.
    #[error("a {side}×{side} puzzle cannot have {shape} boxes")]
    ShapeMismatch {
        /// The puzzle's side.
        side: usize,
        /// The box shape asked for.
        shape: BoxShape,
    },
    /// The symbol set cannot write this size (hex is for 16×16 and smaller).
    #[error("the {symbols} symbols cannot write a {side}×{side} grid")]
    SymbolsTooSmall {
        /// The puzzle's side.
        side: usize,
        /// The symbol set's name.
        symbols: &'static str,
    },
    /// A line longer than the reader accepts.
    #[error("line longer than {0} bytes")]
    LineTooLong(usize),
    /// A CSV row without the puzzle column.
    #[error("no `{0}` field in this CSV row")]
    MissingField(String),
    /// A CSV solution that could not be read.
    #[error("the solution column: {0}")]
    BadSolution(Box<ErrorKind>),
    /// Two equal givens in one unit.
    #[error("{}", join_conflicts(.0))]
    Conflicts(Vec<Conflict>),
    /// A failure of the engine itself, reported rather than shown as an answer.
    #[error("internal error: {0}")]
    Internal(String),
    /// A file whose first lines fit no known layout.
    #[error("{0}")]
    Unrecognised(String),
}

fn join_conflicts(conflicts: &[Conflict]) -> String {
    let shown: Vec<String> = conflicts.iter().take(3).map(|c| c.to_string()).collect();
    let more = conflicts.len().saturating_sub(3);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("contradictory givens: {}{tail}", shown.join("; "))
}

/// Checks a puzzle's givens for repeats, as an error naming each one.
pub fn check_givens(grid: &Grid) -> Result<(), ErrorKind> {
    // Almost every puzzle is fine: a mask pass with no allocation first, the named list only on a clash.
    if !crate::sudoku::verify::has_repeats(grid) {
        return Ok(());
    }
    Err(ErrorKind::Conflicts(grid.conflicts()))
}
