//! The run config: one TOML file (`configs/runs/*.toml`) that says which rules to learn, the
//! network's shape, and how to play, train and evaluate. Unknown keys are refused; every
//! number is checked against a sensible range and a bad one is named.

use std::path::Path;

use flipzero_arena::NamedAgentSpec;
use flipzero_core::Rules;
use flipzero_data::files::FileError;
use flipzero_mcts::{MctsConfig, SearchKind};
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
    /// The network's shape.
    pub network: NetworkSection,
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

/// The network's shape (its input and outputs follow from the rules).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Residual blocks.
    pub blocks: usize,
    /// Channels of the tower.
    pub channels: usize,
    /// Width of the value heads' hidden layer.
    pub value_hidden: usize,
    /// Channels of the policy head's 1x1 convolution.
    #[serde(default = "flipzero_nn::net::default_policy_channels")]
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution.
    #[serde(default = "flipzero_nn::net::default_value_channels")]
    pub value_channels: usize,
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlaySection {
    /// Games per iteration of the loop.
    pub games_per_iteration: u64,
    /// Games each worker plays at once (their leaves share one network call).
    pub parallel_games: usize,
    /// Worker threads, each with its own copy of the network.
    pub workers: usize,
    /// Search simulations per decision.
    pub simulations: u32,
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// Share of Dirichlet noise in the root priors.
    pub noise_fraction: f32,
    /// Concentration of that noise.
    pub dirichlet_alpha: f32,
    /// Decisions per game drawn in proportion to visits (the rest take the most visited).
    pub temperature_decisions: u32,
    /// Leaves with this many empty squares or fewer take the exact solver's value (0: never).
    pub solve_empties: u32,
    /// Positions with this many empty squares or fewer are trained on the exact solver's
    /// targets (outcome, margin, best decisions) rather than the game's (0: never).
    #[serde(default)]
    pub solve_targets_empties: u32,
    /// With solved targets on: the positions before a game's first solved one take its
    /// exact outcome and margin as value targets, not the game's end.
    #[serde(default)]
    pub solved_value_targets: bool,
    /// The tree policy: `puct` (Dirichlet noise at the root, visit counts as targets) or
    /// `gumbel` (sequential halving at the root, the improved policy as the target).
    #[serde(default, with = "search_kind")]
    pub search: SearchKind,
    /// Gumbel search: root decisions considered.
    #[serde(default = "default_considered")]
    pub considered_actions: u32,
    /// Weight of the predicted final margin beside the result in the search's values
    /// (KataGo's score utility; 0: the result alone).
    #[serde(default)]
    pub score_utility: f32,
    /// Playout cap randomisation: the share of decisions searched with `simulations` (and
    /// the root noise) and trained on; the rest get `fast_simulations`, no noise and no
    /// sample. 1 (the default) searches every decision fully.
    #[serde(default = "full_fraction")]
    pub full_search_fraction: f32,
    /// Simulations of a fast search.
    #[serde(default = "default_fast_simulations")]
    pub fast_simulations: u32,
    /// Random decisions (not searched, not trained on) before each game's first search: a
    /// number `N`, or a range `"A-B"` drawn per game; 0 starts from the rules' start.
    #[serde(default)]
    pub opening_plies: OpeningPlies,
}

/// `opening_plies = 4` or `opening_plies = "0-10"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OpeningPlies {
    /// Always this many.
    Fixed(u32),
    /// A range `A-B`, drawn per game.
    Range(String),
}

impl Default for OpeningPlies {
    fn default() -> Self {
        OpeningPlies::Fixed(0)
    }
}

impl OpeningPlies {
    /// The range, or why the text is not one.
    pub fn range(&self) -> Result<std::ops::RangeInclusive<u32>, String> {
        match self {
            OpeningPlies::Fixed(plies) => Ok(*plies..=*plies),
            OpeningPlies::Range(text) => {
                parse_range(text).map_err(|e| format!("selfplay.opening_plies: {e}"))
            }
        }
    }
}

