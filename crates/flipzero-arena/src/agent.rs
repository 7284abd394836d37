//! Agents: anything that picks a decision for the side to move.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use flipzero_core::variant::rules::Objective;
use flipzero_core::{AnyGame, Bitboard, Decision, Game, Rules, U256};
use flipzero_engine::{Engine, ExactSolver, Proof, SearchConfig, Weights, WeightsFile};
use flipzero_mcts::{Evaluator, Mcts, MctsConfig, PlaySettings, SearchKind, UniformEvaluator};
use flipzero_nn::{NetEvaluator, PolicyValueNet};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// A player in a match.
pub trait Agent<W: Bitboard> {
    /// A decision for the side to move of `game`, which is not over and awaits no chance
    /// event (whoever runs the game draws those: `Game::draw_chance`), or why the agent has
    /// none (an external engine that exited, hung or answered nonsense): matches end only
    /// that game, as a forfeit.
    ///
    /// # Errors
    /// The agent's failure, in words.
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String>;

    /// Before a game: how its opening was reached, the start and the decisions played from
    /// it. Agents told positions as moves (GTP engines) send these; the others ignore it.
    fn start_from(&mut self, _start: &Game<W>, _decisions: &[Decision]) {}

    /// Under a clock: the time the next decision should take at most. Agents that do not
    /// search ignore it.
    fn set_move_time(&mut self, _time: Duration) {}

    /// Under a clock: the time left for all of this agent's decisions of the game, before its
    /// next one. Agents that plan their time share it out themselves; the others take an
    /// even share for the next decision ([`even_share`]).
    fn set_time_left(&mut self, left: Duration, game: &Game<W>) {
        self.set_move_time(even_share(left, game));
    }
}

/// An even share of `left` for the next decision at `game`: about half the empty squares are
/// the mover's decisions.
pub fn even_share<W: Bitboard>(left: Duration, game: &Game<W>) -> Duration {
    let decisions_left = (game.empty().count() / 2).max(1);
    left / decisions_left
}

/// An agent that could not be made (an engine that did not start): it fails at its first
/// decision, with the reason.
struct FailedAgent(String);

impl<W: Bitboard> Agent<W> for FailedAgent {
    fn choose(&mut self, _game: &Game<W>) -> Result<Decision, String> {
        Err(self.0.clone())
    }
}

/// The error of an agent asked to move in a finished game.
fn game_over() -> String {
    "the game is over: no decision to choose".to_owned()
}

/// Uniformly random legal decisions.
pub struct RandomAgent {
    rules: Rules,
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random player seeded by `seed`.
    pub fn new(rules: &Rules, seed: u64) -> Self {
        Self {
            rules: rules.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl<W: Bitboard> Agent<W> for RandomAgent {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        game.legal_decisions(&self.rules)
            .choose(&mut self.rng)
            .copied()
            .ok_or_else(game_over)
    }
}

/// The classical alpha-beta engine. Built for one game: with `game-time` in its settings it
/// keeps that game's clock itself.
pub struct EngineAgent<W: Bitboard> {
    engine: Engine<W>,
    /// The time limit of its settings, which a clock may shorten.
    own_time: Option<Duration>,
    /// What is left of its own game clock (`game-time`), where it has one.
    own_clock: Option<Duration>,
    /// Whether a referee's clock has set the next decision's time.
    refereed: bool,
}

impl<W: Bitboard> EngineAgent<W> {
    /// The engine with these weights and settings.
    pub fn new(rules: &Rules, weights: Weights, config: SearchConfig) -> Self {
        Self {
            own_time: config.time,
            own_clock: config.game_time,
            refereed: false,
            engine: Engine::new(rules, weights, config),
        }
    }
}

impl<W: Bitboard> Agent<W> for EngineAgent<W> {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        if let (Some(left), false) = (self.own_clock, self.refereed) {
            let time = self.engine.move_time(left, game);
            self.set_move_time(time);
        }
        self.refereed = false;
        let started = Instant::now();
        let choice = self.engine.choose(game).ok_or_else(game_over)?;
        if let Some(left) = &mut self.own_clock {
            *left = left.saturating_sub(started.elapsed());
        }
        Ok(choice.decision)
    }

    fn set_move_time(&mut self, time: Duration) {
        let limit = self.own_time.map_or(time, |own| own.min(time));
        self.engine.set_time(Some(limit));
    }

    fn set_time_left(&mut self, left: Duration, game: &Game<W>) {
        let time = self.engine.move_time(left, game);
        self.set_move_time(time);
        self.refereed = true;
    }
}

/// Perfect play: the exact solver from the first decision, one best decision each time, on
/// positions within its reach ([`crate::perfect::exact_reach`]; past it a decision is refused
/// with the reason). Positions the bitboard solver cannot take (the placement plies of
/// classic reversi, a supply that could run out) are searched by the engine to the end of the
/// game, which is exact too, only slower.
pub struct PerfectAgent<W: Bitboard> {
    rules: Rules,
    exact: ExactSolver,
    search_to_the_end: Engine<W>,
}

impl<W: Bitboard> PerfectAgent<W> {
    /// The perfect player for `rules`, or `None` when the solver does not cover them.
    pub fn new(rules: &Rules, weights: Weights) -> Option<Self> {
        let exact = ExactSolver::new(rules)?;
        let config = SearchConfig {
            depth: u32::MAX,
            solve_empties: u32::MAX,
            end_search_empties: u32::MAX,
            ..SearchConfig::default()
        };
        Some(Self {
            rules: rules.clone(),
            exact,
            search_to_the_end: Engine::new(rules, weights, config),
        })
    }
}

impl<W: Bitboard> Agent<W> for PerfectAgent<W> {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        crate::perfect::check_within_reach(&self.rules, [game]).map_err(|e| e.to_string())?;
        match self.exact.solve(game, Proof::OneBest) {
            Some(value) => Ok(value.best[0]),
            None => {
                let choice = self.search_to_the_end.choose(game).ok_or_else(game_over)?;
                Ok(choice.decision)
            }
        }
    }
}

