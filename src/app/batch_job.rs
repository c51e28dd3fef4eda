//! The Batch page's job: the input read a few megabytes at a time and cut into pieces that the CPU workers
//! read, answer and write themselves, or, on the GPU, into slices of pieces searched on the device together,
//! whose results the workers then check and write piece by piece while the device searches the next slice;
//! the output goes to the browser as Blobs a few megabytes at a time. So the page keeps answering, and its own
//! memory holds a few pieces of the file and a few answered ones whatever the file's length.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

use futures_channel::oneshot;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::batch_output::{Answered, Output, object_url};
use super::browser::now_ms;
use super::engine::{self, Preference};
use super::{loaded, workers};
use crate::sudoku::answer::{Mode, Tally};
use crate::sudoku::format::{Answer, Format, GradeColumn, ReadOptions, Reader, Record, Splitter};
use crate::sudoku::learn_protocol::Rated;
use crate::sudoku::logic::Rating;
use crate::sudoku::piece_protocol::PieceJob;

mod cpu_pieces;
mod gpu_pieces;

/// Puzzles per CPU slice, shared out among the workers: large enough to keep them busy, small enough for
/// progress to move and Cancel to act within a moment.
const CPU_SLICE: usize = 2000;
/// Puzzles in the first GPU slice; later ones are sized to take about [`GPU_SLICE_MS`] on this adapter (a
/// hardware GPU takes tens of thousands at once, an emulated one a few hundred).
const GPU_FIRST_SLICE: usize = 1024;
/// The time a GPU slice aims for: progress moves about once a second.
const GPU_SLICE_MS: f64 = 1000.0;
/// Bounds of the GPU slice.
const GPU_SLICES: (usize, usize) = (256, 65_536);
/// Bytes of a 9×9 line, to size the first slice of puzzles in bytes.
const LINE_BYTES: usize = 82;
/// The longest the page's thread works on a job before it lets the browser run its other tasks (input, drawing,
/// the workers' replies): a task over 50 ms is one a user can feel.
const TASK_MS: f64 = 10.0;
/// Milliseconds between progress readings: each redraws part of the page, and slices come every few
/// milliseconds.
const PROGRESS_MS: f64 = 100.0;

/// The finished job.
#[derive(Clone)]
pub(super) struct Finished {
    /// What the answers were, counted.
    pub tally: Tally,
    /// The first invalid puzzles' messages, each naming its line.
    pub invalid: Vec<String>,
    /// The first answers, by line.
    pub preview: Vec<(usize, String)>,
    /// The page's wasm memory at the end: it only grows, so this is the peak.
    pub memory_bytes: f64,
    /// From Run to the end.
    pub seconds: f64,
    /// The engines that answered, joined.
    pub engine: String,
    /// The solutions in the input's layout, as an object URL, and the name to save them under.
    pub solutions_url: String,
    pub solutions_name: String,
    /// The CSV of puzzles, solutions and statuses, likewise.
    pub csv_url: String,
    pub csv_name: String,
    /// Cancel was pressed (the answers so far are kept).
    pub cancelled: bool,
    /// Why reading the file stopped early, if it did (everything read before is answered).
    pub read_error: Option<String>,
    /// Solutions were counted (uniqueness), not only found.
    pub counting: bool,
}

/// The input, read from its file a piece at a time: a buffered reader over the pieces read so far, dropping
/// each once it is consumed, so a file of any length passes through a few megabytes of memory.
#[derive(Default)]
struct Feed {
    pieces: VecDeque<Vec<u8>>,
    /// Bytes of the front piece already consumed.
    at: usize,
    /// Bytes added, and consumed, in all.
    added: usize,
    consumed: usize,
}

impl Feed {
    fn push(&mut self, piece: Vec<u8>) {
        self.added += piece.len();
        self.pieces.push_back(piece);
    }

    /// Bytes read from the source but not yet consumed.
    fn ahead(&self) -> usize {
        self.added - self.consumed
    }
}

