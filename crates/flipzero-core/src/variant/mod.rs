//! The variant engine: [`Rules`] read from presets or TOML files, a [`Game`] state for any of
//! them with its legal [`Decision`]s, the text of moves and positions, and perft over turns.

pub mod any_game;
pub mod decision;
pub mod game;
pub mod notation;
pub mod perft;
pub mod rules;

pub use any_game::{AnyGame, GameView, GameWidth};
pub use decision::{Decision, Orientation};
pub use game::{DecisionError, Game, GameTextError, Phase, StartError};
pub use notation::{ReplayError, decision_name, replay, replay_decisions};
pub use rules::{Preset, Rules, RulesError, RulesMismatch, RulesSpec};
