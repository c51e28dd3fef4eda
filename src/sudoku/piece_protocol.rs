//! The Batch page's protocol for whole pieces of a file: a CPU Web Worker reads a piece of the input
//! ([`Piece`]), answers every record and writes both of the page's outputs for it, so the page's own thread
//! only cuts the file at record boundaries and puts the parts back in order (as `forkboard solve` does on
//! every core).
//!
//! Request: `!piece LIMIT MAX_GUESSES FORMAT GRADED` (the count limit, 0 for the first solution; the guess
//! budget, 0 for none; the input's layout, in which the first output is written; 1 for grade columns in the
//! CSV), a line end, then the piece's wire form ([`Piece::to_wire`]).
//!
//! Reply: a line `HEAD OUT CSV` (byte lengths), then HEAD bytes: a line of the piece's tally
//! (`PUZZLES SOLVED UNIQUE MULTIPLE NO_SOLUTION INVALID GAVE_UP`), a line `PREVIEWS MESSAGES`, the first
//! [`PREVIEWS`] answers as `LINE LENGTH` lines each followed by that many bytes of text, and the first
//! [`MESSAGES`] invalid puzzles' messages as `LENGTH` lines each followed by the message; then OUT bytes of the
//! first output and CSV bytes of the CSV, each written as a part that others come before
//! ([`Writer::continuing`]). Lengths, not line ends, delimit the texts, so a text may hold anything.

use std::ops::Range;

use super::answer::{Mode, Tally, answer, why_not_unique};
use super::format::{
    Answer, Format, GradeColumn, NineAnswer, NinePiece, Piece, ReadOptions, Record, Writer,
    opening, write_csv_nines, write_nines,
};
use super::logic::Rating;
use super::solver::Solver;
use super::symbols::Symbols;
use super::verify;
use super::{Grid, bands};

/// How a piece request starts (after the `worker-dies` test hook's line, if any).
pub const PREFIX: &[u8] = b"!piece ";
/// Answers shown in the Batch page's preview: a piece sends at most this many.
pub const PREVIEWS: usize = 10;
/// Invalid puzzles the Batch page lists by line: a piece sends at most this many messages.
pub const MESSAGES: usize = 100;

/// What the page asks of every piece of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceJob {
    /// First solution, or a count.
    pub mode: Mode,
    /// The guess budget per puzzle (0: none).
    pub max_guesses: u64,
    /// The input's layout, in which the first output is written.
    pub format: Format,
    /// Grade columns in the CSV.
    pub graded: bool,
}

/// True when `request` is a piece request.
pub fn is_piece(request: &[u8]) -> bool {
    request.starts_with(PREFIX)
}

/// Builds the request for `piece`; `None` for a piece of records already read, which has no text to send.
pub fn request(job: &PieceJob, piece: &Piece) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(piece.bytes() + 64);
    out.extend_from_slice(PREFIX);
    out.extend_from_slice(
        format!(
            "{} {} {} {}\n",
            match job.mode {
                Mode::First => 0,
                Mode::Count(n) => n,
            },
            job.max_guesses,
            job.format,
            u8::from(job.graded)
        )
        .as_bytes(),
    );
    piece.to_wire(&mut out)?;
    Some(out)
}

/// Reads a request back into its job and piece.
pub fn read_request(request: &[u8]) -> Result<(PieceJob, Piece), String> {
    let rest = request.strip_prefix(PREFIX).ok_or("not a piece request")?;
    let head_end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("a piece request without its first line")?;
    let head = std::str::from_utf8(&rest[..head_end])
        .map_err(|_| "a piece request's first line is not text")?;
    let fields: Vec<&str> = head.split(' ').collect();
    let [limit, max_guesses, format, graded] = fields[..] else {
        return Err(format!(
            "a piece request's first line has {} fields, not 4",
            fields.len()
        ));
    };
    let number = |text: &str| {
        text.parse::<u64>()
            .map_err(|_| format!("`{text}` is not a count"))
    };
    let job = PieceJob {
        mode: match number(limit)? {
            0 => Mode::First,
            n => Mode::Count(n),
        },
        max_guesses: number(max_guesses)?,
        format: format.parse()?,
        graded: graded == "1",
    };
    let piece = Piece::from_wire(rest[head_end + 1..].to_vec())
        .ok_or("a piece request's piece does not read")?;
    Ok((job, piece))
}

