//! Standard Othello positions on any board shape.

use std::fmt;

use crate::bitboard::Bitboard;
use crate::color::{Color, Outcome, Scoring, winner_takes_empties};
use crate::geometry::{Geometry, Square};
use crate::hash::mix64;
use crate::movegen;
use crate::symmetry::Symmetry;

/// A move that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The square is occupied or flanks nothing.
    #[error("{square} is not a legal move for {color}")]
    Illegal {
        /// The square's name.
        square: String,
        /// The side to move.
        color: Color,
    },
    /// Passing while a move exists.
    #[error("{color} cannot pass: a legal move exists")]
    PassNotAllowed {
        /// The side to move.
        color: Color,
    },
    /// Any move after both players are blocked.
    #[error("the game is over")]
    GameOver,
}

/// A position that cannot exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A square holds both colours.
    #[error("square {square} holds a black and a white disc")]
    Overlap {
        /// Name of the first such square.
        square: String,
    },
    /// A disc outside the board's squares.
    #[error("a disc lies outside the {size} board")]
    OffBoard {
        /// The board shape.
        size: String,
    },
}

/// A standard Othello position: the discs of each colour and the side to move.
///
/// Stored from the mover's point of view (`player`, `opponent`) because that is what move
/// generation wants; [`Position::black`] and [`Position::white`] give the absolute view.
#[derive(Clone, Copy)]
pub struct Position<W: Bitboard> {
    geometry: &'static Geometry<W>,
    player: W,
    opponent: W,
    side_to_move: Color,
}

impl<W: Bitboard> Position<W> {
    /// The standard start: the four centre squares, the top-left one white, Black to move.
    ///
    /// On a board with an odd side the centre is the 2x2 block just above and left of the
    /// middle.
    pub fn start(geometry: &'static Geometry<W>) -> Self {
        let (top, left) = (
            i32::from(geometry.rows() / 2 - 1),
            i32::from(geometry.cols() / 2 - 1),
        );
        let at = |row, col| {
            let square = geometry
                .square_at(row, col)
                .expect("boards have at least 4 rows and columns");
            W::square(square.index())
        };
        let white = at(top, left) | at(top + 1, left + 1);
        let black = at(top, left + 1) | at(top + 1, left);
        Self::from_colors_unchecked(geometry, black, white, Color::Black)
    }

    /// A position from the discs of each colour.
    ///
    /// # Errors
    /// When the sets overlap or a disc lies off the board.
    pub fn new(
        geometry: &'static Geometry<W>,
        black: W,
        white: W,
        side_to_move: Color,
    ) -> Result<Self, PositionError> {
        let overlap = black & white;
        if !overlap.is_empty() {
            let square = Square(overlap.lowest_index() as u8);
            return Err(PositionError::Overlap {
                square: geometry.square_name(square).to_string(),
            });
        }
        if !((black | white) & !geometry.board()).is_empty() {
            return Err(PositionError::OffBoard {
                size: geometry.size_name(),
            });
        }
        Ok(Self::from_colors_unchecked(
            geometry,
            black,
            white,
            side_to_move,
        ))
    }

    fn from_colors_unchecked(
        geometry: &'static Geometry<W>,
        black: W,
        white: W,
        side_to_move: Color,
    ) -> Self {
        let (player, opponent) = match side_to_move {
            Color::Black => (black, white),
            Color::White => (white, black),
        };
        Self {
            geometry,
            player,
            opponent,
            side_to_move,
        }
    }

