//! The WGSL lane kernels (on lavapipe in CI, any Vulkan GPU elsewhere) against the CPU engine on the same
//! puzzles: same answers, every solution checked. A machine without a GPU adapter fails these tests: install
//! `mesa-vulkan-drivers` (scripts/setup.sh does).

use std::path::PathBuf;
use std::sync::OnceLock;

use forkboard::gpu::GpuContext;
use forkboard::gpu::sudoku_batch::{BatchReport, SudokuKernels, answer_chunk_blocking};
use forkboard::gpu::sudoku_fork::{CellsKernel, ForkConfig, NineKernel};
use forkboard::sudoku::answer::{Mode, answer};
use forkboard::sudoku::format::{Answer, ReadOptions, Reader, Record};
use forkboard::sudoku::{BoxShape, Grid, Solver, generate, verify};

struct Gpu {
    ctx: GpuContext,
    kernel: SudokuKernels,
}

fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let ctx = GpuContext::new_blocking()
            .expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)");
        let kernel = SudokuKernels::new_blocking(&ctx).expect("the kernels compile");
        eprintln!("GPU tests on {}", ctx.describe());
        Gpu { ctx, kernel }
    })
}

fn records_of(name: &str, take: usize) -> Vec<Record> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/sudoku")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    Reader::new(&bytes[..], ReadOptions::default())
        .take(take)
        .collect()
}

fn records_from(grids: &[Grid]) -> Vec<Record> {
    grids
        .iter()
        .enumerate()
        .map(|(i, g)| Record {
            line: i + 1,
            puzzle: Ok(g.clone()),
            given_solution: None,
        })
        .collect()
}

/// Runs the GPU and the CPU on the same records and demands the same answers.
fn same_as_cpu(records: &[Record], mode: Mode, config: ForkConfig) -> BatchReport {
    let g = gpu();
    let (gpu_answers, report) =
        answer_chunk_blocking(&g.ctx, &g.kernel, records, mode, config, &mut |_, _| true)
            .expect("the GPU runs");
    let mut cpu = Solver::new();
    for (record, got) in records.iter().zip(&gpu_answers) {
        let want = answer(record, &mut cpu, mode);
        match (&want, got) {
            // Several solutions: any valid one will do in first-solution mode; counts must agree.
            (
                Answer::Solved { count: c1, .. },
                Answer::Solved {
                    solution,
                    count: c2,
                    ..
                },
            ) => {
                assert_eq!(c1, c2, "line {}", record.line);
                let puzzle = record.puzzle.as_ref().unwrap();
                assert!(
                    verify::is_solution(puzzle, solution),
                    "line {}",
                    record.line
                );
                if matches!(c1, Some((1, false))) {
                    assert_eq!(&want, got, "line {}: the unique solution", record.line);
                }
            }
            _ => assert_eq!(&want, got, "line {}", record.line),
        }
    }
    report
}

#[test]
fn top95_matches_the_cpu() {
    let report = same_as_cpu(
        &records_of("top95.txt", 95),
        Mode::Count(2),
        ForkConfig::default(),
    );
    assert!(report.kernel.guesses > 0, "hard puzzles need guesses");
    assert!(
        report.kernel.forks > 0,
        "95 puzzles leave lanes idle, so busy lanes give them branches: {report:?}"
    );
    assert_eq!(
        report.cpu_fallbacks, 0,
        "the GPU answered everything itself: {report:?}"
    );
}

#[test]
fn invalid_unsolvable_and_multiple_match_the_cpu() {
    let nine_empty = ".".repeat(81);
    let text = format!(
        "11..............\n123............4\n................\n1234341221434321\nbad\n\
         11{clash}\n12345678.{unsolvable}9{rest}\n{few}\n{nine_empty}\n",
        clash = &nine_empty[2..],
        unsolvable = &nine_empty[..8],
        rest = &nine_empty[..63],
        few = "1.......2.3.......4.5.......6.7.......8.9.......................................1",
    );
    let records: Vec<Record> = Reader::new(text.as_bytes(), ReadOptions::default()).collect();
    // Mixed shapes and an unreadable line take the general path (givens checked first); a batch of 9×9 alone
    // takes the lane kernel's, where the givens are checked only for puzzles without a checked solution.
    let nine_only: Vec<Record> = records
        .iter()
        .filter(|r| r.puzzle.as_ref().is_ok_and(|p| p.side() == 9))
        .cloned()
        .collect();
    assert_eq!(nine_only.len(), 4);
    for mode in [Mode::First, Mode::Count(2), Mode::Count(1000)] {
        same_as_cpu(&records, mode, ForkConfig::default());
        same_as_cpu(&nine_only, mode, ForkConfig::default());
    }
}

