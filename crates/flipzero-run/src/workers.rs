//! Stages that run at the same time, as many processes (on one machine or a cluster's
//! nodes), on one shared run directory:
//!
//! - self-play workers, each with its own identity: between batches of games each picks up
//!   the newest published checkpoint; every game's shard carries the worker's name, so no
//!   two workers ever write the same file;
//! - the trainer: trains once enough new games have arrived, records which shards each
//!   training used, publishes the next checkpoint (the step is its version, increasing), and
//!   marks the run finished when the budget is spent;
//! - the evaluator: plays each due checkpoint's evaluation match once.
//!
//! Every file is written under a temporary name and renamed into place, so killing any
//! process at any moment leaves only whole files; a restarted process carries on from the
//! directory's contents.

use std::collections::{BTreeMap, BTreeSet};
use std::thread::sleep;
use std::time::Duration;

use flipzero_data::files::FileError;
use serde::Serialize;

use crate::stages::{EvaluateOptions, Progress, Run, RunError, mix};
use flipzero_rundir::{Record, RunDir, WorkerId};

/// The seed stream of a worker's games.
fn worker_seed(worker: &WorkerId) -> u64 {
    mix(&worker.as_str().bytes().map(u64::from).collect::<Vec<_>>())
}

/// How often a waiting stage looks at the directory again.
pub const POLL: Duration = Duration::from_millis(500);

impl Run {
    /// A self-play worker: plays batches of `batch` games with the newest checkpoint until
    /// the run is finished (or after `batches` batches). A restarted worker goes on numbering
    /// its games where its shards stop. `on_record` hears of each batch.
    ///
    /// # Errors
    /// A run without a checkpoint (`flipzero init` makes step 0), unreadable checkpoints,
    /// shards that cannot be written.
    pub fn self_play_worker(
        &self,
        worker: &WorkerId,
        batch: u64,
        batches: Option<u64>,
        progress: &dyn Progress,
        on_record: &mut dyn FnMut(&Record),
    ) -> Result<(), RunError> {
        let mut played = 0;
        while !self.dir().is_finished() && batches.is_none_or(|most| played < most) {
            let step = self.dir().latest_step()?.ok_or_else(|| {
                RunError::Mismatch(format!(
                    "{} has no checkpoint yet: `flipzero init` makes the first",
                    self.dir().root().display()
                ))
            })?;
            let next = self
                .dir()
                .games_of_worker(step, worker)?
                .last()
                .map_or(0, |last| last + 1);
            let ids: Vec<u64> = (next..next + batch).collect();
            let seed = mix(&[self.config().settings.seed, step, worker_seed(worker)]);
            let record = self.play_into(step, &ids, seed, Some(worker), progress)?;
            on_record(&record);
            played += 1;
        }
        Ok(())
    }

    /// The trainer of a run whose games come from workers: trains an iteration's steps each
    /// time an iteration's games have arrived since the last training, until the budget is
    /// spent; then marks the run finished. `on_record` hears of each training stage.
    ///
    /// # Errors
    /// As [`Run::train`].
    pub fn train_following(
        &self,
        progress: &dyn Progress,
        on_record: &mut dyn FnMut(&Record),
    ) -> Result<(), RunError> {
        self.reopen_if_budget_left()?;
        let games = self.config().settings.selfplay.games_per_iteration as usize;
        let steps = self.config().settings.train.steps_per_iteration;
        loop {
            let step = self.ensure_checkpoint()?;
            if self.should_stop(step) {
                self.dir().mark_finished(step)?;
                return Ok(());
            }
            // Shards leave the folder only when training quarantines them, and the count it
            // recorded leaves those out, so the games written since it read its window are
            // the count beyond the one it saw.
            let seen = self.dir().window_shard_count(step)?.unwrap_or(0);
            let fresh = self.dir().shard_names()?.len().saturating_sub(seen);
            if fresh < games {
                sleep(POLL);
                continue;
            }
            match self.train(steps, progress) {
                Ok(record) => on_record(&record),
                Err(RunError::NotEnoughSamples { .. }) => sleep(POLL),
                Err(error) => return Err(error),
            }
        }
    }

    /// The evaluator of a run trained by [`Run::train_following`]: plays the evaluation
    /// match of every checkpoint that is due and not yet evaluated, until the run is
    /// finished and its last due checkpoint evaluated.
    ///
    /// # Errors
    /// As [`Run::evaluate`].
    pub fn evaluate_following(
        &self,
        progress: &dyn Progress,
        on_record: &mut dyn FnMut(&Record),
    ) -> Result<(), RunError> {
        loop {
            // The marker names the last checkpoint, published before it; a shared filesystem
            // may show the marker first, so the run is over once that checkpoint is seen too.
            let last = self.dir().finished_step()?;
            let steps = self.dir().checkpoint_steps()?;
            let finished = last.is_some_and(|last| steps.contains(&last));
            for step in steps {
                if self.evaluation_due(step)? {
                    let options = EvaluateOptions {
                        step: Some(step),
                        ..EvaluateOptions::default()
                    };
                    for record in self.evaluate(&options, progress)? {
                        on_record(&record);
                    }
                }
            }
            if finished {
                return Ok(());
            }
            sleep(POLL);
        }
    }
}

