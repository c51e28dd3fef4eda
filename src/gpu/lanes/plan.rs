//! How a batch's lanes are laid over the GPU: the lane count, stack depth and pool that one storage binding holds
//! on each kind of adapter, and how `lone` lays its workgroups of lanes over the same buffers.

use super::{BROWSER_LANES, LONE_DEPTH, LONE_LANES, LaneLayout, SOFTWARE_LANES};
use crate::gpu::sudoku_fork::ForkConfig;

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
