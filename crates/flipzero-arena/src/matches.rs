//! Games between two agents and paired matches over an opening suite.

use std::time::{Duration, Instant};

use flipzero_core::{AnyGame, Bitboard, Color, Decision, Game, Outcome, Rules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::agent::{Agent, AgentFactory};

/// How a game stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played to the end under the rules.
    Finished,
    /// The player of this seat (the colour it started as) ran out of time and lost.
    Time(Color),
    /// The player of this seat failed (an external engine that exited, hung or answered an
    /// illegal move) and lost; `GameResult::failure` says why.
    Forfeit(Color),
}

/// How one game ended, seen from the first agent.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Which seat the first agent had at the start.
    pub first_agent_color: Color,
    /// 1 when the first agent won, 0.5 for a draw, 0 for a loss.
    pub points: f64,
    /// The final margin for the first agent (its discs minus the other's, as the rules
    /// count them; positive is good for it under every objective's sign).
    pub margin: i32,
    /// The decisions played from the opening.
    pub decisions: Vec<Decision>,
    /// Black minus White at the end, as the rules count it (0 for a game lost on time).
    pub black_score: i32,
    /// Black's and White's discs on the board at the end.
    pub discs: [u32; 2],
    /// Played out, lost on time, or forfeited.
    pub ending: Ending,
    /// Why the forfeiting player failed.
    pub failure: Option<String>,
    /// The time each agent spent choosing, `[first agent, second agent]`.
    pub thinking: [Thinking; 2],
}

/// The time one agent spent choosing over a game (or a competition).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Thinking {
    /// All its choices together, as the referee timed them (an external engine's answer
    /// includes the protocol's round trip).
    pub time: Duration,
    /// The decisions it chose.
    pub decisions: u32,
}

impl Thinking {
    /// Adds another game's thinking.
    pub fn add(&mut self, other: &Thinking) {
        self.time += other.time;
        self.decisions += other.decisions;
    }

    /// Mean seconds a decision (0 with no decisions).
    pub fn seconds_per_decision(&self) -> f64 {
        if self.decisions == 0 {
            return 0.0;
        }
        self.time.as_secs_f64() / f64::from(self.decisions)
    }
}

/// The seat (colour at the start) of the player to move: bidding for komi can swap seats.
pub fn seat_to_move<W: Bitboard>(game: &Game<W>) -> Color {
    if game.seats_swapped() {
        game.side_to_move().opponent()
    } else {
        game.side_to_move()
    }
}

/// [`play_game`] for code that is not generic over the board width: fresh agents built by
/// `factories` with `seeds`, the first in the seat to move in `opening`, no clock.
pub fn play_built(
    rules: &Rules,
    opening: &AnyGame,
    factories: [&AgentFactory; 2],
    seeds: [u64; 2],
) -> GameResult {
    fn play<W: Bitboard>(
        rules: &Rules,
        opening: &Game<W>,
        factories: [&AgentFactory; 2],
        seeds: [u64; 2],
    ) -> GameResult {
        let mut first = factories[0].build::<W>(seeds[0]);
        let mut second = factories[1].build::<W>(seeds[1]);
        play_game(
            rules,
            opening,
            [&mut *first, &mut *second],
            seat_to_move(opening),
            None,
        )
    }
    match opening {
        AnyGame::Bits64(game) => play(rules, game, factories, seeds),
        AnyGame::Bits128(game) => play(rules, game, factories, seeds),
        AnyGame::Bits256(game) => play(rules, game, factories, seeds),
    }
}

/// Plays `opening` to the end, `agents[0]` in the seat that starts as `first_agent_color`.
/// With a `clock`, each agent has that much time for all its decisions of the game, is
/// asked to spend about its remaining time over its remaining moves, and loses when it runs
/// out (the winner's margin is then recorded as +1, docs/RULES.md section 5.3). An agent
/// that fails or returns an illegal decision forfeits the game the same way, with the reason
/// recorded; only this game ends. A chance event (the seats after equal komi bids) is drawn
/// here, not by an agent, from a seed of the opening: both games of a pair draw alike.
pub fn play_game<W: Bitboard>(
    rules: &Rules,
    opening: &Game<W>,
    agents: [&mut dyn Agent<W>; 2],
    first_agent_color: Color,
    clock: Option<Duration>,
) -> GameResult {
    let [first, second] = agents;
    let mut game = opening.clone();
    let mut decisions = Vec::new();
    // Time left per seat: [Black's seat, White's seat].
    let mut left = [clock; 2];
    let mut chance = ChaCha8Rng::seed_from_u64(opening.hash());
    let mut thinking = [Thinking::default(); 2];
    while !game.is_over() {
        if let Some(outcome) = game.draw_chance(rules, &mut chance) {
            game = game.play_unchecked(rules, outcome);
            decisions.push(outcome);
            continue;
        }
        let seat = seat_to_move(&game);
        let agent: &mut dyn Agent<W> = if seat == first_agent_color {
            &mut *first
        } else {
            &mut *second
        };
        let slot = usize::from(seat == Color::White);
        let agent_index = usize::from(seat != first_agent_color);
        if let Some(remaining) = left[slot] {
            agent.set_time_left(remaining, &game);
        }
        let started = Instant::now();
        let chosen = agent.choose(&game);
        let spent = started.elapsed();
        thinking[agent_index].add(&Thinking {
            time: spent,
            decisions: 1,
        });
        if let Some(remaining) = left[slot] {
            match remaining.checked_sub(spent) {
                Some(rest) => left[slot] = Some(rest),
                None => {
                    return lost(seat, first_agent_color, decisions, &game, None, thinking);
                }
            }
        }
        let played = chosen.and_then(|decision| {
            game.play(rules, decision)
                .map(|next| (decision, next))
                .map_err(|error| format!("an illegal decision: {error}"))
        });
        match played {
            Ok((decision, next)) => {
                game = next;
                decisions.push(decision);
            }
            Err(reason) => {
                return lost(
                    seat,
                    first_agent_color,
                    decisions,
                    &game,
                    Some(reason),
                    thinking,
                );
            }
        }
    }
    // The seat of each colour at the end.
    let first_color_at_end = if game.seats_swapped() {
        first_agent_color.opponent()
    } else {
        first_agent_color
    };
    let points = match game.outcome(rules).expect("the game is over") {
        Outcome::Win(color) if color == first_color_at_end => 1.0,
        Outcome::Win(_) => 0.0,
        Outcome::Draw => 0.5,
    };
    let black_score = game.score(rules);
    let own_margin = if first_color_at_end == Color::Black {
        black_score
    } else {
        -black_score
    };
    let margin = if rules.spec().objective == flipzero_core::variant::rules::Objective::FewestDiscs
    {
        -own_margin
    } else {
        own_margin
    };
    GameResult {
        first_agent_color,
        points,
        margin,
        decisions,
        black_score,
        discs: disc_counts(&game),
        ending: Ending::Finished,
        failure: None,
        thinking,
    }
}

