//! Monte-Carlo tree search over the decisions of any variant, guided by an [`Evaluator`]
//! (a network, or the [`UniformEvaluator`] for tests): PUCT selection with optional Dirichlet
//! noise at the root and visit-count policies with a temperature, or Gumbel search
//! (sequential halving at the root, the improved policy as the target; [`SearchKind`]), and
//! tree reuse between moves.
//!
//! Near the end, positions can take their exact result from the engine's solver
//! ([`MctsConfig::solve_empties`]).
//!
//! ```
//! use flipzero_core::{Game, Preset};
//! use flipzero_mcts::{Mcts, MctsConfig, UniformEvaluator};
//!
//! let rules = Preset::Othello.rules(Some(6))?;
//! let start = Game::<u64>::start(&rules);
//! let config = MctsConfig { simulations: 64, ..MctsConfig::default() };
//! let mut tree = Mcts::new(&rules, config, &start);
//! let result = tree.search(&mut UniformEvaluator);
//! let best = result.best();
//! assert!(start.legal_decisions(&rules).contains(&best));
//! let total: f32 = result.policy().iter().map(|(_, share)| share).sum();
//! assert!((total - 1.0).abs() < 1e-6);
//! // The tree moves on with the game and keeps the chosen subtree.
//! tree.advance(best);
//! assert_eq!(tree.game().to_text(&rules), start.play(&rules, best)?.to_text(&rules));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Values are expected results in [-1, 1] for the player to move (plus, with a score utility,
//! a weighted share of the final margin); a multi-step turn keeps the
//! same player to move (see `Game::same_player_to_move`), so values change sign only where
//! the player changes.

use flipzero_core::variant::rules::Objective;
use flipzero_core::{AnyGame, Bitboard, Color, Decision, Game, Outcome, Rules, U256};
use flipzero_engine::{ExactSolver, Proof};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

/// What an evaluator says of one unfinished position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probabilities of the legal decisions, in the order they were given.
    pub priors: Vec<f32>,
    /// Expected result for the player to move, in [-1, 1].
    pub value: f32,
    /// Expected final margin for the player to move as a share of the board's squares, in
    /// [-1, 1]; 0 from evaluators that predict none.
    pub score: f32,
}

/// Evaluates positions in batches: self-play collects leaves from many games and makes one
/// call, so a network runs at a useful batch size.
pub trait Evaluator<W: Bitboard> {
    /// One evaluation per position, each with its legal decisions as given.
    fn evaluate(&mut self, rules: &Rules, positions: &[(&Game<W>, &[Decision])])
    -> Vec<Evaluation>;
}

/// The evaluation of one game, its priors in the order of the game's legal decisions: for
/// code that is not generic over the board width (a server's analysis).
pub fn evaluate_game<E>(evaluator: &mut E, rules: &Rules, game: &AnyGame) -> Option<Evaluation>
where
    E: Evaluator<u64> + Evaluator<u128> + Evaluator<U256>,
{
    fn one<W: Bitboard>(
        evaluator: &mut impl Evaluator<W>,
        rules: &Rules,
        game: &Game<W>,
    ) -> Option<Evaluation> {
        let legal = game.legal_decisions(rules);
        evaluator.evaluate(rules, &[(game, &legal)]).pop()
    }
    match game {
        AnyGame::Bits64(game) => one(evaluator, rules, game),
        AnyGame::Bits128(game) => one(evaluator, rules, game),
        AnyGame::Bits256(game) => one(evaluator, rules, game),
    }
}

/// Uniform priors and a value of 0: search guided by nothing but the game's end. For tests
/// and as the weakest MCTS agent.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<W: Bitboard> Evaluator<W> for UniformEvaluator {
    fn evaluate(
        &mut self,
        _rules: &Rules,
        positions: &[(&Game<W>, &[Decision])],
    ) -> Vec<Evaluation> {
        positions
            .iter()
            .map(|(_, decisions)| Evaluation {
                priors: vec![1.0 / decisions.len() as f32; decisions.len()],
                value: 0.0,
                score: 0.0,
            })
            .collect()
    }
}

