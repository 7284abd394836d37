//! The Othello fast path: a standard Othello [`Position`] on any board shape, its text forms,
//! and the perft kernels. Search and the exact solver use it where the rules are plain
//! Othello; every other variant (and plain Othello too) runs on [`crate::variant`].

pub mod any_position;
pub mod perft;
pub mod position;
pub mod text;

pub use any_position::AnyPosition;
pub use perft::{Kernel, perft, perft_parallel, perft_with_kernel};
pub use position::{MoveError, Position, PositionError};
