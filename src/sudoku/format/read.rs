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
        let mut rows = Rows::new(self.format, self.options);
        // Every row's cells, one after another (a row that does not fit makes the puzzle an error anyway).
        let mut cells: Vec<u8> = Vec::new();
        let (pretty, symbols) = (self.format == Format::Grid, self.options.symbols);
        loop {
            let Some(line) = self.lines.next_line() else {
                return rows
                    .unfinished()
                    .map(|(start, kind)| record(start, Err(kind), None));
            };
            let row = |row: &[u8]| {
                let before = cells.len();
                if pretty {
                    pretty_row(row, symbols, &mut cells);
                } else {
                    cells.extend_from_slice(row);
                }
                cells.len() - before
            };
            match rows.feed(&line, row) {
                Step::Other | Step::Row(_) => {}
                Step::Last(_) => {
                    let (start, side, error) = rows.take();
                    let puzzle = match error {
                        None => parse_cells(&cells, side, self.options),
                        Some(kind) => Err(kind),
                    };
                    return Some(record(start, puzzle, None));
                }
                Step::Ended => {
                    let (start, kind) = rows.unfinished().expect("an unfinished puzzle ended");
                    return Some(record(start, Err(kind), None));
                }
            }
        }
    }
}

/// What a line was to the block or pretty grid being read.
pub(super) enum Step<C> {
    /// Not a row: a comment, a rule, a blank line between bands, a too-long line (noted as the puzzle's error).
    Other,
    /// A row, and more to come.
    Row(C),
    /// The puzzle's last row.
    Last(C),
    /// A blank line that ends an unfinished puzzle (see [`Rows::unfinished`]).
    Ended,
}

/// Where a block or pretty grid stands while its lines are read. The reader keeps each row's cells beside it;
/// the splitter only needs to know where each puzzle ends, so both go through the same steps.
pub(super) struct Rows {
    pretty: bool,
    shape: Option<BoxShape>,
    /// The line the puzzle starts on.
    start: usize,
    rows: usize,
    side: usize,
    error: Option<ErrorKind>,
}

impl Rows {
    /// Before the first line of a puzzle.
    pub fn new(format: Format, options: ReadOptions) -> Self {
        Self {
            pretty: format == Format::Grid,
            shape: options.shape,
            start: 0,
            rows: 0,
            side: 0,
            error: None,
        }
    }

    /// True between puzzles: a reader starting here reads as one that came through everything before.
    pub fn between_puzzles(&self) -> bool {
        self.rows == 0 && self.error.is_none()
    }

    /// Takes one line; `cells` makes a row's cells from its trimmed bytes (anything with a length: the splitter
    /// counts them only).
    pub fn feed<B: AsRef<[u8]>, C: CellCount>(
        &mut self,
        line: &Line<B>,
        cells: impl FnOnce(&[u8]) -> C,
    ) -> Step<C> {
        if line.is_comment() {
            return Step::Other;
        }
        if line.is_blank() {
            // A blank line ends a block; a pretty grid may have blank lines between its bands. So does any
            // error, even before a first row (a too-long line): a blank line after an error always starts
            // afresh.
            if (self.rows > 0 || self.error.is_some()) && (!self.pretty || self.error.is_some()) {
                return Step::Ended;
            }
            return Step::Other;
        }
        if self.pretty && is_rule(line.trimmed(), (self.side > 0).then_some(self.side)) {
            return Step::Other;
        }
        if line.too_long {
            self.error.get_or_insert(ErrorKind::LineTooLong(MAX_LINE));
            if self.start == 0 {
                self.start = line.number;
            }
            return Step::Other;
        }
        let row = cells(line.trimmed());
        let width = row.cell_count();
        if self.rows == 0 && self.error.is_none() {
            self.start = line.number;
            self.side = width;
            if BoxShape::for_side(width).is_err() && self.shape.is_none_or(|s| s.side() != width) {
                self.error = Some(ErrorKind::Side(width));
            }
        }
        if width != self.side {
            self.error.get_or_insert(ErrorKind::RowWidth {
                row: self.rows + 1,
                at: line.number,
                found: width,
                expected: self.side,
            });
        }
        self.rows += 1;
        if self.side > 0 && self.rows >= self.side {
            Step::Last(row)
        } else {
            Step::Row(row)
        }
    }

    /// After a puzzle's last row: its first line, side and error; the next puzzle starts afresh.
    pub fn take(&mut self) -> (usize, usize, Option<ErrorKind>) {
        let taken = (self.start, self.side, self.error.take());
        self.start = 0;
        self.rows = 0;
        self.side = 0;
        taken
    }

