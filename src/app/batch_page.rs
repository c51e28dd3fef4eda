//! The Batch page: many puzzles from pasted text or a file, solved with progress and Cancel, then the stats, a
//! preview, and downloads in the input's own layout and as CSV.
//!
//! The work runs in slices that yield to the browser between them (the CPU engine: a few hundred puzzles per
//! slice; the GPU: a few thousand per submission), so the page keeps answering while it runs.

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::browser::now_ms;
use super::engine::{self, Preference};
use super::engine_select::EngineSelect;
use crate::sudoku::answer::{Mode, Tally};
use crate::sudoku::format::{Answer, Format, ReadOptions, Reader, Record, Writer};
use crate::sudoku::symbols::Symbols;

/// Puzzles per CPU slice, shared out among the workers: large enough to keep them busy, small enough for
/// progress to move and Cancel to act within a moment.
const CPU_SLICE: usize = 2000;
/// Puzzles per GPU submission from this page.
const GPU_SLICE: usize = 8192;
/// Records parsed, or answers written, per main-thread slice: a few milliseconds each, so the page keeps
/// responding while a file of a million puzzles is read and written.
const TEXT_SLICE: usize = 5000;
/// Results shown in the preview.
const PREVIEW: usize = 10;

/// The finished job.
#[derive(Clone)]
struct Finished {
    tally: Tally,
    invalid: Vec<String>,
    preview: Vec<(usize, String)>,
    seconds: f64,
    engine: String,
    solutions_url: String,
    solutions_name: String,
    csv_url: String,
    csv_name: String,
    cancelled: bool,
    counting: bool,
}