/// Monte Carlo tree search guided by an evaluator (a network), playing its most visited
/// decision; the tree is kept between moves when the game continues from it.
pub struct MctsAgent<W: Bitboard, E: Evaluator<W>> {
    rules: Rules,
    config: MctsConfig,
    /// Search for this long instead of `config.simulations` simulations.
    time: Option<Duration>,
    /// The clock's limit for the next decision (searching by time, the shorter one wins).
    move_time: Option<Duration>,
    evaluator: E,
    tree: Option<Mcts<W>>,
}

impl<W: Bitboard, E: Evaluator<W>> MctsAgent<W, E> {
    /// A searcher with `config` (use no noise for evaluation) and `evaluator`.
    pub fn new(rules: &Rules, config: MctsConfig, evaluator: E) -> Self {
        Self {
            rules: rules.clone(),
            config,
            time: None,
            move_time: None,
            evaluator,
            tree: None,
        }
    }

    /// Searches each decision for `time` rather than a number of simulations.
    pub fn with_time(mut self, time: Duration) -> Self {
        self.time = Some(time);
        self
    }

    /// The tree rooted at `game`: the kept one advanced through the decisions played since,
    /// or a fresh one.
    fn tree_at(&mut self, game: &Game<W>) -> Mcts<W> {
        if let Some(mut tree) = self.tree.take() {
            // The opponent's reply is the only step between our last move and now, in
            // most games; a multi-decision turn or a pass may add more, so look two deep.
            if tree.game().hash() == game.hash() {
                return tree;
            }
            for decision in tree.game().legal_decisions(&self.rules) {
                let Ok(next) = tree.game().play(&self.rules, decision) else {
                    continue;
                };
                if next.hash() == game.hash() {
                    tree.advance(decision);
                    return tree;
                }
            }
        }
        Mcts::new(&self.rules, self.config.clone(), game)
    }
}

impl<W: Bitboard, E: Evaluator<W>> MctsAgent<W, E> {
    /// The decision a finished search plays: the most visited under PUCT, the halving's
    /// winner under Gumbel search.
    fn searched_decision(&self, tree: &mut Mcts<W>) -> Decision {
        match self.config.search {
            SearchKind::Puct => tree.result().best(),
            SearchKind::Gumbel => tree.gumbel_result().decision,
        }
    }
}

