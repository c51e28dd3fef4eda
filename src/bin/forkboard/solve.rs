//! `forkboard solve`: read in chunks, answer each chunk on the chosen engine, write in input order.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use forkboard::sudoku::answer::{Mode, Tally};
use forkboard::sudoku::format::{Answer, Record, Writer};

use crate::SolveArgs;
use crate::engine::Engines;

/// Puzzles read and answered together on the CPU: large enough to keep every core busy, small enough that a
/// file of millions of puzzles streams in bounded memory.
const CPU_CHUNK: usize = 1 << 14;
/// The same for the GPU, larger: each GPU batch ends with a tail of rounds where only its hardest puzzles
/// still run, so fewer, larger batches keep the device fuller.
const GPU_CHUNK: usize = 1 << 17;

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
    eprintln!("seconds      {seconds:.3}");
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
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    }
    let mode = args.count.map_or(Mode::First, Mode::Count);
    let mut engines = Engines::new(args.engine, args.gpu_slots)?;
    let mut input = args.input.open()?;
    let out_path = output_path(&args)?;
    let sink: Box<dyn Write> = match &out_path {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout().lock()),
    };
    let mut writer = Writer::new(
        BufWriter::new(sink),
        input.reader.format(),
        args.input.symbols,
    );
    let progress = progress_bar(input.size);
    let started = Instant::now();
    let mut tally = Tally::default();
    let write_error = |e: io::Error| format!("cannot write the solutions: {e}");
    'chunks: loop {
        let size = if engines.prefers_large_chunks() {
            GPU_CHUNK
        } else {
            CPU_CHUNK
        };
        let chunk: Vec<Record> = input.reader.by_ref().take(size).collect();
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<Answer> = engines.answer(&chunk, mode)?;
        for (record, answer) in chunk.iter().zip(&answers) {
            tally.add(answer);
            match writer.write(record.line, record.puzzle.as_ref().ok(), answer) {
                // The reader of our output left (`forkboard solve big.txt | head`): stop quietly.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break 'chunks,
                other => other.map_err(write_error)?,
            }
        }
        progress.set_position(input.read.load(Ordering::Relaxed));
    }
    if let Some(e) = input.reader.take_io_error() {
        return Err(format!(
            "reading stopped after {} puzzles: {e}",
            tally.puzzles
        ));
    }
    match writer.finish() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return Err(write_error(e)),
        _ => {}
    }
    progress.finish_and_clear();
    if args.stats {
        print_stats(&tally, args.count.is_some(), started.elapsed(), &engines);
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
