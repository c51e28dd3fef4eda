//! The usual large input on a short way: a piece that is nothing but 9×9 puzzles, one a line (or a CSV row of
//! a puzzle and its solution).
//!
//! A file of millions of puzzles is nearly always 81 cell symbols and a line end, line after line. A piece of
//! such lines need not become [`Record`]s: its puzzles are read as values straight from the text, a solver's
//! answer is checked against them where it lies, and the solution lines (or CSV rows) are written from the
//! values, with no `Grid`, `Record` or `Answer` made for them. A piece holding anything else (a comment, a blank line, another
//! length, a letter, a byte-order mark) goes the usual way whole, and a puzzle of it that gets no checked
//! solution is read and answered the usual way on its own, so the output is the same, byte for byte.

use std::borrow::Cow;
use std::io::Write;

use super::{Answer, Format, ReadOptions, Record, Writer};
use crate::sudoku::Grid;
use crate::sudoku::answer::{Tally, why_not_unique};
use crate::sudoku::bands;
use crate::sudoku::symbols::{Symbols, is_empty_marker};

/// Cell symbols in a line.
const CELLS: usize = 81;

/// A piece of plain 9×9 lines: every line 81 symbols of the standard alphabet (digits, `0` or `.` and the other
/// empty markers for an empty cell) and the same line end, `\n` or `\r\n`. A CSV's rows count as such lines
/// when the puzzle is their only column, or when a solution column follows it, 81 symbols too (kaggle's
/// `quizzes,solutions`).
pub struct NineLines {
    text: Vec<u8>,
    /// Bytes per line, its end included.
    stride: usize,
    /// Lines of the input before the piece.
    lines_before: usize,
    /// Rows with a solution column after the puzzle's.
    with_solution: bool,
}

impl NineLines {
    /// The piece's text as plain 9×9 lines read with `options` (with a solution column after each puzzle when
    /// `with_solution`), or the text back when it is anything else.
    pub(super) fn new(
        text: Vec<u8>,
        lines_before: usize,
        options: ReadOptions,
        with_solution: bool,
    ) -> Result<Self, Vec<u8>> {
        let read_as_nine = options.symbols == Symbols::Standard
            && options.shape.is_none_or(|shape| shape == bands::nine());
        // The fields of a line: the puzzle, then `,` and the solution.
        let fields = if with_solution { 2 * CELLS + 1 } else { CELLS };
        let stride = match text.get(fields..fields + 2) {
            Some([b'\n', _]) => fields + 1,
            Some(b"\r\n") => fields + 2,
            _ => 0,
        };
        if !read_as_nine || stride == 0 || !text.len().is_multiple_of(stride) {
            return Err(text);
        }
        let end = &text[fields..stride];
        // Each byte tested by comparisons alone (no table, no early exit), so that the compiler tests many at
        // once: this runs on every line of a large file.
        let cells = |cells: &[u8]| {
            cells
                .iter()
                .fold(true, |plain, &b| plain & (is_digit(b) | is_empty_marker(b)))
        };
        let plain = text.chunks_exact(stride).all(|line| {
            let solution =
                !with_solution || (line[CELLS] == b',' && cells(&line[CELLS + 1..fields]));
            cells(&line[..CELLS]) && solution && line[fields..] == *end
        });
        if !plain {
            return Err(text);
        }
        Ok(Self {
            text,
            stride,
            lines_before,
            with_solution,
        })
    }

    /// Puzzles in the piece.
    pub fn len(&self) -> usize {
        self.text.len() / self.stride
    }

    /// True when the piece holds no puzzle.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Input bytes the piece covers.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Puzzle `i`'s values, row-major: 0 for an empty cell, else 1 to 9.
    pub fn values(&self, i: usize) -> [u8; CELLS] {
        values_of(&self.text[i * self.stride..])
    }

    /// The line (1-based, in the whole input) of puzzle `i`.
    pub fn line(&self, i: usize) -> usize {
        self.lines_before + i + 1
    }

