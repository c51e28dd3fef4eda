//! The WGSL N-Queens kernel (on lavapipe in CI, any Vulkan GPU elsewhere) against the published counts. A machine
//! without a GPU adapter fails these tests: install `mesa-vulkan-drivers` (scripts/setup.sh does).

use std::sync::OnceLock;

use forkboard::gpu::queens::{QueensConfig, QueensKernel, QueensNode};
use forkboard::gpu::{GpuContext, GpuError};
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

#[test]
fn counts_match_the_published_ones_up_to_13() {
    let gpu = gpu();
    for n in 1..=13 {
        let (classes, stats) = gpu
            .kernel
            .count_blocking(&gpu.ctx, n, QueensConfig::default(), &mut |_, _| true)
            .unwrap();
        assert_eq!(Some(classes.tally(n)), known(n), "N={n} ({stats:?})");
        // Same classes as the CPU counter, not only the same sums.
        assert_eq!(classes, queens::count(n), "N={n}");
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
        let (classes, _) = gpu
            .kernel
            .count_blocking(&gpu.ctx, n, config, &mut |_, _| true)
            .unwrap();
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
                QueensConfig {
                    nodes: Some(wanted),
                    lanes: None,
                    deep: false,
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
fn cancelling_stops_the_count() {
    let gpu = gpu();
    let run = gpu.kernel.count_blocking(
        &gpu.ctx,
        13,
        QueensConfig {
            nodes: Some(100_000),
            lanes: None,
            deep: false,
        },
        &mut |_, _| false,
    );
    assert!(matches!(run, Err(GpuError::Cancelled)), "{run:?}");
}

#[test]
fn the_shallow_kernel_holds_its_deepest_stacks() {
    // N=17 cut at row 2 leaves 15 rows below each node, the most the 16-level stacks take: every level of
    // them, the last included, gets written on the way down.
    let gpu = gpu();
    let (n, row) = (17, 2);
    let mut halves = Vec::new();
    mirror::visit(n, row, &mut |node| halves.push(*node));
    // Two nodes, one by the edge and one by the middle: a few seconds of lavapipe.
    let picked = [halves[0], halves[halves.len() / 2]];
    let packed: Vec<QueensNode> = picked.iter().map(QueensNode::from).collect();
    let (found, _) = pollster::block_on(gpu.kernel.count_nodes(
        &gpu.ctx,
        n,
        row,
        &packed,
        QueensConfig::default(),
        &mut |_, _| true,
    ))
    .unwrap();
    let expected: u64 = picked.iter().map(|node| mirror::count_below(n, node)).sum();
    assert_eq!(found, expected);
}
