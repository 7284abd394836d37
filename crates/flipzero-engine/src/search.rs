//! The classical player for every variant: negamax alpha-beta over the rules' decisions with
//! iterative deepening, principal-variation (null-window) search, a transposition table, and
//! move ordering by the table's move, the static evaluation of each child and a history
//! table, and, with fitted lines, Multi-ProbCut in the middle game. Below a configurable
//! number of empties it plays exactly: Othello-move rules go to the bitboard solver, every
//! other variant is searched to the end of the game. With a
//! clock, the solver is also tried a few empties further for half the time, and an
//! iteration the clock cuts short still decides once it has found a better move.
//!
//! Values are in centi-discs for the side to move, signed by the objective (higher is always
//! better) and with komi counted, so that a value above 0 is a win. A win decided by a rule (a
//! line) is worth more than any disc margin.
//!
//! Depth counts decisions: a multi-step turn (a neuversi drop, a rotation's orientations, a
//! biversi second placement) takes several.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use flipzero_core::variant::rules::{LineFallback, Objective};
use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Position, Rules};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::eval::{Evaluator, Weights, eval_bound};
use crate::exact::ExactSolver;
use crate::probcut::ProbCutSpec;
use crate::solver::{
    Goal, Solution, solve_for, solve_in_window_by, solve_one_best, solve_one_best_by,
};

/// The depth of a search that runs to the end of the game.
const TO_THE_END: u32 = u32::MAX;

/// The value of the chance event after equal komi bids, for whoever is to move there: its two
/// outcomes seat the same position with the bidders' colours exchanged, so one bidder's value
/// in the one is minus theirs in the other, and the mean is exactly 0 (checked against
/// [`minimax`], which takes the mean).
const CHANCE_VALUE: i32 = 0;

/// With a clock, positions up to this many empties beyond the solve threshold are first
/// given to the solver for half the time; a solve that does not finish in it is given up.
const TIMED_SOLVE_EXTRA_EMPTIES: u32 = 8;

/// Limits are checked once every this many nodes (a power of two).
const LIMIT_CHECK_INTERVAL: u64 = 1024;
/// Below this remaining depth children are ordered by history alone: evaluating each one
/// costs more than it saves.
const EVAL_ORDERING_DEPTH: u32 = 2;
/// From this remaining depth children are ordered by a shallow search of each (a quarter of
/// the depth), which predicts the best move far better than the evaluation of the child.
const SEARCH_ORDERING_DEPTH: u32 = 5;

/// Root decisions with their values, in search order.
type RootValues = Vec<(Decision, i32)>;

/// The depth left below `child`, depth counting turns (docs/RULES.md section 6): a decision
/// that leaves the mover's turn unfinished (an orientation, a second placement, a swap) uses
/// none, so that depth N is N turns in every preset.
fn depth_after<W: Bitboard>(depth: u32, child: &Game<W>) -> u32 {
    if depth == TO_THE_END || depth == 0 || child.is_mid_turn() {
        depth
    } else {
        depth - 1
    }
}

/// How the player searches.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Deepest iteration, in turns (all of one player's decisions before the other moves).
    pub depth: u32,
    /// Stop after about this many nodes; the last finished iteration decides.
    pub nodes: Option<u64>,
    /// Stop after about this long; the last finished iteration decides.
    pub time: Option<Duration>,
    /// A whole game's thinking time, shared out over the game's decisions by
    /// [`Engine::move_time`] (the middle game gets what exact endgame moves do not need);
    /// whoever runs the games keeps the clock. `time`, when also given, caps each decision.
    pub game_time: Option<Duration>,
    /// At this many empty squares or fewer, play exactly with the bitboard solver (rules with
    /// Othello's moves and a disc-count objective).
    pub solve_empties: u32,
    /// At this many empty squares or fewer, play exactly by searching the decision tree to
    /// the end (every other variant whose turns each fill a square: not sacrifice or
    /// neuversi, where a sacrifice or a swap of neutrals fills none and the tree has no near
    /// end).
    pub end_search_empties: u32,
    /// Pick uniformly among the moves within this many centi-discs of the best, so that
    /// evaluation games vary; 0 always plays the first best move.
    pub random_margin: i32,
    /// Seed of that choice: equal seeds give equal games.
    pub seed: u64,
    /// The transposition table holds 2^table_bits entries.
    pub table_bits: u32,
    /// Whether the evaluation adds the profile's pattern model, where it has one (off: the
    /// linear weights alone, as before pattern models).
    pub patterns: bool,
    /// Multi-ProbCut's confidence in sigmas of the profile's fitted lines (`crate::probcut`):
    /// a node is cut when a shallow search puts the deep value this far beyond a bound. 0
    /// (or a profile without lines) searches every node in full. Default
    /// [`DEFAULT_PROBCUT`].
    pub probcut: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            depth: 8,
            nodes: None,
            time: None,
            game_time: None,
            solve_empties: 12,
            end_search_empties: 4,
            random_margin: 0,
            seed: 0,
            table_bits: 18,
            patterns: true,
            probcut: DEFAULT_PROBCUT,
        }
    }
}

/// Multi-ProbCut's default confidence: on 8x8 Othello at 0.1 s a move, cuts at 1.5 sigmas
/// beat no cuts by 66.7% (+/-5.3) and cuts at 1 sigma beat 1.5 by 55.3% (+/-5.2), each over
/// 300 paired games (`experiments/2026-12-03-search-trials`).
pub const DEFAULT_PROBCUT: f32 = 1.0;

/// The longest time an engine option may give.
const MAX_SECONDS: f64 = 1e6;
/// The widest random margin an engine option may give (a thousand discs: any move).
const MAX_RANDOM_MARGIN: i32 = 100_000;

