//! The two colours, how a game ends, and how its margin is counted: shared by the Othello
//! fast path and the variant engine.

use std::fmt;

/// One of the two players. Black moves first in standard Othello.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Color {
    /// Player 1, `X` in text positions.
    #[default]
    Black,
    /// Player 2, `O` in text positions.
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other colour.
    #[must_use]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The letter used in text positions: `X` or `O`.
    pub fn symbol(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The given colour won.
    Win(Color),
    /// Equal discs.
    Draw,
}

/// How the final disc margin is counted (docs/RULES.md section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scoring {
    /// Empty squares left at the end go to the winner, split on a draw.
    #[default]
    WinnerTakesEmpties,
    /// The discs on the board, nothing more.
    Raw,
}

/// A disc difference with the empty squares given to the side ahead (docs/RULES.md section 2); a
/// draw splits them evenly, so its margin stays 0.
pub fn winner_takes_empties(difference: i32, empties: i32) -> i32 {
    difference + difference.signum() * empties
}
