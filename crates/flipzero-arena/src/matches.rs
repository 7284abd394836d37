//! Games between two agents and paired matches over an opening suite.

use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Rules};
use rayon::prelude::*;

use crate::agent::Agent;

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
}

/// The seat (colour at the start) of the player to move: bidding for komi can swap seats.
fn seat_to_move<W: Bitboard>(game: &Game<W>) -> Color {
    if game.seats_swapped() {
        game.side_to_move().opponent()
    } else {
        game.side_to_move()
    }
}

/// Plays `opening` to the end, `agents[0]` in the seat that starts as Black.
///
/// # Panics
/// When an agent returns an illegal decision (a defect of the agent).
pub fn play_game<W: Bitboard>(
    rules: &Rules,
    opening: &Game<W>,
    agents: [&mut dyn Agent<W>; 2],
    first_agent_color: Color,
) -> GameResult {
    let [first, second] = agents;
    let mut game = opening.clone();
    let mut decisions = Vec::new();
    while !game.is_over() {
        let agent: &mut dyn Agent<W> = if seat_to_move(&game) == first_agent_color {
            &mut *first
        } else {
            &mut *second
        };
        let decision = agent.choose(&game);
        game = game
            .play(rules, decision)
            .expect("agents play legal decisions");
        decisions.push(decision);
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
    let black_margin = game.score(rules);
    let own_margin = if first_color_at_end == Color::Black {
        black_margin
    } else {
        -black_margin
    };
    let margin = if rules.spec().objective == flipzero_core::rules::Objective::FewestDiscs {
        -own_margin
    } else {
        own_margin
    };
    GameResult {
        first_agent_color,
        points,
        margin,
        decisions,
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
/// spread over rayon's threads. `make_agents(game_index)` builds fresh agents for each game
/// (first, second); `on_game` hears of each finished game (for progress bars).
pub fn play_paired<W, F, G>(
    rules: &Rules,
    openings: &[Game<W>],
    make_agents: F,
    on_game: G,
) -> MatchResult
where
    W: Bitboard,
    F: Fn(usize) -> (Box<dyn Agent<W>>, Box<dyn Agent<W>>) + Sync,
    G: Fn(&GameResult) + Sync,
{
    let games = (0..openings.len() * 2)
        .into_par_iter()
        .map(|index| {
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
            );
            on_game(&result);
            result
        })
        .collect();
    MatchResult { games }
}