impl Run {
    /// Removes a `finished` marker left by an earlier budget when the run's budget (as this
    /// process sees it: the config, or `--iterations`/`--minutes`) has room for more, so that
    /// workers and the evaluator go on. Returns whether it did.
    ///
    /// # Errors
    /// An unreadable checkpoint folder, a marker that cannot be removed.
    pub fn reopen_if_budget_left(&self) -> Result<bool, RunError> {
        let Some(step) = self.dir().latest_step()? else {
            return Ok(false);
        };
        if !self.dir().is_finished() || self.should_stop(step) {
            return Ok(false);
        }
        let marker = self.dir().finished_path();
        std::fs::remove_file(&marker).map_err(|e| FileError::io(&marker, e))?;
        Ok(true)
    }
}

/// A run directory summarised from its files alone (`flipzero cluster status`).
#[derive(Clone, Debug, Serialize)]
pub struct RunStatus {
    /// Whether the trainer has marked the run finished.
    pub finished: bool,
    /// Published checkpoints' steps, in order.
    pub checkpoints: Vec<u64>,
    /// Games (shard files) per player: `loop` or the worker's name.
    pub games_by_worker: BTreeMap<String, u64>,
    /// Games in all.
    pub games: u64,
    /// Positions (training samples) reported by the self-play records.
    pub samples: u64,
    /// Shards used by some training stage.
    pub consumed: usize,
    /// Shards written after the newest training read its window: trained on next (or never,
    /// once the run is finished: games that workers finished after the last training).
    pub waiting: usize,
    /// Shards written before the newest training read its window that no training used:
    /// the replay window was too small for what the workers produced. 0 in a healthy run.
    pub skipped: usize,
    /// Names in the trainer's lists that are not in the shard folder.
    pub missing: usize,
    /// The newest evaluation per opponent: (step, score, games).
    pub ratings: BTreeMap<String, (u64, f64, usize)>,
    /// Shards training moved out of the window because they could not be read.
    pub quarantined: Vec<String>,
    /// The Slurm jobs' logs, each with its last line.
    pub job_logs: Vec<(String, String)>,
}

/// The step and the player of a shard, from its name.
fn shard_origin(name: &str) -> Option<(u64, String)> {
    let rest = name.strip_prefix("step-")?;
    let (step, rest) = rest.split_at_checked(9)?;
    let step: u64 = step.parse().ok()?;
    let player = match rest.strip_prefix("-w-") {
        Some(worker) => worker.rsplit_once("-game-")?.0.to_owned(),
        None => "loop".to_owned(),
    };
    Some((step, player))
}

/// Summarises a run directory.
///
/// # Errors
/// Unreadable folders or files.
pub fn run_status(dir: &RunDir) -> Result<RunStatus, FileError> {
    let checkpoints = dir.checkpoint_steps()?;
    let newest = checkpoints.last().copied().unwrap_or(0);
    let shards = dir.shard_names()?;
    let consumed = dir.consumed()?;
    let present: BTreeSet<&String> = shards.iter().collect();
    let mut status = RunStatus {
        finished: dir.is_finished(),
        checkpoints: checkpoints.clone(),
        games_by_worker: BTreeMap::new(),
        games: shards.len() as u64,
        samples: 0,
        consumed: 0,
        waiting: 0,
        skipped: 0,
        missing: consumed.iter().filter(|n| !present.contains(n)).count(),
        ratings: BTreeMap::new(),
        quarantined: dir.quarantined_shards()?,
        job_logs: dir.job_log_tails()?,
    };
    // A rename keeps the time the shard was written; a second of slack covers renames that
    // land just after a window was read.
    let last_read = dir
        .window_read_at(newest)?
        .map(|read| read - Duration::from_secs(1));
    for name in &shards {
        let Some((_, player)) = shard_origin(name) else {
            continue;
        };
        *status.games_by_worker.entry(player).or_default() += 1;
        if consumed.contains(name) {
            status.consumed += 1;
            continue;
        }
        let path = dir.shards().join(name);
        let written = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .map_err(|e| FileError::io(&path, e))?;
        match last_read {
            Some(read) if written < read => status.skipped += 1,
            _ => status.waiting += 1,
        }
    }
    for record in dir.records()? {
        match record {
            Record::Selfplay { positions, .. } => status.samples += positions,
            Record::Evaluate {
                step,
                opponent,
                score,
                games,
                ..
            } => {
                status.ratings.insert(opponent, (step, score, games));
            }
            Record::Train { .. } | Record::Quarantine { .. } => {}
        }
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_names_are_checked_and_parsed_back_from_shard_names() {
        assert!(WorkerId::new("7781.3").is_ok());
        assert!(WorkerId::new("local-0").is_ok());
        for bad in ["", "a/b", "x y", &"w".repeat(65)] {
            assert!(WorkerId::new(bad).is_err(), "{bad}");
        }
        let dir = RunDir::new("/run");
        let worker = WorkerId::new("7781.3").unwrap();
        let path = dir.worker_shard_path(400, &worker, 17);
        let name = path.file_name().unwrap().to_str().unwrap();
        assert_eq!(name, "step-000000400-w-7781.3-game-000017.shard");
        assert_eq!(shard_origin(name), Some((400, "7781.3".to_owned())));
        let loop_name = dir.shard_path(12, 3);
        let loop_name = loop_name.file_name().unwrap().to_str().unwrap();
        assert_eq!(shard_origin(loop_name), Some((12, "loop".to_owned())));
        assert_eq!(shard_origin("notes.txt"), None);
    }
}
