//! Cutting an input into pieces of whole records ([`Piece`]), so that many threads can read one file.
//!
//! The [`Splitter`] reads raw bytes and cuts them where a fresh [`Reader`] would start in the same state as
//! one that had read everything before: after any line for one-puzzle-per-line files and CSV (once the header is
//! known), after a blank line for blocks, and after a puzzle's last row for pretty grids (whose puzzles may hold
//! blank lines between their bands; the rows are counted through the reader's own steps, [`Rows`], without
//! making the cells). It only looks for line ends and counts rows, so it runs on one thread while the pieces are
//! parsed on every core. Block files without blank lines (and pretty grids with no end of a puzzle for
//! megabytes) are read by one [`Reader`] here instead, piece by piece.
//!
//! An input may pause (a terminal, a pipe from a slow producer): a source that says so with a read error of kind
//! [`io::ErrorKind::WouldBlock`] gets every whole record read so far as a piece at once ([`Splitter::idle`]),
//! and its layout decided from its first lines where they already settle it ([`super::detect::decided_early`]),
//! so that each puzzle can be answered as it comes.

use std::io::{self, BufReader, Chain, Cursor, Read};
use std::mem;

use super::detect::SAMPLE_LINES;
use super::lines::Line;
use super::lines::MAX_LINE;
use super::nine_piece::{PRETTY_LINES, PrettyGrids};
use super::piece::{Body, Piece};
use super::read::{CsvColumns, Rows, Step, pretty_row_len};
use super::{Format, ReadOptions, Reader};

/// The most bytes asked of the input at a time.
const READ_SIZE: usize = 1 << 20;
/// The fewest: beyond a piece's size, enough to reach the end of the line that ends it.
const READ_MIN: usize = 16 << 10;

/// The reader behind records read on the splitter's own thread: what was already taken from the input first.
type Sequential<R> = Reader<BufReader<Counting<Chain<Cursor<Vec<u8>>, R>>>>;

/// Where the splitter takes its bytes from.
enum Source<R> {
    /// The input itself, cut into text pieces.
    Raw(R),
    /// One reader over the rest of the input.
    Sequential(Box<Sequential<R>>),
    /// Between the two, for a moment.
    Moving,
}

/// Cuts an input into [`Piece`]s at record boundaries; see the module documentation.
pub struct Splitter<R> {
    source: Source<R>,
    options: ReadOptions,
    format: Format,
    /// CSV: the columns, once the header has gone into a piece.
    columns: Option<CsvColumns>,
    /// Lines of the input before `pending`.
    lines_before: usize,
    /// Bytes read and not yet in a piece.
    pending: Vec<u8>,
    /// Where the last, unfinished line of `pending` starts.
    line_start: usize,
    /// Dropping the rest of a line too long to keep (it is reported as too long all the same).
    skipping: bool,
    /// Pretty grids: where the rows of the puzzle being scanned stand, and how far `pending` was scanned (bytes,
    /// lines). A grid's puzzle may hold blank lines between its bands, so its ends are found by counting rows.
    rows: Rows,
    scanned: usize,
    scanned_lines: usize,
    /// Pretty grids: the plain 9×9 grids stepped over whole.
    pretty: PrettyGrids,
    /// The input has ended (or failed).
    ended: bool,
    /// The last read found the input paused (`WouldBlock`): pieces are cut from what is whole.
    idle: bool,
    error: Option<io::Error>,
    /// Bytes handed out in pieces or skipped so far (of what is kept: a too-long line counts its kept part).
    position: u64,
    /// A shard's end: no piece starts at or after this byte ([`Splitter::restrict`]).
    end: Option<u64>,
}

impl<R: Read> Splitter<R> {
    /// A splitter of `input`, with its layout detected from the first lines unless `options` names one.
    pub fn new(input: R, options: ReadOptions) -> Self {
        let mut splitter = Self {
            source: Source::Raw(input),
            options,
            format: Format::Line,
            columns: None,
            lines_before: 0,
            pending: Vec::new(),
            line_start: 0,
            skipping: false,
            rows: Rows::new(Format::Grid, options),
            scanned: 0,
            scanned_lines: 0,
            pretty: PrettyGrids::default(),
            ended: false,
            idle: false,
            error: None,
            position: 0,
            end: None,
        };
        // Enough lines for detection, exactly as a reader of the whole input would see them; or, when the input
        // pauses, as many as settle it.
        while !splitter.ended
            && count_lines(&splitter.pending) < SAMPLE_LINES
            && splitter.pending.len() < SAMPLE_LINES * (MAX_LINE + 2)
            && !(splitter.idle && splitter.decided_early(options))
        {
            splitter.read_more(READ_MIN);
        }
        splitter.format = Reader::new(&splitter.pending[..], options).format();
        splitter
    }

