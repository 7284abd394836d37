//! Competitions from a config (`configs/arena/*.toml`): a round robin, a gauntlet, a Swiss
//! tournament or a two-agent match (optionally stopped by SPRT), over an opening suite,
//! with an optional clock per game; every game kept as a [`SavedGame`], and ratings over
//! the whole pool.

use std::path::Path;
use std::time::Duration;

use burn::tensor::Device;
use flipzero_core::{Bitboard, Color, Game, GameView, Rules, with_width};
use flipzero_engine::WeightsFile;
use serde::{Deserialize, Serialize};

use crate::agent::{AgentFactory, AgentSpec, NamedAgentSpec};
use crate::elo::{PairResult, Rating, Sprt, SprtDecision, ratings};
use crate::journal::{Journal, game_key};
use crate::matches::{Ending, GameResult, Thinking, play_game, play_paired_resuming};
use crate::openings::{Opening, OpeningFilter, opening_suite, positions};
use crate::perfect::{ExactCache, PerfectPlayScore, check_within_reach};
use crate::tournament::{BqGame, Pairing, SwissPlayer, brightwell_quotient, swiss_round};

pub use flipzero_data::saved_game::SavedGame;

/// The longest game clock a config may set (a duration holds far more; this keeps the
/// arithmetic on clocks finite).
pub const MAX_SECONDS_PER_GAME: f64 = 1e6;

/// The config of a competition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// A variant preset name or a rules TOML file.
    pub variant: String,
    /// Board side, where the preset allows another.
    #[serde(default)]
    pub size: Option<u8>,
    /// Seeds the openings and the agents' random choices.
    #[serde(default)]
    pub seed: u64,
    /// The agents, as `random`, `greedy`, `engine:depth=4`, `mcts:checkpoint=FILE`.
    pub agents: Vec<NamedAgentSpec>,
    /// How the agents meet.
    pub format: Format,
    /// Rounds of a Swiss tournament.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// The opening suite.
    pub openings: OpeningsConfig,
    /// Each agent's time for all its decisions of a game; who runs out loses.
    #[serde(default)]
    pub seconds_per_game: Option<f64>,
    /// The agent whose rating is held at `anchor_elo` (the first agent when absent).
    #[serde(default)]
    pub anchor: Option<String>,
    /// The anchor's rating.
    #[serde(default)]
    pub anchor_elo: f64,
    /// For a match: stop as soon as this test decides.
    #[serde(default)]
    pub sprt: Option<Sprt>,
}

/// How the agents meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pair plays a paired match over the whole suite.
    RoundRobin,
    /// The first agent plays a paired match against each of the others.
    Gauntlet,
    /// Rounds of one game per pairing, pairings by score; Brightwell Quotient tie-break.
    Swiss,
    /// Two agents, a paired match over the suite, stopped early by `sprt` when given.
    Match,
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpeningsConfig {
    /// Openings in the suite.
    pub count: usize,
    /// Random plies from the start that make each opening.
    #[serde(default)]
    pub plies: u32,
    /// Keep only openings the engine scores within `margin` discs of even.
    #[serde(default)]
    pub balanced: bool,
    /// The balance margin, in discs.
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The engine's depth for judging balance.
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// A file of openings instead, one position text per line (`Game::to_text`).
    #[serde(default)]
    pub file: Option<String>,
    /// Keep only openings whose exact value is within this many discs of a draw (rules the
    /// exact solver covers); games against `perfect` are then scored against those values.
    #[serde(default)]
    pub exact_within: Option<i32>,
    /// Where the openings' exact values are kept between runs (JSON; in memory when absent).
    #[serde(default)]
    pub exact_cache: Option<String>,
}

fn default_margin() -> f64 {
    2.0
}

fn default_depth() -> u32 {
    4
}

