//! `forkboard rate`: each puzzle's grade from its logical solution, as CSV on standard output, with a summary of
//! the grades on standard error.

use std::io::{self, BufWriter, Write};
use std::time::Instant;

use rayon::prelude::*;

use forkboard::sudoku::format::Record;
use forkboard::sudoku::logic::{self, End, Grade, Path, Rating, Technique};
use forkboard::sudoku::{Grid, Symbols, solver};

use crate::RateArgs;

/// Puzzles read and rated together.
const CHUNK: usize = 4096;

/// What one puzzle came to.
enum Verdict {
    /// A unique puzzle's rating, and its path when `--explain` asks for it.
    Rated(Rating, Option<Path>),
    /// Not one solution: `0` or `2` (at least two).
    Solutions(u64),
    /// The record could not be read.
    Invalid(String),
    /// `--check` found a step that disagrees with the solution.
    Wrong(String),
}

/// Rates one record.
fn rate(record: &Record, symbols: Symbols, explain: bool, check: bool) -> Verdict {
    let puzzle = match &record.puzzle {
        Ok(p) => p,
        Err(e) => return Verdict::Invalid(e.kind.to_string()),
    };
    let counted = solver::with_thread_solver(solver::DEFAULT_MAX_GUESSES, |s| s.solve(puzzle, 2));
    if counted.gave_up {
        return Verdict::Invalid(
            "the search gave up before knowing whether the puzzle is unique".into(),
        );
    }
    if counted.count != 1 {
        return Verdict::Solutions(counted.count);
    }
    let path = logic::solve_unique(puzzle, symbols);
    if check {
        let solution = counted.solution.as_ref().expect("one solution was found");
        if let Some(why) = disagreement(&path, solution) {
            return Verdict::Wrong(why);
        }
    }
    match Rating::of(&path) {
        Some(rating) => Verdict::Rated(rating, explain.then_some(path)),
        None => Verdict::Wrong("the logical path ends without a solution".into()),
    }
}

/// The first step that places or strikes against the known solution, if any.
fn disagreement(path: &Path, solution: &Grid) -> Option<String> {
    if path.end != End::Solved {
        return Some("the logical path ends without a solution".into());
    }
    let truth = solution.cells();
    path.steps
        .iter()
        .find(|s| {
            s.placements.iter().any(|m| truth[m.at()] != m.digit)
                || s.eliminations.iter().any(|m| truth[m.at()] == m.digit)
        })
        .map(|s| format!("a wrong step: {}", s.sentence))
}

/// Runs the command; `Ok(true)` when every puzzle was rated.
pub fn run(args: RateArgs) -> Result<bool, String> {
    crate::use_threads(args.threads)?;
    let symbols = args.input.symbols;
    let mut reader = args.input.open()?.reader();
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    let write_error = |e: io::Error| format!("cannot write the ratings: {e}");
    writeln!(out, "line,grade,score,hardest,steps").map_err(write_error)?;
    let started = Instant::now();
    let mut grades = [0u64; Grade::ALL.len()];
    let (mut puzzles, mut unrated) = (0u64, 0u64);
    let mut hardest_seen: Vec<(Technique, u64)> = Vec::new();
    loop {
        let records: Vec<Record> = reader.by_ref().take(CHUNK).collect();
        if records.is_empty() {
            break;
        }
        let verdicts: Vec<Verdict> = records
            .par_iter()
            .map(|r| rate(r, symbols, args.explain, args.check))
            .collect();
        for (record, verdict) in records.iter().zip(verdicts) {
            puzzles += 1;
            let line = record.line;
            match verdict {
                Verdict::Rated(r, path) => {
                    grades[r.grade as usize] += 1;
                    let hardest = r.hardest.map_or("", Technique::name);
                    if let Some(t) = r.hardest {
                        match hardest_seen.iter_mut().find(|(s, _)| *s == t) {
                            Some((_, n)) => *n += 1,
                            None => hardest_seen.push((t, 1)),
                        }
                    }
                    writeln!(out, "{line},{},{},{hardest},{}", r.grade, r.score, r.steps)
                        .map_err(write_error)?;
                    for step in path.iter().flat_map(|p| &p.steps) {
                        writeln!(out, "# {}", step.sentence).map_err(write_error)?;
                    }
                }
                Verdict::Solutions(n) => {
                    unrated += 1;
                    let what = if n == 0 {
                        "no solution"
                    } else {
                        "several solutions"
                    };
                    writeln!(out, "{line},{what},,,").map_err(write_error)?;
                }
                Verdict::Invalid(why) | Verdict::Wrong(why) => {
                    unrated += 1;
                    eprintln!("forkboard: line {line}: {why}");
                    writeln!(out, "{line},invalid,,,").map_err(write_error)?;
                }
            }
        }
    }
    out.flush().map_err(write_error)?;
    if let Some(e) = reader.take_io_error() {
        return Err(format!("reading stopped after {puzzles} puzzles: {e}"));
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("puzzles      {puzzles}");
    for g in Grade::ALL {
        let n = grades[g as usize];
        let share = 100.0 * n as f64 / puzzles.max(1) as f64;
        eprintln!("{:<14} {n:>8}  {share:5.1}%", g.name());
    }
    eprintln!("{:<14} {unrated:>8}", "not rated");
    hardest_seen.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t.name()));
    let common: Vec<String> = hardest_seen
        .iter()
        .take(5)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    eprintln!("hardest step  {}", common.join(", "));
    eprintln!("seconds      {}", crate::seconds::seconds_text(seconds));
    eprintln!("puzzles/s    {:.0}", puzzles as f64 / seconds.max(1e-9));
    Ok(unrated == 0)
}
