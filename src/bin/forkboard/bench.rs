//! `forkboard bench`: the CPU engine on every core against the GPU, on the same puzzles and boards, at several
//! batch sizes and N; a table on standard output, `compare.csv` and SVG charts in the output folder.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use web_time::Instant;

use forkboard::chart::{Chart, Series, crossover, number};
use forkboard::gpu::GpuContext;
use forkboard::gpu::queens::{QueensConfig, QueensKernel};
use forkboard::queens::{known, prefix};
use forkboard::shard::Shard;
use forkboard::sudoku::answer::Mode;
use forkboard::sudoku::format::{Answer, ReadOptions, Reader, Record};
use forkboard::sudoku::solver::DEFAULT_MAX_GUESSES;
use forkboard::sudoku::{BoxShape, generate};
use rayon::prelude::*;

use crate::engine::{AutoTesting, Engines};
use crate::{BenchArgs, Engine};

/// Batches smaller than this are timed three times and the best kept: a single small batch is mostly noise.
const REPEAT_BELOW: usize = 1000;

/// One measured batch on one engine.
struct Timing {
    seconds: f64,
    /// Of those, the seconds inside the GPU kernels, and the kernels' upload, search and download (0 on the
    /// CPU).
    kernel: [f64; 5],
    answers: Vec<Answer>,
}

fn time_batch(engines: &mut Engines, batch: &[Record], mode: Mode) -> Result<Timing, String> {
    let runs = if batch.len() < REPEAT_BELOW { 3 } else { 1 };
    let mut best: Option<Timing> = None;
    let phases = |e: &Engines| {
        let k = &e.gpu_report.kernel;
        [
            e.gpu_report.kernel_seconds,
            k.upload_seconds,
            k.search_seconds,
            k.download_seconds,
            k.transfer_seconds,
        ]
    };
    for _ in 0..runs {
        let before = phases(engines);
        let started = Instant::now();
        let answers = engines.answer(batch, mode)?;
        let seconds = started.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|b| seconds < b.seconds) {
            let after = phases(engines);
            best = Some(Timing {
                seconds,
                kernel: std::array::from_fn(|i| after[i] - before[i]),
                answers,
            });
        }
    }
    Ok(best.expect("at least one run"))
}

/// True when two engines answered alike: the same outcome and count, and the same solution unless the puzzle
/// may have several (both solutions passed the independent check; a first-solution run cannot tell which
/// puzzles are unique, and a multi-solution puzzle's first solution depends on the search order).
fn agree(a: &Answer, b: &Answer) -> bool {
    match (a, b) {
        (
            Answer::Solved {
                solution: s1,
                count: c1,
                ..
            },
            Answer::Solved {
                solution: s2,
                count: c2,
                ..
            },
        ) => c1 == c2 && (s1 == s2 || !matches!(c1, Some((1, false)))),
        _ => a == b,
    }
}

/// A named set of puzzles to measure.
struct Set {
    name: String,
    records: Vec<Record>,
}

/// The sets asked for: files from `--data`, then generated ones.
fn load_sets(args: &BenchArgs) -> Result<Vec<Set>, String> {
    let mut sets = Vec::new();
    for name in args.sets.iter().filter(|name| !name.is_empty()) {
        let path = args.data.join(name);
        let bytes = fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let records: Vec<Record> = Reader::new(&bytes[..], ReadOptions::default()).collect();
        if records.is_empty() {
            return Err(format!("{} holds no puzzles", path.display()));
        }
        sets.push(Set {
            name: name.clone(),
            records,
        });
    }
    for shape in &args.generated {
        let shape: BoxShape = shape
            .parse()
            .map_err(|e| format!("--generated {shape}: {e}"))?;
        if !(0.0..=1.0).contains(&args.empty) {
            return Err(format!(
                "--empty {} is not a share between 0 and 1",
                args.empty
            ));
        }
        // Seeds 1..=count: the same puzzles on every run and machine.
        let records = (1..=args.generated_count as u64)
            .into_par_iter()
            .map(|seed| Record {
                line: seed as usize,
                puzzle: Ok(generate::puzzle(shape, seed, args.empty).0),
                given_solution: None,
            })
            .collect();
        let n = shape.side();
        sets.push(Set {
            name: format!(
                "generated-{n}x{n}-{shape}-{:.0}pct-empty",
                args.empty * 100.0
            ),
            records,
        });
    }
    Ok(sets)
}

