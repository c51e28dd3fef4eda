//! The Compare page: the CPU engine (the Web Workers) against the GPU on this machine — Sudoku batches of
//! several sizes from a bundled sample (or the Batch page's puzzles) and N-Queens counts for a range of N —
//! drawn as charts with the crossover marked, the numbers in a table below, every result checked, exportable as
//! CSV and as a link that reopens the same settings. The measured crossovers then steer Auto on every page.

use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_query_map;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::browser::{now_ms, origin};
use super::chart_view::ChartView;
use super::engine::{self, EngineStatus, Preference};
use super::{loaded, storage};
use crate::chart::{Chart, Series, crossover, number};
use crate::queens::known;
use crate::sudoku::answer::Mode;
use crate::sudoku::format::{Answer, ReadOptions, Reader, Record};

/// The bundled sets: query name, label, file under `public/samples/`.
const SETS: [(&str, &str, &str); 4] = [
    ("easy", "Easy (1,000 kaggle puzzles)", "/samples/easy.txt"),
    ("17clue", "17-clue (1,000 puzzles)", "/samples/17clue.txt"),
    ("hard", "Hard (top95)", "/samples/top95.in"),
    // Where the GPU's lanes pull furthest ahead: each puzzle needs dozens to hundreds of guesses.
    (
        "hardest",
        "Hardest (1,000 of the forum's hardest)",
        "/samples/hardest.txt",
    ),
];
/// The batch sizes offered.
const SIZES: [usize; 6] = [1, 10, 100, 1_000, 10_000, 100_000];

/// One Sudoku batch on both engines.
#[derive(Clone, Debug, PartialEq)]
struct SudokuRow {
    size: usize,
    cpu: f64,
    gpu: Option<f64>,
    solved: usize,
    agree: bool,
}

/// One N-Queens count on both engines.
#[derive(Clone, Debug, PartialEq)]
struct QueensRow {
    n: u32,
    total: u64,
    unique: u64,
    cpu: f64,
    gpu: Option<f64>,
    agree: bool,
}

/// The settings, as in the share link.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    set: String,
    sizes: Vec<usize>,
    queens: (u32, u32),
}

impl Settings {
    fn from_query(set: Option<String>, sizes: Option<String>, queens: Option<String>) -> Self {
        let sizes: Vec<usize> = sizes
            .map(|s| {
                s.split(',')
                    .filter_map(|v| v.trim().parse().ok())
                    .filter(|v| SIZES.contains(v))
                    .collect()
            })
            .filter(|v: &Vec<usize>| !v.is_empty())
            .unwrap_or_else(|| vec![1, 10, 100, 1_000]);
        let queens = queens
            .and_then(|q| {
                let (a, b) = q.split_once("..")?;
                let (a, b) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
                (1..=18).contains(&a).then_some(())?;
                (a..=18).contains(&b).then_some((a, b))
            })
            .unwrap_or((8, 12));
        let set = set
            .filter(|s| SETS.iter().any(|(name, _, _)| name == s) || s == "batch")
            .unwrap_or_else(|| "easy".to_string());
        Self { set, sizes, queens }
    }

    fn query(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
        format!(
            "set={}&sizes={}&queens={}..{}",
            self.set,
            sizes.join(","),
            self.queens.0,
            self.queens.1
        )
    }
}

