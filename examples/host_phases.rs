//! Where a GPU batch's host time goes on every core: each host step of a million-puzzle 9×9 batch (packing,
//! unpacking, checking, answering, dropping the answers) run alone over the batch with rayon, and reading a
//! result buffer where the GPU driver maps it (copied out, summed on one core and on every core). Compare its
//! milliseconds with `forkboard bench`'s "GPU ms" column to see which step bounds a batch.
//!
//! `cargo run --release --example host_phases [DATA_DIR]` (a GPU adapter needed for the mapped-memory rows)

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

use forkboard::gpu::GpuContext;
use forkboard::sudoku::answer::{Mode, from_outcome};
use forkboard::sudoku::bands::{nine, pack, search, unpack};
use forkboard::sudoku::format::{Answer, ReadOptions, Reader, Record};
use forkboard::sudoku::solver::Outcome;
use forkboard::sudoku::{Grid, verify};

/// Milliseconds of the best of three runs of `run`.
fn best_ms<T>(mut run: impl FnMut() -> T) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            black_box(run());
            started.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn answer_of(puzzle: &Grid, planes: &[u32; 12]) -> Answer {
    let outcome = Outcome {
        count: 1,
        solution: Grid::new(nine(), &unpack(planes)),
        hit_limit: true,
        guesses: 0,
        gave_up: false,
    };
    from_outcome(1, puzzle, outcome, Mode::First)
}

/// The answers of a batch from its results, on every core.
fn answers(puzzles: &[&Grid], results: &[[u32; 16]]) -> Vec<Answer> {
    puzzles
        .par_iter()
        .zip(results)
        .map(|(p, r)| answer_of(p, &planes(r)))
        .collect()
}

/// The value planes of a 64-byte result: four words of counters, then the planes.
fn planes(result: &[u32; 16]) -> [u32; 12] {
    result[4..].try_into().expect("12 words")
}

fn main() {
    let data = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/data/sudoku".into());
    let bytes = std::fs::read(format!("{data}/kaggle_10k.csv")).expect("the shared data");
    let base: Vec<Record> = Reader::new(&bytes[..], ReadOptions::default()).collect();
    let records: Vec<Record> = base.iter().cycle().take(1_000_000).cloned().collect();
    let n = records.len();
    let puzzles: Vec<&Grid> = records
        .iter()
        .map(|r| r.puzzle.as_ref().expect("valid"))
        .collect();
    let solved: Vec<[u32; 12]> = puzzles[..base.len()]
        .iter()
        .map(|p| search(&pack(p), 1).first.expect("solvable"))
        .collect();
    // 64-byte results like the lane kernel's: four words of counters, then the planes.
    let results: Vec<[u32; 16]> = (0..n)
        .map(|i| {
            let mut r = [0u32; 16];
            r[0] = 1;
            r[4..].copy_from_slice(&solved[i % solved.len()]);
            r
        })
        .collect();
    let threads = rayon::current_num_threads();
    let mut rows: Vec<(String, f64)> = Vec::new();
    let mut row = |name: &str, ms: f64| {
        println!("{name:<52} {ms:8.2} ms");
        rows.push((name.to_string(), ms));
    };
    row(
        "pack, every core",
        best_ms(|| puzzles.par_iter().map(|p| pack(p)).collect::<Vec<_>>()),
    );
    row(
        "pack, one core",
        best_ms(|| puzzles.iter().map(|p| pack(p)).collect::<Vec<_>>()),
    );
    row(
        "unpack, every core",
        best_ms(|| {
            results
                .par_iter()
                .map(|r| unpack(&planes(r))[40])
                .collect::<Vec<_>>()
        }),
    );
    row(
        "unpack + Grid, every core",
        best_ms(|| {
            results
                .par_iter()
                .map(|r| Grid::new(nine(), &unpack(&planes(r))))
                .collect::<Vec<_>>()
        }),
    );
    let grids: Vec<Grid> = results
        .par_iter()
        .map(|r| Grid::new(nine(), &unpack(&planes(r))).expect("9×9"))
        .collect();
    row(
        "solution check, every core",
        best_ms(|| {
            puzzles
                .par_iter()
                .zip(&grids)
                .filter(|(p, s)| verify::is_solution(p, s))
                .count()
        }),
    );
    row(
        "answer (unpack, Grid, check), every core",
        best_ms(|| answers(&puzzles, &results)),
    );
    row(
        "answer, one core",
        best_ms(|| {
            puzzles
                .iter()
                .zip(&results)
                .map(|(p, r)| answer_of(p, &planes(r)))
                .collect::<Vec<_>>()
        }),
    );
    let made: Vec<Vec<Answer>> = (0..3).map(|_| answers(&puzzles, &results)).collect();
    let mut made = made.into_iter();
    row(
        "drop a million answers made on every core, one core",
        best_ms(|| drop(made.next())),
    );
    println!(
        "({threads} threads, {n} puzzles; bytes: Grid {}, Record {}, Answer {})",
        size_of::<Grid>(),
        size_of::<Record>(),
        size_of::<Answer>()
    );

    let ctx = match GpuContext::new_blocking() {
        Ok(ctx) => ctx,
        Err(e) => {
            println!("no GPU, no mapped-memory rows: {e}");
            return;
        }
    };
    println!("GPU: {}", ctx.describe());
    let size = (n * 64) as u64;
    let source = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("source"),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue
        .write_buffer(&source, 0, bytemuck::cast_slice(&results));
    let mut timed: Vec<(&str, f64)> = Vec::new();
    for round in 0..3 {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&source, 0, &read, 0, None);
        let started = Instant::now();
        ctx.submit(encoder.finish());
        let slice = read.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("mapped"));
        ctx.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .expect("polled");
        let copied = started.elapsed().as_secs_f64() * 1e3;
        {
            let view = slice.get_mapped_range().expect("mapped range");
            let words: &[[u32; 16]] = bytemuck::cast_slice(&view);
            let t = Instant::now();
            let copy = view.to_vec();
            let memcpy = t.elapsed().as_secs_f64() * 1e3;
            drop(copy);
            let t = Instant::now();
            black_box(words.iter().map(|r| r[5] as u64).sum::<u64>());
            let sum_one = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            black_box(
                words
                    .par_iter()
                    .map(|r| r.iter().map(|&w| w as u64).sum::<u64>())
                    .sum::<u64>(),
            );
            let sum_all = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            black_box(answers(&puzzles, words));
            let answer_mapped = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let copy = view.to_vec();
            let words: &[[u32; 16]] = bytemuck::cast_slice(&copy);
            black_box(answers(&puzzles, words));
            let answer_copied = t.elapsed().as_secs_f64() * 1e3;
            if round > 0 {
                timed = vec![
                    ("copy 64 MB on the GPU, map", copied),
                    ("mapped: memcpy to a Vec, one core", memcpy),
                    ("mapped: read one word of each result, one core", sum_one),
                    ("mapped: sum every word, every core", sum_all),
                    ("mapped: answers read in place, every core", answer_mapped),
                    (
                        "mapped: memcpy first, then answers, every core",
                        answer_copied,
                    ),
                ];
                for (name, ms) in &timed {
                    println!("{name:<52} {ms:8.2} ms (round {round})");
                }
            }
        }
        read.unmap();
    }
    black_box(timed);
}