/// Search settings. In a run config they are keys of `[selfplay]` (the seed comes from the
/// config's own, the Gumbel scale from the use: 1 in self-play, 0 in evaluation).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MctsConfig {
    /// Simulations per search (visits added to the root).
    pub simulations: u32,
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// Share of the root priors replaced by Dirichlet noise (0 turns the noise off).
    pub noise_fraction: f32,
    /// Concentration of that noise (about 10 / typical number of moves).
    pub dirichlet_alpha: f32,
    /// Seed of the noise and of sampling by temperature.
    #[serde(skip)]
    pub seed: u64,
    /// Positions with this many empty squares or fewer take their exact result from the
    /// endgame solver instead of the evaluator (Othello-move rules only; 0 turns it off).
    pub solve_empties: u32,
    /// How simulations choose their way: PUCT everywhere, or Gumbel's sequential halving at
    /// the root.
    #[serde(default)]
    pub search: SearchKind,
    /// Gumbel search: root decisions considered (the best by Gumbel noise plus prior
    /// logits), halved each phase.
    #[serde(default = "default_considered_actions")]
    pub considered_actions: u32,
    /// Gumbel search: the scale of the root's Gumbel noise (1 in self-play, where it explores;
    /// 0 for an agent that plays its best).
    #[serde(skip)]
    pub gumbel_scale: f32,
    /// Weight of the final margin beside the result (KataGo's score utility): a node's value
    /// is result + `score_utility` * margin / squares, so that among decisions that all win
    /// (or all lose) the search prefers the larger margin. 0: the result alone.
    #[serde(default)]
    pub score_utility: f32,
}

/// Root decisions a Gumbel search considers unless told otherwise.
pub fn default_considered_actions() -> u32 {
    16
}

/// The settings in which an agent that plays its best may differ from self-play's search
/// (the `[evaluate]` keys of a run config, the options of an `mcts:` agent). Everything else
/// of its [`MctsConfig`] is self-play's or the default, and it has no noise.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlaySettings {
    /// Simulations per decision.
    pub simulations: u32,
    /// The exact solver's threshold in empty squares (0: none).
    pub solve_empties: u32,
    /// The tree policy: `puct` or `gumbel` (without noise: it plays its best).
    #[serde(default)]
    pub search: SearchKind,
    /// Gumbel search: root decisions considered.
    #[serde(default = "default_considered_actions")]
    pub considered_actions: u32,
    /// Weight of the predicted final margin beside the result ([`MctsConfig::score_utility`]).
    #[serde(default)]
    pub score_utility: f32,
}

impl MctsConfig {
    /// What of these settings an agent playing its best takes.
    pub fn play_settings(&self) -> PlaySettings {
        PlaySettings {
            simulations: self.simulations,
            solve_empties: self.solve_empties,
            search: self.search,
            considered_actions: self.considered_actions,
            score_utility: self.score_utility,
        }
    }

    /// These settings searching as `play` says, without noise: an agent that plays its best.
    pub fn playing(self, play: PlaySettings) -> MctsConfig {
        MctsConfig {
            simulations: play.simulations,
            noise_fraction: 0.0,
            solve_empties: play.solve_empties,
            search: play.search,
            considered_actions: play.considered_actions,
            gumbel_scale: 0.0,
            score_utility: play.score_utility,
            ..self
        }
    }
}

/// The tree policy, written `puct` or `gumbel`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// PUCT selection everywhere (AlphaZero); Dirichlet noise at the root in self-play.
    #[default]
    Puct,
    /// Gumbel MuZero (Danihelka et al., ICLR 2022): sequential halving among the considered
    /// root decisions, completed Q-values below, the improved policy as the target.
    Gumbel,
}

impl std::str::FromStr for SearchKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "puct" => Ok(SearchKind::Puct),
            "gumbel" => Ok(SearchKind::Gumbel),
            _ => Err(format!("search `{text}`: use `puct` or `gumbel`")),
        }
    }
}

impl Default for MctsConfig {
    fn default() -> Self {
        Self {
            simulations: 400,
            c_puct: 1.5,
            noise_fraction: 0.0,
            dirichlet_alpha: 0.3,
            seed: 0,
            solve_empties: 0,
            search: SearchKind::Puct,
            considered_actions: default_considered_actions(),
            gumbel_scale: 0.0,
            score_utility: 0.0,
        }
    }
}

/// Gumbel search's constants, as in the paper and DeepMind's mctx: the completed Q-values,
/// rescaled to [0, 1], are multiplied by (`VISIT_OFFSET` + the most visits) * `VALUE_SCALE`.
const VISIT_OFFSET: f32 = 50.0;
const VALUE_SCALE: f32 = 0.1;

/// One decision out of a node.
#[derive(Clone, Debug)]
struct Edge {
    decision: Decision,
    prior: f32,
    visits: u32,
    /// Sum of the values seen through this edge, for the player to move at the node.
    value_sum: f32,
    child: Option<usize>,
}