/// The text the Batch page previews for an answer: the solution and its status, or the status alone.
pub fn preview_text(answer: &Answer) -> String {
    match answer {
        Answer::Solved { solution, .. } => format!("{} ({})", solution, answer.status()),
        other => other.status(),
    }
}

/// A piece answered and written: both outputs' parts, the tally, and what the page shows of the first
/// answers and the first invalid puzzles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnsweredPiece {
    /// The piece's part of the first output (the input's layout).
    pub out: Vec<u8>,
    /// Its part of the CSV.
    pub csv: Vec<u8>,
    /// What its answers were.
    pub tally: Tally,
    /// The first [`PREVIEWS`] answers, by line.
    pub previews: Vec<(usize, String)>,
    /// The first [`MESSAGES`] invalid puzzles' messages, each naming its line.
    pub messages: Vec<String>,
    /// Bytes to drop from the front of the first output's part and the CSV's when the part opens its output
    /// (the separator before a first block or grid), after what the output opens with ([`opens_with`]).
    pub opening_skip: [usize; 2],
}

/// What an output opens with, before its first part: the CSV header (with the grade columns when `graded`),
/// or nothing.
pub fn opens_with(format: Format, graded: bool) -> &'static [u8] {
    opening(format, graded, b"")[0]
}

/// Reads, answers and writes a piece on this thread's `solver` (the worker's side, and the page's when no
/// worker can take it). A piece of plain 9×9 puzzles skips the reader ([`NinePiece`]) unless the CSV is graded
/// (its grades need records).
pub fn answer_piece(job: &PieceJob, piece: Piece, solver: &mut Solver) -> AnsweredPiece {
    let options = ReadOptions::default();
    // Written from values as lines, blocks, pretty grids or an ungraded CSV.
    let from_values = !job.graded;
    let piece = if from_values {
        piece.into_nine_piece(options)
    } else {
        Err(piece)
    };
    match piece {
        Ok(nines) => answer_nines(job, &nines, solver),
        Err(piece) => answer_records(job, &piece.records(options), solver),
    }
}

/// [`answer_piece`] for plain 9×9 puzzles. The common case is solved from the puzzle's values as they lie: a
/// solution the search did not give up on that passes the independent check is what [`answer`] would make of
/// the puzzle's record and [`NineAnswer::from_answer`] keep, so it is kept as values without either (in the
/// worker's WebAssembly the records, answers and grids they make and move were a dozen `memory.copy` and
/// `memory.fill` a puzzle, each a call out of the wasm code: docs/benchmarks.md). Anything else (no
/// solution, a first attempt given up, a solution that fails the check) is answered from its record as before,
/// searched again there.
fn answer_nines(job: &PieceJob, nines: &NinePiece, solver: &mut Solver) -> AnsweredPiece {
    solver.max_guesses = job.max_guesses;
    answer_nines_with(job, nines, |i| {
        let values = nines.values(i);
        if let Ok(found) = solver.solve_nine(&values, job.mode.limit())
            && !found.gave_up
            && let Some(Ok(solution)) = found.solution.map(<&[u8; 81]>::try_from)
            && verify::is_nine_solution(&values, solution)
        {
            return NineAnswer::Solved {
                values: *solution,
                count: job.mode.shown_count(found.count, found.hit_limit),
            };
        }
        let record = nines.record(i);
        let answer = answer(&record, solver, job.mode);
        NineAnswer::from_answer(record, answer)
    })
}

