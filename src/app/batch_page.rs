//! The Batch page: many puzzles from pasted text or a file, solved with progress and Cancel, then the stats, a
//! preview, and downloads in the input's own layout and as CSV.
//!
//! The work streams ([`super::batch_job`]): the file is read a few megabytes at a time, and each slice of
//! puzzles is answered on the workers or the GPU, never on this thread, while the slice before it is written.
//! Files past [`MAX_INPUT_BYTES`] are refused with a message: their downloads would be held by the browser.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::batch_job::{Finished, Job, Source, run};
use super::engine::{self, Preference};
use super::engine_select::EngineSelect;
use super::generating::GenerateBatch;
use super::storage;
use crate::sudoku::answer::Mode;

/// The largest file taken: its downloads (the solutions and the CSV, about three times the input) are held by
/// the browser until the page closes.
const MAX_INPUT_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
/// Characters of a loaded file shown in the text box (a large file shown whole would freeze the page).
const SHOWN_CHARS: usize = 100_000;

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
        // The last job's downloads go: the browser holds their Blobs (hundreds of megabytes for a million
        // puzzles) for as long as their URLs live.
        if let Some(last) = finished.get_untracked() {
            for url in [&last.solutions_url, &last.csv_url] {
                let _ = web_sys::Url::revoke_object_url(url);
            }
        }
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

/// A size for people: "81.9 KB", "1.2 GB".
fn bytes_text(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b => format!("{:.1} KB", b / 1e3),
    }
}