impl Edge {
    fn mean(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

#[derive(Clone, Debug)]
struct Node<W: Bitboard> {
    game: Game<W>,
    /// `None` until evaluated.
    edges: Option<Vec<Edge>>,
    /// The exact value for the player to move, once the game is over.
    terminal: Option<f32>,
    /// The evaluator's value of the position (0 until evaluated), for Gumbel's mixed value.
    evaluated: f32,
}

/// What a search found at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Every legal decision with its visits and mean value (for the player to move).
    pub decisions: Vec<(Decision, u32, f32)>,
    /// The visit-weighted value of the root for the player to move.
    pub value: f32,
}

impl SearchResult {
    /// The most visited decision (the first of equals).
    pub fn best(&self) -> Decision {
        let most = self.decisions.iter().map(|d| d.1).max().unwrap_or(0);
        self.decisions
            .iter()
            .find(|d| d.1 == most)
            .map(|d| d.0)
            .expect("a search result has a decision")
    }

    /// The policy target: visits normalised to sum to 1, per decision.
    pub fn policy(&self) -> Vec<(Decision, f32)> {
        let total: u32 = self.decisions.iter().map(|d| d.1).sum();
        self.decisions
            .iter()
            .map(|&(decision, visits, _)| (decision, visits as f32 / total.max(1) as f32))
            .collect()
    }
}

/// What a Gumbel root search chose.
#[derive(Clone, Debug, PartialEq)]
pub struct GumbelResult {
    /// The decision to play.
    pub decision: Decision,
    /// The improved policy (the training target), per root decision.
    pub policy: Vec<(Decision, f32)>,
    /// The root's value for the player to move.
    pub value: f32,
}

/// A simulation stopped at a leaf, waiting for its evaluation.
#[derive(Debug)]
pub struct Leaf {
    path: Vec<(usize, usize)>,
    node: usize,
}

/// Runs the configured simulations on many trees of the same rules at once: each round takes
/// one leaf from every tree and evaluates all of them in a single evaluator call.
///
/// # Panics
/// When a tree's root game is over.
pub fn search_many<W: Bitboard>(trees: &mut [Mcts<W>], evaluator: &mut impl Evaluator<W>) {
    if trees.is_empty() {
        return;
    }
    for tree in trees.iter_mut() {
        tree.prepare_root(evaluator);
    }
    let rounds = trees
        .iter()
        .map(|tree| tree.config.simulations)
        .max()
        .unwrap_or(0);
    for round in 0..rounds {
        let leaves: Vec<Option<Leaf>> = trees
            .iter_mut()
            .map(|tree| (round < tree.config.simulations).then(|| tree.descend()))
            .collect();
        let requests: Vec<Option<(&Game<W>, Vec<Decision>)>> = trees
            .iter()
            .zip(&leaves)
            .map(|(tree, leaf)| leaf.as_ref().and_then(|leaf| tree.leaf_request(leaf)))
            .collect();
        let batch: Vec<(&Game<W>, &[Decision])> = requests
            .iter()
            .flatten()
            .map(|(game, decisions)| (*game, decisions.as_slice()))
            .collect();
        let mut evaluations = evaluator.evaluate(&trees[0].rules, &batch).into_iter();
        let decisions: Vec<Option<Vec<Decision>>> = requests
            .into_iter()
            .map(|request| request.map(|(_, decisions)| decisions))
            .collect();
        for ((tree, leaf), decisions) in trees.iter_mut().zip(leaves).zip(decisions) {
            let Some(leaf) = leaf else { continue };
            let evaluated = decisions.map(|decisions| {
                let evaluation = evaluations.next().expect("one evaluation per request");
                (decisions, evaluation)
            });
            tree.finish(leaf, evaluated);
        }
    }
}

/// A search tree that persists between moves.
pub struct Mcts<W: Bitboard> {
    rules: Rules,
    /// The exact solver for leaves near the end, when the rules allow it.
    solver: Option<ExactSolver>,
    config: MctsConfig,
    nodes: Vec<Node<W>>,
    root: usize,
    /// The root's priors before any noise, so that searching the same root again does not
    /// stack noise on noise.
    clean_root_priors: Option<Vec<f32>>,
    /// The Gumbel search under way at the root.
    gumbel: Option<GumbelRoot>,
    rng: ChaCha8Rng,
}

/// The state of one Gumbel search at the root: its noise, and the visits each root decision
/// has had in this search (a kept subtree brings visits of its own).
#[derive(Clone, Debug)]
struct GumbelRoot {
    noise: Vec<f32>,
    visits: Vec<u32>,
    /// The visit count a simulation's root decision must have, simulation by simulation.
    schedule: Vec<u32>,
}

/// The visit counts of sequential halving, simulation by simulation (mctx's
/// `get_sequence_of_considered_visits`): each phase visits every considered decision equally,
/// about `simulations / (log2(considered) * considered)` times, then halves them (keeping
/// at least two).
fn considered_visit_schedule(considered: usize, simulations: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..simulations as u32).collect();
    }
    let log2 = (considered as f64).log2().ceil() as usize;
    let mut sequence = Vec::with_capacity(simulations);
    let mut visits = vec![0u32; considered];
    let mut remaining = considered;
    while sequence.len() < simulations {
        let extra = (simulations / (log2 * remaining)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..remaining]);
            for visit in &mut visits[..remaining] {
                *visit += 1;
            }
        }
        remaining = (remaining / 2).max(2);
    }
    sequence.truncate(simulations);
    sequence
}

