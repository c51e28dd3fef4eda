//! Each puzzle of a file solved alone on the GPU, one batch of one after another, as the command line answers
//! a single puzzle (checks included); prints the distribution of the times and the kernel's guesses a puzzle, then
//! the slowest puzzles with the CPU engine's time for each on one thread. For the "one hard puzzle" bar
//! (docs/benchmarks.md).
//!
//! `cargo run --release --example lone_each -- FILE [first|count2] [lanes|lone|auto|cpu|squads:N:shared|subgroup]
//! [SHOW] [PAUSE_MS[spin]] [TIMES]`
//!
//! `PAUSE_MS` puts a pause before each puzzle: the thread sleeps, or with `spin` (`30spin`) it keeps its core
//! busy, to tell what an idle host costs from what an idle GPU costs. `cpu` times the CPU engine on this thread
//! instead, each puzzle after the same pause.
//!
//! With `TIMES`, every puzzle's line and time in µs is written there, one a line (`auto`, `lanes` and `lone`), to
//! compare with the CPU solvers puzzle by puzzle.
//!
//! `auto` answers each puzzle natively through the squads kernel's run waiting on the GPU (or one put on the
//! queue for it, when the last has left: `PAUSE_MS` between puzzles shows that case).
//!
//! `auto` gives each puzzle to the squads kernel natively, sharing through subgroups where they are 32 wide;
//! `squads:N:shared` (or `:subgroup`) runs the squads kernel straight with N squads (0: the adapter's number),
//! sharing through workgroup memory (or subgroups), its solutions checked but the command line's answer path
//! left out: to compare ways of sharing and numbers of squads on one adapter.
use std::time::Instant;

use forkboard::gpu::GpuContext;
use forkboard::gpu::squad9::{Exchange, Squad9Kernel};
use forkboard::gpu::sudoku_batch::{SudokuKernels, answer_chunk_blocking};
use forkboard::gpu::sudoku_fork::{ForkConfig, NineKernel};
use forkboard::sudoku::Solver;
use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::bands::pack;
use forkboard::sudoku::format::{ReadOptions, Reader, Record};
use forkboard::sudoku::{Grid, verify};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let mode = match args.next().as_deref() {
        Some("count2") => Mode::Count(2),
        _ => Mode::First,
    };
    let kernel_arg = args.next();
    let nine_kernel = match kernel_arg.as_deref() {
        Some("lanes") => NineKernel::Lanes,
        Some("lone") => NineKernel::Lone,
        _ => NineKernel::Auto,
    };
    let show: usize = args.next().map_or(10, |s| s.parse().expect("a number"));
    // A pause before each puzzle (puzzles that come one by one, not back to back).
    let pause = args.next().map_or(Pause::default(), |s| Pause::parse(&s));
    let times_path = args.next();
    let bytes = std::fs::read(&path).expect("readable");
    let records: Vec<Record> = Reader::new(&bytes[..], ReadOptions::default()).collect();
    if kernel_arg.as_deref() == Some("cpu") {
        cpu_each(&records, mode, pause);
        return;
    }
    let ctx = GpuContext::new_blocking().expect("a GPU");
    if let Some(how) = kernel_arg
        .as_deref()
        .and_then(|k| k.strip_prefix("squads:"))
    {
        let (count, exchange) = how.split_once(':').expect("squads:N:shared|subgroup");
        let exchange = match exchange {
            "subgroup" => Exchange::Subgroup,
            _ => Exchange::Shared,
        };
        squads_direct(
            &ctx,
            &records,
            mode,
            exchange,
            count.parse().expect("a number"),
            pause,
        );
        return;
    }
    let kernels = SudokuKernels::new_blocking(&ctx).expect("the kernels compile");
    println!(
        "squads would share through {:?}",
        forkboard::gpu::squad9::Exchange::best(&ctx)
    );
    let config = ForkConfig {
        nine_kernel,
        ..ForkConfig::default()
    };
    // A first batch of one pays for the driver's start: not timed.
    answer_chunk_blocking(&ctx, &kernels, &records[..1], mode, config, &mut |_, _| {
        true
    })
    .expect("the GPU runs");
    let mut sorted: Vec<(f64, usize)> = Vec::with_capacity(records.len());
    let mut guesses = 0u64;
    for (i, record) in records.iter().enumerate() {
        pause.wait();
        let started = Instant::now();
        let (answers, report) = answer_chunk_blocking(
            &ctx,
            &kernels,
            std::slice::from_ref(record),
            mode,
            config,
            &mut |_, _| true,
        )
        .expect("the GPU runs");
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(answers.len(), 1);
        assert_eq!(report.cpu_fallbacks, 0, "line {}", i + 1);
        guesses += report.kernel.guesses;
        sorted.push((seconds, i));
    }
    if let Some(path) = times_path {
        let lines: String = sorted
            .iter()
            .map(|&(seconds, i)| format!("{} {:.2}\n", records[i].line, seconds * 1e6))
            .collect();
        std::fs::write(&path, lines).expect("TIMES writable");
    }
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = sorted.len();
    let micros: Vec<f64> = sorted.iter().map(|&(seconds, _)| seconds * 1e6).collect();
    println!(
        "{n} puzzles alone, {mode:?}, {nine_kernel:?} on {}: {}; {:.1} guesses a puzzle",
        ctx.describe(),
        distribution(micros),
        guesses as f64 / n as f64
    );
    let mut solver = Solver::new();
    for &(seconds, i) in sorted.iter().rev().take(show) {
        // The CPU engine on this thread: the best of 20.
        let best = (0..20)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(answer(&records[i], &mut solver, mode));
                started.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        println!(
            "line {}: GPU {:.1} µs, CPU engine on one thread {:.1} µs",
            i + 1,
            seconds * 1e6,
            best * 1e6
        );
    }
}

