//! Self-play: many games at once, each with its own search tree, their leaves evaluated in
//! one evaluator call per simulation round; every decision becomes a training sample whose
//! value targets are filled in when its game ends.

use flipzero_core::variant::rules::Objective;
use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Rules, U256, with_width};
use flipzero_data::Sample;
use flipzero_engine::{ExactSolver, Proof};
use flipzero_mcts::{Evaluator, Mcts, MctsConfig, SearchKind, search_many};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How to play. In a run config these are the keys of `[selfplay]` (with the search's, of
/// [`MctsConfig`]); the games to finish and the seed are set for each stage.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SelfPlayConfig {
    /// Games to finish.
    #[serde(skip)]
    pub games: usize,
    /// Games in progress at once (their leaves share evaluator calls).
    pub parallel_games: usize,
    /// The search of every decision (its seed is offset per game).
    #[serde(flatten)]
    pub mcts: MctsConfig,
    /// Decisions per game drawn in proportion to visits; the rest take the most visited.
    /// (Gumbel search draws its decisions by its own noise instead.)
    pub temperature_decisions: u32,
    /// Positions with this many empty squares or fewer take their targets from the exact
    /// solver: the exact outcome and margin, and a policy spread over the best decisions
    /// (`Sample::solved`). 0 turns it off; rules the solver does not cover ignore it.
    #[serde(default)]
    pub solve_targets_empties: u32,
    /// With solved targets on: the positions before a game's first solved one take its exact
    /// outcome and margin as their value targets instead of the game's end, which the
    /// noisy play after it may have changed. Off: every unsolved position takes the end.
    #[serde(default)]
    pub solved_value_targets: bool,
    /// Playout cap randomisation (KataGo): the share of decisions searched fully
    /// (`mcts.simulations`, with the root noise) and recorded as samples; the others are
    /// searched with `fast_simulations` and no noise, played, and not recorded. 1 searches
    /// every decision fully.
    #[serde(default = "every_decision")]
    pub full_search_fraction: f32,
    /// Simulations of a fast search.
    #[serde(default = "default_fast_simulations")]
    pub fast_simulations: u32,
    /// Each game starts after a number of uniformly random decisions drawn from this range
    /// (not searched, not recorded), so that the games cover more than one opening line;
    /// `0..=0` starts from the rules' start. Written `N` or `"A-B"`.
    #[serde(default = "no_opening_plies", with = "plies_or_range")]
    pub opening_plies: std::ops::RangeInclusive<u32>,
    /// Seed of the games (starts and searches).
    #[serde(skip)]
    pub seed: u64,
}

fn every_decision() -> f32 {
    1.0
}

fn default_fast_simulations() -> u32 {
    8
}

fn no_opening_plies() -> std::ops::RangeInclusive<u32> {
    0..=0
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

/// A range of plies written as a number (`4`) or a range (`"0-10"`).
mod plies_or_range {
    use std::ops::RangeInclusive;

    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Plies(u32),
        Range(String),
    }

    pub(super) fn serialize<S: Serializer>(
        range: &RangeInclusive<u32>,
        out: S,
    ) -> Result<S::Ok, S::Error> {
        if range.start() == range.end() {
            out.serialize_u32(*range.start())
        } else {
            out.serialize_str(&format!("{}-{}", range.start(), range.end()))
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        input: D,
    ) -> Result<RangeInclusive<u32>, D::Error> {
        let text = match Written::deserialize(input)? {
            Written::Plies(plies) => plies.to_string(),
            Written::Range(text) => text,
        };
        super::parse_range(&text)
            .map_err(|reason| serde::de::Error::custom(format!("opening_plies: {reason}")))
    }
}

/// A finished game and its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The decisions from the start, in order.
    pub decisions: Vec<Decision>,
    /// The start position (random openings differ per game).
    pub start: String,
    /// One sample per fully searched decision (every decision unless playout caps are
    /// randomised).
    pub samples: Vec<Sample>,
    /// The result.
    pub outcome: Outcome,
    /// Black minus White at the end, as the rules count it.
    pub score: i32,
}

/// Exact targets for `game` from the solver, when it has at most `empties` empty squares
/// and the solver can take it: the outcome and margin under perfect play for the side to
/// move, and a policy shared equally by the best decisions.
fn solved_sample<W: Bitboard>(
    rules: &Rules,
    solver: Option<&ExactSolver>,
    empties: u32,
    game: &Game<W>,
) -> Option<Sample> {
    if game.empty().count() > empties {
        return None;
    }
    let value = solver?.solve(game, Proof::EveryBest)?;
    let side = game.side_to_move();
    let share = 1.0 / value.best.len() as f32;
    Some(Sample {
        position: game.to_text(rules),
        policy: value
            .best
            .iter()
            .map(|&decision| (rules.decision_index(decision) as u16, share))
            .collect(),
        outcome: value.outcome_for(side),
        score: value.margin_for(side) as f32,
        solved: true,
    })
}

