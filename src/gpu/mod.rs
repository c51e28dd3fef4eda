//! The GPU engine: wgpu host code for the WGSL kernels, the same natively (Vulkan) and in the browser (WebGPU).
//!
//! Getting a device ([`GpuContext`]) is kept apart from the work, so the CLI, the tests, the benchmarks and the
//! web app share the same kernel drivers.

mod context;
pub mod queens;
mod readback;
pub mod sudoku_batch;
pub mod sudoku_fork;

pub use context::GpuContext;

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
