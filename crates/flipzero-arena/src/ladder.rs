//! The engine ladder: agents rated against the classical engine at depths 1 to N. Every
//! rung plays the next one and each candidate plays every rung, each as a paired match over
//! the same openings; maximum-likelihood Elo over all those games puts the candidates on the
//! ladder's scale, depth 1 at 0.

use flipzero_core::{Bitboard, Game, Rules};
use flipzero_engine::SearchConfig;

use crate::agent::{AgentFactory, AgentSpec};
use crate::elo::{EloError, PairResult, Rating, ratings};
use crate::matches::{GameResult, MatchResult, play_paired};

/// The engine at `depth` as a ladder rung, with its default settings (exact play from 12
/// empties), as `engine:depth=N` names it.
pub fn rung(depth: u32) -> AgentSpec {
    AgentSpec::Engine(SearchConfig {
        depth,
        ..SearchConfig::default()
    })
}

/// The name of the rung of engine depth `depth` in a ladder's matches and ratings.
pub fn rung_name(depth: u32) -> String {
    format!("depth {depth}")
}

/// The name of candidate `index` (from 0) of `count` in a ladder's matches: `candidate`
/// alone, else `candidate K` from 1.
pub fn candidate_name(index: usize, count: usize) -> String {
    if count == 1 {
        "candidate".to_owned()
    } else {
        format!("candidate {}", index + 1)
    }
}

/// One match of the ladder, from its first agent's side.
#[derive(Clone, Debug)]
pub struct LadderMatch {
    /// Who played first: `candidate` (`candidate K` when there are several) or `depth N`.
    pub first: String,
    /// The other.
    pub second: String,
    /// The games.
    pub result: MatchResult,
}

/// The ladder's ratings and matches.
#[derive(Clone, Debug)]
pub struct LadderReport {
    /// The candidates' ratings, in the order given.
    pub candidates: Vec<Rating>,
    /// Each rung's name and rating, in the order given (the first is 0 by definition).
    pub rungs: Vec<(String, Rating)>,
    /// Every match played.
    pub matches: Vec<LadderMatch>,
}

/// Rates `candidates` against the rungs (name and agent, weakest first: the engine by depth,
/// perhaps `perfect` on top), over `openings` (each played with both colours); each rung
/// plays the next, once for all candidates. The first rung is rated 0. `on_game` hears of
/// each finished game.
///
/// # Errors
/// None in practice: the pool is built here (a defect would surface as an [`EloError`]).
pub fn ladder<W: Bitboard>(
    rules: &Rules,
    candidates: &[AgentFactory],
    rungs: &[(String, AgentFactory)],
    openings: &[Game<W>],
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<LadderReport, EloError> {
    ladder_anchored(rules, candidates, rungs, 0, openings, on_game)
}

/// [`ladder`] with rung `anchor` rated 0 (say depth 1 above a `random` rung).
///
/// # Errors
/// As [`ladder`]; an `anchor` past the rungs is an [`EloError`].
pub fn ladder_anchored<W: Bitboard>(
    rules: &Rules,
    candidates: &[AgentFactory],
    rungs: &[(String, AgentFactory)],
    anchor: usize,
    openings: &[Game<W>],
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<LadderReport, EloError> {
    let play = |first: &AgentFactory, second: &AgentFactory| {
        play_paired(
            rules,
            openings,
            None,
            |game| {
                (
                    first.build::<W>(game as u64),
                    second.build::<W>(1000 + game as u64),
                )
            },
            on_game,
        )
    };
    let mut matches = Vec::new();
    let mut results = Vec::new();
    let mut record = |first: usize, second: usize, names: (String, String), result: MatchResult| {
        results.push(PairResult {
            first,
            second,
            wins: result.wins() as u32,
            draws: result.draws() as u32,
            losses: result.losses() as u32,
        });
        matches.push(LadderMatch {
            first: names.0,
            second: names.1,
            result,
        });
    };
    // Agents 0 to C - 1 are the candidates, agent C + i the i-th rung.
    let first_rung = candidates.len();
    for (number, candidate) in candidates.iter().enumerate() {
        let name = candidate_name(number, candidates.len());
        for (index, (rung_name, rung)) in rungs.iter().enumerate() {
            let names = (name.clone(), rung_name.clone());
            record(number, first_rung + index, names, play(candidate, rung));
        }
    }
    for (index, pair) in rungs.windows(2).enumerate() {
        let names = (pair[1].0.clone(), pair[0].0.clone());
        let (higher, lower) = (first_rung + index + 1, first_rung + index);
        record(higher, lower, names, play(&pair[1].1, &pair[0].1));
    }
    let rated = ratings(first_rung + rungs.len(), &results, first_rung + anchor, 0.0)?;
    Ok(LadderReport {
        candidates: rated[..first_rung].to_vec(),
        rungs: rungs
            .iter()
            .zip(&rated[first_rung..])
            .map(|((name, _), rating)| (name.clone(), *rating))
            .collect(),
        matches,
    })
}
