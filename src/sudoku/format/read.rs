//! The streaming reader: lines in, one [`Record`] per puzzle out.

use std::io::{self, BufRead};

use super::detect::{self, PUZZLE_COLUMNS, SAMPLE_LINES, SOLUTION_COLUMNS, is_rule, split_fields};
use super::lines::{Line, Lines, MAX_LINE};
use super::{ErrorKind, Format, PuzzleError, ReadOptions, Record};
use crate::sudoku::grid::Grid;
use crate::sudoku::shape::BoxShape;
use crate::sudoku::symbols::Symbols;

/// Reads puzzles one at a time from any buffered input, in the layout asked for or detected.
pub struct Reader<R> {
    lines: Lines<R>,
    options: ReadOptions,
    format: Format,
    /// CSV only: the columns, once the header is read.
    columns: Option<CsvColumns>,
}

/// Where a CSV file keeps its puzzles and solutions, read from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CsvColumns {
    /// The puzzle column; `usize::MAX` when the header has none (nothing after it can be read).
    pub puzzle: usize,
    /// The solution column, if any.
    pub solution: Option<usize>,
}

impl CsvColumns {
    /// The columns a header line names.
    pub fn from_header(header: &[u8]) -> Self {
        let names: Vec<&[u8]> = split_fields(header).collect();
        let find = |wanted: &[&str]| {
            names
                .iter()
                .position(|n| wanted.iter().any(|w| n.eq_ignore_ascii_case(w.as_bytes())))
        };
        Self {
            puzzle: find(&PUZZLE_COLUMNS).unwrap_or(usize::MAX),
            solution: find(&SOLUTION_COLUMNS),
        }
    }
}

impl<R: BufRead> Reader<R> {
    /// A reader over `input`; detects the layout from the first lines unless `options.format` names one.
    pub fn new(input: R, options: ReadOptions) -> Self {
        let mut lines = Lines::new(input);
        let format = options.format.unwrap_or_else(|| {
            let sample: Vec<Vec<u8>> = (0..SAMPLE_LINES)
                .map_while(|i| lines.peek(i).map(|l| l.bytes.clone()))
                .collect();
            detect::detect(sample.iter().map(Vec::as_slice))
        });
        Self {
            lines,
            options,
            format,
            columns: None,
        }
    }

    /// A reader of a piece cut from a file at a record boundary ([`super::Splitter`]): the file's layout, its CSV
    /// columns once its header has been read, and the number of lines before the piece.
    pub(super) fn resume(
        input: R,
        options: ReadOptions,
        format: Format,
        columns: Option<CsvColumns>,
        lines_before: usize,
    ) -> Self {
        Self {
            lines: Lines::after(input, lines_before),
            options,
            format,
            columns,
        }
    }

    /// The layout being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The input, e.g. to feed a source read piece by piece. It must not run dry before its true end: the
    /// reader takes an empty read as the end of the input.
    pub fn get_mut(&mut self) -> &mut R {
        self.lines.get_mut()
    }

    /// The first I/O error, if reading stopped on one (as opposed to the end of the input).
    pub fn take_io_error(&mut self) -> Option<io::Error> {
        self.lines.take_error()
    }

    /// The next content line: blank lines and comments skipped.
    fn next_content(&mut self) -> Option<Line> {
        loop {
            let line = self.lines.next_line()?;
            if !line.is_blank() && !line.is_comment() {
                return Some(line);
            }
        }
    }

    fn read_line_format(&mut self) -> Option<Record> {
        let line = self.next_content()?;
        let field = line
            .trimmed()
            .split(|&b| b.is_ascii_whitespace() || b == b',' || b == b';')
            .next()
            .unwrap_or_default();
        let puzzle = if line.too_long {
            Err(ErrorKind::LineTooLong(MAX_LINE))
        } else {
            parse_one_line(field, self.options)
        };
        Some(record(line.number, puzzle, None))
    }

