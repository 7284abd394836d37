//! The board text both wings read and write: the one-line format and the ASCII diagram
//! (the Othello position's in [`crate::othello`], the variant engine's, with its extra fields,
//! in [`crate::variant`]).
//!
//! One-line format (OBF-compatible at 8x8): the squares a1, b1, ... row by row as `X`
//! (black), `O` (white) or `-` (empty), a space, and the side to move (`X` or `O`). Anything
//! after a `;` is ignored, so OBF lines with their move lists parse. Other square boards are
//! recognised by their length (100 squares is 10x10); a rectangular board is written with its
//! shape first: `4x6 ------...------ X`. Lower-case letters, `*` for black and `.` for empty
//! are accepted on input.
//!
//! Diagram:
//!
//! ```text
//!   a b c d e f g h
//! 1 - - - - - - - -
//! 2 - - - - - - - -
//! 3 - - - - - - - -
//! 4 - - - O X - - -
//! 5 - - - X O - - -
//! 6 - - - - - - - -
//! 7 - - - - - - - -
//! 8 - - - - - - - -
//! X to move
//! ```

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::geometry::{Geometry, GeometryError, MAX_SIDE, MIN_SIDE, Square};

/// Position text that does not parse, with what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Nothing but blanks.
    #[error("the position text is empty")]
    Empty,
    /// The squares do not form a board.
    #[error(
        "the board has {found} squares, which is no square board from {MIN_SIDE}x{MIN_SIDE} to \
         {MAX_SIDE}x{MAX_SIDE} (write a shape such as `6x8` first for a rectangle)"
    )]
    UnknownShape {
        /// Number of square characters read.
        found: usize,
    },
    /// A shape prefix that does not read as `RxC`.
    #[error("`{0}` is not a board shape such as `8x8`")]
    BadShape(String),
    /// The number of squares does not match the stated shape.
    #[error("a {rows}x{cols} board needs {expected} squares, found {found}")]
    WrongSquareCount {
        /// Rows of the stated shape.
        rows: u8,
        /// Columns of the stated shape.
        cols: u8,
        /// `rows * cols`.
        expected: usize,
        /// Squares read.
        found: usize,
    },
    /// A character that is neither a disc nor an empty square.
    #[error("unexpected `{character}` at square {square} (expected X, O or -)")]
    BadSquare {
        /// The offending character.
        character: char,
        /// Name of the square it stands for.
        square: String,
    },
    /// No side to move after the squares.
    #[error("the side to move (X or O) is missing after the squares")]
    MissingSideToMove,
    /// A side to move other than X or O.
    #[error("`{0}` is not a side to move (expected X or O)")]
    BadSideToMove(String),
    /// Text after the side to move that is not an OBF comment.
    #[error("unexpected `{0}` after the side to move")]
    TrailingText(String),
    /// A diagram line that is neither a header, a row nor the side to move.
    #[error("diagram line {line}: {reason}")]
    BadDiagramLine {
        /// Line number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The shape does not exist or does not fit the bitboard width.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// The discs do not form a position (what the wing that builds it found).
    #[error("{0}")]
    Discs(String),
}

pub(crate) fn disc_of(character: char) -> Option<Option<Color>> {
    match character {
        'X' | 'x' | '*' => Some(Some(Color::Black)),
        'O' | 'o' => Some(Some(Color::White)),
        '-' | '.' => Some(None),
        _ => None,
    }
}

pub(crate) fn side_of(text: &str) -> Result<Color, TextError> {
    match text {
        "X" | "x" | "*" => Ok(Color::Black),
        "O" | "o" => Ok(Color::White),
        _ => Err(TextError::BadSideToMove(text.to_owned())),
    }
}

fn parse_shape(token: &str) -> Option<(u8, u8)> {
    let (rows, cols) = token.split_once(['x', 'X'])?;
    Some((rows.parse().ok()?, cols.parse().ok()?))
}

fn square_side(squares: usize) -> Option<u8> {
    (MIN_SIDE..=MAX_SIDE).find(|&side| usize::from(side) * usize::from(side) == squares)
}

/// The shape of a one-line position, read without building it (to pick the bitboard width).
///
/// # Errors
/// As [`crate::Position::from_text`], for the parts that decide the shape.
pub fn text_shape(text: &str) -> Result<(u8, u8), TextError> {
    let (rows, cols, _, _) = shape_and_squares(text)?;
    Ok((rows, cols))
}

/// The shape, the square characters and the tokens after them, of the text before any `;`.
fn shape_and_squares(
    text: &str,
) -> Result<(u8, u8, &str, std::str::SplitWhitespace<'_>), TextError> {
    let body = text.split(';').next().unwrap_or_default();
    let mut tokens = body.split_whitespace();
    let first = tokens.next().ok_or(TextError::Empty)?;
    let (rows, cols, squares) =
        if first.contains(['x', 'X']) && first.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
            let (rows, cols) =
                parse_shape(first).ok_or_else(|| TextError::BadShape(first.to_owned()))?;
            (rows, cols, tokens.next().unwrap_or_default())
        } else {
            let found = first.chars().count();
            let side = square_side(found).ok_or(TextError::UnknownShape { found })?;
            (side, side, first)
        };
    Ok((rows, cols, squares, tokens))
}