impl<W: Bitboard, E: Evaluator<W>> Agent<W> for MctsAgent<W, E> {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        if game.is_over() {
            return Err(game_over());
        }
        let mut tree = self.tree_at(game);
        let limit = match (self.time, self.move_time) {
            (Some(own), Some(clock)) => Some(own.min(clock)),
            (own, clock) => own.or(clock),
        };
        let decision = match limit {
            None => {
                tree.search(&mut self.evaluator);
                self.searched_decision(&mut tree)
            }
            Some(limit) => {
                // One simulation at a time (at least one) until the time is spent, or, for
                // an agent of a fixed simulation count under a clock, until they are done.
                let deadline = Instant::now() + limit;
                let most = if self.time.is_some() {
                    u32::MAX
                } else {
                    self.config.simulations.max(1)
                };
                tree.prepare_root(&mut self.evaluator);
                for _ in 0..most {
                    let leaf = tree.descend();
                    let evaluated = tree.leaf_request(&leaf).map(|(position, decisions)| {
                        let evaluation = self
                            .evaluator
                            .evaluate(&self.rules, &[(position, &decisions)])
                            .pop()
                            .expect("one evaluation per position");
                        (decisions, evaluation)
                    });
                    tree.finish(leaf, evaluated);
                    if Instant::now() >= deadline {
                        break;
                    }
                }
                self.searched_decision(&mut tree)
            }
        };
        tree.advance(decision);
        self.tree = Some(tree);
        Ok(decision)
    }

    fn set_move_time(&mut self, time: Duration) {
        self.move_time = Some(time);
    }
}

/// The decision that leaves the mover the most discs (the fewest under a fewest-discs
/// objective), ties broken at random: the classic beginner's strategy.
pub struct GreedyAgent {
    rules: Rules,
    rng: ChaCha8Rng,
}

impl GreedyAgent {
    /// A greedy player seeded by `seed`.
    pub fn new(rules: &Rules, seed: u64) -> Self {
        Self {
            rules: rules.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl<W: Bitboard> Agent<W> for GreedyAgent {
    fn choose(&mut self, game: &Game<W>) -> Result<Decision, String> {
        let mover = game.side_to_move();
        let fewest = self.rules.spec().objective == Objective::FewestDiscs;
        let scored: Vec<(Decision, i64)> = game
            .legal_decisions(&self.rules)
            .into_iter()
            .map(|decision| {
                let next = game.play_unchecked(&self.rules, decision);
                let own = i64::from(next.discs(mover).count());
                let other = i64::from(next.discs(mover.opponent()).count());
                (decision, if fewest { other - own } else { own - other })
            })
            .collect();
        let best = scored.iter().map(|&(_, s)| s).max().ok_or_else(game_over)?;
        let ties: Vec<Decision> = scored
            .into_iter()
            .filter(|&(_, s)| s == best)
            .map(|(d, _)| d)
            .collect();
        ties.choose(&mut self.rng).copied().ok_or_else(game_over)
    }
}

/// An agent named in a config or on the command line:
///
/// - `random`, `greedy`;
/// - `perfect`: the exact solver from the first decision ([`PerfectAgent`]), for rules the
///   solver covers;
/// - `engine` or `engine:depth=4,...` (the options of [`SearchConfig`]);
/// - `mcts:checkpoint=<file>,simulations=200` or `...,time=0.5` (seconds per decision): MCTS
///   with a network checkpoint; without `checkpoint`, with a uniform evaluator. Options
///   `solve=EMPTIES` (exact values at leaves, default 12), `cpuct=C`, `search=puct|gumbel`
///   and `considered=N` (Gumbel's root decisions, default 16);
/// - `gtp:<command line>`: an external engine process that speaks GTP;
/// - `nboard:<command line>`: an external engine process that speaks the NBoard protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// [`RandomAgent`].
    Random,
    /// [`GreedyAgent`].
    Greedy,
    /// [`PerfectAgent`].
    Perfect,
    /// [`EngineAgent`] with these settings.
    Engine(SearchConfig),
    /// [`MctsAgent`].
    Mcts(MctsSpec),
    /// [`crate::external::GtpAgent`]: an engine process started by this command line.
    Gtp(String),
    /// [`crate::external::NBoardAgent`]: an engine process started by this command line.
    NBoard(String),
}

/// How an MCTS agent searches and with which network.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSpec {
    /// The network's checkpoint; a uniform evaluator when `None`.
    pub checkpoint: Option<PathBuf>,
    /// Simulations (used when no time is given), solver leaves, tree policy, Gumbel's
    /// considered decisions, score utility.
    pub play: PlaySettings,
    /// Time per decision.
    pub time: Option<Duration>,
    /// PUCT's exploration constant.
    pub c_puct: f32,
    /// Each evaluation averaged over the position's images under every board symmetry.
    pub every_symmetry: bool,
}

impl Default for MctsSpec {
    fn default() -> Self {
        Self {
            checkpoint: None,
            play: PlaySettings {
                simulations: 200,
                solve_empties: 12,
                search: SearchKind::Puct,
                considered_actions: MctsConfig::default().considered_actions,
                score_utility: 0.0,
            },
            time: None,
            c_puct: MctsConfig::default().c_puct,
            every_symmetry: false,
        }
    }
}

impl MctsSpec {
    /// The default agent with `simulations` simulations a decision.
    pub fn with_simulations(simulations: u32) -> Self {
        let mut spec = Self::default();
        spec.play.simulations = simulations;
        spec
    }

