//! `forkboard queens`: N-Queens totals and unique counts for one N or a range, on the CPU or the GPU.

use std::io::{self, IsTerminal};
use std::ops::RangeInclusive;

use indicatif::{ProgressBar, ProgressStyle};
use web_time::Instant;

use forkboard::gpu::queens::{QueensConfig, QueensKernel};
use forkboard::gpu::queens_many::count_on_many;
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::queens::constellation;
use forkboard::queens::{Classes, Tally, known, parse_n, prefix};
use forkboard::shard::Shard;

use crate::gpus::{describe_share, parse_gpus, preferred_adapter_for_auto};
use crate::{Engine, QueensArgs};

/// Below this N the CPU answers before a GPU that is open already would have its buffers ready.
const AUTO_GPU_MIN: u32 = 12;

/// Under auto, the least N for which a GPU is looked for and opened: below it every core is through before the
/// device is set up. On the H200 machine setting one up took some 0.25 s of the process, and 16 cores counted
/// N=16 in 0.16 s and N=17 in 1.1 s (docs/benchmarks.md, "Auto's N-Queens GPU opened only where it pays").
const AUTO_GPU_OPEN: u32 = 17;

/// The engine of one run: the CPU, or a ready GPU kernel (and more GPUs to share the work with).
struct QueensEngines {
    gpu: Option<(GpuContext, QueensKernel)>,
    more_gpus: Vec<(GpuContext, QueensKernel)>,
    choice: Engine,
    /// Under auto: a GPU was looked for (once, for the first N of at least [`AUTO_GPU_OPEN`]).
    looked_for_gpu: bool,
    /// `--lose-gpu-after`, for a GPU auto opens later.
    lose_after: Option<u64>,
    note: Option<String>,
}

impl QueensEngines {
    fn new(choice: Engine, gpus: Option<&str>) -> Result<Self, String> {
        let indices = gpus.map(parse_gpus).transpose()?;
        let open_one = |index: Option<usize>| {
            with_kernel(match index {
                None => GpuContext::new_blocking(),
                Some(i) => GpuContext::on_adapter_blocking(i),
            })
        };
        let first = indices.as_ref().map(|list| list[0]);
        let open = || open_one(first);
        let mut engines = Self {
            gpu: None,
            more_gpus: Vec::new(),
            choice,
            looked_for_gpu: false,
            lose_after: None,
            note: None,
        };
        if let (Some(list), false) = (&indices, matches!(choice, Engine::Cpu)) {
            for &index in &list[1..] {
                engines
                    .more_gpus
                    .push(open_one(Some(index)).map_err(|e| format!("--gpus: GPU {index}: {e}"))?);
            }
        }
        match choice {
            Engine::Cpu => {}
            Engine::Gpu => engines.gpu = Some(open().map_err(|e| format!("--engine gpu: {e}"))?),
            // The GPUs asked for by number are opened at once, as under `--engine gpu`.
            Engine::Auto if first.is_some() => {
                engines.looked_for_gpu = true;
                match open() {
                    Ok(gpu) => engines.gpu = Some(gpu),
                    Err(e) => engines.note = Some(format!("no GPU: {e}")),
                }
            }
            // Otherwise a GPU is looked for when an N comes that it would count sooner ([`Self::count`]).
            Engine::Auto => {}
        }
        Ok(engines)
    }

    /// Under auto, the first time an N of at least [`AUTO_GPU_OPEN`] comes: the preferred adapter, passed over
    /// before any device is made if it is a software one, else opened with the kernel compiled.
    fn look_for_gpu(&mut self) {
        self.looked_for_gpu = true;
        let adapter = match preferred_adapter_for_auto(false) {
            Ok(adapter) => adapter,
            Err(why) => {
                self.note = Some(why);
                return;
            }
        };
        match with_kernel(GpuContext::on_blocking(adapter)) {
            Ok((ctx, kernel)) => {
                if let Some(submissions) = self.lose_after {
                    ctx.lose_device_after(submissions);
                }
                self.gpu = Some((ctx, kernel));
            }
            Err(e) => self.note = Some(format!("no GPU: {e}")),
        }
    }