/// A search setting that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "engine option `{option}`: {reason} (options: depth=N, nodes=N, time=SECONDS, game-time=SECONDS, solve=EMPTIES, end=EMPTIES, random=CENTIDISCS, seed=N, table-bits=N, patterns=on|off, probcut=SIGMAS)"
)]
pub struct ConfigError {
    /// The option as written.
    pub option: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::str::FromStr for SearchConfig {
    type Err = ConfigError;

    /// Reads `key=value` options separated by commas, for example `depth=8,time=1.5`; keys
    /// not given keep their defaults.
    fn from_str(text: &str) -> Result<Self, ConfigError> {
        let mut config = SearchConfig::default();
        for option in text.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            let error = |reason: &str| ConfigError {
                option: option.to_owned(),
                reason: reason.to_owned(),
            };
            let (key, value) = option
                .split_once('=')
                .ok_or_else(|| error("expected key=value"))?;
            let number = || -> Result<u64, ConfigError> {
                value.parse().map_err(|_| error("not a whole number"))
            };
            match key {
                "depth" => {
                    config.depth = u32::try_from(number()?)
                        .ok()
                        .filter(|d| (1..=64).contains(d))
                        .ok_or_else(|| error("use a depth from 1 to 64"))?;
                }
                "nodes" => config.nodes = Some(number()?.max(1)),
                "time" | "game-time" => {
                    let seconds: f64 = value
                        .parse()
                        .map_err(|_| error("not a number of seconds"))?;
                    if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS) {
                        return Err(error("use a time above 0 and at most a million seconds"));
                    }
                    let time = Some(Duration::from_secs_f64(seconds));
                    if key == "time" {
                        config.time = time;
                    } else {
                        config.game_time = time;
                    }
                }
                "solve" => {
                    config.solve_empties = u32::try_from(number()?)
                        .ok()
                        .filter(|&e| e <= 40)
                        .ok_or_else(|| error("use 0 to 40 empties"))?;
                }
                "end" => {
                    config.end_search_empties = u32::try_from(number()?)
                        .ok()
                        .filter(|&e| e <= 20)
                        .ok_or_else(|| error("use 0 to 20 empties"))?;
                }
                "random" => {
                    config.random_margin =
                        i32::try_from(number()?).map_err(|_| error("too large"))?;
                }
                "seed" => config.seed = number()?,
                "table-bits" => {
                    config.table_bits = u32::try_from(number()?)
                        .ok()
                        .filter(|b| (8..=24).contains(b))
                        .ok_or_else(|| error("use 8 to 24"))?;
                }
                "patterns" => {
                    config.patterns = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(error("use on or off")),
                    };
                }
                "probcut" => {
                    config.probcut = value
                        .parse::<f32>()
                        .ok()
                        .filter(|t| (0.0..=10.0).contains(t))
                        .ok_or_else(|| error("use 0 (off) to 10 sigmas"))?;
                }
                _ => return Err(error("unknown option")),
            }
        }
        Ok(config)
    }
}

/// The move a search chose and what it thinks of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The decision to play.
    pub decision: Decision,
    /// Its value for the side to move, in centi-discs (see the module docs).
    pub value: i32,
    /// Whether the value is exact (the game was searched to its end).
    pub exact: bool,
    /// The deepest iteration that decided (the empties, for an exact search): the last one
    /// may have been cut short by a limit once its first move was searched, and decides
    /// when it found a better move.
    pub depth: u32,
    /// Nodes visited by this search.
    pub nodes: u64,
    /// The expected line of play, from the chosen decision on.
    pub principal_variation: Vec<Decision>,
}

/// The value of one decision, from `Engine::analyze`.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionValue {
    /// The decision.
    pub decision: Decision,
    /// Its value for the side to move, in centi-discs.
    pub value: i32,
    /// Whether the value is exact.
    pub exact: bool,
    /// The turns searched for it, the decision's own turn counted: the depth asked for
    /// unless the clock stopped the search before (not meaningful for an exact value).
    pub depth: u32,
}

/// A value as `Engine::searched_value` finds it.
struct SearchedValue {
    value: i32,
    exact: bool,
    /// The last iteration finished (the depth asked for when exact).
    depth: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    value: i32,
    depth: u32,
    bound: Bound,
    /// Index of the best decision plus one; 0 when none is known.
    best: u32,
}

const EMPTY_ENTRY: Entry = Entry {
    key: 0,
    value: 0,
    depth: 0,
    bound: Bound::Exact,
    best: 0,
};

/// An alpha-beta player for one set of rules.
pub struct Engine<W: Bitboard> {
    rules: Rules,
    config: SearchConfig,
    evaluator: Evaluator<W>,
    /// Set when the bitboard solver can solve these rules' positions.
    exact: Option<ExactSolver>,
    fewest_discs: bool,
    /// Multi-ProbCut's lines, when the config asks for cuts and the profile has them.
    probcut: Option<Arc<ProbCutSpec>>,
    table: Vec<Entry>,
    /// Per decision index: how often it caused a cut-off, weighted by depth.
    history: Vec<u32>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Whether a search to the end hands every position the bitboard solver can finish to
    /// it (the values of whole games, `crate::game_value`); otherwise only the root does.
    solver_leaves: bool,
    /// A search to the end stops at a line longer than this many turns (values of whole
    /// games under rules whose turns need not fill a square); no limit by default.
    max_line_turns: u16,
    /// Set when a line went past `max_line_turns`.
    line_too_long: bool,
    /// What the solver has proved of each position it was handed as a leaf (its score lies
    /// within these bounds), keyed by the discs and supplies alone: the score does not depend
    /// on the komi, so positions that differ only by it (the bids of a komi auction lead to
    /// one start under many komis) share what was solved, where the table keeps them apart.
    solved_bounds: HashMap<SolvedKey<W>, (i32, i32)>,
    rng: ChaCha8Rng,
}