    /// The layout being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether the input paused at the last read (a read error of kind `WouldBlock`): the last piece held what
    /// was whole, and a caller gathering pieces should not wait for more before using them.
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// Whether the whole lines read so far settle the layout (`options` naming one, or
    /// [`super::detect::decided_early`]).
    fn decided_early(&self, options: ReadOptions) -> bool {
        let whole = &self.pending[..self.line_start];
        options.format.is_some()
            || super::detect::decided_early(
                whole
                    .split(|&b| b == b'\n')
                    .map(|l| l.strip_suffix(b"\r").unwrap_or(l)),
            )
    }

    /// The input, e.g. to feed a source read a piece at a time. It must not run dry before its true end: an
    /// empty read is taken as the end.
    pub fn get_mut(&mut self) -> &mut R {
        match &mut self.source {
            Source::Raw(input) => input,
            Source::Sequential(reader) => reader.get_mut().get_mut().inner.get_mut().1,
            Source::Moving => unreachable!("the source is only moving inside go_sequential"),
        }
    }

    /// The first I/O error, if reading stopped on one. Everything before its last whole line was handed out.
    pub fn take_io_error(&mut self) -> Option<io::Error> {
        match &mut self.source {
            Source::Sequential(reader) => reader.take_io_error().or(self.error.take()),
            _ => self.error.take(),
        }
    }

    /// The next piece of about `size` bytes (more when a record needs it), or `None` at the end.
    pub fn next_piece(&mut self, size: usize) -> Option<Piece> {
        let size = match self.end {
            Some(end) if self.position >= end => return None,
            Some(end) => size.min((end - self.position) as usize),
            None => size,
        };
        let piece = self.piece(size)?;
        self.position += piece.bytes as u64;
        Some(piece)
    }

    /// Keeps only a shard of the input: its records from the first record boundary at or after byte `start`
    /// to the first at or after byte `end` ([`crate::shard::Shard::byte_range`]). A boundary is where a piece
    /// may end, found the same way from any piece start, so neighbouring shards meet exactly. The records before
    /// are skipped unread, a megabyte at a time. True when none came before: the shard's output then opens the
    /// whole output (a CSV header, no separator before its first record).
    pub fn restrict(&mut self, start: u64, end: u64) -> bool {
        self.end = Some(start);
        let mut opens = true;
        while let Some(piece) = self.next_piece(READ_SIZE) {
            opens = opens && !piece.has_records(self.options);
        }
        self.end = Some(end);
        opens
    }

    fn piece(&mut self, size: usize) -> Option<Piece> {
        if let Source::Sequential(reader) = &mut self.source {
            return sequential_piece(reader, size);
        }
        let size = size.max(1);
        loop {
            if let Some(cut) = self.cut(size) {
                return Some(self.text_piece(cut));
            }
            if self.ended {
                return None;
            }
            // The input paused: what is whole goes now.
            if self.idle
                && let Some(cut) = self.idle_cut()
            {
                return Some(self.text_piece(cut));
            }
            // A block file without a blank line this far (or a pretty grid without an end of a puzzle): its
            // records are only found by reading them. Not in a shard, whose ends must be found from any start.
            if self.pending.len() > 4 * size.max(READ_SIZE) {
                if self.end.is_some() {
                    self.error = Some(io::Error::other(format!(
                        "a shard needs record boundaries (blank lines between blocks, or ends of grids) at least \
                         every {} MiB; none follows line {}: solve this file unsharded",
                        (4 * size.max(READ_SIZE)) >> 20,
                        self.lines_before + 1
                    )));
                    self.ended = true;
                    return None;
                }
                self.go_sequential();
                return self.piece(size);
            }
            // Up to the size asked, and a little more for the line that ends the piece.
            self.read_more(size.saturating_sub(self.pending.len()) + READ_MIN);
        }
    }

