//! The stages of `forkboard solve`: a reading thread cuts the input into pieces of whole records, the cores
//! (or the GPU) answer them, and a writing thread puts the formatted answers back in order.

mod chunks;

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::Instant;

use indicatif::ProgressBar;
use rayon::prelude::*;

use forkboard::sudoku::answer::{Mode, Tally};
use forkboard::sudoku::format::{
    Answer, Format, NineAnswer, NinePiece, Piece, ReadOptions, Record, Splitter, Writer, opening,
    write_csv_nines, write_nines,
};
use forkboard::sudoku::logic::Rating;
use forkboard::sudoku::symbols::Symbols;

use crate::engine::{Engines, RunProgress};
use crate::seconds::seconds_text;
use chunks::ChunkSizes;

/// Puzzles per chunk on the CPU, which answers pieces of a 64th of a chunk: about a thousand 9×9 puzzles a piece
/// (84 KB), which on the H100 machine ran 10% faster than a quarter of that and kept peak memory near 30 MB.
const CPU_CHUNK: usize = 1 << 16;
/// The same for the GPU, larger: each GPU batch ends with a tail of rounds where only its hardest puzzles
/// still run, so fewer, larger batches keep the device fuller.
const GPU_CHUNK: usize = 1 << 17;
/// How long the writer waits for the next part before it flushes what it holds (see [`Stages::write`]).
const FLUSH_AFTER: std::time::Duration = std::time::Duration::from_millis(10);

/// Time each stage spent working (not waiting for its neighbours), in nanoseconds: `--stats` shows which one
/// bounds a run.
#[derive(Default)]
pub struct Busy {
    read: AtomicU64,
    /// The CPU's single step: pieces read, answered and formatted.
    pieces: AtomicU64,
    parse: AtomicU64,
    answer: AtomicU64,
    format: AtomicU64,
    write: AtomicU64,
}

/// Runs `work`, adding its time to `total`.
fn timed<T>(total: &AtomicU64, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = work();
    total.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    result
}

impl Busy {
    /// One line for `--stats`: the stages that ran, in order.
    pub fn describe(&self) -> String {
        let stages = [
            ("read", &self.read),
            ("pieces", &self.pieces),
            ("parse", &self.parse),
            ("answer", &self.answer),
            ("format", &self.format),
            ("write", &self.write),
        ];
        let busy: Vec<String> = stages
            .iter()
            .map(|(name, total)| (name, total.load(Ordering::Relaxed)))
            .filter(|&(_, nanos)| nanos > 0)
            .map(|(name, nanos)| format!("{name} {}", seconds_text(nanos as f64 * 1e-9)))
            .collect();
        format!("{} (seconds busy)", busy.join(" · "))
    }
}

/// Answers formatted for the output as a part that others come before ([`Writer::continuing`]), with their
/// tally.
struct Formatted {
    bytes: Vec<u8>,
    tally: Tally,
}

/// A formatted part and its place in the output.
type Part = (usize, Formatted);

/// How many items a stage has finished in order (the writer's parts, the GPU formatter's chunks), for a stage
/// before it that must not run too far ahead; closed when the stage stops early (an error, a closed pipe).
#[derive(Default)]
struct WrittenParts {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl WrittenParts {
    /// Waits until fewer than `window` items before item `index` are unfinished; false once the stage stopped.
    fn wait_for_room(&self, index: usize, window: usize) -> bool {
        let state = self.state.lock().expect("no thread panics holding it");
        let state = self
            .changed
            .wait_while(state, |&mut (written, closed)| {
                !closed && index >= written + window
            })
            .expect("no thread panics holding it");
        !state.1
    }

    fn set(&self, written: usize, closed: bool) {
        *self.state.lock().expect("no thread panics holding it") = (written, closed);
        self.changed.notify_all();
    }

    /// Closes it where it stands: whoever waits for room goes on (and stops).
    fn close(&self) {
        self.state.lock().expect("no thread panics holding it").1 = true;
        self.changed.notify_all();
    }
}

/// What the stages of a run share.
pub struct Stages<'a> {
    /// Each stage's busy time.
    pub busy: Busy,
    /// How the pieces are read.
    pub options: ReadOptions,
    /// First solution or a count.
    pub mode: Mode,
    /// The output's layout.
    pub format: Format,
    /// The output's alphabet.
    pub symbols: Symbols,
    /// `--chunk`, when given.
    pub chunk: Option<usize>,
    /// `--rate`: the CSV output gets each puzzle's grade and score.
    pub rate: bool,
    /// The output starts here (false for a shard after the file's first puzzle: no CSV header, and the
    /// separator before its first record stays).
    pub opens: bool,
    /// The progress bar, moved as parts are written.
    pub progress: &'a ProgressBar,
    /// Input bytes read so far, for the progress bar.
    pub read: &'a AtomicU64,
    /// Under auto, how far the run has come, for its GPU's setup to judge by: the CPU's way counts the bytes
    /// of each piece it answers.
    pub run_progress: Option<&'a RunProgress>,
}

