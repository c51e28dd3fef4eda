//! `forkboard solve`: read in chunks, answer each chunk on the chosen engine, write in input order.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use forkboard::sudoku::answer::{Mode, Tally};
use forkboard::sudoku::format::{Answer, Record, Writer};

use crate::SolveArgs;
use crate::engine::Engines;
use crate::input::Input;

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
    if tally.gave_up > 0 {
        eprintln!("gave up      {}", tally.gave_up);
    }
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
    let mut engines = Engines::new(args.engine, args.gpu_slots, args.max_guesses)?;
    if let Some(k) = args.lose_gpu_after {
        engines.lose_gpu_after(k);
    }
    let mut input = args.input.open()?;
    let out_path = output_path(&args)?;
    let sink: Box<dyn Write + Send> = match &out_path {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout()),
    };
    let writer = Writer::new(
        BufWriter::new(sink),
        input.reader.format(),
        args.input.symbols,
    );
    let progress = progress_bar(input.size);
    let started = Instant::now();
    let chunk = args.chunk.map(|n| n as usize);
    let (tally, read_error) = pipeline(&mut engines, &mut input, writer, mode, chunk, &progress)?;
    if let Some(e) = read_error {
        return Err(format!(
            "reading stopped after {} puzzles: {e}",
            tally.puzzles
        ));
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

/// Reads, answers and writes on three threads, so that parsing the next chunk and writing the last one overlap
/// with the engine answering this one (on an easy batch the GPU takes a few milliseconds; serial parsing and
/// writing would bound the run). Chunks keep input order through the channels, and at most a few are in flight,
/// so memory stays bounded however long the input. Returns the tally of what was written and any read error.
fn pipeline(
    engines: &mut Engines,
    input: &mut Input,
    mut writer: Writer<BufWriter<Box<dyn Write + Send>>>,
    mode: Mode,
    chunk: Option<usize>,
    progress: &ProgressBar,
) -> Result<(Tally, Option<io::Error>), String> {
    let chunk_size = |engines: &Engines| chunk.unwrap_or_else(|| default_chunk(engines));
    let next_size = AtomicUsize::new(chunk_size(engines));
    let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Vec<Record>>(1);
    let (answered_tx, answered_rx) = mpsc::sync_channel::<(Vec<Record>, Vec<Answer>)>(1);
    let reader = &mut input.reader;
    let read = &input.read;
    let next_size = &next_size;
    thread::scope(|scope| {
        // `move`: the reader thread owns the sending end, so the channel closes when the input ends.
        let reading = scope.spawn(move || {
            loop {
                let chunk: Vec<Record> = reader
                    .by_ref()
                    .take(next_size.load(Ordering::Relaxed))
                    .collect();
                // Stops when the input ends or nobody takes chunks any more (an error, a closed pipe).
                if chunk.is_empty() || chunk_tx.send(chunk).is_err() {
                    break;
                }
            }
            reader.take_io_error()
        });
        let writing = scope.spawn(move || -> Result<Tally, String> {
            let write_error = |e: io::Error| format!("cannot write the solutions: {e}");
            let mut tally = Tally::default();
            for (chunk, answers) in answered_rx {
                for (record, answer) in chunk.iter().zip(&answers) {
                    match writer.write(record.line, record.puzzle.as_ref().ok(), answer) {
                        // The reader of our output left (`forkboard solve big.txt | head`): stop quietly.
                        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(tally),
                        other => other.map_err(write_error)?,
                    }
                    tally.add(answer);
                }
                progress.set_position(read.load(Ordering::Relaxed));
            }
            match writer.finish() {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(write_error(e)),
                _ => Ok(tally),
            }
        });
        // The engine works on this thread. On an engine error the chunks answered so far are still written.
        let mut answering = Ok(());
        for chunk in chunk_rx {
            match engines.answer(&chunk, mode) {
                Ok(answers) => {
                    next_size.store(chunk_size(engines), Ordering::Relaxed);
                    if answered_tx.send((chunk, answers)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    answering = Err(e);
                    break;
                }
            }
        }
        drop(answered_tx);
        let tally = writing.join().expect("the writer thread does not panic")?;
        let read_error = reading.join().expect("the reader thread does not panic");
        answering.map(|()| (tally, read_error))
    })
}

/// Puzzles per chunk for the engine in use.
fn default_chunk(engines: &Engines) -> usize {
    if engines.prefers_large_chunks() {
        GPU_CHUNK
    } else {
        CPU_CHUNK
    }
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
