//! The WGSL N-Queens kernel (on lavapipe in CI, any Vulkan GPU elsewhere) against the published counts. A machine
//! without a GPU adapter fails these tests: install `mesa-vulkan-drivers` (scripts/setup.sh does).

use std::sync::OnceLock;

use forkboard::gpu::queens::{QueensConfig, QueensKernel, QueensNode, QueensStats, QueensWork};
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::queens::constellation::{Plan, Shard};
use forkboard::queens::{self, known, mirror};

struct Gpu {
    ctx: GpuContext,
    kernel: QueensKernel,
}

fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let ctx = GpuContext::new_blocking()
            .expect("a GPU adapter (install mesa-vulkan-drivers for lavapipe)");
        let kernel = pollster::block_on(QueensKernel::new(&ctx)).expect("the kernel compiles");
        eprintln!("GPU tests on {}", ctx.describe());
        Gpu { ctx, kernel }
    })
}

impl Gpu {
    /// Counts `n` (or a shard of it) to the end, with no progress to watch.
    fn count(&self, n: u32, shard: Shard, config: QueensConfig) -> (queens::Classes, QueensStats) {
        self.kernel
            .count_blocking(&self.ctx, n, shard, config, &mut |_, _| true)
            .unwrap()
    }

    /// The browser's count of `n`'s total alone ([`QueensKernel::count_total`]), to the end.
    fn total(&self, n: u32, config: QueensConfig) -> (u64, QueensStats) {
        pollster::block_on(
            self.kernel
                .count_total(&self.ctx, n, config, &mut |_, _| true),
        )
        .unwrap()
    }
}

// Whole boards on their constellations and on the mirror split; and the browser's count of the total alone, on
// the constellations unless asked for the mirror split.
#[test]
fn counts_match_the_published_ones_up_to_13() {
    let gpu = gpu();
    for mirror in [false, true] {
        let config = QueensConfig {
            mirror,
            ..QueensConfig::default()
        };
        for n in 1..=13 {
            let (classes, stats) = gpu.count(n, Shard::WHOLE, config);
            assert_eq!(Some(classes.tally(n)), known(n), "N={n} ({stats:?})");
            // Same classes as the CPU counter, not only the same sums.
            assert_eq!(classes, queens::count(n), "N={n}, mirror {mirror}");
            let (total, stats) = gpu.total(n, config);
            assert_eq!(
                total,
                classes.tally(n).total,
                "N={n}, mirror {mirror}: the total alone"
            );
            // The mirror split's cut names no constellations.
            assert_eq!(
                stats.constellations > 0,
                n >= 4 && !mirror,
                "N={n}: {stats:?}"
            );
        }
    }
}

#[test]
fn the_deep_stack_kernel_counts_the_same() {
    let gpu = gpu();
    for n in [4, 5, 8, 11, 12] {
        let config = QueensConfig {
            deep: true,
            ..QueensConfig::default()
        };
        let (classes, _) = gpu.count(n, Shard::WHOLE, config);
        assert_eq!(Some(classes.tally(n)), known(n), "N={n}");
    }
}

#[test]
fn deep_cuts_and_many_dispatches_count_the_same() {
    let gpu = gpu();
    for wanted in [1, 100, 5_000, 200_000] {
        let mut calls = 0;
        let mut last = (0, 0);
        let (classes, stats) = gpu
            .kernel
            .count_blocking(
                &gpu.ctx,
                12,
                Shard::WHOLE,
                QueensConfig {
                    nodes: Some(wanted),
                    ..QueensConfig::default()
                },
                &mut |done, total| {
                    assert!(done >= last.0 && done <= total);
                    last = (done, total);
                    calls += 1;
                    true
                },
            )
            .unwrap();
        assert_eq!(Some(classes.tally(12)), known(12), "{wanted} nodes wanted");
        assert_eq!(last.0, last.1, "progress ends at the total");
        assert_eq!(calls as u64, stats.dispatches);
    }
}

