//! `forkboard solve`: a file cut into pieces, answered on every core or the GPU, written in input order.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use forkboard::sudoku::answer::{Mode, Tally};
use forkboard::sudoku::format::Format;

use crate::engine::{AUTO_GPU_MIN, AutoTesting, Engines};
use crate::gpus::parse_gpus;
use crate::seconds::seconds_text;
use crate::stages::{Busy, Stages};
use crate::{Engine, SolveArgs};

/// `--stats`: the summary on standard error.
fn print_stats(tally: &Tally, counting: bool, elapsed: Duration, engines: &Engines) {
    let seconds = elapsed.as_secs_f64();
    let rate = tally.puzzles as f64 / seconds.max(1e-9);
    eprintln!("puzzles      {}", tally.puzzles);
    eprintln!("solved       {}", tally.solved);
    if counting {
        eprintln!("unique       {}", tally.unique);
        eprintln!("multiple     {}", tally.multiple);
    }
    eprintln!("no solution  {}", tally.no_solution);
    eprintln!("invalid      {}", tally.invalid);
    if tally.gave_up > 0 {
        eprintln!("gave up      {}", tally.gave_up);
    }
    eprintln!("seconds      {}", seconds_text(seconds));
    eprintln!("puzzles/s    {rate:.0}");
    eprintln!("engine       {}", engines.describe());
}

/// Where the solutions go: `--out FILE`, `--out` alone (beside the input, `.sol`), or standard output.
fn output_path(args: &SolveArgs) -> Result<Option<PathBuf>, String> {
    match &args.out {
        None => Ok(None),
        Some(Some(path)) => Ok(Some(path.clone())),
        Some(None) if args.input.is_stdin() => {
            Err("`--out` without a file name needs an input file to name the output after".into())
        }
        Some(None) => Ok(Some(args.input.file.with_extension("sol"))),
    }
}

/// Runs the command; `Ok(true)` when every puzzle was solved.
pub fn run(args: SolveArgs) -> Result<bool, String> {
    crate::use_threads(args.threads)?;
    let mode = args.count.map_or(Mode::First, Mode::Count);
    let gpus = args.gpus.as_deref().map(parse_gpus).transpose()?;
    // Under auto, a file of fewer lines than a GPU chunk's least puzzles cannot give the GPU a chunk (a puzzle
    // takes a line at least): no GPU is looked for. Naming the adapter alone costs some 80 ms on an NVIDIA
    // driver, and the answer a few milliseconds (docs/benchmarks.md).
    let few = matches!(args.engine, Engine::Auto)
        && gpus.is_none()
        && args
            .input
            .lines_if_small()
            .is_some_and(|lines| lines < AUTO_GPU_MIN);
    let mut engines = Engines::new(
        if few { Engine::Cpu } else { args.engine },
        args.gpu_slots,
        args.max_guesses,
        gpus.as_deref(),
        AutoTesting {
            software_gpu: args.auto_software_gpu,
            wait_for_setup: args.auto_waits_for_gpu,
        },
    )?;
    if few {
        engines.note = Some(format!(
            "auto: a file of fewer than {AUTO_GPU_MIN} lines is answered sooner on the CPU, so no GPU was looked for"
        ));
    }
    if let Some(k) = args.lose_gpu_after {
        engines.lose_gpu_after(k);
    }
    let input = args.input.open()?;
    let (size, read) = (input.size, Arc::clone(&input.read));
    let mut splitter = input.splitter();
    // (The bytes this run answers, where they are known: auto's GPU setup judges by them.)
    let (opens, bytes) = match (args.shard, size) {
        (None, size) => (true, size),
        (Some(shard), Some(size)) if !args.input.is_stdin() => {
            let (start, end) = shard.byte_range(size);
            (splitter.restrict(start, end), Some(end - start))
        }
        (Some(_), _) => {
            return Err("--shard needs a file to cut (its size), not standard input".into());
        }
    };
    let run_progress = engines.run_progress();
    if let (Some(run_progress), Some(bytes)) = (&run_progress, bytes) {
        run_progress.set_size(bytes);
    }
    if args.rate && splitter.format() != Format::Csv {
        return Err(format!(
            "--rate adds grade and score columns to CSV output, and the output follows the input's layout: \
             this input is in the {} layout (`forkboard rate` grades puzzles of any layout)",
            splitter.format()
        ));
    }
    let out_path = output_path(&args)?;
    let sink: Box<dyn Write + Send> = match &out_path {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout()),
    };
    let progress = progress_bar(size);
    let started = Instant::now();
    let chunk = args.chunk.map(|n| n as usize);
    let stages = Stages {
        busy: Busy::default(),
        options: args.input.options(),
        mode,
        format: splitter.format(),
        symbols: args.input.symbols,
        chunk,
        rate: args.rate,
        opens,
        progress: &progress,
        read: &read,
        run_progress: run_progress.as_deref(),
    };
    let (tally, read_error) = stages.run(&mut engines, &mut splitter, BufWriter::new(sink))?;
    if let Some(e) = read_error {
        return Err(format!(
            "reading stopped after {} puzzles: {e}",
            tally.puzzles
        ));
    }
    progress.finish_and_clear();
    if args.stats {
        print_stats(&tally, args.count.is_some(), started.elapsed(), &engines);
        eprintln!("stages       {}", stages.busy.describe());
        if let Some(path) = out_path {
            eprintln!("written to   {}", path.display());
        }
    }
    Ok(tally.all_solved())
}

/// A progress bar on standard error, only when it is a terminal.
fn progress_bar(size: Option<u64>) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    match size {
        Some(bytes) => ProgressBar::new(bytes).with_style(
            ProgressStyle::with_template(
                "{bar:40} {percent:>3}% {binary_bytes}/{binary_total_bytes} eta {eta}",
            )
            .expect("a valid template"),
        ),
        None => ProgressBar::new_spinner(),
    }
}
