//! The journal of a competition: every game appended as soon as it finishes, so that an
//! interrupted arena (a match of hours against a slow engine) resumes where it stopped
//! instead of playing its finished games again. The file itself (its rules line, cut lines,
//! appending) is `flipzero_data::journal`'s; this module says what a game's line holds.
//!
//! Each line is one game and the key that places it in the competition (the two agents, the
//! pair's seed, the game's index and its opening). A rerun of the same competition takes a
//! game whose key it finds from the journal; a changed config changes the keys, so nothing
//! of another competition is taken.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use flipzero_core::{Color, Rules};
use flipzero_data::files::FileError;
use flipzero_data::journal::JournalFile;
use serde::{Deserialize, Serialize};

use crate::matches::{Ending, GameResult, Thinking};

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
    file: JournalFile,
    rules: Rules,
    finished: HashMap<String, GameResult>,
}

impl Journal {
    /// Opens (or creates) the journal at `path` and reads the games already in it.
    ///
    /// # Errors
    /// A file that cannot be read or created; a journal of other rules; a line that is not a
    /// game of these rules (other than a last line cut short).
    pub fn open(path: &Path, rules: &Rules) -> Result<Journal, FileError> {
        let (file, lines) = JournalFile::open(path, rules.spec(), "games")?;
        let mut finished = HashMap::new();
        for (number, line) in lines {
            let (key, game) = serde_json::from_str::<Line>(&line)
                .map_err(|e| e.to_string())
                .and_then(|line| line.game(rules))
                .map_err(|reason| FileError::invalid(path, format!("line {number}: {reason}")))?;
            finished.insert(key, game);
        }
        Ok(Journal {
            file,
            rules: rules.clone(),
            finished,
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
        self.file.append(&Line::of(key, &self.rules, game))
    }

    /// Removes the journal once the competition's results are safely written.
    ///
    /// # Errors
    /// The file cannot be removed.
    pub fn remove(self) -> Result<(), FileError> {
        self.file.remove()
    }
}