impl Stages<'_> {
    /// Reads, answers and writes with every core, in input order and bounded memory. A reading thread cuts the
    /// input into pieces of whole records ([`Splitter`]) and a writing thread puts formatted parts in order and
    /// copies them out. In between, on the CPU each piece is read, answered and formatted by one core, the
    /// cores taking pieces as they free up; on the GPU whole chunks are parsed, answered and formatted in three
    /// stages of their own, so that the CPU's parts overlap the device's. Under auto the CPU's way runs while
    /// the GPU is set up, and the GPU's way takes up the rest once it is ready. Returns the tally of what was
    /// written and any read error; on an engine error, everything answered before it is still written.
    pub fn run(
        &self,
        engines: &mut Engines,
        splitter: &mut Splitter<Box<dyn Read + Send>>,
        sink: BufWriter<Box<dyn Write + Send>>,
    ) -> Result<(Tally, Option<io::Error>), String> {
        let written = WrittenParts::default();
        // The GPU's chunks formatted, in order.
        let formatted = WrittenParts::default();
        let sizes = ChunkSizes {
            next_size: AtomicUsize::new(0),
            bytes_per_record: AtomicUsize::new(82),
        };
        let line_fallbacks = AtomicU64::new(0);
        let (parts_tx, parts_rx) = mpsc::channel::<Part>();
        let ready = engines.gpu_ready_flag();
        let result = thread::scope(|scope| {
            let (written, formatted) = (&written, &formatted);
            let (sizes, fallbacks) = (&sizes, &line_fallbacks);
            let writing = scope.spawn(move || self.write(sink, parts_rx, written));
            let (answering, read_error) = if let Some(ready) = ready.as_deref() {
                // Auto while its GPU is set up: the CPU's way, then the GPU's for the rest of the input once the
                // GPU is ready (the parts go on in order from where the CPU's stopped).
                let (ended, switch) = self.piece_by_piece(
                    scope,
                    engines,
                    splitter,
                    parts_tx.clone(),
                    written,
                    Some(ready),
                );
                match switch {
                    Some(switch) => {
                        let (answering, later) = self.in_chunks(
                            scope, engines, switch, parts_tx, written, formatted, sizes, fallbacks,
                        );
                        // (A read error that ended the input comes before any the GPU's way meets.)
                        (answering, ended.or(later))
                    }
                    None => {
                        // (The writer ends when every sender has gone.)
                        drop(parts_tx);
                        (Ok(()), ended)
                    }
                }
            } else if engines.prefers_large_chunks() {
                let whole = Switch {
                    splitter,
                    first_part: 0,
                    pieces: Vec::new(),
                };
                self.in_chunks(
                    scope, engines, whole, parts_tx, written, formatted, sizes, fallbacks,
                )
            } else {
                let (read_error, _) =
                    self.piece_by_piece(scope, engines, splitter, parts_tx, written, None);
                (Ok(()), read_error)
            };
            let tally = writing.join().expect("the writer thread does not panic")?;
            answering.map(|()| (tally, read_error))
        });
        engines.add_cpu_fallbacks(line_fallbacks.into_inner());
        engines.settle();
        result
    }

    /// Puzzles per chunk for the engine in use.
    fn chunk_size(&self, engines: &Engines) -> usize {
        self.chunk.unwrap_or_else(|| default_chunk(engines))
    }

    /// The CPU's way: each piece read, answered and formatted by one core, the cores pulling pieces as they
    /// free up (no core waits for the slowest piece of a batch). The reader stays at most a window of pieces
    /// ahead of the writer, so a slow piece holds back a bounded number of finished ones. Returns the read
    /// error; or, where `stop` was raised before the input ended, what the GPU's way goes on from ([`Switch`]).
    fn piece_by_piece<'scope>(
        &'scope self,
        scope: &'scope thread::Scope<'scope, '_>,
        engines: &mut Engines,
        splitter: &'scope mut Splitter<Box<dyn Read + Send>>,
        parts_tx: mpsc::Sender<Part>,
        written: &'scope WrittenParts,
        stop: Option<&'scope AtomicBool>,
    ) -> (Option<io::Error>, Option<Switch<'scope>>) {
        let window = 8 * rayon::current_num_threads();
        // Pieces of about a 64th of a chunk: small enough to spread over the cores, large enough that taking one
        // costs nothing beside answering it.
        let piece_bytes = (self.chunk_size(engines) * 82 / 64).clamp(4 << 10, 4 << 20);
        let (pieces_tx, pieces_rx) = mpsc::sync_channel::<(usize, Piece)>(window);
        // The reader gives back the input where it stopped, and whether `stop` stopped it (else the input
        // ended); nothing when the writer stopped (nothing more is wanted then).
        let reading = scope.spawn(move || {
            let mut index = 0;
            let stopped = loop {
                if stop.is_some_and(|stop| stop.load(Ordering::Acquire)) {
                    break true;
                }
                let Some(piece) = timed(&self.busy.read, || splitter.next_piece(piece_bytes))
                else {
                    break false;
                };
                if !written.wait_for_room(index, window) || pieces_tx.send((index, piece)).is_err()
                {
                    return (splitter.take_io_error(), None);
                }
                index += 1;
            };
            let error = if stopped {
                None
            } else {
                splitter.take_io_error()
            };
            (error, Some((splitter, index, stopped)))
        });
        let answered = AtomicU64::new(0);
        let engines_here = &*engines;
        // The cores are handed pieces in order until `stop` is raised: those handed out are answered here, and
        // the rest, read already, go to the GPU's way with their places (the parts stay in order).
        let pieces_rx = Mutex::new(pieces_rx);
        let handed = std::iter::from_fn(|| {
            if stop.is_some_and(|stop| stop.load(Ordering::Acquire)) {
                return None;
            }
            pieces_rx
                .lock()
                .expect("no thread panics holding it")
                .recv()
                .ok()
        });
        timed(&self.busy.pieces, || {
            handed
                .par_bridge()
                .for_each_with(parts_tx, |parts_tx, (index, piece)| {
                    let bytes = piece.bytes() as u64;
                    let (part, puzzles) = match self.nine_piece(piece) {
                        Ok(nines) => {
                            let answers =
                                engines_here.answer_nines_on_this_thread(&nines, self.mode);
                            (self.format_nines(&nines, answers), nines.len())
                        }
                        Err(piece) => {
                            let records = piece.records(self.options);
                            let answers = engines_here.answer_on_this_thread(&records, self.mode);
                            (self.format_part(&records, &answers), records.len())
                        }
                    };
                    answered.fetch_add(puzzles as u64, Ordering::Relaxed);
                    if let Some(run_progress) = self.run_progress {
                        run_progress.add_answered(bytes);
                    }
                    // The writer may have stopped (a closed pipe); the rest is then not wanted.
                    let _ = parts_tx.send((index, part));
                });
        });
        engines.count_on_cpu(answered.into_inner());
        // (The reader stops at `stop` too: the pieces it sent meanwhile end this.)
        let read: Vec<(usize, Piece)> = pieces_rx
            .into_inner()
            .expect("no thread panics holding it")
            .into_iter()
            .collect();
        let (error, rest) = reading.join().expect("the reader thread does not panic");
        // The GPU's way takes up pieces read and not handed out, and the input the reader left.
        let switch = rest
            .filter(|&(_, _, stopped)| stopped || !read.is_empty())
            .map(|(splitter, next, _)| Switch {
                first_part: read.first().map_or(next, |&(index, _)| index),
                pieces: read.into_iter().map(|(_, piece)| piece).collect(),
                splitter,
            });
        (error, switch)
    }

    /// The piece as plain 9×9 puzzles ([`Piece::into_nine_piece`]) when the output is written in the input's
    /// layout from their values: lines, blocks, pretty grids, or an ungraded CSV (a graded one needs each
    /// puzzle's grade).
    fn nine_piece(&self, piece: Piece) -> Result<NinePiece, Piece> {
        let from_values = match self.format {
            Format::Line | Format::Block | Format::Grid => true,
            Format::Csv => !self.rate,
        };
        if !from_values {
            return Err(piece);
        }
        piece.into_nine_piece(self.options)
    }

    /// A piece of plain 9×9 puzzles' answers as a part of the output: solution lines, blocks or grids, or CSV
    /// rows.
    fn format_nines(&self, nines: &NinePiece, answers: Vec<NineAnswer>) -> Formatted {
        let mut bytes = Vec::new();
        let tally = if self.format == Format::Csv {
            write_csv_nines(nines, &answers, self.symbols, &mut bytes)
        } else {
            write_nines(answers, self.format, self.symbols, &mut bytes)
        };
        Formatted { bytes, tally }
    }

    /// Answers formatted as a part of the output.
    fn format_part(&self, records: &[Record], answers: &[Answer]) -> Formatted {
        let mut writer = Writer::continuing(Vec::new(), self.format, self.symbols);
        if self.rate {
            writer = writer.graded();
        }
        let mut tally = Tally::default();
        for (record, answer) in records.iter().zip(answers) {
            let puzzle = record.puzzle.as_ref().ok();
            // Only a solved puzzle can be unique; the rest say why in their status.
            let grade = match (self.rate, puzzle, answer) {
                (true, Some(p), Answer::Solved { .. }) => Some(Rating::column(p)),
                _ => None,
            };
            writer
                .write_graded(record.line, puzzle, answer, grade.as_ref())
                .expect("writing to memory does not fail");
            tally.add(answer);
        }
        let bytes = writer.finish().expect("writing to memory does not fail");
        Formatted { bytes, tally }
    }

    /// The writing stage: parts put back in order and copied out, the first one opening the output.
    fn write(
        &self,
        mut sink: BufWriter<Box<dyn Write + Send>>,
        parts: mpsc::Receiver<Part>,
        written: &WrittenParts,
    ) -> Result<Tally, String> {
        let write_error = |e: io::Error| format!("cannot write the solutions: {e}");
        let mut tally = Tally::default();
        let mut waiting: BTreeMap<usize, Formatted> = BTreeMap::new();
        let mut next = 0;
        let result = 'writing: {
            loop {
                // Parts that stop coming for a while (an input that paused) are flushed, so that what was answered
                // shows; a file's parts follow each other far sooner, and are written in large writes as before.
                let (index, part) = match parts.recv_timeout(FLUSH_AFTER) {
                    Ok(part) => part,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(e) = sink.flush() {
                            if e.kind() == io::ErrorKind::BrokenPipe {
                                break 'writing Ok(());
                            }
                            break 'writing Err(write_error(e));
                        }
                        match parts.recv() {
                            Ok(part) => part,
                            Err(_) => break,
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                };
                waiting.insert(index, part);
                while let Some(part) = waiting.remove(&next) {
                    let started = Instant::now();
                    // A part without records writes nothing (not even a CSV header).
                    let pieces = match (tally.puzzles, part.tally.puzzles) {
                        (_, 0) => [&b""[..], b""],
                        (0, _) if self.opens => opening(self.format, self.rate, &part.bytes),
                        _ => [&part.bytes[..], b""],
                    };
                    for bytes in pieces {
                        match sink.write_all(bytes) {
                            // The reader of our output left (`forkboard solve big.txt | head`): stop quietly.
                            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                                break 'writing Ok(());
                            }
                            other => {
                                if let Err(e) = other {
                                    break 'writing Err(write_error(e));
                                }
                            }
                        }
                    }
                    tally.merge(&part.tally);
                    next += 1;
                    written.set(next, false);
                    self.progress
                        .set_position(self.read.load(Ordering::Relaxed));
                    let spent = started.elapsed().as_nanos() as u64;
                    self.busy.write.fetch_add(spent, Ordering::Relaxed);
                }
            }
            match sink.flush() {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(write_error(e)),
                _ => Ok(()),
            }
        };
        // Whatever happened, a reader waiting for room goes on (and stops).
        written.set(next, true);
        result.map(|()| tally)
    }
}

/// Where the GPU's way takes up the input: after the CPU's way, when auto's GPU became ready ([`Stages::run`]),
/// or from the start.
pub struct Switch<'scope> {
    /// The input, where the CPU's way stopped reading.
    pub splitter: &'scope mut Splitter<Box<dyn Read + Send>>,
    /// The index of the first part left to write.
    pub first_part: usize,
    /// Pieces read already and not answered, in order: the first of the GPU's.
    pub pieces: Vec<Piece>,
}

/// Puzzles per chunk for the engine in use.
fn default_chunk(engines: &Engines) -> usize {
    if engines.prefers_large_chunks() && !engines.is_racing() {
        GPU_CHUNK
    } else {
        CPU_CHUNK
    }
}