    /// A puzzle that ended early (a blank line, the end of the input): its first line and why it is unreadable,
    /// its first error or the rows it lacks; `None` between puzzles. The next puzzle starts afresh.
    pub fn unfinished(&mut self) -> Option<(usize, ErrorKind)> {
        if self.rows == 0 && self.error.is_none() {
            return None;
        }
        let (rows, side) = (self.rows, self.side);
        let (start, _, error) = self.take();
        Some((
            start,
            error.unwrap_or(ErrorKind::MissingRows {
                found: rows,
                expected: side,
            }),
        ))
    }
}

/// What a row's cells are measured by: the reader keeps them, the splitter counts them.
pub(super) trait CellCount {
    /// How many cells.
    fn cell_count(&self) -> usize;
}

impl CellCount for usize {
    fn cell_count(&self) -> usize {
        *self
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

/// The usual pretty row in one pass: when every token is one symbol (so the row writes no numbers, see
/// [`numeric_row`]), its cells are its tokens, counted (and appended to `cells`, when given); `None`, with nothing
/// appended, when some token is longer.
fn one_symbol_tokens(line: &[u8], mut cells: Option<&mut Vec<u8>>) -> Option<usize> {
    let before = cells.as_ref().map_or(0, |c| c.len());
    let (mut count, mut after_symbol) = (0, false);
    for &b in line {
        let symbol = !is_pretty_separator(b);
        if symbol && after_symbol {
            if let Some(cells) = cells {
                cells.truncate(before);
            }
            return None;
        }
        if symbol {
            count += 1;
            if let Some(cells) = cells.as_deref_mut() {
                cells.push(b);
            }
        }
        after_symbol = symbol;
    }
    Some(count)
}

/// True for what stands between a pretty row's tokens: white space and box separators (`|`, `:`).
fn is_pretty_separator(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b'|' || b == b':'
}

/// A pretty-grid row's tokens: what is left between spaces and box separators (`|`, `:`).
fn pretty_tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> + Clone {
    line.split(|&b| is_pretty_separator(b))
        .filter(|t| !t.is_empty())
}

/// True when a pretty row writes its cells as numbers (`10 . 3 | 16 …`): each token is then one cell.
fn numeric_row<'a>(tokens: impl Iterator<Item = &'a [u8]> + Clone) -> bool {
    tokens.clone().any(|t| t.len() > 1) && tokens.into_iter().all(is_number_or_empty)
}

/// Appends a pretty-grid row to `cells`, one cell character per cell. Box separators (`|`, `:`) and spaces go;
/// when cells are written as numbers (`10 . 3 | 16 …`), each space-separated token is one cell.
fn pretty_row(line: &[u8], symbols: Symbols, cells: &mut Vec<u8>) {
    if one_symbol_tokens(line, Some(cells)).is_some() {
        return;
    }
    let tokens = pretty_tokens(line);
    if !numeric_row(tokens.clone()) {
        cells.extend(tokens.flatten());
        return;
    }
    // Numbers 1..=25 become standard symbols, so the rest of the reader sees one character per cell.
    cells.extend(tokens.map(|t| {
        match std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse::<u8>().ok())
        {
            Some(0) | None => b'.',
            Some(v) if v <= 35 && symbols == Symbols::Standard => Symbols::Standard.write(v),
            Some(_) => b'?',
        }
    }));
}

/// How many cells [`pretty_row`] makes of a line, without making them.
pub(super) fn pretty_row_len(line: &[u8]) -> usize {
    if let Some(cells) = one_symbol_tokens(line, None) {
        return cells;
    }
    let tokens = pretty_tokens(line);
    if numeric_row(tokens.clone()) {
        tokens.count()
    } else {
        tokens.map(<[u8]>::len).sum()
    }
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
    fn a_pretty_rows_length_is_counted_as_its_cells_are_made() {
        let rows = [
            "1 2 3 | 4 5 6 | 7 8 9",
            "10 . 3 16 | . . . . | . . . . | . . . .",
            ". . 1 : 2 3 4",
            "12 x 3 | 4",
            "123|456|789",
            "  | |  ",
            "0 0 10 | 255 999",
        ];
        for row in rows {
            for symbols in [Symbols::Standard, Symbols::Hex] {
                // Appended after what is there already.
                let mut cells = b"ab".to_vec();
                pretty_row(row.as_bytes(), symbols, &mut cells);
                assert_eq!(pretty_row_len(row.as_bytes()), cells.len() - 2, "{row}");
                assert!(cells.starts_with(b"ab"));
            }
        }
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
