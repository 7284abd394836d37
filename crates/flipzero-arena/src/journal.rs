//! The journal of a competition: every game appended as soon as it finishes, so that an
//! interrupted arena (a match of hours against a slow engine) resumes where it stopped
//! instead of playing its finished games again.
//!
//! Each line is one game and the key that places it in the competition (the two agents, the
//! pair's seed, the game's index and its opening). A rerun of the same competition takes a
//! game whose key it finds from the journal; a changed config changes the keys, so nothing
//! of another competition is taken. A last line cut short by the interruption is dropped.
//! The first line names the rules the games were played under (a journal without it, written
//! before it was added, is read as it is), and a journal of other rules is refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use flipzero_core::{Color, Rules, RulesSpec};
use flipzero_data::files::{FileError, append_lines, complete_lines, write_atomically};
use serde::{Deserialize, Serialize};

use crate::matches::{Ending, GameResult, Thinking};

/// The first line: the rules of every game below it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    #[serde(with = "flipzero_core::variant::rules::toml_text")]
    rules: RulesSpec,
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    key: String,
    first_agent_color: Color,
    points: f64,
    margin: i32,
    /// Decision indices in the rules' decision set.
    decisions: Vec<usize>,
    black_score: i32,
    discs: [u32; 2],
    /// `finished`, `time` or `forfeit`.
    ending: String,
    /// The seat that lost on time or forfeited.
    #[serde(default)]
    losing_seat: Option<Color>,
    #[serde(default)]
    failure: Option<String>,
    /// Seconds each agent spent choosing, `[first agent, second agent]`.
    seconds: [f64; 2],
    /// Decisions each agent chose.
    chosen: [u32; 2],
}

impl Line {
    fn of(key: &str, rules: &Rules, game: &GameResult) -> Line {
        let (ending, losing_seat) = match game.ending {
            Ending::Finished => ("finished", None),
            Ending::Time(seat) => ("time", Some(seat)),
            Ending::Forfeit(seat) => ("forfeit", Some(seat)),
        };
        Line {
            key: key.to_owned(),
            first_agent_color: game.first_agent_color,
            points: game.points,
            margin: game.margin,
            decisions: game
                .decisions
                .iter()
                .map(|&d| rules.decision_index(d))
                .collect(),
            black_score: game.black_score,
            discs: game.discs,
            ending: ending.to_owned(),
            losing_seat,
            failure: game.failure.clone(),
            seconds: game.thinking.map(|t| t.time.as_secs_f64()),
            chosen: game.thinking.map(|t| t.decisions),
        }
    }