    fn read_csv(&mut self) -> Option<Record> {
        if self.columns.is_none() {
            let header = self.next_content()?;
            let columns = CsvColumns::from_header(&header.bytes);
            self.columns = Some(columns);
            if columns.puzzle == usize::MAX {
                // Every later row is unreadable too: the header is reported once, and reading stops.
                let kind = ErrorKind::Unrecognised(
                    "a CSV header needs a `quizzes` or `puzzle` column".to_string(),
                );
                return Some(record(header.number, Err(kind), None));
            }
        }
        let CsvColumns {
            puzzle: puzzle_col,
            solution: solution_col,
        } = self.columns.expect("set above");
        if puzzle_col == usize::MAX {
            return None;
        }
        let line = self.next_content()?;
        if line.too_long {
            return Some(record(
                line.number,
                Err(ErrorKind::LineTooLong(MAX_LINE)),
                None,
            ));
        }
        let fields: Vec<&[u8]> = split_fields(&line.bytes).collect();
        let name = PUZZLE_COLUMNS[0].to_string();
        let puzzle = fields
            .get(puzzle_col)
            .ok_or(ErrorKind::MissingField(name))
            .and_then(|f| parse_one_line(f, self.options));
        let solution = match solution_col
            .and_then(|c| fields.get(c))
            .filter(|f| !f.is_empty())
        {
            Some(f) => match parse_one_line(f, self.options) {
                Ok(grid) => Some(grid),
                Err(e) => {
                    return Some(record(
                        line.number,
                        Err(ErrorKind::BadSolution(Box::new(e))),
                        None,
                    ));
                }
            },
            None => None,
        };
        Some(record(line.number, puzzle, solution))
    }

    /// Block and pretty-grid layouts: rows of one puzzle until N rows (N = the first row's width).
    fn read_rows(&mut self) -> Option<Record> {
        let pretty = self.format == Format::Grid;
        let mut start = 0;
        let mut rows: Vec<Vec<u8>> = Vec::new();
        let mut side = 0;
        let mut error: Option<ErrorKind> = None;
        // What an unfinished puzzle reports: its first error, or the rows it lacks.
        let unfinished = |error: Option<ErrorKind>, found: usize, expected: usize| {
            error.unwrap_or(ErrorKind::MissingRows { found, expected })
        };
        loop {
            let Some(line) = self.lines.next_line() else {
                if rows.is_empty() && error.is_none() {
                    return None;
                }
                return Some(record(
                    start,
                    Err(unfinished(error, rows.len(), side)),
                    None,
                ));
            };
            if line.is_comment() {
                continue;
            }
            if line.is_blank() {
                // A blank line ends a block; a pretty grid may have blank lines between its bands.
                // So does any error, even before a first row (a too-long line): a blank line after an error always
                // starts afresh, which lets a block file be cut into pieces at its blank lines.
                if (!rows.is_empty() || error.is_some()) && (!pretty || error.is_some()) {
                    return Some(record(
                        start,
                        Err(unfinished(error, rows.len(), side)),
                        None,
                    ));
                }
                continue;
            }
            if pretty && is_rule(line.trimmed(), (side > 0).then_some(side)) {
                continue;
            }
            if line.too_long {
                error.get_or_insert(ErrorKind::LineTooLong(MAX_LINE));
                start = if start == 0 { line.number } else { start };
                continue;
            }
            let cells = if pretty {
                pretty_row(line.trimmed(), self.options.symbols)
            } else {
                line.trimmed().to_vec()
            };
            if rows.is_empty() && error.is_none() {
                start = line.number;
                side = cells.len();
                if BoxShape::for_side(side).is_err()
                    && self.options.shape.is_none_or(|s| s.side() != side)
                {
                    error = Some(ErrorKind::Side(side));
                }
            }
            if cells.len() != side {
                error.get_or_insert(ErrorKind::RowWidth {
                    row: rows.len() + 1,
                    at: line.number,
                    found: cells.len(),
                    expected: side,
                });
            }
            rows.push(cells);
            if side > 0 && rows.len() >= side {
                let puzzle = match error {
                    None => parse_cells(&rows.concat(), side, self.options),
                    Some(kind) => Err(kind),
                };
                return Some(record(start, puzzle, None));
            }
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        match self.format {
            Format::Line => self.read_line_format(),
            Format::Csv => self.read_csv(),
            Format::Block | Format::Grid => self.read_rows(),
        }
    }
}

fn record(line: usize, puzzle: Result<Grid, ErrorKind>, given_solution: Option<Grid>) -> Record {
    Record {
        line,
        puzzle: puzzle.map_err(|kind| PuzzleError { line, kind }),
        given_solution: given_solution.map(Box::new),
    }
}

/// Reads N² cell characters as one puzzle.
fn parse_one_line(field: &[u8], options: ReadOptions) -> Result<Grid, ErrorKind> {
    let cells = field.len();
    let side = cells.isqrt();
    if side * side != cells
        || BoxShape::for_side(side).is_err() && options.shape.is_none_or(|s| s.side() != side)
    {
        return Err(ErrorKind::Length(cells));
    }
    parse_cells(field, side, options)
}

/// Reads `side²` cell characters into a grid of the asked or usual box shape.
fn parse_cells(chars: &[u8], side: usize, options: ReadOptions) -> Result<Grid, ErrorKind> {
    let shape = match options.shape {
        Some(shape) if shape.side() == side => shape,
        Some(shape) => return Err(ErrorKind::ShapeMismatch { side, shape }),
        None => BoxShape::for_side(side).map_err(|_| ErrorKind::Length(chars.len()))?,
    };
    if !options.symbols.fits(side) {
        return Err(ErrorKind::SymbolsTooSmall {
            side,
            symbols: "hex",
        });
    }
    // On the stack up to 9×9: a file's every record passes here. Every cell through one table, then one check
    // for all of them without an early exit (so it is done many cells at a time); the bad cell is looked for
    // only when there is one.
    let table = options.symbols.values();
    let mut values: smallvec::SmallVec<[u8; 81]> = smallvec::smallvec![0; chars.len()];
    for (value, &byte) in values.iter_mut().zip(chars) {
        *value = table[usize::from(byte)];
    }
    let bad = values
        .iter()
        .fold(false, |bad, &v| bad | (usize::from(v) > side));
    if bad {
        let i = values
            .iter()
            .position(|&v| usize::from(v) > side)
            .expect("a bad cell");
        return Err(ErrorKind::BadSymbol {
            row: i / side + 1,
            col: i % side + 1,
            found: describe_byte(chars[i]),
            side,
            alphabet: alphabet(options.symbols, side),
        });
    }
    Ok(Grid::new(shape, &values).expect("length and values checked"))
}

/// A pretty-grid row as one cell character per cell. Box separators (`|`, `:`) and spaces go; when cells are
/// written as numbers (`10 . 3 | 16 …`), each space-separated token is one cell.
fn pretty_row(line: &[u8], symbols: Symbols) -> Vec<u8> {
    let spaced: Vec<u8> = line
        .iter()
        .map(|&b| if b == b'|' || b == b':' { b' ' } else { b })
        .collect();
    let tokens: Vec<&[u8]> = spaced
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    let numeric =
        tokens.iter().any(|t| t.len() > 1) && tokens.iter().all(|t| is_number_or_empty(t));
    if !numeric {
        return tokens.concat();
    }
    // Numbers 1..=25 become standard symbols, so the rest of the reader sees one character per cell.
    tokens
        .iter()
        .map(|t| {
            match std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<u8>().ok())
            {
                Some(0) | None => b'.',
                Some(v) if v <= 35 && symbols == Symbols::Standard => Symbols::Standard.write(v),
                Some(_) => b'?',
            }
        })
        .collect()
}