    /// Counts one N; returns the classes and the engine that did it.
    fn count(
        &mut self,
        n: u32,
        shard: Shard,
        config: QueensConfig,
        bar: &ProgressBar,
    ) -> Result<(Classes, String), String> {
        if matches!(self.choice, Engine::Auto) && n >= AUTO_GPU_OPEN && !self.looked_for_gpu {
            self.look_for_gpu();
        }
        let on_gpu = match self.choice {
            Engine::Cpu => false,
            Engine::Gpu => true,
            Engine::Auto => n >= AUTO_GPU_MIN,
        };
        if let (true, Some((ctx, kernel)), false) = (on_gpu, &self.gpu, self.more_gpus.is_empty()) {
            let mut gpus = vec![(ctx, kernel)];
            gpus.extend(self.more_gpus.iter().map(|(c, k)| (c, k)));
            let progress = |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            };
            let run = count_on_many(&gpus, n, shard, config, &progress);
            match run {
                Ok((classes, stats, shares)) => {
                    let each: Vec<String> = shares
                        .iter()
                        .map(|s| {
                            let detail = format!("{:.3} s", s.seconds);
                            describe_share(
                                &s.name,
                                s.nodes,
                                stats.nodes,
                                &detail,
                                s.failed.as_deref(),
                            )
                        })
                        .collect();
                    let engine = format!(
                        "{} gpus ({} nodes cut down to row {}; {})",
                        gpus.len(),
                        stats.nodes,
                        stats.cut_row,
                        each.join("; ")
                    );
                    return Ok((classes, engine));
                }
                // Every GPU failed (one that fails alone leaves its runs to the others): the CPU counts
                // the board, under `--engine gpu` too, so nothing is lost.
                Err(e) => {
                    eprintln!("forkboard: the GPUs failed ({e}); continuing on the CPU");
                    self.note = Some(format!("the GPUs failed mid-run ({e})"));
                    self.gpu = None;
                    self.more_gpus.clear();
                }
            }
        }
        if let (true, Some((ctx, kernel))) = (on_gpu, &self.gpu) {
            let run = kernel.count_blocking(ctx, n, shard, config, &mut |done, total| {
                bar.set_length(total);
                bar.set_position(done);
                true
            });
            match run {
                Ok((classes, stats)) => {
                    // Constellations are named (the mirror split, `--gpu-mirror`, has none).
                    let orbits = match stats.constellations {
                        0 => String::new(),
                        count => format!("{count} constellations, "),
                    };
                    let engine = format!(
                        "gpu {} ({orbits}{} nodes cut down to row {} in {:.3} s, {} dispatches, {} splits; \
                         symmetric boards {:.3} s)",
                        ctx.describe(),
                        stats.nodes,
                        stats.cut_row,
                        stats.cut_seconds,
                        stats.dispatches,
                        stats.splits,
                        stats.symmetric_seconds
                    );
                    return Ok((classes, engine));
                }
                Err(e) => {
                    eprintln!("forkboard: the GPU failed ({e}); continuing on the CPU");
                    self.note = Some(format!("the GPU failed mid-run ({e})"));
                    self.gpu = None;
                }
            }
        }
        let progress = |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        };
        // A whole board on the corner split, the faster search on a CPU (docs/benchmarks.md); a shard on
        // the constellations, the unit every engine shares.
        let classes = if shard == Shard::WHOLE {
            prefix::count_parallel(n, &progress)
        } else {
            constellation::count_parallel(n, shard, &progress)
        };
        Ok((
            classes,
            format!("cpu ({} threads)", rayon::current_num_threads()),
        ))
    }
}

/// The N-Queens kernel compiled on an opened context, or why either failed.
fn with_kernel(opened: Result<GpuContext, GpuError>) -> Result<(GpuContext, QueensKernel), String> {
    let ctx = opened.map_err(|e| e.to_string())?;
    let kernel = pollster::block_on(QueensKernel::new(&ctx)).map_err(|e| e.to_string())?;
    Ok((ctx, kernel))
}

/// Reads `A..B` (or `A..=B`), both ends in 1..=32.
fn parse_range(text: &str) -> Result<RangeInclusive<u32>, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("--range takes A..B (e.g. 4..16), not {text:?}"))?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let (a, b) = (
        parse_n(a).map_err(|e| format!("--range start: {e}"))?,
        parse_n(b).map_err(|e| format!("--range end: {e}"))?,
    );
    if a > b {
        return Err(format!(
            "--range {a}..{b} is empty: the start is past the end"
        ));
    }
    Ok(a..=b)
}