    /// The board shape.
    pub fn geometry(&self) -> &'static Geometry<W> {
        self.geometry
    }

    /// Discs of the side to move.
    #[inline(always)]
    pub fn player(&self) -> W {
        self.player
    }

    /// Discs of the side not to move.
    #[inline(always)]
    pub fn opponent(&self) -> W {
        self.opponent
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// Discs of the given colour.
    pub fn discs(&self, color: Color) -> W {
        if color == self.side_to_move {
            self.player
        } else {
            self.opponent
        }
    }

    /// Black discs.
    pub fn black(&self) -> W {
        self.discs(Color::Black)
    }

    /// White discs.
    pub fn white(&self) -> W {
        self.discs(Color::White)
    }

    /// Empty squares.
    pub fn empty(&self) -> W {
        self.geometry.board() & !(self.player | self.opponent)
    }

    /// The squares where the side to move may play.
    #[inline]
    pub fn legal_moves(&self) -> W {
        movegen::legal_moves(self.geometry, self.player, self.opponent)
    }

    /// The legal moves as squares, in index order.
    pub fn legal_squares(&self) -> impl Iterator<Item = Square> + use<W> {
        self.legal_moves()
            .indices()
            .map(|index| Square(index as u8))
    }

    /// Whether the side to move may play `square`.
    pub fn is_legal(&self, square: Square) -> bool {
        self.legal_moves().contains(square.index())
    }

    /// The discs a move on `square` would flip (empty when the move is illegal).
    pub fn flips(&self, square: Square) -> W {
        if !self.empty().contains(square.index()) {
            return W::EMPTY;
        }
        movegen::flips(self.geometry, self.player, self.opponent, square.index())
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// When the game is over or `square` is not a legal move.
    pub fn play(&self, square: Square) -> Result<Self, MoveError> {
        if self.is_game_over() {
            return Err(MoveError::GameOver);
        }
        if square.index() >= self.geometry.square_count() || !self.is_legal(square) {
            return Err(MoveError::Illegal {
                square: self.geometry.square_name(square).to_string(),
                color: self.side_to_move,
            });
        }
        Ok(self.play_unchecked(square))
    }

    /// Plays a move without checking it; the caller guarantees it is legal.
    ///
    /// An illegal square gives a position that no game reaches, but never undefined behaviour.
    #[inline]
    pub fn play_unchecked(&self, square: Square) -> Self {
        let flipped = movegen::flips(self.geometry, self.player, self.opponent, square.index());
        Self {
            geometry: self.geometry,
            player: self.opponent ^ flipped,
            opponent: self.player | flipped | W::square(square.index()),
            side_to_move: self.side_to_move.opponent(),
        }
    }

    /// Passes: only allowed when the side to move has no move and the game is not over.
    ///
    /// # Errors
    /// When a move exists or the game is over.
    pub fn pass(&self) -> Result<Self, MoveError> {
        if !self.legal_moves().is_empty() {
            return Err(MoveError::PassNotAllowed {
                color: self.side_to_move,
            });
        }
        if self.is_game_over() {
            return Err(MoveError::GameOver);
        }
        Ok(self.pass_unchecked())
    }

    /// Hands the move to the other side without checking that passing is allowed.
    #[inline]
    pub fn pass_unchecked(&self) -> Self {
        Self {
            geometry: self.geometry,
            player: self.opponent,
            opponent: self.player,
            side_to_move: self.side_to_move.opponent(),
        }
    }

    /// Whether the side to move has no move but the opponent has one.
    pub fn must_pass(&self) -> bool {
        self.legal_moves().is_empty()
            && !movegen::legal_moves(self.geometry, self.opponent, self.player).is_empty()
    }

    /// Whether neither side can move.
    pub fn is_game_over(&self) -> bool {
        self.legal_moves().is_empty()
            && movegen::legal_moves(self.geometry, self.opponent, self.player).is_empty()
    }

    /// Black discs minus white discs on the board.
    pub fn disc_difference(&self) -> i32 {
        self.black().count() as i32 - self.white().count() as i32
    }

    /// The final margin, Black minus White, counted as `scoring` says. Meaningful when the
    /// game is over; on a live position it counts the board as it stands.
    pub fn score(&self, scoring: Scoring) -> i32 {
        let difference = self.disc_difference();
        match scoring {
            Scoring::Raw => difference,
            Scoring::WinnerTakesEmpties => {
                winner_takes_empties(difference, self.empty().count() as i32)
            }
        }
    }

    /// The result, or `None` while either side can still move.
    pub fn outcome(&self) -> Option<Outcome> {
        self.is_game_over()
            .then(|| match self.disc_difference().signum() {
                1 => Outcome::Win(Color::Black),
                -1 => Outcome::Win(Color::White),
                _ => Outcome::Draw,
            })
    }

    /// A 64-bit key of the discs and the side to move, for transposition tables.
    ///
    /// Positions of different board shapes never share a table, so the shape is left out.
    pub fn hash(&self) -> u64 {
        let mut key = match self.side_to_move {
            Color::Black => 0x9e37_79b9_7f4a_7c15,
            Color::White => 0xc2b2_ae3d_27d4_eb4f,
        };
        for word in self.black().words().chain(self.white().words()) {
            key = mix64(key ^ word);
        }
        key
    }

    /// The position seen through a board symmetry.
    ///
    /// # Panics
    /// When the symmetry swaps rows and columns on a board that is not square.
    #[must_use]
    pub fn transformed(&self, symmetry: Symmetry) -> Self {
        let map = |set: W| symmetry.apply_to_set(self.geometry, set);
        Self {
            geometry: self.geometry,
            player: map(self.player),
            opponent: map(self.opponent),
            side_to_move: self.side_to_move,
        }
    }
}

impl<W: Bitboard> PartialEq for Position<W> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.geometry, other.geometry)
            && self.player == other.player
            && self.opponent == other.opponent
            && self.side_to_move == other.side_to_move
    }
}