fn is_number_or_empty(token: &[u8]) -> bool {
    token.iter().all(u8::is_ascii_digit)
        || (token.len() == 1 && crate::sudoku::symbols::is_empty_marker(token[0]))
}

fn describe_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() || byte == b' ' {
        format!("'{}'", char::from(byte))
    } else {
        format!("byte 0x{byte:02X}")
    }
}

fn alphabet(symbols: Symbols, side: usize) -> String {
    let last = char::from(symbols.write(side as u8));
    let first = char::from(symbols.write(1));
    let empties = match symbols {
        Symbols::Standard => ". 0 _ - *",
        Symbols::Hex => ". _ - *",
    };
    format!("{first}-{last} and {empties} for empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Record> {
        Reader::new(text.as_bytes(), ReadOptions::default()).collect()
    }

    fn errors(text: &str) -> Vec<String> {
        read(text)
            .into_iter()
            .filter_map(|r| r.puzzle.err().map(|e| e.to_string()))
            .collect()
    }

    const HARD: &str =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    #[test]
    fn reads_every_layout_to_the_same_grid() {
        let line = read(HARD);
        let expect = line[0].puzzle.clone().unwrap();
        let block: String = HARD
            .as_bytes()
            .chunks(9)
            .map(|r| String::from_utf8(r.to_vec()).unwrap().replace('.', "0") + "\n")
            .collect();
        assert_eq!(read(&block)[0].puzzle, Ok(expect.clone()));
        let mut pretty = String::new();
        for (r, row) in HARD.as_bytes().chunks(9).enumerate() {
            if r % 3 == 0 && r > 0 {
                pretty.push_str("------+-------+------\n");
            }
            for (c, &b) in row.iter().enumerate() {
                if c % 3 == 0 && c > 0 {
                    pretty.push_str("| ");
                }
                pretty.push(char::from(b));
                pretty.push(' ');
            }
            pretty.push('\n');
        }
        assert_eq!(read(&pretty)[0].puzzle, Ok(expect.clone()));
        let csv = format!("quizzes,solutions\n{},\n", HARD.replace('.', "0"));
        assert_eq!(read(&csv)[0].puzzle, Ok(expect));
    }

    #[test]
    fn each_bad_puzzle_names_its_line_and_the_rest_are_read() {
        let text = format!(
            "# comment\n{HARD}\n{}\n{}x\n{}",
            &HARD[..80],
            &HARD[..80],
            HARD
        );
        let records = read(&text);
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].line, 2);
        assert!(records[0].puzzle.is_ok() && records[3].puzzle.is_ok());
        assert_eq!(
            records[1].puzzle.as_ref().unwrap_err().to_string(),
            "line 3: 80 cells is not a supported size (16, 36, 64, 81, 100, 144, 196, 225, 256, 324, 400, 441, 484, 576 or 625)"
        );
        assert_eq!(
            records[2].puzzle.as_ref().unwrap_err().to_string(),
            "line 4: bad symbol 'x' at row 9 column 9 (a 9×9 grid uses 1-9 and . 0 _ - * for empty)"
        );
    }

    #[test]
    fn block_rows_of_the_wrong_width_are_reported_and_skipped() {
        let text = "123\n\n1234\n3412\n214\n4321\n\n1234\n3412\n2143\n4321\n";
        let records = read(text);
        assert_eq!(records.len(), 3, "{records:?}");
        assert!(records[0].puzzle.is_err());
        assert_eq!(
            records[1].puzzle.as_ref().unwrap_err().to_string(),
            "line 3: row 3 (line 5) has 3 cells, expected 4"
        );
        assert!(records[2].puzzle.is_ok());
        assert_eq!(records[2].line, 8);
    }

    #[test]
    fn truncated_blocks_say_how_many_rows_came() {
        let errs = errors("1234\n3412\n\n");
        assert_eq!(errs, ["line 1: only 2 of 4 rows before the puzzle ended"]);
    }

    #[test]
    fn hex_and_numeric_pretty_grids() {
        let hex = "0123456789ABCDEF".repeat(16);
        let opts = ReadOptions {
            symbols: Symbols::Hex,
            ..ReadOptions::default()
        };
        let grid = Reader::new(hex.as_bytes(), opts)
            .next()
            .unwrap()
            .puzzle
            .unwrap();
        assert_eq!(grid.get(0, 0), 1);
        assert_eq!(grid.get(0, 15), 16);
        let numeric = "10 . 3 16 | . . . . | . . . . | . . . .\n".repeat(16);
        let grid = read(&numeric)[0].puzzle.clone().unwrap();
        assert_eq!((grid.side(), grid.get(0, 0), grid.get(0, 3)), (16, 10, 16));
    }

    #[test]
    fn explicit_box_shapes_apply_and_are_checked() {
        let opts = ReadOptions {
            shape: Some("4x3".parse().unwrap()),
            ..ReadOptions::default()
        };
        let twelve = ".".repeat(144);
        let grid = Reader::new(twelve.as_bytes(), opts)
            .next()
            .unwrap()
            .puzzle
            .unwrap();
        assert_eq!(grid.shape().to_string(), "4x3");
        let err = Reader::new(HARD.as_bytes(), opts)
            .next()
            .unwrap()
            .puzzle
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: a 9×9 puzzle cannot have 4x3 boxes"
        );
    }

    #[test]
    fn csv_carries_given_solutions_and_reports_missing_fields() {
        let text = "id,quizzes,solutions\n1,1...............,1234341221434321\n2\n";
        let records = read(text);
        assert_eq!(
            records[0].given_solution.as_ref().unwrap().to_string(),
            "1234341221434321"
        );
        assert_eq!(
            records[1].puzzle.as_ref().unwrap_err().to_string(),
            "line 3: no `quizzes` field in this CSV row"
        );
        assert_eq!(
            errors("1234\n123\n"),
            ["line 1: row 2 (line 2) has 3 cells, expected 4"]
        );
        assert_eq!(
            errors("1 2 3 4 5 6 7\n"),
            [
                "line 1: a row of 7 cells is no supported grid side (4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20, 21, 22, 24 or 25)"
            ]
        );
    }
}
