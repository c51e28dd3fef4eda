//! The Batch page's job: the input read a few megabytes at a time, cut into slices of puzzles, each slice
//! answered (on the workers or the GPU, never on the page's thread) while the one before it is tallied and
//! written, and the output handed to the browser as Blobs a few megabytes at a time. So the page keeps
//! answering, and its own memory holds a few pieces of the file and two slices whatever the file's length.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

use futures_channel::oneshot;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::browser::now_ms;
use super::engine::{self, Preference};
use super::{loaded, workers};
use crate::sudoku::answer::{Mode, Tally};
use crate::sudoku::format::{Answer, Format, GradeColumn, ReadOptions, Reader, Record, Writer};
use crate::sudoku::learn_protocol::Rated;
use crate::sudoku::logic::Rating;
use crate::sudoku::symbols::Symbols;

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
/// Results shown in the preview.
const PREVIEW: usize = 10;
/// Output held in wasm memory before it leaves as a Blob. Each Blob is a round trip to the browser's process:
/// two per slice of 2,000 puzzles (a thousand for a million) took about a sixth of the page's busy time.
const BLOB_BYTES: usize = 4 << 20;
/// Milliseconds between progress readings: each redraws part of the page, and slices come every few
/// milliseconds.
const PROGRESS_MS: f64 = 100.0;
/// Invalid puzzles listed by line (the count covers them all).
const INVALID_SHOWN: usize = 100;

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
const PIECE: f64 = 4.0 * 1024.0 * 1024.0;
/// Records are only taken while at least this much of the file is read ahead (or all of it is): the reader
/// takes a dry input for the end, and no record (25 rows of at most 64 KiB) comes near it.
const READ_AHEAD: usize = 8 * 1024 * 1024;

