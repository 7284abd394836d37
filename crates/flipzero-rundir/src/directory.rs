//! The run directory, the interface between stages:
//!
//! ```text
//! <run>/config.toml          the run config (copied in when the run starts)
//! <run>/rules.toml           the rules, resolved, so the directory stands alone
//! <run>/checkpoints/step-000000400.ckpt   one per training stage, with optimizer state
//! <run>/checkpoints/step-000000400.shards the shards the training that made it used
//! <run>/shards/step-000000400-game-000017.shard   one per finished self-play game (loop)
//! <run>/shards/step-000000400-w-7781.3-game-000017.shard   ... played by worker `7781.3`
//! <run>/metrics.jsonl        one JSON record per stage (see `Record`)
//! <run>/finished             written by the trainer when the run's budget is spent
//! <run>/training.lock        locked while a training stage runs (one trainer at a time)
//! ```
//!
//! Every file is written to a temporary name and renamed into place; a game's shard is
//! written the moment the game ends, so a killed run loses no finished game, and the name
//! says which checkpoint played it (and which worker), so a resumed stage plays only the
//! missing games and many workers never write the same name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flipzero_arena::PerfectPlayScore;
use flipzero_data::files::{FileError, append_lines, write_atomically};
use serde::{Deserialize, Serialize};

use crate::worker::WorkerId;

/// The files of one run.
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
}

const CHECKPOINT_PREFIX: &str = "step-";
const CHECKPOINT_SUFFIX: &str = ".ckpt";
/// Header of a consumed-shards list: when the training read its window (Unix seconds).
const READ_AT_PREFIX: &str = "# window read at ";
/// Header of a consumed-shards list: the shards in the folder at that moment.
const PRESENT_PREFIX: &str = "# shards present ";

/// What a training saw when it read its replay window.
#[derive(Clone, Copy, Debug)]
pub struct WindowRead {
    /// When.
    pub at: SystemTime,
    /// The shard files in the folder then.
    pub shards_present: usize,
}

impl RunDir {
    /// The run at `root` (nothing is created yet).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Its root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The copy of the run config.
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// The resolved rules.
    pub fn rules_path(&self) -> PathBuf {
        self.root.join("rules.toml")
    }