/// A solver leaf without its komi: the mover's and the other side's discs and supplies.
type SolvedKey<W> = (W, W, Option<(u32, u32)>);

/// Why a search to the end gave no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfinished {
    /// The time or node limit stopped it.
    Limit,
    /// A line went past the turns allowed: the rules let play repeat positions, so the tree
    /// is not bounded by the board.
    LineTooLong,
}

/// Whether every turn fills a square, so that a search to the end stays near: not with
/// sacrifices or neutral swaps.
pub fn fills_a_square_per_turn(rules: &Rules) -> bool {
    rules.spec().sacrifice.is_none() && rules.spec().neutral.is_none()
}

impl<W: Bitboard> Engine<W> {
    /// A player for `rules` with these weights.
    ///
    /// # Panics
    /// When `W` is too narrow for the rules' board (a programmer error: pick `W` with
    /// `flipzero_core::with_width!`).
    pub fn new(rules: &Rules, mut weights: Weights, config: SearchConfig) -> Self {
        if !config.patterns && weights.patterns.take().is_some() {
            // The lines were fitted over the evaluation with its tables.
            weights.probcut = None;
        }
        let geometry = flipzero_core::Geometry::<W>::get(rules.rows(), rules.cols())
            .expect("the bitboard width fits the board");
        let table_size = 1usize << config.table_bits.clamp(8, 24);
        let probcut = weights.probcut.clone().filter(|_| config.probcut > 0.0);
        Self {
            probcut,
            evaluator: Evaluator::new(rules, geometry, weights),
            exact: ExactSolver::new(rules),
            fewest_discs: rules.spec().objective == Objective::FewestDiscs,
            table: vec![EMPTY_ENTRY; table_size],
            history: vec![0; rules.decision_count()],
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stopped: false,
            solver_leaves: false,
            max_line_turns: u16::MAX,
            line_too_long: false,
            solved_bounds: HashMap::new(),
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            rules: rules.clone(),
            config,
        }
    }

    /// The rules this player plays.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The search settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the time limit of the next searches (a clock in a timed game).
    pub fn set_time(&mut self, time: Option<Duration>) {
        self.config.time = time;
    }

    /// The share of `left`, the time left on this player's clock, that the decision at
    /// `game` should take. The player's remaining decisions are weighed by what they need:
    /// one for a search, half for one the solver may take within half its time (up to
    /// 8 empties beyond the solve threshold), a twentieth for an exact one (at or below the
    /// threshold, fast); this decision gets its weight's part, and never more than half of
    /// what is left.
    pub fn move_time(&self, left: Duration, game: &Game<W>) -> Duration {
        const SEARCH: f64 = 1.0;
        const TIMED_SOLVE: f64 = 0.5;
        const EXACT: f64 = 0.05;
        let solvable = self.as_position(game).is_some();
        let searched_to_the_end = fills_a_square_per_turn(&self.rules);
        let (exact, timed_solve) = (
            self.config.solve_empties,
            self.config.solve_empties + TIMED_SOLVE_EXTRA_EMPTIES,
        );
        let weight = |empties: u32| {
            if solvable && empties <= exact {
                EXACT
            } else if solvable && empties <= timed_solve {
                TIMED_SOLVE
            } else if !solvable && searched_to_the_end && empties <= self.config.end_search_empties
            {
                EXACT
            } else {
                SEARCH
            }
        };
        // This player's decisions: every other empty square from here (turns alternate
        // but for passes, which are rare).
        let empties = game.empty().count();
        let total: f64 = (0..=empties)
            .rev()
            .step_by(2)
            .filter(|&e| e > 0)
            .map(weight)
            .sum();
        // The decision being made counts even on a board without empty squares (a swap or a
        // sacrifice can still be open), so its share is never more than what is left.
        let share = weight(empties) / total.max(weight(empties));
        left.mul_f64(share).min(left / 2)
    }

    /// The evaluation in use.
    pub fn evaluator(&self) -> &Evaluator<W> {
        &self.evaluator
    }

    // ----- values -----

    /// Komi in half discs, once settled (0 during bidding).
    fn komi_halves(game: &Game<W>) -> i32 {
        (game.komi() * 2.0).round() as i32
    }

    /// A value for Black turned into one for `color`.
    fn for_color(black_value: i32, color: Color) -> i32 {
        match color {
            Color::Black => black_value,
            Color::White => -black_value,
        }
    }

    /// The value for Black of a final margin (Black minus White, as the rules count it).
    fn margin_value(&self, black_margin: i32, komi_halves: i32) -> i32 {
        let halves = 2 * black_margin - komi_halves;
        50 * if self.fewest_discs { -halves } else { halves }
    }

    /// A win decided by a rule: more than any margin.
    fn rule_win(&self) -> i32 {
        2 * eval_bound(&self.rules) + 100
    }

    /// The exact value of a finished game for its side to move.
    fn terminal_value(&self, game: &Game<W>) -> i32 {
        let black = match game.decided() {
            Some(Outcome::Draw) => 0,
            Some(Outcome::Win(color)) => Self::for_color(self.rule_win(), color),
            None => match self.rules.spec().objective {
                Objective::Line {
                    fallback: LineFallback::Draw,
                    ..
                } => 0,
                _ => self.margin_value(game.score(&self.rules), Self::komi_halves(game)),
            },
        };
        Self::for_color(black, game.side_to_move())
    }

    /// What the komi is worth to the side to move, in centi-discs of value.
    pub fn komi_value(&self, game: &Game<W>) -> i32 {
        Self::for_color(
            self.margin_value(0, Self::komi_halves(game)),
            game.side_to_move(),
        )
    }

