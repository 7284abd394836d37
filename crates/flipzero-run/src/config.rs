//! The run config: one TOML file (`configs/runs/*.toml`) that says which rules to learn, the
//! network's shape, and how to play, train and evaluate. Unknown keys are refused; every
//! number is checked against a sensible range and a bad one is named.

use std::path::Path;

use flipzero_arena::NamedAgentSpec;
use flipzero_core::Rules;
use flipzero_data::files::FileError;
use flipzero_mcts::{MctsConfig, PlaySettings};
use flipzero_nn::Tower;
use flipzero_selfplay::SelfPlayConfig;
use flipzero_train::TrainConfig;
use serde::{Deserialize, Serialize};

/// The whole config, as written in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// A variant preset name (`flipzero variants`) or a rules TOML file.
    pub variant: String,
    /// Board side, where the preset allows another.
    #[serde(default)]
    pub size: Option<u8>,
    /// Seed of everything the run draws at random (game starts, searches, batches).
    #[serde(default)]
    pub seed: u64,
    /// The network's tower and heads (its input and outputs follow from the rules).
    pub network: Tower,
    /// Self-play.
    pub selfplay: SelfPlaySection,
    /// Training.
    pub train: TrainSection,
    /// The quick evaluation match after training.
    pub evaluate: EvaluateSection,
    /// When `flipzero loop` stops.
    #[serde(default, rename = "loop")]
    pub stop: StopSection,
}

/// Self-play settings: the loop's own, then those of [`SelfPlayConfig`] and its search
/// ([`flipzero_mcts::MctsConfig`]), written as keys of the same table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfPlaySection {
    /// Games per iteration of the loop.
    pub games_per_iteration: u64,
    /// Worker threads, each with its own copy of the network.
    pub workers: usize,
    /// How each game is played and searched.
    #[serde(flatten)]
    pub play: SelfPlayConfig,
}

/// Training settings: the loop's own, then the optimiser's ([`TrainConfig`]), written as
/// keys of the same table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainSection {
    /// Samples per optimizer step.
    pub batch_size: usize,
    /// Optimizer steps per iteration of the loop.
    pub steps_per_iteration: u64,
    /// The replay window: the newest samples trained on.
    pub window_samples: usize,
    /// What the cosine decay runs over: `steps` (`decay_steps` optimizer steps) or `budget`
    /// (the loop's budget of minutes or iterations, so that the floor is reached when the run
    /// ends, however fast the machine).
    #[serde(default)]
    pub schedule: Schedule,
    /// The optimiser.
    #[serde(flatten)]
    pub optimizer: TrainConfig,
}

/// What the learning rate's cosine decay runs over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// `decay_steps` optimizer steps after the warm-up.
    #[default]
    Steps,
    /// The run's budget (`[loop]` minutes or iterations, or the command line's).
    Budget,
}

/// The evaluation match run after each training stage. Its search keys are the few in which
/// the network's agent differs from self-play's search (`flipzero_mcts::PlaySettings`, read
/// through serde's `flatten`; `ValidConfig::evaluate_mcts`); every other search setting
/// (`c_puct`, ...) is self-play's, so that the two cannot drift apart. Unknown keys are
/// refused by `refuse_unknown_keys`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluateSection {
    /// Evaluate after every this many iterations (0: never).
    pub every_iterations: u64,
    /// Openings per opponent; each is played with both colours.
    pub openings: usize,
    /// Random plies from the start that make each opening.
    pub opening_plies: u32,
    /// How the network's agent searches: `simulations`, `solve_empties`, `search`,
    /// `considered_actions`, `score_utility`.
    #[serde(flatten)]
    pub network: PlaySettings,
    /// Opponents: `random`, `engine:depth=N` and the other agents' forms, parsed when the
    /// file is read; each keeps its text as its name in the metrics.
    pub opponents: Vec<NamedAgentSpec>,
}

/// Budget of `flipzero loop` (the first reached stops it; none: until interrupted).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopSection {
    /// Stop when the run has this many iterations (counted over resumptions).
    pub iterations: Option<u64>,
    /// Stop after the iteration that passes this many minutes of run time.
    pub minutes: Option<f64>,
    /// When set, the run's clock is this process's CPU time divided by this many cores: the
    /// time the run would take with that many cores to itself, so that a budget of minutes
    /// buys the same work when the machine is shared (the variant study's equal budgets).
    /// Unset: wall-clock time. Workers in other processes are not counted.
    #[serde(default)]
    pub cpu_clock_cores: Option<u32>,
}