impl<W: Bitboard> Eq for Position<W> {}

impl<W: Bitboard> std::hash::Hash for Position<W> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(Position::hash(self));
    }
}

impl<W: Bitboard> fmt::Debug for Position<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eight() -> &'static Geometry<u64> {
        Geometry::get(8, 8).unwrap()
    }

    #[test]
    fn scoring_gives_empties_to_the_winner() {
        // 33-29 with 2 empties is recorded 35-29 (docs/RULES.md section 2).
        let black = (1u64 << 33) - 1;
        let white = ((1u64 << 29) - 1) << 33;
        let position = Position::new(eight(), black, white, Color::Black).unwrap();
        assert_eq!(position.empty().count(), 2);
        assert_eq!(position.score(Scoring::Raw), 4);
        assert_eq!(position.score(Scoring::WinnerTakesEmpties), 6);
        let mirrored = Position::new(eight(), white, black, Color::Black).unwrap();
        assert_eq!(mirrored.score(Scoring::WinnerTakesEmpties), -6);
    }

    #[test]
    fn a_wiped_out_colour_ends_the_game() {
        // One of the shortest possible games: 9 moves, then White has no disc left.
        let mut position = Position::start(eight());
        for name in ["d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4"] {
            let square = eight().parse_square(name).unwrap();
            position = position.play(square).unwrap();
        }
        assert!(position.is_game_over());
        assert_eq!(position.white().count(), 0);
        assert_eq!(position.outcome(), Some(Outcome::Win(Color::Black)));
        assert_eq!(position.score(Scoring::WinnerTakesEmpties), 64);
        assert_eq!(position.pass(), Err(MoveError::GameOver));
    }

    #[test]
    fn illegal_moves_and_passes_are_refused() {
        let start = Position::start(eight());
        let a1 = eight().parse_square("a1").unwrap();
        assert!(matches!(start.play(a1), Err(MoveError::Illegal { .. })));
        assert!(matches!(
            start.play(Square(200)),
            Err(MoveError::Illegal { .. })
        ));
        assert_eq!(
            start.pass(),
            Err(MoveError::PassNotAllowed {
                color: Color::Black
            })
        );
        let overlap = Position::new(eight(), 1, 1, Color::Black);
        assert!(matches!(overlap, Err(PositionError::Overlap { square }) if square == "a1"));
    }
}