#[test]
fn forum_hardest_puzzles_match_the_cpu() {
    // Among the hardest known 9×9 puzzles: hundreds of passes and dozens of guesses each.
    let records = records_of("forum_hardest_11plus.txt", 300);
    for mode in [Mode::First, Mode::Count(2)] {
        let report = same_as_cpu(&records, mode, ForkConfig::default());
        assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
    }
}

#[test]
fn a_small_batch_answered_partly_during_its_search_is_whole_and_in_order() {
    // A small batch's first submission is read back in two parts: the easy puzzles are answered after the
    // first while the hard ones are still searched, and the rest after. Shuffled together, every answer must
    // still be the CPU's and in its place, in both modes, with a kernel of each kind.
    let easy = records_of("kaggle_10k.csv", 150);
    let hard = records_of("forum_hardest_11plus.txt", 50);
    let mut records: Vec<Record> = Vec::new();
    for (k, record) in easy.into_iter().enumerate() {
        records.push(record);
        if k % 3 == 2 {
            records.push(hard[k / 3].clone());
        }
    }
    for (i, record) in records.iter_mut().enumerate() {
        record.line = i + 1;
    }
    // On 16 lanes the batch takes several submissions after the split one.
    let few_lanes = ForkConfig {
        slots: 16,
        ..ForkConfig::default()
    };
    for mode in [Mode::First, Mode::Count(2)] {
        for config in [ForkConfig::default(), few_lanes] {
            let report = same_as_cpu(&records, mode, config);
            let early = report.kernel.answered_early;
            assert!(early > 0, "{mode:?}, {config:?}: {report:?}");
            // On 16 lanes some wait for later submissions; with every lane a fast GPU has (an H200), the whole
            // batch may be answered by its first.
            if config.slots == 16 {
                assert!(
                    early < records.len() as u64,
                    "{mode:?}, {config:?}: {report:?}"
                );
            }
        }
    }
    // The same with 16×16 puzzles on the team kernel, some of them needing guesses.
    let shape: BoxShape = "4x4".parse().unwrap();
    let grids: Vec<Grid> = (0..40)
        .map(|seed| generate::with_holes(shape, 500 + seed, 0.45 + 0.005 * seed as f64).0)
        .collect();
    let config = ForkConfig {
        cells_kernel: CellsKernel::Teams,
        ..ForkConfig::default()
    };
    let report = same_as_cpu(&records_from(&grids), Mode::Count(2), config);
    assert!(report.kernel.answered_early > 0, "{report:?}");
}

#[test]
fn one_hard_puzzle_spreads_over_idle_lanes() {
    // Line 19,369 of the forum set is its longest search on one lane (examples/lane_model.rs): nearly 9,000
    // passes. Alone in a batch on the lane kernel (a batch of one goes to the squads unless asked), its branches go
    // to the idle lanes between runs.
    let records = lines_of("forum_hardest_11plus.txt", &[19_369]);
    let lanes = ForkConfig {
        nine_kernel: NineKernel::Lanes,
        ..ForkConfig::default()
    };
    for mode in [Mode::First, Mode::Count(2)] {
        let report = same_as_cpu(&records, mode, lanes);
        assert!(report.kernel.forks > 10, "{report:?}");
        assert_eq!(report.kernel.split, 0, "only `lone` splits: {report:?}");
        assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
    }
}

/// Records `lines` (1-based) of a shared set, numbered as in the file.
fn lines_of(name: &str, lines: &[usize]) -> Vec<Record> {
    let all = records_of(name, lines.iter().max().copied().unwrap_or(0));
    lines.iter().map(|&l| all[l - 1].clone()).collect()
}

