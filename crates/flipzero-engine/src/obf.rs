//! OBF endgame files: one position per line, then `;`-separated `MOVE:SCORE` pairs giving the
//! exact score of each listed move (FFO suite, Edax's test files).

use flipzero_core::{Position, Square, TextError};

/// One line of an OBF file.
#[derive(Clone, Debug)]
pub struct ObfLine {
    /// Line number in the file, from 1.
    pub line: usize,
    /// The position.
    pub position: Position<u64>,
    /// The listed moves with their exact scores, best first (may be empty).
    pub scores: Vec<(Square, i32)>,
}

/// An OBF line that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObfError {
    /// The position part.
    #[error("line {line}: {error}")]
    Position {
        /// Line number.
        line: usize,
        /// What is wrong with the position.
        error: TextError,
    },
    /// A `MOVE:SCORE` pair.
    #[error("line {line}: `{pair}` is not MOVE:SCORE (such as G8:+18)")]
    Score {
        /// Line number.
        line: usize,
        /// The pair as written.
        pair: String,
    },
}

/// Reads every non-blank line of an OBF text.
///
/// # Errors
/// The first line that does not parse, with its number.
pub fn parse(text: &str) -> Result<Vec<ObfLine>, ObfError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('%'))
        .map(|(number, line)| {
            let line_number = number + 1;
            let position =
                Position::<u64>::from_text(line).map_err(|error| ObfError::Position {
                    line: line_number,
                    error,
                })?;
            let scores = line
                .split(';')
                .skip(1)
                .map(str::trim)
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let bad = || ObfError::Score {
                        line: line_number,
                        pair: pair.to_owned(),
                    };
                    let (name, score) = pair.split_once(':').ok_or_else(bad)?;
                    let square = position.geometry().parse_square(name).map_err(|_| bad())?;
                    let score = score.trim_start_matches('+').parse().map_err(|_| bad())?;
                    Ok((square, score))
                })
                .collect::<Result<_, _>>()?;
            Ok(ObfLine {
                line: line_number,
                position,
                scores,
            })
        })
        .collect()
}
