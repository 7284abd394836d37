//! The arena: agents that choose decisions, opening suites, and paired matches between two
//! agents (every opening played once with each agent in each seat), played in parallel.

pub mod agent;
pub mod matches;
pub mod openings;

pub use agent::{Agent, AgentSpec, AgentSpecError, EngineAgent, MctsAgent, RandomAgent};
pub use matches::{GameResult, MatchResult, play_game, play_paired};
pub use openings::{balanced_openings, random_openings};