/// Refuses keys of the file that no setting took. The tables that take their keys from the
/// lower crates' configs (`[selfplay]`, `[train]`, through serde's `flatten`) cannot refuse
/// unknown keys themselves, so the file's keys are compared with those of the config as read
/// and written back: a key the config does not write back is one it did not read.
fn refuse_unknown_keys(text: &str, config: &RunConfig) -> Result<(), String> {
    let written: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let read = toml::Table::try_from(config).map_err(|e| e.to_string())?;
    let mut unknown = Vec::new();
    unknown_keys(&written, &read, "", &mut unknown);
    match unknown.first() {
        None => Ok(()),
        Some(first) => Err(first.clone()),
    }
}

/// The keys of `written` missing from `read`, each with the keys its table does take.
fn unknown_keys(written: &toml::Table, read: &toml::Table, prefix: &str, found: &mut Vec<String>) {
    for (key, value) in written {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (value, read.get(key)) {
            (_, None) => {
                let known: Vec<&str> = read.keys().map(String::as_str).collect();
                found.push(format!(
                    "unknown key `{path}` (the table takes {})",
                    known.join(", ")
                ));
            }
            (toml::Value::Table(inner), Some(toml::Value::Table(read_inner))) => {
                unknown_keys(inner, read_inner, &path, found);
            }
            _ => {}
        }
    }
}

/// A checked config with its rules resolved.
#[derive(Clone, Debug)]
pub struct ValidConfig {
    /// The settings as written in the file.
    pub settings: RunConfig,
    /// The rules it names.
    pub rules: Rules,
}