#[test]
fn one_hard_puzzle_alone_is_answered_by_one_workgroup_in_one_run() {
    // A batch of one asked of `lone` (a workgroup of 256 lanes per puzzle, branches shared after every pass;
    // `Auto` gives a batch of one to the squads kernel instead). Line 17,232 is tdoku's slowest of the forum
    // set, line 19,369 the lane model's; the model has both solved within 40 rounds of 256 lanes
    // (examples/lone_model.rs), so the first run (128 rounds) answers
    // them, and their branches are shared among the workgroup's lanes: a stuck branch's feet, and splits of
    // several guesses at once while lanes stand idle.
    for record in lines_of("forum_hardest_11plus.txt", &[17_232, 19_369]) {
        for mode in [Mode::First, Mode::Count(2)] {
            let lone = ForkConfig {
                nine_kernel: NineKernel::Lone,
                ..ForkConfig::default()
            };
            let report = same_as_cpu(std::slice::from_ref(&record), mode, lone);
            assert_eq!(report.kernel.answered_early, 1, "{mode:?}: {report:?}");
            assert!(report.kernel.forks > 10, "{mode:?}: {report:?}");
            // Lanes stood idle while the first branches got stuck: splits handed several out at once.
            assert!(report.kernel.split >= 15, "{mode:?}: {report:?}");
            assert!(
                report.kernel.split < report.kernel.forks,
                "{mode:?}: {report:?}"
            );
            assert_eq!(report.cpu_fallbacks, 0, "{mode:?}: {report:?}");
        }
    }
}

/// Four 9×9 records that are not plain puzzles: clashing givens, no solution, a handful of solutions, and the
/// empty grid.
fn odd_nines() -> Vec<Record> {
    let nine_empty = ".".repeat(81);
    let text = format!(
        "11{clash}\n12345678.{unsolvable}9{rest}\n{few}\n{nine_empty}\n",
        clash = &nine_empty[2..],
        unsolvable = &nine_empty[..8],
        rest = &nine_empty[..63],
        few = "1.......2.3.......4.5.......6.7.......8.9.......................................1",
    );
    Reader::new(text.as_bytes(), ReadOptions::default()).collect()
}

#[test]
fn a_few_puzzles_a_workgroup_each_match_the_cpu() {
    // Hard, easy, unsolvable, clashing and many-solution puzzles together on `lone`, with lanes for 256 per
    // puzzle; counting many solutions takes several runs, so the lanes park and go on.
    let mut records = odd_nines();
    records.extend(records_of("forum_hardest_11plus.txt", 12));
    records.extend(records_of("kaggle_10k.csv", 6));
    for (i, record) in records.iter_mut().enumerate() {
        record.line = i + 1;
    }
    // Four times the lanes `lone` uses: its lanes get stacks of 128 frames, more than any search waits on.
    let lone = ForkConfig {
        slots: 1024 * records.len() as u32,
        nine_kernel: NineKernel::Lone,
        ..ForkConfig::default()
    };
    for mode in [Mode::First, Mode::Count(2)] {
        let report = same_as_cpu(&records, mode, lone);
        assert_eq!(report.cpu_fallbacks, 0, "{mode:?}: {report:?}");
    }
    let report = same_as_cpu(&records, Mode::Count(20_000), lone);
    assert!(report.kernel.rounds > 1, "{report:?}");
    assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
    // Lanes for 256 per puzzle and stacks of two frames: stacks fill, and those puzzles go to the CPU,
    // answered all the same.
    let tiny = ForkConfig {
        slots: 256 * records.len() as u32,
        stack_depth: 2,
        ..lone
    };
    let report = same_as_cpu(&records, Mode::Count(2), tiny);
    assert!(report.kernel.overflowed > 0, "{report:?}");
    assert_eq!(report.cpu_fallbacks, report.kernel.overflowed, "{report:?}");
}

#[test]
fn tiny_stacks_and_pool_lose_nothing() {
    // Two lanes with two frames each and a pool of two: stacks fill, their feet go to the pool until it is
    // full, and the puzzles that still need room go to the CPU, answered all the same.
    let config = ForkConfig {
        slots: 2,
        stack_depth: 2,
        ..ForkConfig::default()
    };
    let report = same_as_cpu(&records_of("top95.txt", 40), Mode::Count(2), config);
    assert!(report.kernel.overflowed > 0, "{report:?}");
    assert_eq!(report.cpu_fallbacks, report.kernel.overflowed, "{report:?}");
    eprintln!("tiny stacks: {report:?}");
}

