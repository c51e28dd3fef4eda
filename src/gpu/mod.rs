//! The GPU engine: wgpu host code for the WGSL kernels, the same natively (Vulkan) and in the browser (WebGPU).
//!
//! Getting a device ([`GpuContext`]) is kept apart from the work, so the CLI, the tests, the benchmarks and the
//! web app share the same kernel drivers.

mod context;
pub mod found_piece;
pub mod lane9;
pub mod lane_cells;
mod lanes;
pub mod nine_batch;
mod pipeline;
pub mod queens;
#[cfg(not(target_arch = "wasm32"))]
pub mod queens_many;
mod queens_stream;
mod queens_work;
mod readback;
pub mod squad9;
pub mod sudoku_batch;
pub mod sudoku_fork;
mod team_cells;
pub mod uniqueness;

pub use context::{GpuContext, describe_adapter};

/// `items.iter().map(f)` in order, on every core natively (a browser page has one thread: there, in turn). The
/// host's per-puzzle work around a kernel (checking givens, packing, unpacking, checking answers) would
/// otherwise run on one core beside a GPU that answers millions of puzzles a second.
pub(crate) fn map_each<'a, T: Sync, U: Send>(
    items: &'a [T],
    f: impl Fn(&'a T) -> U + Sync + Send,
) -> Vec<U> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(target_arch = "wasm32")]
    items.iter().map(f).collect()
}

/// `(0..count).map(f)` in order, on every core natively (see [`map_each`]).
pub(crate) fn map_index<U: Send>(count: usize, f: impl Fn(usize) -> U + Sync + Send) -> Vec<U> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        (0..count).into_par_iter().map(f).collect()
    }
    #[cfg(target_arch = "wasm32")]
    (0..count).map(f).collect()
}

use thiserror::Error;

/// Why GPU work could not be done. Every variant ends in a clear message; callers that can fall back to the
/// CPU do so with nothing lost.
#[derive(Debug, Clone, Error)]
pub enum GpuError {
    /// No GPU adapter (no WebGPU in this browser, no Vulkan driver natively).
    #[error("no GPU adapter found ({0})")]
    NoAdapter(String),
    /// The adapter refused a device.
    #[error("the GPU adapter refused a device: {0}")]
    Device(String),
    /// The device was lost (driver reset, browser reclaimed it).
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    /// A validation or out-of-memory error reported by wgpu.
    #[error("GPU error: {0}")]
    Api(String),
    /// The caller cancelled the job.
    #[error("cancelled")]
    Cancelled,
}