/// Answers a piece of plain 9×9 puzzles with `answer_one(i)` for puzzle `i` (a solver's answer, or one found
/// elsewhere and checked, as the GPU's are: `gpu::found_piece`) and writes both outputs' parts, the tally, the
/// previews and the messages.
pub fn answer_nines_with(
    job: &PieceJob,
    nines: &NinePiece,
    mut answer_one: impl FnMut(usize) -> NineAnswer,
) -> AnsweredPiece {
    let mut done = AnsweredPiece::default();
    let answers: Vec<NineAnswer> = (0..nines.len())
        .map(|i| {
            let answer = answer_one(i);
            if let NineAnswer::Usual(usual) = &answer
                && let Answer::Invalid(e) = &usual.1
                && done.messages.len() < MESSAGES
            {
                done.messages.push(e.to_string());
            }
            if i < PREVIEWS {
                done.previews
                    .push((nines.line(i), nine_preview_text(nines, i, &answer)));
            }
            answer
        })
        .collect();
    let mut csv = Vec::new();
    done.tally = write_csv_nines(nines, &answers, Symbols::Standard, &mut csv);
    // A CSV's rows are both outputs.
    let out = if job.format == Format::Csv {
        csv.clone()
    } else {
        let mut out = Vec::new();
        write_nines(answers, job.format, Symbols::Standard, &mut out);
        out
    };
    done.opening_skip = [
        opening_skip(job.format, false, &out),
        opening_skip(Format::Csv, false, &csv),
    ];
    done.out = out;
    done.csv = csv;
    done
}

/// [`preview_text`] for the answer to puzzle `i` of `nines`: a solution kept as values gets back the note a
/// solver's answer has on a count above one (givens that show it, as [`write_csv_nines`] works it out).
pub fn nine_preview_text(nines: &NinePiece, i: usize, answer: &NineAnswer) -> String {
    match answer {
        NineAnswer::Usual(usual) => preview_text(&usual.1),
        NineAnswer::Solved { values, count } => {
            let note = match count {
                Some((n, _)) if *n > 1 => {
                    Grid::new(bands::nine(), &nines.values(i)).and_then(|p| why_not_unique(&p))
                }
                _ => None,
            };
            preview_text(&Answer::Solved {
                solution: Grid::new(bands::nine(), values).expect("a 9×9 solution's values"),
                count: *count,
                note,
                gave_up: false,
            })
        }
    }
}

/// Bytes to drop from the front of `part` when it opens its output ([`AnsweredPiece::opening_skip`]).
fn opening_skip(format: Format, graded: bool, part: &[u8]) -> usize {
    part.len() - opening(format, graded, part)[1].len()
}

/// [`answer_piece`] for records already read.
pub fn answer_records(job: &PieceJob, records: &[Record], solver: &mut Solver) -> AnsweredPiece {
    solver.max_guesses = job.max_guesses;
    let mut writer = PieceWriter::new(job, records);
    for record in records {
        writer.add(record, &answer(record, solver, job.mode));
    }
    writer.finish()
}

/// Writes a piece's answered records as its parts of both outputs, with its tally, previews and messages.
pub struct PieceWriter {
    format: Format,
    graded: bool,
    out: Writer<Vec<u8>>,
    csv: Writer<Vec<u8>>,
    done: AnsweredPiece,
}

impl PieceWriter {
    /// A writer for `records`' answers (they size its first output).
    pub fn new(job: &PieceJob, records: &[Record]) -> Self {
        // Room for a line of cells per record in the first output, and two and a status in the CSV, so
        // that neither grows (and copies itself) as it goes.
        let cells = records
            .first()
            .and_then(|r| r.puzzle.as_ref().ok())
            .map_or(0, |p| p.cells().len());
        let csv = Writer::continuing(
            Vec::with_capacity(records.len() * (2 * cells + 16)),
            Format::Csv,
            Symbols::Standard,
        );
        Self {
            format: job.format,
            graded: job.graded,
            out: Writer::continuing(
                Vec::with_capacity(records.len() * (cells + 2)),
                job.format,
                Symbols::Standard,
            ),
            csv: if job.graded { csv.graded() } else { csv },
            done: AnsweredPiece::default(),
        }
    }

