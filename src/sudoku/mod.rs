//! The Sudoku engine: geometry, symbols, grids, file formats, the CPU solver and the verifier.
//! Pure Rust with no web dependency, so it builds natively and for `wasm32-unknown-unknown` alike.

pub mod answer;
pub mod bands;
pub mod candidates;
pub mod format;
pub mod generate;
pub mod generator;
pub mod grid;
pub mod learn_protocol;
pub mod logic;
mod nine;
pub mod piece_protocol;
pub mod print;
pub mod rng;
pub mod shape;
pub mod share;
pub mod solver;
pub mod symbols;
pub mod verify;
pub mod worker_protocol;

pub use grid::{Conflict, Grid};
pub use shape::{BoxShape, ShapeError, Unit};
pub use solver::{Outcome, Solver, with_thread_solver};
pub use symbols::Symbols;