    /// Puzzle `i` as a record: the one a [`super::Reader`] of the whole input makes of its line (made here
    /// directly: a plain line of 81 symbols reads as a 3×3-box grid of its values, whatever its givens).
    pub fn record(&self, i: usize) -> Record {
        let grid = |values: [u8; CELLS]| Grid::new(bands::nine(), &values).expect("values 0 to 9");
        let solution = self.with_solution.then(|| {
            let field = &self.text[i * self.stride + CELLS + 1..];
            Box::new(grid(values_of(field)))
        });
        Record {
            line: self.line(i),
            puzzle: Ok(grid(self.values(i))),
            given_solution: solution,
        }
    }
}

/// The values of the 81 cells `text` starts with, each a digit or an empty marker (checked in
/// [`NineLines::new`]; the markers all lie outside `0`..=`9`).
fn values_of(text: &[u8]) -> [u8; CELLS] {
    let cells: &[u8; CELLS] = text[..CELLS].try_into().expect("81 cells");
    cells.map(|b| if is_digit(b) { b - b'0' } else { 0 })
}

/// True for `0` to `9` (`0` an empty cell in the standard alphabet).
fn is_digit(b: u8) -> bool {
    b.wrapping_sub(b'0') <= 9
}

/// What became of one puzzle of [`NineLines`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineAnswer {
    /// Solved, by a solution that passed the independent check: its values, and when counting, the count and
    /// whether it stopped at the limit.
    Solved {
        /// The solution's values, row-major.
        values: [u8; CELLS],
        /// `(solutions counted, stopped at the limit)` when counting.
        count: Option<(u64, bool)>,
    },
    /// Read as a record and answered like any other (no solution, clashing givens, a solution that failed
    /// the check and was searched again).
    Usual(Box<(Record, Answer)>),
}

/// Writes the answers to a [`NineLines`]' puzzles, in order, one output line each, as [`Writer`] writes
/// one-line puzzles in `symbols` (a part that others may come before: the layout has no separators), and
/// returns their tally.
pub fn write_lines(
    answers: impl IntoIterator<Item = LineAnswer>,
    symbols: Symbols,
    out: &mut Vec<u8>,
) -> Tally {
    let mut tally = Tally::default();
    let answers = answers.into_iter();
    out.reserve(answers.size_hint().0 * (CELLS + 1));
    for answer in answers {
        match answer {
            LineAnswer::Solved { values, count } => {
                symbols.extend(out, &values);
                if let Some((n, hit)) = count {
                    let more = if hit { "+" } else { "" };
                    write!(out, " {n}{more}").expect("writing to memory does not fail");
                }
                out.push(b'\n');
                tally.add_solved(count, false);
            }
            LineAnswer::Usual(usual) => {
                let (record, answer) = &*usual;
                Writer::continuing(&mut *out, Format::Line, symbols)
                    .write(record.line, record.puzzle.as_ref().ok(), answer)
                    .expect("writing to memory does not fail");
                tally.add(answer);
            }
        }
    }
    tally
}

