//! Opening suites: the start positions of paired matches.

use std::collections::HashSet;
use std::ops::RangeInclusive;

use flipzero_core::{AnyGame, Bitboard, Decision, Game, Rules, with_width};
use flipzero_engine::{Engine, SearchConfig, Weights};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::perfect::{ExactCache, ExactError, exact_openings};

/// An opening and how it was reached: the start it was drawn from and the decisions played
/// from there. Engines told positions as moves (GTP) are sent these decisions.
#[derive(Clone, Debug)]
pub struct Opening<W: Bitboard> {
    /// The position the games start from.
    pub position: Game<W>,
    /// The start the decisions were played from (the position itself when nothing is known
    /// of how it arose, as for a position read from a file).
    pub start: Game<W>,
    /// The decisions from `start` to `position`.
    pub decisions: Vec<Decision>,
}

impl<W: Bitboard> Opening<W> {
    /// A position with no known line behind it.
    pub fn from_position(position: Game<W>) -> Self {
        Self {
            start: position.clone(),
            position,
            decisions: Vec::new(),
        }
    }
}

/// The positions of a suite of openings.
pub fn positions<W: Bitboard>(openings: &[Opening<W>]) -> Vec<Game<W>> {
    openings
        .iter()
        .map(|opening| opening.position.clone())
        .collect()
}

/// Up to `count` distinct positions reached by `plies` uniformly random legal decisions from
/// the rules' start (itself drawn per opening where the rules randomise it), none of them
/// over. Fewer come back when the game has fewer distinct openings of that length.
///
/// # Panics
/// When the rules' start cannot be built (validated rules always can).
pub fn random_openings<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: u32,
    seed: u64,
) -> Vec<Game<W>> {
    positions(&random_opening_lines(rules, count, plies, seed))
}

/// [`random_openings`] with the lines that reach them.
pub fn random_opening_lines<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: u32,
    seed: u64,
) -> Vec<Opening<W>> {
    filtered_openings(rules, count, plies..=plies, seed, |_| true)
}

/// Like [`random_opening_lines`], each opening of a number of plies drawn uniformly from
/// `plies`.
pub fn opening_lines_between<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    seed: u64,
) -> Vec<Opening<W>> {
    filtered_openings(rules, count, plies, seed, |_| true)
}

/// Like [`opening_lines_between`], keeping only openings that the classical engine, searching to
/// `depth`, scores within `margin_discs` of even for the side to move (docs/RULES.md section 5.2).
pub fn balanced_opening_lines<W: Bitboard>(
    rules: &Rules,
    weights: &Weights,
    count: usize,
    plies: RangeInclusive<u32>,
    depth: u32,
    margin_discs: f64,
    seed: u64,
) -> Vec<Opening<W>> {
    let mut engine = Engine::<W>::new(rules, weights.clone(), SearchConfig::default());
    filtered_openings(rules, count, plies, seed, |game| {
        let (value, _) = engine.value(game, depth);
        f64::from(value.abs()) <= margin_discs * 100.0
    })
}

/// Which of the random openings it draws a suite keeps.
pub enum OpeningFilter<'a> {
    /// Every one.
    All,
    /// Those the classical engine, searching to `depth`, scores within `margin_discs` of even
    /// for the side to move (see [`balanced_opening_lines`]).
    Balanced {
        /// The engine's evaluation.
        weights: &'a Weights,
        /// Its search depth.
        depth: u32,
        /// The largest score kept, in discs.
        margin_discs: f64,
    },
    /// Those whose exact value lies within `within_discs` of a draw, their values solved into
    /// `cache` (see [`exact_openings`]).
    Exact {
        /// Where the exact values are kept.
        cache: &'a mut ExactCache,
        /// The largest exact margin kept, in discs.
        within_discs: i32,
    },
}

/// Up to `count` distinct openings of `plies` random plies (a number drawn per opening from
/// the range) that `filter` keeps, with the lines that reach them.
///
/// # Errors
/// With [`OpeningFilter::Exact`], a cache file that cannot be written.
pub fn opening_suite<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    filter: OpeningFilter,
    seed: u64,
) -> Result<Vec<Opening<W>>, ExactError> {
    Ok(match filter {
        OpeningFilter::All => opening_lines_between(rules, count, plies, seed),
        OpeningFilter::Balanced {
            weights,
            depth,
            margin_discs,
        } => balanced_opening_lines(rules, weights, count, plies, depth, margin_discs, seed),
        OpeningFilter::Exact {
            cache,
            within_discs,
        } => exact_openings(rules, cache, count, plies, within_discs, seed)?,
    })
}

/// The positions of [`opening_suite`], for code that is not generic over the board width.
///
/// # Errors
/// As [`opening_suite`].
pub fn opening_positions(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    filter: OpeningFilter,
    seed: u64,
) -> Result<Vec<AnyGame>, ExactError> {
    with_width!(rules.square_count(), W => {
        let suite = opening_suite::<W>(rules, count, plies, filter, seed)?;
        Ok(suite.into_iter().map(|opening| AnyGame::from(opening.position)).collect())
    })
}

fn filtered_openings<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    seed: u64,
    mut keep: impl FnMut(&Game<W>) -> bool,
) -> Vec<Opening<W>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut openings = Vec::new();
    // Small games have few openings: stop after many draws that bring nothing new.
    let attempts = 50 * count + 1000;
    for attempt in 0..attempts {
        if openings.len() >= count {
            break;
        }
        let start_seed = seed.wrapping_add(attempt as u64);
        let Ok(start) = Game::<W>::try_start(rules, start_seed) else {
            continue;
        };
        let mut game = start.clone();
        let mut decisions = Vec::new();
        // A fixed length draws nothing, so suites of one length stay as they always were.
        let length = if plies.start() >= plies.end() {
            *plies.start()
        } else {
            rng.random_range(plies.clone())
        };
        for _ in 0..length {
            if game.is_over() {
                break;
            }
            let decision = *game
                .legal_decisions(rules)
                .choose(&mut rng)
                .expect("a game that is not over has a legal decision");
            game = game.play(rules, decision).expect("a legal decision plays");
            decisions.push(decision);
        }
        if !game.is_over() && seen.insert(game.to_text(rules)) && keep(&game) {
            openings.push(Opening {
                position: game,
                start,
                decisions,
            });
        }
    }
    openings
}