/// Runs the command; `Ok(false)` when a count disagrees with the published one.
pub fn run(args: QueensArgs) -> Result<bool, String> {
    let sizes = match (&args.n, &args.range) {
        (Some(_), Some(_)) => return Err("give either N or --range A..B, not both".into()),
        (Some(n), None) => {
            let n = parse_n(n).map_err(|e| e.to_string())?;
            n..=n
        }
        (None, Some(range)) => parse_range(range)?,
        (None, None) => return Err("give a board size N (1 to 32) or --range A..B".into()),
    };
    crate::use_threads(args.threads)?;
    let mut engines = QueensEngines::new(args.engine, args.gpus.as_deref())?;
    engines.lose_after = args.lose_gpu_after;
    if let (Some(k), Some((ctx, _))) = (args.lose_gpu_after, &engines.gpu) {
        ctx.lose_device_after(k);
    }
    let config = QueensConfig {
        nodes: args.gpu_nodes,
        lanes: args.gpu_lanes,
        deep: args.gpu_deep,
        no_split: args.gpu_no_split,
        mirror: args.gpu_mirror,
        table_masks: args.gpu_table_masks,
        part_nodes: None,
    };
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    if args.shard.is_some() {
        println!(
            "shard {shard}: its parts of the counts, which add up over the {} shards",
            shard.of
        );
    }
    println!(
        "{:>2}  {:>20}  {:>19}  {:>10}  {:<9}  engine",
        "N", "total", "unique", "seconds", "published"
    );
    let mut all_match = true;
    for n in sizes {
        let bar = progress_bar();
        let started = Instant::now();
        let (classes, engine) = engines.count(n, shard, config, &bar)?;
        let seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let tally = classes.tally(n);
        if args.shard.is_some() {
            // A part has nothing published to match; the driver adds the parts up and checks the sum.
            println!(
                "{n:>2}  {:>20}  {:>19}  {seconds:>10.3}  {:<9}  {engine}",
                tally.total, tally.unique, "-"
            );
            println!("{}", shard_json(n, shard, tally, seconds, &engine));
            continue;
        }
        let published = match known(n) {
            Some(expected) if expected == tally => "matches".to_string(),
            Some(Tally { total, unique }) => {
                all_match = false;
                format!("DIFFERS (published {total} / {unique})")
            }
            None => "-".to_string(),
        };
        println!(
            "{n:>2}  {:>20}  {:>19}  {seconds:>10.3}  {published:<9}  {engine}",
            tally.total, tally.unique
        );
    }
    if matches!(engines.choice, Engine::Auto) && !engines.looked_for_gpu {
        engines.note = Some(format!(
            "auto: boards under {AUTO_GPU_OPEN} are counted sooner on every core than a GPU is set up, so none \
             was looked for"
        ));
    }
    if let Some(note) = &engines.note {
        eprintln!("note: {note}");
    }
    Ok(all_match)
}

/// One shard's result as a JSON line, for drivers (the Ray driver in `cluster/`).
fn shard_json(n: u32, shard: Shard, tally: Tally, seconds: f64, engine: &str) -> String {
    serde_json::json!({
        "n": n,
        "shard": shard.to_string(),
        "total": tally.total,
        "unique": tally.unique,
        "seconds": seconds,
        "engine": engine,
    })
    .to_string()
}

/// A bar over nodes on standard error, only when it is a terminal.
fn progress_bar() -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{bar:40} {percent:>3}% of the nodes, eta {eta}")
            .expect("a valid template"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        assert_eq!(parse_range("4..8"), Ok(4..=8));
        assert_eq!(parse_range("4..=8"), Ok(4..=8));
        assert!(parse_range("8..4").unwrap_err().contains("empty"));
        assert!(
            parse_range("0..4")
                .unwrap_err()
                .contains("between 1 and 32")
        );
        assert!(parse_range("4-8").unwrap_err().contains("A..B"));
        assert!(parse_range("4..x").unwrap_err().contains("whole number"));
    }
}