#[test]
fn tiny_stacks_and_pool_of_other_shapes_lose_nothing() {
    // Both kernels of every shape but 9×9, two lanes (or teams) with two frames each and a pool of two, on
    // 16×16 searches counted to 2: stacks fill, their feet go to the pool until it is full and are dropped
    // after that, and the puzzles that then fall short of their count go to the CPU, answered all the same.
    let shape: BoxShape = "4x4".parse().unwrap();
    let grids: Vec<Grid> = (0..6)
        .map(|seed| generate::puzzle(shape, seed, 0.7).0)
        .chain([Grid::empty(shape)])
        .collect();
    for cells_kernel in [CellsKernel::Lanes, CellsKernel::Teams] {
        let config = ForkConfig {
            slots: 2,
            stack_depth: 2,
            cells_kernel,
            ..ForkConfig::default()
        };
        let report = same_as_cpu(&records_from(&grids), Mode::Count(2), config);
        assert!(report.kernel.overflowed > 0, "{cells_kernel:?}: {report:?}");
        assert_eq!(
            report.cpu_fallbacks, report.kernel.overflowed,
            "{cells_kernel:?}: {report:?}"
        );
        eprintln!("tiny pool, {cells_kernel:?}: {report:?}");
    }
}

#[test]
fn a_search_past_its_guess_budget_goes_to_the_cpu() {
    // Empty 6×6 grids counted to 1,000 take hundreds of guesses each; with a budget of 50 either kernel hands
    // them back, and the CPU (whose budget is the same) gives up on them just as it would alone.
    let shape: BoxShape = "2x3".parse().unwrap();
    let grids = vec![Grid::empty(shape); 3];
    let g = gpu();
    let records = records_from(&grids);
    for cells_kernel in [CellsKernel::Lanes, CellsKernel::Teams] {
        let config = ForkConfig {
            max_guesses: 50,
            cells_kernel,
            ..ForkConfig::default()
        };
        let (answers, report) = answer_chunk_blocking(
            &g.ctx,
            &g.kernel,
            &records,
            Mode::Count(1000),
            config,
            &mut |_, _| true,
        )
        .expect("the GPU runs");
        assert_eq!(report.kernel.overflowed, 3, "{cells_kernel:?}: {report:?}");
        let mut cpu = Solver::with_max_guesses(50);
        for (record, got) in records.iter().zip(&answers) {
            assert_eq!(got, &answer(record, &mut cpu, Mode::Count(1000)));
        }
    }
}

#[test]
fn one_large_puzzle_spreads_over_idle_lanes() {
    // An empty 6×6 grid counted to 2,000: one search, whose branches go to the idle lanes (or teams).
    let shape: BoxShape = "2x3".parse().unwrap();
    for cells_kernel in [CellsKernel::Lanes, CellsKernel::Teams] {
        let config = ForkConfig {
            cells_kernel,
            ..ForkConfig::default()
        };
        let report = same_as_cpu(
            &records_from(&[Grid::empty(shape)]),
            Mode::Count(2000),
            config,
        );
        assert!(report.kernel.forks > 5, "{cells_kernel:?}: {report:?}");
        assert_eq!(report.cpu_fallbacks, 0, "{cells_kernel:?}: {report:?}");
    }
}

#[test]
fn top1465_matches_the_cpu() {
    let report = same_as_cpu(
        &records_of("magictour_top1465.txt", 1465),
        Mode::Count(2),
        ForkConfig::default(),
    );
    assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
}

#[test]
fn easy_and_17_clue_samples_match_the_cpu() {
    same_as_cpu(
        &records_of("17_clue.txt", 2000),
        Mode::First,
        ForkConfig::default(),
    );
    let kaggle = records_of("kaggle_10k.csv", 2000);
    same_as_cpu(&kaggle, Mode::First, ForkConfig::default());
}

#[test]
fn serg_counts_match_the_cpu() {
    same_as_cpu(
        &records_of("serg_multi_10k.txt", 1000),
        Mode::Count(2),
        ForkConfig::default(),
    );
    // A larger limit makes the kernel count many branches of one puzzle.
    same_as_cpu(
        &records_of("serg_multi_10k.txt", 50),
        Mode::Count(50),
        ForkConfig::default(),
    );
}

