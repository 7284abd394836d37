//! Games files: one finished game per line of JSON (`flipzero arena --games`, `flipzero
//! evaluate --games`, the web page's saved games), read back by `flipzero replay --games`
//! and the web page's loader. A game names its rules by variant and size, its opening by its
//! text, and its decisions in move-list notation, so that any reader replays it from the
//! rules alone. Made from a finished match game by `flipzero_arena::competition::saved_game`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::files::{FileError, append_lines, write_atomically};

/// One game as saved: a line of JSON in the games file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedGame {
    /// The rules' variant name or file, as in the config.
    pub variant: String,
    /// Board side, when the config gives one.
    pub size: Option<u8>,
    /// The agent in the seat that starts as Black.
    pub black: String,
    /// The agent in the seat that starts as White.
    pub white: String,
    /// The opening position (`Game::to_text`).
    pub opening: String,
    /// The decisions from the opening, in move-list notation (`flipzero replay --moves`).
    pub decisions: String,
    /// `1-0`, `0-1` or `1/2-1/2`, for the seats.
    pub result: String,
    /// Black minus White at the end, as the rules count it.
    pub score: i32,
    /// `finished`, `time` when a player lost on time, or `forfeit: <reason>` when a player
    /// failed (an external engine that exited, hung or answered an illegal move).
    pub ending: String,
    /// Seconds each seat spent choosing, `[Black's seat, White's seat]`, where the referee
    /// timed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<[f64; 2]>,
}

/// The games as the lines of a games file.
fn lines_of(games: &[SavedGame]) -> String {
    let mut lines = String::new();
    for game in games {
        lines.push_str(&serde_json::to_string(game).expect("saved games serialise"));
        lines.push('\n');
    }
    lines
}

/// Writes a whole games file atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_saved_games(path: &Path, games: &[SavedGame]) -> Result<(), FileError> {
    write_atomically(path, lines_of(games).as_bytes()).map_err(|e| FileError::io(path, e))
}

/// Appends games to a games file (made when missing).
///
/// # Errors
/// The file cannot be written.
pub fn append_saved_games(path: &Path, games: &[SavedGame]) -> Result<(), FileError> {
    append_lines(path, &lines_of(games), false)
}

/// Line `line` (from 1) of a games file.
///
/// # Errors
/// An unreadable file, no such line, or a line that is not a saved game.
pub fn read_saved_game(path: &Path, line: usize) -> Result<SavedGame, FileError> {
    let text = std::fs::read_to_string(path).map_err(|e| FileError::io(path, e))?;
    let found = text
        .lines()
        .nth(line.saturating_sub(1))
        .filter(|_| line >= 1)
        .ok_or_else(|| FileError::invalid(path, format!("no line {line}")))?;
    serde_json::from_str(found)
        .map_err(|e| FileError::invalid(path, format!("line {line}: not a saved game: {e}")))
}
