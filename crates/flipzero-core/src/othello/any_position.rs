//! An Othello fast-path position of any board shape behind one type, for code that counts or
//! shows positions without being generic over the bitboard width (the `perft` command).
//!
//! ```
//! use flipzero_core::{AnyPosition, Kernel};
//!
//! // 10x10 needs a 128-bit board; the caller does not say so.
//! let start = AnyPosition::start(10, 10)?;
//! assert_eq!(start.perft(4, Kernel::Portable), 244);
//! assert_eq!(start.size_name(), "10x10");
//! assert_eq!(AnyPosition::from_text(&start.to_string())?.perft_parallel(3), 56);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use crate::Width;
use crate::bitboard::U256;
use crate::board_text::{TextError, text_shape};
use crate::geometry::{Geometry, GeometryError};
use crate::othello::{Kernel, Position, perft_parallel, perft_with_kernel};

/// A [`Position`] on the narrowest bitboard that holds its board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyPosition {
    /// Up to 64 squares.
    Bits64(Position<u64>),
    /// Up to 128 squares.
    Bits128(Position<u128>),
    /// Up to 256 squares.
    Bits256(Position<U256>),
}

macro_rules! each_width {
    ($any:expr, $position:ident => $body:expr) => {
        match $any {
            AnyPosition::Bits64($position) => $body,
            AnyPosition::Bits128($position) => $body,
            AnyPosition::Bits256($position) => $body,
        }
    };
}

impl AnyPosition {
    /// The standard start on a `rows` x `cols` board.
    ///
    /// # Errors
    /// A shape no geometry supports.
    pub fn start(rows: u8, cols: u8) -> Result<Self, GeometryError> {
        Ok(
            match Width::for_squares(u32::from(rows) * u32::from(cols)) {
                Width::Bits64 => AnyPosition::Bits64(Position::start(Geometry::get(rows, cols)?)),
                Width::Bits128 => AnyPosition::Bits128(Position::start(Geometry::get(rows, cols)?)),
                Width::Bits256 => AnyPosition::Bits256(Position::start(Geometry::get(rows, cols)?)),
            },
        )
    }

    /// Parses the one-line format (see [`Position::from_text`]).
    ///
    /// # Errors
    /// As [`Position::from_text`].
    pub fn from_text(text: &str) -> Result<Self, TextError> {
        let (rows, cols) = text_shape(text)?;
        Ok(
            match Width::for_squares(u32::from(rows) * u32::from(cols)) {
                Width::Bits64 => AnyPosition::Bits64(Position::from_text(text)?),
                Width::Bits128 => AnyPosition::Bits128(Position::from_text(text)?),
                Width::Bits256 => AnyPosition::Bits256(Position::from_text(text)?),
            },
        )
    }

    /// The board's shape as `RxC`.
    pub fn size_name(&self) -> String {
        each_width!(self, position => position.geometry().size_name())
    }

    /// Perft with a chosen kernel, on one thread (see [`perft_with_kernel`]).
    pub fn perft(&self, depth: u32, kernel: Kernel) -> u64 {
        each_width!(self, position => perft_with_kernel(position, depth, kernel))
    }

    /// Perft on every thread of the current rayon pool (see [`perft_parallel`]).
    pub fn perft_parallel(&self, depth: u32) -> u64 {
        each_width!(self, position => perft_parallel(position, depth))
    }
}

impl fmt::Display for AnyPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_width!(self, position => position.fmt(f))
    }
}