#[test]
fn every_size_from_4_to_25_matches_the_cpu() {
    let shapes = [
        "2x2", "2x3", "3x2", "2x4", "3x3", "2x5", "3x4", "4x3", "2x7", "3x5", "4x4", "3x6", "4x5",
        "3x7", "2x11", "4x6", "5x5",
    ];
    let mut grids = Vec::new();
    for (seed, shape) in shapes.iter().enumerate() {
        let shape: BoxShape = shape.parse().unwrap();
        let share = if shape.side() <= 12 { 0.6 } else { 0.45 };
        for k in 0..3 {
            grids.push(generate::puzzle(shape, (100 + seed * 10 + k) as u64, share).0);
        }
        // And an empty grid, in first-solution mode below (every size has solutions).
        grids.push(Grid::empty(shape));
    }
    // Mixed sizes in one chunk: the driver groups them by shape and keeps the input order. Both kernels.
    let records = records_from(&grids);
    let generated: Vec<Grid> = grids
        .into_iter()
        .filter(|g| g.cells().iter().any(|&v| v != 0))
        .collect();
    for cells_kernel in [CellsKernel::Lanes, CellsKernel::Teams] {
        let config = ForkConfig {
            cells_kernel,
            ..ForkConfig::default()
        };
        // An empty large grid may go to the CPU: where a GPU has many lanes (an H200: 131,072), idle lanes take
        // so many of its branches at once that stacks and pool fill (nine of the chunk's on the lanes, there);
        // its answer is the same. The generated puzzles stay on the GPU.
        same_as_cpu(&records, Mode::First, config);
        let report = same_as_cpu(&records_from(&generated), Mode::First, config);
        assert_eq!(report.cpu_fallbacks, 0, "{cells_kernel:?}: {report:?}");
        // Counting too: an empty large grid's search runs deeper than a lane's stack and the pool hold together
        // on any adapter.
        same_as_cpu(&records, Mode::Count(3), config);
        let report = same_as_cpu(&records_from(&generated), Mode::Count(3), config);
        assert_eq!(report.cpu_fallbacks, 0, "{cells_kernel:?}: {report:?}");
    }
}

#[test]
fn large_grids_that_need_guesses_match_the_cpu_on_both_kernels() {
    // 16×16 and 25×25 emptied far enough that some need guesses, counted to 2: the team kernel's passes
    // (every invocation looking at a slice, placing together) must find what the CPU and the lane kernel find.
    let mut grids = Vec::new();
    for (shape, share, count) in [("4x4", 0.65, 16), ("5x5", 0.45, 6)] {
        let shape: BoxShape = shape.parse().unwrap();
        for seed in 0..count {
            grids.push(generate::puzzle(shape, 7000 + seed, share).0);
        }
    }
    let records = records_from(&grids);
    let mut guesses = Vec::new();
    for cells_kernel in [CellsKernel::Teams, CellsKernel::Lanes] {
        let config = ForkConfig {
            cells_kernel,
            ..ForkConfig::default()
        };
        let report = same_as_cpu(&records, Mode::Count(2), config);
        assert!(report.kernel.guesses > 0, "{cells_kernel:?}: {report:?}");
        assert_eq!(report.cpu_fallbacks, 0, "{cells_kernel:?}: {report:?}");
        eprintln!("large grids, {cells_kernel:?}: {report:?}");
        guesses.push(report.kernel.guesses);
    }
    // The teams' locked candidates and choice of guess leave fewer branches than the lanes' singles alone (134
    // against 217 when this was written).
    assert!(guesses[0] < guesses[1], "teams {guesses:?} lanes");
}

#[test]
fn searches_deeper_than_sixteen_guesses_stay_on_the_team_kernel() {
    // A 16×16 puzzle as `forkboard generate --size 16 --count 1000` makes them (line 451 at seed 1, about 63%
    // empty, one solution): even with the team kernel's locked candidates and choice of guess, its search goes
    // 21 guesses deep. One team and a pool of one frame, counted to 2: with a stack of 16 frames the search
    // overflows it, its foot fills the pool, the next foot is dropped and the puzzle goes to the CPU; the
    // default stack holds the search on the GPU.
    let lines = [
        ".3..........6E..7..8.....E...234.D..G.2E.9.8F..5F.5.B.4.1...9...",
        ".C.F...5...B4...9.E2AG..5F..........6...8.C..........B..A2....81",
        ".27.E.B.CG54...9..6.7......D..1...8......3..C..D......DC98.15.G6",
        "..3.1..7.A6...9F......3.D..EA.52.....5C.2...G....9...A.6.47..1.3",
    ];
    let text = lines.concat() + "\n";
    let records: Vec<Record> = Reader::new(text.as_bytes(), ReadOptions::default()).collect();
    assert_eq!(records.len(), 1);
    let one_team = ForkConfig {
        cells_kernel: CellsKernel::Teams,
        slots: 1,
        ..ForkConfig::default()
    };
    let shallow = ForkConfig {
        stack_depth: 16,
        ..one_team
    };
    let report = same_as_cpu(&records, Mode::Count(2), shallow);
    assert!(report.cpu_fallbacks > 0, "a stack of 16: {report:?}");
    let report = same_as_cpu(&records, Mode::Count(2), one_team);
    assert_eq!(report.cpu_fallbacks, 0, "the default stack: {report:?}");
    assert!(report.kernel.guesses > 0, "{report:?}");
}