/// `game` after a number of random decisions drawn from `plies` (fewer when it ends first:
/// the last decision that would end it is not played), seeded by `seed`.
fn random_opening<W: Bitboard>(
    rules: &Rules,
    mut game: Game<W>,
    plies: &std::ops::RangeInclusive<u32>,
    seed: u64,
) -> Game<W> {
    if *plies.end() == 0 {
        return game;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x09e7_1a55);
    let count = rng.random_range(plies.clone());
    for _ in 0..count {
        let decisions = game.legal_decisions(rules);
        let decision = decisions[rng.random_range(0..decisions.len())];
        let next = game.play_unchecked(rules, decision);
        if next.is_over() {
            break;
        }
        game = next;
    }
    // The search starts from a player's decision: a chance event left pending is drawn.
    if let Some(outcome) = game.draw_chance(rules, &mut rng) {
        game = game.play_unchecked(rules, outcome);
    }
    game
}

/// A sample waiting for its game's end, with who was to move.
struct Pending {
    sample: Sample,
    color: Color,
    seats_swapped: bool,
}

/// A game in progress, beside its search tree.
struct Running {
    id: u64,
    start: String,
    decisions: Vec<Decision>,
    /// The decisions searched (chance events are drawn, not searched).
    searched: usize,
    pending: Vec<Pending>,
    /// Draws which decisions are searched fully, and chance events.
    rng: ChaCha8Rng,
    /// Whether the search under way is a full one, whose decision becomes a sample.
    full: bool,
}

impl Running {
    /// Draws whether the next search is full and sets the tree's budget to match.
    fn plan_search<W: Bitboard>(&mut self, config: &SelfPlayConfig, tree: &mut Mcts<W>) {
        self.full = config.full_search_fraction >= 1.0
            || self.rng.random::<f32>() < config.full_search_fraction;
        if self.full {
            tree.set_budget(config.mcts.simulations, config.mcts.noise_fraction);
        } else {
            tree.set_budget(config.fast_simulations.max(1), 0.0);
        }
    }
}

/// A result as value targets: the outcome (1, 0, -1) and the margin counted towards the
/// rules' objective, for the player who was to move at `pending`; `color` and `swapped`
/// are the player to move at the result and whether the seats were swapped there, and
/// `outcome`/`margin` are for that player.
fn targets_for(
    pending: &Pending,
    color: Color,
    swapped: bool,
    outcome: i8,
    margin: f32,
) -> (i8, f32) {
    // The end of komi bidding may have seated the bidder on the other colour.
    let own = if pending.seats_swapped == swapped {
        pending.color
    } else {
        pending.color.opponent()
    };
    if own == color {
        (outcome, margin)
    } else {
        (-outcome, -margin)
    }
}

/// The value targets of a finished game for one player.
fn targets<W: Bitboard>(rules: &Rules, end: &Game<W>, pending: &Pending) -> (i8, f32) {
    let outcome = match end.outcome(rules).expect("a finished game") {
        Outcome::Win(Color::Black) => 1,
        Outcome::Win(Color::White) => -1,
        Outcome::Draw => 0,
    };
    let black_margin = end.score(rules) as f32;
    let signed = if rules.spec().objective == Objective::FewestDiscs {
        -black_margin
    } else {
        black_margin
    };
    targets_for(pending, Color::Black, end.seats_swapped(), outcome, signed)
}

/// Plays `config.games` games (ids 0 to games - 1) and returns them in the order they
/// finished.
///
/// # Panics
/// When the rules' start cannot be built (validated rules always can).
pub fn play<W: Bitboard>(
    rules: &Rules,
    config: &SelfPlayConfig,
    evaluator: &mut impl Evaluator<W>,
) -> Vec<GameRecord> {
    let ids: Vec<u64> = (0..config.games as u64).collect();
    let mut finished = Vec::with_capacity(ids.len());
    play_games(rules, config, &ids, evaluator, |_, record| {
        finished.push(record)
    });
    finished
}

