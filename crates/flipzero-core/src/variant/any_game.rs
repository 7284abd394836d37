//! A game of any board size behind one type: the handle for code that shows, replays or
//! stores games (commands, the web front-end) and has no need of speed, the way shakmaty's
//! `VariantPosition` hides the variant. The bitboard width is picked once, from the rules;
//! search, self-play and the solver stay generic over it.
//!
//! ```
//! use flipzero_core::{AnyGame, Color, Preset};
//!
//! // 10x10 needs a 128-bit board; the caller does not say so.
//! let rules = Preset::Othello.rules(Some(10))?;
//! let start = AnyGame::start(&rules);
//! let (decisions, after) = start.replay_decisions(&rules, "e4 d4")?;
//! assert_eq!(decisions.len(), 2);
//! assert_eq!(after.side_to_move(), Color::Black);
//! assert_eq!(after.disc_count(Color::Black) + after.disc_count(Color::White), 6);
//! assert_eq!(AnyGame::from_text(&rules, &after.to_text(&rules))?.to_text(&rules), after.to_text(&rules));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::Width;
use crate::bitboard::{Bitboard, U256};
use crate::color::{Color, Outcome};
use crate::geometry::Square;
use crate::variant::{
    Decision, DecisionError, Game, GameTextError, Phase, ReplayError, Rules, StartError,
    decision_name, notation, perft,
};

/// A [`Game`] on the narrowest bitboard that holds its board.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Up to 64 squares.
    Bits64(Game<u64>),
    /// Up to 128 squares.
    Bits128(Game<u128>),
    /// Up to 256 squares.
    Bits256(Game<U256>),
}

/// Runs `$body` with `$game` bound to the game inside, whatever its width; `$wrap` rebuilds
/// an [`AnyGame`] of the same width from a game of it.
macro_rules! each_width {
    ($any:expr, $game:ident => $body:expr) => {
        match $any {
            AnyGame::Bits64($game) => $body,
            AnyGame::Bits128($game) => $body,
            AnyGame::Bits256($game) => $body,
        }
    };
    ($any:expr, $game:ident, $wrap:ident => $body:expr) => {
        match $any {
            AnyGame::Bits64($game) => {
                let $wrap = AnyGame::Bits64;
                $body
            }
            AnyGame::Bits128($game) => {
                let $wrap = AnyGame::Bits128;
                $body
            }
            AnyGame::Bits256($game) => {
                let $wrap = AnyGame::Bits256;
                $body
            }
        }
    };
}

impl AnyGame {
    /// Builds the game of the width `rules` need.
    fn of_width(
        rules: &Rules,
        narrow: impl FnOnce() -> Result<Game<u64>, GameTextError>,
        middle: impl FnOnce() -> Result<Game<u128>, GameTextError>,
        wide: impl FnOnce() -> Result<Game<U256>, GameTextError>,
    ) -> Result<Self, GameTextError> {
        Ok(match Width::for_squares(rules.square_count()) {
            Width::Bits64 => AnyGame::Bits64(narrow()?),
            Width::Bits128 => AnyGame::Bits128(middle()?),
            Width::Bits256 => AnyGame::Bits256(wide()?),
        })
    }

    /// The rules' start (see [`Game::start`]).
    pub fn start(rules: &Rules) -> Self {
        match Width::for_squares(rules.square_count()) {
            Width::Bits64 => AnyGame::Bits64(Game::start(rules)),
            Width::Bits128 => AnyGame::Bits128(Game::start(rules)),
            Width::Bits256 => AnyGame::Bits256(Game::start(rules)),
        }
    }

    /// The rules' start for `seed`, where it is left to chance (see [`Game::try_start`]).
    ///
    /// # Errors
    /// As [`Game::try_start`].
    pub fn try_start(rules: &Rules, seed: u64) -> Result<Self, StartError> {
        Ok(match Width::for_squares(rules.square_count()) {
            Width::Bits64 => AnyGame::Bits64(Game::try_start(rules, seed)?),
            Width::Bits128 => AnyGame::Bits128(Game::try_start(rules, seed)?),
            Width::Bits256 => AnyGame::Bits256(Game::try_start(rules, seed)?),
        })
    }

    /// Parses a position's one-line text (see [`Game::from_text`]).
    ///
    /// # Errors
    /// As [`Game::from_text`].
    pub fn from_text(rules: &Rules, text: &str) -> Result<Self, GameTextError> {
        Self::of_width(
            rules,
            || Game::from_text(rules, text),
            || Game::from_text(rules, text),
            || Game::from_text(rules, text),
        )
    }

    /// The one-line text.
    pub fn to_text(&self, rules: &Rules) -> String {
        each_width!(self, game => game.to_text(rules))
    }

    /// The ASCII diagram.
    pub fn to_diagram(&self, rules: &Rules) -> String {
        each_width!(self, game => game.to_diagram(rules))
    }