/// Softmax of `logits` in place.
fn softmax(logits: &mut [f32]) {
    let most = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for logit in logits.iter_mut() {
        *logit = (*logit - most).exp();
        total += *logit;
    }
    for logit in logits.iter_mut() {
        *logit /= total;
    }
}

/// The index of the largest score (the first of equals).
fn argmax(scores: &[f32]) -> usize {
    let mut best = 0;
    for (index, score) in scores.iter().enumerate() {
        if *score > scores[best] {
            best = index;
        }
    }
    best
}

/// The value of a finished game for its player to move: the result, plus the margin (a
/// share of the squares, towards the rules' objective) weighted by `score_utility`.
fn terminal_value<W: Bitboard>(rules: &Rules, game: &Game<W>, score_utility: f32) -> f32 {
    let side = game.side_to_move();
    let result = match game.outcome(rules) {
        Some(Outcome::Win(color)) if color == side => 1.0,
        Some(Outcome::Win(_)) => -1.0,
        _ => 0.0,
    };
    if score_utility == 0.0 {
        return result;
    }
    result + score_utility * margin_share(rules, side, f64::from(game.score(rules)))
}

/// A Black margin as a share of the squares for `side`, higher being better for it under
/// the rules' objective (the score utility's margin).
fn margin_share(rules: &Rules, side: Color, black_margin: f64) -> f32 {
    let own = if side == Color::Black {
        black_margin
    } else {
        -black_margin
    };
    let towards_objective = if rules.spec().objective == Objective::FewestDiscs {
        -own
    } else {
        own
    };
    (towards_objective / f64::from(rules.square_count())) as f32
}

impl<W: Bitboard> Mcts<W> {
    /// A tree rooted at `game`.
    pub fn new(rules: &Rules, config: MctsConfig, game: &Game<W>) -> Self {
        let solver = (config.solve_empties > 0)
            .then(|| ExactSolver::new(rules))
            .flatten();
        let mut tree = Self {
            solver,
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            rules: rules.clone(),
            config,
            nodes: Vec::new(),
            root: 0,
            clean_root_priors: None,
            gumbel: None,
        };
        tree.reset(game);
        tree
    }

    fn new_node(&mut self, game: Game<W>) -> usize {
        let terminal = if game.is_over() {
            Some(terminal_value(
                &self.rules,
                &game,
                self.config.score_utility,
            ))
        } else if game.awaits_chance() {
            // Equal komi bids: both seatings are equally likely and mirror each other, so
            // the value is exactly 0 for whoever is to move (see the engine's CHANCE_VALUE).
            Some(0.0)
        } else {
            self.solved_value(&game)
        };
        self.nodes.push(Node {
            game,
            edges: None,
            terminal,
            evaluated: 0.0,
        });
        self.nodes.len() - 1
    }

    /// The exact result for the player to move, from the solver, near the end.
    fn solved_value(&self, game: &Game<W>) -> Option<f32> {
        let solver = self.solver.as_ref()?;
        if game.empty().count() > self.config.solve_empties {
            return None;
        }
        let exact = solver.solve(game, Proof::OneBest)?;
        // The outcome counts the komi; the score utility's margin is the discs alone, as at
        // the end and as the network learns it.
        let side = game.side_to_move();
        let share = margin_share(&self.rules, side, f64::from(exact.black_margin));
        Some(f32::from(exact.outcome_for(side)) + self.config.score_utility * share)
    }

