//! Opening suites: the start positions of paired matches.

use std::collections::HashSet;
use std::ops::RangeInclusive;

use flipzero_core::{Bitboard, Game, Rules};
use flipzero_engine::{Engine, SearchConfig, Weights};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    filtered_openings(rules, count, plies..=plies, seed, |_| true)
}

/// Like [`random_openings`], each opening of a number of plies drawn uniformly from `plies`.
pub fn openings_between<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    seed: u64,
) -> Vec<Game<W>> {
    filtered_openings(rules, count, plies, seed, |_| true)
}

/// Like [`openings_between`], keeping only openings that the classical engine, searching to
/// `depth`, scores within `margin_discs` of even for the side to move (docs/RULES.md section 5.2).
pub fn balanced_openings<W: Bitboard>(
    rules: &Rules,
    weights: &Weights,
    count: usize,
    plies: RangeInclusive<u32>,
    depth: u32,
    margin_discs: f64,
    seed: u64,
) -> Vec<Game<W>> {
    let mut engine = Engine::<W>::new(rules, weights.clone(), SearchConfig::default());
    filtered_openings(rules, count, plies, seed, |game| {
        let (value, _) = engine.value(game, depth);
        f64::from(value.abs()) <= margin_discs * 100.0
    })
}

fn filtered_openings<W: Bitboard>(
    rules: &Rules,
    count: usize,
    plies: RangeInclusive<u32>,
    seed: u64,
    mut keep: impl FnMut(&Game<W>) -> bool,
) -> Vec<Game<W>> {
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
        let Ok(mut game) = Game::<W>::try_start(rules, start_seed) else {
            continue;
        };
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
        }
        if !game.is_over() && seen.insert(game.to_text(rules)) && keep(&game) {
            openings.push(game);
        }
    }
    openings
}
