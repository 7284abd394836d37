//! Agents: anything that picks a decision for the side to move.

use flipzero_core::{Bitboard, Decision, Game, Rules};
use flipzero_engine::{Engine, SearchConfig, Weights};
use flipzero_mcts::{Evaluator, Mcts, MctsConfig};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// A player in a match.
pub trait Agent<W: Bitboard> {
    /// A decision for the side to move of `game`, which is not over.
    fn choose(&mut self, game: &Game<W>) -> Decision;
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
    fn choose(&mut self, game: &Game<W>) -> Decision {
        *game
            .legal_decisions(&self.rules)
            .choose(&mut self.rng)
            .expect("a game that is not over has a legal decision")
    }
}

/// The classical alpha-beta engine.
pub struct EngineAgent<W: Bitboard> {
    engine: Engine<W>,
}

impl<W: Bitboard> EngineAgent<W> {
    /// The engine with these weights and settings.
    pub fn new(rules: &Rules, weights: Weights, config: SearchConfig) -> Self {
        Self {
            engine: Engine::new(rules, weights, config),
        }
    }
}

impl<W: Bitboard> Agent<W> for EngineAgent<W> {
    fn choose(&mut self, game: &Game<W>) -> Decision {
        self.engine
            .choose(game)
            .expect("a game that is not over has a decision")
            .decision
    }
}

/// Monte Carlo tree search guided by an evaluator (a network), playing its most visited
/// decision; the tree is kept between moves when the game continues from it.
pub struct MctsAgent<W: Bitboard, E: Evaluator<W>> {
    rules: Rules,
    config: MctsConfig,
    evaluator: E,
    tree: Option<Mcts<W>>,
}

impl<W: Bitboard, E: Evaluator<W>> MctsAgent<W, E> {
    /// A searcher with `config` (use no noise for evaluation) and `evaluator`.
    pub fn new(rules: &Rules, config: MctsConfig, evaluator: E) -> Self {
        Self {
            rules: rules.clone(),
            config,
            evaluator,
            tree: None,
        }
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

impl<W: Bitboard, E: Evaluator<W>> Agent<W> for MctsAgent<W, E> {
    fn choose(&mut self, game: &Game<W>) -> Decision {
        let mut tree = self.tree_at(game);
        let decision = tree.search(&mut self.evaluator).best();
        tree.advance(decision);
        self.tree = Some(tree);
        decision
    }
}

/// An agent named in a config or on the command line that needs no network: `random`,
/// `engine` or `engine:depth=4,...` (the options of [`SearchConfig`]).
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// [`RandomAgent`].
    Random,
    /// [`EngineAgent`] with these settings.
    Engine(SearchConfig),
}

/// An agent name that is not understood.
#[derive(Debug, thiserror::Error)]
#[error("agent `{text}`: {reason}")]
pub struct AgentSpecError {
    text: String,
    reason: String,
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
            None if text == "engine" => Ok(AgentSpec::Engine(SearchConfig::default())),
            Some(("engine", options)) => options
                .parse()
                .map(AgentSpec::Engine)
                .map_err(|e: flipzero_engine::search::ConfigError| error(e.to_string())),
            _ => Err(error(
                "use `random`, `engine` or `engine:depth=4` (options depth, nodes, time, solve, \
                 end, random, seed)"
                    .to_owned(),
            )),
        }
    }
}

impl AgentSpec {
    /// The agent, its random choices seeded by `seed` (mixed into the engine's own seed).
    pub fn build<W: Bitboard>(
        &self,
        rules: &Rules,
        weights: &Weights,
        seed: u64,
    ) -> Box<dyn Agent<W>> {
        match self {
            AgentSpec::Random => Box::new(RandomAgent::new(rules, seed)),
            AgentSpec::Engine(config) => Box::new(EngineAgent::new(
                rules,
                weights.clone(),
                SearchConfig {
                    seed: config.seed ^ seed,
                    ..config.clone()
                },
            )),
        }
    }
}