    /// The folder of shards.
    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }

    /// The folder that damaged shards are moved into, out of the replay window.
    pub fn quarantine(&self) -> PathBuf {
        self.root.join("quarantine")
    }

    /// The folder of the Slurm job scripts `flipzero cluster submit` writes.
    pub fn slurm(&self) -> PathBuf {
        self.root.join("slurm")
    }

    /// The folder the Slurm jobs write their logs into.
    pub fn job_logs(&self) -> PathBuf {
        self.slurm().join("logs")
    }

    /// The Slurm jobs' log files, by name (sorted; none before a job ran), each with its
    /// last line: what `flipzero cluster status` shows of the jobs.
    ///
    /// # Errors
    /// An unreadable folder or log.
    pub fn job_log_tails(&self) -> Result<Vec<(String, String)>, FileError> {
        let folder = self.job_logs();
        let mut names = file_names(&folder)?;
        names.sort();
        let mut tails = Vec::new();
        for name in names {
            let path = folder.join(&name);
            if path.is_file() {
                tails.push((name, last_line(&path)?));
            }
        }
        Ok(tails)
    }

    /// The file names of the shards in [`RunDir::quarantine`], sorted (none when the folder
    /// was never made): what `flipzero report` lists for a look.
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn quarantined_shards(&self) -> Result<Vec<String>, FileError> {
        let mut names = file_names(&self.quarantine())?;
        names.sort();
        Ok(names)
    }

    /// Moves a shard that cannot be read into [`RunDir::quarantine`] (kept for a look, never
    /// read again by training) and gives its file name.
    ///
    /// # Errors
    /// When the folder cannot be made or the file cannot be moved.
    pub fn quarantine_shard(&self, shard: &Path) -> Result<String, FileError> {
        let folder = self.quarantine();
        std::fs::create_dir_all(&folder).map_err(|e| FileError::io(&folder, e))?;
        let name = shard.file_name().unwrap_or_default();
        std::fs::rename(shard, folder.join(name)).map_err(|e| FileError::io(shard, e))?;
        Ok(name.to_string_lossy().into_owned())
    }

    /// The folder of checkpoints.
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }

    /// The metrics file.
    pub fn metrics_path(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }

    /// The exact values of the evaluation openings, solved once (`flipzero_arena::ExactCache`).
    pub fn exact_values_path(&self) -> PathBuf {
        self.root.join("exact-values.json")
    }

    /// Creates the folders.
    ///
    /// # Errors
    /// When they cannot be created.
    pub fn create(&self) -> Result<(), FileError> {
        for folder in [self.shards(), self.checkpoints()] {
            std::fs::create_dir_all(&folder).map_err(|e| FileError::io(&folder, e))?;
        }
        Ok(())
    }

    /// The checkpoint of a training step.
    pub fn checkpoint_path(&self, step: u64) -> PathBuf {
        self.checkpoints()
            .join(format!("{CHECKPOINT_PREFIX}{step:09}{CHECKPOINT_SUFFIX}"))
    }

    /// Every finished checkpoint's step, in increasing order.
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn checkpoint_steps(&self) -> Result<Vec<u64>, FileError> {
        let folder = self.checkpoints();
        let mut steps: Vec<u64> = file_names(&folder)?
            .iter()
            .filter_map(|name| {
                name.strip_prefix(CHECKPOINT_PREFIX)?
                    .strip_suffix(CHECKPOINT_SUFFIX)?
                    .parse()
                    .ok()
            })
            .collect();
        steps.sort_unstable();
        Ok(steps)
    }

    /// The newest checkpoint's step.
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn latest_step(&self) -> Result<Option<u64>, FileError> {
        Ok(self.checkpoint_steps()?.last().copied())
    }

    /// The shard of game `game` played by the checkpoint of `step`. Names sort by step, so
    /// the replay window takes the newest checkpoints' games first.
    pub fn shard_path(&self, step: u64, game: u64) -> PathBuf {
        self.shards()
            .join(format!("step-{step:09}-game-{game:06}.shard"))
    }

    /// The shard of game `game` played by `worker` with the checkpoint of `step`.
    pub fn worker_shard_path(&self, step: u64, worker: &WorkerId, game: u64) -> PathBuf {
        self.shards()
            .join(format!("step-{step:09}-w-{worker}-game-{game:06}.shard"))
    }

    /// The ids of the games `worker` has written for the checkpoint of `step`, in order.
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn games_of_worker(&self, step: u64, worker: &WorkerId) -> Result<Vec<u64>, FileError> {
        self.games_with_prefix(&format!("step-{step:09}-w-{worker}-game-"))
    }

    /// Every shard's file name, sorted (oldest checkpoint first).
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn shard_names(&self) -> Result<Vec<String>, FileError> {
        let mut names: Vec<String> = file_names(&self.shards())?
            .into_iter()
            .filter(|name| name.ends_with(".shard"))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The list of shards the training that made the checkpoint of `step` used.
    pub fn consumed_path(&self, step: u64) -> PathBuf {
        self.checkpoints()
            .join(format!("{CHECKPOINT_PREFIX}{step:09}.shards"))
    }

    /// Records the shards a training stage used and when it read them, before its
    /// checkpoint is published (a kill in between leaves a list that the retried stage
    /// rewrites).
    ///
    /// # Errors
    /// When the list cannot be written.
    pub fn write_consumed(
        &self,
        step: u64,
        window: &WindowRead,
        names: &[String],
    ) -> Result<(), FileError> {
        let since_epoch = window.at.duration_since(UNIX_EPOCH).unwrap_or_default();
        let mut text = format!(
            "{READ_AT_PREFIX}{:.3}\n{PRESENT_PREFIX}{}\n",
            since_epoch.as_secs_f64(),
            window.shards_present
        );
        for name in names {
            text.push_str(name);
            text.push('\n');
        }
        self.write_text(&self.consumed_path(step), &text)
    }

    /// A header line of the consumed list of `step` (`None` without a list or a line).
    fn consumed_header(&self, step: u64, prefix: &str) -> Result<Option<String>, FileError> {
        let path = self.consumed_path(step);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(FileError::io(&path, error)),
        };
        Ok(text
            .lines()
            .take_while(|line| line.starts_with('#'))
            .find_map(|line| line.strip_prefix(prefix))
            .map(str::to_owned))
    }

    /// When the training that made the checkpoint of `step` read its replay window.
    ///
    /// # Errors
    /// An unreadable list.
    pub fn window_read_at(&self, step: u64) -> Result<Option<SystemTime>, FileError> {
        Ok(self
            .consumed_header(step, READ_AT_PREFIX)?
            .and_then(|seconds| seconds.parse::<f64>().ok())
            .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
            .map(|since_epoch| UNIX_EPOCH + since_epoch))
    }

    /// How many shards the folder held when the training that made the checkpoint of `step`
    /// read its window.
    ///
    /// # Errors
    /// An unreadable list.
    pub fn window_shard_count(&self, step: u64) -> Result<Option<usize>, FileError> {
        Ok(self
            .consumed_header(step, PRESENT_PREFIX)?
            .and_then(|count| count.parse().ok()))
    }

    /// The shards used by any training stage of a published checkpoint.
    ///
    /// # Errors
    /// An unreadable list.
    pub fn consumed(&self) -> Result<BTreeSet<String>, FileError> {
        let mut names = BTreeSet::new();
        for step in self.checkpoint_steps()? {
            let path = self.consumed_path(step);
            match std::fs::read_to_string(&path) {
                Ok(text) => names.extend(
                    text.lines()
                        .filter(|line| !line.is_empty() && !line.starts_with('#'))
                        .map(String::from),
                ),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(FileError::io(&path, error)),
            }
        }
        Ok(names)
    }

    /// Holds `<run>/training.lock` for as long as the returned file lives: one training at
    /// a time on a run, across processes and (on filesystems with working locks) machines.
    /// The operating system drops the lock of a killed trainer.
    ///
    /// # Errors
    /// Another process holds the lock, or the file cannot be opened.
    pub fn lock_training(&self) -> Result<std::fs::File, FileError> {
        let path = self.root.join("training.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| FileError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => Err(FileError::invalid(
                &path,
                "another trainer is training this run: run one trainer at a time",
            )),
            Err(std::fs::TryLockError::Error(error)) => Err(FileError::io(&path, error)),
        }
    }

    /// The marker the trainer leaves when the run's budget is spent.
    pub fn finished_path(&self) -> PathBuf {
        self.root.join("finished")
    }

    /// Whether the trainer has finished the run.
    pub fn is_finished(&self) -> bool {
        self.finished_path().exists()
    }

    /// The last checkpoint's step, as the `finished` marker names it; `None` while the run
    /// goes on.
    ///
    /// # Errors
    /// An unreadable or malformed marker.
    pub fn finished_step(&self) -> Result<Option<u64>, FileError> {
        let path = self.finished_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => text
                .trim()
                .strip_prefix("step ")
                .and_then(|step| step.parse().ok())
                .map(Some)
                .ok_or_else(|| FileError::invalid(&path, "expected `step N`")),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(FileError::io(&path, error)),
        }
    }

    /// Marks the run finished: workers and the evaluator stop after their current batch.
    ///
    /// # Errors
    /// When the marker cannot be written.
    pub fn mark_finished(&self, step: u64) -> Result<(), FileError> {
        self.write_text(&self.finished_path(), &format!("step {step}\n"))
    }

    /// The ids of the games already written for the checkpoint of `step`.
    ///
    /// # Errors
    /// An unreadable folder.
    pub fn games_of_step(&self, step: u64) -> Result<Vec<u64>, FileError> {
        self.games_with_prefix(&format!("step-{step:09}-game-"))
    }

    fn games_with_prefix(&self, prefix: &str) -> Result<Vec<u64>, FileError> {
        let mut games: Vec<u64> = file_names(&self.shards())?
            .iter()
            .filter_map(|name| {
                name.strip_prefix(prefix)?
                    .strip_suffix(".shard")?
                    .parse()
                    .ok()
            })
            .collect();
        games.sort_unstable();
        Ok(games)
    }

    /// Appends one record to the metrics file as one line in one write, so concurrent
    /// writers do not interleave and a kill leaves at most one partial last line, which
    /// [`RunDir::records`] skips.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn append(&self, record: &Record) -> Result<(), FileError> {
        let mut line = serde_json::to_string(record).expect("records serialise");
        line.push('\n');
        append_lines(&self.metrics_path(), &line, false)
    }

    /// Every complete record of the metrics file, in order (none when it does not exist).
    ///
    /// # Errors
    /// An unreadable file.
    pub fn records(&self) -> Result<Vec<Record>, FileError> {
        let path = self.metrics_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text
                .lines()
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(error) => Err(FileError::io(&path, error)),
        }
    }

    /// Writes a text file of the run atomically.
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn write_text(&self, path: &Path, text: &str) -> Result<(), FileError> {
        write_atomically(path, text.as_bytes()).map_err(|e| FileError::io(path, e))
    }
}

