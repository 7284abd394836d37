//! Game-theoretic values of whole variants: what a preset's start is worth to its first
//! player under perfect play by both sides.
//!
//! Two searches that share nothing but the rules and the final count give each value:
//! the engine's alpha-beta to the end ([`ValueSearch::AlphaBeta`], with its table and, where
//! the rules allow, the bitboard solver for every position it can finish) and plain minimax
//! ([`ValueSearch::Minimax`]: every line played out, no pruning, no table, no solver), which
//! only small boards allow; where lines are too many for it, minimax with a memo of exact
//! values ([`ValueSearch::MemoMinimax`]: each position searched once, still no pruning and no
//! bounds) is the second search. A start the rules draw at random (random plies, a list of
//! openings) is valued as the mean over the draw, each opening weighted by its probability.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use flipzero_core::variant::rules::StartSpec;
use flipzero_core::{Bitboard, Color, Game, Rules, variant::notation, with_width};

use crate::search::{Engine, MinimaxCount, SearchConfig, Unfinished, minimax_to_the_end};
use crate::{ExactSolver, WeightsFile};

/// Engine values per disc of margin (`Engine::margin_value`: 50 per half disc).
const VALUE_PER_DISC: f64 = 100.0;

/// How a value is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSearch {
    /// The engine's alpha-beta to the end; with `solver_leaves`, the bitboard solver takes
    /// every position it can finish.
    AlphaBeta {
        /// Hand solvable positions to the bitboard solver.
        solver_leaves: bool,
    },
    /// Every line to its end: the slow, independent reference.
    Minimax,
    /// Every position to its end once, its exact value kept for the lines that reach it
    /// again: the reference for trees with too many lines to play out.
    MemoMinimax,
}

impl ValueSearch {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            ValueSearch::AlphaBeta {
                solver_leaves: true,
            } => "alpha-beta with solver",
            ValueSearch::AlphaBeta {
                solver_leaves: false,
            } => "alpha-beta",
            ValueSearch::Minimax => "minimax",
            ValueSearch::MemoMinimax => "minimax with memo",
        }
    }
}

/// The value of a start under perfect play, for its first player.
#[derive(Clone, Debug, PartialEq)]
pub struct StartValue {
    /// The player to move when play starts (after a random start's draw), or `None` when
    /// the draw leaves either to move.
    pub first_player: Option<Color>,
    /// The first player's final margin in discs, signed so that more is better for them
    /// (fewer discs under anti rules) and with the komi counted; the mean over a random
    /// start's openings. `None` when a rule (a line) decides some opening.
    pub margin: Option<f64>,
    /// The chances of the first player winning, drawing and losing (over a random start's
    /// draw; one of them is 1 for a fixed start).
    pub outcome: [f64; 3],
    /// Distinct positions play can start from (1 for a fixed start).
    pub openings: usize,
    /// Positions the search visited.
    pub nodes: u64,
    /// Wall-clock seconds the search took.
    pub seconds: f64,
}

/// When a value search gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueLimits {
    /// Wall-clock time for the whole start (every opening); `None`: no limit.
    pub time: Option<Duration>,
    /// The longest line searched, in turns from where play starts. Where every turn fills a
    /// square no game comes near [`ValueLimits::for_rules`]'s default; under sacrifices and
    /// neutral swaps positions can repeat (up to the repetition limit), so that lines, and
    /// the memory a depth-first search holds for them, grow far beyond the board.
    pub max_turns: u16,
}

impl ValueLimits {
    /// No time limit, and lines up to four turns a square of the board.
    pub fn for_rules(rules: &Rules) -> Self {
        let squares = u16::from(rules.rows()) * u16::from(rules.cols());
        Self {
            time: None,
            max_turns: squares.saturating_mul(4),
        }
    }
}

/// The value of the start of `rules` by `search`, with a transposition table of
/// `2^table_bits` entries, within `limits`.
///
/// # Errors
/// When the solver is asked for and cannot play these rules, a random start cannot be
/// built, or the search does not finish within the limits (the message says which).
pub fn start_value(
    rules: &Rules,
    search: ValueSearch,
    table_bits: u32,
    limits: ValueLimits,
) -> Result<StartValue, String> {
    with_width!(rules.square_count(), W => start_value_at::<W>(rules, search, table_bits, limits))
}

