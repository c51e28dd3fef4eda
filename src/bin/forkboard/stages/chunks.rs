//! The GPU's way through `forkboard solve`: whole chunks parsed on every core, answered by the engine on a
//! thread of their own (one per GPU), and formatted on every core again, so that the device never waits for
//! the host's parts.

use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use rayon::prelude::*;

use forkboard::gpu::lane9::Lane9Result;
use forkboard::gpu::nine_batch::{answer_nine, pack_nines};
use forkboard::sudoku::format::{Answer, NineAnswer, NinePiece, Piece, Record};

use super::{Formatted, Part, Stages, Switch, WrittenParts, timed};
use crate::engine::{Engines, NineResults};

/// Formatted parts of the GPU's chunks that may wait for the writer: about four chunks' (a chunk is read in
/// pieces of about a 64th of it).
const PARTS_AHEAD: usize = 256;
/// How far a GPU's chunk may be ahead of the next one to format (another GPU's) before its GPU waits.
const CHUNKS_AHEAD: usize = 8;

/// How large the GPU's chunks are: about `next_size` puzzles, of `bytes_per_record` input bytes each so far (one
/// 9×9 line to start with).
pub(super) struct ChunkSizes {
    /// Puzzles the next chunk aims at.
    pub(super) next_size: AtomicUsize,
    /// Input bytes per record so far.
    pub(super) bytes_per_record: AtomicUsize,
}

impl Stages<'_> {
    /// The GPU's way: chunks parsed on the CPU's cores, answered by the engine on this thread, formatted on
    /// the cores again, each stage on its own thread so that the device never waits for the host's parts. It
    /// takes up the input at `from`: its pieces read already first, its parts numbered from its first part.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn in_chunks<'scope>(
        &'scope self,
        scope: &'scope thread::Scope<'scope, '_>,
        engines: &mut Engines,
        from: Switch<'scope>,
        parts_tx: mpsc::Sender<Part>,
        written: &'scope WrittenParts,
        formatted: &'scope WrittenParts,
        sizes: &'scope ChunkSizes,
        line_fallbacks: &'scope AtomicU64,
    ) -> (Result<(), String>, Option<io::Error>) {
        let Switch {
            splitter,
            first_part,
            pieces: read_already,
        } = from;
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
            if !read_already.is_empty() && pieces_tx.send(read_already).is_err() {
                return splitter.take_io_error();
            }
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
                        // The input paused: the puzzles it gave so far go now, a chunk of their own.
                        if splitter.idle() {
                            break;
                        }
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
            let (mut index, mut next) = (first_part, 0);
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
