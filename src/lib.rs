//! Forkboard: Sudoku (4×4 to 25×25) and N-Queens solvers for the CPU and the GPU.
//!
//! Layers, bottom up: [`sudoku`] is the pure engine; [`gpu`] drives the WGSL kernels through wgpu on top of it;
//! the web app and the CLI build on both.
#![warn(missing_docs)]

#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub mod app;
pub mod chart;
pub mod gpu;
pub mod queens;
pub mod shard;
pub mod sudoku;