impl Read for Feed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.read(buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Feed {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pieces.front().is_some_and(|p| self.at == p.len()) {
            self.pieces.pop_front();
            self.at = 0;
        }
        Ok(self.pieces.front().map_or(&[][..], |p| &p[self.at..]))
    }

    fn consume(&mut self, amount: usize) {
        self.at += amount;
        self.consumed += amount;
    }
}

/// Where a job's text comes from: a file read in pieces, or the text box.
pub(super) enum Source {
    /// A dropped or chosen file.
    File(web_sys::File),
    /// The text box's contents.
    Text(String),
}

/// Bytes read from a file at a time.
const FILE_READ: f64 = 4.0 * 1024.0 * 1024.0;
/// Records are only taken while at least this much of the file is read ahead (or all of it is): the reader
/// takes a dry input for the end, and no record (25 rows of at most 64 KiB) comes near it.
const READ_AHEAD: usize = 8 * 1024 * 1024;

/// Reads the next pieces of `file` into `feed` until it holds [`READ_AHEAD`] bytes or the file is all read;
/// `offset` is how far the file has been read.
async fn top_up(feed: &mut Feed, file: &web_sys::File, offset: &mut f64) -> Result<(), String> {
    while feed.ahead() < READ_AHEAD && *offset < file.size() {
        let end = (*offset + FILE_READ).min(file.size());
        let piece = file
            .slice_with_f64_and_f64(*offset, end)
            .map_err(|_| "the browser refused a slice of the file".to_string())?;
        let buffer = wasm_bindgen_futures::JsFuture::from(piece.array_buffer())
            .await
            .map_err(|e| {
                e.as_string()
                    .unwrap_or_else(|| "the browser refused".into())
            })?;
        feed.push(js_sys::Uint8Array::new(&buffer).to_vec());
        *offset = end;
    }
    Ok(())
}

/// What a job is asked to do.
#[derive(Clone, Copy)]
pub(super) struct Job {
    /// First solution, or a count.
    pub mode: Mode,
    /// The engine asked for.
    pub wanted: Preference,
    /// Grade columns in the CSV.
    pub graded: bool,
}

/// The grade column of each answer of a slice: rated on the workers (on this page where none starts), only
/// solved puzzles (the rest say why in their status).
async fn grade_columns(chunk: &[Record], answers: &[Answer]) -> Vec<Option<GradeColumn>> {
    let solved: Vec<(usize, &crate::sudoku::Grid)> = chunk
        .iter()
        .zip(answers)
        .enumerate()
        .filter_map(|(i, (r, a))| match (r.puzzle.as_ref(), a) {
            (Ok(p), Answer::Solved { .. }) => Some((i, p)),
            _ => None,
        })
        .collect();
    let grids: Vec<&crate::sudoku::Grid> = solved.iter().map(|(_, g)| *g).collect();
    let rated = match workers::rate(&grids).await {
        Some(rated) => rated
            .into_iter()
            .map(|r| match r {
                Rated::Graded { grade, score, .. } => Ok((grade.name(), score)),
                Rated::Unrated(why) => Err(why),
            })
            .collect(),
        // No worker here: rated on the page.
        None if workers::count() == 0 => {
            grids.iter().map(|g| Rating::column(g)).collect::<Vec<_>>()
        }
        None => vec![Err("cancelled".to_string()); grids.len()],
    };
    let mut columns = vec![None; chunk.len()];
    for ((i, _), column) in solved.into_iter().zip(rated) {
        columns[i] = Some(column);
    }
    columns
}

/// Answers `chunk` in a task of its own, so that this thread can write the slice before it meanwhile; `None`
/// comes back when the job was cancelled.
fn answer_slice(chunk: Vec<Record>, job: Job) -> oneshot::Receiver<Option<Answered>> {
    let (tx, rx) = oneshot::channel();
    spawn_local(async move {
        let asked = now_ms();
        let answered = match engine::solve(&chunk, job.mode, job.wanted).await {
            Some(solved) => {
                let ms = now_ms() - asked;
                let grades = if job.graded {
                    grade_columns(&chunk, &solved.answers).await
                } else {
                    Vec::new()
                };
                Some(Answered {
                    chunk,
                    answers: solved.answers,
                    grades,
                    engine: solved.engine,
                    ms,
                })
            }
            None => None,
        };
        let _ = tx.send(answered);
    });
    rx
}

