//! The Queens page: choose N, see the expected time, count (total and unique) with progress and Cancel, one
//! solution drawn on a board, and the runs of this visit in a table. `/queens?n=12` opens it on N = 12.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_query_map;

use super::browser::{now_ms, origin};
use super::engine::{self, Preference};
use super::engine_select::EngineSelect;
use super::storage;
use crate::queens::{KNOWN, Tally, example, known, parse_n};

/// Solutions per second assumed before anything was measured here: a modest laptop GPU, and one wasm CPU
/// worker (the page multiplies by the workers it has).
const DEFAULT_GPU_RATE: f64 = 2e8;
const DEFAULT_CPU_RATE_PER_WORKER: f64 = 4e6;
/// Counts expected to take less than this start by themselves when the page is opened from a link.
const AUTO_START_SECONDS: f64 = 1.0;

/// One finished count.
#[derive(Clone, Debug, PartialEq)]
struct Run {
    n: u32,
    tally: Tally,
    seconds: f64,
    engine: String,
}

/// Solutions of an `n`-board: published up to 27, beyond that grown by the last known ratio (about 10.5).
fn expected_total(n: u32) -> f64 {
    match known(n) {
        Some(t) => t.total as f64,
        None => {
            let last = KNOWN[KNOWN.len() - 1].0 as f64;
            let ratio = last / KNOWN[KNOWN.len() - 2].0 as f64;
            last * ratio.powi(n as i32 - KNOWN.len() as i32)
        }
    }
}

/// Solutions per second of the engine the page would use, measured here if ever, else assumed.
fn rate(on_gpu: bool) -> (f64, bool) {
    let key = if on_gpu { "gpu" } else { "cpu" };
    match storage::load_queens_rate(key) {
        Some(rate) => (rate, true),
        None if on_gpu => (DEFAULT_GPU_RATE, false),
        None => {
            let workers = window().navigator().hardware_concurrency().clamp(1.0, 8.0);
            (DEFAULT_CPU_RATE_PER_WORKER * workers, false)
        }
    }
}

/// "under a second", "about 40 s", "about 3 min", "about 5 h", "about 12 days", "many years".
fn duration_words(seconds: f64) -> String {
    match seconds {
        s if s < 1.0 => "under a second".into(),
        s if s < 90.0 => format!("about {s:.0} s"),
        s if s < 90.0 * 60.0 => format!("about {:.0} min", s / 60.0),
        s if s < 48.0 * 3600.0 => format!("about {:.0} h", s / 3600.0),
        s if s < 365.0 * 86400.0 => format!("about {:.0} days", s / 86400.0),
        _ => "many years".into(),
    }
}

