//! The usual large input on a short way: a piece that is nothing but plain 9×9 puzzles, one a line (or a CSV
//! row of a puzzle and its solution), in blocks of nine rows, or as pretty grids.
//!
//! A file of millions of puzzles is nearly always 81 cell symbols and a line end, line after line, or the same
//! cells as nine rows of nine with a blank line after each puzzle (the CUDA solver's `.in` files), or the pretty
//! grids this program writes (`5 3 . | . 7 . | . . .`, a rule between bands). A piece of such puzzles need not
//! become [`Record`]s: its puzzles are read as values straight from the text, a solver's answer is checked
//! against them where it lies, and the solutions (lines, blocks, grids or CSV rows) are written from the
//! values, with no `Grid`, `Record` or `Answer` made for them. A piece holding anything else (a comment, a
//! second blank line, another length, a letter, a byte-order mark) goes the usual way whole, and a puzzle of it
//! that gets no checked solution is read and answered the usual way on its own, so the output is the same, byte
//! for byte.

mod pretty;

use std::borrow::Cow;
use std::io::Write;

use super::{Answer, Format, ReadOptions, Record, Writer};
use crate::sudoku::Grid;
use crate::sudoku::answer::{Tally, why_not_unique};
use crate::sudoku::bands;
use crate::sudoku::symbols::{Symbols, is_empty_marker};
use pretty::{PRETTY_CELLS, PRETTY_WIDTH, PrettyLines, PrettyTemplate, write_pretty};
pub(super) use pretty::{PRETTY_LINES, PrettyGrids};

/// Cells of a puzzle.
const CELLS: usize = 81;
/// Cells of a row, and rows of a block.
const SIDE: usize = 9;

/// How the puzzles of a [`NinePiece`] lie in its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NineLayout {
    /// One puzzle a line: 81 symbols, or a CSV row of 81 symbols and, when `with_solution`, a comma and the
    /// solution's 81 (kaggle's `quizzes,solutions`).
    Line {
        /// Rows with a solution column after the puzzle's.
        with_solution: bool,
    },
    /// Nine rows of nine symbols a puzzle, each puzzle followed by one blank line (the input's last perhaps
    /// by none).
    Block,
    /// Pretty grids as [`Writer`] writes them: nine rows `c c c | c c c | c c c`, a rule
    /// `------+-------+------` after the third and the sixth, a blank line after each puzzle (the input's last
    /// perhaps without one; the piece's first perhaps after one, since the splitter cuts grids after a last
    /// row). Rows, and rules, may each end in one space, the same throughout the piece.
    Pretty,
}

/// A piece of plain 9×9 puzzles: every puzzle's cells in the standard alphabet (digits, `0` or `.` and the
/// other empty markers for an empty cell), laid out as [`NineLayout`] says, every line ending the same way,
/// `\n` or `\r\n`.
pub struct NinePiece {
    text: Vec<u8>,
    layout: NineLayout,
    /// Bytes per puzzle, its line ends and a block's blank line included.
    stride: usize,
    /// Bytes per line, its end included: a block's rows are this far apart (a pretty grid's rows, but for the
    /// rules between bands).
    line_bytes: usize,
    /// Bytes of a pretty grid's rule, its end included (0 in other layouts).
    rule_bytes: usize,
    /// Bytes of a blank line before the first puzzle (pretty grids only: the splitter cuts them after a row).
    lead: usize,
    /// Lines of the input before the piece.
    lines_before: usize,
}

