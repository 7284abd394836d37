//! Opening suites: the start positions of paired matches.

use std::collections::HashSet;
use std::ops::RangeInclusive;

use flipzero_core::{AnyGame, Bitboard, Decision, Game, Rules, U256, Width};
use flipzero_engine::{Engine, SearchConfig, Weights};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::agent::AgentFactory;
use crate::matches::{GameResult, MatchResult, play_paired};
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

/// A suite of openings with their lines on the bitboard width of its rules' board: the
/// suite for code that is not generic over the width.
#[derive(Clone, Debug)]
pub enum AnySuite {
    /// Up to 64 squares.
    Bits64(Vec<Opening<u64>>),
    /// Up to 128 squares.
    Bits128(Vec<Opening<u128>>),
    /// Up to 256 squares.
    Bits256(Vec<Opening<U256>>),
}

/// Runs `$body` with `$suite` bound to the openings inside, whatever their width.
macro_rules! each_width {
    ($any:expr, $suite:ident => $body:expr) => {
        match $any {
            AnySuite::Bits64($suite) => $body,
            AnySuite::Bits128($suite) => $body,
            AnySuite::Bits256($suite) => $body,
        }
    };
}

impl AnySuite {
    /// [`opening_suite`] on the width the rules' board needs.
    ///
    /// # Errors
    /// As [`opening_suite`].
    pub fn draw(
        rules: &Rules,
        count: usize,
        plies: RangeInclusive<u32>,
        filter: OpeningFilter,
        seed: u64,
    ) -> Result<Self, ExactError> {
        Ok(match Width::for_squares(rules.square_count()) {
            Width::Bits64 => AnySuite::Bits64(opening_suite(rules, count, plies, filter, seed)?),
            Width::Bits128 => AnySuite::Bits128(opening_suite(rules, count, plies, filter, seed)?),
            Width::Bits256 => AnySuite::Bits256(opening_suite(rules, count, plies, filter, seed)?),
        })
    }

    /// The number of openings.
    pub fn len(&self) -> usize {
        each_width!(self, suite => suite.len())
    }

    /// Whether the suite has no opening.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The positions the games start from.
    pub fn positions(&self) -> Vec<AnyGame> {
        each_width!(self, suite => suite
            .iter()
            .map(|opening| AnyGame::from(opening.position.clone()))
            .collect())
    }

    /// Solves the positions into `cache` (see [`ExactCache::solve_all`]).
    ///
    /// # Errors
    /// As [`ExactCache::solve_all`].
    pub fn solve_into(&self, rules: &Rules, cache: &mut ExactCache) -> Result<(), ExactError> {
        each_width!(self, suite => cache.solve_all(rules, &positions(suite)))
    }

    /// A paired match over the suite (see [`play_paired`]) between fresh agents of `first`
    /// and `second`, both seeded by the game's number and told the line of its opening
    /// (engines told positions as moves replay it); `on_game` hears of each finished game.
    pub fn play_paired(
        &self,
        rules: &Rules,
        first: &AgentFactory,
        second: &AgentFactory,
        on_game: impl Fn(&GameResult) + Sync,
    ) -> MatchResult {
        fn play<W: Bitboard>(
            rules: &Rules,
            suite: &[Opening<W>],
            factories: [&AgentFactory; 2],
            on_game: impl Fn(&GameResult) + Sync,
        ) -> MatchResult {
            let agents = |game: usize| {
                let opening = &suite[game / 2];
                let [mut first, mut second] = factories.map(|f| f.build::<W>(game as u64));
                first.start_from(&opening.start, &opening.decisions);
                second.start_from(&opening.start, &opening.decisions);
                (first, second)
            };
            play_paired(rules, &positions(suite), None, agents, on_game)
        }
        each_width!(self, suite => play(rules, suite, [first, second], on_game))
    }
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