/// The page.
#[component]
pub fn QueensPage() -> impl IntoView {
    let query = use_query_map().get_untracked();
    let from_link = query.get("n");
    let n_text = RwSignal::new(from_link.clone().unwrap_or_else(|| "8".to_string()));
    let preference = RwSignal::new(Preference::saved());
    let running = RwSignal::new(false);
    let cancel = RwSignal::new(false);
    let progress = RwSignal::new(0.0f64);
    let result = RwSignal::new(None::<Run>);
    let runs = RwSignal::new(Vec::<Run>::new());
    let message = RwSignal::new(String::new());

    let parsed = move || parse_n(&n_text.get());
    // Re-read when the GPU becomes ready: the estimate depends on the engine.
    let estimate = move || {
        let _ = engine::status();
        let n = parsed().ok()?;
        let on_gpu = engine::queens_on_gpu(n, preference.get());
        let (rate, measured) = rate(on_gpu);
        let seconds = expected_total(n) / rate;
        Some((n, seconds, on_gpu, measured))
    };

    let count = move || {
        if running.get_untracked() {
            return;
        }
        let n = match parse_n(&n_text.get_untracked()) {
            Ok(n) => n,
            Err(e) => {
                message.set(e.to_string());
                return;
            }
        };
        message.set(String::new());
        running.set(true);
        cancel.set(false);
        progress.set(0.0);
        super::browser::replace_address(&format!("/queens?n={n}"));
        let on_progress: Rc<dyn Fn(f64) -> bool> = Rc::new(move |fraction| {
            progress.set(fraction);
            !cancel.get_untracked()
        });
        spawn_local(async move {
            let started = now_ms();
            let run = engine::count_queens(n, preference.get_untracked(), on_progress).await;
            // The count's own time: a wait for the GPU's kernel to compile is said in the engine's words.
            let seconds = (now_ms() - started) / 1000.0 - run.compile_seconds;
            running.set(false);
            let Some(classes) = run.classes else {
                message.set(format!("Cancelled the count for N = {n}."));
                return;
            };
            let tally = classes.tally(n);
            // Long runs teach the page this machine's speed, for the next estimate.
            if seconds > 0.2 && tally.total > 0 {
                storage::save_queens_rate(
                    if run.on_gpu { "gpu" } else { "cpu" },
                    tally.total as f64 / seconds,
                );
            }
            let finished = Run {
                n,
                tally,
                seconds,
                engine: run.engine,
            };
            runs.update(|r| r.insert(0, finished.clone()));
            result.set(Some(finished));
        });
    };

    // A link with a small N answers at once; a large one waits for the button, showing its expected time.
    if from_link.is_some() {
        match parse_n(&n_text.get_untracked()) {
            Err(e) => message.set(format!(
                "The link asks for a board the page cannot count: {e}"
            )),
            Ok(n) if expected_total(n) / rate(false).0 < AUTO_START_SECONDS => count(),
            Ok(_) => {}
        }
    }

    view! {
        <section class="queens">
            <h1>"N-Queens"</h1>
            <p class="lead">
                "How many ways can N queens share an N×N board with none attacking another? "
                "Counted in full, and up to rotation and reflection."
            </p>
            <div class="controls">
                <label>
                    "N "
                    <input
                        data-testid="queens-n"
                        type="number"
                        min="1"
                        max="32"
                        inputmode="numeric"
                        prop:value=move || n_text.get()
                        on:input=move |ev| {
                            n_text.set(event_target_value(&ev));
                            message.set(String::new());
                        }
                        on:keydown=move |ev| {
                            if ev.key() == "Enter" {
                                count();
                            }
                        }
                    />
                </label>
                <EngineSelect preference test_id="queens-engine" />
                <button data-testid="queens-count" on:click=move |_| count() disabled=move || running.get()>
                    "Count"
                </button>
                <button
                    data-testid="queens-cancel"
                    on:click=move |_| cancel.set(true)
                    disabled=move || !running.get()
                >
                    "Cancel"
                </button>
            </div>
            <p data-testid="queens-estimate" class=move || {
                match estimate() {
                    Some((_, s, _, _)) if s > 60.0 => "estimate warn",
                    _ => "estimate",
                }
            }>
                {move || match (parsed(), estimate()) {
                    (Err(e), _) => e.to_string(),
                    (Ok(_), Some((n, seconds, on_gpu, measured))) => {
                        let engine = if on_gpu { "the GPU" } else { "the CPU workers" };
                        let basis = if measured { "from earlier runs here" } else { "a first guess" };
                        let mut line = format!(
                            "N = {n}: expected {} on {engine} ({basis}).",
                            duration_words(seconds)
                        );
                        if seconds > 60.0 {
                            line.push_str(" That is long: Cancel stops it at any time.");
                        }
                        line
                    }
                    (Ok(_), None) => String::new(),
                }}
            </p>
            <p class="message" role="status" aria-live="polite" data-testid="queens-message">
                {move || message.get()}
            </p>
            <Show when=move || running.get()>
                <div class="progress">
                    <progress data-testid="queens-progress" max="1" value=move || progress.get()></progress>
                    <span>{move || format!("{:.0}%", progress.get() * 100.0)}</span>
                </div>
            </Show>
            {move || result.get().map(|run| view! { <QueensResult run /> })}
            <Show when=move || !runs.get().is_empty()>
                <h2>"Runs on this visit"</h2>
                <table class="runs" data-testid="queens-runs">
                    <thead>
                        <tr>
                            <th>"N"</th>
                            <th>"Total"</th>
                            <th>"Unique"</th>
                            <th>"Seconds"</th>
                            <th>"Engine"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            runs.get()
                                .into_iter()
                                .map(|r| {
                                    view! {
                                        <tr>
                                            <td>{r.n}</td>
                                            <td>{r.tally.total}</td>
                                            <td>{r.tally.unique}</td>
                                            <td>{format!("{:.3}", r.seconds)}</td>
                                            <td>{r.engine}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()
                        }}
                    </tbody>
                </table>
            </Show>
        </section>
    }
}

/// The counts of one run, the check against the published numbers, a share link and one solution drawn.
#[component]
fn QueensResult(run: Run) -> impl IntoView {
    let n = run.n;
    let check = match known(n) {
        Some(expected) if expected == run.tally => "Matches the published count.".to_string(),
        Some(expected) => format!(
            "Differs from the published count ({} / {})!",
            expected.total, expected.unique
        ),
        None => "No published count to compare with.".to_string(),
    };
    let link = format!("{}/queens?n={n}", origin());
    let board = example::solution(n);
    view! {
        <div class="queens-result" data-testid="queens-result">
            <p class="counts">
                "N = " {n} ": "
                <strong data-testid="queens-total">{run.tally.total}</strong>
                " solutions, "
                <strong data-testid="queens-unique">{run.tally.unique}</strong>
                " unique up to rotation and reflection."
            </p>
            <p class="detail" data-testid="queens-detail">
                {format!("{:.3} s · {}", run.seconds, run.engine)}
            </p>
            <p class="detail" data-testid="queens-check">{check}</p>
            <p class="share">
                <label>
                    "Link to this count "
                    <input data-testid="queens-link" readonly prop:value=link />
                </label>
            </p>
            {match board {
                None => view! { <p data-testid="queens-board-none">"No arrangement exists for this N."</p> }.into_any(),
                Some(cols) => view! { <QueensBoard cols /> }.into_any(),
            }}
        </div>
    }
}

/// A board with one queen per row at `cols[row]`.
#[component]
fn QueensBoard(cols: Vec<u32>) -> impl IntoView {
    let n = cols.len();
    let squares = (0..n * n)
        .map(|i| {
            let (row, col) = (i / n, i % n);
            let dark = (row + col) % 2 == 1;
            let queen = cols[row] as usize == col;
            view! {
                <div class="square" class:dark=dark class:queen=queen>
                    {queen.then_some("♛")}
                </div>
            }
        })
        .collect_view();
    view! {
        <div
            class="queens-board"
            data-testid="queens-board"
            role="img"
            aria-label=format!("One solution for N = {n}: {}", describe(&cols))
            style=format!("grid-template-columns: repeat({n}, 1fr); --qn: {n}")
        >
            {squares}
        </div>
    }
}

/// "a1 e2 …": each row's queen as a column letter (a, b, …) and the row number.
fn describe(cols: &[u32]) -> String {
    cols.iter()
        .enumerate()
        .map(|(row, &col)| format!("{}{}", char::from(b'a' + col as u8), row + 1))
        .collect::<Vec<_>>()
        .join(" ")
}