    /// Where a piece of at least `size` bytes may end: after the first line from there that a fresh reader can
    /// start after. At the end of the input, the rest is one piece.
    fn cut(&mut self, size: usize) -> Option<usize> {
        let from = size - 1;
        let whole = self.line_start;
        let found = if from >= whole {
            None
        } else {
            match self.format {
                Format::Line | Format::Csv => self.pending[from..whole]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map(|i| from + i + 1),
                Format::Grid => self.scan_grid(size),
                _ => {
                    // From the start of the line holding `from`, the end of the first blank line (a too-long
                    // line of spaces is no blank line).
                    let line_begin = self.pending[..from]
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1);
                    let mut end = line_begin;
                    self.pending[line_begin..whole]
                        .split_inclusive(|&b| b == b'\n')
                        .find_map(|line| {
                            end += line.len();
                            let blank = line.len() <= MAX_LINE + 1
                                && line.iter().all(u8::is_ascii_whitespace);
                            blank.then_some(end)
                        })
                }
            }
        };
        found.or_else(|| (self.ended && !self.pending.is_empty()).then_some(self.pending.len()))
    }

    /// Where a piece of every whole record read so far ends, if one does: at the last line end (lines, CSV), after
    /// the last blank line (blocks), or after the last whole line where that ends a grid (pretty grids: the scan
    /// must stand between puzzles where the piece is cut, as [`Self::scan_grid`] leaves it).
    fn idle_cut(&mut self) -> Option<usize> {
        let whole = self.line_start;
        let cut = match self.format {
            Format::Line | Format::Csv => whole,
            Format::Grid => {
                self.scan_grid(usize::MAX);
                if self.rows.between_puzzles() {
                    self.scanned
                } else {
                    0
                }
            }
            _ => {
                let mut end = 0;
                let mut last = 0;
                for line in self.pending[..whole].split_inclusive(|&b| b == b'\n') {
                    end += line.len();
                    if line.len() <= MAX_LINE + 1 && line.iter().all(u8::is_ascii_whitespace) {
                        last = end;
                    }
                }
                last
            }
        };
        (cut > 0).then_some(cut)
    }

    /// Pretty grids: the first end of a puzzle at or after `size` bytes, scanning on from where the last call
    /// stopped, through whole lines only.
    fn scan_grid(&mut self, size: usize) -> Option<usize> {
        loop {
            let lines = &self.pending[self.scanned..self.line_start];
            // Between puzzles, a blank line leaves a reader there, and a plain 9×9 grid's eleven lines take it
            // from there to between puzzles again whatever came before: both are stepped over at once, and a
            // piece may end after them as after the same lines read one by one (the cuts are the same).
            if self.rows.between_puzzles() {
                let step = match lines {
                    [b'\n', ..] => Some((1, 1)),
                    [b'\r', b'\n', ..] => Some((2, 1)),
                    _ => self.pretty.at_start(lines).map(|grid| (grid, PRETTY_LINES)),
                };
                if let Some((bytes, lines)) = step {
                    self.scanned += bytes;
                    self.scanned_lines += lines;
                    if self.scanned >= size {
                        return Some(self.scanned);
                    }
                    continue;
                }
            }
            let end = lines.iter().position(|&b| b == b'\n')?;
            let number = self.lines_before + self.scanned_lines + 1;
            let line = Line::from_raw(&self.pending[self.scanned..self.scanned + end], number);
            match self.rows.feed(&line, pretty_row_len) {
                Step::Last(_) => drop(self.rows.take()),
                Step::Ended => drop(self.rows.unfinished()),
                Step::Other | Step::Row(_) => {}
            }
            self.scanned += end + 1;
            self.scanned_lines += 1;
            if self.scanned >= size && self.rows.between_puzzles() {
                return Some(self.scanned);
            }
        }
    }

    /// Takes `pending[..cut]` as a text piece: the bytes stay where they were read, only the few after the cut
    /// move.
    fn text_piece(&mut self, cut: usize) -> Piece {
        // A grid's scan stopped at the cut, or the cut takes everything: the next piece is scanned from its start.
        self.scanned = 0;
        self.scanned_lines = 0;
        let rest = self.pending.split_off(cut);
        let text = mem::replace(&mut self.pending, rest);
        self.line_start = self.line_start.saturating_sub(cut);
        let columns = self.columns;
        if self.format == Format::Csv && self.columns.is_none() {
            // The first content line of the file is the header; later pieces are read with its columns. Its lines
            // are numbered as the reader numbers them, so that a BOM is dropped only at the file's start (a piece
            // may begin with blank lines, the header after them).
            let mut lines = super::lines::Lines::after(&text[..], self.lines_before);
            while let Some(line) = lines.next_line() {
                if !line.is_blank() && !line.is_comment() {
                    self.columns = Some(CsvColumns::from_header(&line.bytes));
                    break;
                }
            }
        }
        let lines_before = self.lines_before;
        self.lines_before += count_lines(&text);
        Piece {
            bytes: text.len(),
            body: Body::Text {
                text,
                format: self.format,
                columns,
                lines_before,
            },
        }
    }

    /// Appends about `want` more bytes of the input to `pending` (straight into it), keeping at most
    /// `MAX_LINE + 1` bytes of any line (a reader reports such a line as too long from those alone).
    fn read_more(&mut self, want: usize) {
        let Source::Raw(input) = &mut self.source else {
            return;
        };
        let old = self.pending.len();
        let ask = want.clamp(READ_MIN, READ_SIZE) as u64;
        // Room first: `read_to_end` would otherwise grow the buffer from a few bytes by doubling, copying what
        // it read so far at every step (twice the bytes moved, measured: the splitter at half `read`'s speed).
        self.pending.reserve(ask as usize);
        self.idle = false;
        match input.by_ref().take(ask).read_to_end(&mut self.pending) {
            Ok(0) => {
                self.ended = true;
                return;
            }
            Ok(_) => {}
            // A pause: the bytes before it are kept (`read_to_end` appends them).
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.idle = true,
            Err(e) => {
                // What came before the unfinished line is read; the unfinished line is lost, as it would be
                // for a reader of the whole input.
                // (Bytes may have come before the error: their whole lines count.)
                let whole = self.pending[old..].iter().rposition(|&b| b == b'\n');
                let keep = if self.skipping {
                    old
                } else {
                    whole.map_or(self.line_start, |i| old + i + 1)
                };
                self.pending.truncate(keep);
                self.error = Some(e);
                self.ended = true;
                return;
            }
        }
        if self.skipping {
            // The rest of a too-long line goes, up to its line end, which stays.
            let Some(end) = self.pending[old..].iter().position(|&b| b == b'\n') else {
                self.pending.truncate(old);
                return;
            };
            self.pending.drain(old..old + end);
            self.skipping = false;
        }
        if let Some(last) = self.pending[old..].iter().rposition(|&b| b == b'\n') {
            self.line_start = old + last + 1;
        }
        if self.pending.len() - self.line_start > MAX_LINE + 1 {
            self.pending.truncate(self.line_start + MAX_LINE + 1);
            self.skipping = true;
        }
    }

    /// From here on, records are read by one reader on this thread, starting with what is pending.
    fn go_sequential(&mut self) {
        let Source::Raw(input) = mem::replace(&mut self.source, Source::Moving) else {
            unreachable!("only raw input goes sequential");
        };
        let pending = mem::take(&mut self.pending);
        let rest = Counting {
            inner: Cursor::new(pending).chain(input),
            count: 0,
        };
        let reader = Reader::resume(
            BufReader::with_capacity(1 << 16, rest),
            self.options,
            self.format,
            self.columns,
            self.lines_before,
        );
        self.source = Source::Sequential(Box::new(reader));
    }
}