/// Each puzzle alone on the squads kernel, `squads` of them sharing through `exchange`, timed around its
/// search; every solution checked against the puzzle.
fn squads_direct(
    ctx: &GpuContext,
    records: &[Record],
    mode: Mode,
    exchange: Exchange,
    squads: u32,
    pause: Pause,
) {
    let kernel = pollster::block_on(Squad9Kernel::new(ctx, exchange, squads)).expect("compiles");
    let limit = match mode {
        Mode::Count(n) => n,
        _ => 1,
    };
    // The first dispatch may finish the driver's compiling: not timed.
    let first = records[0].puzzle.as_ref().expect("a puzzle");
    pollster::block_on(kernel.solve(ctx, &pack(first), limit)).expect("runs");
    let mut times = Vec::with_capacity(records.len());
    for record in records {
        pause.wait();
        let puzzle = record.puzzle.as_ref().expect("a puzzle");
        let started = Instant::now();
        let (result, _) =
            pollster::block_on(kernel.solve(ctx, &pack(puzzle), limit)).expect("runs");
        times.push(started.elapsed().as_secs_f64() * 1e6);
        let cells = result.solution().expect("a solution");
        let grid = Grid::new(puzzle.shape(), &cells).expect("a grid");
        assert!(verify::is_solution(puzzle, &grid), "line {}", record.line);
    }
    println!(
        "{} puzzles alone, {mode:?}, {} squads sharing through {exchange:?} on {}: {}",
        times.len(),
        kernel.squads(),
        ctx.describe(),
        distribution(times)
    );
}

/// A pause before each puzzle: `ms` milliseconds asleep, or with the core kept busy (`spin`).
#[derive(Clone, Copy, Default)]
struct Pause {
    ms: u64,
    spin: bool,
}

impl Pause {
    fn parse(s: &str) -> Self {
        let (ms, spin) = match s.strip_suffix("spin") {
            Some(ms) => (ms, true),
            None => (s, false),
        };
        Pause {
            ms: ms
                .parse()
                .expect("PAUSE_MS: a number, or a number and `spin`"),
            spin,
        }
    }

    fn wait(self) {
        let length = std::time::Duration::from_millis(self.ms);
        if self.spin {
            let started = Instant::now();
            while started.elapsed() < length {
                std::hint::spin_loop();
            }
        } else if self.ms > 0 {
            std::thread::sleep(length);
        }
    }
}

/// Each puzzle answered by the CPU engine on this thread, after the pause: the distribution of the times.
fn cpu_each(records: &[Record], mode: Mode, pause: Pause) {
    let mut solver = Solver::new();
    // The first puzzle warms the code and tables: not timed.
    std::hint::black_box(answer(&records[0], &mut solver, mode));
    let mut times = Vec::with_capacity(records.len());
    for record in records {
        pause.wait();
        let started = Instant::now();
        std::hint::black_box(answer(record, &mut solver, mode));
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    println!(
        "{} puzzles alone, {mode:?}, the CPU engine on one thread: {}",
        times.len(),
        distribution(times)
    );
}

/// "median … µs, 90% …, 99% …, max …" of times in µs (as `scripts/bench-one-puzzle.sh` reads it).
fn distribution(mut micros: Vec<f64>) -> String {
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() as f64 * q) as usize).min(micros.len() - 1)];
    format!(
        "median {:.1} µs, 90% {:.1}, 99% {:.1}, max {:.1}",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}