    /// Writes the next record's answer.
    pub fn add(&mut self, record: &Record, answer: &Answer) {
        let done = &mut self.done;
        done.tally.add(answer);
        if done.previews.len() < PREVIEWS {
            done.previews.push((record.line, preview_text(answer)));
        }
        if let Answer::Invalid(e) = answer
            && done.messages.len() < MESSAGES
        {
            done.messages.push(e.to_string());
        }
        let puzzle = record.puzzle.as_ref().ok();
        // Only a solved puzzle can be unique; the rest say why in their status.
        let grade: Option<GradeColumn> = match (self.graded, puzzle, answer) {
            (true, Some(p), Answer::Solved { .. }) => Some(Rating::column(p)),
            _ => None,
        };
        // Writing to memory cannot fail.
        let _ = self.out.write(record.line, puzzle, answer);
        let _ = self
            .csv
            .write_graded(record.line, puzzle, answer, grade.as_ref());
    }

    /// The piece, written.
    pub fn finish(self) -> AnsweredPiece {
        let out = self.out.finish().expect("writing to memory does not fail");
        let csv = self.csv.finish().expect("writing to memory does not fail");
        AnsweredPiece {
            opening_skip: [
                opening_skip(self.format, false, &out),
                opening_skip(Format::Csv, self.graded, &csv),
            ],
            out,
            csv,
            ..self.done
        }
    }
}

/// Answers a request (the worker's side). A request that does not read gets a reply of one piece-sized
/// failure: no records, and its reason as the only message, which the page reports.
pub fn serve(request: &[u8], solver: &mut Solver) -> Vec<u8> {
    let done = match read_request(request) {
        Ok((job, piece)) => answer_piece(&job, piece, solver),
        Err(why) => AnsweredPiece {
            messages: vec![format!("the worker could not read its piece: {why}")],
            ..AnsweredPiece::default()
        },
    };
    write_reply(&done)
}

/// The reply's bytes for an answered piece.
pub fn write_reply(done: &AnsweredPiece) -> Vec<u8> {
    let t = &done.tally;
    let mut head = format!(
        "{} {} {} {} {} {} {}\n{} {} {} {}\n",
        t.puzzles,
        t.solved,
        t.unique,
        t.multiple,
        t.no_solution,
        t.invalid,
        t.gave_up,
        done.previews.len(),
        done.messages.len(),
        done.opening_skip[0],
        done.opening_skip[1]
    )
    .into_bytes();
    for (line, text) in &done.previews {
        head.extend_from_slice(format!("{line} {}\n", text.len()).as_bytes());
        head.extend_from_slice(text.as_bytes());
    }
    for text in &done.messages {
        head.extend_from_slice(format!("{}\n", text.len()).as_bytes());
        head.extend_from_slice(text.as_bytes());
    }
    let mut reply = format!("{} {} {}\n", head.len(), done.out.len(), done.csv.len()).into_bytes();
    reply.reserve(head.len() + done.out.len() + done.csv.len());
    reply.extend_from_slice(&head);
    reply.extend_from_slice(&done.out);
    reply.extend_from_slice(&done.csv);
    reply
}

/// The reply's first line: where it ends, and the three lengths it gives.
fn first_line(first: &[u8]) -> Result<(usize, [usize; 3]), String> {
    let end = first
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("a piece reply without its first line")?;
    let text =
        std::str::from_utf8(&first[..end]).map_err(|_| "a piece reply's first line is not text")?;
    let lengths: Vec<usize> = text
        .split(' ')
        .map(|n| n.parse().map_err(|_| format!("`{n}` is not a length")))
        .collect::<Result<_, String>>()?;
    let lengths = lengths
        .try_into()
        .map_err(|_| "a piece reply's first line holds 3 lengths".to_string())?;
    Ok((end + 1, lengths))
}