impl NinePiece {
    /// The piece's text as plain 9×9 puzzles laid out as `layout`, read with `options`, or the text back when
    /// it is anything else.
    pub(super) fn new(
        text: Vec<u8>,
        lines_before: usize,
        options: ReadOptions,
        layout: NineLayout,
    ) -> Result<Self, Vec<u8>> {
        let read_as_nine = options.symbols == Symbols::Standard
            && options.shape.is_none_or(|shape| shape == bands::nine());
        if layout == NineLayout::Pretty {
            return match read_as_nine {
                true => Self::pretty(text, lines_before),
                false => Err(text),
            };
        }
        // The symbols of a line: a puzzle, a block's row, or a puzzle, `,` and its solution.
        let fields = match layout {
            NineLayout::Line {
                with_solution: true,
            } => 2 * CELLS + 1,
            NineLayout::Line {
                with_solution: false,
            } => CELLS,
            NineLayout::Block => SIDE,
            NineLayout::Pretty => unreachable!("pretty grids are taken above"),
        };
        let line_bytes = match (text.get(fields), text.get(fields + 1)) {
            (Some(b'\n'), _) => fields + 1,
            (Some(b'\r'), Some(b'\n')) => fields + 2,
            _ => 0,
        };
        if !read_as_nine || line_bytes == 0 {
            return Err(text);
        }
        let end = &text[fields..line_bytes];
        // Each byte tested by comparisons alone (no table, no early exit), so that the compiler tests many at
        // once: this runs on every line of a large file.
        let cells = |cells: &[u8]| {
            cells
                .iter()
                .fold(true, |plain, &b| plain & (is_digit(b) | is_empty_marker(b)))
        };
        let with_solution = fields > CELLS;
        let plain_line = |line: &[u8]| {
            let solution =
                !with_solution || (line[CELLS] == b',' && cells(&line[CELLS + 1..fields]));
            cells(&line[..fields.min(CELLS)]) && solution && line[fields..] == *end
        };
        let stride = match layout {
            NineLayout::Line { .. } => line_bytes,
            _ => SIDE * line_bytes + end.len(),
        };
        // A block's blank line may be missing after the input's last puzzle.
        let whole = match layout {
            NineLayout::Block if !text.len().is_multiple_of(stride) => text.len() + end.len(),
            _ => text.len(),
        };
        if !whole.is_multiple_of(stride) {
            return Err(text);
        }
        let plain = match layout {
            NineLayout::Line { .. } => text.chunks_exact(stride).all(plain_line),
            _ => text.chunks(stride).all(|block| {
                let (rows, blank) = block.split_at(SIDE * line_bytes);
                rows.chunks_exact(line_bytes).all(plain_line) && (blank.is_empty() || blank == end)
            }),
        };
        if !plain {
            return Err(text);
        }
        Ok(Self {
            text,
            layout,
            stride,
            line_bytes,
            rule_bytes: 0,
            lead: 0,
            lines_before,
        })
    }

    /// [`NinePiece::new`] for pretty grids: perhaps a blank line, then grids, a blank line after each but
    /// perhaps the last.
    fn pretty(text: Vec<u8>, lines_before: usize) -> Result<Self, Vec<u8>> {
        let lead = match text.first() {
            Some(b'\n') => 1,
            Some(b'\r') if text.get(1) == Some(&b'\n') => 2,
            _ => 0,
        };
        let Some(lines) = PrettyLines::of(&text[lead..]) else {
            return Err(text);
        };
        let template = PrettyTemplate::new(lines);
        let end = lines.end;
        let stride = lines.grid() + end.len();
        let body = text.len() - lead;
        let whole = match body % stride {
            0 => body,
            _ => body + end.len(),
        };
        let plain = (lead == 0 || text[..lead] == *end)
            && whole.is_multiple_of(stride)
            && text[lead..].chunks(stride).all(|grid| {
                let blank = &grid[lines.grid().min(grid.len())..];
                template.is_grid(grid) && (blank.is_empty() || blank == end)
            });
        if !plain {
            return Err(text);
        }
        Ok(Self {
            text,
            layout: NineLayout::Pretty,
            stride,
            line_bytes: lines.row,
            rule_bytes: lines.rule,
            lead,
            lines_before,
        })
    }

    /// Puzzles in the piece.
    pub fn len(&self) -> usize {
        (self.text.len() - self.lead).div_ceil(self.stride)
    }