/// Reads the next pieces of `file` into `feed` until it holds [`READ_AHEAD`] bytes or the file is all read;
/// `offset` is how far the file has been read.
async fn top_up(feed: &mut Feed, file: &web_sys::File, offset: &mut f64) -> Result<(), String> {
    while feed.ahead() < READ_AHEAD && *offset < file.size() {
        let end = (*offset + PIECE).min(file.size());
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

/// A slice answered: its records, their answers (and grades, for a graded CSV), the engine that answered, and
/// how long that took.
struct Answered {
    chunk: Vec<Record>,
    answers: Vec<Answer>,
    grades: Vec<Option<GradeColumn>>,
    engine: String,
    ms: f64,
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

/// What a job has written so far: the tallies, the preview, the two outputs (in memory until a Blob's worth)
/// and the records kept for the Solve page.
struct Output {
    tally: Tally,
    invalid: Vec<String>,
    preview: Vec<(usize, String)>,
    kept: Vec<Record>,
    engines: Vec<String>,
    out: Writer<Vec<u8>>,
    csv: Writer<Vec<u8>>,
    out_parts: js_sys::Array,
    csv_parts: js_sys::Array,
}

impl Output {
    fn new(format: Format, graded: bool) -> Self {
        let csv = Writer::new(Vec::new(), Format::Csv, Symbols::Standard);
        Self {
            tally: Tally::default(),
            invalid: Vec::new(),
            preview: Vec::new(),
            kept: Vec::new(),
            engines: Vec::new(),
            out: Writer::new(Vec::new(), format, Symbols::Standard),
            csv: if graded { csv.graded() } else { csv },
            out_parts: js_sys::Array::new(),
            csv_parts: js_sys::Array::new(),
        }
    }

    /// Tallies and writes an answered slice.
    fn write(&mut self, answered: Answered) {
        let Answered {
            chunk,
            answers,
            grades,
            engine,
            ..
        } = answered;
        if !self.engines.contains(&engine) {
            self.engines.push(engine);
        }
        for (k, (record, answer)) in chunk.iter().zip(&answers).enumerate() {
            self.tally.add(answer);
            if let Answer::Invalid(e) = answer
                && self.invalid.len() < INVALID_SHOWN
            {
                self.invalid.push(e.to_string());
            }
            if self.preview.len() < PREVIEW {
                let shown = match answer {
                    Answer::Solved { solution, .. } => {
                        format!("{} ({})", solution, answer.status())
                    }
                    other => other.status(),
                };
                self.preview.push((record.line, shown));
            }
            let puzzle = record.puzzle.as_ref().ok();
            // Writing to memory cannot fail.
            let _ = self.out.write(record.line, puzzle, answer);
            let grade = grades.get(k).and_then(Option::as_ref);
            let _ = self.csv.write_graded(record.line, puzzle, answer, grade);
        }
        self.hand_over(BLOB_BYTES);
        let room = loaded::KEEP.saturating_sub(self.kept.len());
        self.kept.extend(chunk.into_iter().take(room));
    }

    /// Hands each output to the browser as a Blob (which it may keep on disk) once it holds `at_least` bytes
    /// (0: whatever it holds, at the end).
    fn hand_over(&mut self, at_least: usize) {
        for (writer, parts) in [
            (&mut self.out, &self.out_parts),
            (&mut self.csv, &self.csv_parts),
        ] {
            if writer.get_mut().len() >= at_least {
                parts.push(&blob(&std::mem::take(writer.get_mut())));
            }
        }
    }
}

/// Reads, answers and writes the whole job slice by slice, updating `progress` and obeying `cancel`. Each
/// slice is answered while the one before it is written: the two take about as long on a 2-core machine (a
/// slice of 2,000 easy puzzles: 2-4 ms on two workers, a few more here), so neither waits on the other.
pub(super) async fn run(
    source: Source,
    name: String,
    job: Job,
    progress: RwSignal<(u64, f64, f64)>,
    cancel: RwSignal<bool>,
) -> Finished {
    let started = now_ms();
    let mut feed = Feed::default();
    let (file, size) = match source {
        Source::File(file) => {
            let size = file.size();
            (Some(file), size)
        }
        Source::Text(text) => {
            let size = text.len() as f64;
            feed.push(text.into_bytes());
            (None, size)
        }
    };
    // How far the file has been read, and the first read error (the answers so far are kept).
    let mut offset = 0.0;
    let mut read_error = None;
    if let Some(file) = &file
        && let Err(why) = top_up(&mut feed, file, &mut offset).await
    {
        read_error = Some(why);
    }
    let mut reader = Reader::new(feed, ReadOptions::default());
    let format = reader.format();
    // GPU slices are sized to this adapter when the GPU may be used (Auto still sends a small last slice to
    // the CPU); the CPU's are fixed and small, so progress moves.
    let on_gpu = engine::gpu_ready() && job.wanted != Preference::Cpu;
    let mut slice = if on_gpu { GPU_FIRST_SLICE } else { CPU_SLICE };
    let mut output = Output::new(format, job.graded);
    // The slice answered last, waiting to be written.
    let mut answered: Option<Answered> = None;
    let mut shown_at = f64::NEG_INFINITY;
    let mut cancelled = false;
    loop {
        if cancel.get_untracked() {
            cancelled = true;
            break;
        }
        if let Some(file) = &file
            && read_error.is_none()
            && let Err(why) = top_up(reader.get_mut(), file, &mut offset).await
        {
            read_error = Some(why);
        }
        // Records are taken while enough of the file is read ahead: a dry feed would read as the end.
        let whole = file.as_ref().is_none_or(|f| offset >= f.size()) || read_error.is_some();
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
            let now = now_ms();
            if now - shown_at >= PROGRESS_MS {
                shown_at = now;
                let seconds = (now - started) / 1000.0;
                progress.set((
                    output.tally.puzzles,
                    reader.get_mut().consumed as f64 / size.max(1.0),
                    output.tally.puzzles as f64 / seconds.max(1e-9),
                ));
            }
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
    // The tail of the job in steps of its own, each a task of a few milliseconds.
    TimeoutFuture::new(0).await;
    output.hand_over(0);
    let Output {
        tally,
        invalid,
        preview,
        kept,
        engines,
        out_parts,
        csv_parts,
        ..
    } = output;
    loaded::keep(&name, kept);
    TimeoutFuture::new(0).await;
    let solutions_url = object_url(&out_parts);
    TimeoutFuture::new(0).await;
    let csv_url = object_url(&csv_parts);
    TimeoutFuture::new(0).await;
    let stem = name
        .rsplit_once('.')
        .map_or(name.as_str(), |(stem, _)| stem)
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

/// A text Blob holding `bytes`.
fn blob(bytes: &[u8]) -> web_sys::Blob {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    text_blob(&parts)
}

fn text_blob(parts: &js_sys::Array) -> web_sys::Blob {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain;charset=utf-8");
    web_sys::Blob::new_with_blob_sequence_and_options(parts, &options)
        .expect("a Blob of Blobs and byte arrays")
}

/// An object URL for downloading the concatenation of `parts` (Blobs) as text.
fn object_url(parts: &js_sys::Array) -> String {
    web_sys::Url::create_object_url_with_blob(&text_blob(parts)).unwrap_or_default()
}

/// An object URL for downloading `bytes` as text.
pub(in crate::app) fn blob_url(bytes: Vec<u8>) -> String {
    object_url(&js_sys::Array::of1(&blob(&bytes)))
}