#[test]
fn busy_lanes_give_work_to_idle_ones_and_the_counts_stay_exact() {
    // Few nodes and lanes to spare: once the cut is handed out, the busy lanes give their lowest frames away
    // (the shader's `split`), again and again; small queues of given nodes (four a lane) also run out of room,
    // which leaves the lanes that found none as they were. Whole boards on their constellations and on the mirror
    // split, shards on their constellations, and the same counts with splitting off.
    let gpu = gpu();
    // Where a split comes depends on the dispatches' timing; none ever comes with splitting off.
    for (n, nodes, lanes) in [(12, 1, 64), (14, 4, 64), (15, 50, 128), (15, 50, 256)] {
        for (no_split, mirror) in [(false, false), (true, false), (false, true), (true, true)] {
            let config = QueensConfig {
                nodes: Some(nodes),
                lanes: Some(lanes),
                no_split,
                mirror,
                ..QueensConfig::default()
            };
            let (classes, stats) = gpu.count(n, Shard::WHOLE, config);
            assert_eq!(
                Some(classes.tally(n)),
                known(n),
                "N={n} {config:?} ({stats:?})"
            );
            if no_split {
                assert_eq!(stats.splits, 0);
            }
        }
    }
    // A split that must come: with more lanes than nodes, the first dispatch hands out every node, and its
    // 4,096 steps a lane (256 passes of 16) finish none of N=14's larger ones, so after it the queue is empty
    // and at most a quarter of the lanes busy. The same for each shard of N=14 on its constellations.
    let n = 14;
    let config = QueensConfig {
        nodes: Some(1),
        lanes: Some(4096),
        ..QueensConfig::default()
    };
    let (classes, stats) = gpu.count(n, Shard::WHOLE, config);
    assert_eq!(Some(classes.tally(n)), known(n), "{stats:?}");
    assert!(stats.splits > 0, "{stats:?}");
    let mut sum = queens::Classes::default();
    for index in 1..=3 {
        let (classes, stats) = gpu.count(n, Shard { index, of: 3 }, config);
        assert!(stats.splits > 0, "shard {index}/3: {stats:?}");
        sum.add(&classes);
    }
    assert_eq!(sum, queens::count(n), "the shards' classes add up");
}

#[test]
fn cancelling_stops_the_count() {
    let gpu = gpu();
    let run = gpu.kernel.count_blocking(
        &gpu.ctx,
        13,
        Shard::WHOLE,
        QueensConfig {
            nodes: Some(100_000),
            ..QueensConfig::default()
        },
        &mut |_, _| false,
    );
    assert!(matches!(run, Err(GpuError::Cancelled)), "{run:?}");
}

#[test]
fn a_cut_made_part_by_part_counts_the_same_and_can_be_cancelled() {
    // Parts of 40 nodes and 64 lanes: each shard's cut is made in many parts while the GPU counts (on a host
    // thread, and for the browser's count of the total on the caller's), the lanes taking runs of 256 nodes,
    // some across a part's end.
    let gpu = gpu();
    let config = QueensConfig {
        lanes: Some(64),
        part_nodes: Some(40),
        ..QueensConfig::default()
    };
    for n in [8, 11, 13] {
        for shard in [
            Shard::WHOLE,
            Shard { index: 1, of: 3 },
            Shard { index: 3, of: 3 },
        ] {
            let (classes, stats) = gpu.count(n, shard, config);
            assert_eq!(
                classes,
                queens::constellation::count(n, shard),
                "N={n}, {shard}"
            );
            assert!(n < 11 || stats.nodes > 40 * 8, "N={n}, {shard}: {stats:?}");
        }
        // The browser's way: each part made on this thread once the lanes have taken the one before.
        let (total, stats) = gpu.total(n, config);
        assert_eq!(
            Some(total),
            known(n).map(|k| k.total),
            "N={n}, parts on demand"
        );
        assert!(n < 11 || stats.nodes > 40 * 8, "N={n}: {stats:?}");
    }
    // Cancelled after its first dispatch: the part being made is dropped and nothing waits on it.
    let run = gpu.kernel.count_blocking(
        &gpu.ctx,
        13,
        Shard { index: 1, of: 2 },
        config,
        &mut |_, _| false,
    );
    assert!(matches!(run, Err(GpuError::Cancelled)), "{run:?}");
    let run = pollster::block_on(
        gpu.kernel
            .count_total(&gpu.ctx, 13, config, &mut |_, _| false),
    );
    assert!(matches!(run, Err(GpuError::Cancelled)), "{run:?}");
}

