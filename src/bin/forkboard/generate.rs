//! `forkboard generate`: new puzzles with one solution each, on every core, one per line (or CSV with their
//! solutions and grades, or a printable HTML page), the same ones for the same seed.

use std::io::{self, BufWriter, Write};
use std::time::Instant;

use rayon::prelude::*;

use forkboard::gpu::sudoku_batch::SudokuKernels;
use forkboard::gpu::sudoku_fork::ForkStats;
use forkboard::gpu::uniqueness::unique_batch_blocking;
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::sudoku::BoxShape;
use forkboard::sudoku::generator::{self, Made, Request};
use forkboard::sudoku::logic::Grade;
use forkboard::sudoku::print::{self, Printed};
use forkboard::sudoku::rng::SplitMix;

use crate::{Engine, GenerateArgs};

/// The GPU and its Sudoku kernels, for uniqueness checks in batches.
fn open_gpu() -> Result<(GpuContext, SudokuKernels), GpuError> {
    let ctx = GpuContext::new_blocking()?;
    let kernels = SudokuKernels::new_blocking(&ctx)?;
    Ok((ctx, kernels))
}

/// Puzzles made together before they are written.
const CHUNK: u64 = 1024;

/// Runs the command; `Ok(true)` when every puzzle was made.
pub fn run(args: GenerateArgs) -> Result<bool, String> {
    crate::use_threads(args.threads)?;
    let shape = match args.box_shape {
        Some(b) if b.side() != args.size => {
            return Err(format!(
                "--box {b} makes {n}×{n} grids, not {}×{}",
                args.size,
                args.size,
                n = b.side()
            ));
        }
        Some(b) => b,
        None => BoxShape::for_side(args.size).map_err(|e| e.to_string())?,
    };
    let grade = args
        .grade
        .as_deref()
        .map(|g| {
            Grade::parse(g).ok_or_else(|| {
                format!(
                    "unknown grade `{g}`: use easy, medium, hard, unfair, extreme or needs-guessing"
                )
            })
        })
        .transpose()?;
    let symbols = args.symbols;
    if !symbols.fits(shape.side()) {
        return Err(format!(
            "the {:?} symbols cannot write a {n}×{n} grid",
            symbols,
            n = shape.side()
        ));
    }
    let request = Request {
        shape,
        grade,
        symmetric: args.symmetric,
    };
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    let write_error = |e: io::Error| format!("cannot write the puzzles: {e}");
    if args.csv {
        writeln!(out, "puzzle,solution,grade,score").map_err(write_error)?;
    }
    let setting_up = Instant::now();
    let gpu = match args.engine {
        Engine::Gpu => Some(open_gpu().map_err(|e| format!("--engine gpu: {e}"))?),
        // Measured on the H100 machine (docs/benchmarks.md), the GPU's batches of checks lost to 16 cores at
        // every size: digging is one round of checks per cell, too few and too deep for the lanes.
        Engine::Cpu | Engine::Auto => None,
    };
    let gpu_setup = setting_up.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut grades = [0u64; Grade::ALL.len()];
    let (mut made_count, mut missed, mut attempts) = (0u64, 0u64, 0u64);
    // Each puzzle has its own seed, so the output does not depend on the threads.
    // For --html, every puzzle is kept until the page is written.
    let mut kept: Vec<Made> = Vec::new();
    let mut seeds = SplitMix(args.seed);
    let all: Vec<u64> = (0..args.count).map(|_| seeds.next_u64()).collect();
    // Set when the GPU fails: the rest is checked on the CPU, nothing lost.
    let mut gpu_failure: Option<String> = None;
    let mut gpu_checks = 0u64;
    // What the GPU's checks took: the kernels' counters, the checks handed to the CPU, the seconds in all.
    let mut gpu_stats = ForkStats::default();
    let (mut gpu_batches, mut gpu_on_cpu, mut gpu_seconds) = (0u64, 0u64, 0.0f64);
    for chunk in all.chunks(CHUNK as usize) {
        let made: Vec<Option<Made>> = match &gpu {
            Some((ctx, kernels)) => {
                generator::make_batch(&request, chunk, args.attempts, &mut |proposals| {
                    if gpu_failure.is_none() {
                        let started = Instant::now();
                        match unique_batch_blocking(ctx, kernels, proposals) {
                            Ok(checked) => {
                                gpu_seconds += started.elapsed().as_secs_f64();
                                gpu_checks += proposals.len() as u64;
                                gpu_batches += 1;
                                gpu_stats.add(&checked.stats);
                                gpu_on_cpu += checked.on_cpu;
                                return checked.verdicts;
                            }
                            Err(e) => gpu_failure = Some(e.to_string()),
                        }
                    }
                    proposals.par_iter().map(generator::unique_on_cpu).collect()
                })
            }
            None => chunk
                .par_iter()
                .map(|&seed| generator::make(&request, seed, args.attempts))
                .collect(),
        };
        for m in made {
            let Some(m) = m else {
                missed += 1;
                continue;
            };
            made_count += 1;
            attempts += u64::from(m.attempts);
            grades[m.rating.grade as usize] += 1;
            let line = m.puzzle.to_line(symbols);
            if args.html {
                kept.push(m);
            } else if args.csv {
                let solution = m.solution.to_line(symbols);
                writeln!(
                    out,
                    "{line},{solution},{},{}",
                    m.rating.grade, m.rating.score
                )
                .map_err(write_error)?;
            } else {
                writeln!(out, "{line}").map_err(write_error)?;
            }
        }
    }
    if args.html {
        let printed: Vec<Printed> = kept
            .iter()
            .map(|m| Printed {
                puzzle: &m.puzzle,
                solution: &m.solution,
                caption: format!("{} (score {})", m.rating.grade, m.rating.score),
            })
            .collect();
        let n = shape.side();
        let title = format!(
            "{} {n}×{n} Sudoku from Forkboard (seed {})",
            kept.len(),
            args.seed
        );
        out.write_all(print::html(&title, &printed).as_bytes())
            .map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "made         {made_count} {n}×{n} puzzles, each with one solution",
        n = shape.side()
    );
    for g in Grade::ALL {
        if grades[g as usize] > 0 {
            eprintln!("{:<14} {}", g.name(), grades[g as usize]);
        }
    }
    if missed > 0 {
        eprintln!(
            "missed       {missed}: no {} puzzle within {} full grids each (raise --attempts)",
            grade.map_or("", Grade::name),
            args.attempts
        );
    }
    eprintln!("grids tried  {attempts}");
    if let Some((ctx, _)) = &gpu {
        eprintln!("GPU checks   {gpu_checks} on {}", ctx.describe());
        eprintln!("GPU setup    {gpu_setup:.3} s (device and kernels; not in the seconds below)");
        eprintln!(
            "GPU time     {gpu_seconds:.3} s in {} batches of checks ({:.3} s searching, {} submissions, \
             {} guesses, {} branches given to idle lanes; {gpu_on_cpu} checks handed to the CPU)",
            gpu_batches,
            gpu_stats.search_seconds,
            gpu_stats.submissions,
            gpu_stats.guesses,
            gpu_stats.forks,
        );
    }
    if let Some(why) = &gpu_failure {
        eprintln!("GPU failed   {why}; the rest was checked on the CPU");
    }
    eprintln!("seconds      {}", crate::seconds::seconds_text(seconds));
    eprintln!("puzzles/s    {:.1}", made_count as f64 / seconds.max(1e-9));
    Ok(missed == 0)
}