/// The file being read, how far, and why reading stopped early, if it did.
struct Reading {
    file: Option<web_sys::File>,
    /// Bytes read so far.
    offset: f64,
    /// The input's bytes.
    size: f64,
    /// The first read error (the answers so far are kept).
    error: Option<String>,
}

impl Reading {
    /// Tops `feed` up from the file (see [`top_up`]), keeping the first error.
    async fn top_up(&mut self, feed: &mut Feed) {
        if let Some(file) = &self.file
            && self.error.is_none()
            && let Err(why) = top_up(feed, file, &mut self.offset).await
        {
            self.error = Some(why);
        }
    }

    /// True once everything there is to read is in the feed: a reader may then run it dry.
    fn whole(&self) -> bool {
        self.file.as_ref().is_none_or(|f| self.offset >= f.size()) || self.error.is_some()
    }
}

/// Progress readings, at most one per [`PROGRESS_MS`].
struct Shown {
    progress: RwSignal<(u64, f64, f64)>,
    started: f64,
    at: f64,
}

impl Shown {
    /// Shows `puzzles` answered and `consumed` of `size` bytes read, unless the last reading is too recent.
    fn update(&mut self, puzzles: u64, consumed: usize, size: f64) {
        let now = now_ms();
        if now - self.at >= PROGRESS_MS {
            self.at = now;
            let seconds = (now - self.started) / 1000.0;
            self.progress.set((
                puzzles,
                consumed as f64 / size.max(1.0),
                puzzles as f64 / seconds.max(1e-9),
            ));
        }
    }
}

/// Reads, answers and writes the whole job, updating `progress` and obeying `cancel`: on the CPU workers a
/// piece of the file at a time, read, answered and written by the workers themselves
/// ([`cpu_pieces::answer_pieces`]); on the GPU (or on this page, where no worker starts) slice by slice
/// ([`answer_slices`]).
pub(super) async fn run(
    source: Source,
    name: String,
    job: Job,
    progress: RwSignal<(u64, f64, f64)>,
    cancel: RwSignal<bool>,
) -> Finished {
    let started = now_ms();
    let mut feed = Feed::default();
    let mut reading = match source {
        Source::File(file) => Reading {
            size: file.size(),
            file: Some(file),
            offset: 0.0,
            error: None,
        },
        Source::Text(text) => {
            let size = text.len() as f64;
            feed.push(text.into_bytes());
            Reading {
                file: None,
                offset: 0.0,
                size,
                error: None,
            }
        }
    };
    reading.top_up(&mut feed).await;
    let mut shown = Shown {
        progress,
        started,
        at: f64::NEG_INFINITY,
    };
    // Auto decides once for the whole file, from its size as 9×9 lines (its slices are smaller than Auto's
    // threshold): the GPU's way from the threshold on, else the CPU workers'.
    let job = Job {
        wanted: engine::for_whole_job(job.wanted, (reading.size / LINE_BYTES as f64) as usize),
        ..job
    };
    let on_gpu = engine::gpu_ready() && job.wanted == Preference::Gpu;
    let (output, cancelled) = if !on_gpu && workers::count() > 0 {
        cpu_pieces::answer_pieces(feed, &mut reading, job, &mut shown, cancel).await
    } else if on_gpu && !job.graded {
        gpu_pieces::answer_gpu_pieces(feed, &mut reading, job, &mut shown, cancel).await
    } else {
        answer_slices(feed, &mut reading, job, on_gpu, &mut shown, cancel).await
    };
    finish(output, &name, job, cancelled, reading.error, started).await
}

