//! The Batch page: many puzzles from pasted text or a file, solved with progress and Cancel, then the stats, a
//! preview, and downloads in the input's own layout and as CSV.
//!
//! The work streams: the file is read a few megabytes at a time, a slice of puzzles is parsed, answered (on
//! the workers or the GPU, never on this thread), written, and its output handed to the browser as a Blob
//! before the next slice. So the page keeps answering, and its own memory holds a few pieces of the file and
//! one slice whatever the file's length. Files past [`MAX_INPUT_BYTES`] are refused with a message: their
//! downloads would be held by the browser.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::browser::now_ms;
use super::engine::{self, Preference};
use super::engine_select::EngineSelect;
use super::generating::GenerateBatch;
use super::{loaded, storage, workers};
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
/// Invalid puzzles listed by line (the count covers them all).
const INVALID_SHOWN: usize = 100;
/// The largest file taken: its downloads (the solutions and the CSV, about three times the input) are held by
/// the browser until the page closes.
const MAX_INPUT_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
/// Characters of a loaded file shown in the text box (a large file shown whole would freeze the page).
const SHOWN_CHARS: usize = 100_000;

/// The finished job.
#[derive(Clone)]
struct Finished {
    tally: Tally,
    invalid: Vec<String>,
    preview: Vec<(usize, String)>,
    /// The page's wasm memory at the end: it only grows, so this is the peak.
    memory_bytes: f64,
    seconds: f64,
    engine: String,
    solutions_url: String,
    solutions_name: String,
    csv_url: String,
    csv_name: String,
    cancelled: bool,
    /// Why reading the file stopped early, if it did (everything read before is answered).
    read_error: Option<String>,
    counting: bool,
}

/// The page.
#[component]
pub fn BatchPage() -> impl IntoView {
    let text = RwSignal::new(String::new());
    let file_name = RwSignal::new(None::<String>);
    // The chosen file, read whole only when the job starts.
    let source = RwSignal::new_local(None::<web_sys::File>);
    let counting = RwSignal::new(false);
    // The CSV gets each puzzle's grade (rated on the workers).
    let grading = RwSignal::new(false);
    let preference = RwSignal::new(Preference::saved());
    let running = RwSignal::new(false);
    let cancel = RwSignal::new(false);
    // Puzzles answered, the share of the input read, puzzles per second.
    let progress = RwSignal::new((0u64, 0.0f64, 0.0f64));
    let finished = RwSignal::new(None::<Finished>);
    let message = RwSignal::new(String::new());

    let take_file = move |file: web_sys::File| {
        let name = file.name();
        let size = file.size();
        // The `max-input-bytes` test hook lowers the limit, so a test need not make a gigabyte file.
        let max = storage::test_hook("max-input-bytes")
            .and_then(|n| n.parse().ok())
            .unwrap_or(MAX_INPUT_BYTES);
        if size > max {
            message.set(format!(
                "{name} is {}: this page takes files up to {} (the browser holds its downloads, about three \
                 times the input). \
                 Split it, or use the command line (`forkboard solve {name}`), which streams files of any size.",
                bytes_text(size),
                bytes_text(max)
            ));
            return;
        }
        message.set(format!("Reading {name}…"));
        spawn_local(async move {
            // Only the beginning is shown; the whole file is read when the job starts.
            let head = file
                .slice_with_f64_and_f64(0.0, (SHOWN_CHARS as f64).min(size))
                .map(|b| b.text());
            match head {
                Ok(promise) => match wasm_bindgen_futures::JsFuture::from(promise).await {
                    Ok(content) => {
                        let mut shown = content.as_string().unwrap_or_default();
                        if size > SHOWN_CHARS as f64 {
                            shown.push('…');
                        }
                        text.set(shown);
                        message.set(format!("{name} is loaded. {}.", bytes_text(size)));
                        file_name.set(Some(name));
                        source.set(Some(file));
                    }
                    Err(_) => message.set(format!("{name} could not be read.")),
                },
                Err(_) => message.set(format!("{name} could not be read.")),
            }
        });
    };

    let start = move |_| {
        let pasted = text.get_untracked();
        let file = source.get_untracked();
        if file.is_none() && pasted.trim().is_empty() {
            message.set("Paste puzzles or choose a file first.".into());
            return;
        }
        running.set(true);
        cancel.set(false);
        finished.set(None);
        message.set(String::new());
        let mode = if counting.get_untracked() {
            Mode::Count(2)
        } else {
            Mode::First
        };
        let name = file_name
            .get_untracked()
            .unwrap_or_else(|| "puzzles.txt".into());
        let wanted = preference.get_untracked();
        let graded = grading.get_untracked();
        spawn_local(async move {
            let input = match file {
                Some(file) => Source::File(file),
                None => Source::Text(pasted),
            };
            let job = Job {
                mode,
                wanted,
                graded,
            };
            let done = run(input, name, job, progress, cancel).await;
            finished.set(Some(done));
            running.set(false);
        });
    };

    view! {
        <section class="batch">
            <h1>"Solve many puzzles"</h1>
            <div
                class="drop"
                data-testid="drop-zone"
                on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default()
                on:drop=move |ev: leptos::ev::DragEvent| {
                    ev.prevent_default();
                    if let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                        take_file(file);
                    }
                }
            >
                <p>"Drop a puzzle file here, choose one, or paste puzzles below (any layout: lines, blocks, grids, CSV)."</p>
                <input
                    type="file"
                    data-testid="file"
                    aria-label="Choose a puzzle file"
                    on:change=move |ev| {
                        let file = ev
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                            .and_then(|i| i.files())
                            .and_then(|f| f.get(0));
                        if let Some(file) = file {
                            take_file(file);
                        }
                    }
                />
                <textarea
                    data-testid="batch-text"
                    rows="8"
                    aria-label="Puzzles"
                    prop:value=move || text.get()
                    on:input=move |ev| {
                        text.set(event_target_value(&ev));
                        file_name.set(None);
                        source.set(None);
                    }
                ></textarea>
            </div>
            <div class="controls">
                <label>
                    <input type="checkbox" data-testid="count-mode" on:change=move |ev| counting.set(event_target_checked(&ev)) />
                    " Count solutions (uniqueness check)"
                </label>
                <label>
                    <input type="checkbox" data-testid="grade-mode" on:change=move |ev| grading.set(event_target_checked(&ev)) />
                    " Grade each puzzle (grade and score columns in the CSV)"
                </label>
                <EngineSelect preference test_id="batch-engine" />
                <button data-testid="run" on:click=start disabled=move || running.get()>"Solve all"</button>
                <button
                    data-testid="cancel"
                    on:click=move |_| {
                        cancel.set(true);
                        engine::cancel();
                    }
                    disabled=move || !running.get()
                >
                    "Cancel"
                </button>
            </div>
            <GenerateBatch on_made=Callback::new(move |lines: String| {
                text.set(lines);
                file_name.set(Some("generated.txt".into()));
                source.set(None);
            }) />
            <p data-testid="batch-message">{move || message.get()}</p>
            {move || {
                let (done, share, rate) = progress.get();
                (running.get() || done > 0)
                    .then(|| {
                        view! {
                            <div class="progress">
                                <progress data-testid="progress" max="1" value=share></progress>
                                <span data-testid="progress-text">
                                    {format!(
                                        "{done} puzzles · {:.0}% of the input · {rate:.0} puzzles/s",
                                        share * 100.0
                                    )}
                                </span>
                            </div>
                        }
                    })
            }}
            {move || finished.get().map(|f| view! { <Report finished=f /> })}
        </section>
    }
}

