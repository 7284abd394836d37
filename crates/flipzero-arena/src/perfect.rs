//! Perfect play as a yardstick: the exact values of openings, solved once and kept in a file,
//! opening suites filtered by their exact value, and what an agent kept of each opening's
//! game-theoretic value in its games against a perfect opponent.
//!
//! Against a perfect opponent a lost opening stays lost, so only the games whose opening is
//! won or drawn for the agent say anything about its outcome; its margin can be compared with
//! the exact one in every game.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use flipzero_core::{Bitboard, Color, Game, GameView, Rules};
pub use flipzero_data::exact_values::DecisionMargin;
use flipzero_data::exact_values::ExactValuesFile;
use flipzero_data::files::FileError;
use flipzero_engine::{ExactSolver, ExactValue, Proof};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::matches::GameResult;
use crate::openings::{Opening, opening_lines_between, positions};

/// Exact values of positions by their text: the final Black margin under perfect play, and
/// for positions whose every decision was scored, the mover's final margin after each.
pub struct ExactCache {
    path: Option<PathBuf>,
    /// What the file holds (or will once saved).
    file: ExactValuesFile,
    solver: ExactSolver,
    changed: bool,
}

/// Why exact values cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum ExactError {
    /// The solver does not play these rules.
    #[error(
        "exact values need rules the exact solver covers (Othello's moves on a plane board with a disc-count objective)"
    )]
    NotSolvable,
    /// A position with too many empty squares to solve in reasonable time.
    #[error(
        "a position with {empties} empty squares is past the exact solver's reach (at most \
         {reach} on a board of {squares} squares): solving it would take hours or days"
    )]
    OutOfReach {
        /// The position's empty squares.
        empties: u32,
        /// The most the solver takes on, on this board ([`exact_reach`]).
        reach: u32,
        /// The board's squares.
        squares: u32,
    },
    /// The cache file cannot be read or written.
    #[error(transparent)]
    File(#[from] FileError),
}

impl ExactCache {
    /// The cache of `rules` kept in `path` (read when it exists; `None` keeps it in memory).
    ///
    /// # Errors
    /// Rules the solver does not cover, an unreadable file, or one written for other rules.
    pub fn open(rules: &Rules, path: Option<&Path>) -> Result<Self, ExactError> {
        let solver = ExactSolver::new(rules).ok_or(ExactError::NotSolvable)?;
        let file = match path {
            Some(path) => ExactValuesFile::open(path, rules.spec())?,
            None => ExactValuesFile::empty(rules.spec()),
        };
        Ok(Self {
            path: path.map(Path::to_path_buf),
            file,
            solver,
            changed: false,
        })
    }

    /// Solves every game of `games` not yet in the cache (in parallel) and writes the cache
    /// file when it grew. Games the solver cannot take from where they stand are left out.
    ///
    /// # Errors
    /// A game past the solver's reach ([`check_within_reach`]), before any is solved; a cache
    /// file that cannot be written.
    pub fn solve_all<W: Bitboard>(
        &mut self,
        rules: &Rules,
        games: &[Game<W>],
    ) -> Result<(), ExactError> {
        let solver = &self.solver;
        let solved = solve_missing(rules, games, &self.file.black_margins, |game| {
            Some(solver.solve(game, Proof::OneBest)?.black_margin)
        })?;
        self.changed |= !solved.is_empty();
        self.file.black_margins.extend(solved);
        self.save()
    }

    /// Scores every decision of every game of `games` not yet scored (in parallel) and
    /// writes the cache file when it grew. Games the solver cannot take are left out.
    ///
    /// # Errors
    /// As [`ExactCache::solve_all`].
    pub fn solve_decisions<W: Bitboard>(
        &mut self,
        rules: &Rules,
        games: &[Game<W>],
    ) -> Result<(), ExactError> {
        let solver = &self.solver;
        let solved = solve_missing(rules, games, &self.file.decision_margins, |game| {
            let side = game.side_to_move();
            let values = solver.decision_values(rules, game)?;
            Some(
                values
                    .iter()
                    .map(|(decision, value)| {
                        (
                            rules.decision_index(*decision) as u16,
                            value.margin_for(side),
                        )
                    })
                    .collect(),
            )
        })?;
        self.changed |= !solved.is_empty();
        self.file.decision_margins.extend(solved);
        self.save()
    }

