//! The classical engine of flipzero, the yardstick of every strength measurement.
//!
//! So far: the exact endgame solver for standard Othello on every board ([`solve`]) and the
//! reader of OBF endgame suites ([`obf`]).

pub mod obf;
mod solver;

pub use solver::{Solution, solve};