    /// The static value of an unfinished game for its side to move: the predicted margin plus
    /// the komi.
    fn static_value(&self, game: &Game<W>) -> i32 {
        self.evaluator.evaluate(&self.rules, game) + self.komi_value(game)
    }

    /// The game as a bitboard position when the solver can finish it exactly from here.
    fn as_position(&self, game: &Game<W>) -> Option<(Position<W>, Goal)> {
        let exact = self.exact.as_ref()?;
        Some((exact.position(game)?, exact.goal_for(game)))
    }

    /// The value of a solver's score (side-to-move margin, objective-signed) for that side.
    fn solved_value(&self, game: &Game<W>, score: i32) -> i32 {
        let side = game.side_to_move();
        let side_margin = if self.fewest_discs { -score } else { score };
        let black = self.margin_value(Self::for_color(side_margin, side), Self::komi_halves(game));
        Self::for_color(black, side)
    }

    /// The solver's window (side-to-move scores) for the engine's window (`alpha`, `beta`):
    /// a score at or below its low edge has a value at or below `alpha`, one at or above its
    /// high edge a value at or above `beta`. [`Self::solved_value`] is a score times a disc's
    /// value plus the komi, so the edges are the engine's bounds divided out, rounded outward
    /// and kept within one past the largest margin.
    fn solver_window(&self, game: &Game<W>, alpha: i32, beta: i32) -> (i32, i32) {
        let offset = self.solved_value(game, 0);
        let per_disc = self.solved_value(game, 1) - offset;
        let most = game.geometry().square_count() as i32 + 1;
        let low = (alpha - offset).div_euclid(per_disc);
        let high = -(offset - beta).div_euclid(per_disc);
        (low.clamp(-most, most - 1), high.clamp(1 - most, most))
    }

    /// The solver's score of a leaf in the window (`low`, `high`), as
    /// [`solve_in_window_by`] gives it (at or below `low`: at most that; at or above `high`:
    /// at least that), answered from what earlier leaves of the same discs proved where that
    /// suffices, else solved in the part of the window still unknown; `None` when the clock
    /// stopped it.
    fn solved_score(
        &mut self,
        position: &Position<W>,
        goal: Goal,
        low: i32,
        high: i32,
    ) -> Option<i32> {
        let key = (
            position.player(),
            position.opponent(),
            goal.supplies.map(|s| (s.mover, s.other)),
        );
        let most = position.geometry().square_count() as i32 + 1;
        let (at_least, at_most) = self
            .solved_bounds
            .get(&key)
            .copied()
            .unwrap_or((-most, most));
        if at_most <= low || at_least == at_most {
            return Some(at_most);
        }
        if at_least >= high {
            return Some(at_least);
        }
        // The score lies within the bounds, so a window clipped to them answers as much.
        let (low, high) = (low.max(at_least - 1), high.min(at_most + 1));
        let solution = solve_in_window_by(position, goal, low, high, self.deadline)?;
        self.nodes += solution.nodes;
        let score = solution.score;
        let proved = if score <= low {
            (at_least, at_most.min(score))
        } else if score >= high {
            (at_least.max(score), at_most)
        } else {
            (score, score)
        };
        self.solved_bounds.insert(key, proved);
        Some(score)
    }

    /// Whether to play `game` exactly rather than by a depth-limited search.
    fn plays_exactly(&self, game: &Game<W>) -> bool {
        let empties = game.empty().count();
        if self.as_position(game).is_some() {
            return empties <= self.config.solve_empties;
        }
        fills_a_square_per_turn(&self.rules) && empties <= self.config.end_search_empties
    }

    // ----- limits -----

    fn start_clock(&mut self) {
        self.nodes = 0;
        self.stopped = false;
        self.line_too_long = false;
        self.node_limit = self.config.nodes.unwrap_or(u64::MAX);
        self.deadline = self
            .config
            .time
            .and_then(|limit| Instant::now().checked_add(limit));
    }

    fn check_limits(&mut self) {
        let out_of_time = self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        if self.nodes >= self.node_limit || out_of_time {
            self.stopped = true;
        }
    }

    // ----- the search -----

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    /// The legal decisions with their children, in search order.
    fn ordered_children(&self, game: &Game<W>, depth: u32, hint: u32) -> Vec<(Decision, Game<W>)> {
        // (table's move, evaluation for the mover, history): larger searches first.
        type Rank = (bool, i32, u32);
        let mut ranked: Vec<(Rank, Decision, Game<W>)> = game
            .legal_decisions(&self.rules)
            .into_iter()
            .map(|decision| {
                let index = self.rules.decision_index(decision);
                let child = game.play_unchecked(&self.rules, decision);
                let guess = if depth >= EVAL_ORDERING_DEPTH {
                    let value = if child.is_over() {
                        self.terminal_value(&child)
                    } else if child.awaits_chance() {
                        CHANCE_VALUE
                    } else {
                        self.static_value(&child)
                    };
                    if game.same_player_to_move(&child) {
                        value
                    } else {
                        -value
                    }
                } else {
                    0
                };
                let rank = (index as u32 + 1 == hint, guess, self.history[index]);
                (rank, decision, child)
            })
            .collect();
        ranked.sort_by_key(|&(rank, ..)| std::cmp::Reverse(rank));
        ranked
            .into_iter()
            .map(|(_, decision, child)| (decision, child))
            .collect()
    }

