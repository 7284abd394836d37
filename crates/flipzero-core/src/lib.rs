//! The flipzero game engine: bitboard Othello and its variants on every board from 4x4 to
//! 16x16.
//!
//! Two wings over shared modules:
//! - [`othello`]: the fast path for standard Othello ([`Position`], its text, the perft
//!   kernels), used where speed matters most (perft, the exact solver);
//! - [`variant`]: the engine for every rule set ([`Rules`], [`Game`], [`Decision`], move
//!   notation, perft over turns);
//! - shared: bitboards ([`bitboard`]), board shapes ([`geometry`]), the move generator both
//!   wings run on ([`movegen`]), symmetries, colours and outcomes ([`color`]), the hash mixer
//!   ([`hash`]), the board text ([`board_text`]) and the parallel perft driver.
//!
//! ```
//! use flipzero_core::{Geometry, Position, perft};
//!
//! let geometry = Geometry::<u64>::get(8, 8)?;
//! let start = Position::start(geometry);
//! assert_eq!(start.legal_moves().count_ones(), 4);
//! let after_f5 = start.play(geometry.parse_square("f5")?)?;
//! assert_eq!(after_f5.to_text(), "---------------------------OX------XXX-------------------------- O");
//! assert_eq!(perft(&start, 6), 8200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The bitboard width is a type parameter; [`with_width!`] picks it from a board shape so
//! that everything below is compiled for one concrete width.

pub mod bitboard;
pub mod board_text;
pub mod color;
pub mod geometry;
pub mod hash;
pub mod movegen;
pub mod othello;
mod perft_driver;
pub mod symmetry;
pub mod variant;

pub use bitboard::{Bitboard, U256};
pub use board_text::{TextError, text_shape};
pub use color::{Color, Outcome, Scoring};
pub use geometry::{Geometry, GeometryError, MAX_SIDE, MIN_SIDE, Square, SquareParseError};
pub use othello::{
    AnyPosition, Kernel, MoveError, Position, PositionError, perft, perft_parallel,
    perft_with_kernel,
};
pub use symmetry::Symmetry;
pub use variant::{
    AnyGame, Decision, DecisionError, Game, GameTextError, GameView, GameWidth, Orientation, Phase,
    Preset, ReplayError, Rules, RulesError, RulesMismatch, RulesSpec, StartError, decision_name,
    replay, replay_decisions,
};

/// The bitboard widths, smallest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// `u64`: up to 64 squares (8x8).
    Bits64,
    /// `u128`: up to 128 squares (11x11, 8x16).
    Bits128,
    /// [`U256`]: up to 256 squares (16x16).
    Bits256,
}

impl Width {
    /// The narrowest width that holds `squares` squares.
    pub fn for_squares(squares: u32) -> Width {
        match squares {
            0..=64 => Width::Bits64,
            65..=128 => Width::Bits128,
            _ => Width::Bits256,
        }
    }
}

/// Runs `$body` with the type alias `$W` bound to the narrowest bitboard that holds `$squares`.
///
/// ```
/// use flipzero_core::{Geometry, Position, perft, with_width};
///
/// let (rows, cols) = (10, 10);
/// let leaves = with_width!(rows as u32 * cols as u32, W => {
///     let start = Position::start(Geometry::<W>::get(rows, cols)?);
///     perft(&start, 4)
/// });
/// assert_eq!(leaves, 244);
/// # Ok::<(), flipzero_core::GeometryError>(())
/// ```
#[macro_export]
macro_rules! with_width {
    ($squares:expr, $W:ident => $body:expr) => {
        match $crate::Width::for_squares($squares) {
            $crate::Width::Bits64 => {
                #[allow(dead_code)]
                type $W = u64;
                $body
            }
            $crate::Width::Bits128 => {
                #[allow(dead_code)]
                type $W = u128;
                $body
            }
            $crate::Width::Bits256 => {
                #[allow(dead_code)]
                type $W = $crate::U256;
                $body
            }
        }
    };
}