    /// True when the piece holds no puzzle.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Input bytes the piece covers.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Puzzle `i`'s values, row-major: 0 for an empty cell, else 1 to 9.
    pub fn values(&self, i: usize) -> [u8; CELLS] {
        let at = &self.text[self.lead + i * self.stride..];
        match self.layout {
            NineLayout::Line { .. } => values_of(at),
            NineLayout::Pretty => {
                let mut values = [0; CELLS];
                for (r, row) in values.chunks_exact_mut(SIDE).enumerate() {
                    // Rows a row's length apart, and a rule's more after each band.
                    let line = &at[r * self.line_bytes + r / 3 * self.rule_bytes..];
                    for (value, &c) in row.iter_mut().zip(&PRETTY_CELLS) {
                        *value = value_of(line[c]);
                    }
                }
                values
            }
            NineLayout::Block => {
                let mut values = [0; CELLS];
                for (row, line) in values
                    .chunks_exact_mut(SIDE)
                    .zip(at.chunks(self.line_bytes))
                {
                    for (value, &symbol) in row.iter_mut().zip(line) {
                        *value = value_of(symbol);
                    }
                }
                values
            }
        }
    }

    /// The line (1-based, in the whole input) where puzzle `i` starts.
    pub fn line(&self, i: usize) -> usize {
        let lines_each = match self.layout {
            NineLayout::Line { .. } => 1,
            NineLayout::Block => SIDE + 1,
            NineLayout::Pretty => PRETTY_LINES + 1,
        };
        self.lines_before + usize::from(self.lead > 0) + i * lines_each + 1
    }