/// The page.
#[component]
pub fn ComparePage() -> impl IntoView {
    let query = use_query_map().get_untracked();
    let initial = Settings::from_query(query.get("set"), query.get("sizes"), query.get("queens"));
    let set = RwSignal::new(initial.set.clone());
    let sizes = RwSignal::new(initial.sizes.clone());
    let queens_from = RwSignal::new(initial.queens.0);
    let queens_to = RwSignal::new(initial.queens.1);
    let running = RwSignal::new(false);
    let cancel = RwSignal::new(false);
    let step = RwSignal::new((0usize, 0usize, String::new()));
    let sudoku_rows = RwSignal::new(Vec::<SudokuRow>::new());
    let queens_rows = RwSignal::new(Vec::<QueensRow>::new());
    let message = RwSignal::new(String::new());
    let batch_name =
        loaded::get().map(|(name, records)| format!("{name} ({} puzzles)", records.len()));

    let settings = move || Settings {
        set: set.get(),
        sizes: sizes.get(),
        queens: (
            queens_from.get().min(queens_to.get()),
            queens_from.get().max(queens_to.get()),
        ),
    };

    let start = move |_| {
        if running.get_untracked() {
            return;
        }
        let settings = settings();
        running.set(true);
        cancel.set(false);
        message.set(String::new());
        sudoku_rows.set(Vec::new());
        queens_rows.set(Vec::new());
        super::browser::replace_address(&format!("/compare?{}", settings.query()));
        spawn_local(async move {
            let outcome = run(settings, step, cancel, sudoku_rows, queens_rows).await;
            running.set(false);
            match outcome {
                Ok(true) => message.set("Done.".into()),
                Ok(false) => message.set("Cancelled: the results so far are kept below.".into()),
                Err(e) => message.set(e),
            }
        });
    };

    let sudoku_chart = move || {
        let rows = sudoku_rows.get();
        if rows.is_empty() {
            return None;
        }
        let (cpu, gpu) = sudoku_series(&rows);
        let cross = crossover(&cpu, &gpu);
        let chart = Chart {
            title: "Sudoku: puzzles per second".into(),
            x_label: "puzzles in the batch".into(),
            y_label: "puzzles / s".into(),
            log_x: true,
            log_y: true,
            series: vec![cpu, gpu],
            marker: cross.map(|at| (at, format!("GPU ahead from ≈ {}", number(at)))),
        };
        Some(view! { <ChartView plot=chart.plot(640.0, 340.0) test_id="sudoku-chart" /> })
    };
    let queens_chart = move || {
        let rows = queens_rows.get();
        if rows.is_empty() {
            return None;
        }
        let chart = Chart {
            title: "N-Queens: seconds per count".into(),
            x_label: "N".into(),
            y_label: "seconds".into(),
            log_x: false,
            log_y: true,
            series: {
                let (cpu, gpu) = queens_series(&rows, |seconds| seconds);
                vec![cpu, gpu]
            },
            marker: None,
        };
        Some(view! { <ChartView plot=chart.plot(640.0, 340.0) test_id="queens-chart" /> })
    };
    let csv_url = move || {
        let mut csv = String::from("kind,size,cpu_seconds,gpu_seconds,check\n");
        let row = |kind: &str, size: String, cpu: f64, gpu: Option<f64>, agree: bool| {
            let gpu = gpu.map_or(String::new(), |g| format!("{g:.6}"));
            let check = if agree { "agree" } else { "differ" };
            format!("{kind},{size},{cpu:.6},{gpu},{check}\n")
        };
        for r in sudoku_rows.get() {
            csv.push_str(&row("sudoku", r.size.to_string(), r.cpu, r.gpu, r.agree));
        }
        for r in queens_rows.get() {
            csv.push_str(&row("queens", r.n.to_string(), r.cpu, r.gpu, r.agree));
        }
        super::batch_output::blob_url(csv.into_bytes())
    };

    view! {
        <section class="compare">
            <h1>"CPU and GPU, side by side"</h1>
            <p class="lead">
                "The same puzzles and boards on the CPU workers and on the GPU of this machine: where does the GPU "
                "pull ahead, and by how much? Every answer is checked on both."
            </p>
            <div class="controls">
                <label>
                    "Puzzles "
                    <select data-testid="compare-set" prop:value=move || set.get() on:change=move |ev| set.set(event_target_value(&ev))>
                        {SETS.iter().map(|(name, label, _)| view! { <option value=*name>{*label}</option> }).collect_view()}
                        {batch_name.clone().map(|label| view! { <option value="batch">{format!("From Batch: {label}")}</option> })}
                    </select>
                </label>
                <fieldset class="sizes">
                    <legend>"Batch sizes"</legend>
                    {SIZES
                        .iter()
                        .map(|&size| {
                            view! {
                                <label>
                                    <input
                                        type="checkbox"
                                        data-testid=format!("compare-size-{size}")
                                        prop:checked=move || sizes.get().contains(&size)
                                        on:change=move |ev| {
                                            let on = event_target_checked(&ev);
                                            sizes.update(|s| {
                                                s.retain(|&v| v != size);
                                                if on {
                                                    s.push(size);
                                                    s.sort_unstable();
                                                }
                                            });
                                        }
                                    />
                                    {number(size as f64)}
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
                <label>
                    "Queens N from "
                    <input type="number" min="1" max="18" data-testid="compare-queens-from" prop:value=move || queens_from.get().to_string()
                        on:change=move |ev| queens_from.set(event_target_value(&ev).parse().unwrap_or(8).clamp(1, 18)) />
                </label>
                <label>
                    " to "
                    <input type="number" min="1" max="18" data-testid="compare-queens-to" prop:value=move || queens_to.get().to_string()
                        on:change=move |ev| queens_to.set(event_target_value(&ev).parse().unwrap_or(12).clamp(1, 18)) />
                </label>
            </div>
            <div class="actions">
                <button
                    data-testid="compare-run"
                    on:click=start
                    disabled=move || running.get() || engine::status() == EngineStatus::Detecting
                >
                    "Run"
                </button>
                <button data-testid="compare-cancel" on:click=move |_| { cancel.set(true); engine::cancel(); } disabled=move || !running.get()>"Cancel"</button>
            </div>
            <Show when=move || running.get()>
                <div class="progress">
                    <progress data-testid="compare-progress" max=move || step.get().1.max(1) value=move || step.get().0></progress>
                    <span>{move || step.get().2}</span>
                </div>
            </Show>
            <p class="message" role="status" aria-live="polite" data-testid="compare-message">{move || message.get()}</p>
            <p class="detail" data-testid="compare-engines">
                {move || match engine::status() {
                    // Until detection ends the page cannot say which engines run, and Run waits.
                    EngineStatus::Detecting => "Looking for a GPU… (Run waits until the page knows)".to_string(),
                    _ if engine::gpu_ready() => "GPU: WebGPU is available here; both engines run.".to_string(),
                    EngineStatus::Lost(why) => format!("The GPU was lost ({why}): only the CPU is measured."),
                    _ => "No WebGPU here: only the CPU is measured.".to_string(),
                }}
            </p>
            {sudoku_chart}
            <Show when=move || !sudoku_rows.get().is_empty()>
                <table class="runs" data-testid="compare-sudoku-table">
                    <thead>
                        <tr><th>"Batch"</th><th>"CPU s"</th><th>"CPU puzzles/s"</th><th>"GPU s"</th><th>"GPU puzzles/s"</th><th>"GPU / CPU"</th><th>"Solved"</th><th>"Same answers"</th></tr>
                    </thead>
                    <tbody>
                        {move || sudoku_rows.get().into_iter().map(|r| {
                            let cpu_rate = r.size as f64 / r.cpu;
                            let gpu_rate = r.gpu.map(|g| r.size as f64 / g);
                            view! {
                                <tr>
                                    <td>{r.size}</td>
                                    <td>{format!("{:.4}", r.cpu)}</td>
                                    <td data-rate=cpu_rate>{format!("{cpu_rate:.0}")}</td>
                                    <td>{r.gpu.map_or("—".to_string(), |g| format!("{g:.4}"))}</td>
                                    <td data-rate=gpu_rate.unwrap_or(0.0)>{gpu_rate.map_or("—".to_string(), |g| format!("{g:.0}"))}</td>
                                    <td>{gpu_rate.map_or("—".to_string(), |g| format!("{:.2}", g / cpu_rate))}</td>
                                    <td>{r.solved}</td>
                                    <td>{match (r.gpu, r.agree) {
                                        (None, _) => "—",
                                        (Some(_), true) => "yes",
                                        (Some(_), false) => "NO",
                                    }}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </Show>
            {queens_chart}
            <Show when=move || !queens_rows.get().is_empty()>
                <table class="runs" data-testid="compare-queens-table">
                    <thead>
                        <tr><th>"N"</th><th>"Total"</th><th>"Unique"</th><th>"CPU s"</th><th>"GPU s"</th><th>"Checked"</th></tr>
                    </thead>
                    <tbody>
                        {move || queens_rows.get().into_iter().map(|r| view! {
                            <tr>
                                <td>{r.n}</td>
                                <td>{r.total}</td>
                                <td>{r.unique}</td>
                                <td data-seconds=r.cpu>{format!("{:.4}", r.cpu)}</td>
                                <td data-seconds=r.gpu.unwrap_or(0.0)>{r.gpu.map_or("—".to_string(), |g| format!("{g:.4}"))}</td>
                                <td>{if r.agree { "yes" } else { "NO" }}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </Show>
            <Show when=move || !running.get() && (!sudoku_rows.get().is_empty() || !queens_rows.get().is_empty())>
                <p class="share">
                    <a data-testid="compare-csv" href=csv_url download="forkboard-compare.csv">"Download the results (CSV)"</a>
                    " · "
                    <label>
                        "Link to these settings "
                        <input data-testid="compare-link" readonly prop:value=move || format!("{}/compare?{}", origin(), settings().query()) />
                    </label>
                </p>
            </Show>
        </section>
    }
}

/// The puzzles of the chosen set.
async fn records_of(set: &str) -> Result<Rc<Vec<Record>>, String> {
    if set == "batch" {
        return loaded::get()
            .map(|(_, records)| records)
            .ok_or_else(|| "No puzzles were loaded on the Batch page in this visit.".to_string());
    }
    let (_, label, url) = SETS
        .iter()
        .find(|(name, _, _)| *name == set)
        .ok_or_else(|| format!("Unknown set {set:?}."))?;
    let failed = |e: wasm_bindgen::JsValue| format!("Could not load {label}: {e:?}");
    let response: web_sys::Response = JsFuture::from(window().fetch_with_str(url))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !response.ok() {
        return Err(format!(
            "Could not load {label}: HTTP {}",
            response.status()
        ));
    }
    let text = JsFuture::from(response.text().map_err(failed)?)
        .await
        .map_err(failed)?
        .as_string()
        .unwrap_or_default();
    let records: Vec<Record> = Reader::new(text.as_bytes(), ReadOptions::default()).collect();
    if records.is_empty() {
        return Err(format!("{label} holds no puzzles."));
    }
    Ok(Rc::new(records))
}

/// Runs the comparison; `Ok(false)` when cancelled.
async fn run(
    settings: Settings,
    step: RwSignal<(usize, usize, String)>,
    cancel: RwSignal<bool>,
    sudoku_rows: RwSignal<Vec<SudokuRow>>,
    queens_rows: RwSignal<Vec<QueensRow>>,
) -> Result<bool, String> {
    let records = records_of(&settings.set).await?;
    let with_gpu = engine::gpu_ready();
    let engines = if with_gpu { 2 } else { 1 };
    let queens: Vec<u32> = (settings.queens.0..=settings.queens.1).collect();
    let total = engines * (settings.sizes.len() + queens.len());
    step.set((0, total, String::new()));
    let advance = move |what: String| {
        step.update(|s| {
            s.0 += 1;
            s.2 = what;
        })
    };
    let doing = move |what: String| step.update(|s| s.2 = what);
    // Each engine's first job pays for starting up (in Chromium on the H100 machine one puzzle took the CPU
    // workers 48 ms, loading their wasm, and the GPU 5 ms): a few hundred puzzles on each, untimed, so that the
    // first row measures solving.
    doing("Preparing the engines".into());
    let first = &records[..records.len().min(256)];
    if time_sudoku(first, Preference::Cpu).await.is_none()
        || (with_gpu && time_sudoku(first, Preference::Gpu).await.is_none())
    {
        return Ok(false);
    }
    for &size in &settings.sizes {
        let batch: Vec<Record> = records.iter().cycle().take(size).cloned().collect();
        doing(format!("Sudoku, {size} puzzles, CPU"));
        let Some((cpu, cpu_answers)) = time_sudoku(&batch, Preference::Cpu).await else {
            return Ok(false);
        };
        advance(format!("Sudoku, {size} puzzles, GPU"));
        let mut gpu = None;
        let mut agree = true;
        if with_gpu {
            if cancel.get_untracked() {
                return Ok(false);
            }
            let Some((seconds, answers)) = time_sudoku(&batch, Preference::Gpu).await else {
                return Ok(false);
            };
            agree = answers == cpu_answers;
            gpu = Some(seconds);
            advance(String::new());
        }
        let solved = cpu_answers
            .iter()
            .filter(|a| matches!(a, Answer::Solved { .. }))
            .count();
        sudoku_rows.update(|rows| {
            rows.push(SudokuRow {
                size,
                cpu,
                gpu,
                solved,
                agree,
            })
        });
        if cancel.get_untracked() {
            return Ok(false);
        }
    }
    if with_gpu && !queens.is_empty() {
        // The Queens kernel compiles on its first count: do that now, untimed, so N's first row is fair.
        doing("Preparing the N-Queens kernel".into());
        let _ = engine::count_queens(4, Preference::Gpu, Rc::new(|_| true)).await;
    }
    for &n in &queens {
        doing(format!("N-Queens, N = {n}, CPU"));
        let progress: Rc<dyn Fn(f64) -> bool> = Rc::new(move |_| !cancel.get_untracked());
        let started = now_ms();
        let on_cpu = engine::count_queens(n, Preference::Cpu, Rc::clone(&progress)).await;
        let cpu = (now_ms() - started) / 1000.0;
        let Some(cpu_classes) = on_cpu.classes else {
            return Ok(false);
        };
        advance(format!("N-Queens, N = {n}, GPU"));
        let tally = cpu_classes.tally(n);
        let mut agree = known(n).is_none_or(|k| k == tally);
        let mut gpu = None;
        if with_gpu {
            let started = now_ms();
            let on_gpu = engine::count_queens(n, Preference::Gpu, progress).await;
            let Some(gpu_classes) = on_gpu.classes else {
                return Ok(false);
            };
            gpu = Some((now_ms() - started) / 1000.0);
            agree &= on_gpu.on_gpu && gpu_classes == cpu_classes;
            advance(String::new());
        }
        queens_rows.update(|rows| {
            rows.push(QueensRow {
                n,
                total: tally.total,
                unique: tally.unique,
                cpu,
                gpu,
                agree,
            })
        });
        // A breath between counts, so the page redraws.
        TimeoutFuture::new(0).await;
        if cancel.get_untracked() {
            return Ok(false);
        }
    }
    if with_gpu {
        remember_crossovers(&sudoku_rows.get_untracked(), &queens_rows.get_untracked());
    }
    Ok(true)
}

/// Solves a batch on one engine; seconds and answers, or `None` when cancelled.
async fn time_sudoku(batch: &[Record], preference: Preference) -> Option<(f64, Vec<Answer>)> {
    let started = now_ms();
    let solved = engine::solve(batch, Mode::First, preference).await?;
    Some(((now_ms() - started) / 1000.0, solved.answers))
}

/// Rates (puzzles per second) against batch size, for each engine.
fn sudoku_series(rows: &[SudokuRow]) -> (Series, Series) {
    let rate = |size: usize, seconds: f64| (size as f64, size as f64 / seconds);
    (
        Series {
            name: "CPU (workers)".into(),
            points: rows.iter().map(|r| rate(r.size, r.cpu)).collect(),
        },
        Series {
            name: "GPU".into(),
            points: rows
                .iter()
                .filter_map(|r| Some(rate(r.size, r.gpu?)))
                .collect(),
        },
    )
}

/// `value(seconds)` against N, for each engine.
fn queens_series(rows: &[QueensRow], value: fn(f64) -> f64) -> (Series, Series) {
    (
        Series {
            name: "CPU (workers)".into(),
            points: rows
                .iter()
                .map(|r| (f64::from(r.n), value(r.cpu)))
                .collect(),
        },
        Series {
            name: "GPU".into(),
            points: rows
                .iter()
                .filter_map(|r| Some((f64::from(r.n), value(r.gpu?))))
                .collect(),
        },
    )
}

/// Saves where the GPU overtook the CPU, so Auto follows this machine's measurement from now on.
fn remember_crossovers(sudoku: &[SudokuRow], queens: &[QueensRow]) {
    if sudoku.len() >= 2 {
        let (cpu, gpu) = sudoku_series(sudoku);
        // Never overtaken at these sizes: the CPU stays the choice well past the largest one measured.
        let largest = sudoku.iter().map(|r| r.size).max().unwrap_or(1) as f64;
        storage::save_crossover(Some(crossover(&cpu, &gpu).unwrap_or(largest * 10.0)));
    }
    if queens.len() >= 2 {
        // Speed is 1 / seconds: higher is better, as `crossover` expects.
        let (cpu, gpu) = queens_series(queens, |seconds| 1.0 / seconds);
        let largest = queens.iter().map(|r| r.n).max().unwrap_or(1) as f64;
        storage::save_queens_crossover(Some(crossover(&cpu, &gpu).unwrap_or(largest + 1.0)));
    }
}