fn start_value_at<W: Bitboard>(
    rules: &Rules,
    search: ValueSearch,
    table_bits: u32,
    limits: ValueLimits,
) -> Result<StartValue, String> {
    let limit = limits.time;
    if search
        == (ValueSearch::AlphaBeta {
            solver_leaves: true,
        })
        && ExactSolver::new(rules).is_none()
    {
        return Err("the bitboard solver cannot play these rules (use alpha-beta alone)".into());
    }
    let started = Instant::now();
    let openings = openings::<W>(rules)?;
    // The evaluation orders moves only; every value comes from final counts.
    let deadline = limit.map(|limit| started + limit);
    let config = SearchConfig {
        table_bits,
        probcut: 0.0,
        ..SearchConfig::default()
    };
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded weights")
        .map_err(|e| e.to_string())?;
    let mut engine = Engine::<W>::new(rules, weights, config);
    let rule_win = engine.rule_win_value();
    let mut nodes = 0;
    let mut margin = Some(0.0);
    let mut outcome = [0.0; 3];
    let mut first_players = Vec::new();
    for (game, weight) in &openings {
        let unfinished = |why: Unfinished| match (why, limit) {
            (Unfinished::LineTooLong, _) => format!(
                "a line went past {} turns: these rules need not fill a square a turn, so \
                 the tree is not bounded by the board",
                limits.max_turns
            ),
            (Unfinished::Limit, Some(limit)) => {
                format!("not finished within {} s", limit.as_secs_f64())
            }
            (Unfinished::Limit, None) => "stopped".to_owned(),
        };
        let value = match search {
            ValueSearch::AlphaBeta { solver_leaves } => {
                let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                engine.set_time(left.map(|left| left.max(Duration::from_millis(1))));
                let value = engine.exact_value_with(game, solver_leaves, limits.max_turns);
                nodes += engine.nodes();
                value.map_err(unfinished)?
            }
            ValueSearch::Minimax | ValueSearch::MemoMinimax => {
                let mut count = MinimaxCount {
                    deadline,
                    max_turns: Some(limits.max_turns),
                    memo: (search == ValueSearch::MemoMinimax).then(HashMap::new),
                    ..MinimaxCount::default()
                };
                let value = minimax_to_the_end(&engine, game, &mut count);
                nodes += count.nodes;
                if count.line_too_long {
                    return Err(unfinished(Unfinished::LineTooLong));
                }
                if count.stopped {
                    return Err(unfinished(Unfinished::Limit));
                }
                value
            }
        };
        margin = margin
            .filter(|_| value.abs() < rule_win)
            .map(|sum| sum + weight * f64::from(value) / VALUE_PER_DISC);
        outcome[match value.signum() {
            1 => 0,
            0 => 1,
            _ => 2,
        }] += weight;
        first_players.push(game.side_to_move());
    }
    first_players.dedup();
    Ok(StartValue {
        first_player: (first_players.len() == 1).then(|| first_players[0]),
        margin,
        outcome,
        openings: openings.len(),
        nodes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The positions play can start from, each with its probability: the start itself, or
/// every opening a random start can draw (random turns from the cross start drawn as
/// `Game::try_start` draws them, or one of the listed lines), merged where they meet.
fn openings<W: Bitboard>(rules: &Rules) -> Result<Vec<(Game<W>, f64)>, String> {
    let start_error = |error: &dyn std::fmt::Display| format!("the start: {error}");
    let drawn = match rules.spec().start.clone() {
        StartSpec::RandomPlies(plies) => Some(DrawnStart::RandomTurns(plies)),
        StartSpec::OpeningList(lines) => Some(DrawnStart::Lines(lines)),
        _ => None,
    };
    let Some(drawn) = drawn else {
        let game = Game::<W>::try_start(rules, 0).map_err(|e| start_error(&e))?;
        return Ok(vec![(game, 1.0)]);
    };
    // The position the draw starts from: the same rules with the cross start.
    let mut spec = rules.spec().clone();
    spec.start = StartSpec::Cross;
    let cross_rules = Rules::try_from(spec).map_err(|e| start_error(&e))?;
    let cross = Game::<W>::try_start(&cross_rules, 0).map_err(|e| start_error(&e))?;
    let openings = match drawn {
        DrawnStart::RandomTurns(plies) => random_turns(rules, cross, plies),
        DrawnStart::Lines(lines) => {
            let weight = 1.0 / lines.len() as f64;
            let mut merged = Merged::default();
            for line in &lines {
                let game = notation::replay(rules, &cross, line).map_err(|e| start_error(&e))?;
                merged.add(game, weight);
            }
            merged.into_openings()
        }
    };
    Ok(openings)
}

/// What a random start draws.
enum DrawnStart {
    RandomTurns(u8),
    Lines(Vec<String>),
}

/// `plies` whole turns from `game`, each decision uniform among the legal ones (a game
/// that ends or has no decision stops where it is).
fn random_turns<W: Bitboard>(rules: &Rules, game: Game<W>, plies: u8) -> Vec<(Game<W>, f64)> {
    let mut level = vec![(game, 1.0)];
    for _ in 0..plies {
        let mut next = Merged::default();
        // A multi-step turn is drawn step by step to its end.
        let mut mid_turn = level;
        while let Some((game, weight)) = mid_turn.pop() {
            let decisions = game.legal_decisions(rules);
            if decisions.is_empty() {
                next.add(game, weight);
                continue;
            }
            let share = weight / decisions.len() as f64;
            for decision in decisions {
                let child = game.play_unchecked(rules, decision);
                if child.is_mid_turn() {
                    mid_turn.push((child, share));
                } else {
                    next.add(child, share);
                }
            }
        }
        level = next.into_openings();
    }
    level
}

/// Openings with their probabilities, one entry per position.
#[derive(Default)]
struct Merged<W: Bitboard> {
    index: HashMap<u64, usize>,
    openings: Vec<(Game<W>, f64)>,
}

impl<W: Bitboard> Merged<W> {
    fn add(&mut self, game: Game<W>, weight: f64) {
        match self.index.get(&game.hash()) {
            Some(&at) => self.openings[at].1 += weight,
            None => {
                self.index.insert(game.hash(), self.openings.len());
                self.openings.push((game, weight));
            }
        }
    }

    fn into_openings(self) -> Vec<(Game<W>, f64)> {
        self.openings
    }
}
