//! The engines in the browser: WebGPU when an adapter and a device can be had, else the CPU engine.
//!
//! Detection asks for a real adapter and device (not just `navigator.gpu`) and compiles the kernel once. wgpu
//! objects are not `Send` on the web, so the GPU lives in a thread-local; its status is a signal the UI reads.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::gpu::GpuContext;
use crate::gpu::lane9::Lane9Result;
use crate::gpu::nine_batch::solve_nines as solve_nines_on;
use crate::gpu::queens::{QueensConfig, QueensKernel};
use crate::gpu::sudoku_batch::{SudokuKernels, answer_chunk};
use crate::gpu::sudoku_fork::ForkConfig;
use crate::queens::{Classes, prefix};
use crate::sudoku::Solver;
use crate::sudoku::answer::{Mode, answer, gave_up};
use crate::sudoku::format::{Answer, NineAnswer, NinePiece, Record};
use crate::sudoku::solver::DEFAULT_MAX_GUESSES;

/// A ready GPU.
struct Gpu {
    ctx: GpuContext,
    kernel: SudokuKernels,
    /// What the page calls the adapter ([`adapter_label`]).
    label: String,
}

thread_local! {
    static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
    /// The N-Queens kernel, compiled on the first count that wants the GPU.
    static QUEENS: RefCell<Option<Rc<QueensKernel>>> = const { RefCell::new(None) };
    /// True while the N-Queens kernel compiles: another count that wants it then waits for that compile.
    static QUEENS_COMPILING: Cell<bool> = const { Cell::new(false) };
    static STATUS: RwSignal<EngineStatus> = RwSignal::new(EngineStatus::Detecting);
    /// Set by [`cancel`]; the GPU's progress callback reads it between submissions.
    static CANCEL: Cell<bool> = const { Cell::new(false) };
}

/// What the page knows about its engines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineStatus {
    /// Still asking for an adapter.
    Detecting,
    /// WebGPU works on this adapter.
    Gpu(String),
    /// No usable WebGPU, and why.
    CpuOnly(String),
    /// The GPU worked, then failed (device lost, a shader error): the CPU from now on, and why.
    Lost(String),
}

/// Which engine the user wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    /// The GPU when there is one, else the CPU.
    Auto,
    /// The CPU always.
    Cpu,
    /// The GPU (the CPU if there is none, and the page says so).
    Gpu,
}

impl Preference {
    /// The setting's name in forms and storage.
    pub fn as_str(self) -> &'static str {
        match self {
            Preference::Auto => "auto",
            Preference::Cpu => "cpu",
            Preference::Gpu => "gpu",
        }
    }

    /// The setting named `name` (Auto for anything else).
    pub fn from_name(name: &str) -> Self {
        match name {
            "cpu" => Preference::Cpu,
            "gpu" => Preference::Gpu,
            _ => Preference::Auto,
        }
    }

    /// The setting saved on this machine, or Auto.
    pub fn saved() -> Self {
        super::storage::load_engine().map_or(Preference::Auto, |n| Self::from_name(&n))
    }
}

/// The current engine status.
pub fn status() -> EngineStatus {
    STATUS.with(|s| s.get())
}

/// The footer line: which engine this page will use.
pub fn status_line() -> String {
    match status() {
        EngineStatus::Detecting => "Looking for a GPU…".into(),
        EngineStatus::Gpu(name) => format!("GPU: {name} (WebGPU)"),
        EngineStatus::CpuOnly(why) => format!("CPU — no WebGPU here ({why})"),
        EngineStatus::Lost(why) => format!("CPU — {why}"),
    }
}