/// Plays the games with these ids, `config.parallel_games` at a time, and hands each to
/// `on_game` as it finishes. A game's start and searches depend only on `config` and its id,
/// so an interrupted batch can be completed by playing the missing ids.
///
/// # Panics
/// When the rules' start cannot be built (validated rules always can).
pub fn play_games<W: Bitboard>(
    rules: &Rules,
    config: &SelfPlayConfig,
    ids: &[u64],
    evaluator: &mut impl Evaluator<W>,
    mut on_game: impl FnMut(u64, GameRecord),
) {
    let mut running: Vec<Running> = Vec::new();
    let mut trees: Vec<Mcts<W>> = Vec::new();
    let solver = (config.solve_targets_empties > 0)
        .then(|| ExactSolver::new(rules))
        .flatten();
    let mut waiting = ids.iter().copied();
    loop {
        while running.len() < config.parallel_games.max(1) {
            let Some(id) = waiting.next() else { break };
            let seed = config.seed.wrapping_add(id);
            let game = Game::<W>::try_start(rules, seed).expect("validated rules have a start");
            let game = random_opening(rules, game, &config.opening_plies, seed);
            let mcts = MctsConfig {
                seed: config
                    .mcts
                    .seed
                    .wrapping_add(seed.wrapping_mul(0x9e37_79b9)),
                ..config.mcts.clone()
            };
            let mut tree = Mcts::new(rules, mcts, &game);
            let mut next = Running {
                id,
                start: game.to_text(rules),
                decisions: Vec::new(),
                searched: 0,
                pending: Vec::new(),
                rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_ca95),
                full: true,
            };
            next.plan_search(config, &mut tree);
            running.push(next);
            trees.push(tree);
        }
        if running.is_empty() {
            return;
        }
        search_many(&mut trees, evaluator);
        let mut still_running = Vec::with_capacity(running.len());
        let mut still_searching = Vec::with_capacity(trees.len());
        for (mut game, mut tree) in running.into_iter().zip(trees) {
            let position = tree.game().clone();
            let (decision, policy) = match config.mcts.search {
                SearchKind::Puct => {
                    let result = tree.result();
                    let temperature = if (game.searched as u32) < config.temperature_decisions {
                        1.0
                    } else {
                        0.0
                    };
                    (tree.sample(&result, temperature), result.policy())
                }
                SearchKind::Gumbel => {
                    let result = tree.gumbel_result();
                    (result.decision, result.policy)
                }
            };
            let sample = solved_sample(
                rules,
                solver.as_ref(),
                config.solve_targets_empties,
                &position,
            )
            .unwrap_or_else(|| Sample {
                position: position.to_text(rules),
                policy: policy
                    .into_iter()
                    .map(|(decision, share)| (rules.decision_index(decision) as u16, share))
                    .collect(),
                outcome: 0,
                score: 0.0,
                solved: false,
            });
            // A solved sample owes nothing to the search: kept after a fast search too.
            if game.full || sample.solved {
                game.pending.push(Pending {
                    sample,
                    color: position.side_to_move(),
                    seats_swapped: position.seats_swapped(),
                });
            }
            game.decisions.push(decision);
            game.searched += 1;
            tree.advance(decision);
            // A chance event (the seats after equal komi bids) is drawn, not searched.
            if let Some(outcome) = tree.game().draw_chance(rules, &mut game.rng) {
                game.decisions.push(outcome);
                tree.advance(outcome);
            }
            if tree.game().is_over() {
                let end = tree.game().clone();
                let first_solved = game
                    .pending
                    .iter()
                    .position(|pending| pending.sample.solved)
                    .filter(|_| config.solved_value_targets);
                let samples = game
                    .pending
                    .iter()
                    .enumerate()
                    .map(|(index, pending)| {
                        if pending.sample.solved {
                            return pending.sample.clone();
                        }
                        let (outcome, score) = match first_solved {
                            Some(solved) if solved > index => {
                                let solved = &game.pending[solved];
                                targets_for(
                                    pending,
                                    solved.color,
                                    solved.seats_swapped,
                                    solved.sample.outcome,
                                    solved.sample.score,
                                )
                            }
                            _ => targets(rules, &end, pending),
                        };
                        Sample {
                            outcome,
                            score,
                            ..pending.sample.clone()
                        }
                    })
                    .collect();
                on_game(
                    game.id,
                    GameRecord {
                        decisions: game.decisions,
                        start: game.start,
                        samples,
                        outcome: end.outcome(rules).expect("a finished game"),
                        score: end.score(rules),
                    },
                );
            } else {
                game.plan_search(config, &mut tree);
                still_running.push(game);
                still_searching.push(tree);
            }
        }
        running = still_running;
        trees = still_searching;
    }
}

/// Plays the games with these ids on `workers` rayon tasks, each running its share (many
/// at once, as [`play_games`] does) with its own evaluator from `make_evaluator` (a network
/// per worker, say), and hands each finished game to `on_game` (from the worker's thread).
/// Games depend on the config and their ids only, not on the number of workers. The games
/// run on the bitboard width the rules' board needs; the evaluator serves every width (as the
/// network's does).
pub fn play_parallel<E, F, G>(
    rules: &Rules,
    config: &SelfPlayConfig,
    ids: &[u64],
    workers: usize,
    make_evaluator: F,
    on_game: G,
) where
    E: Evaluator<u64> + Evaluator<u128> + Evaluator<U256>,
    F: Fn(usize) -> E + Sync,
    G: Fn(u64, GameRecord) + Sync,
{
    with_width!(rules.square_count(), W => {
        play_parallel_at::<W, E, F, G>(rules, config, ids, workers, make_evaluator, on_game)
    })
}

fn play_parallel_at<W, E, F, G>(
    rules: &Rules,
    config: &SelfPlayConfig,
    ids: &[u64],
    workers: usize,
    make_evaluator: F,
    on_game: G,
) where
    W: Bitboard,
    E: Evaluator<W>,
    F: Fn(usize) -> E + Sync,
    G: Fn(u64, GameRecord) + Sync,
{
    use rayon::prelude::*;
    let workers = workers.clamp(1, ids.len().max(1));
    let shares: Vec<Vec<u64>> = (0..workers)
        .map(|worker| ids.iter().copied().skip(worker).step_by(workers).collect())
        .collect();
    shares
        .into_par_iter()
        .enumerate()
        .for_each(|(worker, share)| {
            play_games(rules, config, &share, &mut make_evaluator(worker), &on_game);
        });
}