/// A one-line position split into its parts, shared by [`crate::Position::from_text`] and the
/// variant engine's text: the shape, the square characters (their count checked), the side
/// to move, and the tokens after it.
pub(crate) struct BoardText<'a> {
    pub(crate) rows: u8,
    pub(crate) cols: u8,
    pub(crate) squares: &'a str,
    pub(crate) side_to_move: Color,
    pub(crate) fields: std::str::SplitWhitespace<'a>,
}

/// Splits a one-line position; anything after a `;` is ignored.
pub(crate) fn split_board_text(text: &str) -> Result<BoardText<'_>, TextError> {
    let (rows, cols, squares, mut fields) = shape_and_squares(text)?;
    let expected = usize::from(rows) * usize::from(cols);
    let found = squares.chars().count();
    if found != expected {
        return Err(TextError::WrongSquareCount {
            rows,
            cols,
            expected,
            found,
        });
    }
    let side_to_move = side_of(fields.next().ok_or(TextError::MissingSideToMove)?)?;
    Ok(BoardText {
        rows,
        cols,
        squares,
        side_to_move,
        fields,
    })
}

pub(crate) struct Diagram {
    pub(crate) cells: Vec<Vec<Option<Color>>>,
    pub(crate) rows: u8,
    pub(crate) cols: u8,
    pub(crate) side_to_move: Color,
}

pub(crate) fn read_diagram(text: &str) -> Result<Diagram, TextError> {
    let mut rows = Vec::new();
    let mut side_to_move = None;
    for (line_index, line) in text.lines().enumerate() {
        let line_number = line_index + 1;
        let bad = |reason: String| TextError::BadDiagramLine {
            line: line_number,
            reason,
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            [] => continue,
            [side, "to", "move"] => side_to_move = Some(side_of(side)?),
            [label, cells @ ..] if label.bytes().all(|b| b.is_ascii_digit()) => {
                let expected = rows.len() + 1;
                if label.parse::<usize>().ok() != Some(expected) {
                    return Err(bad(format!("row label {label}, expected {expected}")));
                }
                let row = cells
                    .iter()
                    .enumerate()
                    .map(|(col, cell)| {
                        let mut chars = cell.chars();
                        match (chars.next().and_then(disc_of), chars.next()) {
                            (Some(disc), None) => Ok(disc),
                            _ => Err(bad(format!(
                                "`{cell}` in column {} is not X, O or -",
                                col + 1
                            ))),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(first) = rows.first()
                    && Vec::len(first) != row.len()
                {
                    return Err(bad(format!(
                        "row {expected} has {} squares, row 1 has {}",
                        row.len(),
                        Vec::len(first)
                    )));
                }
                rows.push(row);
            }
            header
                if header.iter().enumerate().all(|(i, letter)| {
                    letter.len() == 1 && letter.as_bytes()[0] as usize == usize::from(b'a') + i
                }) => {}
            _ => {
                return Err(bad(format!(
                    "`{}` is not a column header, a numbered row or `X to move`",
                    line.trim()
                )));
            }
        }
    }
    let side_to_move = side_to_move.ok_or(TextError::MissingSideToMove)?;
    let side = |count: usize| {
        u8::try_from(count)
            .ok()
            .filter(|n| (1..=MAX_SIDE).contains(n))
    };
    let first_row = rows.first().map_or(0, Vec::len);
    let (Some(row_count), Some(col_count)) = (side(rows.len()), side(first_row)) else {
        return Err(TextError::UnknownShape {
            found: rows.iter().map(Vec::len).sum(),
        });
    };
    Ok(Diagram {
        cells: rows,
        rows: row_count,
        cols: col_count,
        side_to_move,
    })
}

/// An ASCII diagram: column letters, one numbered line per row with a symbol per square, and
/// a last line such as `X to move`.
pub(crate) fn diagram<W: Bitboard>(
    geometry: &Geometry<W>,
    symbol: impl Fn(Square) -> char,
    footer: &str,
) -> String {
    let label_width = if geometry.rows() >= 10 { 2 } else { 1 };
    let mut out = format!("{:label_width$}", "");
    for col in 0..geometry.cols() {
        out.push(' ');
        out.push(char::from(b'a' + col));
    }
    out.push('\n');
    for row in 0..geometry.rows() {
        out.push_str(&format!("{:>label_width$}", row + 1));
        for col in 0..geometry.cols() {
            let square = geometry
                .square_at(i32::from(row), i32::from(col))
                .expect("row and column are on the board");
            out.push(' ');
            out.push(symbol(square));
        }
        out.push('\n');
    }
    out.push_str(footer);
    out.push('\n');
    out
}