/// Bytes of the file in a piece for a worker: about 1,600 9×9 lines, tens of milliseconds of a worker's time
/// on easy puzzles, so that progress moves and the workers' share evens out.
const PIECE_BYTES: usize = 128 << 10;
/// Pieces sent and not yet written, per worker: room for the others to go on while the piece that comes next
/// in the output is still being answered.
const UNWRITTEN_PER_WORKER: usize = 4;

/// How many pieces each worker has been asked and not yet answered, and the waker of the loop that waits for
/// any of them: pieces go to whichever worker has the fewest, so a worker that the machine runs more slowly
/// (two cores shared by the page, the workers and the browser) simply takes fewer.
#[derive(Default)]
struct Asked {
    pending: Vec<usize>,
    wake: Option<oneshot::Sender<()>>,
}

impl Asked {
    /// The worker with the fewest pieces asked and not answered, and how many those are.
    fn least_busy(&self) -> (usize, usize) {
        let least = self.pending.iter().min().copied().unwrap_or(0);
        let w = self.pending.iter().position(|&n| n == least).unwrap_or(0);
        (w, least)
    }
}

/// Parts of a job's output answered in tasks of their own, in input order; `None` from one means the job was
/// cancelled.
type InFlight<T> = VecDeque<oneshot::Receiver<Option<T>>>;

/// Writes, in order, the parts at the front of `in_flight` that are answered, for at most [`TASK_MS`] (the
/// rest wait for the caller's next round); whether any was, or `None` once one says the job was cancelled (or
/// its task went away, which only a cancelled job's does): nothing after it may be written either, or the
/// output would have a gap.
fn write_answered<T>(in_flight: &mut InFlight<T>, mut write: impl FnMut(T)) -> Option<bool> {
    let mut wrote = false;
    let started = now_ms();
    while let Some(next) = in_flight.front_mut() {
        if wrote && now_ms() - started >= TASK_MS {
            break;
        }
        match next.try_recv() {
            Ok(None) => break,
            Ok(Some(Some(part))) => {
                in_flight.pop_front();
                write(part);
                wrote = true;
            }
            Ok(Some(None)) | Err(_) => {
                in_flight.clear();
                return None;
            }
        }
    }
    Some(wrote)
}

/// [`write_answered`] into `output` by `write`, then the progress shown where any part was written (`consumed`:
/// the input's bytes cut into pieces so far).
fn write_shown<T>(
    in_flight: &mut InFlight<T>,
    output: &mut Output,
    write: impl Fn(&mut Output, T),
    shown: &mut Shown,
    consumed: usize,
    reading: &Reading,
) -> Option<bool> {
    let wrote = write_answered(in_flight, |part| write(output, part))?;
    if wrote {
        shown.update(output.tally.puzzles, consumed, reading.size);
    }
    Some(wrote)
}

/// After a Cancel: writes the parts answered before it, in order, up to the first that was not, so that
/// nothing done is lost.
async fn write_rest<T>(in_flight: &mut InFlight<T>, mut write: impl FnMut(T)) {
    while let Some(next) = in_flight.pop_front() {
        match next.await.ok().flatten() {
            Some(part) => write(part),
            None => break,
        }
    }
}

/// What both ways in pieces begin with: the input's splitter, the job each piece's request names (`graded`:
/// whether the workers grade each puzzle too), the number of workers, and the pieces each has in hand.
fn start_pieces(
    feed: Feed,
    options: ReadOptions,
    job: Job,
    graded: bool,
) -> (Splitter<Feed>, PieceJob, usize, Rc<RefCell<Asked>>) {
    let splitter = Splitter::new(feed, options);
    let piece_job = PieceJob {
        mode: job.mode,
        max_guesses: engine::max_guesses(),
        format: splitter.format(),
        graded,
    };
    let workers = workers::count().max(1);
    let asked = Rc::new(RefCell::new(Asked {
        pending: vec![0; workers],
        wake: None,
    }));
    (splitter, piece_job, workers, asked)
}