/// Starts WebGPU detection once.
pub fn detect() {
    if STATUS.with(|s| s.get_untracked()) != EngineStatus::Detecting {
        return;
    }
    spawn_local(async {
        let outcome = async {
            let ctx = match GpuContext::new().await {
                // Right after Chromium starts it may answer the first request with no adapter, and find the GPU
                // for the same request a moment later (seen headless on the H100 machine: "A valid external
                // Instance reference no longer exists"). One more try half a second on costs a page without
                // WebGPU little.
                Err(crate::gpu::GpuError::NoAdapter(_)) => {
                    TimeoutFuture::new(500).await;
                    GpuContext::new().await?
                }
                other => other?,
            };
            let kernel = SudokuKernels::new(&ctx).await?;
            if let Some(k) =
                super::storage::test_hook("gpu-lost-after").and_then(|k| k.parse().ok())
            {
                ctx.lose_device_after(k);
            }
            let label = adapter_label(&ctx.info).await;
            Ok::<_, crate::gpu::GpuError>(Gpu { ctx, kernel, label })
        }
        .await;
        let status = match outcome {
            Ok(gpu) => {
                let name = gpu.label.clone();
                GPU.with(|g| *g.borrow_mut() = Some(Rc::new(gpu)));
                EngineStatus::Gpu(name)
            }
            Err(crate::gpu::GpuError::NoAdapter(_)) => {
                EngineStatus::CpuOnly("this browser offers no WebGPU adapter".into())
            }
            Err(e) => EngineStatus::CpuOnly(e.to_string()),
        };
        STATUS.with(|s| s.set(status));
    });
}

/// Jobs smaller than this run on the CPU under Auto, unless the Compare page measured this machine's crossover:
/// one puzzle takes the CPU well under a millisecond, while the GPU pays for buffers, dispatches and read-backs,
/// and in a page the GPU path's packing and checking run on one thread. Measured in Chromium on an H200 beside
/// 16 cores (docs/benchmarks.md, "The Compare page's crossovers again", 2026-11-28; medians of three runs), the
/// GPU overtook the CPU workers for good at about 700 of the forum's hardest puzzles, 5,000 of top95 and 5,500
/// easy ones; the page takes their geometric middle, about 2,700, rounded.
pub const AUTO_GPU_MIN: usize = 3_000;

/// Jobs smaller than this get 1,024 lanes on the GPU rather than the kernel's default.
const FEW_LANES_BELOW: usize = 64;

/// The batch size from which Auto uses the GPU, and whether it was measured here.
pub fn auto_gpu_min() -> (usize, bool) {
    match super::storage::load_crossover() {
        Some(at) => (at.ceil() as usize, true),
        None => (AUTO_GPU_MIN, false),
    }
}

/// True once a WebGPU device and the kernel are ready.
pub fn gpu_ready() -> bool {
    GPU.with(|g| g.borrow().is_some())
}

/// A readable adapter name. wgpu names a browser's adapter by its description, which browsers leave empty
/// unless asked otherwise; their vendor and architecture (`GPUAdapterInfo`; "google swiftshader" for
/// Chromium's software adapter) are read then from an adapter of the same request.
async fn adapter_label(info: &wgpu::AdapterInfo) -> String {
    let named = [&info.name, &info.driver_info, &info.driver]
        .into_iter()
        .find(|s| !s.is_empty())
        .cloned();
    match named {
        Some(name) => name,
        None => browser_adapter_words()
            .await
            .unwrap_or_else(|| "WebGPU adapter".to_string()),
    }
}