    /// Every decision of `game` with its exact margin for the mover, when scored.
    pub fn decision_margins<W: Bitboard>(
        &self,
        rules: &Rules,
        game: &Game<W>,
    ) -> Option<&[DecisionMargin]> {
        self.file
            .decision_margins
            .get(&game.to_text(rules))
            .map(Vec::as_slice)
    }

    /// The exact value of `game`, when it is in the cache.
    pub fn value(&self, rules: &Rules, game: &impl GameView) -> Option<ExactValue> {
        let margin = *self.file.black_margins.get(&game.to_text(rules))?;
        Some(ExactValue::of_margin(rules, game, margin))
    }

    fn save(&mut self) -> Result<(), ExactError> {
        let Some(path) = self.path.as_ref().filter(|_| self.changed) else {
            return Ok(());
        };
        self.file.save(path)?;
        self.changed = false;
        Ok(())
    }
}

/// The most empty squares perfect play and exact values take on: every position of a board
/// of at most 36 squares (6x6 Othello solves from its start in about a minute on 2 cores, 6x6
/// anti-Othello in about a quarter of an hour), 26 on a larger board (FFO #49, 26 empties on
/// 8x8, takes about 70 s). Past that the solver would run for hours or days.
pub fn exact_reach(rules: &Rules) -> u32 {
    const SMALL_BOARD_SQUARES: u32 = 36;
    const LARGE_BOARD_EMPTIES: u32 = 26;
    if rules.square_count() <= SMALL_BOARD_SQUARES {
        SMALL_BOARD_SQUARES
    } else {
        LARGE_BOARD_EMPTIES
    }
}

/// Refuses the first of `games` with more empty squares than [`exact_reach`], saying how many.
///
/// # Errors
/// [`ExactError::OutOfReach`].
pub fn check_within_reach<'a, G: GameView + 'a>(
    rules: &Rules,
    games: impl IntoIterator<Item = &'a G>,
) -> Result<(), ExactError> {
    let reach = exact_reach(rules);
    match games
        .into_iter()
        .map(|game| game.empty_count())
        .find(|&empties| empties > reach)
    {
        Some(empties) => Err(ExactError::OutOfReach {
            empties,
            reach,
            squares: rules.square_count(),
        }),
        None => Ok(()),
    }
}

/// `solve` applied in parallel to the games of `games` whose text `known` lacks, with their
/// texts; the games it returns `None` for are left out.
///
/// # Errors
/// A missing game past the solver's reach ([`check_within_reach`]), before any is solved.
fn solve_missing<W: Bitboard, V: Send>(
    rules: &Rules,
    games: &[Game<W>],
    known: &BTreeMap<String, V>,
    solve: impl Fn(&Game<W>) -> Option<V> + Sync,
) -> Result<Vec<(String, V)>, ExactError> {
    let missing: Vec<(String, &Game<W>)> = games
        .iter()
        .map(|game| (game.to_text(rules), game))
        .filter(|(text, _)| !known.contains_key(text))
        .collect();
    check_within_reach(rules, missing.iter().map(|&(_, game)| game))?;
    Ok(missing
        .into_par_iter()
        .filter_map(|(text, game)| Some((text, solve(game)?)))
        .collect())
}

/// Up to `count` distinct random openings of `plies` random plies (a number drawn per opening
/// from the range) whose exact value lies within `within_discs` of a draw, their values
/// solved into `cache`. Fewer come back when the game has too few such openings.
///
/// # Errors
/// A cache file that cannot be written.
pub fn exact_openings<W: Bitboard>(
    rules: &Rules,
    cache: &mut ExactCache,
    count: usize,
    plies: RangeInclusive<u32>,
    within_discs: i32,
    seed: u64,
) -> Result<Vec<Opening<W>>, ExactError> {
    // Candidates in the order the seed draws them, solved a batch at a time so that a small
    // count does not solve a large suite.
    let mut wanted = count;
    loop {
        let candidates = opening_lines_between::<W>(rules, 2 * wanted + 8, plies.clone(), seed);
        cache.solve_all(rules, &positions(&candidates))?;
        let kept: Vec<Opening<W>> = candidates
            .iter()
            .filter(|opening| {
                cache
                    .value(rules, &opening.position)
                    .is_some_and(|value| value.margin_for(Color::Black).abs() <= within_discs)
            })
            .take(count)
            .cloned()
            .collect();
        // No more distinct openings to draw, or enough kept.
        if kept.len() >= count || candidates.len() < 2 * wanted + 8 {
            return Ok(kept);
        }
        wanted *= 2;
    }
}

