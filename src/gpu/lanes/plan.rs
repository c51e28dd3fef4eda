//! How a batch's lanes are laid over the GPU: the lane count, stack depth and pool that one storage binding holds
//! on each kind of adapter, and how `lone` lays its workgroups of lanes over the same buffers.

use super::{LONE_LANES, LaneLayout};
use crate::gpu::sudoku_fork::ForkConfig;

/// Lanes on a browser's GPU: a laptop's GPU holds far fewer threads than an H100, and 16k lanes' 9×9 stacks
/// fit WebGPU's default 128 MiB binding.
const BROWSER_LANES: u32 = 1 << 14;
/// Lanes on a software adapter (lavapipe, SwiftShader): a few per CPU core's SIMD width.
const SOFTWARE_LANES: u32 = 1 << 9;
/// Stack frames `lone` gives a lane where the plan's frames allow: more than a 9×9 search ever waits on.
const LONE_DEPTH: u32 = 128;

/// The sizes of one batch's lane buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) lanes: u32,
    pub(super) depth: u32,
    pub(super) pool: u32,
    pub(super) frame_words: u32,
}

impl Plan {
    /// Frames in all: the stacks, the pool, a parking frame per lane.
    pub(super) fn frames(self) -> u64 {
        u64::from(self.lanes) * u64::from(self.depth) + u64::from(self.pool) + u64::from(self.lanes)
    }

    pub(super) fn frame_bytes(self) -> u64 {
        self.frames() * u64::from(self.frame_words) * 4
    }
}

/// What kind of adapter a batch runs on, for its default lane count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AdapterKind {
    /// A GPU through Vulkan (or another native API).
    Native,
    /// A GPU through a browser's WebGPU.
    Browser,
    /// A GPU emulated on the CPU (lavapipe, SwiftShader).
    Software,
}

impl AdapterKind {
    pub(super) fn of(info: &wgpu::AdapterInfo) -> Self {
        if info.device_type == wgpu::DeviceType::Cpu {
            Self::Software
        } else if info.backend == wgpu::Backend::BrowserWebGpu {
            Self::Browser
        } else {
            Self::Native
        }
    }
}

/// Lanes, stack depth and pool for a batch: as many lanes as asked (or the adapter's default), fewer if one
/// storage binding cannot hold their frames.
pub(super) fn plan(
    config: &ForkConfig,
    layout: &LaneLayout,
    kind: AdapterKind,
    max_binding: u64,
) -> Plan {
    let depth = match config.stack_depth {
        0 => layout.default_depth,
        d => d.next_power_of_two(),
    };
    // A software or browser adapter gets as many invocations whatever the kernel; a native one the kernel's own.
    let per_lane = layout.invocations_per_lane.max(1);
    let mut lanes = match (config.slots, kind) {
        (0, AdapterKind::Software) => SOFTWARE_LANES / per_lane,
        (0, AdapterKind::Browser) => BROWSER_LANES / per_lane,
        (0, AdapterKind::Native) => layout.native_lanes,
        (n, _) => n,
    }
    .max(1);
    loop {
        let plan = Plan {
            lanes,
            depth,
            pool: lanes.next_power_of_two(),
            frame_words: layout.frame_words,
        };
        if plan.frame_bytes() <= max_binding || lanes == 1 {
            return plan;
        }
        lanes /= 2;
    }
}

/// How `lone` (a workgroup of [`LONE_LANES`] per puzzle) lays its lanes over a batch's buffers: the first
/// `LONE_LANES × puzzles` lanes of the plan, each with a deeper stack where the plan's frames allow. `lone`
/// gives a lane's stack no pool to spill into, and a valid puzzle's search never waits on more branches than it
/// has open cells, so `LONE_DEPTH` frames never fill; the parking frames stay where the plan has them
/// (`lanes × depth` is kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LonePlan {
    /// What the kernel is told of the lanes.
    pub(super) lanes: u32,
    /// Stack frames per lane, a power of two.
    pub(super) depth: u32,
}