    /// The search settings (no noise: agents play their best).
    pub fn mcts_config(&self, seed: u64) -> MctsConfig {
        MctsConfig {
            c_puct: self.c_puct,
            seed,
            ..MctsConfig::default()
        }
        .playing(self.play)
    }
}

/// An agent name that is not understood.
#[derive(Debug, thiserror::Error)]
#[error("agent `{text}`: {reason}")]
pub struct AgentSpecError {
    text: String,
    reason: String,
}

const AGENT_FORMS: &str = "use `random`, `greedy`, `perfect`, `engine`, `engine:depth=4` (options depth, \
    nodes, time, solve, end, random, seed), `mcts:checkpoint=FILE,simulations=N` (options \
    checkpoint, simulations, time, solve, cpuct, search=puct|gumbel, considered, score, symmetries=one|all), `gtp:<engine command line>` or \
    `nboard:<engine command line>`";

/// `one` (the position as it is) or `all` (averaged over every board symmetry).
///
/// # Errors
/// Any other text.
pub fn parse_symmetries(text: &str) -> Result<bool, String> {
    match text {
        "one" => Ok(false),
        "all" => Ok(true),
        _ => Err(format!("`{text}`: use `one` or `all` symmetries")),
    }
}

fn parse_mcts(options: &str) -> Result<MctsSpec, String> {
    let mut spec = MctsSpec::default();
    for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let (key, value) = option
            .split_once('=')
            .ok_or_else(|| format!("`{option}`: expected key=value"))?;
        let bad = |what: &str| format!("`{option}`: {what}");
        match key {
            "checkpoint" => spec.checkpoint = Some(PathBuf::from(value)),
            "simulations" => {
                spec.play.simulations = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=10_000_000).contains(n))
                    .ok_or_else(|| bad("use 1 to 10000000 simulations"))?;
            }
            "time" => {
                let seconds: f64 = value.parse().map_err(|_| bad("not a number of seconds"))?;
                if !(seconds.is_finite() && seconds > 0.0 && seconds <= 1e6) {
                    return Err(bad("use a time above 0 and at most a million seconds"));
                }
                spec.time = Some(Duration::from_secs_f64(seconds));
            }
            "solve" => {
                spec.play.solve_empties = value
                    .parse()
                    .ok()
                    .filter(|&e| e <= 24)
                    .ok_or_else(|| bad("use 0 to 24 empties"))?;
            }
            "cpuct" => {
                spec.c_puct = value
                    .parse()
                    .ok()
                    .filter(|c: &f32| c.is_finite() && *c >= 0.0)
                    .ok_or_else(|| bad("use a number of 0 or more"))?;
            }
            "search" => spec.play.search = value.parse().map_err(|e: String| bad(&e))?,
            "considered" => {
                spec.play.considered_actions = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=4096).contains(n))
                    .ok_or_else(|| bad("use 1 to 4096 considered decisions"))?;
            }
            "score" => {
                spec.play.score_utility = value
                    .parse()
                    .ok()
                    .filter(|w: &f32| w.is_finite() && (0.0..=10.0).contains(w))
                    .ok_or_else(|| bad("use a score utility of 0 to 10"))?;
            }
            "symmetries" => spec.every_symmetry = parse_symmetries(value).map_err(|e| bad(&e))?,
            _ => return Err(bad("unknown option")),
        }
    }
    Ok(spec)
}

impl std::str::FromStr for AgentSpec {
    type Err = AgentSpecError;