/// An agent's place in the final table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The agent.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Points (a win 1, a draw 0.5, a Swiss bye 1).
    pub points: f64,
    /// Its rating over the pool.
    pub rating: Rating,
    /// Brightwell Quotient (Swiss tournaments only).
    pub brightwell: Option<f64>,
    /// The time it spent choosing over all its games.
    pub thinking: Thinking,
}

/// What a competition found.
#[derive(Clone, Debug)]
pub struct ArenaReport {
    /// The table, best first (by points, then Brightwell Quotient or rating).
    pub standings: Vec<Standing>,
    /// Results between pairs, by agent index in the config.
    pub pairs: Vec<PairResult>,
    /// Every game.
    pub games: Vec<SavedGame>,
    /// The SPRT's decision, for a match with a test.
    pub sprt: Option<SprtDecision>,
    /// Per agent that met `perfect` over openings of known exact value: what it kept of
    /// those values.
    pub perfect: Vec<(String, PerfectPlayScore)>,
    /// Games taken from the journal of an earlier, interrupted run.
    pub resumed: usize,
    /// The first failure to write a finished game to the journal (the games are all in
    /// this report; only a later resume would have to play them again).
    pub journal_failure: Option<String>,
}

/// A config that cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// The config's text.
    #[error("{0}")]
    Config(String),
    /// An agent.
    #[error(transparent)]
    Agent(#[from] crate::agent::AgentError),
    /// Exact values that cannot be had.
    #[error("openings.exact_within: {0}")]
    Exact(#[from] crate::perfect::ExactError),
    /// The openings file.
    #[error("openings file {path}: {reason}")]
    Openings {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl ArenaConfig {
    /// Reads a config's text; `name` names it in errors.
    ///
    /// # Errors
    /// Bad TOML, unknown keys, too few agents for the format, an agent that does not parse.
    pub fn parse(text: &str, name: &str) -> Result<(Self, Rules), ArenaError> {
        let invalid = |reason: String| ArenaError::Config(format!("{name}: {reason}"));
        // The agents parse as the file is read; a bad one is named by serde's error.
        let config: ArenaConfig = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let rules = Rules::load(&config.variant, config.size)
            .map_err(|e| invalid(format!("variant `{}`: {e}", config.variant)))?;
        let agent_count = config.agents.len();
        let needed = match config.format {
            Format::Match => (2, 2),
            _ => (2, 1000),
        };
        if !(needed.0..=needed.1).contains(&agent_count) {
            return Err(invalid(format!(
                "format {:?} needs {} to {} agents, not {}",
                config.format, needed.0, needed.1, agent_count
            )));
        }
        if config.format == Format::Swiss && config.rounds.is_none_or(|r| r == 0) {
            return Err(invalid(
                "a swiss tournament needs `rounds` of 1 or more".into(),
            ));
        }
        if let Some(anchor) = &config.anchor
            && !config.agents.iter().any(|agent| agent.name == *anchor)
        {
            return Err(invalid(format!(
                "anchor `{anchor}` is not one of the agents"
            )));
        }
        if let Some(seconds) = config.seconds_per_game
            && !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_SECONDS_PER_GAME)
        {
            return Err(invalid(format!(
                "seconds_per_game = {seconds}: use a time above 0 and at most {MAX_SECONDS_PER_GAME}"
            )));
        }
        if !config.anchor_elo.is_finite() {
            return Err(invalid(format!(
                "anchor_elo = {}: use a finite rating",
                config.anchor_elo
            )));
        }
        if let Some(sprt) = &config.sprt {
            sprt.check()
                .map_err(|reason| invalid(format!("sprt: {reason}")))?;
        }
        if config.openings.count == 0 && config.openings.file.is_none() {
            return Err(invalid("openings.count = 0: use 1 or more".into()));
        }
        if config
            .openings
            .exact_within
            .is_some_and(|within| within < 0)
        {
            return Err(invalid("openings.exact_within: use 0 or more discs".into()));
        }
        if config.openings.exact_within.is_some()
            && (config.openings.file.is_some() || config.openings.balanced)
        {
            return Err(invalid(
                "openings.exact_within draws its own openings: leave out `file` and `balanced`"
                    .into(),
            ));
        }
        if config.openings.exact_within.is_some() && config.format == Format::Swiss {
            // Scores against perfect play come from paired matches (each opening with both
            // colours); a Swiss round plays one game a pairing.
            return Err(invalid(
                "openings.exact_within scores paired matches: use a round robin, a gauntlet \
                 or a match, not swiss"
                    .into(),
            ));
        }
        Ok((config, rules))
    }
}

/// Runs a competition. `on_game` hears of each finished game (for progress bars). With a
/// `journal`, every game is appended to it as it finishes, and the games an earlier run of
/// the same competition left in it are taken instead of played.
///
/// # Errors
/// An agent that cannot be prepared (an unreadable checkpoint), a bad openings file.
pub fn run_arena(
    config: &ArenaConfig,
    rules: &Rules,
    device: &Device,
    journal: Option<&Journal>,
    on_game: &(dyn Fn() + Sync),
) -> Result<ArenaReport, ArenaError> {
    let factories = config
        .agents
        .iter()
        .map(|agent| AgentFactory::new(&agent.spec, rules, device))
        .collect::<Result<Vec<_>, _>>()?;
    let perfect: Vec<bool> = config
        .agents
        .iter()
        .map(|agent| matches!(agent.spec, AgentSpec::Perfect))
        .collect();
    with_width!(rules.square_count(), W => {
        run_with::<W>(config, rules, &factories, &perfect, journal, on_game)
    })
}

/// The suite, and with `exact_within` the cache of its exact values.
fn load_openings<W: Bitboard>(
    config: &ArenaConfig,
    rules: &Rules,
) -> Result<(Vec<Opening<W>>, Option<ExactCache>), ArenaError> {
    let openings = &config.openings;
    if let Some(within_discs) = openings.exact_within {
        let mut cache = ExactCache::open(rules, openings.exact_cache.as_deref().map(Path::new))?;
        let filter = OpeningFilter::Exact {
            cache: &mut cache,
            within_discs,
        };
        let plies = openings.plies..=openings.plies;
        let suite = opening_suite(rules, openings.count, plies, filter, config.seed)?;
        return Ok((suite, Some(cache)));
    }
    Ok((load_suite(config, rules)?, None))
}

fn load_suite<W: Bitboard>(
    config: &ArenaConfig,
    rules: &Rules,
) -> Result<Vec<Opening<W>>, ArenaError> {
    let openings = &config.openings;
    if let Some(path) = &openings.file {
        let error = |reason: String| ArenaError::Openings {
            path: path.clone(),
            reason,
        };
        let text = std::fs::read_to_string(Path::new(path)).map_err(|e| error(e.to_string()))?;
        return text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
            .map(|(number, line)| {
                Game::<W>::from_text(rules, line.trim())
                    .map(Opening::from_position)
                    .map_err(|e| error(format!("line {}: {e}", number + 1)))
            })
            .collect();
    }
    let weights;
    let filter = if openings.balanced {
        weights = WeightsFile::embedded()
            .weights_for(rules, "embedded weights")
            .map_err(|e| ArenaError::Config(e.to_string()))?;
        OpeningFilter::Balanced {
            weights: &weights,
            depth: openings.depth,
            margin_discs: openings.margin,
        }
    } else {
        OpeningFilter::All
    };
    let plies = openings.plies..=openings.plies;
    Ok(opening_suite(
        rules,
        openings.count,
        plies,
        filter,
        config.seed,
    )?)
}

fn saved<W: Bitboard>(
    config: &ArenaConfig,
    rules: &Rules,
    opening: &Game<W>,
    names: (&str, &str),
    game: &GameResult,
) -> SavedGame {
    saved_game(&config.variant, config.size, rules, opening, names, game)
}

/// The record of `game`, played from `opening` by the agents `names` (first, second).
pub fn saved_game(
    variant: &str,
    size: Option<u8>,
    rules: &Rules,
    opening: &impl GameView,
    names: (&str, &str),
    game: &GameResult,
) -> SavedGame {
    let [first_seconds, second_seconds] = game.thinking.map(|t| t.time.as_secs_f64());
    let ((black, white), seconds) = if game.first_agent_color == Color::Black {
        (names, [first_seconds, second_seconds])
    } else {
        ((names.1, names.0), [second_seconds, first_seconds])
    };
    let moves = opening.decision_names(rules, &game.decisions);
    let black_points = if game.first_agent_color == Color::Black {
        game.points
    } else {
        1.0 - game.points
    };
    SavedGame {
        variant: variant.to_owned(),
        size,
        black: black.to_owned(),
        white: white.to_owned(),
        opening: opening.to_text(rules),
        decisions: moves.join(" "),
        result: match black_points {
            1.0 => "1-0",
            0.0 => "0-1",
            _ => "1/2-1/2",
        }
        .to_owned(),
        score: game.black_score,
        ending: match game.ending {
            Ending::Finished => "finished".to_owned(),
            Ending::Time(_) => "time".to_owned(),
            Ending::Forfeit(_) => format!(
                "forfeit: {}",
                game.failure.as_deref().unwrap_or("the agent failed")
            ),
        },
        seconds: Some(seconds),
    }
}

/// A Swiss player's standing and games: (the opponent, or `usize::MAX` for a bye; the
/// player's discs at the end).
type SwissRecord = (SwissPlayer, Vec<(usize, u32)>);

/// The games of a pair seen from its second agent.
fn from_second_agent(games: &[GameResult]) -> Vec<GameResult> {
    games
        .iter()
        .map(|game| GameResult {
            first_agent_color: game.first_agent_color.opponent(),
            points: 1.0 - game.points,
            margin: -game.margin,
            thinking: [game.thinking[1], game.thinking[0]],
            ..game.clone()
        })
        .collect()
}

fn run_with<W: Bitboard>(
    config: &ArenaConfig,
    rules: &Rules,
    factories: &[AgentFactory],
    is_perfect: &[bool],
    journal: Option<&Journal>,
    on_game: &(dyn Fn() + Sync),
) -> Result<ArenaReport, ArenaError> {
    let (openings, exact_values) = load_openings::<W>(config, rules)?;
    let mut perfect_scores: Vec<(String, PerfectPlayScore)> = Vec::new();
    if openings.is_empty() {
        return Err(ArenaError::Config("no openings".into()));
    }
    if is_perfect.contains(&true) {
        // Refused now rather than forfeited game after game.
        check_within_reach(rules, openings.iter().map(|opening| &opening.position))
            .map_err(|error| ArenaError::Config(format!("agent perfect: {error}")))?;
    }
    let clock = config.seconds_per_game.map(Duration::from_secs_f64);
    let names: Vec<String> = config
        .agents
        .iter()
        .map(|agent| agent.name.clone())
        .collect();
    let mut pairs = Vec::new();
    let mut games = Vec::new();
    let mut points = vec![0.0f64; factories.len()];
    let mut played = vec![0u32; factories.len()];
    let mut thinking = vec![Thinking::default(); factories.len()];
    let mut sprt_decision = None;
    let mut swiss_table: Option<Vec<SwissRecord>> = None;
    let resumed = std::sync::atomic::AtomicUsize::new(0);
    let journal_failure = std::sync::Mutex::new(None::<String>);
    // The game of `key` from the journal, if an earlier run finished it.
    let from_journal = |key: &str| {
        let game = journal.and_then(|journal| journal.finished(key))?;
        resumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        on_game();
        Some(game)
    };
    // A game just played: into the journal.
    let to_journal = |key: &str, game: &GameResult| {
        on_game();
        if let Some(Err(error)) = journal.map(|journal| journal.record(key, game)) {
            let mut failure = journal_failure.lock().unwrap_or_else(|p| p.into_inner());
            failure.get_or_insert(error.to_string());
        }
    };

    // A paired match of agents `a` and `b` over `suite`, recorded.
    let mut paired = |a: usize, b: usize, suite: &[Opening<W>], seed: u64| {
        let keys: Vec<String> = (0..suite.len() * 2)
            .map(|game| {
                let opening = suite[game / 2].position.to_text(rules);
                game_key((&names[a], &names[b]), seed, game, &opening)
            })
            .collect();
        let result = play_paired_resuming(
            rules,
            &positions(suite),
            clock,
            |game| {
                let seed = config.seed ^ seed.wrapping_mul(0x9e37_79b9) ^ game as u64;
                let opening = &suite[game / 2];
                let mut agents = (
                    factories[a].build::<W>(seed),
                    factories[b].build::<W>(seed ^ 1),
                );
                agents.0.start_from(&opening.start, &opening.decisions);
                agents.1.start_from(&opening.start, &opening.decisions);
                agents
            },
            |game| from_journal(&keys[game]),
            |game, result| to_journal(&keys[game], result),
        );
        for (index, game) in result.games.iter().enumerate() {
            games.push(saved(
                config,
                rules,
                &suite[index / 2].position,
                (&names[a], &names[b]),
                game,
            ));
        }
        if let Some(cache) = &exact_values {
            let scored = match (is_perfect[a], is_perfect[b]) {
                (false, true) => Some((a, result.games.clone())),
                (true, false) => Some((b, from_second_agent(&result.games))),
                _ => None,
            };
            if let Some((agent, games)) = scored {
                let score = PerfectPlayScore::of_match(rules, cache, &positions(suite), &games);
                match perfect_scores
                    .iter_mut()
                    .find(|(name, _)| *name == names[agent])
                {
                    Some((_, total)) => total.add(&score),
                    None => perfect_scores.push((names[agent].clone(), score)),
                }
            }
        }
        points[a] += result.games.iter().map(|g| g.points).sum::<f64>();
        points[b] += result.games.iter().map(|g| 1.0 - g.points).sum::<f64>();
        played[a] += result.games.len() as u32;
        played[b] += result.games.len() as u32;
        for game in &result.games {
            thinking[a].add(&game.thinking[0]);
            thinking[b].add(&game.thinking[1]);
        }
        let pair = PairResult {
            first: a,
            second: b,
            wins: result.wins() as u32,
            draws: result.draws() as u32,
            losses: result.losses() as u32,
        };
        pairs.push(pair);
        pair
    };

    match config.format {
        Format::RoundRobin => {
            for a in 0..factories.len() {
                for b in a + 1..factories.len() {
                    paired(a, b, &openings, (a * 1000 + b) as u64);
                }
            }
        }
        Format::Gauntlet => {
            for b in 1..factories.len() {
                paired(0, b, &openings, b as u64);
            }
        }
        Format::Match => match config.sprt {
            None => {
                paired(0, 1, &openings, 0);
            }
            Some(sprt) => {
                // A few openings at a time (one per thread), until the test decides.
                let chunk = rayon::current_num_threads().max(1);
                let (mut wins, mut draws, mut losses) = (0, 0, 0);
                for (index, suite) in openings.chunks(chunk).enumerate() {
                    let pair = paired(0, 1, suite, index as u64);
                    wins += pair.wins;
                    draws += pair.draws;
                    losses += pair.losses;
                    let decision = sprt.decide(wins, draws, losses);
                    sprt_decision = Some(decision);
                    if decision != SprtDecision::Continue {
                        break;
                    }
                }
            }
        },
        Format::Swiss => {
            let rounds = config.rounds.unwrap_or(1);
            let mut players = vec![SwissPlayer::default(); factories.len()];
            // Per player: (opponent or usize::MAX for a bye, own discs).
            let mut record: Vec<Vec<(usize, u32)>> = vec![Vec::new(); factories.len()];
            for round in 0..rounds {
                let opening = &openings[round as usize % openings.len()];
                for pairing in swiss_round(&players) {
                    match pairing {
                        Pairing::Bye(player) => {
                            players[player].points += 1.0;
                            players[player].had_bye = true;
                            record[player].push((usize::MAX, 0));
                        }
                        Pairing::Game { black, white } => {
                            let seed = config.seed
                                ^ u64::from(round) << 20
                                ^ (black * 1000 + white) as u64;
                            let key = game_key(
                                (&names[black], &names[white]),
                                seed,
                                0,
                                &opening.position.to_text(rules),
                            );
                            let game = from_journal(&key).unwrap_or_else(|| {
                                let mut first = factories[black].build::<W>(seed);
                                let mut second = factories[white].build::<W>(seed ^ 1);
                                first.start_from(&opening.start, &opening.decisions);
                                second.start_from(&opening.start, &opening.decisions);
                                let game = play_game(
                                    rules,
                                    &opening.position,
                                    [first.as_mut(), second.as_mut()],
                                    Color::Black,
                                    clock,
                                );
                                to_journal(&key, &game);
                                game
                            });
                            games.push(saved(
                                config,
                                rules,
                                &opening.position,
                                (&names[black], &names[white]),
                                &game,
                            ));
                            thinking[black].add(&game.thinking[0]);
                            thinking[white].add(&game.thinking[1]);
                            players[black].points += game.points;
                            players[white].points += 1.0 - game.points;
                            players[black].opponents.push(white);
                            players[white].opponents.push(black);
                            players[black].colour_balance += 1;
                            players[white].colour_balance -= 1;
                            record[black].push((white, game.discs[0]));
                            record[white].push((black, game.discs[1]));
                            pairs.push(PairResult {
                                first: black,
                                second: white,
                                wins: u32::from(game.points == 1.0),
                                draws: u32::from(game.points == 0.5),
                                losses: u32::from(game.points == 0.0),
                            });
                        }
                    }
                }
            }
            for (index, player) in players.iter().enumerate() {
                points[index] = player.points;
                played[index] = record[index]
                    .iter()
                    .filter(|(o, _)| *o != usize::MAX)
                    .count() as u32;
            }
            swiss_table = Some(players.into_iter().zip(record).collect());
        }
    }

    let anchor = config
        .anchor
        .as_ref()
        .and_then(|anchor| names.iter().position(|name| name == anchor))
        .unwrap_or(0);
    let rated = ratings(factories.len(), &pairs, anchor, config.anchor_elo)
        .map_err(|e| ArenaError::Config(e.to_string()))?;
    let squares = rules.square_count();
    let mut standings: Vec<Standing> = (0..factories.len())
        .map(|index| Standing {
            name: names[index].clone(),
            games: played[index],
            points: points[index],
            rating: rated[index],
            thinking: thinking[index],
            brightwell: swiss_table.as_ref().map(|table| {
                let bq_games: Vec<BqGame> = table[index]
                    .1
                    .iter()
                    .map(|&(opponent, discs)| {
                        if opponent == usize::MAX {
                            BqGame::ByeOrWithdrawn
                        } else {
                            BqGame::Played {
                                discs,
                                opponent_points: table[opponent].0.points,
                            }
                        }
                    })
                    .collect();
                brightwell_quotient(
                    squares,
                    config.rounds.unwrap_or(1),
                    points[index],
                    &bq_games,
                )
            }),
        })
        .collect();
    standings.sort_by(|a, b| {
        b.points
            .total_cmp(&a.points)
            .then(
                b.brightwell
                    .unwrap_or(0.0)
                    .total_cmp(&a.brightwell.unwrap_or(0.0)),
            )
            .then(b.rating.elo.total_cmp(&a.rating.elo))
    });
    Ok(ArenaReport {
        standings,
        pairs,
        games,
        sprt: sprt_decision,
        perfect: perfect_scores,
        resumed: resumed.into_inner(),
        journal_failure: journal_failure
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
    })
}