    fn reset(&mut self, game: &Game<W>) {
        self.clean_root_priors = None;
        self.gumbel = None;
        self.nodes.clear();
        self.root = self.new_node(game.clone());
    }

    /// The root position.
    pub fn game(&self) -> &Game<W> {
        &self.nodes[self.root].game
    }

    /// Moves the root to the child after `decision`, keeping its subtree (or starts afresh
    /// when the decision was never expanded).
    pub fn advance(&mut self, decision: Decision) {
        self.clean_root_priors = None;
        self.gumbel = None;
        let root = &self.nodes[self.root];
        let child = root
            .edges
            .as_ref()
            .and_then(|edges| edges.iter().find(|edge| edge.decision == decision))
            .and_then(|edge| edge.child);
        match child {
            Some(child) => self.keep_subtree(child),
            None => {
                let next = root.game.play_unchecked(&self.rules, decision);
                self.reset(&next);
            }
        }
    }

    /// Makes `node` the root and drops every node outside its subtree, so that a long game
    /// does not keep the trees of all its earlier moves.
    fn keep_subtree(&mut self, node: usize) {
        let mut old = std::mem::take(&mut self.nodes);
        let mut moved: Vec<Option<usize>> = vec![None; old.len()];
        // Breadth first: the new arena lists each node before its children.
        let mut queue = std::collections::VecDeque::from([node]);
        while let Some(index) = queue.pop_front() {
            moved[index] = Some(self.nodes.len());
            let taken = Node {
                game: old[index].game.clone(),
                edges: old[index].edges.take(),
                terminal: old[index].terminal,
                evaluated: old[index].evaluated,
            };
            for edge in taken.edges.iter().flatten() {
                queue.extend(edge.child);
            }
            self.nodes.push(taken);
        }
        for node in &mut self.nodes {
            for edge in node.edges.iter_mut().flatten() {
                edge.child = edge
                    .child
                    .map(|child| moved[child].expect("children are kept"));
            }
        }
        self.root = 0;
    }

    /// Changes the simulations and the root noise of the next searches (playout cap
    /// randomisation alternates full and fast searches on one tree).
    pub fn set_budget(&mut self, simulations: u32, noise_fraction: f32) {
        self.config.simulations = simulations;
        self.config.noise_fraction = noise_fraction;
    }

    /// Nodes held by the tree.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// What the search backs up of an evaluation: its result plus its weighted margin.
    fn utility(&self, evaluation: &Evaluation) -> f32 {
        evaluation.value + self.config.score_utility * evaluation.score
    }

    /// Creates a node's edges from its legal decisions and their evaluation.
    fn expand_with(&mut self, node: usize, decisions: Vec<Decision>, evaluation: Evaluation) {
        self.nodes[node].evaluated = self.utility(&evaluation);
        let edges = decisions
            .into_iter()
            .zip(evaluation.priors)
            .map(|(decision, prior)| Edge {
                decision,
                prior,
                visits: 0,
                value_sum: 0.0,
                child: None,
            })
            .collect();
        self.nodes[node].edges = Some(edges);
    }

    /// Evaluates a node's position alone and creates its edges.
    fn expand(&mut self, node: usize, evaluator: &mut impl Evaluator<W>) {
        let decisions = self.nodes[node].game.legal_decisions(&self.rules);
        let evaluation = evaluator
            .evaluate(&self.rules, &[(&self.nodes[node].game, &decisions)])
            .pop()
            .expect("one evaluation per position");
        self.expand_with(node, decisions, evaluation);
    }

    /// Mixes Dirichlet noise into the root priors.
    fn add_root_noise(&mut self) {
        let fraction = self.config.noise_fraction;
        if fraction <= 0.0 {
            return;
        }
        let Ok(gamma) = Gamma::new(self.config.dirichlet_alpha.max(1e-3), 1.0) else {
            return;
        };
        let Some(edges) = self.nodes[self.root].edges.as_mut() else {
            return;
        };
        match &self.clean_root_priors {
            Some(clean) => {
                for (edge, &prior) in edges.iter_mut().zip(clean) {
                    edge.prior = prior;
                }
            }
            None => self.clean_root_priors = Some(edges.iter().map(|edge| edge.prior).collect()),
        }
        let noise: Vec<f32> = edges.iter().map(|_| gamma.sample(&mut self.rng)).collect();
        let total: f32 = noise.iter().sum::<f32>().max(f32::MIN_POSITIVE);
        for (edge, sample) in edges.iter_mut().zip(noise) {
            edge.prior = (1.0 - fraction) * edge.prior + fraction * sample / total;
        }
    }