#[test]
fn the_shallow_kernel_holds_its_deepest_stacks() {
    // N=17 cut at row 2 leaves 15 rows below each node, the most the 16-level stacks take: every level of
    // them, the last included, gets written on the way down. Two nodes of each kind, one by the edge and one
    // by the middle: a few seconds of lavapipe.
    let gpu = gpu();
    let (n, row) = (17, 2);
    let count = |work: &QueensWork| {
        pollster::block_on(gpu.kernel.count_nodes(
            &gpu.ctx,
            work,
            QueensConfig::default(),
            &mut |_, _| true,
        ))
        .unwrap()
        .total
    };
    let mut halves = Vec::new();
    mirror::visit(n, row, &mut |node| halves.push(*node));
    let picked = [halves[0], halves[halves.len() / 2]];
    let mut work = QueensWork::mirror(n, row);
    work.nodes = picked
        .iter()
        .map(|node| QueensNode::mirror(n, node))
        .collect();
    let expected: u64 = picked
        .iter()
        .map(|node| 2 * mirror::count_below(n, node))
        .sum();
    assert!(expected > 0);
    assert_eq!(count(&work), expected, "mirror split");

    let plan = Plan::new(n);
    let tasks = plan.tasks(row, Shard::WHOLE);
    let picked = [tasks[0], tasks[tasks.len() / 2]];
    let mut work = QueensWork::constellations(&plan, row, Shard::WHOLE);
    work.nodes = picked.iter().map(QueensNode::from).collect();
    let expected: u64 = picked
        .iter()
        .map(|task| plan.weight(task) * plan.count_task(task))
        .sum();
    assert!(expected > 0);
    assert_eq!(count(&work), expected, "constellations");
}

#[test]
fn constellation_nodes_run_on_the_kernel_their_stacks_fit() {
    // N=18 constellations cut at row 1 leave 16 rows that may push a frame, but the rows of the border queens
    // below the cut push none: a constellation with a corner queen has one such row there (15 frames: the deep
    // kernel), one without has two (14 frames: the shallow kernel's 16 levels, filled to the last). A node of
    // each, counted together, is split between the two kernels.
    let gpu = gpu();
    let (n, row) = (18, 1);
    let plan = Plan::new(n);
    let work = QueensWork::constellations(&plan, row, Shard::WHOLE);
    let tasks = plan.tasks(row, Shard::WHOLE);
    let frames = |task: &&_| work.frames_below(&QueensNode::from(*task));
    let picked = [14, 15].map(|wanted| {
        *tasks
            .iter()
            .find(|t| frames(t) == wanted)
            .unwrap_or_else(|| panic!("a node with {wanted} frames"))
    });
    let mut both = QueensWork::constellations(&plan, row, Shard::WHOLE);
    both.nodes = picked.iter().map(QueensNode::from).collect();
    let counted = pollster::block_on(gpu.kernel.count_nodes(
        &gpu.ctx,
        &both,
        QueensConfig::default(),
        &mut |_, _| true,
    ))
    .unwrap();
    let expected: u64 = picked
        .iter()
        .map(|task| plan.weight(task) * plan.count_task(task))
        .sum();
    assert!(expected > 0);
    assert_eq!(counted.total, expected);
}

