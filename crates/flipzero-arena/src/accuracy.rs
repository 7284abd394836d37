//! Move accuracy against perfect play: on positions whose every decision the solver has
//! scored, how often a network's raw policy, and its search, picks a best decision, and how
//! many discs each choice gives away, by number of empty squares.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use flipzero_core::{AnyGame, Bitboard, Color, Decision, Game, GameWidth, Rules, U256, with_width};
use flipzero_mcts::Evaluator;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::agent::AgentFactory;
use crate::matches::play_game;
use crate::openings::random_openings;
use crate::perfect::{ExactCache, ExactError};

/// Positions drawn from games: half from games of `network` against itself, half from games
/// of the classical engine (`engine`) against itself, each game from a random opening of
/// `opening_plies` plies, one position of each game with a number of empty squares drawn
/// from `empties` (uniformly among those the game passed through). Fewer come back when
/// games are too short.
pub fn sample_positions(
    rules: &Rules,
    network: &AgentFactory,
    engine: &AgentFactory,
    count: usize,
    empties: RangeInclusive<u32>,
    opening_plies: u32,
    seed: u64,
) -> Vec<AnyGame> {
    with_width!(rules.square_count(), W => {
        let drawn = sample_positions_at::<W>(rules, network, engine, count, empties, opening_plies, seed);
        drawn.into_iter().map(AnyGame::from).collect()
    })
}

fn sample_positions_at<W: Bitboard>(
    rules: &Rules,
    network: &AgentFactory,
    engine: &AgentFactory,
    count: usize,
    empties: RangeInclusive<u32>,
    opening_plies: u32,
    seed: u64,
) -> Vec<Game<W>> {
    let openings = random_openings::<W>(rules, count, opening_plies, seed);
    let positions: Vec<Option<Game<W>>> = openings
        .par_iter()
        .enumerate()
        .map(|(index, opening)| {
            let players = if index % 2 == 0 { network } else { engine };
            let (mut first, mut second) = (
                players.build::<W>(seed ^ index as u64),
                players.build::<W>(seed ^ ((index as u64 + 1) << 20)),
            );
            let result = play_game(
                rules,
                opening,
                [first.as_mut(), second.as_mut()],
                Color::Black,
                None,
            );
            let mut game = opening.clone();
            let mut passed = Vec::new();
            for decision in result.decisions {
                if !game.is_mid_turn() && empties.contains(&game.empty().count()) {
                    passed.push(game.clone());
                }
                game = game.play_unchecked(rules, decision);
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(index as u64));
            passed.choose(&mut rng).cloned()
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    positions
        .into_iter()
        .flatten()
        .filter(|game| seen.insert(game.to_text(rules)))
        .collect()
}

/// The accuracy of one kind of choice at one number of empty squares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Positions scored.
    pub positions: usize,
    /// Of those, the positions where the choice was a best decision.
    pub best: usize,
    /// Discs given away against the best decision, summed.
    pub discs_lost: i64,
}

impl Tally {
    fn add(&mut self, lost: i32) {
        self.positions += 1;
        self.best += usize::from(lost == 0);
        self.discs_lost += i64::from(lost);
    }

    fn merge(&mut self, other: &Tally) {
        self.positions += other.positions;
        self.best += other.best;
        self.discs_lost += other.discs_lost;
    }

    /// The share of positions with a best choice (0 without positions).
    pub fn best_share(&self) -> f64 {
        self.best as f64 / self.positions.max(1) as f64
    }

    /// Mean discs given away per position.
    pub fn mean_discs_lost(&self) -> f64 {
        self.discs_lost as f64 / self.positions.max(1) as f64
    }
}

/// Accuracy by number of empty squares: the raw policy's and the search's.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AccuracyReport {
    /// Per number of empties: (raw policy, search).
    pub by_empties: BTreeMap<u32, (Tally, Tally)>,
}

impl AccuracyReport {
    /// Both tallies over every number of empties.
    pub fn total(&self) -> (Tally, Tally) {
        let mut total = (Tally::default(), Tally::default());
        for (raw, search) in self.by_empties.values() {
            total.0.merge(raw);
            total.1.merge(search);
        }
        total
    }
}

/// Scores every decision of `positions` exactly, into `cache` where it lacks them, then
/// scores the positions' choices against those values: the decision of the highest prior of
/// an evaluator from `make_evaluator` (one per thread; it serves every board width, as the
/// network's does), and the decision of a fresh `searcher` agent.
///
/// # Errors
/// A position past the solver's reach, or a cache file that cannot be written.
///
/// # Panics
/// A position of another board width than `rules`.
pub fn measure<E, F>(
    rules: &Rules,
    cache: &mut ExactCache,
    positions: &[AnyGame],
    make_evaluator: F,
    searcher: &AgentFactory,
) -> Result<AccuracyReport, ExactError>
where
    E: Evaluator<u64> + Evaluator<u128> + Evaluator<U256>,
    F: Fn() -> E + Sync,
{
    with_width!(rules.square_count(), W => {
        let positions = W::games_of(positions);
        cache.solve_decisions(rules, &positions)?;
        Ok(measure_at(rules, cache, &positions, make_evaluator, searcher))
    })
}

fn measure_at<W, E, F>(
    rules: &Rules,
    cache: &ExactCache,
    positions: &[Game<W>],
    make_evaluator: F,
    searcher: &AgentFactory,
) -> AccuracyReport
where
    W: Bitboard,
    E: Evaluator<W>,
    F: Fn() -> E + Sync,
{
    let scored: Vec<(u32, i32, i32)> = positions
        .par_iter()
        .map_init(&make_evaluator, |evaluator, game| {
            let margins = cache.decision_margins(rules, game)?;
            let best = margins.iter().map(|&(_, margin)| margin).max()?;
            let lost = |decision: Decision| {
                let index = rules.decision_index(decision) as u16;
                margins
                    .iter()
                    .find(|&&(at, _)| at == index)
                    .map(|&(_, margin)| best - margin)
                    .expect("the cache scored every legal decision")
            };
            let legal = game.legal_decisions(rules);
            let evaluation = evaluator
                .evaluate(rules, &[(game, &legal)])
                .pop()
                .expect("one evaluation per position");
            let raw = legal[evaluation
                .priors
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(index, _)| index)
                .expect("a legal decision")];
            // Positions are live (the cache scored their decisions), so the agents built
            // here (the network's search) always have a decision.
            let searched = searcher.build::<W>(0).choose(game).ok()?;
            Some((game.empty().count(), lost(raw), lost(searched)))
        })
        .flatten()
        .collect();
    let mut report = AccuracyReport::default();
    for (empties, raw, searched) in scored {
        let entry = report.by_empties.entry(empties).or_default();
        entry.0.add(raw);
        entry.1.add(searched);
    }
    report
}