    /// The edge a simulation takes out of `node`.
    fn select(&mut self, node: usize) -> usize {
        match self.config.search {
            SearchKind::Puct => self.select_puct(node),
            SearchKind::Gumbel if node == self.root => self.select_gumbel_root(),
            SearchKind::Gumbel => self.select_gumbel_interior(node),
        }
    }

    /// The PUCT choice among a node's edges.
    fn select_puct(&self, node: usize) -> usize {
        let edges = self.nodes[node].edges.as_ref().expect("an expanded node");
        let total: u32 = edges.iter().map(|edge| edge.visits).sum();
        let exploration = self.config.c_puct * (total.max(1) as f32).sqrt();
        let score =
            |edge: &Edge| edge.mean() + exploration * edge.prior / (1.0 + edge.visits as f32);
        edges
            .iter()
            .enumerate()
            .max_by(|(_, a), (_, b)| score(a).total_cmp(&score(b)))
            .map(|(index, _)| index)
            .expect("an unfinished position has a decision")
    }

    /// Whether a node's value is final, so simulations stop there: a finished game, or a
    /// position the solver settled, except at the root, whose decisions still need values.
    fn settled(&self, node: usize) -> bool {
        self.nodes[node].terminal.is_some()
            && (node != self.root || self.nodes[node].game.is_over())
    }

    /// The first half of a simulation: down from the root by the tree policy to a finished game or a
    /// position never evaluated.
    pub fn descend(&mut self) -> Leaf {
        let mut path: Vec<(usize, usize)> = Vec::new();
        let mut node = self.root;
        loop {
            if self.settled(node) || self.nodes[node].edges.is_none() {
                return Leaf { path, node };
            }
            let edge = self.select(node);
            let child = match self.nodes[node].edges.as_ref().expect("expanded")[edge].child {
                Some(child) => child,
                None => {
                    let decision =
                        self.nodes[node].edges.as_ref().expect("expanded")[edge].decision;
                    let next = self.nodes[node].game.play_unchecked(&self.rules, decision);
                    let child = self.new_node(next);
                    self.nodes[node].edges.as_mut().expect("expanded")[edge].child = Some(child);
                    child
                }
            };
            path.push((node, edge));
            node = child;
        }
    }

    /// The position a leaf needs evaluated, with its legal decisions; `None` for a finished
    /// (or solved) game.
    pub fn leaf_request(&self, leaf: &Leaf) -> Option<(&Game<W>, Vec<Decision>)> {
        if self.settled(leaf.node) {
            return None;
        }
        let node = &self.nodes[leaf.node];
        Some((&node.game, node.game.legal_decisions(&self.rules)))
    }

    /// The second half: expand the leaf with its evaluation (none for a finished game) and
    /// back its value up the path.
    pub fn finish(&mut self, leaf: Leaf, evaluated: Option<(Vec<Decision>, Evaluation)>) {
        let Leaf { path, mut node } = leaf;
        let mut value = match (self.settled(node), evaluated) {
            (true, _) => self.nodes[node]
                .terminal
                .expect("settled nodes have a value"),
            (false, Some((decisions, evaluation))) => {
                let value = self.utility(&evaluation);
                self.expand_with(node, decisions, evaluation);
                value
            }
            (false, None) => panic!("an unevaluated leaf needs its evaluation"),
        };
        // `value` is for the player to move at `node`; walk back up, turning it to each
        // parent's player.
        for &(parent, edge) in path.iter().rev() {
            if !self.nodes[parent]
                .game
                .same_player_to_move(&self.nodes[node].game)
            {
                value = -value;
            }
            let edge = &mut self.nodes[parent].edges.as_mut().expect("expanded")[edge];
            edge.visits += 1;
            edge.value_sum += value;
            node = parent;
        }
    }

    /// Evaluates the root if needed and mixes in the noise: what a search does first.
    pub fn prepare_root(&mut self, evaluator: &mut impl Evaluator<W>) {
        assert!(!self.game().is_over(), "search of a finished game");
        assert!(
            !self.game().awaits_chance(),
            "a chance event is drawn (Game::draw_chance), not searched"
        );
        if self.nodes[self.root].edges.is_none() {
            self.expand(self.root, evaluator);
        }
        match self.config.search {
            SearchKind::Puct => self.add_root_noise(),
            SearchKind::Gumbel => self.start_gumbel(),
        }
    }