    fn from_str(text: &str) -> Result<Self, AgentSpecError> {
        let error = |reason: String| AgentSpecError {
            text: text.to_owned(),
            reason,
        };
        match text.split_once(':') {
            None if text == "random" => Ok(AgentSpec::Random),
            None if text == "greedy" => Ok(AgentSpec::Greedy),
            None if text == "perfect" => Ok(AgentSpec::Perfect),
            None if text == "engine" => Ok(AgentSpec::Engine(SearchConfig::default())),
            None if text == "mcts" => Ok(AgentSpec::Mcts(MctsSpec::default())),
            Some(("engine", options)) => options
                .parse()
                .map(AgentSpec::Engine)
                .map_err(|e: flipzero_engine::search::ConfigError| error(e.to_string())),
            Some(("mcts", options)) => parse_mcts(options).map(AgentSpec::Mcts).map_err(error),
            Some(("gtp", command)) if !command.trim().is_empty() => {
                Ok(AgentSpec::Gtp(command.trim().to_owned()))
            }
            Some(("nboard", command)) if !command.trim().is_empty() => {
                Ok(AgentSpec::NBoard(command.trim().to_owned()))
            }
            _ => Err(error(AGENT_FORMS.to_owned())),
        }
    }
}

/// An agent spec as a config file or a command line writes it, parsed once: the text stays
/// the agent's name in records and reports, the typed spec is what builds it. Serialised as
/// the text; a text that does not parse is refused when the file is read.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAgentSpec {
    /// The text as written, such as `engine:depth=4`.
    pub name: String,
    /// What it says.
    pub spec: AgentSpec,
}

impl std::str::FromStr for NamedAgentSpec {
    type Err = AgentSpecError;

    fn from_str(text: &str) -> Result<Self, AgentSpecError> {
        Ok(Self {
            name: text.to_owned(),
            spec: text.parse()?,
        })
    }
}

impl std::fmt::Display for NamedAgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl serde::Serialize for NamedAgentSpec {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(&self.name)
    }
}

impl<'de> serde::Deserialize<'de> for NamedAgentSpec {
    fn deserialize<D: serde::Deserializer<'de>>(input: D) -> Result<Self, D::Error> {
        let text = String::deserialize(input)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What it takes to build an agent for each game: the spec with its network loaded once.
pub struct AgentFactory {
    spec: AgentSpec,
    rules: Rules,
    weights: Weights,
    network: Option<(PolicyValueNet, Device)>,
}

/// An agent that cannot be prepared.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The checkpoint cannot be read.
    #[error(transparent)]
    Checkpoint(#[from] flipzero_data::files::FileError),
    /// The checkpoint is of other rules.
    #[error("{path}: a network for other rules ({difference})")]
    OtherRules {
        /// The checkpoint.
        path: String,
        /// How its rules differ, where the board says so.
        difference: String,
    },
    /// `perfect` for rules the exact solver does not cover.
    #[error(
        "the `perfect` agent needs rules the exact solver covers (Othello's moves on a plane board with a disc-count objective, no sacrifices, neutral discs, rotations or colour supplies); these rules are not such"
    )]
    NotSolvable,
    /// No evaluation weights for the rules.
    #[error(transparent)]
    Weights(#[from] flipzero_engine::eval::WeightsError),
    /// An external engine that does not start or does not answer.
    #[error("external engine `{command}`: {reason}")]
    External {
        /// Its command line.
        command: String,
        /// What went wrong.
        reason: String,
    },
}

impl AgentFactory {
    /// Prepares `spec` for `rules`: the engine's embedded weights, the network's checkpoint
    /// loaded onto `device` and checked against the rules.
    ///
    /// # Errors
    /// An unreadable checkpoint, one of other rules, or rules without evaluation weights.
    pub fn new(spec: &AgentSpec, rules: &Rules, device: &Device) -> Result<Self, AgentError> {
        let weights = WeightsFile::embedded().weights_for(rules, "embedded weights")?;
        let network = match spec {
            AgentSpec::Mcts(MctsSpec {
                checkpoint: Some(path),
                ..
            }) => {
                let loaded = flipzero_nn::checkpoint::load(path, device)?;
                if let Err(mismatch) = rules.spec().check_file_rules(&loaded.meta.rules) {
                    let (trained, asked) = (
                        (loaded.meta.net.rows, loaded.meta.net.cols),
                        (usize::from(rules.rows()), usize::from(rules.cols())),
                    );
                    let difference = if trained == asked {
                        format!(
                            "on the same {}x{} board; they differ in {}",
                            asked.0,
                            asked.1,
                            mismatch.differences()
                        )
                    } else {
                        format!(
                            "trained on {}x{}, asked for {}x{}",
                            trained.0, trained.1, asked.0, asked.1
                        )
                    };
                    return Err(AgentError::OtherRules {
                        path: path.display().to_string(),
                        difference,
                    });
                }
                Some((loaded.net, device.clone()))
            }
            AgentSpec::Gtp(command) => {
                // Start it once now, so that a wrong command fails here with its reason
                // rather than in the middle of a match.
                crate::external::GtpAgent::<u128>::probe(rules, command).map_err(|reason| {
                    AgentError::External {
                        command: command.clone(),
                        reason,
                    }
                })?;
                None
            }
            AgentSpec::Perfect if ExactSolver::new(rules).is_none() => {
                return Err(AgentError::NotSolvable);
            }
            AgentSpec::NBoard(command) => {
                flipzero_core::with_width!(rules.square_count(), W => {
                    crate::external::NBoardAgent::<W>::probe(rules, command)
                })
                .map_err(|reason| AgentError::External {
                    command: command.clone(),
                    reason,
                })?;
                None
            }
            _ => None,
        };
        Ok(Self::with_network(spec, rules, weights, network))
    }

