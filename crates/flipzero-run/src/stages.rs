//! The stages of a run and the loop that alternates them.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Instant;

use burn::tensor::Device;
use flipzero_arena::competition::saved_game;
use flipzero_arena::{
    AgentFactory, AgentSpec, AnySuite, ExactCache, ExactError, MctsSpec, NamedAgentSpec,
    OpeningFilter, PerfectPlayScore,
};
use flipzero_core::{AnyGame, Outcome, Rules, RulesSpec};
use flipzero_data::files::FileError;
use flipzero_data::saved_game::{SavedGame, append_saved_games};
use flipzero_data::{ENCODER_VERSION, Sample, ShardHeader, replay_window, write_shard};
use flipzero_engine::WeightsFile;
use flipzero_mcts::PlaySettings;
use flipzero_nn::{NetConfig, NetEvaluator, PolicyValueNet, checkpoint};
use flipzero_selfplay::{SelfPlayConfig, play_parallel};
use flipzero_train::{SampleError, Trainer};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::{RunConfig, Schedule, ValidConfig};
use flipzero_rundir::{Record, RunDir, WindowRead, WorkerId};

/// Hears how far a stage has come (the command line draws bars from it).
pub trait Progress: Sync {
    /// A stage starts with `total` units of work (games or steps).
    fn begin(&self, stage: &str, total: u64);
    /// Some units are done.
    fn advance(&self, units: u64);
    /// The stage is over.
    fn end(&self);
}

/// Progress that nobody watches.
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn end(&self) {}
}

/// What can stop a stage.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file of the run (config, checkpoint, shard, metrics).
    #[error(transparent)]
    File(#[from] FileError),
    /// A training sample that does not fit the rules.
    #[error("training: {0}")]
    Sample(#[from] SampleError),
    /// The directory holds another run.
    #[error("{0}")]
    Mismatch(String),
    /// A checkpoint of the run that is damaged (cut short, changed on disk): the run cannot
    /// go on from it, and nothing is changed.
    #[error(
        "{0} (a damaged checkpoint: move it aside, out of checkpoints/, to resume the run from the one before it)"
    )]
    DamagedCheckpoint(FileError),
    /// An evaluation opponent that cannot be prepared.
    #[error("opponent: {0}")]
    Opponent(String),
    /// Exact values that cannot be had (rules the solver does not cover, their cache file).
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// The learning rate is scheduled over a budget the run does not have.
    #[error(
        "train.schedule = \"budget\" needs a budget: set [loop] minutes or iterations, or pass --minutes or --iterations"
    )]
    NoBudget,
    /// Too few samples to train on.
    #[error(
        "the replay window holds {have} samples, fewer than one batch of {need}: play more games first"
    )]
    NotEnoughSamples {
        /// Samples found.
        have: usize,
        /// One batch.
        need: usize,
    },
}

/// What an evaluation changes from the config.
#[derive(Clone, Debug, Default)]
pub struct EvaluateOptions {
    /// The checkpoint's step (the newest when `None`).
    pub step: Option<u64>,
    /// Openings, each played with both colours.
    pub openings: Option<usize>,
    /// Random plies from the start that make each opening (a number drawn per opening from
    /// the range).
    pub opening_plies: Option<std::ops::RangeInclusive<u32>>,
    /// Keep only openings that the classical engine (depth 6) scores within this many discs
    /// of even (docs/RULES.md section 5.2): random plies can leave one side lost by force.
    pub balanced_margin: Option<f64>,
    /// Keep only openings whose exact value (solved, and cached in the run directory) is
    /// within this many discs of a draw.
    pub exact_within: Option<i32>,
    /// The seed the openings are drawn from; the config's seed when `None`. Runs of other
    /// seeds are measured on the same openings by giving them one seed here.
    pub opening_seed: Option<u64>,
    /// Exact solver values at the network's leaves from this many empties (0: its own
    /// play); the config's when `None`.
    pub solve_empties: Option<u32>,
    /// The network's tree policy; the config's when `None`.
    pub search: Option<flipzero_mcts::SearchKind>,
    /// Average the network's evaluations over every board symmetry.
    pub every_symmetry: bool,
    /// Opponents, as `random` or `engine:depth=N`.
    pub opponents: Option<Vec<NamedAgentSpec>>,
    /// Simulations per decision of the network's agent.
    pub simulations: Option<u32>,
    /// Append every game to this file, one JSON object per line
    /// (`flipzero_arena::competition::SavedGame`).
    pub games: Option<std::path::PathBuf>,
}

