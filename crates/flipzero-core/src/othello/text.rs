//! The text forms of an Othello [`Position`]: the one-line format and the ASCII diagram
//! described in [`crate::board_text`].

use std::fmt;

use crate::bitboard::Bitboard;
use crate::board_text::{TextError, diagram, disc_of, read_diagram, split_board_text};
use crate::color::Color;
use crate::geometry::{Geometry, Square};
use crate::othello::{Position, PositionError};

fn discs_error(error: PositionError) -> TextError {
    TextError::Discs(error.to_string())
}

impl<W: Bitboard> Position<W> {
    /// Parses the one-line format described in [`crate::board_text`].
    ///
    /// # Errors
    /// A [`TextError`] naming what is wrong: the shape, a bad character and its square, a
    /// missing or bad side to move, or a shape wider than `W`.
    pub fn from_text(text: &str) -> Result<Self, TextError> {
        let mut board = split_board_text(text)?;
        let geometry = Geometry::<W>::get(board.rows, board.cols)?;
        let squares = board.squares;
        let (mut black, mut white) = (W::EMPTY, W::EMPTY);
        for (index, character) in squares.chars().enumerate() {
            let bit = W::square(index as u32);
            match disc_of(character) {
                Some(Some(Color::Black)) => black |= bit,
                Some(Some(Color::White)) => white |= bit,
                Some(None) => {}
                None => {
                    return Err(TextError::BadSquare {
                        character,
                        square: geometry.square_name(Square(index as u8)).to_string(),
                    });
                }
            }
        }
        if let Some(extra) = board.fields.next() {
            return Err(TextError::TrailingText(extra.to_owned()));
        }
        Position::new(geometry, black, white, board.side_to_move).map_err(discs_error)
    }

    /// Parses an ASCII diagram as printed by [`Position::to_diagram`]: an optional column
    /// header, one numbered line per row, and a final `X to move` or `O to move`.
    ///
    /// # Errors
    /// A [`TextError`] naming the offending line.
    pub fn from_diagram(text: &str) -> Result<Self, TextError> {
        let diagram = read_diagram(text)?;
        let geometry = Geometry::<W>::get(diagram.rows, diagram.cols)?;
        let (mut black, mut white) = (W::EMPTY, W::EMPTY);
        for (index, disc) in diagram.cells.iter().flatten().enumerate() {
            match disc {
                Some(Color::Black) => black |= W::square(index as u32),
                Some(Color::White) => white |= W::square(index as u32),
                None => {}
            }
        }
        Position::new(geometry, black, white, diagram.side_to_move).map_err(discs_error)
    }

    fn symbol_at(&self, square: Square) -> char {
        let index = square.index();
        if self.black().contains(index) {
            'X'
        } else if self.white().contains(index) {
            'O'
        } else {
            '-'
        }
    }

    /// The one-line format.
    pub fn to_text(&self) -> String {
        self.to_string()
    }

    /// The ASCII diagram, with column letters and row numbers.
    pub fn to_diagram(&self) -> String {
        let footer = format!("{} to move", self.side_to_move().symbol());
        diagram(self.geometry(), |square| self.symbol_at(square), &footer)
    }
}

impl<W: Bitboard> fmt::Display for Position<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let geometry = self.geometry();
        if geometry.rows() != geometry.cols() {
            write!(f, "{} ", geometry.size_name())?;
        }
        for square in geometry.squares() {
            write!(f, "{}", self.symbol_at(square))?;
        }
        write!(f, " {}", self.side_to_move().symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------OX------XO--------------------------- X";

    #[test]
    fn the_start_prints_and_parses() {
        let start = Position::start(Geometry::<u64>::get(8, 8).unwrap());
        assert_eq!(start.to_text(), START);
        assert_eq!(Position::<u64>::from_text(START).unwrap(), start);
        let diagram = start.to_diagram();
        assert!(diagram.contains("4 - - - O X - - -"), "{diagram}");
        assert_eq!(Position::<u64>::from_diagram(&diagram).unwrap(), start);
    }

    #[test]
    fn obf_lines_parse_with_their_move_lists() {
        let line =
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;";
        let position = Position::<u64>::from_text(line).unwrap();
        assert_eq!(position.side_to_move(), Color::Black);
        assert_eq!(position.empty().count(), 14);
    }

    #[test]
    fn rectangles_carry_their_shape() {
        let geometry = Geometry::<u64>::get(4, 6).unwrap();
        let start = Position::start(geometry);
        let text = start.to_text();
        assert!(text.starts_with("4x6 "), "{text}");
        assert_eq!(Position::<u64>::from_text(&text).unwrap(), start);
        assert_eq!(
            Position::<u64>::from_diagram(&start.to_diagram()).unwrap(),
            start
        );
    }

    #[test]
    fn malformed_text_says_what_is_wrong() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("---- X", "4 squares"),
            (&START.replace(" X", " Q"), "`Q` is not a side"),
            (&START.replace(" X", ""), "side to move"),
            (&START.replacen('-', "Z", 1), "`Z` at square a1"),
            (&format!("{START} extra"), "unexpected `extra`"),
            (
                &format!("6x8 {}", &START[..64]),
                "needs 48 squares, found 64",
            ),
            ("9x -- X", "`9x` is not a board shape"),
        ];
        for (text, expected) in cases {
            let error = Position::<u64>::from_text(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
        let too_wide = "-".repeat(100) + " X";
        let error = Position::<u64>::from_text(&too_wide)
            .unwrap_err()
            .to_string();
        assert!(error.contains("100 squares"), "{error}");
        let bad_row = "  a b c d\n1 - - - -\n3 - - - -\nX to move";
        let error = Position::<u64>::from_diagram(bad_row)
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 3: row label 3, expected 2"), "{error}");
    }
}
