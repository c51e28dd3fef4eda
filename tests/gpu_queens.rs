//! The WGSL N-Queens kernel (on lavapipe in CI, any Vulkan GPU elsewhere) against the published counts. A machine
//! without a GPU adapter fails these tests: install `mesa-vulkan-drivers` (scripts/setup.sh does).

use std::sync::OnceLock;

use forkboard::gpu::queens::{QueensConfig, QueensKernel};
use forkboard::gpu::{GpuContext, GpuError};
use forkboard::queens::{self, known};

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