/// A run: its directory, its checked config, the device its networks run on and its clock.
pub struct Run {
    dir: RunDir,
    config: ValidConfig,
    device: Device,
    /// Run time already spent by earlier stages (from the metrics file).
    clock_base: f64,
    started: Instant,
    /// This process's CPU time when the run was opened, for a CPU clock.
    cpu_started: f64,
}

/// This process's CPU time, all threads, in seconds.
fn process_cpu_seconds() -> f64 {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// A checkpoint that cannot be read: one the file system refused as it is, a damaged one
/// with the way out.
fn checkpoint_error(error: FileError) -> RunError {
    match error {
        FileError::Invalid { .. } => RunError::DamagedCheckpoint(error),
        FileError::Io { .. } => RunError::File(error),
    }
}

/// A stream of numbers mixed into one seed.
pub(crate) fn mix(values: &[u64]) -> u64 {
    values.iter().fold(0x243f_6a88_85a3_08d3, |seed, &value| {
        flipzero_core::hash::mix64(seed ^ value)
    })
}

impl Run {
    /// Starts a run in `dir` from a config file, or resumes the run already there. The
    /// directory's copy of the config is replaced by the given one, which must keep the
    /// rules and the network of the run.
    ///
    /// # Errors
    /// A bad config, a directory that holds a run of other rules or another network, or
    /// files that cannot be written.
    pub fn start(
        dir: RunDir,
        config_path: &std::path::Path,
        device: Device,
    ) -> Result<Self, RunError> {
        let text =
            std::fs::read_to_string(config_path).map_err(|e| FileError::io(config_path, e))?;
        let config = RunConfig::parse(&text, &config_path.display().to_string())?;
        if dir.config_path().exists() {
            let stored = Self::open(dir.clone(), device.clone())?;
            if let Err(mismatch) = config
                .rules
                .spec()
                .check_file_rules(stored.config.rules.spec())
            {
                return Err(RunError::Mismatch(format!(
                    "{} holds a run of other rules than {} (they differ in {}): use another \
                     run directory",
                    dir.root().display(),
                    config_path.display(),
                    mismatch.differences()
                )));
            }
            if stored.config.settings.network != config.settings.network {
                return Err(RunError::Mismatch(format!(
                    "{} holds a run with another network shape than {}: use another run \
                     directory",
                    dir.root().display(),
                    config_path.display()
                )));
            }
        }
        dir.create()?;
        dir.write_text(&dir.config_path(), &text)?;
        dir.write_text(&dir.rules_path(), &config.rules.to_toml())?;
        // What was just written is what `open` would read back: the parsed config serves.
        Self::with_config(dir, config, device)
    }

    /// Opens the run in `dir` with the config and the rules stored there.
    ///
    /// # Errors
    /// A missing or bad config, an unreadable metrics file.
    pub fn open(dir: RunDir, device: Device) -> Result<Self, RunError> {
        let config = RunConfig::load_in_run(&dir.config_path(), &dir.rules_path())?;
        Self::with_config(dir, config, device)
    }

    /// The run in `dir` with its config read; its clock goes on from the metrics' latest.
    fn with_config(dir: RunDir, config: ValidConfig, device: Device) -> Result<Self, RunError> {
        let clock_base = dir
            .records()?
            .iter()
            .map(Record::elapsed_seconds)
            .fold(0.0, f64::max);
        Ok(Self {
            dir,
            config,
            device,
            clock_base,
            started: Instant::now(),
            cpu_started: process_cpu_seconds(),
        })
    }

    /// Replaces the loop's budget when either is given (`--iterations`, `--minutes`): the
    /// config's budget then no longer counts, so `--iterations 350` on a config of 60 minutes
    /// runs 350 iterations, and the budget schedule decays over them. Given both, the run
    /// stops at whichever comes first.
    pub fn set_stop(&mut self, iterations: Option<u64>, minutes: Option<f64>) {
        if iterations.is_some() || minutes.is_some() {
            let stop = &mut self.config.settings.stop;
            stop.iterations = iterations;
            stop.minutes = minutes;
        }
    }

    /// The directory.
    pub fn dir(&self) -> &RunDir {
        &self.dir
    }

    /// The config.
    pub fn config(&self) -> &ValidConfig {
        &self.config
    }

    pub(crate) fn rules(&self) -> &Rules {
        &self.config.rules
    }

    /// Run time: earlier stages' time plus this process's (wall-clock time, or CPU time per
    /// core under `[loop] cpu_clock_cores`).
    pub fn elapsed_seconds(&self) -> f64 {
        let spent = match self.config.settings.stop.cpu_clock_cores {
            Some(cores) => (process_cpu_seconds() - self.cpu_started) / f64::from(cores),
            None => self.started.elapsed().as_secs_f64(),
        };
        self.clock_base + spent
    }

    pub(crate) fn shard_header(&self, writer: String) -> ShardHeader {
        ShardHeader {
            rules: self.rules().spec().clone(),
            encoder_version: ENCODER_VERSION,
            games: 1,
            writer,
        }
    }

    /// The newest checkpoint's step, writing a freshly initialised network as step 0 when
    /// the run has none.
    ///
    /// # Errors
    /// When the checkpoint cannot be written or the folder read.
    pub fn ensure_checkpoint(&self) -> Result<u64, RunError> {
        if let Some(step) = self.dir.latest_step()? {
            return Ok(step);
        }
        self.dir.create()?;
        let trainer = Trainer::new(
            self.rules(),
            &self.config.net_config(),
            self.config.train_config(),
            &self.device,
        );
        trainer.save(&self.dir.checkpoint_path(0))?;
        Ok(0)
    }

    /// The network of the checkpoint of `step`, checked against the run.
    pub(crate) fn load_net(&self, step: u64) -> Result<PolicyValueNet, RunError> {
        let path = self.dir.checkpoint_path(step);
        let loaded = checkpoint::load(&path, &self.device).map_err(checkpoint_error)?;
        self.check_checkpoint(step, &loaded.meta.rules, &loaded.meta.net)?;
        Ok(loaded.net)
    }

    /// Refuses a checkpoint of other rules or another network than the run's config: the
    /// trainer and self-play then both follow the run's rules.
    fn check_checkpoint(
        &self,
        step: u64,
        rules: &RulesSpec,
        net: &NetConfig,
    ) -> Result<(), RunError> {
        let path = self.dir.checkpoint_path(step);
        if let Err(mismatch) = self.rules().spec().check_file_rules(rules) {
            return Err(RunError::Mismatch(format!(
                "{}: {mismatch}, not the run config's",
                path.display()
            )));
        }
        if *net != self.config.net_config() {
            return Err(RunError::Mismatch(format!(
                "{}: written for another network than the run config's",
                path.display()
            )));
        }
        Ok(())
    }

    /// Self-play with the newest checkpoint until it has played `games` games (ids 0 to
    /// games - 1); games already in the run are not played again. Returns the stage's record,
    /// or `None` when nothing was left to play.
    ///
    /// # Errors
    /// Unreadable checkpoints, shards that cannot be written.
    pub fn self_play(
        &self,
        games: u64,
        progress: &dyn Progress,
    ) -> Result<Option<Record>, RunError> {
        let step = self.ensure_checkpoint()?;
        let done: HashSet<u64> = self.dir.games_of_step(step)?.into_iter().collect();
        let missing: Vec<u64> = (0..games).filter(|id| !done.contains(id)).collect();
        if missing.is_empty() {
            return Ok(None);
        }
        let seed = mix(&[self.config.settings.seed, step]);
        let record = self.play_into(step, &missing, seed, None, progress)?;
        Ok(Some(record))
    }

    /// Plays the games `ids` with the checkpoint of `step` (game `id` seeded by `seed + id`),
    /// writing each game's shard the moment it ends: the loop's name for it, or the
    /// worker's; appends and returns the stage's record.
    pub(crate) fn play_into(
        &self,
        step: u64,
        ids: &[u64],
        seed: u64,
        worker: Option<&WorkerId>,
        progress: &dyn Progress,
    ) -> Result<Record, RunError> {
        let net = self.load_net(step)?;
        let rules = self.rules();
        let play = &self.config.settings.selfplay;
        let config = SelfPlayConfig {
            games: ids.len(),
            mcts: self.config.selfplay_mcts(),
            seed,
            ..play.play.clone()
        };
        let writer = match worker {
            Some(worker) => format!("selfplay worker {worker}, checkpoint step {step}"),
            None => format!("selfplay, checkpoint step {step}"),
        };
        let header = self.shard_header(writer);
        let shard_path = |id: u64| match worker {
            Some(worker) => self.dir.worker_shard_path(step, worker, id),
            None => self.dir.shard_path(step, id),
        };
        let started = Instant::now();
        #[derive(Default)]
        struct Tally {
            games: u64,
            positions: u64,
            first_player_points: f64,
            error: Option<FileError>,
        }
        let tally = Mutex::new(Tally::default());
        progress.begin("self-play", ids.len() as u64);
        play_parallel(
            rules,
            &config,
            ids,
            play.workers,
            |_| NetEvaluator::new(rules, &net, &self.device),
            |id, record| {
                let written = write_shard(&shard_path(id), &header, &record.samples);
                let mut tally = tally.lock().expect("no panics while counting");
                match written {
                    Ok(()) => {
                        tally.games += 1;
                        tally.positions += record.samples.len() as u64;
                        let start = AnyGame::from_text(rules, &record.start)
                            .expect("self-play writes readable starts");
                        tally.first_player_points += match record.outcome {
                            Outcome::Win(color) if color == start.side_to_move() => 1.0,
                            Outcome::Win(_) => 0.0,
                            Outcome::Draw => 0.5,
                        };
                    }
                    Err(error) => {
                        tally.error.get_or_insert(error);
                    }
                }
                progress.advance(1);
            },
        );
        progress.end();
        let tally = tally.into_inner().expect("no panics while counting");
        if let Some(error) = tally.error {
            return Err(error.into());
        }
        let seconds = started.elapsed().as_secs_f64();
        let record = Record::Selfplay {
            step,
            games: tally.games,
            positions: tally.positions,
            seconds,
            positions_per_second: tally.positions as f64 / seconds,
            first_player_score: tally.first_player_points / tally.games.max(1) as f64,
            mean_length: tally.positions as f64 / tally.games.max(1) as f64,
            elapsed_seconds: self.elapsed_seconds(),
            worker: worker.map(ToString::to_string),
        };
        self.dir.append(&record)?;
        Ok(record)
    }

    /// Trains `steps` optimizer steps from the newest checkpoint on its replay window and
    /// writes the next checkpoint.
    ///
    /// # Errors
    /// Unreadable checkpoints or shards, too few samples, a sample that does not fit.
    pub fn train(&self, steps: u64, progress: &dyn Progress) -> Result<Record, RunError> {
        let _one_trainer = self.dir.lock_training()?;
        let step = self.ensure_checkpoint()?;
        let train = &self.config.settings.train;
        let mut trainer_config = self.config.train_config();
        // Each stage draws other symmetries than the last.
        trainer_config.seed = mix(&[self.config.settings.seed, step, 1]);
        let mut trainer = Trainer::load(
            &self.dir.checkpoint_path(step),
            trainer_config,
            &self.device,
        )
        .map_err(checkpoint_error)?;
        self.check_checkpoint(step, trainer.rules().spec(), trainer.net_config())?;
        let header = self.shard_header(String::new());
        let mut window_read = WindowRead {
            at: std::time::SystemTime::now(),
            shards_present: self.dir.shard_names()?.len(),
        };
        let replay = replay_window(&self.dir.shards(), train.window_samples, &header)?;
        // A damaged shard may have been written after the count.
        window_read.shards_present = window_read
            .shards_present
            .saturating_sub(replay.unreadable.len());
        for (shard, reason) in &replay.unreadable {
            // Moved aside so that it stops costing every later stage a read, and recorded.
            let shard = self.dir.quarantine_shard(shard)?;
            self.dir.append(&Record::Quarantine {
                shard,
                reason: reason.clone(),
                elapsed_seconds: self.elapsed_seconds(),
            })?;
        }
        let (window, used) = (replay.samples, replay.used);
        if window.len() < train.batch_size {
            return Err(RunError::NotEnoughSamples {
                have: window.len(),
                need: train.batch_size,
            });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(mix(&[self.config.settings.seed, step, 2]));
        let started = Instant::now();
        let mut sums = [0.0f64; 3];
        progress.begin("training", steps);
        for _ in 0..steps {
            if train.schedule == Schedule::Budget {
                // The share spent once this step is done: the last step of the budget
                // trains at the floor.
                let spent = self
                    .budget_spent(trainer.step() + 1)
                    .ok_or(RunError::NoBudget)?;
                trainer.set_budget_progress(Some(spent));
            }
            let batch: Vec<Sample> = (0..train.batch_size)
                .map(|_| window[rng.random_range(0..window.len())].clone())
                .collect();
            let losses = trainer.train_step(&batch)?;
            sums[0] += f64::from(losses.policy);
            sums[1] += f64::from(losses.wdl);
            sums[2] += f64::from(losses.score);
            progress.advance(1);
        }
        progress.end();
        let used: Vec<String> = used
            .iter()
            .filter_map(|path| path.file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        self.dir
            .write_consumed(trainer.step(), &window_read, &used)?;
        trainer.save(&self.dir.checkpoint_path(trainer.step()))?;
        let seconds = started.elapsed().as_secs_f64();
        let mean = |sum: f64| sum / steps.max(1) as f64;
        let record = Record::Train {
            step: trainer.step(),
            steps,
            window: window.len(),
            policy_loss: mean(sums[0]),
            wdl_loss: mean(sums[1]),
            score_loss: mean(sums[2]),
            learning_rate: trainer
                .last_learning_rate()
                .unwrap_or_else(|| trainer.learning_rate()),
            seconds,
            samples_per_second: (steps as usize * train.batch_size) as f64 / seconds,
            elapsed_seconds: self.elapsed_seconds(),
        };
        self.dir.append(&record)?;
        Ok(record)
    }

    /// Plays a checkpoint (the newest unless `options` names one) against each opponent
    /// over the same paired openings; what `options` leaves out comes from the config.
    ///
    /// # Errors
    /// An opponent that cannot be parsed, unreadable checkpoints, a metrics file that cannot
    /// be written.
    pub fn evaluate(
        &self,
        options: &EvaluateOptions,
        progress: &dyn Progress,
    ) -> Result<Vec<Record>, RunError> {
        let step = match options.step {
            Some(step) => step,
            None => self.ensure_checkpoint()?,
        };
        let net = self.load_net(step)?;
        let rules = self.rules();
        let evaluate = &self.config.settings.evaluate;
        let count = options.openings.unwrap_or(evaluate.openings);
        let specs = options.opponents.as_ref().unwrap_or(&evaluate.opponents);
        let opponents: Vec<AgentFactory> = specs
            .iter()
            .map(|named| {
                AgentFactory::new(&named.spec, rules, &self.device).map_err(|e| e.to_string())
            })
            .collect::<Result<_, String>>()
            .map_err(RunError::Opponent)?;
        // The same openings at every checkpoint, so scores compare along the run.
        let plies = options
            .opening_plies
            .clone()
            .unwrap_or(evaluate.opening_plies..=evaluate.opening_plies);
        let opening_seed = options.opening_seed.unwrap_or(self.config.settings.seed);
        let seed = mix(&[opening_seed, 3]);
        let weights = WeightsFile::embedded()
            .weights_for(rules, "embedded weights")
            .map_err(|e| RunError::Opponent(e.to_string()))?;
        let against_perfect = specs.iter().any(|named| named.spec == AgentSpec::Perfect);
        let mut exact = if options.exact_within.is_some() || against_perfect {
            let path = self.dir.exact_values_path();
            Some(ExactCache::open(rules, Some(&path))?)
        } else {
            None
        };
        let filter = match (
            options.exact_within,
            options.balanced_margin,
            exact.as_mut(),
        ) {
            (Some(within_discs), _, Some(cache)) => OpeningFilter::Exact {
                cache,
                within_discs,
            },
            (_, Some(margin_discs), _) => OpeningFilter::Balanced {
                weights: &weights,
                depth: 6,
                margin_discs,
            },
            _ => OpeningFilter::All,
        };
        let suite = AnySuite::draw(rules, count, plies, filter, seed)?;
        if let Some(cache) = exact.as_mut() {
            suite.solve_into(rules, cache)?;
        }
        let positions = suite.positions();
        let mcts = self.config.evaluate_mcts();
        let network = AgentFactory::with_network(
            &AgentSpec::Mcts(MctsSpec {
                checkpoint: None,
                play: PlaySettings {
                    simulations: options.simulations.unwrap_or(mcts.simulations),
                    solve_empties: options.solve_empties.unwrap_or(mcts.solve_empties),
                    search: options.search.unwrap_or(mcts.search),
                    ..mcts.play_settings()
                },
                time: None,
                c_puct: mcts.c_puct,
                every_symmetry: options.every_symmetry,
            }),
            rules,
            weights,
            Some((net, self.device.clone())),
        );
        let mut records = Vec::new();
        for (named, opponent) in specs.iter().zip(&opponents) {
            let text = &named.name;
            let started = Instant::now();
            progress.begin(&format!("vs {text}"), 2 * suite.len() as u64);
            let result = suite.play_paired(rules, &network, opponent, |_| progress.advance(1));
            progress.end();
            if let Some(path) = &options.games {
                let network_name = format!("network step {step}");
                let saved: Vec<SavedGame> = result
                    .games
                    .iter()
                    .enumerate()
                    .map(|(index, game)| {
                        saved_game(
                            &self.config.settings.variant,
                            self.config.settings.size,
                            rules,
                            &positions[index / 2],
                            (&network_name, text),
                            game,
                        )
                    })
                    .collect();
                append_saved_games(path, &saved)?;
            }
            let record = Record::Evaluate {
                step,
                opponent: text.clone(),
                games: result.games.len(),
                wins: result.wins(),
                draws: result.draws(),
                losses: result.losses(),
                score: result.score(),
                mean_margin: result.mean_margin(),
                perfect: exact
                    .as_ref()
                    .filter(|_| named.spec == AgentSpec::Perfect)
                    .map(|cache| {
                        PerfectPlayScore::of_match(rules, cache, &positions, &result.games)
                    }),
                seconds: started.elapsed().as_secs_f64(),
                elapsed_seconds: self.elapsed_seconds(),
            };
            self.dir.append(&record)?;
            records.push(record);
        }
        Ok(records)
    }

    /// Whether the checkpoint of `step` has been evaluated against every opponent.
    fn evaluated(&self, step: u64) -> Result<bool, RunError> {
        let done: HashSet<String> = self
            .dir
            .records()?
            .into_iter()
            .filter_map(|record| match record {
                Record::Evaluate {
                    step: at, opponent, ..
                } if at == step => Some(opponent),
                _ => None,
            })
            .collect();
        Ok(self
            .config
            .settings
            .evaluate
            .opponents
            .iter()
            .all(|opponent| done.contains(&opponent.name)))
    }

    /// Iterations finished: training stages of the loop's size since step 0.
    fn iteration_of(&self, step: u64) -> u64 {
        step / self.config.settings.train.steps_per_iteration
    }

    pub(crate) fn evaluation_due(&self, step: u64) -> Result<bool, RunError> {
        let evaluate = &self.config.settings.evaluate;
        let iteration = self.iteration_of(step);
        Ok(evaluate.every_iterations > 0
            && evaluate.openings > 0
            && !evaluate.opponents.is_empty()
            && iteration > 0
            && iteration.is_multiple_of(evaluate.every_iterations)
            && !self.evaluated(step)?)
    }

    /// The share of the run's budget spent when `step` optimizer steps are done: run time
    /// against `[loop] minutes`, steps against `[loop] iterations` of training, the larger
    /// where both are set; `None` without a budget.
    pub(crate) fn budget_spent(&self, step: u64) -> Option<f64> {
        let stop = &self.config.settings.stop;
        let by_time = stop
            .minutes
            .map(|minutes| self.elapsed_seconds() / (minutes * 60.0).max(1e-9));
        let by_steps = stop.iterations.map(|iterations| {
            step as f64
                / (iterations * self.config.settings.train.steps_per_iteration).max(1) as f64
        });
        match (by_time, by_steps) {
            (Some(time), Some(steps)) => Some(time.max(steps)),
            (one, other) => one.or(other),
        }
    }

    pub(crate) fn should_stop(&self, step: u64) -> bool {
        let stop = &self.config.settings.stop;
        stop.iterations
            .is_some_and(|most| self.iteration_of(step) >= most)
            || stop
                .minutes
                .is_some_and(|minutes| self.elapsed_seconds() >= minutes * 60.0)
    }

    /// Self-play, training and evaluation in turn until the config's budget is spent,
    /// resuming wherever the run stopped: the newest checkpoint's missing games are played,
    /// and an evaluation that was cut short is run again. `on_iteration` gets the records of
    /// each finished iteration.
    ///
    /// # Errors
    /// As the stages.
    pub fn run_loop(
        &self,
        progress: &dyn Progress,
        mut on_iteration: impl FnMut(u64, &[Record]),
    ) -> Result<(), RunError> {
        loop {
            let step = self.ensure_checkpoint()?;
            let mut records = Vec::new();
            if self.evaluation_due(step)? {
                records.extend(self.evaluate(&EvaluateOptions::default(), progress)?);
                on_iteration(self.iteration_of(step), &records);
                records.clear();
            }
            if self.should_stop(step) {
                return Ok(());
            }
            let play = &self.config.settings.selfplay;
            let train = &self.config.settings.train;
            let mut games = play.games_per_iteration;
            records.extend(self.self_play(games, progress)?);
            // Too few samples for a batch (short games, a big batch): play more first.
            let trained = loop {
                match self.train(train.steps_per_iteration, progress) {
                    Err(RunError::NotEnoughSamples { .. }) => {
                        games += play.games_per_iteration;
                        records.extend(self.self_play(games, progress)?);
                    }
                    other => break other?,
                }
            };
            records.push(trained);
            let step = self.ensure_checkpoint()?;
            if self.evaluation_due(step)? {
                records.extend(self.evaluate(&EvaluateOptions::default(), progress)?);
            }
            on_iteration(self.iteration_of(step), &records);
        }
    }
}
