//! `forkboard`: the command line of the Forkboard engine — solve, count and verify Sudoku files.

mod bench;
mod engine;
mod generate;
mod gpus;
mod input;
mod queens;
mod rate;
mod seconds;
mod solve;
mod stages;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use forkboard::shard::Shard;
use forkboard::sudoku::format::Format;
use forkboard::sudoku::{BoxShape, Symbols};

/// mimalloc instead of glibc's malloc: `solve`'s stages hand pieces and parts of a megabyte or more from
/// thread to thread, and glibc maps each such block afresh and unmaps it when freed, so every stage paid page
/// faults for memory it had just given back (docs/benchmarks.md, "Files end to end").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit status when every puzzle was answered with a solution (or every grid verified).
const EXIT_OK: u8 = 0;
/// Exit status when some puzzles were invalid or had no solution (the others are still answered).
const EXIT_SOME_FAILED: u8 = 1;
/// Exit status when the run could not be done at all (a missing file, a write error, bad arguments).
const EXIT_ERROR: u8 = 2;

#[derive(Parser)]
#[command(
    name = "forkboard",
    version,
    about = "Solve, count and verify Sudoku from 4×4 to 25×25; count N-Queens solutions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every puzzle of a file (or standard input), writing solutions in the input's layout.
    Solve(SolveArgs),
    /// Check that every grid of a file is a complete, valid solution (and matches its puzzle, for CSV).
    Verify(VerifyArgs),
    /// Grade every puzzle of a file from its logical solution (Easy, Medium, Hard, Unfair, Extreme, or Needs
    /// guessing): CSV on standard output (line, grade, score, hardest technique, steps), a summary on standard
    /// error.
    Rate(RateArgs),
    /// Make new puzzles with exactly one solution, optionally of a grade, one per line (or CSV with
    /// `--csv`); a summary on standard error.
    Generate(GenerateArgs),
    /// Count the solutions of the N-Queens puzzle: total, and unique up to rotation and reflection.
    Queens(QueensArgs),
    /// Compare the CPU engine on every core with the GPU: Sudoku batches of several sizes and N-Queens counts;
    /// prints a table and writes compare.csv and SVG charts.
    Bench(BenchArgs),
}

/// Where puzzles come from and how they are written.
#[derive(Args)]
struct InputArgs {
    /// The puzzle file; `-` or nothing reads standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// The layout, when detection guesses wrong.
    #[arg(long, value_parser = clap::value_parser!(Format))]
    format: Option<Format>,
    /// Box shape RxC for sizes with several (e.g. `--box 4x3` for 12×12 with 4-row boxes).
    #[arg(long = "box", value_name = "RxC")]
    box_shape: Option<BoxShape>,
    /// The symbols: `standard` (1-9 then A, B, …) or `hex` (0-F for 16×16).
    #[arg(long, default_value = "standard")]
    symbols: Symbols,
}

/// `bench --cells-kernel`: which GPU kernel searches shapes other than 9×9.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CellsKernelArg {
    /// Teams for small batches, lanes for large ones.
    Auto,
    /// One board per lane.
    Lanes,
    /// One board per team of invocations (a workgroup).
    Teams,
}

impl From<CellsKernelArg> for forkboard::gpu::sudoku_fork::CellsKernel {
    fn from(arg: CellsKernelArg) -> Self {
        match arg {
            CellsKernelArg::Auto => Self::Auto,
            CellsKernelArg::Lanes => Self::Lanes,
            CellsKernelArg::Teams => Self::Teams,
        }
    }
}

/// `bench --nine-kernel`: which GPU kernel searches 9×9.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum NineKernelArg {
    /// Squads of 32 invocations sharing the search of a puzzle alone, a workgroup per puzzle for batches of a
    /// few, lanes for larger ones.
    Auto,
    /// One board per lane.
    Lanes,
    /// A workgroup per puzzle, wherever the lanes hold one for each.
    Lone,
}

impl From<NineKernelArg> for forkboard::gpu::sudoku_fork::NineKernel {
    fn from(arg: NineKernelArg) -> Self {
        match arg {
            NineKernelArg::Auto => Self::Auto,
            NineKernelArg::Lanes => Self::Lanes,
            NineKernelArg::Lone => Self::Lone,
        }
    }
}

/// The solving engine.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Engine {
    /// The CPU solver on every core.
    Cpu,
    /// The WGSL lane kernels on the GPU (Vulkan); an error if there is none.
    Gpu,
    /// The GPU for large chunks when a hardware one is present, else the CPU; falls back to the CPU on errors.
    Auto,
}