    /// Puzzle `i` as a record: the one a [`super::Reader`] of the whole input makes of it (made here directly:
    /// 81 plain symbols read as a 3×3-box grid of their values, whatever its givens).
    pub fn record(&self, i: usize) -> Record {
        let grid = |values: [u8; CELLS]| Grid::new(bands::nine(), &values).expect("values 0 to 9");
        let with_solution = self.layout
            == NineLayout::Line {
                with_solution: true,
            };
        let solution = with_solution.then(|| {
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
/// [`NinePiece::new`]; the markers all lie outside `0`..=`9`).
fn values_of(text: &[u8]) -> [u8; CELLS] {
    let cells: &[u8; CELLS] = text[..CELLS].try_into().expect("81 cells");
    cells.map(value_of)
}

/// A cell symbol's value: its digit, or 0 for an empty marker.
fn value_of(symbol: u8) -> u8 {
    if is_digit(symbol) { symbol - b'0' } else { 0 }
}

/// True for `0` to `9` (`0` an empty cell in the standard alphabet).
const fn is_digit(b: u8) -> bool {
    b.wrapping_sub(b'0') <= 9
}

/// True for a plain cell's symbol: a digit or an empty marker.
const fn is_cell(b: u8) -> bool {
    is_digit(b) | is_empty_marker(b)
}

/// What became of one puzzle of [`NinePiece`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NineAnswer {
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

impl NineAnswer {
    /// A puzzle's record and its answer from a solver, kept as values where they write the same: a solution
    /// the search did not give up on (its note, if any, is the one [`write_csv_nines`] works out again).
    pub fn from_answer(record: Record, answer: Answer) -> Self {
        match answer {
            Answer::Solved {
                solution,
                count,
                gave_up: false,
                ..
            } if solution.side() == SIDE => NineAnswer::Solved {
                values: solution.cells().try_into().expect("81 cells"),
                count,
            },
            answer => NineAnswer::Usual(Box::new((record, answer))),
        }
    }
}

/// Writes the answers to a [`NinePiece`]'s puzzles, in order, as [`Writer`] writes them in `format` (one-line
/// puzzles, blocks or pretty grids) and `symbols`, as a part that others may come before (a block's or grid's
/// separator before each); and returns their tally.
pub fn write_nines(
    answers: impl IntoIterator<Item = NineAnswer>,
    format: Format,
    symbols: Symbols,
    out: &mut Vec<u8>,
) -> Tally {
    let each = match format {
        Format::Line => CELLS + 1,
        Format::Block => CELLS + SIDE + 1,
        Format::Grid => (PRETTY_WIDTH + 1) * (PRETTY_LINES + 1),
        Format::Csv => unreachable!("9×9 pieces' CSV rows are written by write_csv_nines"),
    };
    let mut tally = Tally::default();
    let answers = answers.into_iter();
    out.reserve(answers.size_hint().0 * each);
    for answer in answers {
        match answer {
            NineAnswer::Solved { values, count } => {
                let more = |hit| if hit { "+" } else { "" };
                if format != Format::Line {
                    out.push(b'\n');
                    if let Some((n, hit)) = count {
                        writeln!(out, "# solutions: {n}{}", more(hit))
                            .expect("writing to memory does not fail");
                    }
                    if format == Format::Grid {
                        write_pretty(&values, symbols, out);
                    } else {
                        for row in values.chunks_exact(SIDE) {
                            symbols.extend(out, row);
                            out.push(b'\n');
                        }
                    }
                } else {
                    symbols.extend(out, &values);
                    if let Some((n, hit)) = count {
                        write!(out, " {n}{}", more(hit)).expect("writing to memory does not fail");
                    }
                    out.push(b'\n');
                }
                tally.add_solved(count, false);
            }
            NineAnswer::Usual(usual) => {
                let (record, answer) = &*usual;
                Writer::continuing(&mut *out, format, symbols)
                    .write(record.line, record.puzzle.as_ref().ok(), answer)
                    .expect("writing to memory does not fail");
                tally.add(answer);
            }
        }
    }
    tally
}

/// Writes the answers to a [`NinePiece`]' puzzles as [`Writer`] writes them in an ungraded CSV (a part that
/// others may come before: no header): `puzzle,solution,"status"` rows, the puzzle as read, in `symbols`; and
/// returns their tally.
pub fn write_csv_nines(
    piece: &NinePiece,
    answers: &[NineAnswer],
    symbols: Symbols,
    out: &mut Vec<u8>,
) -> Tally {
    let mut tally = Tally::default();
    out.reserve(answers.len() * (2 * CELLS + 16));
    for (i, answer) in answers.iter().enumerate() {
        match answer {
            NineAnswer::Solved { values, count } => {
                tally.add_solved(*count, false);
                symbols.extend(out, &piece.values(i));
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
                        let puzzle = Grid::new(bands::nine(), &piece.values(i));
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
            NineAnswer::Usual(usual) => {
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

/// A one-line 9×9 puzzle as a pretty grid whose rows end in `row_end` and rules in `rule_end`, without the
/// blank line after it (for the tests of this and other modules; made independently of [`write_pretty`]).
#[cfg(test)]
pub(crate) fn pretty_of(puzzle: &str, row_end: &str, rule_end: &str) -> String {
    let mut grid = String::new();
    for (r, row) in puzzle.as_bytes().chunks(SIDE).enumerate() {
        if r == 3 || r == 6 {
            grid.push_str(&format!("------+-------+------{rule_end}"));
        }
        let cells: Vec<String> = row.iter().map(|&b| char::from(b).to_string()).collect();
        let boxes: Vec<String> = cells.chunks(3).map(|c| c.join(" ")).collect();
        grid.push_str(&format!("{}{row_end}", boxes.join(" | ")));
    }
    grid
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

    const PLAIN_LINES: NineLayout = NineLayout::Line {
        with_solution: false,
    };

    fn lines(text: &str) -> Result<NinePiece, Vec<u8>> {
        NinePiece::new(
            text.as_bytes().to_vec(),
            10,
            ReadOptions::default(),
            PLAIN_LINES,
        )
    }

    fn blocks(text: &str) -> Result<NinePiece, Vec<u8>> {
        NinePiece::new(
            text.as_bytes().to_vec(),
            10,
            ReadOptions::default(),
            NineLayout::Block,
        )
    }

    /// A one-line puzzle as a block of nine rows ending in `end`, without the blank line after it.
    fn block_of(puzzle: &str, end: &str) -> String {
        (0..SIDE)
            .map(|r| format!("{}{end}", &puzzle[r * SIDE..][..SIDE]))
            .collect()
    }

    #[test]
    fn plain_lines_are_taken_and_anything_else_is_given_back() {
        let two = format!("{PUZZLE}\n{CLASH}\n");
        let taken = lines(&two).expect("two plain lines");
        assert_eq!(taken.len(), 2);
        assert_eq!(taken.values(0)[0], 4);
        assert_eq!(taken.values(0)[1], 0);
        assert!(lines(&format!("{PUZZLE}\r\n{PUZZLE}\r\n")).is_ok());
        assert_eq!(lines(&format!("{PUZZLE}\n")).map(|one| one.len()), Ok(1));
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
            NinePiece::new(
                format!("{PUZZLE}\n{PUZZLE}\n").into_bytes(),
                0,
                hex,
                PLAIN_LINES
            )
            .is_err()
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
    fn plain_blocks_are_taken_and_anything_else_is_given_back() {
        let (one, two) = (block_of(PUZZLE, "\n"), block_of(CLASH, "\n"));
        let taken = blocks(&format!("{one}\n{two}\n")).expect("two plain blocks");
        assert_eq!(taken.len(), 2);
        assert_eq!(
            taken.values(1),
            lines(&format!("{CLASH}\n")).unwrap().values(0)
        );
        assert_eq!((taken.line(0), taken.line(1)), (11, 21));
        // The input's last puzzle needs no blank line after it; CRLF throughout is plain too.
        assert_eq!(blocks(&format!("{one}\n{two}")).unwrap().len(), 2);
        assert_eq!(blocks(&one).unwrap().len(), 1);
        let crlf = block_of(PUZZLE, "\r\n");
        assert_eq!(blocks(&format!("{crlf}\r\n{crlf}")).unwrap().len(), 2);
        let eight_rows: String = one.lines().take(8).map(|row| format!("{row}\n")).collect();
        for other in [
            format!("{one}\n\n{two}"),
            format!("\n{one}"),
            format!("{one}# a comment\n\n{two}"),
            format!("{one}{two}"),
            format!("{one}\n{crlf}"),
            format!("{crlf}\r\n{two}"),
            one.replacen('.', " ", 1),
            one.replacen(".\n", ". \n", 1),
            one.replacen(".\n", "\n.", 1),
            one.replacen('.', "A", 1),
            format!("{one}\n{}", &two[..two.len() - 1]),
            format!("{one} \n{two}"),
            format!("{eight_rows}\n{two}"),
            format!("{eight_rows}\n"),
            String::new(),
        ] {
            assert!(blocks(&other).is_err(), "{other:?} is not plain");
        }
    }

    fn grids(text: &str) -> Result<NinePiece, Vec<u8>> {
        NinePiece::new(
            text.as_bytes().to_vec(),
            10,
            ReadOptions::default(),
            NineLayout::Pretty,
        )
    }

    #[test]
    fn plain_pretty_grids_are_taken_and_anything_else_is_given_back() {
        let (one, two) = (pretty_of(PUZZLE, "\n", "\n"), pretty_of(CLASH, "\n", "\n"));
        let taken = grids(&format!("{one}\n{two}\n")).expect("two plain grids");
        assert_eq!(taken.len(), 2);
        assert_eq!(
            taken.values(0),
            lines(&format!("{PUZZLE}\n")).unwrap().values(0)
        );
        assert_eq!(
            taken.values(1),
            lines(&format!("{CLASH}\n")).unwrap().values(0)
        );
        assert_eq!((taken.line(0), taken.line(1)), (11, 23));
        // After a blank line (where the splitter cuts), without one after the last, with a space at the end of
        // every row (or rule), or with CRLF throughout: plain too.
        let after_blank = grids(&format!("\n{one}\n{two}")).unwrap();
        assert_eq!((after_blank.len(), after_blank.line(1)), (2, 24));
        assert_eq!(after_blank.values(1), taken.values(1));
        assert_eq!(grids(&one).unwrap().len(), 1);
        for (row_end, rule_end) in [(" \n", "\n"), ("\n", " \n"), (" \n", " \n")] {
            let spaced = pretty_of(CLASH, row_end, rule_end);
            let taken = grids(&format!(
                "{}\n{spaced}\n",
                pretty_of(PUZZLE, row_end, rule_end)
            ));
            assert_eq!(
                taken.unwrap().values(1),
                lines(&format!("{CLASH}\n")).unwrap().values(0)
            );
        }
        let crlf = pretty_of(PUZZLE, "\r\n", "\r\n");
        assert_eq!(
            grids(&format!("\r\n{crlf}\r\n{crlf}\r\n")).unwrap().len(),
            2
        );
        for other in [
            format!("{one}\n\n{two}"),
            format!("\n\n{one}"),
            format!("{one}# a comment\n\n{two}"),
            format!("{one}{two}"),
            format!("{one}\n{crlf}"),
            format!("{one}\n{}", pretty_of(CLASH, " \n", "\n")),
            format!("{}\n{one}", pretty_of(CLASH, "\n", " \n")),
            format!("{one}\n{}", &two[..two.len() - 1]),
            one.replacen('.', "A", 1),
            one.replacen(". ", ".  ", 1),
            one.replacen(" | ", " : ", 1),
            one.replacen("------+", "------|", 1),
            one.replacen("\n------+-------+------", "", 1),
            one.replacen("\n", " \n", 1),
            format!("+-------+\n{one}"),
            pretty_of(&PUZZLE[..72], "\n", "\n"),
            String::new(),
            "\n".to_string(),
        ] {
            assert!(grids(&other).is_err(), "{other:?} is not plain");
        }
        let hex = ReadOptions {
            symbols: Symbols::Hex,
            ..ReadOptions::default()
        };
        assert!(NinePiece::new(one.into_bytes(), 0, hex, NineLayout::Pretty).is_err());
    }

    #[test]
    fn a_pretty_grid_read_the_usual_way_is_the_same_record() {
        let open = ".".repeat(CELLS);
        for lead in ["", "\n"] {
            let text = format!(
                "{lead}{}\n{}\n{}\n",
                pretty_of(PUZZLE, "\n", "\n"),
                pretty_of(CLASH, "\n", "\n"),
                pretty_of(&open, "\n", "\n")
            );
            let taken = grids(&text).ok().unwrap();
            let read: Vec<Record> = Reader::resume(
                text.as_bytes(),
                ReadOptions::default(),
                Format::Grid,
                None,
                10,
            )
            .collect();
            let made: Vec<Record> = (0..taken.len()).map(|i| taken.record(i)).collect();
            assert_eq!(made, read, "{lead:?}");
        }
    }

    #[test]
    fn a_block_read_the_usual_way_is_the_same_record() {
        let text = format!(
            "{}\n{}\n{}",
            block_of(PUZZLE, "\n"),
            block_of(CLASH, "\n"),
            block_of(&".".repeat(CELLS), "\n")
        );
        let taken = blocks(&text).ok().unwrap();
        let read: Vec<Record> = Reader::resume(
            text.as_bytes(),
            ReadOptions::default(),
            Format::Block,
            None,
            10,
        )
        .collect();
        let made: Vec<Record> = (0..taken.len()).map(|i| taken.record(i)).collect();
        assert_eq!(made, read);
        assert_eq!(made[2].line, 31);
    }

    #[test]
    fn written_lines_blocks_and_grids_are_what_the_writer_writes() {
        let open = ".".repeat(CELLS);
        let puzzles = [PUZZLE, CLASH, &open];
        let as_lines: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
        let as_blocks: Vec<String> = puzzles.iter().map(|p| block_of(p, "\n")).collect();
        let as_blocks = as_blocks.join("\n");
        let as_grids: Vec<String> = puzzles.iter().map(|p| pretty_of(p, "\n", "\n")).collect();
        let as_grids = as_grids.join("\n");
        for (format, text) in [
            (Format::Line, as_lines),
            (Format::Block, as_blocks),
            (Format::Grid, as_grids),
        ] {
            let layout = match format {
                Format::Line => PLAIN_LINES,
                Format::Block => NineLayout::Block,
                _ => NineLayout::Pretty,
            };
            for mode in [Mode::First, Mode::Count(2)] {
                for symbols in [Symbols::Standard, Symbols::Hex] {
                    let options = ReadOptions::default();
                    let taken = NinePiece::new(text.clone().into_bytes(), 0, options, layout)
                        .ok()
                        .unwrap();
                    let mut solver = Solver::new();
                    let usual: Vec<(Record, Answer)> = (0..taken.len())
                        .map(|i| {
                            let record = taken.record(i);
                            let answer = answer(&record, &mut solver, mode);
                            (record, answer)
                        })
                        .collect();
                    let mut expected = Writer::continuing(Vec::new(), format, symbols);
                    let mut expected_csv = Writer::continuing(Vec::new(), Format::Csv, symbols);
                    let mut expected_tally = Tally::default();
                    for (record, answer) in &usual {
                        let puzzle = record.puzzle.as_ref().ok();
                        expected.write(record.line, puzzle, answer).unwrap();
                        expected_csv.write(record.line, puzzle, answer).unwrap();
                        expected_tally.add(answer);
                    }
                    let short: Vec<NineAnswer> = usual
                        .into_iter()
                        .map(|(record, answer)| NineAnswer::from_answer(record, answer))
                        .collect();
                    // The clashing puzzle stays a usual answer; the others are kept as values.
                    let solved = |a: &NineAnswer| matches!(a, NineAnswer::Solved { .. });
                    assert_eq!(short.iter().filter(|a| solved(a)).count(), 2);
                    let case = format!("{format} {mode:?} {symbols:?}");
                    let mut csv = Vec::new();
                    write_csv_nines(&taken, &short, symbols, &mut csv);
                    let expected_csv = expected_csv.finish().unwrap();
                    assert_eq!(text_of(&csv), text_of(&expected_csv), "{case}");
                    let mut out = Vec::new();
                    let tally = write_nines(short, format, symbols, &mut out);
                    assert_eq!(
                        text_of(&out),
                        text_of(&expected.finish().unwrap()),
                        "{case}"
                    );
                    assert_eq!(tally, expected_tally, "{case}");
                }
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
        assert!(header.into_nine_piece(options).is_err());
        let rows = splitter.next_piece(1 << 20).unwrap();
        let taken = rows.into_nine_piece(options).ok().unwrap();
        let read: Vec<Record> = Reader::new(text.as_bytes(), options).collect();
        let made: Vec<Record> = (0..taken.len()).map(|i| taken.record(i)).collect();
        assert_eq!(made, read);
        assert!(made[0].given_solution.is_some());
        // A row whose solution is not 81 symbols goes the usual way.
        let text = format!("quizzes,solutions\n{PUZZLE},{solution}\n{PUZZLE},12\n");
        let mut splitter = Splitter::new(text.as_bytes(), options);
        let _header = splitter.next_piece(1).unwrap();
        let rows = splitter.next_piece(1 << 20).unwrap();
        assert!(rows.into_nine_piece(options).is_err());
    }

    #[test]
    fn a_splitter_piece_of_plain_lines_blocks_or_grids_becomes_a_nine_piece() {
        let text = format!("{PUZZLE}\n{PUZZLE}\n");
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        let piece = splitter.next_piece(1 << 20).unwrap();
        let taken = piece.into_nine_piece(ReadOptions::default()).ok().unwrap();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken.bytes(), text.len());
        let text = format!("# comment\n{PUZZLE}\n");
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        let piece = splitter.next_piece(1 << 20).unwrap();
        let back = piece.into_nine_piece(ReadOptions::default()).err().unwrap();
        assert_eq!(back.records(ReadOptions::default()).len(), 1);
        // Blocks and pretty grids cut into pieces of about two puzzles: each piece plain, numbered as in the whole
        // input (the splitter cuts grids after a grid's last row, before its blank line).
        let puzzles = [PUZZLE, CLASH, PUZZLE, PUZZLE, CLASH];
        let blocks = puzzles.map(|p| block_of(p, "\n")).join("\n");
        let grids = puzzles.map(|p| pretty_of(p, "\n", "\n") + "\n").concat();
        for (text, format, size) in [(blocks, Format::Block, 150), (grids, Format::Grid, 400)] {
            let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
            assert_eq!(splitter.format(), format);
            let mut made = Vec::new();
            while let Some(piece) = splitter.next_piece(size) {
                let nines = piece.into_nine_piece(ReadOptions::default());
                let nines = nines.ok().expect("plain pieces");
                assert!(nines.len() <= 2, "{format}");
                made.extend((0..nines.len()).map(|i| nines.record(i)));
            }
            let read: Vec<Record> = Reader::new(text.as_bytes(), ReadOptions::default()).collect();
            assert_eq!(made, read, "{format}");
        }
    }
}