#[test]
fn shards_add_up_to_the_published_counts() {
    let gpu = gpu();
    for n in 4..=16 {
        let sharding: &[u32] = if n <= 12 { &[2, 5] } else { &[3] };
        for &of in sharding {
            let mut sum = queens::Classes::default();
            for index in 1..=of {
                let shard = Shard { index, of };
                let (classes, _) = gpu.count(n, shard, QueensConfig::default());
                // Each shard is the CPU's shard, class by class.
                let on_cpu = queens::constellation::count_parallel(n, shard, &|_, _| {});
                assert_eq!(classes, on_cpu, "N={n}, {shard}");
                sum.add(&classes);
            }
            assert_eq!(Some(sum.tally(n)), known(n), "N={n}, {of} shards");
        }
    }
}

// Boards wider than 24 columns read each row mask from the constellation's table at every step; narrower ones
// carry their masks in the frames. Both kernels, with their splits, on the same shards.
#[test]
fn row_masks_from_the_table_count_as_those_carried_in_the_frames() {
    let gpu = gpu();
    for n in [11, 13] {
        for index in 1..=3 {
            let shard = Shard { index, of: 3 };
            let table = QueensConfig {
                table_masks: true,
                ..QueensConfig::default()
            };
            let (from_table, _) = gpu.count(n, shard, table);
            let (carried, _) = gpu.count(n, shard, QueensConfig::default());
            let on_cpu = queens::constellation::count_parallel(n, shard, &|_, _| {});
            assert_eq!(from_table, on_cpu, "N={n}, {shard}, masks from the table");
            assert_eq!(carried, on_cpu, "N={n}, {shard}, masks in the frames");
        }
    }
}

#[test]
fn two_gpus_share_the_work_and_one_failing_loses_nothing() {
    use forkboard::gpu::queens_many::count_on_many;
    // The same software adapter opened twice stands for two GPUs.
    let open = || {
        let ctx = GpuContext::on_adapter_blocking(0).expect("adapter 0");
        let kernel = pollster::block_on(QueensKernel::new(&ctx)).expect("the kernel compiles");
        (ctx, kernel)
    };
    let (a, b) = (open(), open());
    // Few lanes, so that the cut is handed out in many runs (512 nodes first, then 256 at a time), and a
    // constellations' cut made in parts of about 300 nodes as the GPUs count; the mirror split's made first.
    let config = QueensConfig {
        lanes: Some(64),
        part_nodes: Some(300),
        ..QueensConfig::default()
    };
    for (n, mirror) in [(4, false), (8, false), (11, false), (12, false), (12, true)] {
        let config = QueensConfig { mirror, ..config };
        for shard in [Shard::WHOLE, Shard { index: 2, of: 3 }] {
            let gpus = [(&a.0, &a.1), (&b.0, &b.1)];
            let (classes, stats, shares) =
                count_on_many(&gpus, n, shard, config, &|_, _| {}).unwrap();
            assert_eq!(
                classes,
                queens::constellation::count(n, shard),
                "N={n}, {shard}"
            );
            let counted: u64 = shares.iter().map(|s| s.nodes).sum();
            assert_eq!(counted, stats.nodes, "N={n}: every node counted once");
            if n == 12 {
                assert!(
                    shares.iter().all(|s| s.nodes > 0),
                    "N={n}, {shard}: both GPUs took runs of the cut: {shares:?}"
                );
            }
        }
    }
    // The second GPU is lost after its first submission: the parts (or runs) it took go back and are made
    // again, and the first finishes the count.
    for mirror in [false, true] {
        let config = QueensConfig { mirror, ..config };
        let lost = open();
        lost.0.lose_device_after(1);
        let gpus = [(&a.0, &a.1), (&lost.0, &lost.1)];
        let (classes, _, shares) =
            count_on_many(&gpus, 12, Shard::WHOLE, config, &|_, _| {}).unwrap();
        assert_eq!(classes, queens::count(12), "mirror {mirror}");
        assert!(shares[1].failed.is_some(), "{shares:?}");
    }
    // With every GPU lost, the count fails (and the caller goes on on the CPU).
    let c = open();
    c.0.lose_device_after(1);
    let run = count_on_many(&[(&c.0, &c.1)], 12, Shard::WHOLE, config, &|_, _| {});
    assert!(run.is_err());
}