#[test]
fn batches_packed_on_one_thread_or_every_core_arrive_whole() {
    // 700 25×25 puzzles are packed in three runs (313, 313 and 74 puzzles), on the calling thread; each batch
    // after the first reuses the last one's buffers and must find its own puzzles there (a smaller one, then
    // the same puzzles in another order), none of the last one's.
    let shape: BoxShape = "5x5".parse().unwrap();
    let grids: Vec<Grid> = (0..700)
        .map(|seed| generate::with_holes(shape, 9000 + seed, 0.3).0)
        .collect();
    let records = records_from(&grids);
    let reversed: Vec<Grid> = grids.iter().rev().cloned().collect();
    let config = ForkConfig {
        cells_kernel: CellsKernel::Teams,
        ..ForkConfig::default()
    };
    for batch in [
        records.clone(),
        records[..100].to_vec(),
        records_from(&reversed),
    ] {
        let report = same_as_cpu(&batch, Mode::First, config);
        assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
    }
    // 70,000 9×9 puzzles are 18 runs of 4,096, packed on every core.
    let kaggle = records_of("kaggle_10k.csv", 10_000);
    let many: Vec<Record> = (0..7).flat_map(|_| kaggle.iter().cloned()).collect();
    let report = same_as_cpu(&many, Mode::First, ForkConfig::default());
    assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
}

#[test]
fn the_kernel_for_other_shapes_is_compiled_by_their_first_batch_alone() {
    // Kernels of their own, so that no other test has compiled the second one already.
    let ctx = GpuContext::new_blocking().expect("a GPU adapter");
    let kernel = SudokuKernels::new_blocking(&ctx).expect("the kernels compile");
    let run = |records: &[Record]| {
        answer_chunk_blocking(
            &ctx,
            &kernel,
            records,
            Mode::First,
            ForkConfig::default(),
            &mut |_, _| true,
        )
        .expect("the GPU runs")
        .0
    };
    let nine = records_of("top95.txt", 5);
    let answers = run(&nine);
    let solved = |a: &Answer| matches!(a, Answer::Solved { .. });
    assert!(answers.iter().all(solved), "{answers:?}");
    assert!(
        !kernel.cells_compiled(),
        "9×9 puzzles alone need only their own kernel"
    );
    let shape: BoxShape = "2x3".parse().unwrap();
    let six = records_from(&[generate::puzzle(shape, 5, 0.5).0]);
    let answers = run(&six);
    assert!(answers.iter().all(solved), "{answers:?}");
    assert!(kernel.cells_compiled());
}

#[test]
fn a_device_lost_mid_batch_is_an_error_not_a_hang_or_a_panic() {
    // A context of its own: this test destroys its device.
    let ctx = GpuContext::new_blocking().expect("a GPU adapter");
    let kernel = SudokuKernels::new_blocking(&ctx).expect("the kernels compile");
    let records = records_of("forum_hardest_11plus.txt", 300);
    // 300 of the hardest puzzles take several submissions on any adapter; the device goes after the second.
    ctx.lose_device_after(2);
    let run = answer_chunk_blocking(
        &ctx,
        &kernel,
        &records,
        Mode::First,
        ForkConfig::default(),
        &mut |_, _| true,
    );
    let error = run.expect_err("a destroyed device cannot finish the batch");
    assert!(
        matches!(error, forkboard::gpu::GpuError::DeviceLost(_)),
        "{error}"
    );
}