    /// The visits and values at the root.
    pub fn result(&self) -> SearchResult {
        let edges = self.nodes[self.root]
            .edges
            .as_ref()
            .expect("a prepared root");
        let visits: u32 = edges.iter().map(|edge| edge.visits).sum();
        let value = edges.iter().map(|edge| edge.value_sum).sum::<f32>() / visits.max(1) as f32;
        SearchResult {
            decisions: edges
                .iter()
                .map(|edge| (edge.decision, edge.visits, edge.mean()))
                .collect(),
            value,
        }
    }

    /// Runs the configured number of simulations from the root.
    ///
    /// # Panics
    /// When the root game is over.
    pub fn search(&mut self, evaluator: &mut impl Evaluator<W>) -> SearchResult {
        search_many(std::slice::from_mut(self), evaluator);
        self.result()
    }

    /// Gumbel search (Danihelka et al., 2022): the configured simulations with sequential
    /// halving at the root (see [`SearchKind::Gumbel`]), then the decision it chose and the
    /// improved policy. The same as [`search_many`] on this tree alone followed by
    /// [`Mcts::gumbel_result`].
    ///
    /// # Panics
    /// When the root game is over, or the tree does not use Gumbel search.
    pub fn gumbel_search(&mut self, evaluator: &mut impl Evaluator<W>) -> GumbelResult {
        assert_eq!(self.config.search, SearchKind::Gumbel, "a Gumbel tree");
        search_many(std::slice::from_mut(self), evaluator);
        self.gumbel_result()
    }

    /// Draws the root's Gumbel noise and plans the halving: the start of a Gumbel search.
    fn start_gumbel(&mut self) {
        let count = self.root_edges().len();
        let noise: Vec<f32> = (0..count)
            .map(|_| {
                let uniform: f32 = self.rng.random_range(f32::EPSILON..1.0);
                self.config.gumbel_scale * -(-uniform.ln()).ln()
            })
            .collect();
        let considered = (self.config.considered_actions as usize).clamp(1, count);
        self.gumbel = Some(GumbelRoot {
            noise,
            visits: vec![0; count],
            schedule: considered_visit_schedule(
                considered,
                self.config.simulations.max(1) as usize,
            ),
        });
    }

    fn root_edges(&self) -> &[Edge] {
        self.nodes[self.root]
            .edges
            .as_deref()
            .expect("a prepared root")
    }

    /// The prior logits of a node's edges.
    fn logits(&self, node: usize) -> Vec<f32> {
        self.nodes[node]
            .edges
            .as_ref()
            .expect("an expanded node")
            .iter()
            .map(|edge| edge.prior.max(1e-12).ln())
            .collect()
    }

    /// sigma(completed Q) of a node's edges (mctx's `qtransform_completed_by_mix_value`):
    /// each edge's mean value, or the node's mixed value where unvisited, rescaled to [0, 1]
    /// over the edges, times (50 + the most visits) * 0.1.
    fn transformed_values(&self, node: usize) -> Vec<f32> {
        let edges = self.nodes[node].edges.as_ref().expect("an expanded node");
        let visits: u32 = edges.iter().map(|e| e.visits).sum();
        let visited_prior: f32 = edges
            .iter()
            .filter(|e| e.visits > 0)
            .map(|e| e.prior.max(f32::MIN_POSITIVE))
            .sum();
        let weighted: f32 = edges
            .iter()
            .filter(|e| e.visits > 0)
            .map(|e| e.prior.max(f32::MIN_POSITIVE) * e.mean())
            .sum();
        let raw = self.nodes[node]
            .terminal
            .unwrap_or(self.nodes[node].evaluated);
        let mixed = if visited_prior > 0.0 {
            (raw + visits as f32 * weighted / visited_prior) / (1.0 + visits as f32)
        } else {
            raw
        };
        let completed: Vec<f32> = edges
            .iter()
            .map(|edge| if edge.visits > 0 { edge.mean() } else { mixed })
            .collect();
        let low = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let high = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let most = edges.iter().map(|e| e.visits).max().unwrap_or(0);
        let scale = (VISIT_OFFSET + most as f32) * VALUE_SCALE;
        completed
            .iter()
            .map(|q| scale * (q - low) / (high - low).max(1e-8))
            .collect()
    }