    /// The ASCII diagram with `marks` shown on their empty squares (see
    /// [`Game::to_diagram_marked`]).
    pub fn to_diagram_marked(&self, rules: &Rules, marks: &[Square]) -> String {
        fn set<W: Bitboard>(marks: &[Square]) -> W {
            marks
                .iter()
                .fold(W::EMPTY, |set, square| set | W::square(square.index()))
        }
        each_width!(self, game => game.to_diagram_marked(rules, set(marks)))
    }

    /// The legal decisions, in the rules' order.
    pub fn legal_decisions(&self, rules: &Rules) -> Vec<Decision> {
        each_width!(self, game => game.legal_decisions(rules))
    }

    /// The game after a decision, if it is legal.
    ///
    /// # Errors
    /// As [`Game::play`].
    pub fn play(&self, rules: &Rules, decision: Decision) -> Result<Self, DecisionError> {
        each_width!(self, game, wrap => game.play(rules, decision).map(wrap))
    }

    /// The game after a decision known to be legal.
    pub fn play_unchecked(&self, rules: &Rules, decision: Decision) -> Self {
        each_width!(self, game, wrap => wrap(game.play_unchecked(rules, decision)))
    }

    /// The decisions of a move list, checked one by one, and the game after them.
    ///
    /// # Errors
    /// The first decision that does not read or cannot be played.
    pub fn replay_decisions(
        &self,
        rules: &Rules,
        moves: &str,
    ) -> Result<(Vec<Decision>, Self), ReplayError> {
        each_width!(self, game, wrap => notation::replay_decisions(rules, game, moves)
            .map(|(decisions, end)| (decisions, wrap(end))))
    }

    /// The move-list name of a decision (`f5`, `pass`, `bid+2`).
    pub fn decision_name(&self, rules: &Rules, decision: Decision) -> String {
        each_width!(self, game => decision_name(rules, game.geometry(), decision))
    }

    /// The name of a square (`a1`).
    pub fn square_name(&self, square: Square) -> String {
        each_width!(self, game => game.geometry().square_name(square).to_string())
    }

    /// What the next decision means; the squares of a phase listed in board order.
    pub fn phase(&self) -> Phase<Vec<Square>> {
        fn squares<W: Bitboard>(set: W) -> Vec<Square> {
            set.indices().map(|index| Square(index as u8)).collect()
        }
        each_width!(self, game => match game.phase() {
            Phase::Bid => Phase::Bid,
            Phase::TieBreak => Phase::TieBreak,
            Phase::TurnStart => Phase::TurnStart,
            Phase::NeutralDrop => Phase::NeutralDrop,
            Phase::SwapSecond { swapped } => Phase::SwapSecond { swapped: squares(swapped) },
            Phase::SwapNeutralise { swapped } => Phase::SwapNeutralise { swapped: squares(swapped) },
            Phase::Orient { pending } => Phase::Orient { pending: squares(pending) },
            Phase::SecondPlacement { first_in_group_a } => {
                Phase::SecondPlacement { first_in_group_a }
            }
        })
    }

    /// The chance event the game waits for, drawn (see [`Game::draw_chance`]).
    pub fn draw_chance(&self, rules: &Rules, rng: &mut impl rand::Rng) -> Option<Decision> {
        each_width!(self, game => game.draw_chance(rules, rng))
    }

    /// Whether the next decision is a chance event's (see [`Game::awaits_chance`]).
    pub fn awaits_chance(&self) -> bool {
        each_width!(self, game => game.awaits_chance())
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        each_width!(self, game => game.is_over())
    }

    /// How it ended, once over.
    pub fn outcome(&self, rules: &Rules) -> Option<Outcome> {
        each_width!(self, game => game.outcome(rules))
    }

    /// Black minus White as the rules count it (see [`Game::score`]).
    pub fn score(&self, rules: &Rules) -> i32 {
        each_width!(self, game => game.score(rules))
    }

    /// The colour to decide.
    pub fn side_to_move(&self) -> Color {
        each_width!(self, game => game.side_to_move())
    }

    /// Whether komi bidding swapped the seats.
    pub fn seats_swapped(&self) -> bool {
        each_width!(self, game => game.seats_swapped())
    }

    /// The komi in White's favour.
    pub fn komi(&self) -> f64 {
        each_width!(self, game => game.komi())
    }

    /// The empty squares.
    pub fn empty_count(&self) -> u32 {
        each_width!(self, game => game.empty().count())
    }

    /// The discs of a colour on the board.
    pub fn disc_count(&self, color: Color) -> u32 {
        each_width!(self, game => game.discs(color).count())
    }

    /// The position's hash key (see [`Game::hash`]).
    pub fn hash(&self) -> u64 {
        each_width!(self, game => game.hash())
    }

    /// The leaves of the game tree `depth` turns deep, on one thread (see
    /// [`perft::perft`](crate::variant::perft::perft)).
    pub fn perft(&self, rules: &Rules, depth: u32) -> u64 {
        each_width!(self, game => perft::perft(rules, game, depth))
    }