impl LonePlan {
    /// `None` where the plan has fewer than `LONE_LANES` lanes per puzzle (or pool frames: a lane's splits go
    /// to the pool's frame of its own number).
    pub(super) fn new(plan: Plan, puzzles: u32) -> Option<Self> {
        let used = u64::from(puzzles) * u64::from(LONE_LANES);
        if used > u64::from(plan.lanes.min(plan.pool)) {
            return None;
        }
        let frames = u64::from(plan.lanes) * u64::from(plan.depth);
        let mut depth = plan.depth;
        while depth < LONE_DEPTH && used * u64::from(depth) * 2 <= frames {
            depth *= 2;
        }
        Some(Self {
            lanes: (frames / u64::from(depth)) as u32,
            depth,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_declares_its_lanes_and_lays_them_within_the_plan() {
        let lone = include_str!("../../../shaders/sudoku_lone9.wgsl");
        assert!(lone.contains(&format!("@workgroup_size({LONE_LANES})")));
        assert!(lone.contains(&format!("const LONE: u32 = {LONE_LANES}u;")));
        // As `plan` makes them: a pool of the lanes' count rounded up to a power of two.
        let plan = |lanes: u32, depth| Plan {
            lanes,
            depth,
            pool: lanes.next_power_of_two(),
            frame_words: 32,
        };
        let at = |lanes, depth, puzzles| {
            LonePlan::new(plan(lanes, depth), puzzles).map(|l| (l.lanes, l.depth))
        };
        // Natively: one puzzle's lanes get the deepest stacks, 256 puzzles the plan's own, 257 do not fit.
        assert_eq!(at(1 << 16, 32, 1), Some((1 << 14, LONE_DEPTH)));
        assert_eq!(at(1 << 16, 32, 64), Some((1 << 14, 128)));
        assert_eq!(at(1 << 16, 32, 128), Some((1 << 15, 64)));
        assert_eq!(at(1 << 16, 32, 256), Some((1 << 16, 32)));
        assert_eq!(at(1 << 16, 32, 257), None);
        // lavapipe's 512 lanes: one or two puzzles.
        assert_eq!(at(512, 32, 1), Some((256, 64)));
        assert_eq!(at(512, 32, 2), Some((512, 32)));
        assert_eq!(at(512, 32, 3), None);
        // Each lane's splits go to the pool's frame of its number: a pool smaller than the lanes used is refused.
        let small_pool = Plan {
            pool: 128,
            ..plan(512, 32)
        };
        assert_eq!(LonePlan::new(small_pool, 1), None);
        // A stack asked deeper than LONE_DEPTH stays as asked.
        assert_eq!(at(1 << 16, 256, 1), Some((1 << 16, 256)));
        // Every puzzle's lanes, and the frames they address, stay within the plan's.
        for (lanes, depth) in [(1 << 16, 32), (1 << 14, 32), (512, 32), (4096, 2)] {
            for puzzles in 1..=lanes / LONE_LANES {
                let lone = LonePlan::new(plan(lanes, depth), puzzles).unwrap();
                assert!(puzzles * LONE_LANES <= lone.lanes && lone.lanes <= lanes);
                assert_eq!(
                    u64::from(lone.lanes) * u64::from(lone.depth),
                    u64::from(lanes) * u64::from(depth)
                );
                assert!(lone.depth.is_power_of_two() && lone.depth >= depth);
            }
        }
    }

    fn layout(frame_words: u32, default_depth: u32) -> LaneLayout {
        LaneLayout {
            side: 9,
            box_rows: 3,
            box_cols: 3,
            puzzle_words: 12,
            result_words: 16,
            frame_words,
            default_depth,
            native_lanes: 1 << 16,
            pass_iterations: 64,
            invocations_per_lane: 1,
        }
    }

    #[test]
    fn plans_fit_the_binding_and_keep_powers_of_two() {
        let config = ForkConfig::default();
        let nine = layout(32, 32);
        let big = plan(&config, &nine, AdapterKind::Native, u64::MAX);
        assert_eq!((big.lanes, big.depth, big.pool), (1 << 16, 32, 1 << 16));
        // A binding limit of 128 MiB (WebGPU's default) holds fewer lanes.
        let small = plan(&config, &nine, AdapterKind::Native, 128 << 20);
        assert!(
            small.frame_bytes() <= 128 << 20 && small.lanes >= 1 << 14,
            "{small:?}"
        );
        let page = plan(&config, &nine, AdapterKind::Browser, 128 << 20);
        assert!(
            page.lanes == BROWSER_LANES && page.frame_bytes() <= 128 << 20,
            "{page:?}"
        );
        // 25×25 frames are larger: fewer lanes fit the same binding.
        let large = plan(&config, &layout(235, 16), AdapterKind::Browser, 128 << 20);
        assert!(
            large.frame_bytes() <= 128 << 20 && large.lanes >= 1 << 12,
            "{large:?}"
        );
        let software = plan(&config, &nine, AdapterKind::Software, u64::MAX);
        assert_eq!(software.lanes, SOFTWARE_LANES);
        let odd = plan(
            &ForkConfig {
                slots: 3,
                stack_depth: 3,
                ..config
            },
            &nine,
            AdapterKind::Software,
            u64::MAX,
        );
        assert_eq!((odd.lanes, odd.depth, odd.pool), (3, 4, 4));
    }
}