#[derive(Args)]
struct SolveArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Count solutions up to N instead of stopping at the first (`--count 2` checks uniqueness).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    count: Option<u64>,
    /// Write the solutions to FILE; `--out` alone writes beside the input with the extension `.sol`.
    #[arg(long, value_name = "FILE")]
    out: Option<Option<PathBuf>>,
    /// Print a summary on standard error: puzzles, solved, unique, multiple, invalid, time, rate.
    #[arg(long)]
    stats: bool,
    /// The engine to solve on.
    #[arg(long, value_enum, default_value = "auto")]
    engine: Engine,
    /// The GPU's lanes, one board each (default: from the adapter and the device's memory limits).
    #[arg(long, value_name = "N", default_value_t = 0)]
    gpu_slots: u32,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Give up on a puzzle after N guesses in a row without a new solution (0: never). The answer says so;
    /// the other puzzles are still solved.
    #[arg(long, value_name = "N", default_value_t = forkboard::sudoku::solver::DEFAULT_MAX_GUESSES)]
    max_guesses: u64,
    /// About how many puzzles are read and answered together (default: 65536 on the CPU, 131072 on the GPU);
    /// memory grows with it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    chunk: Option<u64>,
    /// Answer only part K of M of the file: its K-th M-th of the bytes, both ends moved to the next puzzle
    /// boundary. The M outputs concatenated in order are the whole output, byte for byte.
    #[arg(long, value_name = "K/M", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Add `grade` and `score` columns to CSV output: each puzzle with one solution rated by the logical solver
    /// (as `forkboard rate` does); CSV input only.
    #[arg(long)]
    rate: bool,
    /// The GPUs to solve on: `all`, or adapter numbers from 0 (`0,1`); each takes the next chunk as it frees
    /// up, and the answers are written in input order (default: the one preferred GPU).
    #[arg(long, value_name = "all|0,1,…")]
    gpus: Option<String>,
    /// Fault injection for tests: destroy the (first) GPU's device after K submissions (its chunk in flight
    /// and the rest are answered by the other GPUs, or the CPU).
    #[arg(long, value_name = "K", hide = true)]
    lose_gpu_after: Option<u64>,
    /// For tests: under `--engine auto`, a software adapter (lavapipe) stands for a GPU, so that auto's way with
    /// a GPU runs where there is no hardware one.
    #[arg(long, hide = true)]
    auto_software_gpu: bool,
    /// For tests: under `--engine auto`, a chunk that goes to the GPU waits for the GPU's setup instead of going
    /// to the CPU meanwhile.
    #[arg(long, hide = true)]
    auto_waits_for_gpu: bool,
}

#[derive(Args)]
struct QueensArgs {
    /// The board size, 1 to 32.
    #[arg(allow_hyphen_values = true)]
    n: Option<String>,
    /// Count every N from A to B (inclusive) and print a table.
    #[arg(long, value_name = "A..B")]
    range: Option<String>,
    /// The engine to count on (`auto`: the GPU from N = 12 when a hardware one is present).
    #[arg(long, value_enum, default_value = "auto")]
    engine: Engine,
    /// Worker threads for the CPU (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Nodes to cut the search into for the GPU (default: chosen from N and the device).
    #[arg(long, value_name = "COUNT")]
    gpu_nodes: Option<usize>,
    /// Searching lanes (invocations) on the GPU (default: chosen from the device).
    #[arg(long, value_name = "COUNT")]
    gpu_lanes: Option<u32>,
    /// Runs the GPU kernel with the deep stacks whatever the cut (for measurements).
    #[arg(long, hide = true)]
    gpu_deep: bool,
    /// Never lets the GPU's busy lanes give work to idle ones at the end of a count (for measurements).
    #[arg(long, hide = true)]
    gpu_no_split: bool,
    /// Counts a whole board on the mirror split on the GPU instead of its constellations (for measurements).
    #[arg(long, hide = true)]
    gpu_mirror: bool,
    /// Reads the constellations' row masks from their tables at every step on the GPU instead of working them
    /// out from the border queens (for measurements).
    #[arg(long, hide = true)]
    gpu_table_masks: bool,
    /// Counts only part K of M of the work (its constellations whose index is K−1 modulo M): the M parts'
    /// totals and unique counts add up to the board's. Each result is also printed as a JSON line.
    #[arg(long, value_name = "K/M", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// The GPUs to count on: `all`, or adapter numbers from 0 (`0,1`); the work is shared among them, each
    /// taking more as it frees up (default: the one preferred GPU).
    #[arg(long, value_name = "all|0,1,…")]
    gpus: Option<String>,
    /// Fault injection for tests: destroy the (first) GPU's device after K submissions (the others, or the
    /// CPU, must finish the count).
    #[arg(long, value_name = "K", hide = true)]
    lose_gpu_after: Option<u64>,
}

/// Sets the worker threads of every parallel step (`--threads N`; without it, every core).
fn use_threads(threads: Option<usize>) -> Result<(), String> {
    let Some(threads) = threads else {
        return Ok(());
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build_global()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text)
}

