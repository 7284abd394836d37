//! The classical engine for a board of any size behind one type, over [`AnyGame`]: the handle
//! for commands and servers that ask for a decision or an analysis and have no need to be
//! generic over the bitboard width.
//!
//! ```
//! use flipzero_core::{AnyGame, Preset};
//! use flipzero_engine::{AnyEngine, SearchConfig, WeightsFile};
//!
//! let rules = Preset::Othello.rules(Some(10))?;
//! let weights = WeightsFile::embedded().weights_for(&rules, "embedded")?;
//! let config = SearchConfig { depth: 2, ..SearchConfig::default() };
//! let mut engine = AnyEngine::new(&rules, weights, config);
//! let start = AnyGame::start(&rules);
//! let values = engine.analyze(&start, 2);
//! assert_eq!(values.len(), 4);
//! let choice = engine.choose(&start).expect("a legal decision");
//! assert!(start.play(&rules, choice.decision).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use flipzero_core::{AnyGame, Rules, U256, Width};

use crate::eval::Weights;
use crate::search::{Choice, DecisionValue, Engine, SearchConfig};

/// An [`Engine`] on the narrowest bitboard that holds its rules' board.
pub enum AnyEngine {
    /// Up to 64 squares.
    Bits64(Engine<u64>),
    /// Up to 128 squares.
    Bits128(Engine<u128>),
    /// Up to 256 squares.
    Bits256(Engine<U256>),
}

/// Runs `$body` with `$engine` and `$game` bound to the engine and the game of one width.
macro_rules! with_game {
    ($any:expr, $game_any:expr, $engine:ident, $game:ident => $body:expr) => {
        match ($any, $game_any) {
            (AnyEngine::Bits64($engine), AnyGame::Bits64($game)) => $body,
            (AnyEngine::Bits128($engine), AnyGame::Bits128($game)) => $body,
            (AnyEngine::Bits256($engine), AnyGame::Bits256($game)) => $body,
            _ => panic!("a game of another board width than the engine's rules"),
        }
    };
}

impl AnyEngine {
    /// A player for `rules` with these weights (see [`Engine::new`]).
    pub fn new(rules: &Rules, weights: Weights, config: SearchConfig) -> Self {
        match Width::for_squares(rules.square_count()) {
            Width::Bits64 => AnyEngine::Bits64(Engine::new(rules, weights, config)),
            Width::Bits128 => AnyEngine::Bits128(Engine::new(rules, weights, config)),
            Width::Bits256 => AnyEngine::Bits256(Engine::new(rules, weights, config)),
        }
    }

    /// The decision to play (see [`Engine::choose`]).
    ///
    /// # Panics
    /// A game of rules with another board width than the engine's.
    pub fn choose(&mut self, game: &AnyGame) -> Option<Choice> {
        with_game!(self, game, engine, game => engine.choose(game))
    }

    /// Every legal decision with its value, best first (see [`Engine::analyze`]).
    ///
    /// # Panics
    /// As [`AnyEngine::choose`].
    pub fn analyze(&mut self, game: &AnyGame, depth: u32) -> Vec<DecisionValue> {
        with_game!(self, game, engine, game => engine.analyze(game, depth))
    }
}