#[test]
fn uniqueness_batches_give_the_cpus_verdicts() {
    use forkboard::gpu::uniqueness::unique_batch_blocking;
    use forkboard::sudoku::generator::unique_on_cpu;
    let g = gpu();
    for shape in ["3x3", "2x3", "4x4"] {
        let shape: BoxShape = shape.parse().unwrap();
        // Unique puzzles, the same with a given taken away (mostly several solutions), an empty grid, and
        // grids with emptied cells at several shares (some unique, some not).
        let mut puzzles = Vec::new();
        for seed in 0..6 {
            let (unique, _) = generate::puzzle(shape, seed, 0.5);
            let mut cells = unique.cells().to_vec();
            if let Some(c) = cells.iter().position(|&v| v != 0) {
                cells[c] = 0;
            }
            puzzles.push(unique);
            puzzles.push(Grid::new(shape, &cells).unwrap());
            puzzles.push(generate::with_holes(shape, seed, 0.3 + 0.1 * seed as f64).0);
        }
        puzzles.push(Grid::empty(shape));
        let checked = unique_batch_blocking(&g.ctx, &g.kernel, &puzzles).expect("the GPU runs");
        assert!(checked.stats.submissions > 0, "{shape}: the kernel ran");
        assert!(
            checked.on_cpu < puzzles.len() as u64,
            "{shape}: {checked:?}"
        );
        let gpu_verdicts = checked.verdicts;
        let cpu_verdicts: Vec<bool> = puzzles.iter().map(unique_on_cpu).collect();
        assert_eq!(gpu_verdicts, cpu_verdicts, "{shape}");
        assert!(gpu_verdicts.iter().any(|&u| u) && gpu_verdicts.iter().any(|&u| !u));
    }
}

/// Each record as a batch of one on the default kernel choice (the squads kernel), against the CPU.
fn each_alone_as_cpu(records: &[Record], mode: Mode) -> BatchReport {
    let mut total = BatchReport::default();
    for record in records {
        let report = same_as_cpu(std::slice::from_ref(record), mode, ForkConfig::default());
        total.add(&report);
    }
    total
}

#[test]
fn a_puzzle_alone_on_the_squads_matches_the_cpu() {
    // Hard, easy, unsolvable, clashing and many-solution puzzles, each alone: the squads kernel (subgroups where
    // they are 32 wide, workgroup memory on lavapipe) counts, hands branches over and ends on every one.
    let mut records = odd_nines();
    records.extend(records_of("forum_hardest_11plus.txt", 24));
    records.extend(records_of("kaggle_10k.csv", 6));
    records.extend(records_of("serg_multi_10k.txt", 6));
    for (i, record) in records.iter_mut().enumerate() {
        record.line = i + 1;
    }
    let mut fallbacks = 0;
    let mut forks = 0;
    for mode in [Mode::First, Mode::Count(2), Mode::Count(50)] {
        let report = each_alone_as_cpu(&records, mode);
        assert_eq!(
            report.kernel.rounds,
            records.len() as u64,
            "{mode:?}: {report:?}"
        );
        eprintln!(
            "{mode:?}: {} to the CPU, {} handed over, {} guesses, slots {}",
            report.cpu_fallbacks, report.kernel.forks, report.kernel.guesses, report.kernel.slots
        );
        fallbacks += report.cpu_fallbacks;
        forks += report.kernel.forks;
    }
    // lavapipe's loop budget sends the odd long search to the CPU (answered all the same); the kernel answers
    // nearly all, and its squads hand branches to each other.
    assert!(
        fallbacks <= 6,
        "{fallbacks} of {} to the CPU",
        3 * records.len()
    );
    // (On one core lavapipe runs a resident run's squads one after another, so the run has a single squad.)
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(forks > 0 || cores == 1, "no branch handed over");
}

#[test]
fn the_squads_kernel_shares_through_workgroup_memory_and_overflows_cleanly() {
    use forkboard::gpu::squad9::{Exchange, Squad9Kernel};
    use forkboard::sudoku::bands::pack;
    let g = gpu();
    let kernel =
        pollster::block_on(Squad9Kernel::new(&g.ctx, Exchange::Shared, 3)).expect("compiles");
    assert_eq!(kernel.squads(), 3);
    let mut solver = Solver::new();
    let mut answered = 0;
    for record in records_of("forum_hardest_11plus.txt", 16) {
        let puzzle = record.puzzle.unwrap();
        let (result, stats) =
            pollster::block_on(kernel.solve(&g.ctx, &pack(&puzzle), 2)).expect("runs");
        if result.overflowed() {
            continue;
        }
        answered += 1;
        let want = solver.solve(&puzzle, 2);
        assert_eq!(u64::from(result.count), want.count, "line {}", record.line);
        let solution = result.solution().expect("a solution");
        assert_eq!(
            Some(&solution[..]),
            want.solution.as_ref().map(|s| s.cells()),
            "line {}",
            record.line
        );
        assert!(stats.guesses > 0);
    }
    assert!(answered >= 12, "{answered} of 16 answered on the GPU");
}

