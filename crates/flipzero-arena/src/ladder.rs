//! The engine ladder: agents rated against the classical engine at depths 1 to N. Every
//! rung plays the next one and each candidate plays every rung, each as a paired match over
//! the same openings; maximum-likelihood Elo over all those games puts the candidates on the
//! ladder's scale, depth 1 at 0.

use flipzero_core::{AnyGame, Bitboard, Game, GameWidth, Rules, with_width};
use flipzero_engine::SearchConfig;

use crate::agent::{AgentFactory, AgentSpec};
use crate::elo::{EloError, PairResult, Rating, ratings};
use crate::journal::{Journal, game_key};
use crate::matches::{GameResult, MatchResult, play_paired_resuming};

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
    /// Games taken from the journal of an interrupted ladder.
    pub resumed: usize,
    /// The first failure to write a finished game to the journal (the ladder's games are all
    /// in this report; only a later resume would play that game again).
    pub journal_failure: Option<String>,
}

/// Where a ladder keeps its finished games, so that an interrupted ladder resumes where it
/// stopped: the journal, and one name per candidate that says which agent it is (such as
/// its checkpoint's step), so that no candidate's game is taken for another's. The rungs are
/// named by their depth, which fixes them.
pub struct LadderJournal<'a> {
    /// The journal (see [`Journal::open`]).
    pub journal: &'a Journal,
    /// The candidates' names in the journal's keys, in the order given (one missing: the
    /// candidate's place, `candidate K`).
    pub candidate_ids: &'a [String],
}