/// What an agent kept of the exact values of its openings, over a match against a perfect
/// opponent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PerfectPlayScore {
    /// Games whose opening has a known exact value.
    pub games: usize,
    /// Of those, the games whose opening is won or drawn for the agent: as Black, as White,
    /// in all.
    pub not_lost: [usize; 3],
    /// Of those, the games in which the agent kept that outcome: as Black, as White, in all.
    pub kept_outcome: [usize; 3],
    /// Games in which the agent kept the exact margin.
    pub kept_margin: usize,
    /// Discs below the exact margin, summed over the games.
    pub discs_lost: i64,
}

impl PerfectPlayScore {
    /// Scores the games of a match of an agent (the first agent of `games`) against a perfect
    /// opponent: game `i` was played from opening `i / 2`, as paired matches play them.
    pub fn of_match(
        rules: &Rules,
        cache: &ExactCache,
        openings: &[impl GameView],
        games: &[GameResult],
    ) -> Self {
        let mut score = Self::default();
        for (index, game) in games.iter().enumerate() {
            let opening = &openings[index / 2];
            let Some(exact) = cache.value(rules, opening) else {
                continue;
            };
            // Bidding is over in a solvable opening: the seat's colour stays for the game.
            let color = if opening.seats_swapped() {
                game.first_agent_color.opponent()
            } else {
                game.first_agent_color
            };
            score.games += 1;
            let exact_outcome = exact.outcome_for(color);
            if exact_outcome >= 0 {
                let outcome = (2.0 * game.points - 1.0).round() as i8;
                let kept = outcome >= exact_outcome;
                let slot = usize::from(color == Color::White);
                for slot in [slot, 2] {
                    score.not_lost[slot] += 1;
                    score.kept_outcome[slot] += usize::from(kept);
                }
            }
            let lost = exact.margin_for(color) - game.margin;
            score.kept_margin += usize::from(lost <= 0);
            score.discs_lost += i64::from(lost);
        }
        score
    }

    /// The score in words: "against the exact values of N games: outcome kept in ...".
    pub fn summary(&self) -> String {
        let share =
            |value: Option<f64>| value.map_or("-".to_owned(), |v| format!("{:.1}%", v * 100.0));
        format!(
            "against the exact values of {} games: outcome kept in {} of the {} not lost \
             (as Black {} of {}, as White {} of {}), exact margin kept in {}, {:.2} discs lost \
             a game",
            self.games,
            share(self.kept_outcome_share(2)),
            self.not_lost[2],
            share(self.kept_outcome_share(0)),
            self.not_lost[0],
            share(self.kept_outcome_share(1)),
            self.not_lost[1],
            share(self.kept_margin_share()),
            self.mean_discs_lost().unwrap_or(0.0),
        )
    }

    /// Adds another match's counts to these.
    pub fn add(&mut self, other: &Self) {
        self.games += other.games;
        for slot in 0..3 {
            self.not_lost[slot] += other.not_lost[slot];
            self.kept_outcome[slot] += other.kept_outcome[slot];
        }
        self.kept_margin += other.kept_margin;
        self.discs_lost += other.discs_lost;
    }

    /// The share of the not-lost games whose outcome was kept, for `slot` (0 Black, 1
    /// White, 2 all); `None` without such games.
    pub fn kept_outcome_share(&self, slot: usize) -> Option<f64> {
        (self.not_lost[slot] > 0)
            .then(|| self.kept_outcome[slot] as f64 / self.not_lost[slot] as f64)
    }

    /// The share of all scored games that kept the exact margin.
    pub fn kept_margin_share(&self) -> Option<f64> {
        (self.games > 0).then(|| self.kept_margin as f64 / self.games as f64)
    }

    /// Mean discs lost against the exact values, per scored game.
    pub fn mean_discs_lost(&self) -> Option<f64> {
        (self.games > 0).then(|| self.discs_lost as f64 / self.games as f64)
    }
}