/// `N` or `A-B` (A at most B), each from 0 to 200: a number of plies or squares, or a range
/// of them, as configs and the command line write them.
///
/// # Errors
/// Text that is not such a number or range, said with the reason.
pub fn parse_range(text: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    let number = |part: &str| {
        part.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= 200)
            .ok_or_else(|| format!("`{part}` is not a number from 0 to 200"))
    };
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high) = (number(low)?, number(high)?);
    if low > high {
        return Err(format!("`{text}`: the range's start is above its end"));
    }
    Ok(low..=high)
}

impl SelfPlaySection {
    /// The checked range of opening plies (see [`SelfPlaySection::opening_plies`]).
    pub fn opening_plies_range(&self) -> std::ops::RangeInclusive<u32> {
        self.opening_plies.range().unwrap_or(0..=0)
    }
}

fn full_fraction() -> f32 {
    1.0
}

fn default_fast_simulations() -> u32 {
    8
}

fn default_considered() -> u32 {
    MctsConfig::default().considered_actions
}

/// `search = "puct" | "gumbel"` in the config files.
mod search_kind {
    use flipzero_mcts::SearchKind;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(kind: &SearchKind, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(match kind {
            SearchKind::Puct => "puct",
            SearchKind::Gumbel => "gumbel",
        })
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<SearchKind, D::Error> {
        let text = String::deserialize(input)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Training settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainSection {
    /// Samples per optimizer step.
    pub batch_size: usize,
    /// Optimizer steps per iteration of the loop.
    pub steps_per_iteration: u64,
    /// The replay window: the newest samples trained on.
    pub window_samples: usize,
    /// Adam's peak learning rate.
    pub learning_rate: f64,
    /// Steps of linear warm-up.
    pub warmup_steps: u64,
    /// Steps of cosine decay after the warm-up (0: constant rate); unused when `schedule` is
    /// `budget`.
    #[serde(default)]
    pub decay_steps: u64,
    /// What the cosine decay runs over: `steps` (`decay_steps` optimizer steps) or `budget`
    /// (the loop's budget of minutes or iterations, so that the floor is reached when the run
    /// ends, however fast the machine).
    #[serde(default)]
    pub schedule: Schedule,
    /// Share of the peak rate left after the decay.
    pub final_fraction: f64,
    /// Decoupled weight decay (AdamW) per unit of learning rate; 0 (the default): Adam.
    #[serde(default)]
    pub weight_decay: f32,
    /// Weight of the win/draw/loss loss.
    pub value_weight: f32,
    /// Weight of the score loss.
    pub score_weight: f32,
    /// See each sample through a random board symmetry.
    pub augment: bool,
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

/// The evaluation match run after each training stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluateSection {
    /// Evaluate after every this many iterations (0: never).
    pub every_iterations: u64,
    /// Openings per opponent; each is played with both colours.
    pub openings: usize,
    /// Random plies from the start that make each opening.
    pub opening_plies: u32,
    /// Search simulations per decision of the network's agent.
    pub simulations: u32,
    /// Its exact-solver threshold in empty squares.
    pub solve_empties: u32,
    /// Its tree policy: `puct` or `gumbel` (without noise: it plays its best).
    #[serde(default, with = "search_kind")]
    pub search: SearchKind,
    /// Gumbel search: root decisions considered.
    #[serde(default = "default_considered")]
    pub considered_actions: u32,
    /// Weight of the predicted final margin beside the result in the search's values
    /// (KataGo's score utility; 0: the result alone).
    #[serde(default)]
    pub score_utility: f32,
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
        within("selfplay.parallel_games", play.parallel_games, 1, 4096)?;
        within("selfplay.workers", play.workers, 1, 1024)?;
        within("selfplay.simulations", play.simulations, 1, 1_000_000)?;
        within("selfplay.c_puct", play.c_puct, 0.0, 100.0)?;
        within("selfplay.noise_fraction", play.noise_fraction, 0.0, 1.0)?;
        within(
            "selfplay.dirichlet_alpha",
            play.dirichlet_alpha,
            0.001,
            100.0,
        )?;
        within("selfplay.solve_empties", play.solve_empties, 0, 24)?;
        within(
            "selfplay.solve_targets_empties",
            play.solve_targets_empties,
            0,
            24,
        )?;
        within(
            "selfplay.considered_actions",
            play.considered_actions,
            1,
            4096,
        )?;
        within(
            "selfplay.full_search_fraction",
            play.full_search_fraction,
            0.01,
            1.0,
        )?;
        within(
            "selfplay.fast_simulations",
            play.fast_simulations,
            1,
            1_000_000,
        )?;
        within("selfplay.score_utility", play.score_utility, 0.0, 10.0)?;
        play.opening_plies.range()?;
        let train = &self.train;
        within("train.batch_size", train.batch_size, 1, 65_536)?;
        within(
            "train.steps_per_iteration",
            train.steps_per_iteration,
            1,
            10_000_000,
        )?;
        within("train.window_samples", train.window_samples, 1, 100_000_000)?;
        within("train.learning_rate", train.learning_rate, 1e-9, 10.0)?;
        within("train.final_fraction", train.final_fraction, 0.0, 1.0)?;
        within("train.weight_decay", train.weight_decay, 0.0, 1.0)?;
        within("train.value_weight", train.value_weight, 0.0, 1000.0)?;
        within("train.score_weight", train.score_weight, 0.0, 1000.0)?;
        let evaluate = &self.evaluate;
        within("evaluate.openings", evaluate.openings, 0, 100_000)?;
        within("evaluate.opening_plies", evaluate.opening_plies, 0, 60)?;
        within("evaluate.simulations", evaluate.simulations, 1, 1_000_000)?;
        within("evaluate.solve_empties", evaluate.solve_empties, 0, 24)?;
        within("evaluate.score_utility", evaluate.score_utility, 0.0, 10.0)?;
        within(
            "evaluate.considered_actions",
            evaluate.considered_actions,
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
        let play = &self.settings.selfplay;
        MctsConfig {
            simulations: play.simulations,
            c_puct: play.c_puct,
            noise_fraction: play.noise_fraction,
            dirichlet_alpha: play.dirichlet_alpha,
            seed: self.settings.seed,
            solve_empties: play.solve_empties,
            search: play.search,
            considered_actions: play.considered_actions,
            gumbel_scale: 1.0,
            score_utility: play.score_utility,
        }
    }

    /// The search settings of the network's agent in evaluation: no noise.
    pub fn evaluate_mcts(&self) -> MctsConfig {
        let evaluate = &self.settings.evaluate;
        MctsConfig {
            simulations: evaluate.simulations,
            noise_fraction: 0.0,
            solve_empties: evaluate.solve_empties,
            search: evaluate.search,
            considered_actions: evaluate.considered_actions,
            gumbel_scale: 0.0,
            score_utility: evaluate.score_utility,
            ..self.selfplay_mcts()
        }
    }

    /// The optimiser settings.
    pub fn train_config(&self) -> TrainConfig {
        let train = &self.settings.train;
        TrainConfig {
            learning_rate: train.learning_rate,
            warmup_steps: train.warmup_steps,
            decay_steps: train.decay_steps,
            final_fraction: train.final_fraction,
            weight_decay: train.weight_decay,
            value_weight: train.value_weight,
            score_weight: train.score_weight,
            augment: train.augment,
            seed: self.settings.seed,
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
            blocks: self.settings.network.blocks,
            channels: self.settings.network.channels,
            value_hidden: self.settings.network.value_hidden,
            policy_channels: self.settings.network.policy_channels,
            value_channels: self.settings.network.value_channels,
            torus: self.rules.is_torus(),
        }
    }
}