/// The GPU's way (and the page's own, where no worker starts): slices of records read here, each answered
/// while the one before it is tallied and written. The two take about as long on a 2-core machine (a slice of
/// 2,000 easy puzzles: 2-4 ms on two workers, a few more here), so neither waits on the other.
async fn answer_slices(
    feed: Feed,
    reading: &mut Reading,
    job: Job,
    on_gpu: bool,
    shown: &mut Shown,
    cancel: RwSignal<bool>,
) -> (Output, bool) {
    let mut reader = Reader::new(feed, ReadOptions::default());
    // GPU slices are sized to this adapter when the GPU may be used (Auto still sends a small last slice to
    // the CPU); the CPU's are fixed and small, so progress moves.
    let mut slice = if on_gpu { GPU_FIRST_SLICE } else { CPU_SLICE };
    let mut output = Output::new(reader.format(), job.graded);
    // The slice answered last, waiting to be written.
    let mut answered: Option<Answered> = None;
    let mut cancelled = false;
    loop {
        if cancel.get_untracked() {
            cancelled = true;
            break;
        }
        reading.top_up(reader.get_mut()).await;
        // Records are taken while enough of the file is read ahead: a dry feed would read as the end.
        let whole = reading.whole();
        let mut chunk: Vec<Record> = Vec::new();
        while chunk.len() < slice && (whole || reader.get_mut().ahead() >= READ_AHEAD) {
            match reader.next() {
                Some(record) => chunk.push(record),
                None => break,
            }
        }
        let taken = chunk.len();
        let answering = (taken > 0).then(|| answer_slice(chunk, job));
        if let Some(last) = answered.take() {
            // A task boundary first: the new slice's task sends it out before this one writes.
            TimeoutFuture::new(0).await;
            output.write(last);
            shown.update(
                output.tally.puzzles,
                reader.get_mut().consumed,
                reading.size,
            );
        }
        let Some(answering) = answering else {
            break;
        };
        let Some(done) = answering.await.ok().flatten() else {
            cancelled = true;
            break;
        };
        if on_gpu && taken == slice {
            let per_ms = slice as f64 / done.ms.max(1.0);
            slice = ((per_ms * GPU_SLICE_MS) as usize).clamp(GPU_SLICES.0, GPU_SLICES.1);
        }
        answered = Some(done);
        // Let the page breathe between slices.
        TimeoutFuture::new(0).await;
    }
    // A slice answered before a Cancel is still written: nothing done is lost.
    if let Some(last) = answered.take() {
        output.write(last);
    }
    (output, cancelled)
}

/// The tail of a job, in steps of their own, each a task of a few milliseconds: the last output handed over,
/// the records kept for the Solve page, the downloads made.
async fn finish(
    mut output: Output,
    name: &str,
    job: Job,
    cancelled: bool,
    read_error: Option<String>,
    started: f64,
) -> Finished {
    TimeoutFuture::new(0).await;
    output.hand_over(0);
    let Output {
        format,
        tally,
        invalid,
        preview,
        kept,
        engines,
        out_parts,
        csv_parts,
        ..
    } = output;
    loaded::keep(name, kept);
    TimeoutFuture::new(0).await;
    let solutions_url = object_url(&out_parts);
    TimeoutFuture::new(0).await;
    let csv_url = object_url(&csv_parts);
    TimeoutFuture::new(0).await;
    let stem = name
        .rsplit_once('.')
        .map_or(name, |(stem, _)| stem)
        .to_string();
    let solutions_name = if format == Format::Csv {
        format!("{stem}.solved.csv")
    } else {
        format!("{stem}.sol")
    };
    let memory_bytes = wasm_bindgen::memory()
        .unchecked_into::<js_sys::WebAssembly::Memory>()
        .buffer()
        .unchecked_into::<js_sys::ArrayBuffer>()
        .byte_length() as f64;
    Finished {
        tally,
        invalid,
        preview,
        memory_bytes,
        seconds: (now_ms() - started) / 1000.0,
        engine: engines.join("; "),
        solutions_url,
        solutions_name,
        csv_url,
        csv_name: format!("{stem}.csv").replace(".csv.csv", ".csv"),
        cancelled,
        read_error,
        counting: matches!(job.mode, Mode::Count(_)),
    }
}