    /// Gumbel noise + logit + sigma(completed Q) for the root decisions whose visits in this
    /// search equal `wanted`; minus infinity for the others (mctx's `score_considered`).
    fn considered_scores(&self, wanted: u32) -> Vec<f32> {
        let gumbel = self.gumbel.as_ref().expect("a Gumbel search under way");
        let logits = self.logits(self.root);
        let most = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        self.transformed_values(self.root)
            .iter()
            .zip(&logits)
            .zip(gumbel.noise.iter().zip(&gumbel.visits))
            .map(|((sigma, logit), (noise, &visits))| {
                if visits == wanted {
                    (noise + logit - most + sigma).max(-1e9)
                } else {
                    f32::NEG_INFINITY
                }
            })
            .collect()
    }

    /// The root decision of the next simulation: among those with the visits the halving
    /// schedule asks for, the best by Gumbel noise + logit + sigma(Q). Past the schedule
    /// (a search by time), the most visited ones get the extra simulations.
    fn select_gumbel_root(&mut self) -> usize {
        if self.gumbel.is_none() {
            self.start_gumbel();
        }
        let gumbel = self.gumbel.as_ref().expect("started");
        let spent: u32 = gumbel.visits.iter().sum();
        let wanted = gumbel
            .schedule
            .get(spent as usize)
            .copied()
            .unwrap_or_else(|| gumbel.visits.iter().copied().max().unwrap_or(0));
        let scores = self.considered_scores(wanted);
        let chosen = argmax(&scores);
        self.gumbel.as_mut().expect("started").visits[chosen] += 1;
        chosen
    }

    /// Below the root: the edge whose visit share falls furthest below the improved policy
    /// (the paper's deterministic selection).
    fn select_gumbel_interior(&self, node: usize) -> usize {
        let mut improved = self.logits(node);
        for (logit, sigma) in improved.iter_mut().zip(self.transformed_values(node)) {
            *logit += sigma;
        }
        softmax(&mut improved);
        let edges = self.nodes[node].edges.as_ref().expect("an expanded node");
        let total: u32 = edges.iter().map(|e| e.visits).sum();
        let scores: Vec<f32> = improved
            .iter()
            .zip(edges)
            .map(|(p, edge)| p - edge.visits as f32 / (1.0 + total as f32))
            .collect();
        argmax(&scores)
    }

    /// What a Gumbel search found: the considered decision with the most visits in this
    /// search and the best noisy score among those, the improved policy (softmax of logits
    /// plus sigma(completed Q), over the legal decisions) and the root's value.
    ///
    /// # Panics
    /// When no search was prepared at the root.
    pub fn gumbel_result(&mut self) -> GumbelResult {
        if self.gumbel.is_none() {
            self.start_gumbel();
        }
        let gumbel = self.gumbel.as_ref().expect("started");
        let most = gumbel.visits.iter().copied().max().unwrap_or(0);
        let chosen = argmax(&self.considered_scores(most));
        let mut improved = self.logits(self.root);
        for (logit, sigma) in improved.iter_mut().zip(self.transformed_values(self.root)) {
            *logit += sigma;
        }
        softmax(&mut improved);
        let edges = self.root_edges();
        GumbelResult {
            decision: edges[chosen].decision,
            policy: edges
                .iter()
                .zip(improved)
                .map(|(edge, share)| (edge.decision, share))
                .collect(),
            value: self.result().value,
        }
    }

    /// A decision drawn with probability proportional to visits^(1/temperature); the most
    /// visited one at temperature 0.
    pub fn sample(&mut self, result: &SearchResult, temperature: f32) -> Decision {
        if temperature <= 0.0 {
            return result.best();
        }
        let weights: Vec<f64> = result
            .decisions
            .iter()
            .map(|d| f64::from(d.1).powf(1.0 / f64::from(temperature)))
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 || !total.is_finite() {
            return result.best();
        }
        let mut pick = self.rng.random::<f64>() * total;
        for (decision, weight) in result.decisions.iter().zip(&weights) {
            if pick < *weight {
                return decision.0;
            }
            pick -= weight;
        }
        result.best()
    }
}

#[cfg(test)]
mod tests {
    use super::considered_visit_schedule;

    #[test]
    fn sequential_halving_visits_as_mctx_plans_them() {
        // 4 considered, 16 simulations: two rounds of all four, then the best two four times.
        assert_eq!(
            considered_visit_schedule(4, 16),
            [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        // Fewer simulations than decisions: the first phase is cut short.
        assert_eq!(considered_visit_schedule(16, 4), [0, 0, 0, 0]);
        assert_eq!(considered_visit_schedule(1, 3), [0, 1, 2]);
        // Halving stops at two.
        let long = considered_visit_schedule(2, 10);
        assert_eq!(long, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    }
}