#[derive(Args)]
struct BenchArgs {
    /// The folder holding the puzzle sets.
    #[arg(long, default_value = "../shared/data/sudoku")]
    data: PathBuf,
    /// Puzzle sets (file names in --data), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "kaggle_10k.csv,17_clue.txt,magictour_top1465.txt"
    )]
    sets: Vec<String>,
    /// Batch sizes, comma-separated (a set smaller than a batch is repeated to fill it).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,10,100,1000,10000,100000"
    )]
    sizes: Vec<usize>,
    /// Generated sets of unique puzzles, by box shape, comma-separated (`4x4,5x5`: 16×16 and 25×25).
    #[arg(long, value_delimiter = ',', value_name = "RxC")]
    generated: Vec<String>,
    /// Puzzles in each generated set.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    generated_count: usize,
    /// The share of each generated puzzle's cells emptied (fewer where uniqueness stops it first).
    #[arg(long, default_value_t = 0.45, value_name = "SHARE")]
    empty: f64,
    /// Count solutions up to N instead of finding the first (2: the uniqueness check).
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// The engines to run, comma-separated: cpu, gpu (the ratio and agreement need both).
    #[arg(long, value_delimiter = ',', default_value = "cpu,gpu")]
    engines: Vec<Engine>,
    /// The GPU's boards in flight (as `solve --gpu-slots`; default: from the batch and the device).
    #[arg(long, value_name = "N", default_value_t = 0)]
    gpu_slots: u32,
    /// The GPU kernel for shapes other than 9×9: a board per lane, a board per team (workgroup), or teams for
    /// small batches and lanes for large ones.
    #[arg(long, value_enum, default_value = "auto")]
    cells_kernel: CellsKernelArg,
    /// The GPU kernel for 9×9: a board per lane, a workgroup per puzzle (`lone`), or (auto) squads sharing a
    /// puzzle alone, `lone` for batches of a few and lanes for larger ones.
    #[arg(long, value_enum, default_value = "auto")]
    nine_kernel: NineKernelArg,
    /// Stack frames per GPU lane or team (0: each kernel's default; measurements).
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    gpu_depth: u32,
    /// N-Queens sizes to count on both engines, A..B, or `none`.
    #[arg(long, default_value = "8..16")]
    queens: String,
    /// Where compare.csv and the charts are written.
    #[arg(long, default_value = "bench-out")]
    out: PathBuf,
    /// CPU threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Only draw the charts again from an earlier run's compare.csv (into --out).
    #[arg(long, value_name = "CSV")]
    replot: Option<PathBuf>,
}

#[derive(Args)]
struct GenerateArgs {
    /// The grid side (4 to 25).
    #[arg(long, default_value_t = 9)]
    size: usize,
    /// Box shape RxC for sizes with several (e.g. `--box 4x3` for 12×12 with 4-row boxes).
    #[arg(long = "box", value_name = "RxC")]
    box_shape: Option<BoxShape>,
    /// How many puzzles.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// The grade to make: easy, medium, hard, unfair, extreme or needs-guessing.
    #[arg(long)]
    grade: Option<String>,
    /// Givens in pairs symmetric about the centre.
    #[arg(long)]
    symmetric: bool,
    /// The seed: the same seed makes the same puzzles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Full grids tried per puzzle for the asked grade before giving up on it.
    #[arg(long, default_value_t = 500)]
    attempts: u32,
    /// Write `puzzle,solution,grade,score` lines under a header instead of puzzles alone.
    #[arg(long, conflicts_with = "html")]
    csv: bool,
    /// Write one printable HTML page instead: several puzzles per A4 sheet with their grades, the solutions on
    /// the sheets after them.
    #[arg(long)]
    html: bool,
    /// The symbols: `standard` (1-9 then A, B, …) or `hex` (0-F for 16×16).
    #[arg(long, default_value = "standard")]
    symbols: Symbols,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Where each removal's uniqueness is checked: `cpu` (every core) or `gpu` (all the puzzles' removals of a
    /// round in one GPU batch; an error if there is no GPU). `auto` is the CPU: the GPU's checks measured slower
    /// than 16 cores at every size. The puzzles are the same either way.
    #[arg(long, value_enum, default_value = "cpu")]
    engine: Engine,
}

#[derive(Args)]
struct RateArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Also print each puzzle's logical solution, one step per line starting with `#`.
    #[arg(long)]
    explain: bool,
    /// Check every step against the puzzle's solution (a wrong step is reported and the puzzle not rated).
    #[arg(long)]
    check: bool,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

#[derive(Args)]
struct VerifyArgs {
    #[command(flatten)]
    input: InputArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Rate(args) => rate::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Queens(args) => queens::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match result {
        Ok(all_good) => engine::exit(if all_good { EXIT_OK } else { EXIT_SOME_FAILED }),
        Err(message) => {
            eprintln!("forkboard: {message}");
            engine::exit(EXIT_ERROR)
        }
    }
}