/// The vendor and architecture of the adapter `navigator.gpu.requestAdapter` gives for the request
/// `GpuContext::new` makes (high performance), or `None` where the browser tells neither. Read through
/// `Reflect`, as web-sys keeps its WebGPU types behind an unstable flag.
async fn browser_adapter_words() -> Option<String> {
    use js_sys::{Function, Object, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    let navigator = web_sys::window()?.navigator();
    let gpu = Reflect::get(&navigator, &"gpu".into()).ok()?;
    let request: Function = Reflect::get(&gpu, &"requestAdapter".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let options = Object::new();
    Reflect::set(
        &options,
        &"powerPreference".into(),
        &"high-performance".into(),
    )
    .ok()?;
    let promise: Promise = request.call1(&gpu, &options).ok()?.dyn_into().ok()?;
    let adapter = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let info = Reflect::get(&adapter, &"info".into()).ok()?;
    let word = |name: &str| {
        Reflect::get(&info, &JsValue::from_str(name))
            .ok()?
            .as_string()
            .filter(|s| !s.is_empty())
    };
    let words: Vec<String> = ["vendor", "architecture"]
        .into_iter()
        .filter_map(word)
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The answers for some records, and a sentence on the engine that produced them.
pub struct Solved {
    /// One answer per record, in order.
    pub answers: Vec<Answer>,
    /// "GPU (name)", "CPU — …", with the reason for any fallback.
    pub engine: String,
}

/// The guess budget per puzzle on the page's CPU paths (the library's default; the `max-guesses` test hook
/// lowers it so that a test need not wait for a real give-up).
pub fn max_guesses() -> u64 {
    super::storage::test_hook("max-guesses")
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_MAX_GUESSES)
}

/// The guess budget for puzzles the GPU hands back, checked on the page's own thread: one guess, so the page
/// settles only what reasoning alone (or a single guess) settles, and every real search goes to the workers
/// with the full budget. A batch can hand back many puzzles, and the page must never block.
const PAGE_MAX_GUESSES: u64 = 1;

/// Stops the job in flight, GPU or CPU: [`solve`] then returns `None`.
pub fn cancel() {
    CANCEL.with(|c| c.set(true));
    super::workers::cancel();
}

/// Answers records on the preferred engine, falling back to the CPU (and saying so) if the GPU fails. `None`
/// when [`cancel`] stopped it.
pub async fn solve(records: &[Record], mode: Mode, preference: Preference) -> Option<Solved> {
    CANCEL.with(|c| c.set(false));
    let (gpu, mut note) = choose_gpu(records.len(), preference);
    if let Some(gpu) = gpu {
        let config = page_config(records.len());
        let run = answer_chunk(&gpu.ctx, &gpu.kernel, records, mode, config, &mut |_, _| {
            !CANCEL.with(Cell::get)
        })
        .await;
        match run {
            Ok((mut answers, _)) => {
                let mut engine = format!("GPU ({})", gpu.label);
                // What the page gave up on (handed back by the kernel, then too big for the page's small
                // budget) goes to the workers with the full one.
                let hard: Vec<usize> = (0..answers.len())
                    .filter(|&i| gave_up(&answers[i]))
                    .collect();
                if !hard.is_empty() {
                    let again: Vec<Record> = hard.iter().map(|&i| records[i].clone()).collect();
                    let (redone, cpu) = on_cpu(&again, mode).await.ok()?;
                    for (i, answer) in hard.into_iter().zip(redone) {
                        answers[i] = answer;
                    }
                    engine.push_str(&format!("; the hardest on the {cpu}"));
                }
                return Some(Solved { answers, engine });
            }
            Err(crate::gpu::GpuError::Cancelled) => return None,
            Err(e) => {
                note = Some(format!("the GPU failed ({e}), so the CPU finished"));
                lose_gpu(&e);
            }
        }
    }
    let (answers, mut engine) = on_cpu(records, mode).await.ok()?;
    if let Some(why) = note {
        engine.push_str(&format!(" — {why}"));
    }
    Some(Solved { answers, engine })
}

/// The GPU for a job of `puzzles` on `preference`, or why the job goes to the CPU (`None` for no reason to
/// give: the CPU was asked for).
fn choose_gpu(puzzles: usize, preference: Preference) -> (Option<Rc<Gpu>>, Option<String>) {
    let available = GPU.with(|g| g.borrow().clone());
    let (threshold, measured) = auto_gpu_min();
    match (preference, available) {
        (Preference::Cpu, _) => (None, None),
        (Preference::Auto, Some(_)) if puzzles < threshold => {
            (None, Some(auto_note(measured, threshold)))
        }
        (_, Some(gpu)) => (Some(gpu), None),
        (_, None) => (None, Some(why_no_gpu())),
    }
}

/// Why Auto left a job below its threshold on the CPU.
fn auto_note(measured: bool, threshold: usize) -> String {
    if measured {
        format!("auto: below {threshold} puzzles the CPU is faster on this machine (measured)")
    } else {
        "auto: a job this small is faster on the CPU".to_string()
    }
}

/// What Auto makes of a whole job of about `puzzles` puzzles (the Batch page's file, which it answers in slices
/// smaller than the threshold, so that each slice must not decide again): the GPU where one is ready and the
/// job reaches the threshold, else Auto, which its slices and the workers' label then take as the CPU.
pub fn for_whole_job(preference: Preference, puzzles: usize) -> Preference {
    match preference {
        Preference::Auto if gpu_ready() && puzzles >= auto_gpu_min().0 => Preference::Gpu,
        other => other,
    }
}

/// The kernel's settings for a job of `puzzles` on the page: small jobs get fewer boards in flight (lanes, one
/// board each), since a few puzzles fork into every lane there is, which a software adapter pays for in full;
/// the page's own guess budget.
fn page_config(puzzles: usize) -> ForkConfig {
    ForkConfig {
        slots: if puzzles < FEW_LANES_BELOW { 1024 } else { 0 },
        max_guesses: PAGE_MAX_GUESSES,
        ..ForkConfig::default()
    }
}

/// The answers to a piece of plain 9×9 puzzles, and a sentence on the engine that produced them.
pub struct SolvedNines {
    /// One answer per puzzle, in order.
    pub answers: Vec<NineAnswer>,
    /// As [`Solved::engine`].
    pub engine: String,
}

/// A piece of plain 9×9 puzzles answered as records by [`solve`] (which says why not on the GPU), where
/// [`search_nines`] does not use the GPU. `None` when [`cancel`] stopped it.
async fn nines_as_records(
    nines: &NinePiece,
    mode: Mode,
    preference: Preference,
) -> Option<SolvedNines> {
    let records: Vec<Record> = (0..nines.len()).map(|i| nines.record(i)).collect();
    let Solved { answers, engine } = solve(&records, mode, preference).await?;
    Some(SolvedNines {
        answers: usual_answers(records, answers),
        engine,
    })
}

/// A piece of plain 9×9 puzzles answered on the CPU after the GPU failed with `error`, saying so.
async fn after_gpu_failed(
    nines: &NinePiece,
    mode: Mode,
    error: &crate::gpu::GpuError,
) -> Option<SolvedNines> {
    let records: Vec<Record> = (0..nines.len()).map(|i| nines.record(i)).collect();
    let (answers, mut engine) = on_cpu(&records, mode).await.ok()?;
    engine.push_str(&format!(" — the GPU failed ({error}), so the CPU finished"));
    Some(SolvedNines {
        answers: usual_answers(records, answers),
        engine,
    })
}

/// What became of pieces of plain 9×9 puzzles sent to the GPU ([`search_nines`]).
pub enum SearchedNines {
    /// The kernel's result for each puzzle, the pieces' in turn, unchecked, and the engine's name ("GPU
    /// (name)"): whoever writes the answers checks them ([`crate::gpu::found_piece`]).
    Found(Vec<Lane9Result>, String),
    /// Each piece answered on the CPU as records, where the GPU is not used or failed (and the engine says
    /// why).
    Answered(Vec<SolvedNines>),
}

/// Runs pieces of plain 9×9 puzzles on the GPU in one batch and hands back the kernel's results as they are,
/// so that the Batch page's workers check and write them rather than the page's one thread; where [`solve`]
/// would not use the GPU, or the GPU fails, the pieces are answered on the CPU as records. `None` when
/// [`cancel`] stopped it.
pub async fn search_nines(
    pieces: &[&NinePiece],
    mode: Mode,
    preference: Preference,
) -> Option<SearchedNines> {
    CANCEL.with(|c| c.set(false));
    let puzzles = pieces.iter().map(|p| p.len()).sum();
    if let (Some(gpu), _) = choose_gpu(puzzles, preference) {
        let run = solve_nines_on(
            &gpu.ctx,
            &gpu.kernel.lane9,
            pieces,
            mode.limit(),
            page_config(puzzles),
            &mut |_, _| !CANCEL.with(Cell::get),
        )
        .await;
        match run {
            Ok((results, _)) => {
                let engine = format!("GPU ({})", gpu.label);
                return Some(SearchedNines::Found(results, engine));
            }
            Err(crate::gpu::GpuError::Cancelled) => return None,
            Err(e) => {
                lose_gpu(&e);
                let mut answered = Vec::with_capacity(pieces.len());
                for nines in pieces {
                    answered.push(after_gpu_failed(nines, mode, &e).await?);
                }
                return Some(SearchedNines::Answered(answered));
            }
        }
    }
    let mut answered = Vec::with_capacity(pieces.len());
    for nines in pieces {
        answered.push(nines_as_records(nines, mode, preference).await?);
    }
    Some(SearchedNines::Answered(answered))
}

/// Records and their answers as [`NineAnswer::Usual`]s.
fn usual_answers(records: Vec<Record>, answers: Vec<Answer>) -> Vec<NineAnswer> {
    records
        .into_iter()
        .zip(answers)
        .map(|usual| NineAnswer::Usual(Box::new(usual)))
        .collect()
}

/// Answers records on the CPU: the workers, or the page itself where workers cannot be started. Also names
/// the engine, with any worker that had to be started again.
async fn on_cpu(
    records: &[Record],
    mode: Mode,
) -> Result<(Vec<Answer>, String), super::workers::Cancelled> {
    let budget = max_guesses();
    if let Some(run) = super::workers::solve(records, mode, budget).await {
        let (answers, report) = run?;
        return Ok((answers, workers_label(report)));
    }
    let mut solver = Solver::with_max_guesses(budget);
    let answers = records
        .iter()
        .map(|r| answer(r, &mut solver, mode))
        .collect();
    Ok((answers, "CPU (this page)".to_string()))
}

/// Why a job that may use the GPU has none to use.
fn why_no_gpu() -> String {
    match status() {
        EngineStatus::CpuOnly(why) => format!("no WebGPU here: {why}"),
        EngineStatus::Lost(why) => why,
        _ => "WebGPU is still starting".to_string(),
    }
}

/// Names the CPU workers as the engine, with any worker that had to be started again.
pub fn workers_label(report: super::workers::SharesReport) -> String {
    let mut engine = format!("CPU ({} workers)", super::workers::count());
    match report.resent {
        0 => {}
        1 => engine.push_str(" — 1 share sent again after its worker died"),
        n => engine.push_str(&format!(
            " — {n} shares sent again after their workers died"
        )),
    }
    if report.on_page > 0 {
        engine.push_str(&format!(
            " ({} answered on this page when a second worker failed too)",
            report.on_page
        ));
    }
    engine
}

/// The engine of a job answered on the CPU workers from the start (the Batch page's pieces): the workers, and
/// why not the GPU when `preference` allowed it.
pub fn workers_engine(preference: Preference, report: super::workers::SharesReport) -> String {
    let mut engine = workers_label(report);
    if preference == Preference::Auto && gpu_ready() {
        let (threshold, measured) = auto_gpu_min();
        engine.push_str(&format!(" — {}", auto_note(measured, threshold)));
    } else if preference != Preference::Cpu {
        engine.push_str(&format!(" — {}", why_no_gpu()));
    }
    engine
}

/// After a GPU failure the page stops using it (until reloaded) and says why in the footer.
fn lose_gpu(error: &crate::gpu::GpuError) {
    GPU.with(|g| *g.borrow_mut() = None);
    QUEENS.with(|q| *q.borrow_mut() = None);
    STATUS.with(|s| {
        s.set(EngineStatus::Lost(format!(
            "the GPU failed ({error}); reload the page to try it again"
        )))
    });
}

/// Below this N, Auto counts Queens on the CPU: the answer comes before GPU buffers would be ready.
pub const AUTO_QUEENS_GPU_MIN: u32 = 12;

/// A finished (or cancelled) N-Queens count.
pub struct QueensRun {
    /// The classes found; `None` when cancelled.
    pub classes: Option<Classes>,
    /// "GPU (name)" or "CPU (k workers)", with the reason for any fallback, or the time the count waited for
    /// the GPU's kernel to compile.
    pub engine: String,
    /// True when the GPU did the count.
    pub on_gpu: bool,
    /// Seconds of the call spent compiling the GPU's N-Queens kernel (or waiting for another count's compile),
    /// on the first count that wants the GPU: not the count's own time. In a browser that can be seconds
    /// (7.3 s in Chromium's software adapter, against 0.04–0.09 s for the count of N = 11 after it).
    pub compile_seconds: f64,
}

/// The N-Queens kernel on `gpu`, compiled on first need. A caller that comes while it compiles waits for that
/// compile rather than starting another.
async fn queens_kernel(gpu: &Gpu) -> Result<Rc<QueensKernel>, crate::gpu::GpuError> {
    while QUEENS_COMPILING.get() {
        TimeoutFuture::new(20).await;
    }
    if let Some(kernel) = QUEENS.with(|q| q.borrow().clone()) {
        return Ok(kernel);
    }
    QUEENS_COMPILING.set(true);
    let made = QueensKernel::new(&gpu.ctx).await;
    QUEENS_COMPILING.set(false);
    let kernel = Rc::new(made?);
    QUEENS.with(|q| *q.borrow_mut() = Some(Rc::clone(&kernel)));
    Ok(kernel)
}

/// The engine Auto (or the setting) picks for an N-Queens count of `n`, for the page's time estimate.
pub fn queens_on_gpu(n: u32, preference: Preference) -> bool {
    gpu_ready()
        && match preference {
            Preference::Cpu => false,
            Preference::Gpu => true,
            Preference::Auto => {
                let measured = super::storage::load_queens_crossover().map(|at| at.ceil() as u32);
                n >= measured.unwrap_or(AUTO_QUEENS_GPU_MIN)
            }
        }
}

/// Counts an `n`-board on the preferred engine, falling back to the CPU workers (and saying so) if the GPU
/// fails. `progress(fraction done)` returns false to cancel.
pub async fn count_queens(
    n: u32,
    preference: Preference,
    progress: Rc<dyn Fn(f64) -> bool>,
) -> QueensRun {
    let mut note = None;
    if queens_on_gpu(n, preference)
        && let Some(gpu) = GPU.with(|g| g.borrow().clone())
    {
        // Without a kernel compiled yet, the time to get one is a compile (this count's, or another's waited for).
        let compiled = QUEENS.with(|q| q.borrow().is_some());
        let asked = web_time::Instant::now();
        let kernel = queens_kernel(&gpu).await;
        let compile_seconds = if compiled {
            0.0
        } else {
            asked.elapsed().as_secs_f64()
        };
        let engine = if compiled {
            format!("GPU ({})", gpu.label)
        } else {
            format!(
                "GPU ({}) — after {compile_seconds:.1} s compiling its kernel, once",
                gpu.label
            )
        };
        // The symmetric counts (a fraction of a second even for N = 21, but the page never searches) go to
        // a worker while the GPU counts the total.
        let (symmetric_tx, symmetric_rx) = futures_channel::oneshot::channel();
        spawn_local(async move {
            let _ = symmetric_tx.send(super::workers::symmetric_counts(n).await);
        });
        let run = match kernel {
            Ok(kernel) => {
                let on_progress = Rc::clone(&progress);
                kernel
                    .count_total(&gpu.ctx, n, QueensConfig::default(), &mut |done, total| {
                        on_progress(done as f64 / total.max(1) as f64)
                    })
                    .await
            }
            Err(e) => Err(e),
        };
        let run = match run {
            Ok((total, _)) if n >= 2 => {
                let (quarter, half) = match symmetric_rx.await.ok().flatten() {
                    Some(counts) => counts,
                    // No worker answered: count them here.
                    None => crate::queens::symmetric::fixed_counts(n),
                };
                Ok(crate::queens::symmetric::classes_from_counts(
                    total, quarter, half,
                ))
            }
            // N = 1: `Classes::tally` answers it from no classes.
            Ok(_) => Ok(Classes::default()),
            Err(e) => Err(e),
        };
        match run {
            Ok(classes) => {
                return QueensRun {
                    classes: Some(classes),
                    engine,
                    on_gpu: true,
                    compile_seconds,
                };
            }
            Err(crate::gpu::GpuError::Cancelled) => {
                return QueensRun {
                    classes: None,
                    engine,
                    on_gpu: true,
                    compile_seconds,
                };
            }
            Err(e) => {
                note = Some(format!("the GPU failed ({e}), so the CPU counted"));
                lose_gpu(&e);
            }
        }
    } else if preference == Preference::Gpu {
        note = Some(match status() {
            EngineStatus::CpuOnly(why) => format!("no WebGPU here: {why}"),
            EngineStatus::Lost(why) => why,
            _ => "WebGPU is still starting".to_string(),
        });
    }
    let on_progress = Rc::clone(&progress);
    let shards = Rc::new(move |done: usize, total: usize| on_progress(done as f64 / total as f64));
    let (classes, mut engine) = match super::workers::count_queens(n, shards).await {
        Some(classes) => (
            classes,
            format!("CPU ({} workers)", super::workers::count()),
        ),
        // No workers here: count on the page (fine for the small boards this is reasonable for).
        None => (
            Some(prefix::count_shard(n, 2, 0, 1)),
            "CPU (this page)".to_string(),
        ),
    };
    if let Some(why) = note {
        engine.push_str(&format!(" — {why}"));
    }
    QueensRun {
        classes,
        engine,
        on_gpu: false,
        compile_seconds: 0.0,
    }
}