    fn game(self, rules: &Rules) -> Result<(String, GameResult), String> {
        let decisions = self
            .decisions
            .iter()
            .map(|&index| {
                rules
                    .decision_at(index)
                    .ok_or_else(|| format!("decision index {index} is not in these rules"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let seat = || {
            self.losing_seat
                .ok_or_else(|| format!("ending {} without a losing_seat", self.ending))
        };
        let ending = match self.ending.as_str() {
            "finished" => Ending::Finished,
            "time" => Ending::Time(seat()?),
            "forfeit" => Ending::Forfeit(seat()?),
            other => return Err(format!("unknown ending {other:?}")),
        };
        if ![0.0, 0.5, 1.0].contains(&self.points) {
            return Err(format!("points {} (0, 0.5 or 1)", self.points));
        }
        let [first_time, second_time] = self.seconds.map(|s| Duration::try_from_secs_f64(s).ok());
        let (Some(first_time), Some(second_time)) = (first_time, second_time) else {
            return Err(format!(
                "seconds {:?} (each a time of 0 or more that a duration holds)",
                self.seconds
            ));
        };
        let times = [first_time, second_time];
        let thinking = [0, 1].map(|agent| Thinking {
            time: times[agent],
            decisions: self.chosen[agent],
        });
        let game = GameResult {
            first_agent_color: self.first_agent_color,
            points: self.points,
            margin: self.margin,
            decisions,
            black_score: self.black_score,
            discs: self.discs,
            ending,
            failure: self.failure,
            thinking,
        };
        Ok((self.key, game))
    }
}

/// The key of one game: its agents (first, second), the pair's seed, its index in the pair's
/// suite and its opening (`Game::to_text`).
pub fn game_key(agents: (&str, &str), pair_seed: u64, game: usize, opening: &str) -> String {
    format!(
        "{} vs {} | pair {pair_seed} | game {game} | {opening}",
        agents.0, agents.1
    )
}

/// A competition's journal: the games read back from an earlier run, and the file new games
/// are appended to.
pub struct Journal {
    path: PathBuf,
    rules: Rules,
    finished: HashMap<String, GameResult>,
    /// Held while a game is appended, so that games finishing at once wait their turn.
    writing: Mutex<()>,
}

impl Journal {
    /// Opens (or creates) the journal at `path` and reads the games already in it.
    ///
    /// # Errors
    /// A file that cannot be read or created; a journal of other rules; a line that is not a
    /// game of these rules (other than a last line cut short).
    pub fn open(path: &Path, rules: &Rules) -> Result<Journal, FileError> {
        let invalid = |reason: String| FileError::invalid(path, reason);
        let io = |error| FileError::io(path, error);
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        // A line without its newline was being written when the run stopped.
        let complete = complete_lines(&text);
        let mut finished = HashMap::new();
        for (number, line) in complete.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if number == 0
                && let Ok(header) = serde_json::from_str::<Header>(line)
            {
                if header.rules != *rules.spec() {
                    return Err(invalid(
                        "a journal of games under other rules (another file, or remove it to \
                         play them again)"
                            .to_owned(),
                    ));
                }
                continue;
            }
            let (key, game) = serde_json::from_str::<Line>(line)
                .map_err(|e| e.to_string())
                .and_then(|line| line.game(rules))
                .map_err(|reason| invalid(format!("line {}: {reason}", number + 1)))?;
            finished.insert(key, game);
        }
        // Drop the cut line so that new games start on a line of their own, and start a new
        // journal with its rules (atomically: a second interruption here loses nothing).
        if complete.is_empty() {
            let header = Header {
                rules: rules.spec().clone(),
            };
            let mut first = serde_json::to_string(&header).expect("rules serialise");
            first.push('\n');
            write_atomically(path, first.as_bytes()).map_err(io)?;
        } else if complete.len() < text.len() {
            write_atomically(path, complete.as_bytes()).map_err(io)?;
        }
        // Opened for appending now, so that a journal that cannot be written is refused
        // before any game.
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok(Journal {
            path: path.to_owned(),
            rules: rules.clone(),
            finished,
            writing: Mutex::new(()),
        })
    }

    /// The games read back from the file when it was opened.
    pub fn resumed(&self) -> usize {
        self.finished.len()
    }

    /// The game of `key`, when an earlier run finished it.
    pub fn finished(&self, key: &str) -> Option<GameResult> {
        self.finished.get(key).cloned()
    }

    /// Appends a finished game, flushed to the file before it returns.
    ///
    /// # Errors
    /// The file cannot be written (the game is still in the competition's result; only a
    /// later resume would play it again).
    pub fn record(&self, key: &str, game: &GameResult) -> Result<(), FileError> {
        let mut text = serde_json::to_string(&Line::of(key, &self.rules, game))
            .map_err(|e| FileError::invalid(&self.path, e.to_string()))?;
        text.push('\n');
        let _turn = self
            .writing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        append_lines(&self.path, &text, true)
    }

    /// Removes the journal once the competition's results are safely written.
    ///
    /// # Errors
    /// The file cannot be removed.
    pub fn remove(self) -> Result<(), FileError> {
        std::fs::remove_file(&self.path).map_err(|e| FileError::io(&self.path, e))
    }
}
