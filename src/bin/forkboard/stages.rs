//! The stages of `forkboard solve`: a reading thread cuts the input into pieces of whole records, the cores
//! (or the GPU) answer them, and a writing thread puts the formatted answers back in order.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Read, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::Instant;

use indicatif::ProgressBar;
use rayon::prelude::*;

use forkboard::gpu::lane9::Lane9Result;
use forkboard::gpu::nine_batch::{answer_nine, pack_nines};
use forkboard::sudoku::answer::{Mode, Tally};
use forkboard::sudoku::format::{
    Answer, Format, NineAnswer, NinePiece, Piece, ReadOptions, Record, Splitter, Writer, opening,
    write_csv_nines, write_nines,
};
use forkboard::sudoku::logic::Rating;
use forkboard::sudoku::symbols::Symbols;

use crate::engine::{Engines, NineResults};

/// Puzzles per chunk on the CPU, which answers pieces of a 64th of a chunk: about a thousand 9×9 puzzles a piece
/// (84 KB), which on the H100 machine ran 10% faster than a quarter of that and kept peak memory near 30 MB.
const CPU_CHUNK: usize = 1 << 16;
/// The same for the GPU, larger: each GPU batch ends with a tail of rounds where only its hardest puzzles
/// still run, so fewer, larger batches keep the device fuller.
const GPU_CHUNK: usize = 1 << 17;

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
            .map(|(name, nanos)| format!("{name} {:.3}", nanos as f64 * 1e-9))
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

/// Formatted parts of the GPU's chunks that may wait for the writer: about four chunks' (a chunk is read in
/// pieces of about a 64th of it).
const PARTS_AHEAD: usize = 256;
/// How far a GPU's chunk may be ahead of the next one to format (another GPU's) before its GPU waits.
const CHUNKS_AHEAD: usize = 8;

/// How large the GPU's chunks are: about `next_size` puzzles, of `bytes_per_record` input bytes each so far (one
/// 9×9 line to start with).
struct ChunkSizes {
    next_size: AtomicUsize,
    bytes_per_record: AtomicUsize,
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
}