#[test]
fn the_squads_kernel_compiles_with_subgroups_where_the_device_has_them() {
    use forkboard::gpu::squad9::{Exchange, Squad9Kernel};
    let g = gpu();
    // lavapipe has subgroups 8 wide: the kernel runs on workgroup memory there, but its subgroup form must
    // still be valid WGSL for the GPUs that run it.
    let has = g.ctx.device.features().contains(wgpu::Features::SUBGROUP);
    let built = pollster::block_on(Squad9Kernel::new(&g.ctx, Exchange::Subgroup, 1));
    assert_eq!(built.is_ok(), has, "{:?}", built.err());
    if g.ctx.info.subgroup_min_size != 32 || g.ctx.info.subgroup_max_size != 32 {
        assert_eq!(Exchange::best(&g.ctx), Exchange::Shared);
    }
}

#[test]
fn the_resident_squads_answer_puzzle_after_puzzle_parked_or_expired() {
    use forkboard::gpu::squad9::Exchange;
    use forkboard::gpu::squad9::resident::ResidentSquads;
    use forkboard::sudoku::bands::pack;
    let g = gpu();
    let mut resident = pollster::block_on(ResidentSquads::new(&g.ctx, Exchange::best(&g.ctx), 0))
        .expect("Vulkan and memory the host can map (lavapipe has both)");
    let mut records = records_of("forum_hardest_11plus.txt", 12);
    records.extend(records_of("serg_multi_10k.txt", 6));
    let other_work = records_of("kaggle_10k.csv", 2);
    let mut solver = Solver::new();
    let mut answered = 0;
    for (i, record) in records.iter().enumerate() {
        let puzzle = record.puzzle.as_ref().unwrap();
        let limit = if i % 3 == 0 { 2 } else { 1 };
        let (result, _) = resident
            .solve(&g.ctx, &pack(puzzle), limit)
            .expect("the resident squads answer");
        // Between puzzles: nothing, a pause longer than a run waits (it leaves unasked: some milliseconds on
        // lavapipe, about a tenth of a second on a GPU), or other work on the device (the waiting run is parked
        // first).
        match i % 3 {
            1 => std::thread::sleep(std::time::Duration::from_millis(
                if g.ctx.info.device_type == wgpu::DeviceType::Cpu {
                    50
                } else {
                    400
                },
            )),
            2 => {
                same_as_cpu(&other_work, Mode::First, ForkConfig::default());
            }
            _ => {}
        }
        if result.overflowed() {
            continue;
        }
        answered += 1;
        let want = solver.solve(puzzle, limit);
        // (Squads that find solutions at once may count past the limit: callers clamp.)
        assert_eq!(
            u64::from(result.count).min(limit),
            want.count,
            "line {}",
            record.line
        );
        let cells = result.solution().expect("a solution");
        let grid = Grid::new(puzzle.shape(), &cells).expect("a grid");
        assert!(verify::is_solution(puzzle, &grid), "line {}", record.line);
    }
    assert!(
        answered >= 15,
        "{answered} of {} answered on the GPU",
        records.len()
    );
    resident.park(&g.ctx);
}

#[test]
fn the_kernels_are_left_with_a_run_waiting_for_a_lone_puzzle() {
    // A context of its own: the other tests' work on the shared one parks whatever run waits there.
    let ctx = GpuContext::new_blocking().expect("a GPU adapter");
    let kernels = SudokuKernels::new_blocking(&ctx).expect("the kernels compile");
    // Setup's last work is the resident squads' warm-up, which leaves a run waiting: nothing compiled or warmed
    // after it parks that run, so the first lone puzzle pays no submission (docs/benchmarks.md, "One hard
    // puzzle in a fresh process").
    assert!(
        ctx.has_waiting_run(),
        "setup left no run waiting on {}",
        ctx.describe()
    );
    let records = lines_of("forum_hardest_11plus.txt", &[22_317]);
    let (answers, report) = answer_chunk_blocking(
        &ctx,
        &kernels,
        &records,
        Mode::First,
        ForkConfig::default(),
        &mut |_, _| true,
    )
    .expect("the GPU runs");
    assert_eq!(report.cpu_fallbacks, 0, "{report:?}");
    assert_eq!(
        answers[0],
        answer(&records[0], &mut Solver::new(), Mode::First)
    );
}