impl RunConfig {
    /// Reads and checks a config file.
    ///
    /// # Errors
    /// An unreadable file, bad TOML, an unknown key, a value out of range, unknown rules or
    /// an opponent that cannot be parsed: each named.
    pub fn load(path: &Path) -> Result<ValidConfig, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::io(path, source))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Checks a config's text; `name` names it in errors.
    ///
    /// # Errors
    /// As [`RunConfig::load`].
    pub fn parse(text: &str, name: &str) -> Result<ValidConfig, FileError> {
        Self::parse_with_rules(text, name, |config| {
            Rules::load(&config.variant, config.size)
                .map_err(|e| format!("variant `{}`: {e}", config.variant))
        })
    }

    /// A run directory's config, with the rules the directory keeps beside it
    /// (`rules_path`, written when the run started) rather than those its `variant` names
    /// now: a run of a rules file opens from anywhere, whatever became of that file. A
    /// directory without the file (written before it existed) resolves `variant`.
    ///
    /// # Errors
    /// As [`RunConfig::load`], and a rules file that does not read.
    pub fn load_in_run(path: &Path, rules_path: &Path) -> Result<ValidConfig, FileError> {
        if !rules_path.exists() {
            return Self::load(path);
        }
        let text = std::fs::read_to_string(path).map_err(|source| FileError::io(path, source))?;
        let rules_text = std::fs::read_to_string(rules_path)
            .map_err(|source| FileError::io(rules_path, source))?;
        let rules_name = rules_path.display().to_string();
        let rules = Rules::from_toml(&rules_text, &rules_name)
            .map_err(|e| FileError::invalid(rules_path, e.to_string()))?;
        Self::parse_with_rules(&text, &path.display().to_string(), |_| Ok(rules))
    }

    fn parse_with_rules(
        text: &str,
        name: &str,
        rules_for: impl FnOnce(&RunConfig) -> Result<Rules, String>,
    ) -> Result<ValidConfig, FileError> {
        let invalid = |reason: String| FileError::invalid(Path::new(name), reason);
        let config: RunConfig = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        refuse_unknown_keys(text, &config).map_err(invalid)?;
        config.check().map_err(invalid)?;
        let rules = rules_for(&config).map_err(invalid)?;
        Ok(ValidConfig {
            settings: config,
            rules,
        })
    }

    /// Every number in its range; the reason names the key.
    fn check(&self) -> Result<(), String> {
        fn within<T: PartialOrd + std::fmt::Display>(
            key: &str,
            value: T,
            low: T,
            high: T,
        ) -> Result<(), String> {
            if value >= low && value <= high {
                Ok(())
            } else {
                Err(format!("{key} = {value}: use {low} to {high}"))
            }
        }
        let network = &self.network;
        within("network.blocks", network.blocks, 0, 64)?;
        within("network.channels", network.channels, 1, 1024)?;
        within("network.value_hidden", network.value_hidden, 1, 4096)?;
        within("network.policy_channels", network.policy_channels, 1, 256)?;
        within("network.value_channels", network.value_channels, 1, 256)?;
        let play = &self.selfplay;
        within(
            "selfplay.games_per_iteration",
            play.games_per_iteration,
            1,
            1_000_000,
        )?;
        within("selfplay.parallel_games", play.play.parallel_games, 1, 4096)?;
        within("selfplay.workers", play.workers, 1, 1024)?;
        within(
            "selfplay.simulations",
            play.play.mcts.simulations,
            1,
            1_000_000,
        )?;
        within("selfplay.c_puct", play.play.mcts.c_puct, 0.0, 100.0)?;
        within(
            "selfplay.noise_fraction",
            play.play.mcts.noise_fraction,
            0.0,
            1.0,
        )?;
        within(
            "selfplay.dirichlet_alpha",
            play.play.mcts.dirichlet_alpha,
            0.001,
            100.0,
        )?;
        within(
            "selfplay.solve_empties",
            play.play.mcts.solve_empties,
            0,
            24,
        )?;
        within(
            "selfplay.solve_targets_empties",
            play.play.solve_targets_empties,
            0,
            24,
        )?;
        within(
            "selfplay.considered_actions",
            play.play.mcts.considered_actions,
            1,
            4096,
        )?;
        within(
            "selfplay.full_search_fraction",
            play.play.full_search_fraction,
            0.01,
            1.0,
        )?;
        within(
            "selfplay.fast_simulations",
            play.play.fast_simulations,
            1,
            1_000_000,
        )?;
        within(
            "selfplay.score_utility",
            play.play.mcts.score_utility,
            0.0,
            10.0,
        )?;
        let train = &self.train;
        within("train.batch_size", train.batch_size, 1, 65_536)?;
        within(
            "train.steps_per_iteration",
            train.steps_per_iteration,
            1,
            10_000_000,
        )?;
        within("train.window_samples", train.window_samples, 1, 100_000_000)?;
        within(
            "train.learning_rate",
            train.optimizer.learning_rate,
            1e-9,
            10.0,
        )?;
        within(
            "train.final_fraction",
            train.optimizer.final_fraction,
            0.0,
            1.0,
        )?;
        within("train.weight_decay", train.optimizer.weight_decay, 0.0, 1.0)?;
        within(
            "train.value_weight",
            train.optimizer.value_weight,
            0.0,
            1000.0,
        )?;
        within(
            "train.score_weight",
            train.optimizer.score_weight,
            0.0,
            1000.0,
        )?;
        let evaluate = &self.evaluate;
        within("evaluate.openings", evaluate.openings, 0, 100_000)?;
        within("evaluate.opening_plies", evaluate.opening_plies, 0, 60)?;
        let network = &evaluate.network;
        within("evaluate.simulations", network.simulations, 1, 1_000_000)?;
        within("evaluate.solve_empties", network.solve_empties, 0, 24)?;
        within("evaluate.score_utility", network.score_utility, 0.0, 10.0)?;
        within(
            "evaluate.considered_actions",
            network.considered_actions,
            1,
            4096,
        )?;
        if let Some(minutes) = self.stop.minutes {
            within("loop.minutes", minutes, 0.0, 1e7)?;
        }
        if let Some(cores) = self.stop.cpu_clock_cores {
            within("loop.cpu_clock_cores", cores, 1, 4096)?;
        }
        Ok(())
    }
}

impl ValidConfig {
    /// The search settings of self-play (seeds are set per game).
    pub fn selfplay_mcts(&self) -> MctsConfig {
        MctsConfig {
            seed: self.settings.seed,
            gumbel_scale: 1.0,
            ..self.settings.selfplay.play.mcts.clone()
        }
    }

    /// The search settings of the network's agent in evaluation: no noise.
    pub fn evaluate_mcts(&self) -> MctsConfig {
        self.selfplay_mcts().playing(self.settings.evaluate.network)
    }

    /// The optimiser settings.
    pub fn train_config(&self) -> TrainConfig {
        TrainConfig {
            seed: self.settings.seed,
            ..self.settings.train.optimizer.clone()
        }
    }

    /// The network's full shape for these rules.
    pub fn net_config(&self) -> flipzero_nn::NetConfig {
        let (planes, rows, cols) = flipzero_data::Encoder::new(&self.rules).shape();
        flipzero_nn::NetConfig {
            input_planes: planes,
            rows,
            cols,
            decisions: self.rules.decision_count(),
            tower: self.settings.network.clone(),
            torus: self.rules.is_torus(),
        }
    }
}