    /// [`Self::ordered_children`], and from [`SEARCH_ORDERING_DEPTH`] on the children after
    /// the table's move sorted by a search of each to a quarter of `depth`.
    fn search_ordered_children(
        &mut self,
        game: &Game<W>,
        depth: u32,
        hint: u32,
    ) -> Vec<(Decision, Game<W>)> {
        let mut children = self.ordered_children(game, depth, hint);
        if depth == TO_THE_END || depth < SEARCH_ORDERING_DEPTH || children.len() < 3 {
            return children;
        }
        let first_is_hint = self.rules.decision_index(children[0].0) as u32 + 1 == hint;
        let shallow = depth / 4;
        let infinity = 4 * self.rule_win();
        let mut ranked: Vec<(i32, (Decision, Game<W>))> = children
            .drain(usize::from(first_is_hint)..)
            .map(|(decision, child)| {
                let value = self.child_value(game, &child, shallow, -infinity, infinity);
                (value, (decision, child))
            })
            .collect();
        // Stable: equal values keep the evaluation's order.
        ranked.sort_by_key(|&(value, _)| std::cmp::Reverse(value));
        children.extend(ranked.into_iter().map(|(_, child)| child));
        children
    }

    /// The value of `child` for the side that moved into it.
    fn child_value(
        &mut self,
        parent: &Game<W>,
        child: &Game<W>,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if parent.same_player_to_move(child) {
            self.negamax(child, depth, alpha, beta)
        } else {
            -self.negamax(child, depth, -beta, -alpha)
        }
    }