fn disc_counts<W: Bitboard>(game: &Game<W>) -> [u32; 2] {
    [
        game.discs(Color::Black).count(),
        game.discs(Color::White).count(),
    ]
}

/// The result of a game that the player of `seat` lost at `game`: on time, or by forfeit
/// when it failed for the reason `failure`. The winner's margin is +1 either way
/// (docs/RULES.md section 5.3).
fn lost<W: Bitboard>(
    seat: Color,
    first_agent_color: Color,
    decisions: Vec<Decision>,
    game: &Game<W>,
    failure: Option<String>,
    thinking: [Thinking; 2],
) -> GameResult {
    let ending = match failure {
        Some(_) => Ending::Forfeit(seat),
        None => Ending::Time(seat),
    };
    let first_lost = seat == first_agent_color;
    GameResult {
        first_agent_color,
        points: if first_lost { 0.0 } else { 1.0 },
        margin: if first_lost { -1 } else { 1 },
        decisions,
        black_score: 0,
        discs: disc_counts(game),
        ending,
        failure,
        thinking,
    }
}

/// The games of a match, seen from the first agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// Every game, opening by opening, the first agent as Black then as White.
    pub games: Vec<GameResult>,
}

impl MatchResult {
    /// Games the first agent won.
    pub fn wins(&self) -> usize {
        self.games.iter().filter(|g| g.points == 1.0).count()
    }

    /// Drawn games.
    pub fn draws(&self) -> usize {
        self.games.iter().filter(|g| g.points == 0.5).count()
    }

    /// Games the first agent lost.
    pub fn losses(&self) -> usize {
        self.games.iter().filter(|g| g.points == 0.0).count()
    }

    /// The first agent's share of the points, 0 to 1 (0.5 for an empty match).
    pub fn score(&self) -> f64 {
        if self.games.is_empty() {
            return 0.5;
        }
        self.games.iter().map(|g| g.points).sum::<f64>() / self.games.len() as f64
    }

    /// The first agent's mean final margin.
    pub fn mean_margin(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        self.games.iter().map(|g| f64::from(g.margin)).sum::<f64>() / self.games.len() as f64
    }
}

/// A paired match: every opening played twice, the first agent once in each seat, the games
/// spread over rayon's threads, each agent with `clock` for each game when given.
/// `make_agents(game_index)` builds fresh agents for each game (first, second); `on_game`
/// hears of each finished game (for progress bars).
pub fn play_paired<W, F, G>(
    rules: &Rules,
    openings: &[Game<W>],
    clock: Option<Duration>,
    make_agents: F,
    on_game: G,
) -> MatchResult
where
    W: Bitboard,
    F: Fn(usize) -> (Box<dyn Agent<W>>, Box<dyn Agent<W>>) + Sync,
    G: Fn(&GameResult) + Sync,
{
    play_paired_resuming(
        rules,
        openings,
        clock,
        make_agents,
        |_| None,
        |_, game| on_game(game),
    )
}

/// [`play_paired`] that takes the games `finished(game_index)` already knows (from a
/// [`crate::journal::Journal`]) instead of playing them; `on_game(game_index, game)` hears
/// of each game it plays.
pub fn play_paired_resuming<W, F, K, G>(
    rules: &Rules,
    openings: &[Game<W>],
    clock: Option<Duration>,
    make_agents: F,
    finished: K,
    on_game: G,
) -> MatchResult
where
    W: Bitboard,
    F: Fn(usize) -> (Box<dyn Agent<W>>, Box<dyn Agent<W>>) + Sync,
    K: Fn(usize) -> Option<GameResult> + Sync,
    G: Fn(usize, &GameResult) + Sync,
{
    let games = (0..openings.len() * 2)
        .into_par_iter()
        .map(|index| {
            if let Some(result) = finished(index) {
                return result;
            }
            let (mut first, mut second) = make_agents(index);
            let color = if index % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let result = play_game(
                rules,
                &openings[index / 2],
                [first.as_mut(), second.as_mut()],
                color,
                clock,
            );
            on_game(index, &result);
            result
        })
        .collect();
    MatchResult { games }
}
