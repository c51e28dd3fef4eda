//! Positions with pencil marks as text, in the three forms Sudoku people paste between tools:
//!
//! - **SudokuWiki's 162 characters** (9×9 only): two base-32 characters per cell, of the cell's digit bits
//!   (1 = bit 0 … 9 = bit 8: a placed digit or the candidates left) shifted up one, the low bit set for a clue.
//!   `vu` is an empty cell with every candidate (511 · 2 = 1022 = 31 · 32 + 30).
//! - **N³ characters** (729 for a 9×9): N per cell, position `d` holding digit `d + 1` where it is a candidate and
//!   `.` where not; a placed cell holds only its digit.
//! - **A pretty grid of candidates**: a cell's candidates as one word, the words lined up in columns, boxes
//!   framed by `|`, `-`, `+`, `.`, `:` and `'` (HoDoKu's layout). Reading skips the frame and takes the words.
//!
//! None of these says which cells are clues apart from SudokuWiki's flag, and a cell with one candidate left
//! reads as placed: each tool that writes them does the same.

use std::fmt::Write as _;

use thiserror::Error;

use super::grid::Grid;
use super::shape::{BoxShape, MAX_SIDE};
use super::symbols::{Cell, Symbols};

/// A position read from or written to a candidate text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The placed digits (clues and entries), 0 where empty.
    pub grid: Grid,
    /// The candidates of each empty cell (bit `d - 1` for digit `d`); 0 in placed cells.
    pub marks: Vec<u32>,
}

/// Why a text that looks like a candidate grid is not one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CandidateError {
    /// A character that the form does not allow.
    #[error("{form}: cell {cell} holds `{found}`, which is not {expected}")]
    BadCharacter {
        /// Which of the three forms.
        form: &'static str,
        /// The cell, as `r3c5`.
        cell: String,
        /// What was found.
        found: String,
        /// What was allowed there.
        expected: &'static str,
    },
    /// A cell left without any candidate.
    #[error("{form}: cell {cell} has no candidate left")]
    Empty {
        /// Which of the three forms.
        form: &'static str,
        /// The cell, as `r3c5`.
        cell: String,
    },
    /// Placed digits that repeat in a row, column or box.
    #[error("{form}: {conflict}")]
    Clash {
        /// Which of the three forms.
        form: &'static str,
        /// The first repetition.
        conflict: String,
    },
}

const WIKI: &str = "SudokuWiki 162-character string";
const CUBE: &str = "candidate string";
const PRETTY: &str = "pretty candidate grid";

/// The base-32 digits SudokuWiki writes (JavaScript's `toString(32)`).
const BASE32: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

impl Position {
    /// The position of a grid and the candidates of its empty cells (placed cells' marks are ignored).
    pub fn new(grid: Grid, marks: &[u32]) -> Self {
        let marks = grid
            .cells()
            .iter()
            .zip(marks)
            .map(|(&v, &m)| if v == 0 { m } else { 0 })
            .collect();
        Self { grid, marks }
    }

    /// A cell's digit bits: its placed digit's, or its candidates.
    fn bits(&self, cell: usize) -> u32 {
        match self.grid.cells()[cell] {
            0 => self.marks[cell],
            v => 1 << (v - 1),
        }
    }

    /// SudokuWiki's 162-character string (9×9 only; every placed digit flagged as a clue).
    pub fn to_sudokuwiki(&self) -> Option<String> {
        (self.grid.side() == 9).then(|| {
            (0..81)
                .flat_map(|c| {
                    let flagged = (self.bits(c) << 1) | u32::from(self.grid.cells()[c] != 0);
                    [flagged / 32, flagged % 32].map(|d| char::from(BASE32[d as usize]))
                })
                .collect()
        })
    }

    /// The N³-character form: N characters per cell, digit `d` at position `d - 1` where it is possible.
    pub fn to_cube(&self) -> String {
        let n = self.grid.side();
        let mut text = String::with_capacity(n * n * n);
        for c in 0..n * n {
            let bits = self.bits(c);
            text.extend((1..=n as u8).map(|d| {
                if bits & (1 << (d - 1)) != 0 {
                    char::from(Symbols::Standard.write(d))
                } else {
                    '.'
                }
            }));
        }
        text
    }

