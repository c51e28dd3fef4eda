//! A piece of the input: a run of whole records that any thread (or a Web Worker, through its wire form) reads
//! on its own, cut by the [`super::Splitter`].

use super::nine_piece::{NineLayout, NinePiece};
use super::read::CsvColumns;
use super::{Format, ReadOptions, Reader, Record};

/// A run of whole records of the input, to be read on any thread.
pub struct Piece {
    pub(super) body: Body,
    /// Input bytes the piece covers.
    pub(super) bytes: usize,
}

pub(super) enum Body {
    /// Raw text, with what a reader needs to start in the middle of the file.
    Text {
        text: Vec<u8>,
        format: Format,
        columns: Option<CsvColumns>,
        lines_before: usize,
    },
    /// Records already read (pretty grids and blocks without blank lines).
    Records(Vec<Record>),
}

impl Piece {
    /// Input bytes the piece covers (roughly, for records read on the splitter's thread).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// True when the piece holds a record (reading only up to the first).
    pub fn has_records(&self, options: ReadOptions) -> bool {
        match &self.body {
            Body::Records(records) => !records.is_empty(),
            Body::Text { .. } => self
                .text_reader(options)
                .is_some_and(|mut r| r.next().is_some()),
        }
    }

    /// The piece's records without giving the piece up (as [`Piece::records`]).
    pub fn records_here(&self, options: ReadOptions) -> Vec<Record> {
        match &self.body {
            Body::Records(records) => records.clone(),
            Body::Text { .. } => self
                .text_reader(options)
                .map_or_else(Vec::new, Iterator::collect),
        }
    }

    /// A reader of a text piece's records, started where the piece starts; `None` for records already read.
    fn text_reader(&self, options: ReadOptions) -> Option<Reader<&[u8]>> {
        match &self.body {
            Body::Text {
                text,
                format,
                columns,
                lines_before,
            } => Some(Reader::resume(
                &text[..],
                options,
                *format,
                *columns,
                *lines_before,
            )),
            Body::Records(_) => None,
        }
    }

    /// The piece as bytes that [`Piece::from_wire`] turns back into it on another thread or in a Web Worker:
    /// a line `FORMAT LINES_BEFORE COLUMNS` (COLUMNS `-` before a CSV header is read, else `PUZZLE:SOLUTION`
    /// with `-` for no solution column), then the text. `None` for records already read here, which have no
    /// text to send.
    pub fn to_wire(&self, out: &mut Vec<u8>) -> Option<()> {
        let Body::Text {
            text,
            format,
            columns,
            lines_before,
        } = &self.body
        else {
            return None;
        };
        let columns = match columns {
            None => "-".to_string(),
            Some(c) => match c.solution {
                Some(s) => format!("{}:{s}", c.puzzle),
                None => format!("{}:-", c.puzzle),
            },
        };
        out.extend_from_slice(format!("{format} {lines_before} {columns}\n").as_bytes());
        out.extend_from_slice(text);
        Some(())
    }

    /// A piece from [`Piece::to_wire`]'s bytes; `None` when its first line is not such a line.
    pub fn from_wire(mut wire: Vec<u8>) -> Option<Piece> {
        let head_end = wire.iter().position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(&wire[..head_end]).ok()?;
        let mut fields = head.split(' ');
        let format: Format = fields.next()?.parse().ok()?;
        let lines_before = fields.next()?.parse().ok()?;
        let columns = match fields.next()? {
            "-" => None,
            pair => {
                let (puzzle, solution) = pair.split_once(':')?;
                Some(CsvColumns {
                    puzzle: puzzle.parse().ok()?,
                    solution: match solution {
                        "-" => None,
                        s => Some(s.parse().ok()?),
                    },
                })
            }
        };
        if fields.next().is_some() {
            return None;
        }
        wire.drain(..=head_end);
        Some(Piece {
            bytes: wire.len(),
            body: Body::Text {
                text: wire,
                format,
                columns,
                lines_before,
            },
        })
    }

    /// The piece as plain 9×9 puzzles ([`NinePiece`]: one-line puzzles, CSV rows of a puzzle and perhaps its
    /// solution, blocks or pretty grids) when it is nothing else, read with `options`; the piece back otherwise.
    pub fn into_nine_piece(self, options: ReadOptions) -> Result<NinePiece, Piece> {
        // One-line puzzles, CSV rows whose first column is the puzzle and the second, if any, the solution, or
        // blocks.
        let layout = match &self.body {
            Body::Text {
                format: Format::Line,
                ..
            } => NineLayout::Line {
                with_solution: false,
            },
            Body::Text {
                format: Format::Csv,
                columns:
                    Some(CsvColumns {
                        puzzle: 0,
                        solution,
                    }),
                ..
            } if matches!(solution, None | Some(1)) => NineLayout::Line {
                with_solution: solution.is_some(),
            },
            Body::Text {
                format: Format::Block,
                ..
            } => NineLayout::Block,
            Body::Text {
                format: Format::Grid,
                ..
            } => NineLayout::Pretty,
            _ => return Err(self),
        };
        let Body::Text {
            text,
            format,
            columns,
            lines_before,
        } = self.body
        else {
            unreachable!("a text piece, matched above");
        };
        NinePiece::new(text, lines_before, options, layout).map_err(|text| Piece {
            bytes: self.bytes,
            body: Body::Text {
                text,
                format,
                columns,
                lines_before,
            },
        })
    }

    /// The piece's records, in input order, numbered by their lines in the whole input.
    pub fn records(self, options: ReadOptions) -> Vec<Record> {
        match self.body {
            Body::Text {
                text,
                format,
                columns,
                lines_before,
            } => Reader::resume(&text[..], options, format, columns, lines_before).collect(),
            Body::Records(records) => records,
        }
    }
}
