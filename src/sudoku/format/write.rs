//! Writing answers in the layout they were read in.
//!
//! Every input puzzle gives exactly one output record, in input order:
//!
//! | layout | solved | counting (`--count N`) | no solution / invalid |
//! |---|---|---|---|
//! | line | the solution line | the solution line, a space, the count (`1`, `2+`) | `# line L: reason` (also when the search gave up) |
//! | block | N rows, blank line between puzzles | a `# solutions: 2+` line above the rows | `# line L: reason` |
//! | grid | a pretty grid, blank line between puzzles | a `# solutions: 2+` line above it | `# line L: reason` |
//! | csv | `puzzle,solution,status` rows under a header | status `unique`, `2+ solutions` | empty solution, status says why |
//!
//! A graded CSV ([`Writer::graded`]) has two more columns, `grade,score`: the puzzle's grade from the logical
//! solver, or why it has none (`not rated: more than one solution`) with an empty score.
//!
//! A count written `2+` means the count stopped at the limit asked for. Comment lines are skipped when a file is
//! read back, so an output file is itself a valid input.

use std::io::{self, Write};

use super::{Format, PuzzleError};
use crate::sudoku::grid::Grid;
use crate::sudoku::symbols::Symbols;

/// What to write for one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Solved; in counting mode also the count and whether it stopped at the limit.
    Solved {
        /// The first solution found.
        solution: Grid,
        /// `(solutions counted, stopped at the limit)` when counting.
        count: Option<(u64, bool)>,
        /// Why the puzzle has several solutions, when the givens alone show it; or that the search gave up.
        note: Option<String>,
        /// The search gave up before the count was complete (the guess budget ran out): the count is a lower
        /// bound, written like one stopped at the limit (`1+`).
        gave_up: bool,
    },
    /// A valid puzzle without solution.
    NoSolution,
    /// The search gave up before finding a solution: the guess budget ran out (see
    /// [`crate::sudoku::solver::Solver::max_guesses`]). Whether a solution exists is unknown.
    GaveUp {
        /// Guesses taken before giving up.
        guesses: u64,
    },
    /// A puzzle that could not be read, or whose givens clash.
    Invalid(PuzzleError),
}

impl Answer {
    /// [`Answer::status`] for the common answers, without making a string (`None` for the others).
    fn short_status(&self) -> Option<&'static str> {
        match self {
            Answer::Solved { count: None, .. } => Some("solved"),
            Answer::Solved {
                count: Some((1, false)),
                ..
            } => Some("unique"),
            _ => None,
        }
    }

    /// A short status: `solved`, `unique`, `2+ solutions`, `no solution`, or the error.
    pub fn status(&self) -> String {
        match self {
            Answer::Solved { count: None, .. } => "solved".to_string(),
            Answer::Solved {
                count: Some((1, false)),
                ..
            } => "unique".to_string(),
            Answer::Solved {
                count: Some((n, hit)),
                note,
                ..
            } => {
                let more = if *hit { "+" } else { "" };
                match note {
                    Some(note) => format!("{n}{more} solutions ({note})"),
                    None => format!("{n}{more} solutions"),
                }
            }
            Answer::NoSolution => "no solution".to_string(),
            Answer::GaveUp { guesses } => format!(
                "gave up after {guesses} guesses without a solution (too few givens to search through in \
                 reasonable time: add givens, or raise the guess budget)"
            ),
            Answer::Invalid(e) => format!("invalid: {}", e.kind),
        }
    }
}

/// The first line of a CSV output.
const CSV_HEADER: &[u8] = b"quizzes,solutions,status\n";
/// The first line of a graded CSV output.
const GRADED_CSV_HEADER: &[u8] = b"quizzes,solutions,status,grade,score\n";