    /// The pretty grid of candidates (HoDoKu's layout): columns as wide as their widest cell.
    pub fn to_pretty(&self) -> String {
        let shape = self.grid.shape();
        let n = shape.side();
        let words: Vec<String> = (0..n * n)
            .map(|c| {
                (1..=n as u8)
                    .filter(|d| self.bits(c) & (1 << (d - 1)) != 0)
                    .map(|d| char::from(Symbols::Standard.write(d)))
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = (0..n)
            .map(|col| (0..n).map(|r| words[r * n + col].len()).max().unwrap_or(1))
            .collect();
        // A frame line: each box's columns and the spaces around them.
        let frame = |ends: [char; 3]| {
            let mut line = String::from(ends[0]);
            for (b, group) in widths.chunks(shape.cols()).enumerate() {
                if b > 0 {
                    line.push(ends[1]);
                }
                let inner: usize = group.iter().sum::<usize>() + group.len() + 1;
                line.extend(std::iter::repeat_n('-', inner));
            }
            line.push(ends[2]);
            line.push('\n');
            line
        };
        let mut text = frame(['.', '.', '.']);
        for r in 0..n {
            if r > 0 && r % shape.rows() == 0 {
                text.push_str(&frame([':', '+', ':']));
            }
            text.push('|');
            for col in 0..n {
                if col > 0 && col % shape.cols() == 0 {
                    text.push_str(" |");
                }
                let _ = write!(text, " {:<w$}", words[r * n + col], w = widths[col]);
            }
            text.push_str(" |\n");
        }
        text.push_str(&frame(['\'', '\'', '\'']));
        text
    }
}

/// Reads a candidate text into a position. `None` when the text is not in any of the three forms (it may be a
/// plain puzzle); an error when it is in one but wrong. The box shape is `prefer` when its side fits, else the
/// usual one for the side.
pub fn read(text: &str, prefer: BoxShape) -> Option<Result<Position, CandidateError>> {
    let text = text.trim();
    // SudokuWiki's links carry the string after `bd=`.
    let compact = text.rsplit_once("bd=").map_or(text, |(_, s)| s);
    if compact.len() == 162 && compact.bytes().all(|b| base32(b).is_some()) {
        return Some(read_sudokuwiki(compact, shape_for(9, prefer)));
    }
    if !compact.contains(char::is_whitespace)
        && let Some(n) = (4..=MAX_SIDE).find(|n| n * n * n == compact.len())
        && let Ok(shape) = shape_for_side(n, prefer)
    {
        return Some(read_cube(compact, shape));
    }
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|line| {
            line.split(|c: char| c.is_whitespace() || "|-+.:'*".contains(c))
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let words: Vec<&str> = rows.concat();
    // N rows of N words each, some of several candidates: anything else (a puzzle on one line or in a block,
    // whose runs of givens also read as words) is left to the puzzle reader.
    let n = rows.len();
    if words.iter().all(|w| w.len() < 2) || rows.iter().any(|r| r.len() != n) {
        return None;
    }
    let shape = shape_for_side(n, prefer).ok()?;
    Some(read_pretty(&words, shape))
}

fn shape_for_side(n: usize, prefer: BoxShape) -> Result<BoxShape, super::shape::ShapeError> {
    if prefer.side() == n {
        Ok(prefer)
    } else {
        BoxShape::for_side(n)
    }
}

fn shape_for(n: usize, prefer: BoxShape) -> BoxShape {
    shape_for_side(n, prefer).expect("9×9 exists")
}

fn base32(byte: u8) -> Option<u32> {
    BASE32
        .iter()
        .position(|&b| b == byte.to_ascii_lowercase())
        .map(|d| d as u32)
}

fn cell_name(side: usize, cell: usize) -> String {
    format!("r{}c{}", cell / side + 1, cell % side + 1)
}

/// Builds the position from each cell's digit bits (one bit: placed), checking what every form must hold.
fn from_bits(
    shape: BoxShape,
    bits: &[u32],
    form: &'static str,
) -> Result<Position, CandidateError> {
    let n = shape.side();
    if let Some(c) = bits.iter().position(|&b| b == 0) {
        return Err(CandidateError::Empty {
            form,
            cell: cell_name(n, c),
        });
    }
    let grid = Grid::from_fn(shape, |c| {
        if bits[c].is_power_of_two() {
            bits[c].trailing_zeros() as u8 + 1
        } else {
            0
        }
    })
    .expect("every value fits the side");
    if let Some(conflict) = grid.conflicts().first() {
        return Err(CandidateError::Clash {
            form,
            conflict: conflict.to_string(),
        });
    }
    let marks = bits
        .iter()
        .map(|&b| if b.is_power_of_two() { 0 } else { b })
        .collect();
    Ok(Position { grid, marks })
}

fn read_sudokuwiki(text: &str, shape: BoxShape) -> Result<Position, CandidateError> {
    let mut bits = Vec::with_capacity(81);
    for (c, pair) in text.as_bytes().chunks(2).enumerate() {
        let value = base32(pair[0]).unwrap_or(0) * 32 + base32(pair[1]).unwrap_or(0);
        let digits = value >> 1;
        if digits >= 1 << 9 {
            return Err(CandidateError::BadCharacter {
                form: WIKI,
                cell: cell_name(9, c),
                found: String::from_utf8_lossy(pair).into_owned(),
                expected: "a set of the digits 1 to 9 (at most `vv`)",
            });
        }
        bits.push(digits);
    }
    from_bits(shape, &bits, WIKI)
}

fn read_cube(text: &str, shape: BoxShape) -> Result<Position, CandidateError> {
    let n = shape.side();
    let mut bits = Vec::with_capacity(n * n);
    for (c, group) in text.as_bytes().chunks(n).enumerate() {
        let mut mask = 0u32;
        for (i, &byte) in group.iter().enumerate() {
            match Symbols::Standard.read(byte, n) {
                Cell::Empty => {}
                Cell::Value(d) if usize::from(d) == i + 1 => mask |= 1 << i,
                _ => {
                    return Err(CandidateError::BadCharacter {
                        form: CUBE,
                        cell: cell_name(n, c),
                        found: format!("{} at position {}", char::from(byte), i + 1),
                        expected: "that position's digit or `.`",
                    });
                }
            }
        }
        bits.push(mask);
    }
    from_bits(shape, &bits, CUBE)
}

fn read_pretty(words: &[&str], shape: BoxShape) -> Result<Position, CandidateError> {
    let n = shape.side();
    let mut bits = Vec::with_capacity(n * n);
    for (c, word) in words.iter().enumerate() {
        let mut mask = 0u32;
        for byte in word.bytes() {
            match Symbols::Standard.read(byte, n) {
                Cell::Value(d) => mask |= 1 << (d - 1),
                _ => {
                    return Err(CandidateError::BadCharacter {
                        form: PRETTY,
                        cell: cell_name(n, c),
                        found: word.to_string(),
                        expected: "a set of the grid's symbols",
                    });
                }
            }
        }
        bits.push(mask);
    }
    from_bits(shape, &bits, PRETTY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::logic::Board;
    use crate::sudoku::share;

    fn nine() -> BoxShape {
        BoxShape::for_side(9).unwrap()
    }

    /// A position a person might have: a puzzle's candidates with a few struck, and the cells left with one
    /// candidate filled in from the solution (the forms read those as placed).
    fn pencilled(text: &str) -> Position {
        let puzzle = share::decode(text).unwrap();
        let solution = crate::sudoku::Solver::new()
            .solve(&puzzle, 1)
            .solution
            .unwrap();
        let mut marks = Board::new(&puzzle).candidate_masks().to_vec();
        for m in marks.iter_mut().filter(|m| m.count_ones() > 2) {
            *m &= !(*m & m.wrapping_neg());
        }
        let grid = Grid::from_fn(puzzle.shape(), |c| match marks[c].count_ones() {
            1 => solution.cells()[c],
            _ => puzzle.cells()[c],
        })
        .unwrap();
        Position::new(grid, &marks)
    }

    const PUZZLE: &str =
        "3x3-4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    #[test]
    fn the_three_forms_read_back_what_they_wrote() {
        let position = pencilled(PUZZLE);
        let wiki = position.to_sudokuwiki().unwrap();
        assert_eq!(wiki.len(), 162);
        assert_eq!(read(&wiki, nine()), Some(Ok(position.clone())));
        let cube = position.to_cube();
        assert_eq!(cube.len(), 729);
        assert_eq!(read(&cube, nine()), Some(Ok(position.clone())));
        let pretty = position.to_pretty();
        assert_eq!(read(&pretty, nine()), Some(Ok(position.clone())));
        // A SudokuWiki link works as well as its string.
        let link = format!("https://www.sudokuwiki.org/sudoku.htm?bd={wiki}");
        assert_eq!(read(&link, nine()), Some(Ok(position)));
    }

    #[test]
    fn sudokuwiki_cells_are_what_its_definition_says() {
        let position = pencilled(PUZZLE);
        let wiki = position.to_sudokuwiki().unwrap();
        // r1c1 is the clue 4: bit 3 (8), shifted (16) plus the clue flag: 17 = "0h".
        assert_eq!(&wiki[..2], "0h");
        // SudokuWiki's own example string begins with an empty cell holding every candidate.
        let theirs = format!("vu{}", "0h".repeat(80));
        let read_back = read(&theirs, nine()).unwrap().unwrap_err();
        // (Eighty 4s clash: the reader names the repetition.)
        assert!(read_back.to_string().contains("4s in row 1"), "{read_back}");
        let mut cells = vec!["vu".to_string(); 81];
        cells[80] = "0h".into();
        let position = read(&cells.concat(), nine()).unwrap().unwrap();
        assert_eq!(position.marks[0], 0x1ff);
        assert_eq!(position.grid.cells()[80], 4);
    }

    #[test]
    fn large_and_rectangular_grids_go_through_the_cube_and_the_pretty_grid() {
        for (shape, seed) in [("2x3", 1), ("3x2", 2), ("4x4", 3), ("5x5", 4)] {
            let shape: BoxShape = shape.parse().unwrap();
            let (puzzle, _) = crate::sudoku::generate::puzzle(shape, seed, 0.5);
            let position = pencilled(&share::encode(&puzzle));
            assert_eq!(position.to_sudokuwiki(), None);
            for text in [position.to_cube(), position.to_pretty()] {
                assert_eq!(read(&text, shape), Some(Ok(position.clone())), "{text}");
            }
        }
    }

    #[test]
    fn plain_puzzles_are_left_to_the_puzzle_reader() {
        let puzzle = &PUZZLE[4..];
        assert_eq!(read(puzzle, nine()), None);
        // Runs of givens read as words of several symbols, but not a grid's worth.
        assert_eq!(
            read(
                "7.5.....2...4.1...3.........1.6..4..2...5...........9....37.....8....6...9.....8.",
                nine()
            ),
            None
        );
        let block: String = puzzle
            .as_bytes()
            .chunks(9)
            .map(|r| format!("{}\n", String::from_utf8_lossy(r)))
            .collect();
        assert_eq!(read(&block, nine()), None);
    }

    #[test]
    fn bad_candidate_texts_say_where_and_what() {
        let position = pencilled(PUZZLE);
        let mut cube = position.to_cube().into_bytes();
        cube[9 * 10 + 2] = b'7';
        let e = read(std::str::from_utf8(&cube).unwrap(), nine())
            .unwrap()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "candidate string: cell r2c2 holds `7 at position 3`, which is not that position's digit or `.`"
        );
        let mut wiki = position.to_sudokuwiki().unwrap().into_bytes();
        wiki[2..4].copy_from_slice(b"00");
        let e = read(std::str::from_utf8(&wiki).unwrap(), nine())
            .unwrap()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "SudokuWiki 162-character string: cell r1c2 has no candidate left"
        );
        let pretty = position.to_pretty().replacen("| 4 ", "| 4Z ", 1);
        let e = read(&pretty, nine()).unwrap().unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pretty candidate grid: cell r1c1 holds `4Z`"),
            "{e}"
        );
        // A grid short of a row is no candidate grid: the puzzle reader has its say.
        let short: String = position
            .to_pretty()
            .lines()
            .skip(2)
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(read(&short, nine()), None);
    }
}
