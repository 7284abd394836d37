//! Board shapes: square names, direction shifts and the masks the move generator needs.
//!
//! Squares are numbered row by row from the top-left corner: `a1` is 0, `b1` is 1, and the
//! first square of the second row is `cols`. Bit `i` of a [`Bitboard`] is square `i`.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::bitboard::Bitboard;

/// Smallest number of rows or columns a board may have.
pub const MIN_SIDE: u8 = 4;
/// Largest number of rows or columns a board may have.
pub const MAX_SIDE: u8 = 16;

/// The (row, column) steps of the 8 directions, in the order of the rays of a [`Geometry`]:
/// the first four run towards higher square indices, and direction `i` lies on axis `i % 4`
/// (horizontal, anti-diagonal, vertical, diagonal).
pub const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// A square, as its index in row-major order from the top-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(pub u8);

impl Square {
    /// The index as a shift amount.
    #[inline(always)]
    pub fn index(self) -> u32 {
        u32::from(self.0)
    }
}

/// Every geometry built so far, by (bitboard bits, rows, columns).
type GeometryCache = HashMap<(u32, u8, u8), &'static (dyn Any + Send + Sync)>;

/// A board shape that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// A side length outside `MIN_SIDE..=MAX_SIDE`.
    #[error("board {rows}x{cols}: each side must be between {MIN_SIDE} and {MAX_SIDE}")]
    SideOutOfRange {
        /// Rows asked for.
        rows: u8,
        /// Columns asked for.
        cols: u8,
    },
    /// More squares than the bitboard width holds.
    #[error("board {rows}x{cols} has {squares} squares, more than the {bits}-bit bitboard holds")]
    TooWideForBitboard {
        /// Rows asked for.
        rows: u8,
        /// Columns asked for.
        cols: u8,
        /// `rows * cols`.
        squares: u32,
        /// Bits of the bitboard type.
        bits: u32,
    },
}

/// A square name that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a square of the {rows}x{cols} board (expected a column letter a..{last_col} then a row 1..{rows})"
)]
pub struct SquareParseError {
    text: String,
    rows: u8,
    cols: u8,
    last_col: char,
}

/// The four lines through a square, as the shift that moves one step along them.
///
/// Each axis has two directions: a left shift (towards higher indices) and a right shift.
#[derive(Clone, Copy, Debug)]
pub struct Axis<W> {
    /// Squares moved by one step: 1, cols - 1, cols or cols + 1.
    pub(crate) shift: u32,
    /// Squares that may lie inside a flank line along this axis. Edge columns are removed for
    /// the horizontal and diagonal axes so that shifts never wrap from one row to the next.
    pub(crate) interior: W,
    /// Doubling passes of the Kogge-Stone fill to cover the longest possible line.
    pub(crate) passes: u32,
}

impl<W> Axis<W> {
    pub(crate) const fn new(shift: u32, interior: W, passes: u32) -> Self {
        Self {
            shift,
            interior,
            passes,
        }
    }
}

/// Everything about a board shape that move generation needs, computed once per shape.
#[derive(Debug)]
pub struct Geometry<W> {
    rows: u8,
    cols: u8,
    board: W,
    pub(crate) axes: [Axis<W>; 4],
    /// Per square, the rays in the 8 directions (the square itself excluded). The first four
    /// run towards higher indices, the last four towards lower ones.
    pub(crate) rays: Box<[[W; 8]]>,
}