    /// [`AnyGame::perft`] on every thread of the current rayon pool.
    pub fn perft_parallel(&self, rules: &Rules, depth: u32) -> u64 {
        each_width!(self, game => perft::perft_parallel(rules, game, depth))
    }
}

impl<W: GameWidth> From<Game<W>> for AnyGame {
    fn from(game: Game<W>) -> Self {
        W::into_any(game)
    }
}

/// What code that names, stores or scores games reads of one, the same for a [`Game`] of any
/// width and an [`AnyGame`], so that such code need not be generic over the width.
pub trait GameView {
    /// The one-line text.
    fn to_text(&self, rules: &Rules) -> String;
    /// The komi in White's favour.
    fn komi(&self) -> f64;
    /// Whether komi bidding swapped the seats.
    fn seats_swapped(&self) -> bool;
    /// The empty squares.
    fn empty_count(&self) -> u32;
    /// The move-list names of `decisions` played one after the other from here (known to be
    /// legal, as a finished game's are).
    fn decision_names(&self, rules: &Rules, decisions: &[Decision]) -> Vec<String>;
}

impl<W: Bitboard> GameView for Game<W> {
    fn to_text(&self, rules: &Rules) -> String {
        Game::to_text(self, rules)
    }

    fn komi(&self) -> f64 {
        Game::komi(self)
    }

    fn seats_swapped(&self) -> bool {
        Game::seats_swapped(self)
    }

    fn empty_count(&self) -> u32 {
        self.empty().count()
    }

    fn decision_names(&self, rules: &Rules, decisions: &[Decision]) -> Vec<String> {
        let mut position = self.clone();
        let mut names = Vec::with_capacity(decisions.len());
        for &decision in decisions {
            names.push(decision_name(rules, position.geometry(), decision));
            position = position.play_unchecked(rules, decision);
        }
        names
    }
}

impl GameView for AnyGame {
    fn to_text(&self, rules: &Rules) -> String {
        AnyGame::to_text(self, rules)
    }

    fn komi(&self) -> f64 {
        AnyGame::komi(self)
    }

    fn seats_swapped(&self) -> bool {
        AnyGame::seats_swapped(self)
    }

    fn empty_count(&self) -> u32 {
        AnyGame::empty_count(self)
    }

    fn decision_names(&self, rules: &Rules, decisions: &[Decision]) -> Vec<String> {
        each_width!(self, game => game.decision_names(rules, decisions))
    }
}

/// The widths an [`AnyGame`] holds: the bridge from a width-erased game to the code that is
/// generic over the width for speed (agents, search), inside [`crate::with_width!`].
pub trait GameWidth: Bitboard {
    /// The game inside, when it has this width (the width `rules.square_count()` picks, for
    /// a game made from those rules).
    fn game_of(any: &AnyGame) -> Option<&Game<Self>>;

    /// The game behind the width-erased handle.
    fn into_any(game: Game<Self>) -> AnyGame;

    /// The games inside, for code generic over the width handed games from above it.
    ///
    /// # Panics
    /// A game of another width (one made from rules of another board).
    fn games_of(games: &[AnyGame]) -> Vec<Game<Self>> {
        games
            .iter()
            .map(|game| {
                Self::game_of(game)
                    .expect("games of the rules' board width")
                    .clone()
            })
            .collect()
    }
}

macro_rules! game_width {
    ($type:ty, $variant:ident) => {
        impl GameWidth for $type {
            fn game_of(any: &AnyGame) -> Option<&Game<Self>> {
                match any {
                    AnyGame::$variant(game) => Some(game),
                    _ => None,
                }
            }

            fn into_any(game: Game<Self>) -> AnyGame {
                AnyGame::$variant(game)
            }
        }
    };
}

game_width!(u64, Bits64);
game_width!(u128, Bits128);
game_width!(U256, Bits256);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Preset;

    #[test]
    fn the_width_follows_the_board_and_play_keeps_it() {
        for (side, expected) in [(8, "64"), (10, "128"), (16, "256")] {
            let rules = Preset::Othello.rules(Some(side)).unwrap();
            let start = AnyGame::start(&rules);
            let first = start.legal_decisions(&rules)[0];
            let next = start.play(&rules, first).unwrap();
            let width = |game: &AnyGame| match game {
                AnyGame::Bits64(_) => "64",
                AnyGame::Bits128(_) => "128",
                AnyGame::Bits256(_) => "256",
            };
            assert_eq!(
                (width(&start), width(&next)),
                (expected, expected),
                "{side}x{side}"
            );
            assert_eq!(next.disc_count(Color::Black), 4);
            assert_eq!(next.empty_count(), u32::from(side) * u32::from(side) - 5);
            assert!(u64::game_of(&next).is_some() == (side == 8));
            assert!(start.play(&rules, Decision::Pass).is_err());
        }
    }
}