    /// Negamax alpha-beta (fail-soft) with a null-window search of every move after the
    /// first. `depth` is [`TO_THE_END`] for an exact search.
    fn negamax(&mut self, game: &Game<W>, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(LIMIT_CHECK_INTERVAL) {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        if game.is_over() {
            return self.terminal_value(game);
        }
        if game.awaits_chance() {
            return CHANCE_VALUE;
        }
        if depth == 0 {
            return self.static_value(game);
        }
        if depth == TO_THE_END && game.turns() > self.max_line_turns {
            self.line_too_long = true;
            self.stopped = true;
            return 0;
        }
        let key = game.hash();
        let slot = self.slot(key);
        let entry = self.table[slot];
        let mut hint = 0;
        if entry.key == key {
            // Only a search of the same depth is reused, so that a value never depends on
            // which transpositions the table happened to hold.
            if entry.depth == depth {
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => entry.value >= beta,
                    Bound::Upper => entry.value <= alpha,
                };
                if usable {
                    return entry.value;
                }
            }
            hint = entry.best;
        }
        if depth == TO_THE_END
            && self.solver_leaves
            && let Some((position, goal)) = self.as_position(game)
        {
            // The solver searches only the window the caller needs (a bound outside it
            // suffices) and keeps the search's clock: a leaf far from the end must not
            // outlive it.
            let (low, high) = self.solver_window(game, alpha, beta);
            let Some(score) = self.solved_score(&position, goal, low, high) else {
                self.stopped = true;
                return 0;
            };
            let value = self.solved_value(game, score);
            let bound = if score <= low {
                Bound::Upper
            } else if score >= high {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.table[slot] = Entry {
                key,
                value,
                depth,
                bound,
                best: 0,
            };
            return value;
        }
        if depth != TO_THE_END
            && let Some(value) = self.probable_cut(game, depth, alpha, beta)
        {
            return value;
        }
        if self.stopped {
            return 0;
        }
        let children = self.search_ordered_children(game, depth, hint);
        let original_alpha = alpha;
        let mut best = i32::MIN;
        let mut best_index = 0;
        for (rank, (decision, child)) in children.iter().enumerate() {
            let child_depth = depth_after(depth, child);
            let value = if rank == 0 {
                self.child_value(game, child, child_depth, alpha, beta)
            } else {
                let probe = self.child_value(game, child, child_depth, alpha, alpha + 1);
                if probe > alpha && probe < beta {
                    self.child_value(game, child, child_depth, probe, beta)
                } else {
                    probe
                }
            };
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
                best_index = self.rules.decision_index(*decision);
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        let bonus = if depth == TO_THE_END {
                            64
                        } else {
                            depth * depth
                        };
                        let history = &mut self.history[best_index];
                        *history = history.saturating_add(bonus);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // A deeper result for the same position is worth more (its move orders the next
        // iteration); the shallow ordering and ProbCut searches would otherwise replace it.
        let held = self.table[slot];
        if held.key != key || held.depth <= depth {
            self.table[slot] = Entry {
                key,
                value: best,
                depth,
                bound,
                best: best_index as u32 + 1,
            };
        }
        best
    }

    /// Multi-ProbCut: `beta` when a null-window search to the shallow depth puts the deep
    /// value above `beta` by the config's number of sigmas, `alpha` when it puts it as far
    /// below `alpha`, else `None` (also without a line for this depth and stage, or when a
    /// bound lies beyond any evaluation).
    fn probable_cut(&mut self, game: &Game<W>, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let line =
            self.probcut
                .as_ref()?
                .line(depth, game.empty().count(), self.rules.square_count())?;
        let margin = self.config.probcut * line.sigma;
        let bound = eval_bound(&self.rules);
        // The shallow value from which the deep one is almost surely at least `beta`.
        let high = ((beta as f32 + margin - line.intercept) / line.slope).ceil() as i32;
        if beta.abs() < bound && high.abs() < bound {
            let shallow = self.negamax(game, line.shallow, high - 1, high);
            if self.stopped {
                return None;
            }
            if shallow >= high {
                return Some(beta);
            }
        }
        let low = ((alpha as f32 - margin - line.intercept) / line.slope).floor() as i32;
        if alpha.abs() < bound && low.abs() < bound {
            let shallow = self.negamax(game, line.shallow, low, low + 1);
            if self.stopped {
                return None;
            }
            if shallow <= low {
                return Some(alpha);
            }
        }
        None
    }

    /// One root iteration: every move's value, exact for the best ones and for those within
    /// `margin` of the best, an upper bound for the others. When a limit stops it, the
    /// values of the moves searched before come back as `Err`.
    fn search_root(
        &mut self,
        game: &Game<W>,
        moves: &[(Decision, Game<W>)],
        depth: u32,
        margin: i32,
    ) -> Result<RootValues, RootValues> {
        let infinity = 4 * self.rule_win();
        let mut best = -infinity;
        let mut values = Vec::with_capacity(moves.len());
        for (rank, (decision, child)) in moves.iter().enumerate() {
            let child_depth = depth_after(depth, child);
            let value = if rank == 0 {
                self.child_value(game, child, child_depth, -infinity, infinity)
            } else {
                // With a margin, every move within it needs an exact value; without one, a
                // move only has to be shown no better than the best so far.
                let floor = if margin > 0 {
                    best.saturating_sub(margin.saturating_add(1))
                } else {
                    best
                };
                let probe = self.child_value(game, child, child_depth, floor, floor + 1);
                if probe > floor {
                    self.child_value(game, child, child_depth, floor, infinity)
                } else {
                    probe
                }
            };
            if self.stopped {
                return Err(values);
            }
            best = best.max(value);
            values.push((*decision, value));
        }
        Ok(values)
    }

    /// The root moves in the order of their last values, best first (stable for ties).
    fn reorder(moves: &mut [(Decision, Game<W>)], values: &[(Decision, i32)]) {
        let value_of = |decision: &Decision| {
            values
                .iter()
                .find(|(d, _)| d == decision)
                .map_or(i32::MIN, |(_, v)| *v)
        };
        moves.sort_by_key(|(decision, _)| std::cmp::Reverse(value_of(decision)));
    }

    /// The line the table expects after `decision`.
    fn principal_variation(&self, game: &Game<W>, decision: Decision) -> Vec<Decision> {
        let mut line = vec![decision];
        let mut position = game.play_unchecked(&self.rules, decision);
        while line.len() < 64 && !position.is_over() {
            let entry = self.table[self.slot(position.hash())];
            if entry.key != position.hash() || entry.best == 0 {
                break;
            }
            let Some(next) = self.rules.decision_at(entry.best as usize - 1) else {
                break;
            };
            if !position.legal_decisions(&self.rules).contains(&next) {
                break;
            }
            line.push(next);
            position = position.play_unchecked(&self.rules, next);
        }
        line
    }

    /// Chooses among root moves: the first best one, or one drawn within the margin.
    fn pick(&mut self, values: &[(Decision, i32)]) -> (Decision, i32) {
        let best = values
            .iter()
            .map(|&(_, v)| v)
            .max()
            .expect("at least one move");
        let margin = self.config.random_margin.clamp(0, MAX_RANDOM_MARGIN);
        if margin == 0 {
            return *values
                .iter()
                .find(|&&(_, v)| v == best)
                .expect("the best is there");
        }
        let candidates: Vec<(Decision, i32)> = values
            .iter()
            .copied()
            .filter(|&(_, v)| v >= best.saturating_sub(margin))
            .collect();
        *candidates
            .choose(&mut self.rng)
            .expect("the best is a candidate")
    }

    /// Chooses a decision for the side to move; `None` once the game is over.
    ///
    /// ```
    /// use flipzero_core::{Game, Preset};
    /// use flipzero_engine::{Engine, SearchConfig, WeightsFile};
    ///
    /// let rules = Preset::Othello.rules(Some(6))?;
    /// let weights = WeightsFile::embedded().weights_for(&rules, "embedded")?;
    /// let config: SearchConfig = "depth=4".parse()?;
    /// let mut engine = Engine::<u64>::new(&rules, weights, config);
    /// let start = Game::<u64>::start(&rules);
    /// let choice = engine.choose(&start).expect("the game is not over");
    /// assert!(start.legal_decisions(&rules).contains(&choice.decision));
    /// assert_eq!((choice.depth, choice.exact), (4, false));
    /// assert_eq!(choice.principal_variation[0], choice.decision);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn choose(&mut self, game: &Game<W>) -> Option<Choice> {
        if game.is_over() {
            return None;
        }
        if let Some(decision) = game.draw_chance(&self.rules, &mut self.rng) {
            // Nothing to search: an outcome drawn, as whoever runs the game should have.
            return Some(Choice {
                decision,
                value: CHANCE_VALUE,
                exact: true,
                depth: 0,
                nodes: 0,
                principal_variation: vec![decision],
            });
        }
        self.start_clock();
        if self.plays_exactly(game) {
            if let Some(choice) = self.choose_exactly(game) {
                return Some(choice);
            }
            self.start_clock();
        }
        if let Some(choice) = self.solve_in_half_the_time(game) {
            return Some(choice);
        }
        let margin = self.config.random_margin.max(0);
        let mut moves = self.ordered_children(game, 1, 0);
        let mut finished: Option<(RootValues, u32)> = None;
        for depth in 1..=self.config.depth.max(1) {
            match self.search_root(game, &moves, depth, margin) {
                Ok(values) => {
                    Self::reorder(&mut moves, &values);
                    finished = Some((values, depth));
                }
                // The first iteration always finishes: a player must answer.
                Err(_) if finished.is_none() => {
                    self.stopped = false;
                    self.node_limit = u64::MAX;
                    self.deadline = None;
                    let values = self
                        .search_root(game, &moves, 1, margin)
                        .expect("no limits");
                    finished = Some((values, 1));
                    break;
                }
                Err(partial) => {
                    // The first move is the last iteration's best: a later one that beat its
                    // value at this depth is better (all moves count only for a random pick).
                    let first = partial.first().map(|&(_, value)| value);
                    let beaten = partial.iter().any(|&(_, value)| Some(value) > first);
                    if margin == 0 && beaten {
                        finished = Some((partial, depth));
                    }
                    break;
                }
            }
        }
        let (values, depth) = finished.expect("at least one iteration");
        let (decision, value) = self.pick(&values);
        Some(Choice {
            decision,
            value,
            exact: false,
            depth,
            nodes: self.nodes,
            principal_variation: self.principal_variation(game, decision),
        })
    }

    /// An exact choice: the bitboard solver where it applies, else a search to the end.
    /// `None` when a limit stopped the search to the end.
    fn choose_exactly(&mut self, game: &Game<W>) -> Option<Choice> {
        let empties = game.empty().count();
        if let Some((position, goal)) = self.as_position(game) {
            // A random choice needs every best move; otherwise one is enough and faster.
            let solution = if self.config.random_margin > 0 {
                solve_for(&position, goal)
            } else {
                solve_one_best(&position, goal)
            };
            return Some(self.solved_choice(game, &solution));
        }
        let moves = self.ordered_children(game, TO_THE_END, 0);
        let values = self
            .search_root(game, &moves, TO_THE_END, self.config.random_margin.max(0))
            .ok()?;
        let (decision, value) = self.pick(&values);
        Some(Choice {
            decision,
            value,
            exact: true,
            depth: empties,
            nodes: self.nodes,
            principal_variation: self.principal_variation(game, decision),
        })
    }

    /// A choice among a solution's best moves.
    fn solved_choice(&mut self, game: &Game<W>, solution: &Solution) -> Choice {
        let value = self.solved_value(game, solution.score);
        let best: Vec<(Decision, i32)> = if solution.best_moves.is_empty() {
            vec![(Decision::Pass, value)]
        } else {
            solution
                .best_moves
                .iter()
                .map(|&square| (Decision::square(square), value))
                .collect()
        };
        let (decision, value) = self.pick(&best);
        Choice {
            decision,
            value,
            exact: true,
            depth: game.empty().count(),
            nodes: solution.nodes,
            principal_variation: vec![decision],
        }
    }

    /// With a clock, a position a few empties beyond the solve threshold is given to the
    /// solver for half the time left: a perfect move when it finishes, else `None` and the
    /// search has the rest. Only one best move is proved, so not for a random pick.
    fn solve_in_half_the_time(&mut self, game: &Game<W>) -> Option<Choice> {
        let deadline = self.deadline?;
        let empties = game.empty().count();
        let reach = self.config.solve_empties + TIMED_SOLVE_EXTRA_EMPTIES;
        if self.config.random_margin > 0 || empties > reach {
            return None;
        }
        let (position, goal) = self.as_position(game)?;
        let now = Instant::now();
        let half = now + deadline.saturating_duration_since(now) / 2;
        let solution = solve_one_best_by(&position, goal, half)?;
        Some(self.solved_choice(game, &solution))
    }

    /// The value of a position for its side to move: exact below the solve threshold, else
    /// an iterative-deepening search to `depth`. Returns the value and whether it is exact.
    pub fn value(&mut self, game: &Game<W>, depth: u32) -> (i32, bool) {
        let searched = self.searched_value(game, depth);
        (searched.value, searched.exact)
    }

    /// `value`, with the depth of the last iteration the clock let finish.
    fn searched_value(&mut self, game: &Game<W>, depth: u32) -> SearchedValue {
        let exact = |value| SearchedValue {
            value,
            exact: true,
            depth,
        };
        if game.is_over() {
            return exact(self.terminal_value(game));
        }
        if game.awaits_chance() {
            return exact(CHANCE_VALUE);
        }
        self.start_clock();
        if self.plays_exactly(game) {
            if let Some((position, goal)) = self.as_position(game) {
                let solution = solve_one_best(&position, goal);
                return exact(self.solved_value(game, solution.score));
            }
            let value = self.negamax(game, TO_THE_END, -4 * self.rule_win(), 4 * self.rule_win());
            if !self.stopped {
                return exact(value);
            }
            self.start_clock();
        }
        let infinity = 4 * self.rule_win();
        let mut searched = SearchedValue {
            value: self.static_value(game),
            exact: false,
            depth: 0,
        };
        for iteration in 1..=depth {
            let found = self.negamax(game, iteration, -infinity, infinity);
            if self.stopped {
                break;
            }
            searched.value = found;
            searched.depth = iteration;
        }
        searched
    }

    /// Every legal decision with its value for the side to move, best first.
    pub fn analyze(&mut self, game: &Game<W>, depth: u32) -> Vec<DecisionValue> {
        let mut values: Vec<DecisionValue> = game
            .legal_decisions(&self.rules)
            .into_iter()
            .map(|decision| {
                let child = game.play_unchecked(&self.rules, decision);
                let child_depth = depth_after(depth, &child);
                let searched = self.searched_value(&child, child_depth);
                let value = if game.same_player_to_move(&child) {
                    searched.value
                } else {
                    -searched.value
                };
                DecisionValue {
                    decision,
                    value,
                    exact: searched.exact,
                    // The turns the clock cut from the child's search, off the depth asked.
                    depth: depth - (child_depth - searched.depth),
                }
            })
            .collect();
        values.sort_by_key(|entry| std::cmp::Reverse(entry.value));
        values
    }
}

/// Plain minimax over decisions to `depth` turns with the engine's evaluation: the slow
/// reference the alpha-beta search is tested against.
pub fn minimax<W: Bitboard>(engine: &Engine<W>, game: &Game<W>, depth: u32) -> i32 {
    minimax_counting(engine, game, depth, &mut MinimaxCount::default())
}

/// What a minimax to the end visited, and when it must stop.
#[derive(Debug, Default)]
pub struct MinimaxCount {
    /// Positions visited.
    pub nodes: u64,
    /// Past this instant the search stops and its value means nothing.
    pub deadline: Option<Instant>,
    /// A line longer than this many turns stops the search (`None`: no limit).
    pub max_turns: Option<u16>,
    /// Set when the deadline or the line limit stopped it.
    pub stopped: bool,
    /// Set when a line went past `max_turns`.
    pub line_too_long: bool,
    /// With a memo, each position's value is computed once and kept by [`Game::hash`]: every
    /// line is still valued, but a position reached again is not searched again (no
    /// pruning, no bounds: exact values only). Holds at most [`MINIMAX_MEMO_ENTRIES`].
    pub memo: Option<HashMap<u64, i32>>,
}

/// The most positions a minimax memo keeps (about 3 GB); beyond it, new positions are
/// searched without being kept.
pub const MINIMAX_MEMO_ENTRIES: usize = 1 << 27;

/// [`minimax`] to the end of the game (every line played out: no pruning, no table, no
/// solver), counting what it visits in `count`.
pub fn minimax_to_the_end<W: Bitboard>(
    engine: &Engine<W>,
    game: &Game<W>,
    count: &mut MinimaxCount,
) -> i32 {
    minimax_counting(engine, game, TO_THE_END, count)
}

fn minimax_counting<W: Bitboard>(
    engine: &Engine<W>,
    game: &Game<W>,
    depth: u32,
    count: &mut MinimaxCount,
) -> i32 {
    count.nodes += 1;
    if count.nodes.is_multiple_of(LIMIT_CHECK_INTERVAL)
        && count
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    {
        count.stopped = true;
    }
    if count.stopped {
        return 0;
    }
    if game.is_over() {
        return engine.terminal_value(game);
    }
    if depth == 0 && !game.awaits_chance() {
        return engine.static_value(game);
    }
    if count.max_turns.is_some_and(|most| game.turns() > most) {
        count.line_too_long = true;
        count.stopped = true;
        return 0;
    }
    let key = (depth == TO_THE_END && count.memo.is_some()).then(|| game.hash());
    if let Some(&value) = key.and_then(|key| count.memo.as_ref()?.get(&key)) {
        return value;
    }
    let value = minimax_children(engine, game, depth, count);
    if let (Some(key), Some(memo)) = (key, count.memo.as_mut())
        && !count.stopped
        && memo.len() < MINIMAX_MEMO_ENTRIES
    {
        memo.insert(key, value);
    }
    value
}

/// The minimax value of an unfinished `game` from its children's.
fn minimax_children<W: Bitboard>(
    engine: &Engine<W>,
    game: &Game<W>,
    depth: u32,
    count: &mut MinimaxCount,
) -> i32 {
    let values = game
        .legal_decisions(&engine.rules)
        .into_iter()
        .map(|decision| {
            let child = game.play_unchecked(&engine.rules, decision);
            let value = minimax_counting(engine, &child, depth_after(depth, &child), count);
            if game.same_player_to_move(&child) {
                value
            } else {
                -value
            }
        });
    if game.awaits_chance() {
        // The mean over equally likely outcomes (rounded towards 0).
        let values: Vec<i32> = values.collect();
        return values.iter().sum::<i32>() / values.len() as i32;
    }
    values
        .max()
        .expect("an unfinished game has a legal decision")
}

impl<W: Bitboard> Engine<W> {
    /// The value of a position searched to exactly `depth` by alpha-beta (no iterative
    /// deepening, no limits): what [`minimax`] must equal.
    pub fn search_value(&mut self, game: &Game<W>, depth: u32) -> i32 {
        self.start_clock();
        let infinity = 4 * self.rule_win();
        self.negamax(game, depth, -infinity, infinity)
    }