/// Reads `N..M` (inclusive).
fn parse_queens(text: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("--queens takes A..B, not {text:?}"))?;
    let a = forkboard::queens::parse_n(a).map_err(|e| format!("--queens: {e}"))?;
    let b = forkboard::queens::parse_n(b.trim_start_matches('='))
        .map_err(|e| format!("--queens: {e}"))?;
    if a > b {
        return Err(format!("--queens {a}..{b} is empty"));
    }
    Ok(a..=b)
}

/// The Sudoku chart of one set, and where the GPU overtakes the CPU.
fn sudoku_chart(set: &str, cpu: Vec<(f64, f64)>, gpu: Vec<(f64, f64)>) -> (Chart, Option<f64>) {
    let cpu = Series {
        name: "CPU (all cores)".into(),
        points: cpu,
    };
    let gpu = Series {
        name: "GPU".into(),
        points: gpu,
    };
    let cross = crossover(&cpu, &gpu);
    let chart = Chart {
        title: format!("Sudoku, {set}: puzzles per second"),
        x_label: "puzzles in the batch".into(),
        y_label: "puzzles / s".into(),
        log_x: true,
        log_y: true,
        series: vec![cpu, gpu],
        marker: cross.map(|at| (at, format!("crossover ≈ {}", number(at)))),
    };
    (chart, cross)
}

fn sudoku_svg_name(set: &str) -> String {
    let stem = Path::new(set)
        .file_stem()
        .map_or("set".into(), |s| s.to_string_lossy().to_string());
    format!("sudoku-{stem}.svg")
}

/// The N-Queens chart: seconds per N on each engine.
fn queens_chart(cpu: Vec<(f64, f64)>, gpu: Vec<(f64, f64)>) -> Chart {
    Chart {
        title: "N-Queens: seconds per count (total and unique)".into(),
        x_label: "N".into(),
        y_label: "seconds".into(),
        log_x: false,
        log_y: true,
        series: vec![
            Series {
                name: "CPU (all cores)".into(),
                points: cpu,
            },
            Series {
                name: "GPU".into(),
                points: gpu,
            },
        ],
        marker: None,
    }
}

/// (x, y) points of one line.
type Points = Vec<(f64, f64)>;

/// Draws the charts again from a `compare.csv` (no engine runs), into `out`.
fn replot(csv: &Path, out: &Path) -> Result<bool, String> {
    let text =
        fs::read_to_string(csv).map_err(|e| format!("cannot read {}: {e}", csv.display()))?;
    // Per set, in file order: its name, the CPU's points and the GPU's.
    let mut sets: Vec<(String, Points, Points)> = Vec::new();
    let (mut queens_cpu, mut queens_gpu) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let [kind, set, size, engine, seconds, rate, _] = fields[..] else {
            return Err(format!(
                "{} line {}: expected 7 fields",
                csv.display(),
                i + 1
            ));
        };
        let number = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| format!("{} line {}: {v:?} is not a number", csv.display(), i + 1))
        };
        let (size, seconds, rate) = (number(size)?, number(seconds)?, number(rate)?);
        let on_gpu = engine == "gpu";
        match kind {
            "sudoku" => {
                if sets.last().is_none_or(|s| s.0 != set) {
                    sets.push((set.to_string(), Vec::new(), Vec::new()));
                }
                let entry = sets.last_mut().expect("just pushed");
                if on_gpu { &mut entry.2 } else { &mut entry.1 }.push((size, rate));
            }
            "queens" => if on_gpu {
                &mut queens_gpu
            } else {
                &mut queens_cpu
            }
            .push((size, seconds)),
            other => {
                return Err(format!(
                    "{} line {}: unknown kind {other:?}",
                    csv.display(),
                    i + 1
                ));
            }
        }
    }
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for (set, cpu, gpu) in sets {
        let (chart, _) = sudoku_chart(&set, cpu, gpu);
        write(
            &out.join(sudoku_svg_name(&set)),
            &chart.plot(640.0, 360.0).to_svg(),
        )?;
    }
    if !queens_cpu.is_empty() {
        write(
            &out.join("queens.svg"),
            &queens_chart(queens_cpu, queens_gpu)
                .plot(640.0, 360.0)
                .to_svg(),
        )?;
    }
    Ok(true)
}