/// Rates `candidates` against the rungs (name and agent, weakest first: the engine by depth,
/// perhaps `perfect` on top), over `openings` (each played with both colours); each rung
/// plays the next, once for all candidates. Rung `anchor` is rated 0 (say depth 1 above a
/// `random` rung). With a `journal`, each game is written to it as it finishes and the games
/// it holds are not played again. `on_game` hears of each finished game.
///
/// # Errors
/// An `anchor` past the rungs is an [`EloError`].
///
/// # Panics
/// An opening made from rules of another board width than `rules`.
pub fn ladder_anchored(
    rules: &Rules,
    candidates: &[AgentFactory],
    rungs: &[(String, AgentFactory)],
    anchor: usize,
    openings: &[AnyGame],
    journal: Option<&LadderJournal>,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<LadderReport, EloError> {
    with_width!(rules.square_count(), W => {
        let openings = W::games_of(openings);
        ladder_on(rules, candidates, rungs, anchor, &openings, journal, on_game)
    })
}

fn ladder_on<W: Bitboard>(
    rules: &Rules,
    candidates: &[AgentFactory],
    rungs: &[(String, AgentFactory)],
    anchor: usize,
    openings: &[Game<W>],
    journal: Option<&LadderJournal>,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<LadderReport, EloError> {
    let opening_texts: Vec<String> = openings.iter().map(|game| game.to_text(rules)).collect();
    let resumed = std::sync::atomic::AtomicUsize::new(0);
    let journal_failure = std::sync::Mutex::new(None::<String>);
    // Agents and keys are named (first, second); game `g` of a match is played from opening
    // g / 2, the first agent as Black on even games.
    let play = |names: (&str, &str), first: &AgentFactory, second: &AgentFactory| {
        let key = |game: usize| game_key(names, 0, game, &opening_texts[game / 2]);
        play_paired_resuming(
            rules,
            openings,
            None,
            |game| {
                (
                    first.build::<W>(game as u64),
                    second.build::<W>(1000 + game as u64),
                )
            },
            |game| {
                let found = journal?.journal.finished(&key(game))?;
                resumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Some(found)
            },
            |game, result| {
                on_game(result);
                if let Some(Err(error)) = journal.map(|j| j.journal.record(&key(game), result)) {
                    let mut failure = journal_failure.lock().unwrap_or_else(|p| p.into_inner());
                    failure.get_or_insert(error.to_string());
                }
            },
        )
    };
    let candidate_id = |number: usize| match journal {
        Some(journal) if number < journal.candidate_ids.len() => {
            journal.candidate_ids[number].clone()
        }
        _ => candidate_name(number, candidates.len()),
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
        let id = candidate_id(number);
        for (index, (rung_name, rung)) in rungs.iter().enumerate() {
            let result = play((&id, rung_name), candidate, rung);
            let names = (name.clone(), rung_name.clone());
            record(number, first_rung + index, names, result);
        }
    }
    for (index, pair) in rungs.windows(2).enumerate() {
        let result = play((&pair[1].0, &pair[0].0), &pair[1].1, &pair[0].1);
        let names = (pair[1].0.clone(), pair[0].0.clone());
        let (higher, lower) = (first_rung + index + 1, first_rung + index);
        record(higher, lower, names, result);
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
        resumed: resumed.into_inner(),
        journal_failure: journal_failure
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use flipzero_core::Preset;
    use flipzero_engine::WeightsFile;

    use super::*;
    use crate::openings::{opening_lines_between, positions};

    /// Each match's games as (points, decisions): what a resumed ladder must give back.
    fn games_of(report: &LadderReport) -> Vec<Vec<(f64, Vec<flipzero_core::Decision>)>> {
        report
            .matches
            .iter()
            .map(|m| {
                let games = m.result.games.iter();
                games.map(|g| (g.points, g.decisions.clone())).collect()
            })
            .collect()
    }

    #[test]
    fn a_journaled_ladder_resumes_without_playing_its_games_again() {
        let rules = Preset::Othello.rules(Some(4)).unwrap();
        let weights = WeightsFile::embedded()
            .weights_for(&rules, "embedded")
            .unwrap();
        let agent =
            |spec: &AgentSpec| AgentFactory::with_network(spec, &rules, weights.clone(), None);
        let candidates = [agent(&AgentSpec::Random)];
        let rungs = [
            (rung_name(1), agent(&rung(1))),
            (rung_name(2), agent(&rung(2))),
        ];
        let openings: Vec<AnyGame> = positions(&opening_lines_between::<u64>(&rules, 2, 2..=2, 7))
            .into_iter()
            .map(AnyGame::from)
            .collect();
        // Two rungs for one candidate, and the rungs' own match: 3 matches of 2 x openings.
        let total = 3 * 2 * openings.len();
        let played = AtomicUsize::new(0);
        let count = |_: &GameResult| {
            played.fetch_add(1, Ordering::Relaxed);
        };
        let plain =
            ladder_anchored(&rules, &candidates, &rungs, 0, &openings, None, &count).unwrap();
        assert_eq!(played.swap(0, Ordering::Relaxed), total);

        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("ladder.jsonl");
        let journaled_as = |id: &str, on_game: &(dyn Fn(&GameResult) + Sync)| {
            let journal = Journal::open(&path, &rules).unwrap();
            let ids = [id.to_owned()];
            let kept = LadderJournal {
                journal: &journal,
                candidate_ids: &ids,
            };
            ladder_anchored(
                &rules,
                &candidates,
                &rungs,
                0,
                &openings,
                Some(&kept),
                on_game,
            )
            .unwrap()
        };
        let journaled = |on_game: &(dyn Fn(&GameResult) + Sync)| journaled_as("random", on_game);
        let first = journaled(&count);
        assert_eq!(
            (played.swap(0, Ordering::Relaxed), first.resumed),
            (total, 0)
        );
        assert_eq!(games_of(&first), games_of(&plain));
        // Opened again, the journal holds every game: nothing is played, the report is the same.
        let again = journaled(&count);
        assert_eq!((played.load(Ordering::Relaxed), again.resumed), (0, total));
        assert_eq!(games_of(&again), games_of(&plain));
        assert_eq!(again.candidates[0].elo, plain.candidates[0].elo);
        assert!(again.journal_failure.is_none());
        // Another candidate under the same rungs: only the rungs' own match is taken.
        let other = journaled_as("another agent", &count);
        let rung_games = 2 * openings.len();
        assert_eq!(
            (played.load(Ordering::Relaxed), other.resumed),
            (total - rung_games, rung_games)
        );
    }
}