/// Writes the answers to a [`NineLines`]' puzzles as [`Writer`] writes them in an ungraded CSV (a part that
/// others may come before: no header): `puzzle,solution,"status"` rows, the puzzle as read, in `symbols`; and
/// returns their tally.
pub fn write_csv_lines(
    lines: &NineLines,
    answers: &[LineAnswer],
    symbols: Symbols,
    out: &mut Vec<u8>,
) -> Tally {
    let mut tally = Tally::default();
    out.reserve(answers.len() * (2 * CELLS + 16));
    for (i, answer) in answers.iter().enumerate() {
        match answer {
            LineAnswer::Solved { values, count } => {
                tally.add_solved(*count, false);
                symbols.extend(out, &lines.values(i));
                out.push(b',');
                symbols.extend(out, values);
                // The usual statuses without making a string (a CSV of a million rows is written on the Batch
                // page's one thread).
                let status = match count {
                    None => Cow::Borrowed("solved"),
                    Some((1, false)) => Cow::Borrowed("unique"),
                    Some((n, hit)) => Cow::Owned({
                        let more = if *hit { "+" } else { "" };
                        // As `answer::from_outcome` notes a count above one (givens that show it).
                        let puzzle = Grid::new(bands::nine(), &lines.values(i));
                        match puzzle.as_ref().and_then(why_not_unique).filter(|_| *n > 1) {
                            Some(note) => format!("{n}{more} solutions ({note})"),
                            None => format!("{n}{more} solutions"),
                        }
                        .replace('"', "'")
                    }),
                };
                out.extend_from_slice(b",\"");
                out.extend_from_slice(status.as_bytes());
                out.extend_from_slice(b"\"\n");
            }
            LineAnswer::Usual(usual) => {
                let (record, answer) = &**usual;
                Writer::continuing(&mut *out, Format::Csv, symbols)
                    .write(record.line, record.puzzle.as_ref().ok(), answer)
                    .expect("writing to memory does not fail");
                tally.add(answer);
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::answer::{Mode, answer};
    use crate::sudoku::format::{Reader, Splitter};
    use crate::sudoku::solver::Solver;

    const PUZZLE: &str =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
    const CLASH: &str =
        "44....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    fn text_of(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    fn lines(text: &str) -> Result<NineLines, Vec<u8>> {
        NineLines::new(text.as_bytes().to_vec(), 10, ReadOptions::default(), false)
    }

    #[test]
    fn plain_lines_are_taken_and_anything_else_is_given_back() {
        let two = format!("{PUZZLE}\n{CLASH}\n");
        let taken = lines(&two).expect("two plain lines");
        assert_eq!(taken.len(), 2);
        assert_eq!(taken.values(0)[0], 4);
        assert_eq!(taken.values(0)[1], 0);
        assert!(lines(&format!("{PUZZLE}\r\n{PUZZLE}\r\n")).is_ok());
        for other in [
            format!("{PUZZLE}\n# a comment\n"),
            format!("{PUZZLE}\n\n"),
            format!("{PUZZLE}\n{PUZZLE}"),
            format!("{PUZZLE}\r\n{PUZZLE}\n"),
            format!("{PUZZLE} 1\n"),
            format!("{}A\n", &PUZZLE[..80]),
            format!("{PUZZLE}.\n"),
            format!("\u{feff}{PUZZLE}\n"),
            String::new(),
        ] {
            assert!(lines(&other).is_err(), "{other:?} is not plain");
        }
        let hex = ReadOptions {
            symbols: Symbols::Hex,
            ..ReadOptions::default()
        };
        assert!(
            NineLines::new(format!("{PUZZLE}\n{PUZZLE}\n").into_bytes(), 0, hex, false).is_err()
        );
    }

    #[test]
    fn a_line_read_the_usual_way_keeps_its_number() {
        let text = format!("{PUZZLE}\n{CLASH}\n");
        let taken = lines(&text).ok().unwrap();
        let read: Vec<Record> = Reader::resume(
            text.as_bytes(),
            ReadOptions::default(),
            Format::Line,
            None,
            10,
        )
        .collect();
        assert_eq!(read, vec![taken.record(0), taken.record(1)]);
        assert_eq!(taken.record(0).line, 11);
        let clash = taken.record(1);
        assert_eq!(clash.line, 12);
        assert_eq!(clash.puzzle.as_ref().unwrap().cells(), &taken.values(1)[..]);
    }

    #[test]
    fn written_lines_are_what_the_writer_writes() {
        let open = format!("{}\n", ".".repeat(CELLS));
        let text = format!("{PUZZLE}\n{CLASH}\n{open}");
        for mode in [Mode::First, Mode::Count(2)] {
            for symbols in [Symbols::Standard, Symbols::Hex] {
                let taken = lines(&text).ok().unwrap();
                let mut solver = Solver::new();
                let usual: Vec<(Record, Answer)> = (0..taken.len())
                    .map(|i| {
                        let record = taken.record(i);
                        let answer = answer(&record, &mut solver, mode);
                        (record, answer)
                    })
                    .collect();
                let mut expected = Writer::continuing(Vec::new(), Format::Line, symbols);
                let mut expected_csv = Writer::continuing(Vec::new(), Format::Csv, symbols);
                let mut expected_tally = Tally::default();
                for (record, answer) in &usual {
                    let puzzle = record.puzzle.as_ref().ok();
                    expected.write(record.line, puzzle, answer).unwrap();
                    expected_csv.write(record.line, puzzle, answer).unwrap();
                    expected_tally.add(answer);
                }
                let short: Vec<LineAnswer> = usual
                    .into_iter()
                    .map(|(record, answer)| match answer {
                        Answer::Solved {
                            solution, count, ..
                        } => LineAnswer::Solved {
                            values: solution.cells().try_into().unwrap(),
                            count,
                        },
                        other => LineAnswer::Usual(Box::new((record, other))),
                    })
                    .collect();
                let mut csv = Vec::new();
                write_csv_lines(&taken, &short, symbols, &mut csv);
                let expected_csv = expected_csv.finish().unwrap();
                assert_eq!(
                    text_of(&csv),
                    text_of(&expected_csv),
                    "{mode:?} {symbols:?}"
                );
                let mut out = Vec::new();
                let tally = write_lines(short, symbols, &mut out);
                assert_eq!(out, expected.finish().unwrap(), "{mode:?} {symbols:?}");
                assert_eq!(tally, expected_tally);
            }
        }
    }

    #[test]
    fn csv_rows_of_a_puzzle_and_its_solution_read_as_the_reader_reads_them() {
        let solution =
            "487312695593684271126597384735849126219736548648125937872951463951463872364278159";
        let body = format!("{PUZZLE},{solution}\r\n{CLASH},{solution}\r\n");
        let text = format!("quizzes,solutions\r\n{body}{body}");
        let options = ReadOptions::default();
        let mut splitter = Splitter::new(text.as_bytes(), options);
        // The header's piece, then the rows'.
        let header = splitter.next_piece(1).unwrap();
        assert!(header.into_nine_lines(options).is_err());
        let rows = splitter.next_piece(1 << 20).unwrap();
        let taken = rows.into_nine_lines(options).ok().unwrap();
        let read: Vec<Record> = Reader::new(text.as_bytes(), options).collect();
        let made: Vec<Record> = (0..taken.len()).map(|i| taken.record(i)).collect();
        assert_eq!(made, read);
        assert!(made[0].given_solution.is_some());
        // A row whose solution is not 81 symbols goes the usual way.
        let text = format!("quizzes,solutions\n{PUZZLE},{solution}\n{PUZZLE},12\n");
        let mut splitter = Splitter::new(text.as_bytes(), options);
        let _header = splitter.next_piece(1).unwrap();
        let rows = splitter.next_piece(1 << 20).unwrap();
        assert!(rows.into_nine_lines(options).is_err());
    }

    #[test]
    fn a_splitter_piece_of_plain_lines_becomes_nine_lines() {
        let text = format!("{PUZZLE}\n{PUZZLE}\n");
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        let piece = splitter.next_piece(1 << 20).unwrap();
        let taken = piece.into_nine_lines(ReadOptions::default()).ok().unwrap();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken.bytes(), text.len());
        let text = format!("# comment\n{PUZZLE}\n");
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        let piece = splitter.next_piece(1 << 20).unwrap();
        let back = piece.into_nine_lines(ReadOptions::default()).err().unwrap();
        assert_eq!(back.records(ReadOptions::default()).len(), 1);
    }
}