impl Stages<'_> {
    /// Reads, answers and writes with every core, in input order and bounded memory. A reading thread cuts the
    /// input into pieces of whole records ([`Splitter`]) and a writing thread puts formatted parts in order and
    /// copies them out. In between, on the CPU each piece is read, answered and formatted by one core, the
    /// cores taking pieces as they free up; on the GPU whole chunks are parsed, answered and formatted in three
    /// stages of their own, so that the CPU's parts overlap the device's. Returns the tally of what was written
    /// and any read error; on an engine error, everything answered before it is still written.
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
        let result = thread::scope(|scope| {
            let (written, formatted) = (&written, &formatted);
            let (sizes, fallbacks) = (&sizes, &line_fallbacks);
            let writing = scope.spawn(move || self.write(sink, parts_rx, written));
            let (answering, read_error) = if engines.prefers_large_chunks() {
                self.in_chunks(
                    scope, engines, splitter, parts_tx, written, formatted, sizes, fallbacks,
                )
            } else {
                let read_error = self.piece_by_piece(scope, engines, splitter, parts_tx, written);
                (Ok(()), read_error)
            };
            let tally = writing.join().expect("the writer thread does not panic")?;
            answering.map(|()| (tally, read_error))
        });
        engines.add_cpu_fallbacks(line_fallbacks.into_inner());
        result
    }

    /// Puzzles per chunk for the engine in use.
    fn chunk_size(&self, engines: &Engines) -> usize {
        self.chunk.unwrap_or_else(|| default_chunk(engines))
    }

    /// The CPU's way: each piece read, answered and formatted by one core, the cores pulling pieces as they
    /// free up (no core waits for the slowest piece of a batch). The reader stays at most a window of pieces
    /// ahead of the writer, so a slow piece holds back a bounded number of finished ones.
    fn piece_by_piece<'scope>(
        &'scope self,
        scope: &'scope thread::Scope<'scope, '_>,
        engines: &mut Engines,
        splitter: &'scope mut Splitter<Box<dyn Read + Send>>,
        parts_tx: mpsc::Sender<Part>,
        written: &'scope WrittenParts,
    ) -> Option<io::Error> {
        let window = 8 * rayon::current_num_threads();
        // Pieces of about a 64th of a chunk: small enough to spread over the cores, large enough that taking one
        // costs nothing beside answering it.
        let piece_bytes = (self.chunk_size(engines) * 82 / 64).clamp(4 << 10, 4 << 20);
        let (pieces_tx, pieces_rx) = mpsc::sync_channel::<(usize, Piece)>(window);
        let reading = scope.spawn(move || {
            for index in 0.. {
                let Some(piece) = timed(&self.busy.read, || splitter.next_piece(piece_bytes))
                else {
                    break;
                };
                if !written.wait_for_room(index, window) || pieces_tx.send((index, piece)).is_err()
                {
                    break;
                }
            }
            splitter.take_io_error()
        });
        let answered = AtomicU64::new(0);
        let engines_here = &*engines;
        timed(&self.busy.pieces, || {
            pieces_rx.into_iter().par_bridge().for_each_with(
                parts_tx,
                |parts_tx, (index, piece)| {
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
                    // The writer may have stopped (a closed pipe); the rest is then not wanted.
                    let _ = parts_tx.send((index, part));
                },
            );
        });
        engines.count_on_cpu(answered.into_inner());
        reading.join().expect("the reader thread does not panic")
    }

    /// The GPU's way: chunks parsed on the CPU's cores, answered by the engine on this thread, formatted on
    /// the cores again, each stage on its own thread so that the device never waits for the host's parts.
    #[allow(clippy::too_many_arguments)]
    fn in_chunks<'scope>(
        &'scope self,
        scope: &'scope thread::Scope<'scope, '_>,
        engines: &mut Engines,
        splitter: &'scope mut Splitter<Box<dyn Read + Send>>,
        parts_tx: mpsc::Sender<Part>,
        written: &'scope WrittenParts,
        formatted: &'scope WrittenParts,
        sizes: &'scope ChunkSizes,
        line_fallbacks: &'scope AtomicU64,
    ) -> (Result<(), String>, Option<io::Error>) {
        let ChunkSizes {
            next_size,
            bytes_per_record,
        } = sizes;
        next_size.store(self.chunk_size(engines), Ordering::Relaxed);
        let (pieces_tx, pieces_rx) = mpsc::sync_channel::<Vec<Piece>>(1);
        // A chunk stays in its pieces from parsing to formatting: parsed, formatted and freed on every core,
        // never copied together on one thread.
        // Chunks travel with their place in the input: with several GPUs they come back out of order.
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<(usize, Vec<Parsed>)>(1);
        let (answered_tx, answered_rx) = mpsc::sync_channel::<(usize, Vec<Parsed>, Answers)>(1);
        let reading = scope.spawn(move || {
            loop {
                let bytes =
                    next_size.load(Ordering::Relaxed) * bytes_per_record.load(Ordering::Relaxed);
                // Enough pieces for every core to parse several.
                let piece = (bytes / 64).clamp(16 << 10, 1 << 20);
                let pieces = timed(&self.busy.read, || {
                    let mut pieces = Vec::new();
                    let mut taken = 0;
                    while taken < bytes {
                        let Some(next) = splitter.next_piece(piece) else {
                            break;
                        };
                        taken += next.bytes();
                        pieces.push(next);
                    }
                    pieces
                });
                // Stops when the input ends or nobody takes pieces any more (an error, a closed pipe).
                if pieces.is_empty() || pieces_tx.send(pieces).is_err() {
                    break;
                }
            }
            splitter.take_io_error()
        });
        scope.spawn(move || {
            let (mut bytes, mut records, mut place) = (0, 0, 0);
            for pieces in pieces_rx {
                bytes += pieces.iter().map(Piece::bytes).sum::<usize>();
                let mut chunk: Vec<Parsed> = timed(&self.busy.parse, || {
                    pieces
                        .into_par_iter()
                        .map(|piece| self.parse(piece))
                        .collect()
                });
                chunk.retain(|piece| piece.len() > 0);
                records += chunk.iter().map(Parsed::len).sum::<usize>();
                // Bounded, so that a long run of comments cannot make the next chunk the whole file.
                if let Some(estimate) = bytes.checked_div(records) {
                    bytes_per_record.store(estimate.clamp(16, 4096), Ordering::Relaxed);
                }
                if chunk.is_empty() {
                    continue;
                }
                if chunk_tx.send((place, chunk)).is_err() {
                    return;
                }
                place += 1;
            }
        });
        let max_guesses = engines.max_guesses();
        scope.spawn(move || {
            // `index`: the next part's place in the output; `next`: the next chunk's in the input. Chunks
            // answered ahead of an earlier one (another GPU's) wait here for it.
            let (mut index, mut next) = (0, 0);
            let mut waiting = BTreeMap::new();
            'chunks: for (place, chunk, answers) in answered_rx {
                waiting.insert(place, (chunk, answers));
                while let Some((chunk, (answers, nine_results))) = waiting.remove(&next) {
                    let parts = timed(&self.busy.format, || {
                        self.format_chunk(
                            &chunk,
                            &answers,
                            &nine_results,
                            max_guesses,
                            line_fallbacks,
                        )
                    });
                    for part in parts {
                        // At most PARTS_AHEAD parts wait for the writer: a slow reader of the output (a
                        // pipe) holds the stages back instead of filling memory with its parts.
                        if !written.wait_for_room(index, PARTS_AHEAD)
                            || parts_tx.send((index, part)).is_err()
                        {
                            break 'chunks;
                        }
                        index += 1;
                    }
                    next += 1;
                    formatted.set(next, false);
                }
            }
            // Whatever happened, a GPU waiting for room goes on (and stops).
            formatted.set(next, true);
        });
        let chunk_rx = Mutex::new(chunk_rx);
        let devices = engines.split_by_gpu();
        let answering = if devices.is_empty() {
            self.answer_chunks(
                engines,
                &chunk_rx,
                &answered_tx,
                next_size,
                formatted,
                &AtomicUsize::new(1),
            )
        } else {
            // A thread per GPU, each taking the next chunk as it frees up.
            let live = AtomicUsize::new(devices.len());
            let done: Vec<(Engines, f64, Result<(), String>)> = thread::scope(|inner| {
                let threads: Vec<_> = devices
                    .into_iter()
                    .map(|mut device| {
                        let (chunk_rx, answered_tx, live) = (&chunk_rx, &answered_tx, &live);
                        inner.spawn(move || {
                            let began = Instant::now();
                            let run = self.answer_chunks(
                                &mut device,
                                chunk_rx,
                                answered_tx,
                                next_size,
                                formatted,
                                live,
                            );
                            (device, began.elapsed().as_secs_f64(), run)
                        })
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|t| t.join().expect("a GPU's answering thread does not panic"))
                    .collect()
            });
            let mut answering = Ok(());
            let mut parts = Vec::new();
            for (device, seconds, run) in done {
                if let (Err(e), Ok(())) = (run, &answering) {
                    answering = Err(e);
                }
                parts.push((device, seconds));
            }
            engines.absorb(parts);
            answering
        };
        drop(answered_tx);
        let read_error = reading.join().expect("the reader thread does not panic");
        (answering, read_error)
    }

    /// A GPU chunk's answers formatted as parts of the output, a part a piece, on every core: each piece's
    /// answers are the next run of the chunk's answers of its kind; the GPU's raw results for plain 9×9 pieces
    /// are checked and made answers here (a puzzle that needed the CPU after all is counted in
    /// `line_fallbacks`).
    fn format_chunk(
        &self,
        chunk: &[Parsed],
        answers: &[Answer],
        nine_results: &NineResults,
        max_guesses: u64,
        line_fallbacks: &AtomicU64,
    ) -> Vec<Formatted> {
        // Each piece's answers are the next run of the chunk's answers of its kind.
        let (mut rest, mut nines_done) = (answers, 0);
        let pieces: Vec<Answered> = chunk
            .iter()
            .map(|piece| match piece {
                Parsed::Records(records) => {
                    let (these, after) = rest.split_at(records.len());
                    rest = after;
                    Answered::Records(records, these)
                }
                Parsed::Nines(nines, _) => {
                    let range = nines_done..nines_done + nines.len();
                    nines_done = range.end;
                    match nine_results {
                        NineResults::Gpu(r) => Answered::GpuNines(nines, &r[range]),
                        NineResults::Cpu(a) => Answered::CpuNines(nines, &a[range]),
                    }
                }
            })
            .collect();
        pieces
            .into_par_iter()
            .map(|piece| match piece {
                Answered::Records(records, answers) => self.format_part(records, answers),
                Answered::GpuNines(nines, results) => {
                    // The results are made answers here, on every core a stage after the
                    // device's, which then only packs and reads back.
                    let mut fell_back = 0;
                    let answers = results.iter().enumerate().map(|(i, result)| {
                        let (answer, cpu) = answer_nine(nines, i, result, self.mode, max_guesses);
                        fell_back += u64::from(cpu);
                        answer
                    });
                    let part = self.format_nines(nines, answers.collect());
                    line_fallbacks.fetch_add(fell_back, Ordering::Relaxed);
                    part
                }
                Answered::CpuNines(nines, answers) => self.format_nines(nines, answers.to_vec()),
            })
            .collect()
    }

    /// One engine's answering loop in the GPU's way: takes the next parsed chunk (from a queue it may share
    /// with other GPUs' loops), answers it and passes it on with its place. It waits while its chunk is too
    /// far ahead of the formatter (another GPU's slow chunk holds the output back), so that memory stays
    /// bounded. A GPU that fails answers its chunk on the CPU and leaves the rest to the GPUs still `live`; the
    /// last one goes on on the CPU. Returns when the chunks end or the later stages stop.
    fn answer_chunks(
        &self,
        engines: &mut Engines,
        chunks: &Mutex<mpsc::Receiver<(usize, Vec<Parsed>)>>,
        answered: &mpsc::SyncSender<(usize, Vec<Parsed>, Answers)>,
        next_size: &AtomicUsize,
        formatted: &WrittenParts,
        live: &AtomicUsize,
    ) -> Result<(), String> {
        loop {
            let next = chunks.lock().expect("no thread panics holding it").recv();
            let Ok((place, chunk)) = next else {
                return Ok(());
            };
            if !formatted.wait_for_room(place, CHUNKS_AHEAD) {
                return Ok(());
            }
            let had_gpu = engines.has_gpu();
            let answers = timed(&self.busy.answer, || {
                let records: Vec<&Record> = chunk.iter().flat_map(Parsed::records).collect();
                let nines: Vec<&NinePiece> = chunk.iter().filter_map(Parsed::nines).collect();
                let packed: Vec<&[[u32; 12]]> = chunk.iter().filter_map(Parsed::packed).collect();
                let answers = if records.is_empty() {
                    Vec::new()
                } else {
                    engines.answer(&records, self.mode)?
                };
                let nine_results = if nines.is_empty() {
                    NineResults::Cpu(Vec::new())
                } else {
                    engines.answer_nines(&nines, &packed, self.mode)?
                };
                Ok::<_, String>((answers, nine_results))
            });
            let answers = match answers {
                Ok(answers) => answers,
                Err(e) => {
                    // This chunk will never be formatted: another GPU waiting for room behind it must not
                    // wait for ever.
                    formatted.close();
                    return Err(e);
                }
            };
            next_size.store(self.chunk_size(engines), Ordering::Relaxed);
            if answered.send((place, chunk, answers)).is_err() {
                return Ok(());
            }
            if had_gpu && !engines.has_gpu() && live.fetch_sub(1, Ordering::SeqCst) > 1 {
                return Ok(());
            }
        }
    }

    /// A piece of a GPU chunk parsed: plain 9×9 puzzles stay text where the output is written from their
    /// values (the answers then go from the text to the kernel and back without records, [`NinePiece`]);
    /// anything else becomes records.
    fn parse(&self, piece: Piece) -> Parsed {
        match self.nine_piece(piece) {
            Ok(nines) => {
                let packed = pack_nines(&nines);
                Parsed::Nines(nines, packed)
            }
            Err(piece) => Parsed::Records(piece.records(self.options)),
        }
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
            for (index, part) in parts {
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

/// A piece of a GPU chunk, parsed ([`Stages::parse`]).
enum Parsed {
    /// Plain 9×9 puzzles, answered straight from the text, and packed for the GPU here, on every core (the
    /// device's stage then only copies them: packing there, on cores the other stages keep busy, was most of
    /// its time).
    Nines(NinePiece, Vec<[u32; 12]>),
    /// Anything else, as records.
    Records(Vec<Record>),
}

impl Parsed {
    /// Puzzles (or unreadable records) in the piece.
    fn len(&self) -> usize {
        match self {
            Parsed::Nines(nines, _) => nines.len(),
            Parsed::Records(records) => records.len(),
        }
    }

    /// The piece's records (none for plain 9×9 puzzles).
    fn records(&self) -> &[Record] {
        match self {
            Parsed::Records(records) => records,
            Parsed::Nines(..) => &[],
        }
    }

    /// The piece's plain 9×9 puzzles, if it is such.
    fn nines(&self) -> Option<&NinePiece> {
        match self {
            Parsed::Nines(nines, _) => Some(nines),
            Parsed::Records(_) => None,
        }
    }

    /// The piece's plain 9×9 puzzles packed for the GPU, if it is such.
    fn packed(&self) -> Option<&[[u32; 12]]> {
        match self {
            Parsed::Nines(_, packed) => Some(packed),
            Parsed::Records(_) => None,
        }
    }
}

/// A chunk's answers: the records' in order, and what the engine made of the plain 9×9 puzzles, in order.
type Answers = (Vec<Answer>, NineResults);

/// A parsed piece beside its run of the chunk's answers or results.
enum Answered<'a> {
    Records(&'a [Record], &'a [Answer]),
    GpuNines(&'a NinePiece, &'a [Lane9Result]),
    CpuNines(&'a NinePiece, &'a [NineAnswer]),
}

/// Puzzles per chunk for the engine in use.
fn default_chunk(engines: &Engines) -> usize {
    if engines.prefers_large_chunks() {
        GPU_CHUNK
    } else {
        CPU_CHUNK
    }
}