impl<W: Bitboard> Geometry<W> {
    /// The shared geometry of a `rows` x `cols` board, built on first use.
    ///
    /// # Errors
    /// When a side is out of range or the board has more squares than `W` has bits.
    pub fn get(rows: u8, cols: u8) -> Result<&'static Self, GeometryError> {
        static CACHE: OnceLock<Mutex<GeometryCache>> = OnceLock::new();
        let mut cache = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let key = (W::BITS, rows, cols);
        if let Some(existing) = cache.get(&key) {
            return Ok(existing
                .downcast_ref::<Self>()
                .expect("geometry cache is keyed by bitboard width"));
        }
        // Geometries are few (one per shape and width) and live for the whole program.
        let geometry: &'static Self = Box::leak(Box::new(Self::build(rows, cols)?));
        cache.insert(key, geometry);
        Ok(geometry)
    }

    fn build(rows: u8, cols: u8) -> Result<Self, GeometryError> {
        let side_range = MIN_SIDE..=MAX_SIDE;
        if !side_range.contains(&rows) || !side_range.contains(&cols) {
            return Err(GeometryError::SideOutOfRange { rows, cols });
        }
        let squares = u32::from(rows) * u32::from(cols);
        if squares > W::BITS {
            return Err(GeometryError::TooWideForBitboard {
                rows,
                cols,
                squares,
                bits: W::BITS,
            });
        }
        let mut geometry = Self {
            rows,
            cols,
            board: W::low_mask(squares),
            axes: [Axis::new(0, W::EMPTY, 0); 4],
            rays: Vec::new().into_boxed_slice(),
        };
        let inner_columns = geometry.squares_where(|_, col| col > 0 && col + 1 < cols);
        let longest_line = |len: u8| u32::from(len.saturating_sub(2));
        let diagonal_line = longest_line(rows.min(cols));
        // (shift, interior, longest run of flippable discs along the axis)
        let axes = [
            (1, inner_columns, longest_line(cols)),
            (u32::from(cols) - 1, inner_columns, diagonal_line),
            (u32::from(cols), geometry.board, longest_line(rows)),
            (u32::from(cols) + 1, inner_columns, diagonal_line),
        ];
        for (axis, (shift, interior, longest)) in geometry.axes.iter_mut().zip(axes) {
            // Pass k of the fill covers runs up to 2^k - 1 long.
            let passes = (u32::BITS - longest.leading_zeros()).max(1);
            *axis = Axis::new(shift, interior, passes);
        }
        geometry.rays = (0..squares)
            .map(|index| geometry.rays_from(index))
            .collect();
        Ok(geometry)
    }

    fn rays_from(&self, index: u32) -> [W; 8] {
        let (row, col) = self.coordinates(Square(index as u8));
        DIRECTIONS.map(|(row_step, col_step)| {
            let mut ray = W::EMPTY;
            let (mut r, mut c) = (i32::from(row), i32::from(col));
            loop {
                r += row_step;
                c += col_step;
                match self.square_at(r, c) {
                    Some(square) => ray |= W::square(square.index()),
                    None => break ray,
                }
            }
        })
    }

    fn squares_where(&self, keep: impl Fn(u8, u8) -> bool) -> W {
        self.squares()
            .filter(|&square| {
                let (row, col) = self.coordinates(square);
                keep(row, col)
            })
            .fold(W::EMPTY, |set, square| set | W::square(square.index()))
    }

    /// Number of rows.
    pub fn rows(&self) -> u8 {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> u8 {
        self.cols
    }

    /// Number of squares.
    pub fn square_count(&self) -> u32 {
        u32::from(self.rows) * u32::from(self.cols)
    }

    /// The set of all squares of the board.
    #[inline(always)]
    pub fn board(&self) -> W {
        self.board
    }

    /// Every square, in index order.
    pub fn squares(&self) -> impl Iterator<Item = Square> + use<W> {
        (0..self.square_count()).map(|index| Square(index as u8))
    }

    /// (row, column) of a square, both from 0.
    pub fn coordinates(&self, square: Square) -> (u8, u8) {
        (square.0 / self.cols, square.0 % self.cols)
    }

    /// The square at (row, column), or `None` off the board.
    pub fn square_at(&self, row: i32, col: i32) -> Option<Square> {
        let on_board =
            (0..i32::from(self.rows)).contains(&row) && (0..i32::from(self.cols)).contains(&col);
        on_board.then(|| Square((row * i32::from(self.cols) + col) as u8))
    }

    /// The name of a square: column letter then row number, `a1` top-left.
    pub fn square_name(&self, square: Square) -> SquareName {
        let (row, col) = self.coordinates(square);
        SquareName { row, col }
    }

    /// Parses a square name such as `f5` or `J10` (case-insensitive).
    ///
    /// # Errors
    /// When the text is not a column letter followed by a row number on this board.
    pub fn parse_square(&self, text: &str) -> Result<Square, SquareParseError> {
        let error = || SquareParseError {
            text: text.to_owned(),
            rows: self.rows,
            cols: self.cols,
            last_col: char::from(b'a' + self.cols - 1),
        };
        let mut chars = text.chars();
        let letter = chars.next().ok_or_else(error)?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() {
            return Err(error());
        }
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 2 {
            return Err(error());
        }
        let row: i32 = digits.parse().map_err(|_| error())?;
        let col = i32::from(letter as u8 - b'a');
        self.square_at(row - 1, col).ok_or_else(error)
    }

    /// The name of the shape: `8x8`.
    pub fn size_name(&self) -> String {
        format!("{}x{}", self.rows, self.cols)
    }
}

/// Display form of a square, such as `f5`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    row: u8,
    col: u8,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.col), self.row + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_shape() {
        for (rows, cols) in [(4, 4), (8, 8), (6, 10), (16, 16)] {
            let geometry = Geometry::<ethnum::U256>::get(rows, cols).unwrap();
            for square in geometry.squares() {
                let name = geometry.square_name(square).to_string();
                assert_eq!(geometry.parse_square(&name), Ok(square), "{name}");
            }
        }
        let geometry = Geometry::<u64>::get(8, 8).unwrap();
        assert_eq!(geometry.parse_square("F5"), Ok(Square(37)));
        assert_eq!(geometry.square_name(Square(0)).to_string(), "a1");
        assert_eq!(geometry.square_name(Square(63)).to_string(), "h8");
        for bad in ["", "i1", "a9", "a0", "5f", "a", "aa1", "a1x", "a+1"] {
            assert!(geometry.parse_square(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shapes_out_of_range_are_refused() {
        assert!(matches!(
            Geometry::<u64>::get(10, 10),
            Err(GeometryError::TooWideForBitboard { squares: 100, .. })
        ));
        assert!(matches!(
            Geometry::<u128>::get(3, 8),
            Err(GeometryError::SideOutOfRange { .. })
        ));
        assert!(Geometry::<u128>::get(17, 4).is_err());
    }

    #[test]
    fn rays_stop_at_the_edges() {
        let geometry = Geometry::<u64>::get(8, 8).unwrap();
        // From a1 eastwards: b1..h1.
        assert_eq!(geometry.rays[0][0], 0xfe);
        // From a1 towards lower indices: nothing.
        assert!(geometry.rays[0][4..].iter().all(|ray| *ray == 0));
        // From h8 north-west: the long diagonal g7..a1.
        assert_eq!(geometry.rays[63][7].count_ones(), 7);
    }
}