/// The last non-empty line of a text file, read from its end (a job's log may be large).
fn last_line(path: &Path) -> Result<String, FileError> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL_BYTES: u64 = 4096;
    let io = |e| FileError::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let length = file.metadata().map_err(io)?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES)))
        .map_err(io)?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).map_err(io)?;
    let text = String::from_utf8_lossy(&tail);
    let last = text.lines().rev().find(|line| !line.trim().is_empty());
    Ok(last.unwrap_or_default().trim().to_owned())
}

fn file_names(folder: &Path) -> Result<Vec<String>, FileError> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(FileError::io(folder, error)),
    };
    entries
        .map(|entry| {
            entry
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .map_err(|e| FileError::io(folder, e))
        })
        .collect()
}

/// One line of `metrics.jsonl`. `elapsed_seconds` is the run's own clock: the time its stages
/// have taken, summed over every process and resumption.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "lowercase")]
pub enum Record {
    /// Self-play games finished with one checkpoint.
    Selfplay {
        /// The checkpoint that played.
        step: u64,
        /// Games played by this stage.
        games: u64,
        /// Their positions (samples).
        positions: u64,
        /// Stage time.
        seconds: f64,
        /// Positions per second.
        positions_per_second: f64,
        /// Share of the games won by the first player, draws counting half.
        first_player_score: f64,
        /// Mean game length in decisions.
        mean_length: f64,
        /// Run time at the end of the stage.
        elapsed_seconds: f64,
        /// The worker that played them (`flipzero selfplay --worker`); none for the loop.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worker: Option<String>,
    },
    /// Training steps from one checkpoint to the next.
    Train {
        /// The step reached.
        step: u64,
        /// Steps taken by this stage.
        steps: u64,
        /// Samples in the replay window.
        window: usize,
        /// Mean losses over the stage's steps.
        policy_loss: f64,
        /// Mean win/draw/loss loss.
        wdl_loss: f64,
        /// Mean score loss.
        score_loss: f64,
        /// Learning rate of the last step.
        learning_rate: f64,
        /// Stage time.
        seconds: f64,
        /// Training samples per second.
        samples_per_second: f64,
        /// Run time at the end of the stage.
        elapsed_seconds: f64,
    },
    /// A match of the checkpoint of `step` against one opponent.
    Evaluate {
        /// The checkpoint.
        step: u64,
        /// The opponent as named in the config.
        opponent: String,
        /// Games played.
        games: usize,
        /// Won by the network.
        wins: usize,
        /// Drawn.
        draws: usize,
        /// Lost.
        losses: usize,
        /// The network's share of the points.
        score: f64,
        /// The network's mean final margin.
        mean_margin: f64,
        /// Against `perfect`: what the network kept of its openings' exact values.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        perfect: Option<PerfectPlayScore>,
        /// Stage time.
        seconds: f64,
        /// Run time at the end of the stage.
        elapsed_seconds: f64,
    },
    /// A shard that could not be read, moved into the run's quarantine folder.
    Quarantine {
        /// Its file name.
        shard: String,
        /// Why it could not be read.
        reason: String,
        /// Run time when it was moved.
        elapsed_seconds: f64,
    },
}

impl Record {
    /// Run time at the end of the stage.
    pub fn elapsed_seconds(&self) -> f64 {
        match self {
            Record::Selfplay {
                elapsed_seconds, ..
            }
            | Record::Train {
                elapsed_seconds, ..
            }
            | Record::Evaluate {
                elapsed_seconds, ..
            }
            | Record::Quarantine {
                elapsed_seconds, ..
            } => *elapsed_seconds,
        }
    }
}