/// Where a reply's parts lie, from its first line: the head's bytes (to read with [`read_head`]), then the
/// first output's and the CSV's. `first` needs only the reply's first [`LAYOUT_BYTES`] bytes; `total` is the
/// reply's length, which the parts must fill.
pub fn reply_layout(first: &[u8], total: usize) -> Result<[Range<usize>; 3], String> {
    let (start, [head, out, csv]) = first_line(first)?;
    let head = start..start + head;
    let out = head.end..head.end + out;
    let csv = out.end..out.end + csv;
    if csv.end != total {
        return Err(format!(
            "a piece reply of {total} bytes where its lengths add up to {}",
            csv.end
        ));
    }
    Ok([head, out, csv])
}

/// Where the head lies in a reply cut after it (its first line and head, the outputs sent apart).
pub fn head_range(message: &[u8]) -> Result<Range<usize>, String> {
    let (start, [head, ..]) = first_line(message)?;
    if start + head != message.len() {
        return Err(format!(
            "a piece reply's head of {} bytes where its length says {head}",
            message.len() - start
        ));
    }
    Ok(start..start + head)
}

/// Bytes of a reply enough for [`reply_layout`]: its first line is three lengths.
pub const LAYOUT_BYTES: usize = 64;

/// A reply's head read back (the page's side): the tally, previews and messages; the outputs stay empty.
pub fn read_head(head: &[u8]) -> Result<AnsweredPiece, String> {
    let mut head = HeadReader { head, at: 0 };
    let [
        puzzles,
        solved,
        unique,
        multiple,
        no_solution,
        invalid,
        gave_up,
    ] = head.numbers()?;
    let [previews, messages, out_skip, csv_skip] = head.numbers()?;
    let mut done = AnsweredPiece {
        tally: Tally {
            puzzles,
            solved,
            unique,
            multiple,
            no_solution,
            invalid,
            gave_up,
        },
        opening_skip: [out_skip as usize, csv_skip as usize],
        ..AnsweredPiece::default()
    };
    for _ in 0..previews.min(PREVIEWS as u64) {
        let [line, length] = head.numbers()?;
        done.previews.push((line as usize, head.text(length)?));
    }
    for _ in 0..messages.min(MESSAGES as u64) {
        let [length] = head.numbers()?;
        done.messages.push(head.text(length)?);
    }
    Ok(done)
}

/// Reads a reply's head from the front.
struct HeadReader<'a> {
    head: &'a [u8],
    at: usize,
}