/// The page.
#[component]
pub fn BatchPage() -> impl IntoView {
    let text = RwSignal::new(String::new());
    let file_name = RwSignal::new(None::<String>);
    let counting = RwSignal::new(false);
    let preference = RwSignal::new(Preference::saved());
    let running = RwSignal::new(false);
    let cancel = RwSignal::new(false);
    let progress = RwSignal::new((0usize, 0usize, 0.0f64));
    let finished = RwSignal::new(None::<Finished>);
    let message = RwSignal::new(String::new());

    let take_file = move |file: web_sys::File| {
        let name = file.name();
        message.set(format!("Reading {name}…"));
        spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                Ok(content) => {
                    text.set(content.as_string().unwrap_or_default());
                    message.set(format!("{name} is loaded."));
                    file_name.set(Some(name));
                }
                Err(_) => message.set(format!("{name} could not be read.")),
            }
        });
    };

    let start = move |_| {
        let input = text.get_untracked();
        if input.trim().is_empty() {
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
        spawn_local(async move {
            let done = run(input, name, mode, wanted, progress, cancel).await;
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
                    prop:value=move || {
                        let t = text.get();
                        // A large file is not shown whole: the text box would freeze the page.
                        if t.len() > 100_000 { format!("{}…", &t[..t.floor_char_boundary(100_000)]) } else { t }
                    }
                    on:input=move |ev| {
                        text.set(event_target_value(&ev));
                        file_name.set(None);
                    }
                ></textarea>
            </div>
            <div class="controls">
                <label>
                    <input type="checkbox" data-testid="count-mode" on:change=move |ev| counting.set(event_target_checked(&ev)) />
                    " Count solutions (uniqueness check)"
                </label>
                <EngineSelect preference test_id="batch-engine" />
                <button data-testid="run" on:click=start disabled=move || running.get()>"Solve all"</button>
                <button data-testid="cancel" on:click=move |_| cancel.set(true) disabled=move || !running.get()>
                    "Cancel"
                </button>
            </div>
            <p data-testid="batch-message">{move || message.get()}</p>
            {move || {
                let (done, total, rate) = progress.get();
                (running.get() || done > 0)
                    .then(|| {
                        view! {
                            <div class="progress">
                                <progress data-testid="progress" max=total.max(1) value=done></progress>
                                <span data-testid="progress-text">
                                    {format!("{done} of {total} puzzles · {rate:.0} puzzles/s")}
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
    let heading = if finished.cancelled {
        "Cancelled: results so far"
    } else {
        "Done"
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
                    <tr><th>"Time"</th><td>{format!("{:.2} s ({rate:.0} puzzles/s)", finished.seconds)}</td></tr>
                    <tr><th>"Engine"</th><td data-testid="stat-engine">{finished.engine}</td></tr>
                </tbody>
            </table>
            {(!finished.invalid.is_empty())
                .then(|| {
                    view! {
                        <h3>"Invalid puzzles"</h3>
                        <ul data-testid="invalid-list">
                            {finished.invalid.iter().map(|e| view! { <li>{e.clone()}</li> }).collect_view()}
                        </ul>
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

/// Reads, solves and writes the whole job, slice by slice, updating `progress` and obeying `cancel`.
async fn run(
    input: String,
    name: String,
    mode: Mode,
    wanted: Preference,
    progress: RwSignal<(usize, usize, f64)>,
    cancel: RwSignal<bool>,
) -> Finished {
    let started = now_ms();
    let mut reader = Reader::new(input.as_bytes(), ReadOptions::default());
    let format = reader.format();
    let mut records: Vec<Record> = Vec::new();
    loop {
        let before = records.len();
        records.extend(reader.by_ref().take(TEXT_SLICE));
        if records.len() == before {
            break;
        }
        progress.set((0, records.len(), 0.0));
        TimeoutFuture::new(0).await;
    }
    let total = records.len();
    super::loaded::keep(&name, &records);
    progress.set((0, total, 0.0));
    // The GPU takes big slices when it is wanted and worth it; otherwise the CPU takes small ones.
    let use_gpu = engine::gpu_ready()
        && match wanted {
            Preference::Gpu => true,
            Preference::Cpu => false,
            Preference::Auto => total >= engine::AUTO_GPU_MIN,
        };
    let (slice, per_slice) = if use_gpu {
        (GPU_SLICE, Preference::Gpu)
    } else {
        (CPU_SLICE, Preference::Cpu)
    };
    let mut answers: Vec<Answer> = Vec::with_capacity(total);
    let mut engines_used: Vec<String> = Vec::new();
    let mut cancelled = false;
    for chunk in records.chunks(slice) {
        if cancel.get_untracked() {
            cancelled = true;
            break;
        }
        let solved = engine::solve(chunk.to_vec(), mode, per_slice).await;
        if !engines_used.contains(&solved.engine) {
            engines_used.push(solved.engine);
        }
        answers.extend(solved.answers);
        let seconds = (now_ms() - started) / 1000.0;
        progress.set((
            answers.len(),
            total,
            answers.len() as f64 / seconds.max(1e-9),
        ));
        // Let the page breathe between slices.
        TimeoutFuture::new(0).await;
    }
    let mut tally = Tally::default();
    let mut invalid = Vec::new();
    let mut preview = Vec::new();
    let mut out = Writer::new(Vec::new(), format, Symbols::Standard);
    let mut csv = Writer::new(Vec::new(), Format::Csv, Symbols::Standard);
    for (n, (record, answer)) in records.iter().zip(&answers).enumerate() {
        if n > 0 && n % TEXT_SLICE == 0 {
            TimeoutFuture::new(0).await;
        }
        tally.add(answer);
        if let Answer::Invalid(e) = answer {
            invalid.push(e.to_string());
        }
        if preview.len() < PREVIEW {
            let shown = match answer {
                Answer::Solved { solution, .. } => format!("{} ({})", solution, answer.status()),
                other => other.status(),
            };
            preview.push((record.line, shown));
        }
        let puzzle = record.puzzle.as_ref().ok();
        // Writing to memory cannot fail.
        let _ = out.write(record.line, puzzle, answer);
        let _ = csv.write(record.line, puzzle, answer);
    }
    let stem = name
        .rsplit_once('.')
        .map_or(name.as_str(), |(stem, _)| stem)
        .to_string();
    let solutions_name = if format == Format::Csv {
        format!("{stem}.solved.csv")
    } else {
        format!("{stem}.sol")
    };
    Finished {
        tally,
        invalid,
        preview,
        seconds: (now_ms() - started) / 1000.0,
        engine: engines_used.join("; "),
        solutions_url: blob_url(out.finish().unwrap_or_default()),
        solutions_name,
        csv_url: blob_url(csv.finish().unwrap_or_default()),
        csv_name: format!("{stem}.csv").replace(".csv.csv", ".csv"),
        cancelled,
        counting: matches!(mode, Mode::Count(_)),
    }
}

/// An object URL for downloading `bytes` as text.
pub(super) fn blob_url(bytes: Vec<u8>) -> String {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain;charset=utf-8");
    web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob))
        .unwrap_or_default()
}