    /// The spec it builds agents of.
    pub fn spec(&self) -> &AgentSpec {
        &self.spec
    }

    /// Prepares `spec` with a network already in memory (used for an MCTS spec without a
    /// checkpoint file).
    pub fn with_network(
        spec: &AgentSpec,
        rules: &Rules,
        weights: Weights,
        network: Option<(PolicyValueNet, Device)>,
    ) -> Self {
        Self {
            spec: spec.clone(),
            rules: rules.clone(),
            weights,
            network,
        }
    }

    /// The decision a fresh agent, seeded by `seed`, makes at `game`: for code that is not
    /// generic over the board width (a server asked for one move).
    ///
    /// # Errors
    /// The agent's failure, with its reason.
    ///
    /// # Panics
    /// A game of another board width than the factory's rules.
    pub fn choose_once(&self, seed: u64, game: &AnyGame) -> Result<Decision, String> {
        match game {
            AnyGame::Bits64(game) => self.build::<u64>(seed).choose(game),
            AnyGame::Bits128(game) => self.build::<u128>(seed).choose(game),
            AnyGame::Bits256(game) => self.build::<U256>(seed).choose(game),
        }
    }

    /// A fresh agent for one game, its random choices seeded by `seed`.
    pub fn build<W: Bitboard>(&self, seed: u64) -> Box<dyn Agent<W>> {
        let rules = &self.rules;
        match &self.spec {
            AgentSpec::Random => Box::new(RandomAgent::new(rules, seed)),
            AgentSpec::Greedy => Box::new(GreedyAgent::new(rules, seed)),
            AgentSpec::Perfect => Box::new(
                PerfectAgent::<W>::new(rules, self.weights.clone())
                    .expect("the factory checked that the solver covers the rules"),
            ),
            AgentSpec::Engine(config) => Box::new(EngineAgent::new(
                rules,
                self.weights.clone(),
                SearchConfig {
                    seed: config.seed ^ seed,
                    ..config.clone()
                },
            )),
            // The factory started each engine once already; one that fails to start for a
            // game forfeits that game only.
            AgentSpec::Gtp(command) => {
                match crate::external::GtpAgent::<W>::start(rules, command) {
                    Ok(agent) => Box::new(agent),
                    Err(error) => Box::new(FailedAgent(format!("starting `{command}`: {error}"))),
                }
            }
            AgentSpec::NBoard(command) => {
                match crate::external::NBoardAgent::<W>::start(rules, command) {
                    Ok(agent) => Box::new(agent),
                    Err(error) => Box::new(FailedAgent(format!("starting `{command}`: {error}"))),
                }
            }
            AgentSpec::Mcts(spec) => {
                let config = spec.mcts_config(seed);
                match &self.network {
                    Some((net, device)) => {
                        let evaluator = NetEvaluator::new(rules, net, device)
                            .over_every_symmetry(spec.every_symmetry);
                        let agent = MctsAgent::new(rules, config, evaluator);
                        match spec.time {
                            Some(time) => Box::new(agent.with_time(time)),
                            None => Box::new(agent),
                        }
                    }
                    None => {
                        let agent = MctsAgent::new(rules, config, UniformEvaluator);
                        match spec.time {
                            Some(time) => Box::new(agent.with_time(time)),
                            None => Box::new(agent),
                        }
                    }
                }
            }
        }
    }
}