    /// The exact value of a position by searching the decision tree to the end, without the
    /// bitboard solver (to check one against the other).
    pub fn exact_value_by_search(&mut self, game: &Game<W>) -> i32 {
        self.start_clock();
        let infinity = 4 * self.rule_win();
        self.negamax(game, TO_THE_END, -infinity, infinity)
    }

    /// The exact value of a position by alpha-beta to the end; with `solver_leaves`, every
    /// position on the way that the bitboard solver can finish is given to it. The positions
    /// visited (the solver's included) are [`Engine::nodes`]. A line longer than
    /// `max_turns` turns (counted as [`Game::turns`]) stops the search.
    ///
    /// # Errors
    /// [`Unfinished`]: the config's time or node limit, or the line limit, stopped it.
    pub fn exact_value_with(
        &mut self,
        game: &Game<W>,
        solver_leaves: bool,
        max_turns: u16,
    ) -> Result<i32, Unfinished> {
        self.start_clock();
        self.solver_leaves = solver_leaves;
        self.max_line_turns = max_turns;
        let infinity = 4 * self.rule_win();
        let value = self.negamax(game, TO_THE_END, -infinity, infinity);
        self.solver_leaves = false;
        self.max_line_turns = u16::MAX;
        match (self.stopped, self.line_too_long) {
            (false, _) => Ok(value),
            (true, true) => Err(Unfinished::LineTooLong),
            (true, false) => Err(Unfinished::Limit),
        }
    }

    /// Positions the last search visited.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The least value of a win decided by a rule (a line), above every margin's value.
    pub fn rule_win_value(&self) -> i32 {
        self.rule_win()
    }

    /// The exact value of a position by the bitboard solver, where it applies.
    pub fn exact_value_by_solver(&self, game: &Game<W>) -> Option<i32> {
        let (position, goal) = self.as_position(game)?;
        Some(self.solved_value(game, solve_one_best(&position, goal).score))
    }
}