/// A puzzle's grade for a graded CSV: its name and score, or why it has none.
pub type GradeColumn = Result<(&'static str, u32), String>;

/// A part written by [`Writer::continuing`] as the start of an output: what the output opens with (the CSV
/// header, with the grade columns when `graded`), then the part without the separator it puts before its first
/// record (blocks and grids), in that order. Together they are what [`Writer::new`] writes for the same
/// records.
pub fn opening(format: Format, graded: bool, part: &[u8]) -> [&[u8]; 2] {
    match format {
        Format::Csv if graded => [GRADED_CSV_HEADER, part],
        Format::Csv => [CSV_HEADER, part],
        Format::Line => [b"", part],
        Format::Block | Format::Grid => [b"", part.strip_prefix(b"\n").unwrap_or(part)],
    }
}

/// Writes one record per puzzle in a given layout.
pub struct Writer<W> {
    out: W,
    format: Format,
    symbols: Symbols,
    written: usize,
    graded: bool,
    /// A row put together before it is written at once, kept between rows so that no row allocates.
    row: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// A writer of `format` in `symbols`.
    pub fn new(out: W, format: Format, symbols: Symbols) -> Self {
        Self {
            out,
            format,
            symbols,
            written: 0,
            graded: false,
            row: Vec::new(),
        }
    }

    /// A writer of a part of an output that other records come before (written elsewhere, e.g. by other
    /// threads): no header, and a separator before its first record where the layout has them. A part that
    /// turns out to come first is made an output's start by [`opening`].
    pub fn continuing(out: W, format: Format, symbols: Symbols) -> Self {
        Self {
            out,
            format,
            symbols,
            written: 1,
            graded: false,
            row: Vec::new(),
        }
    }

    /// The same writer with the grade columns in CSV output (other layouts have no place for them).
    pub fn graded(mut self) -> Self {
        self.graded = self.format == Format::Csv;
        self
    }

    /// Writes the answer for the puzzle read at `line` (`puzzle` is what was read, if anything).
    pub fn write(&mut self, line: usize, puzzle: Option<&Grid>, answer: &Answer) -> io::Result<()> {
        self.write_graded(line, puzzle, answer, None)
    }

    /// [`Writer::write`] with the puzzle's grade, written where the writer is [`Writer::graded`] (`None`
    /// there: an empty grade).
    pub fn write_graded(
        &mut self,
        line: usize,
        puzzle: Option<&Grid>,
        answer: &Answer,
        grade: Option<&GradeColumn>,
    ) -> io::Result<()> {
        let first = self.written == 0;
        self.written += 1;
        if self.format == Format::Csv {
            if first {
                self.out.write_all(if self.graded {
                    GRADED_CSV_HEADER
                } else {
                    CSV_HEADER
                })?;
            }
            // The row is put together in one buffer and written at once: a CSV of a million rows is written
            // on the Batch page's thread too, where a string per field was a fifth of the page's work.
            let row = &mut self.row;
            row.clear();
            if let Some(p) = puzzle {
                self.symbols.extend(row, p.cells());
            }
            row.push(b',');
            if let Answer::Solved { solution, .. } = answer {
                self.symbols.extend(row, solution.cells());
            }
            // Statuses may hold commas (error messages): quote them.
            row.extend_from_slice(b",\"");
            match answer.short_status() {
                Some(status) => row.extend_from_slice(status.as_bytes()),
                None => row.extend_from_slice(answer.status().replace('"', "'").as_bytes()),
            }
            row.push(b'"');
            if !self.graded {
                row.push(b'\n');
                return self.out.write_all(row);
            }
            self.out.write_all(row)?;
            let (grade, score) = match grade {
                Some(Ok((name, score))) => (name.to_string(), score.to_string()),
                Some(Err(why)) => (format!("not rated: {why}"), String::new()),
                None => (String::new(), String::new()),
            };
            return writeln!(self.out, ",\"{}\",{score}", grade.replace('"', "'"));
        }
        let multi_line = self.format != Format::Line;
        if multi_line && !first {
            writeln!(self.out)?;
        }
        match answer {
            Answer::Invalid(e) => writeln!(self.out, "# {e}"),
            Answer::NoSolution => writeln!(self.out, "# line {line}: no solution"),
            Answer::GaveUp { .. } => writeln!(self.out, "# line {line}: {}", answer.status()),
            Answer::Solved {
                solution, count, ..
            } => {
                let count = count.map(|(n, hit)| format!("{n}{}", if hit { "+" } else { "" }));
                match (self.format, count) {
                    (Format::Line, None) => {
                        self.write_cells(solution)?;
                        self.out.write_all(b"\n")
                    }
                    (Format::Line, Some(c)) => {
                        self.write_cells(solution)?;
                        writeln!(self.out, " {c}")
                    }
                    (format, count) => {
                        if let Some(c) = count {
                            writeln!(self.out, "# solutions: {c}")?;
                        }
                        if format == Format::Block {
                            self.write_block(solution)
                        } else {
                            self.write_pretty(solution)
                        }
                    }
                }
            }
        }
    }

    /// Appends `records` records written elsewhere in this writer's layout, as a part that others come before
    /// ([`Writer::continuing`], [`super::write_nines`]): a part that turns out to hold the output's first
    /// records opens it first ([`opening`]: the CSV header, no separator before a first block).
    pub fn append_part(&mut self, part: &[u8], records: usize) -> io::Result<()> {
        if records == 0 {
            return Ok(());
        }
        let first = self.written == 0;
        self.written += records;
        if first {
            for bytes in opening(self.format, self.graded, part) {
                self.out.write_all(bytes)?;
            }
            Ok(())
        } else {
            self.out.write_all(part)
        }
    }

    /// The output written so far (to drain an in-memory buffer between chunks; the writer keeps its place).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// The cells as one line of symbols, without a line end.
    fn write_cells(&mut self, grid: &Grid) -> io::Result<()> {
        self.row.clear();
        self.symbols.extend(&mut self.row, grid.cells());
        self.out.write_all(&self.row)
    }

    fn write_block(&mut self, grid: &Grid) -> io::Result<()> {
        let line = grid.to_line(self.symbols);
        for row in line.as_bytes().chunks(grid.side()) {
            self.out.write_all(row)?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// A pretty grid: cells apart by a space, `|` between boxes, a rule of `-` and `+` between bands, put
    /// together in one buffer and written at once (a file of a million grids is written this way; the boxes
    /// are walked as chunks, since a remainder by a box size known only at run time is a division per cell).
    fn write_pretty(&mut self, grid: &Grid) -> io::Result<()> {
        let shape = grid.shape();
        let (n, box_rows, box_cols) = (grid.side(), shape.rows(), shape.cols());
        let out = &mut self.row;
        out.clear();
        for (band_index, band) in grid.cells().chunks(n * box_rows).enumerate() {
            if band_index > 0 {
                for box_index in 0..n / box_cols {
                    if box_index > 0 {
                        out.extend_from_slice(b"-+-");
                    }
                    out.extend(std::iter::repeat_n(b'-', 2 * box_cols - 1));
                }
                out.push(b'\n');
            }
            for row in band.chunks(n) {
                for (box_index, cells) in row.chunks(box_cols).enumerate() {
                    if box_index > 0 {
                        out.extend_from_slice(b" | ");
                    }
                    for (k, &value) in cells.iter().enumerate() {
                        if k > 0 {
                            out.push(b' ');
                        }
                        out.push(self.symbols.write(value));
                    }
                }
                out.push(b'\n');
            }
        }
        self.out.write_all(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::answer::{Mode, answer};
    use crate::sudoku::format::{ReadOptions, Reader};
    use crate::sudoku::solver::Solver;

    fn solve_all(text: &str, format: Format, count: bool) -> String {
        let mut w = Writer::new(Vec::new(), format, Symbols::Standard);
        let mut solver = Solver::new();
        let mode = if count { Mode::Count(2) } else { Mode::First };
        for rec in Reader::new(text.as_bytes(), ReadOptions::default()) {
            let answer = answer(&rec, &mut solver, mode);
            w.write(rec.line, rec.puzzle.as_ref().ok(), &answer)
                .unwrap();
        }
        String::from_utf8(w.finish().unwrap()).unwrap()
    }

    #[test]
    fn one_record_per_puzzle_in_each_layout() {
        let input = "123434122143432.\n11..............\n123............4\n................\n";
        assert_eq!(
            solve_all(input, Format::Line, true),
            "1234341221434321 1\n# line 2: contradictory givens: two 1s in row 1 (r1c1, r1c2); two 1s in box 1 (r1c1, r1c2)\n# line 3: no solution\n1234341221434321 2+\n"
        );
        assert_eq!(
            solve_all("1...\n....\n....\n....\n", Format::Block, false),
            "1234\n3412\n2143\n4321\n"
        );
        assert_eq!(
            solve_all("1...............", Format::Grid, false),
            "1 2 | 3 4\n3 4 | 1 2\n----+----\n2 1 | 4 3\n4 3 | 2 1\n"
        );
        assert_eq!(
            solve_all("quizzes\n123434122143432.\n", Format::Csv, true),
            "quizzes,solutions,status\n123434122143432.,1234341221434321,\"unique\"\n"
        );
    }

    #[test]
    fn an_output_written_in_parts_equals_one_written_whole() {
        let input = "1...............\n11..............\n....2...........\n";
        let records: Vec<_> = Reader::new(input.as_bytes(), ReadOptions::default()).collect();
        let mut solver = Solver::new();
        let answers: Vec<_> = records
            .iter()
            .map(|r| answer(r, &mut solver, Mode::Count(2)))
            .collect();
        for format in [Format::Line, Format::Block, Format::Grid, Format::Csv] {
            let write = |mut w: Writer<Vec<u8>>, from: usize, to: usize| {
                for (r, a) in records[from..to].iter().zip(&answers[from..to]) {
                    w.write(r.line, r.puzzle.as_ref().ok(), a).unwrap();
                }
                w.finish().unwrap()
            };
            let whole = write(Writer::new(Vec::new(), format, Symbols::Standard), 0, 3);
            let part = |from, to| {
                write(
                    Writer::continuing(Vec::new(), format, Symbols::Standard),
                    from,
                    to,
                )
            };
            for cut in 1..3 {
                let first = part(0, cut);
                let parts = [opening(format, false, &first).concat(), part(cut, 3)].concat();
                assert_eq!(parts, whole, "{format} cut after {cut}");
            }
        }
    }

    #[test]
    fn output_reads_back_as_the_same_solutions() {
        let input =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n";
        for format in [Format::Line, Format::Block, Format::Grid, Format::Csv] {
            let out = solve_all(input, format, false);
            let back: Vec<_> = Reader::new(out.as_bytes(), ReadOptions::default()).collect();
            assert_eq!(back.len(), 1, "{format}: {out}");
            // CSV keeps the puzzle and adds the solution column; the others write the solution itself.
            let grid = match format {
                Format::Csv => *back[0].given_solution.clone().unwrap(),
                _ => back[0].puzzle.clone().unwrap(),
            };
            assert!(grid.is_full(), "{format}");
        }
    }
}