/// Stats, preview and downloads of a finished job.
#[component]
fn Report(finished: Finished) -> impl IntoView {
    let t = finished.tally;
    let rate = t.puzzles as f64 / finished.seconds.max(1e-9);
    let heading = match (&finished.read_error, finished.cancelled) {
        (Some(why), _) => format!(
            "Stopped: the file could not be read past {} puzzles ({why}); the answers up to there are below",
            t.puzzles
        ),
        (None, true) => "Cancelled: results so far".to_string(),
        (None, false) => "Done".to_string(),
    };
    view! {
        <div class="report" data-testid="report">
            <h2>{heading}</h2>
            <table class="stats">
                <tbody>
                    <tr><th>"Puzzles"</th><td data-testid="stat-puzzles">{t.puzzles}</td></tr>
                    <tr><th>"Solved"</th><td data-testid="stat-solved">{t.solved}</td></tr>
                    {finished
                        .counting
                        .then(|| {
                            view! {
                                <tr><th>"Unique"</th><td data-testid="stat-unique">{t.unique}</td></tr>
                                <tr><th>"Several solutions"</th><td data-testid="stat-multiple">{t.multiple}</td></tr>
                            }
                        })}
                    <tr><th>"No solution"</th><td data-testid="stat-none">{t.no_solution}</td></tr>
                    <tr><th>"Invalid"</th><td data-testid="stat-invalid">{t.invalid}</td></tr>
                    {(t.gave_up > 0)
                        .then(|| {
                            view! {
                                <tr>
                                    <th>"Gave up (too open to search)"</th>
                                    <td data-testid="stat-gave-up">{t.gave_up}</td>
                                </tr>
                            }
                        })}
                    <tr><th>"Time"</th><td>{format!("{:.2} s ({rate:.0} puzzles/s)", finished.seconds)}</td></tr>
                    <tr><th>"Engine"</th><td data-testid="stat-engine">{finished.engine}</td></tr>
                    <tr>
                        <th>"Page memory (peak)"</th>
                        <td data-testid="stat-memory" data-bytes=finished.memory_bytes>{bytes_text(finished.memory_bytes)}</td>
                    </tr>
                </tbody>
            </table>
            {(!finished.invalid.is_empty())
                .then(|| {
                    view! {
                        <h3>"Invalid puzzles"</h3>
                        <ul data-testid="invalid-list">
                            {finished.invalid.iter().map(|e| view! { <li>{e.clone()}</li> }).collect_view()}
                        </ul>
                        {(t.invalid > finished.invalid.len() as u64)
                            .then(|| {
                                format!(
                                    "and {} more (all in the downloads, each on its own line)",
                                    t.invalid - finished.invalid.len() as u64
                                )
                            })}
                    }
                })}
            <h3>"First results"</h3>
            <ol class="preview" data-testid="preview">
                {finished
                    .preview
                    .iter()
                    .map(|(line, text)| view! { <li><code>{format!("line {line}: {text}")}</code></li> })
                    .collect_view()}
            </ol>
            <p class="downloads">
                <a data-testid="download" href=finished.solutions_url download=finished.solutions_name.clone()>
                    {format!("Download {}", finished.solutions_name)}
                </a>
                " · "
                <a data-testid="download-csv" href=finished.csv_url download=finished.csv_name.clone()>
                    {format!("Download {}", finished.csv_name)}
                </a>
            </p>
        </div>
    }
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
enum Source {
    File(web_sys::File),
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
struct Job {
    mode: Mode,
    wanted: Preference,
    /// Grade columns in the CSV.
    graded: bool,
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

/// Reads, answers and writes the whole job slice by slice, updating `progress` and obeying `cancel`.
async fn run(
    source: Source,
    name: String,
    job: Job,
    progress: RwSignal<(u64, f64, f64)>,
    cancel: RwSignal<bool>,
) -> Finished {
    let Job {
        mode,
        wanted,
        graded,
    } = job;
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
    let on_gpu = engine::gpu_ready() && wanted != Preference::Cpu;
    let mut slice = if on_gpu { GPU_FIRST_SLICE } else { CPU_SLICE };
    let mut tally = Tally::default();
    let mut invalid = Vec::new();
    let mut preview = Vec::new();
    let mut kept: Vec<Record> = Vec::new();
    let mut engines_used: Vec<String> = Vec::new();
    let mut out = Writer::new(Vec::new(), format, Symbols::Standard);
    let mut csv = Writer::new(Vec::new(), Format::Csv, Symbols::Standard);
    if graded {
        csv = csv.graded();
    }
    let (out_parts, csv_parts) = (js_sys::Array::new(), js_sys::Array::new());
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
        if chunk.is_empty() {
            break;
        }
        let asked = now_ms();
        let Some(solved) = engine::solve(&chunk, mode, wanted).await else {
            cancelled = true;
            break;
        };
        if on_gpu && chunk.len() == slice {
            let per_ms = slice as f64 / (now_ms() - asked).max(1.0);
            slice = ((per_ms * GPU_SLICE_MS) as usize).clamp(GPU_SLICES.0, GPU_SLICES.1);
        }
        if !engines_used.contains(&solved.engine) {
            engines_used.push(solved.engine);
        }
        let grades = if graded {
            grade_columns(&chunk, &solved.answers).await
        } else {
            Vec::new()
        };
        // Checking the replies ran in this task: writing gets a task of its own.
        TimeoutFuture::new(0).await;
        for (k, (record, answer)) in chunk.iter().zip(&solved.answers).enumerate() {
            tally.add(answer);
            if let Answer::Invalid(e) = answer
                && invalid.len() < INVALID_SHOWN
            {
                invalid.push(e.to_string());
            }
            if preview.len() < PREVIEW {
                let shown = match answer {
                    Answer::Solved { solution, .. } => {
                        format!("{} ({})", solution, answer.status())
                    }
                    other => other.status(),
                };
                preview.push((record.line, shown));
            }
            let puzzle = record.puzzle.as_ref().ok();
            // Writing to memory cannot fail.
            let _ = out.write(record.line, puzzle, answer);
            let grade = grades.get(k).and_then(Option::as_ref);
            let _ = csv.write_graded(record.line, puzzle, answer, grade);
        }
        // The slice's output leaves wasm memory as a Blob (the browser may keep large ones on disk).
        out_parts.push(&blob(&std::mem::take(out.get_mut())));
        csv_parts.push(&blob(&std::mem::take(csv.get_mut())));
        let room = loaded::KEEP.saturating_sub(kept.len());
        kept.extend(chunk.into_iter().take(room));
        let seconds = (now_ms() - started) / 1000.0;
        progress.set((
            tally.puzzles,
            reader.get_mut().consumed as f64 / size.max(1.0),
            tally.puzzles as f64 / seconds.max(1e-9),
        ));
        // Let the page breathe between slices.
        TimeoutFuture::new(0).await;
    }
    // The tail of the job in steps of its own, each a task of a few milliseconds.
    TimeoutFuture::new(0).await;
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
        engine: engines_used.join("; "),
        solutions_url,
        solutions_name,
        csv_url,
        csv_name: format!("{stem}.csv").replace(".csv.csv", ".csv"),
        cancelled,
        read_error,
        counting: matches!(mode, Mode::Count(_)),
    }
}

/// A size for people: "81.9 KB", "1.2 GB".
fn bytes_text(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b => format!("{:.1} KB", b / 1e3),
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
pub(super) fn blob_url(bytes: Vec<u8>) -> String {
    object_url(&js_sys::Array::of1(&blob(&bytes)))
}
