//! Forkboard: Sudoku (4×4 to 25×25) and N-Queens solvers for the CPU and the GPU.
//!
//! Layers, bottom up: [`sudoku`] is the pure engine; the GPU host code, the web app and the CLI build on it.
#![warn(missing_docs)]

pub mod sudoku;