/// Records read by the sequential reader until about `size` more bytes of the input are behind it.
fn sequential_piece<R: Read>(reader: &mut Sequential<R>, size: usize) -> Option<Piece> {
    let start = reader.get_mut().get_ref().count;
    let mut records = Vec::new();
    while reader.get_mut().get_ref().count - start < size as u64 {
        match reader.next() {
            Some(record) => records.push(record),
            None => break,
        }
    }
    let bytes = (reader.get_mut().get_ref().count - start) as usize;
    (!records.is_empty()).then_some(Piece {
        body: Body::Records(records),
        bytes,
    })
}

/// A reader that counts the bytes taken from it.
struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // The sequential reader takes records one by one anyway: a pause in the input is waited out here.
        let n = loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                read => break read?,
            }
        };
        self.count += n as u64;
        Ok(n)
    }
}

/// Line ends in `bytes`. Counted in runs of 255 bytes into a byte-sized sum, which cannot overflow there and
/// lets the compiler add 32 or 64 compares at once (a plain `filter().count()` widens every compare to 64 bits).
fn count_lines(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|run| {
            let ends: u8 = run.iter().map(|&b| u8::from(b == b'\n')).sum();
            usize::from(ends)
        })
        .sum()
}

/// Reads `input` the way [`Splitter`] pieces are read, for tests.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::format::Record;

    fn split_all(input: &[u8], options: ReadOptions, size: usize) -> Vec<Record> {
        let mut splitter = Splitter::new(input, options);
        std::iter::from_fn(|| splitter.next_piece(size))
            .flat_map(|piece| piece.records(options))
            .collect()
    }

    fn whole(input: &[u8]) -> Vec<Record> {
        Reader::new(input, ReadOptions::default()).collect()
    }

    const HARD: &str =
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

    fn layouts() -> Vec<(&'static str, String)> {
        let line = format!(
            "# a comment\n{HARD}\n\r\n{}\n{HARD}x\n{HARD}\r\n",
            &HARD[..70]
        )
        .repeat(40);
        let csv = format!(
            "quizzes,solutions\n{}",
            format!("{HARD},\n{},\n", &HARD[..80]).repeat(60)
        );
        let block: String = (0..50)
            .map(|i| {
                let rows: Vec<&str> = (0..9).map(|r| &HARD[r * 9..r * 9 + 9]).collect();
                let rows = if i % 7 == 3 { &rows[..5] } else { &rows[..] };
                rows.join("\n") + "\n\n"
            })
            .collect();
        let mut grid = String::new();
        for _ in 0..30 {
            for (r, row) in HARD.as_bytes().chunks(9).enumerate() {
                if r % 3 == 0 && r > 0 {
                    grid.push('\n');
                }
                let cells: Vec<String> = row.iter().map(|&b| char::from(b).to_string()).collect();
                grid.push_str(&format!(
                    "{} | {} | {}\n",
                    cells[..3].join(" "),
                    cells[3..6].join(" "),
                    cells[6..].join(" ")
                ));
            }
            grid.push('\n');
        }
        // Pretty grids as this program writes them (stepped over whole by the splitter) among others that are
        // read line by line: a letter, a comment, CRLF with spaces at the rows' ends, a 4×4, a grid cut short so
        // that the next rows are counted into it (and every plain grid after it is met in the middle of a
        // puzzle), and clashing givens.
        let plain = |puzzle: &str, end: &str| {
            super::super::nine_piece::pretty_of(puzzle, end, end.strip_prefix(' ').unwrap_or(end))
        };
        let pretty: String = (0..48)
            .map(|i| match i % 12 {
                4 => plain(&format!("{}A{}", &HARD[..5], &HARD[6..]), "\n") + "\n",
                5 => format!("# a comment\n{}\n", plain(HARD, "\n")),
                6 => plain(HARD, " \r\n") + "\r\n",
                7 => "1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n\n".to_string(),
                9 if i < 24 => {
                    plain(HARD, "\n")
                        .lines()
                        .take(6)
                        .collect::<Vec<_>>()
                        .join("\n")
                        + "\n\n"
                }
                10 => plain(&format!("44{}", &HARD[2..]), "\n") + "\n",
                _ => plain(HARD, "\n") + "\n",
            })
            .collect();
        vec![
            ("line", line),
            ("csv", csv),
            ("block", block),
            ("grid", grid),
            ("pretty", pretty),
        ]
    }

    #[test]
    fn pieces_read_exactly_like_the_whole_input_in_every_layout() {
        for (name, text) in layouts() {
            let expect = whole(text.as_bytes());
            assert!(expect.len() >= 30, "{name}: {}", expect.len());
            for size in [1, 7, 100, 1000, 1 << 20] {
                let got = split_all(text.as_bytes(), ReadOptions::default(), size);
                assert_eq!(got, expect, "{name} in pieces of {size} bytes");
            }
        }
    }

    #[test]
    fn a_csv_header_after_blank_lines_keeps_its_bom_in_pieces_as_in_the_whole() {
        // A BOM is dropped only at the file's start: here the header, after a blank line, keeps it, names no
        // column the reader knows, and ends the reading, in pieces (of one byte: the blank line alone) as
        // whole. Found by `tests/parser_properties.rs`.
        let options = ReadOptions {
            format: Some(Format::Csv),
            ..ReadOptions::default()
        };
        let text = format!("\r\n\u{FEFF}quizzes,solutions\n{HARD}\n");
        let expect = Reader::new(text.as_bytes(), options).collect::<Vec<_>>();
        assert_eq!(expect.len(), 1, "{expect:?}");
        for size in [1, 7, 1 << 20] {
            assert_eq!(split_all(text.as_bytes(), options, size), expect, "{size}");
        }
        // At the file's start the BOM goes, and the rows are read.
        let text = format!("\u{FEFF}quizzes,solutions\n{HARD}\n");
        for size in [1, 7, 1 << 20] {
            let got = split_all(text.as_bytes(), options, size);
            assert_eq!(
                got,
                Reader::new(text.as_bytes(), options).collect::<Vec<_>>(),
                "{size}"
            );
            assert!(got[0].puzzle.is_ok(), "{got:?}");
        }
    }

    #[test]
    fn pieces_sent_as_bytes_read_back_as_the_same_records() {
        let options = ReadOptions::default();
        for (name, text) in layouts() {
            for size in [1, 100, 1 << 20] {
                let mut splitter = Splitter::new(text.as_bytes(), options);
                let mut got = Vec::new();
                while let Some(piece) = splitter.next_piece(size) {
                    let here = piece.records_here(options);
                    let mut wire = Vec::new();
                    piece
                        .to_wire(&mut wire)
                        .expect("text pieces go on the wire");
                    let back = Piece::from_wire(wire).expect("the wire form reads back");
                    assert_eq!(back.bytes(), piece.bytes(), "{name}, {size}");
                    let records = back.records(options);
                    assert_eq!(records, here, "{name} in pieces of {size} bytes");
                    got.extend(records);
                }
                assert_eq!(
                    got,
                    whole(text.as_bytes()),
                    "{name} in pieces of {size} bytes"
                );
            }
        }
        assert!(
            Piece::from_wire(b"line 0\nabc".to_vec()).is_none(),
            "a line short of a field"
        );
        assert!(
            Piece::from_wire(b"lines 0 -\nabc".to_vec()).is_none(),
            "an unknown layout"
        );
        assert!(
            Piece::from_wire(b"csv 3 2:x\nabc".to_vec()).is_none(),
            "a column that is no number"
        );
    }

    #[test]
    fn pieces_cut_at_record_boundaries_of_the_asked_size() {
        let text = format!("{HARD}\n").repeat(10_000);
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        let piece = splitter.next_piece(8_000).unwrap();
        assert_eq!(piece.bytes() % 82, 0, "whole lines");
        assert!((8_000..8_000 + 82).contains(&piece.bytes()));
        let records = piece.records(ReadOptions::default());
        assert_eq!(records.len(), 8_000usize.div_ceil(82));
        let next = splitter
            .next_piece(8_000)
            .unwrap()
            .records(ReadOptions::default());
        assert_eq!(
            next[0].line,
            records.len() + 1,
            "lines numbered through the file"
        );
    }

    #[test]
    fn a_too_long_line_is_reported_without_being_kept() {
        let mut text = format!("{HARD}\n").into_bytes();
        // Longer than one read: held to `MAX_LINE + 1` bytes however long it is.
        text.extend(std::iter::repeat_n(b'1', 5 * READ_SIZE));
        text.extend_from_slice(format!("\n{HARD}\n").as_bytes());
        let got = split_all(&text, ReadOptions::default(), 100);
        assert_eq!(got, whole(&text));
        assert_eq!(got.len(), 3);
        assert!(got[1].puzzle.is_err());
        let mut splitter = Splitter::new(&text[..], ReadOptions::default());
        while let Some(piece) = splitter.next_piece(100) {
            assert!(piece.bytes() < READ_SIZE, "{}", piece.bytes());
        }
    }

    #[test]
    fn blocks_without_blank_lines_are_read_in_one_place() {
        let block: String = (0..9)
            .map(|r| format!("{}\n", &HARD[r * 9..r * 9 + 9]))
            .collect();
        // More than the splitter holds while it looks for a blank line.
        let text = block.repeat(60_000);
        let options = ReadOptions {
            format: Some(Format::Block),
            ..ReadOptions::default()
        };
        let mut splitter = Splitter::new(text.as_bytes(), options);
        let mut records = Vec::new();
        while let Some(piece) = splitter.next_piece(1000) {
            records.extend(piece.records(options));
        }
        assert_eq!(
            records,
            Reader::new(text.as_bytes(), options).collect::<Vec<_>>()
        );
        assert_eq!(records.len(), 60_000);
    }

    /// An input that fails after some bytes.
    struct Failing<'a>(&'a [u8]);

    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("the disk went away"));
            }
            let n = buf.len().min(self.0.len()).min(1000);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// An input that pauses (a read error of kind `WouldBlock`) once at each of `pauses`, byte positions in
    /// ascending order, and otherwise gives at most `step` bytes a read.
    struct Pausing<'a> {
        text: &'a [u8],
        at: usize,
        pauses: Vec<usize>,
        step: usize,
    }

    impl Read for Pausing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.pauses.first() == Some(&self.at) {
                self.pauses.remove(0);
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let next = self.pauses.first().copied().unwrap_or(self.text.len());
            let n = buf.len().min(self.step).min(next - self.at);
            buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn an_input_that_pauses_reads_like_the_whole_input_in_every_layout() {
        for (name, text) in layouts() {
            let expect = whole(text.as_bytes());
            // Pauses every few hundred bytes, mid-line as often as not, and reads of a few bytes to a lot.
            for (every, step) in [(97, 13), (333, 1 << 20), (1000, 64)] {
                for size in [1, 100, 1 << 20] {
                    let pauses = (1..text.len() / every).map(|k| k * every).collect();
                    let input = Pausing {
                        text: text.as_bytes(),
                        at: 0,
                        pauses,
                        step,
                    };
                    let mut splitter = Splitter::new(input, ReadOptions::default());
                    let got: Vec<Record> = std::iter::from_fn(|| splitter.next_piece(size))
                        .flat_map(|piece| piece.records(ReadOptions::default()))
                        .collect();
                    assert_eq!(
                        got, expect,
                        "{name}, a pause every {every} bytes, pieces of {size}"
                    );
                }
            }
        }
    }

    #[test]
    fn each_puzzle_goes_out_at_the_pause_after_it() {
        // Puzzles typed one by one: the layout is known from the first, and each piece holds the puzzles before
        // a pause, though a piece of a megabyte was asked for.
        let line = format!("{HARD}\n");
        let text = format!("{line}{line}{line}{}", &line[..40]);
        let pauses = vec![line.len(), 3 * line.len()];
        let input = Pausing {
            text: text.as_bytes(),
            at: 0,
            pauses,
            step: 1 << 20,
        };
        let mut splitter = Splitter::new(input, ReadOptions::default());
        assert_eq!(splitter.format(), Format::Line);
        let mut pieces = Vec::new();
        while let Some(piece) = splitter.next_piece(1 << 20) {
            pieces.push((piece.records(ReadOptions::default()).len(), splitter.idle()));
        }
        // One puzzle, paused; two, paused; then the unfinished line at the end (a bad record).
        assert_eq!(pieces, [(1, true), (2, true), (1, false)]);
    }

    #[test]
    fn an_input_error_keeps_every_whole_line_before_it() {
        let text = format!("{HARD}\n").repeat(100);
        let cut = &text.as_bytes()[..82 * 50 + 40];
        let mut splitter = Splitter::new(Failing(cut), ReadOptions::default());
        let mut records = Vec::new();
        while let Some(piece) = splitter.next_piece(500) {
            records.extend(piece.records(ReadOptions::default()));
        }
        assert_eq!(records.len(), 50);
        assert!(splitter.take_io_error().is_some());
    }
}