impl HeadReader<'_> {
    /// The next line, as `N` numbers.
    fn numbers<const N: usize>(&mut self) -> Result<[u64; N], String> {
        let rest = &self.head[self.at..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("a piece reply's head ends early")?;
        self.at += end + 1;
        let text =
            std::str::from_utf8(&rest[..end]).map_err(|_| "a piece reply's head is not text")?;
        let numbers: Vec<u64> = text
            .split(' ')
            .map(|n| n.parse().map_err(|_| format!("`{n}` is not a count")))
            .collect::<Result<_, String>>()?;
        numbers
            .try_into()
            .map_err(|_| format!("a line of a piece reply's head holds {N} numbers: `{text}`"))
    }

    /// The next `length` bytes, as text.
    fn text(&mut self, length: u64) -> Result<String, String> {
        let end = self.at.saturating_add(length as usize);
        let bytes = self
            .head
            .get(self.at..end)
            .ok_or("a piece reply's text runs past its head")?;
        self.at = end;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| "a piece reply's text is not UTF-8".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::format::{Reader, Splitter};

    const EASY: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLVED: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    /// Both outputs written whole, as the page wrote them before pieces went to the workers.
    fn whole(input: &[u8], job: &PieceJob) -> AnsweredPiece {
        let mut solver = Solver::with_max_guesses(job.max_guesses);
        let mut reader = Reader::new(input, ReadOptions::default());
        let mut out = Writer::new(Vec::new(), reader.format(), Symbols::Standard);
        let csv = Writer::new(Vec::new(), Format::Csv, Symbols::Standard);
        let mut csv = if job.graded { csv.graded() } else { csv };
        let mut done = AnsweredPiece::default();
        for record in reader.by_ref() {
            let answer = answer(&record, &mut solver, job.mode);
            done.tally.add(&answer);
            if done.previews.len() < PREVIEWS {
                done.previews.push((record.line, preview_text(&answer)));
            }
            if let Answer::Invalid(e) = &answer {
                done.messages.push(e.to_string());
            }
            let puzzle = record.puzzle.as_ref().ok();
            let grade = match (job.graded, puzzle, &answer) {
                (true, Some(p), Answer::Solved { .. }) => Some(Rating::column(p)),
                _ => None,
            };
            out.write(record.line, puzzle, &answer).unwrap();
            csv.write_graded(record.line, puzzle, &answer, grade.as_ref())
                .unwrap();
        }
        done.out = out.finish().unwrap();
        done.csv = csv.finish().unwrap();
        done
    }

    #[test]
    fn pieces_answered_apart_make_the_whole_outputs() {
        let line = format!("# comment\n{EASY}\n12345\n11{}\n{EASY}\n\n", ".".repeat(79)).repeat(30);
        let csv = format!(
            "quizzes,solutions\n{}",
            format!("{EASY},\n{},\n", &EASY[..80]).repeat(40)
        );
        let block: String = (0..30)
            .map(|i| {
                let rows: Vec<&str> = (0..9).map(|r| &EASY[r * 9..r * 9 + 9]).collect();
                let rows = if i % 7 == 3 { &rows[..5] } else { &rows[..] };
                rows.join("\n") + "\n\n"
            })
            .collect();
        // Plain 9×9 pieces (the workers' short way, [`NinePiece`]): an easy puzzle, clashing givens, an open
        // grid of many solutions and one without any, as lines, blocks, kaggle's CSV rows and pretty grids.
        let plain: Vec<String> = [
            EASY.to_string(),
            format!("55{}", &EASY[2..]),
            ".".repeat(81),
            format!("12345678.........9{}", ".".repeat(63)),
        ]
        .iter()
        .cycle()
        .take(32)
        .cloned()
        .collect();
        let plain_lines: String = plain.iter().map(|p| format!("{p}\n")).collect();
        let plain_blocks: Vec<String> = plain
            .iter()
            .map(|p| {
                (0..9)
                    .map(|r| format!("{}\n", &p[r * 9..r * 9 + 9]))
                    .collect()
            })
            .collect();
        let plain_blocks = plain_blocks.join("\n");
        let plain_csv: String = plain.iter().map(|p| format!("{p},{SOLVED}\n")).collect();
        let plain_csv = format!("quizzes,solutions\n{plain_csv}");
        // As pretty grids, the way this program writes them.
        let plain_grids: Vec<String> = plain
            .iter()
            .map(|p| crate::sudoku::format::pretty_of(p, "\n", "\n"))
            .collect();
        let plain_grids = plain_grids.join("\n");
        let jobs = [
            (Mode::First, false),
            (Mode::Count(2), false),
            (Mode::First, true),
        ];
        let mut solver = Solver::new();
        for text in [
            line,
            csv,
            block,
            plain_lines,
            plain_blocks,
            plain_csv,
            plain_grids,
        ] {
            let format = Reader::new(text.as_bytes(), ReadOptions::default()).format();
            for (mode, graded) in jobs {
                let job = PieceJob {
                    mode,
                    max_guesses: 0,
                    format,
                    graded,
                };
                let expect = whole(text.as_bytes(), &job);
                for size in [1, 300, 1 << 20] {
                    let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
                    let (mut got_out, mut got_csv) = (Vec::new(), Vec::new());
                    let (mut got_tally, mut got_previews, mut got_messages) =
                        (Tally::default(), Vec::new(), Vec::new());
                    while let Some(piece) = splitter.next_piece(size) {
                        let reply = serve(&request(&job, &piece).unwrap(), &mut solver);
                        let [head, o, c] =
                            reply_layout(&reply[..LAYOUT_BYTES.min(reply.len())], reply.len())
                                .unwrap();
                        let done = read_head(&reply[head.clone()]).unwrap();
                        assert_eq!(head_range(&reply[..head.end]).unwrap(), head);
                        if done.tally.puzzles > 0 {
                            let (o, c) = (&reply[o], &reply[c]);
                            if got_tally.puzzles == 0 {
                                // As the page opens its outputs: what they open with, then the first part
                                // less its skip.
                                got_out.extend_from_slice(opens_with(format, false));
                                got_out.extend_from_slice(&o[done.opening_skip[0]..]);
                                got_csv.extend_from_slice(opens_with(Format::Csv, graded));
                                got_csv.extend_from_slice(&c[done.opening_skip[1]..]);
                            } else {
                                got_out.extend_from_slice(o);
                                got_csv.extend_from_slice(c);
                            }
                        }
                        got_tally.merge(&done.tally);
                        got_previews.extend(done.previews);
                        got_messages.extend(done.messages);
                    }
                    let what = format!("{format}, {mode:?}, graded {graded}, pieces of {size}");
                    assert_eq!(
                        String::from_utf8(got_out).unwrap(),
                        String::from_utf8(expect.out.clone()).unwrap(),
                        "{what}"
                    );
                    assert_eq!(
                        String::from_utf8(got_csv).unwrap(),
                        String::from_utf8(expect.csv.clone()).unwrap(),
                        "{what}"
                    );
                    assert_eq!(got_tally, expect.tally, "{what}");
                    got_previews.truncate(PREVIEWS);
                    assert_eq!(got_previews, expect.previews, "{what}");
                    assert_eq!(got_messages, expect.messages, "{what}");
                }
            }
        }
    }

    #[test]
    fn texts_with_line_ends_and_any_bytes_come_back_whole() {
        let done = AnsweredPiece {
            out: b"out\nbytes".to_vec(),
            csv: vec![0, 255, b'\n'],
            tally: Tally {
                puzzles: 3,
                invalid: 1,
                ..Tally::default()
            },
            previews: vec![(7, "two\nlines".into()), (9, String::new())],
            messages: vec!["line 8: a message\nwith a line end".into()],
            opening_skip: [1, 0],
        };
        let reply = write_reply(&done);
        let [head, out, csv] = reply_layout(&reply[..LAYOUT_BYTES], reply.len()).unwrap();
        let mut back = read_head(&reply[head]).unwrap();
        back.out = reply[out].to_vec();
        back.csv = reply[csv].to_vec();
        assert_eq!(back, done);
    }

    #[test]
    fn a_broken_request_or_reply_is_named() {
        let reply = serve(b"!piece 0 0 lines 0\nline 0 -\n", &mut Solver::new());
        let [head, ..] = reply_layout(&reply, reply.len()).unwrap();
        let done = read_head(&reply[head]).unwrap();
        assert_eq!(done.tally.puzzles, 0);
        assert_eq!(
            done.messages,
            [
                "the worker could not read its piece: unknown format `lines`: use line, block, grid or csv"
            ]
        );
        let broken = [
            (
                reply_layout(b"3 4 5\nabc", 9).map(|_| ()),
                "lengths add up to 18",
            ),
            (head_range(b"3 4 5\nab").map(|_| ()), "head of 2 bytes"),
            (
                reply_layout(b"3 x 5\n", 9).map(|_| ()),
                "`x` is not a length",
            ),
            (
                read_head(b"1 1 0 0 0 0 0\n1 0 0 0\n").map(|_| ()),
                "ends early",
            ),
            (
                read_head(b"1 1 0 0 0 0 0\n1 0 0 0\n4 10\nabc").map(|_| ()),
                "runs past",
            ),
        ];
        for (result, why) in broken {
            let error = result.unwrap_err();
            assert!(error.contains(why), "{error}");
        }
    }
}
