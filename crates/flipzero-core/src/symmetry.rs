//! The eight symmetries of a square board (the dihedral group of order 8).

use crate::bitboard::Bitboard;
use crate::geometry::{Geometry, Square};

/// A board symmetry. The last four swap rows and columns, so they exist only on square boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// Leaves every square in place.
    Identity,
    /// Half turn.
    Rotate180,
    /// Mirror left-right (column `c` goes to `cols - 1 - c`).
    MirrorColumns,
    /// Mirror top-bottom (row `r` goes to `rows - 1 - r`).
    MirrorRows,
    /// Mirror in the a1-h8 diagonal.
    Transpose,
    /// Mirror in the h1-a8 diagonal.
    AntiTranspose,
    /// Quarter turn clockwise.
    RotateClockwise,
    /// Quarter turn anticlockwise.
    RotateAnticlockwise,
}

impl Symmetry {
    /// All eight symmetries, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate180,
        Symmetry::MirrorColumns,
        Symmetry::MirrorRows,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
        Symmetry::RotateClockwise,
        Symmetry::RotateAnticlockwise,
    ];

    /// Whether the symmetry swaps rows with columns.
    pub fn swaps_axes(self) -> bool {
        matches!(
            self,
            Symmetry::Transpose
                | Symmetry::AntiTranspose
                | Symmetry::RotateClockwise
                | Symmetry::RotateAnticlockwise
        )
    }

    /// The symmetries of a board: all eight when square, four otherwise.
    pub fn of_board<W: Bitboard>(geometry: &Geometry<W>) -> impl Iterator<Item = Symmetry> {
        let square = geometry.rows() == geometry.cols();
        Self::ALL
            .into_iter()
            .filter(move |symmetry| square || !symmetry.swaps_axes())
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub fn inverse(self) -> Symmetry {
        match self {
            Symmetry::RotateClockwise => Symmetry::RotateAnticlockwise,
            Symmetry::RotateAnticlockwise => Symmetry::RotateClockwise,
            other => other,
        }
    }

    /// Where `square` goes.
    ///
    /// # Panics
    /// When the symmetry swaps axes on a board that is not square.
    pub fn apply<W: Bitboard>(self, geometry: &Geometry<W>, square: Square) -> Square {
        assert!(
            !self.swaps_axes() || geometry.rows() == geometry.cols(),
            "{self:?} needs a square board, not {}",
            geometry.size_name()
        );
        let (row, col) = geometry.coordinates(square);
        let (last_row, last_col) = (geometry.rows() - 1, geometry.cols() - 1);
        let (row, col) = match self {
            Symmetry::Identity => (row, col),
            Symmetry::Rotate180 => (last_row - row, last_col - col),
            Symmetry::MirrorColumns => (row, last_col - col),
            Symmetry::MirrorRows => (last_row - row, col),
            Symmetry::Transpose => (col, row),
            Symmetry::AntiTranspose => (last_col - col, last_row - row),
            Symmetry::RotateClockwise => (col, last_row - row),
            Symmetry::RotateAnticlockwise => (last_col - col, row),
        };
        geometry
            .square_at(i32::from(row), i32::from(col))
            .expect("symmetries map the board onto itself")
    }

    /// The image of a set of squares.
    ///
    /// # Panics
    /// As [`Symmetry::apply`].
    pub fn apply_to_set<W: Bitboard>(self, geometry: &Geometry<W>, set: W) -> W {
        if self == Symmetry::Identity {
            return set;
        }
        set.indices().fold(W::EMPTY, |image, index| {
            image | W::square(self.apply(geometry, Square(index as u8)).index())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symmetry_is_undone_by_its_inverse_and_moves_corners_to_corners() {
        let geometry = Geometry::<u64>::get(8, 8).unwrap();
        let corners: u64 = 1 | 1 << 7 | 1 << 56 | 1 << 63;
        for symmetry in Symmetry::ALL {
            for square in geometry.squares() {
                let image = symmetry.apply(geometry, square);
                assert_eq!(symmetry.inverse().apply(geometry, image), square);
            }
            assert_eq!(symmetry.apply_to_set(geometry, corners), corners);
        }
        let a2 = geometry.parse_square("a2").unwrap();
        let rotated = Symmetry::RotateClockwise.apply(geometry, a2);
        assert_eq!(geometry.square_name(rotated).to_string(), "g1");
    }

    #[test]
    fn rectangles_keep_four_symmetries() {
        let geometry = Geometry::<u64>::get(4, 6).unwrap();
        assert_eq!(Symmetry::of_board(geometry).count(), 4);
    }
}