/// Runs the command; `Ok(false)` when the engines disagreed anywhere.
pub fn run(args: BenchArgs) -> Result<bool, String> {
    if let Some(csv) = &args.replot {
        return replot(csv, &args.out);
    }
    crate::use_threads(args.threads)?;
    let queens = match args.queens.as_str() {
        "none" => None,
        range => Some(parse_queens(range)?),
    };
    let mode = args.count.map_or(Mode::First, Mode::Count);
    let wants = |engine: fn(&Engine) -> bool| args.engines.iter().any(engine);
    let mut cpu = wants(|e| matches!(e, Engine::Cpu))
        .then(|| {
            Engines::new(
                Engine::Cpu,
                0,
                DEFAULT_MAX_GUESSES,
                None,
                AutoTesting::default(),
            )
        })
        .transpose()?;
    let mut gpu = wants(|e| matches!(e, Engine::Gpu | Engine::Auto))
        .then(|| {
            Engines::new(
                Engine::Gpu,
                args.gpu_slots,
                DEFAULT_MAX_GUESSES,
                None,
                AutoTesting::default(),
            )
        })
        .transpose()?;
    if let Some(gpu) = gpu.as_mut() {
        gpu.set_cells_kernel(args.cells_kernel.into());
        gpu.set_nine_kernel(args.nine_kernel.into());
        gpu.set_stack_depth(args.gpu_depth);
    }
    let sets = load_sets(&args)?;
    fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut csv = String::from("kind,set,size,engine,seconds,rate,check\n");
    let mut agree_all = true;
    if let Some(name) = gpu.as_ref().and_then(|g| g.gpu_name()) {
        println!("# GPU: {name}");
    }
    println!("# CPU: {} threads", rayon::current_num_threads());
    println!(
        "# {}",
        match mode {
            Mode::First => "first solution".to_string(),
            Mode::Count(n) => format!("counting solutions up to {n}"),
        }
    );
    for set in &sets {
        println!();
        println!(
            "## {} ({} puzzles; larger batches repeat them)",
            set.name,
            set.records.len()
        );
        println!(
            "{:>8}  {:>10}  {:>12}  {:>10}  {:>12}  {:>8}  same answers  {:>32}",
            "batch",
            "CPU s",
            "CPU puz/s",
            "GPU s",
            "GPU puz/s",
            "GPU/CPU",
            "GPU ms: kernel (up/search/down+check)"
        );
        let (mut cpu_line, mut gpu_line) = (Vec::new(), Vec::new());
        // One puzzle of the set first, untimed: the GPU compiles the kernel for a shape other than 9×9 on its
        // first batch of that shape, which no size's time should hold.
        if let Some(gpu) = gpu.as_mut() {
            gpu.answer(&set.records[..set.records.len().min(1)], mode)?;
        }
        for &size in &args.sizes {
            let batch: Vec<Record> = set.records.iter().cycle().take(size).cloned().collect();
            let on_cpu = cpu
                .as_mut()
                .map(|e| time_batch(e, &batch, mode))
                .transpose()?;
            let on_gpu = gpu
                .as_mut()
                .map(|e| time_batch(e, &batch, mode))
                .transpose()?;
            let rate = |t: &Option<Timing>| t.as_ref().map(|t| size as f64 / t.seconds.max(1e-9));
            let (cpu_rate, gpu_rate) = (rate(&on_cpu), rate(&on_gpu));
            let same = match (&on_cpu, &on_gpu) {
                (Some(c), Some(g)) => {
                    Some(c.answers.iter().zip(&g.answers).all(|(a, b)| agree(a, b)))
                }
                _ => None,
            };
            agree_all &= same != Some(false);
            let cell = |v: Option<f64>, width: usize, digits: usize| {
                v.map_or(format!("{:>width$}", "—"), |v| {
                    format!("{v:>width$.digits$}")
                })
            };
            let kernel = on_gpu.as_ref().map_or(String::new(), |t| {
                let ms = t.kernel.map(|s| s * 1e3);
                format!(
                    "{:.1} ({:.1}/{:.1}/{:.1}+{:.1})",
                    ms[0],
                    ms[1],
                    ms[2],
                    ms[4],
                    ms[3] - ms[4]
                )
            });
            println!(
                "{size:>8}  {}  {}  {}  {}  {}  {:<12}  {kernel:>32}",
                cell(on_cpu.as_ref().map(|t| t.seconds), 10, 4),
                cell(cpu_rate, 12, 0),
                cell(on_gpu.as_ref().map(|t| t.seconds), 10, 4),
                cell(gpu_rate, 12, 0),
                cell(gpu_rate.zip(cpu_rate).map(|(g, c)| g / c), 8, 2),
                match same {
                    Some(true) => "yes",
                    Some(false) => "NO",
                    None => "—",
                }
            );
            let check = match same {
                Some(true) => "agree",
                Some(false) => "differ",
                None => "alone",
            };
            for (engine, t, rate) in [("cpu", &on_cpu, cpu_rate), ("gpu", &on_gpu, gpu_rate)] {
                if let (Some(t), Some(rate)) = (t, rate) {
                    let _ = writeln!(
                        csv,
                        "sudoku,{},{size},{engine},{:.6},{rate:.1},{check}",
                        set.name, t.seconds
                    );
                }
            }
            if let Some(rate) = cpu_rate {
                cpu_line.push((size as f64, rate));
            }
            if let Some(rate) = gpu_rate {
                gpu_line.push((size as f64, rate));
            }
        }
        let (chart, cross) = sudoku_chart(&set.name, cpu_line, gpu_line);
        match cross {
            Some(at) => println!("GPU overtakes the CPU at about {} puzzles", number(at)),
            None if cpu.is_some() && gpu.is_some() => {
                println!("the GPU does not overtake the CPU at these sizes")
            }
            None => {}
        }
        write(
            &args.out.join(sudoku_svg_name(&set.name)),
            &chart.plot(640.0, 360.0).to_svg(),
        )?;
    }
    if let Some(gpu) = &gpu {
        println!();
        println!("# GPU, all batches: {}", gpu.describe());
    }
    let (Some(queens), true) = (queens, cpu.is_some() && gpu.is_some()) else {
        write(&args.out.join("compare.csv"), &csv)?;
        return Ok(agree_all);
    };
    let ctx = GpuContext::new_blocking().map_err(|e| format!("no GPU for the comparison: {e}"))?;
    let queens_kernel = pollster::block_on(QueensKernel::new(&ctx)).map_err(|e| e.to_string())?;
    let mut agree = agree_all;
    println!();
    println!("## N-Queens");
    println!(
        "{:>2}  {:>20}  {:>18}  {:>10}  {:>10}  {:>8}  check",
        "N", "total", "unique", "CPU s", "GPU s", "GPU/CPU"
    );
    let (mut cpu_line, mut gpu_line) = (Vec::new(), Vec::new());
    for n in queens {
        let started = Instant::now();
        let on_cpu = prefix::count_parallel(n, &|_, _| {});
        let cpu_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let (on_gpu, _) = queens_kernel
            .count_blocking(
                &ctx,
                n,
                Shard::WHOLE,
                QueensConfig::default(),
                &mut |_, _| true,
            )
            .map_err(|e| format!("the GPU failed: {e}"))?;
        let gpu_seconds = started.elapsed().as_secs_f64();
        let tally = on_cpu.tally(n);
        let same = on_cpu == on_gpu && known(n).is_none_or(|k| k == tally);
        agree &= same;
        println!(
            "{n:>2}  {:>20}  {:>18}  {cpu_seconds:>10.4}  {gpu_seconds:>10.4}  {:>8.2}  {}",
            tally.total,
            tally.unique,
            cpu_seconds / gpu_seconds.max(1e-9),
            if same { "agree, published" } else { "DIFFER" }
        );
        for (engine, seconds) in [("cpu", cpu_seconds), ("gpu", gpu_seconds)] {
            let _ = writeln!(
                csv,
                "queens,N,{n},{engine},{seconds:.6},{:.1},{}",
                tally.total as f64 / seconds.max(1e-9),
                if same { "agree" } else { "differ" }
            );
        }
        cpu_line.push((f64::from(n), cpu_seconds));
        gpu_line.push((f64::from(n), gpu_seconds));
    }
    let chart = queens_chart(cpu_line, gpu_line);
    write(
        &args.out.join("queens.svg"),
        &chart.plot(640.0, 360.0).to_svg(),
    )?;
    write(&args.out.join("compare.csv"), &csv)?;
    println!();
    println!(
        "written to {}: compare.csv, sudoku-*.svg, queens.svg",
        args.out.display()
    );
    Ok(agree)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queens_ranges_are_checked() {
        assert_eq!(parse_queens("8..12"), Ok(8..=12));
        assert!(parse_queens("12..8").unwrap_err().contains("empty"));
        assert!(parse_queens("8-12").unwrap_err().contains("A..B"));
        assert!(
            parse_queens("8..40")
                .unwrap_err()
                .contains("between 1 and 32")
        );
    }
}
