//! The arena: agents that choose decisions, opening suites, paired matches between two
//! agents (every opening played once with each agent in each seat, in parallel), ratings
//! (maximum-likelihood Elo, SPRT), the engine ladder and tournament pairings.

pub mod accuracy;
pub mod agent;
pub mod competition;
pub mod elo;
pub mod external;
pub mod ggf;
pub mod journal;
pub mod ladder;
pub mod matches;
pub mod openings;
pub mod perfect;
pub mod protocol;
pub mod tournament;

pub use agent::{
    Agent, AgentError, AgentFactory, AgentSpec, AgentSpecError, EngineAgent, GreedyAgent,
    MctsAgent, MctsSpec, NamedAgentSpec, PerfectAgent, RandomAgent, parse_symmetries,
};
pub use elo::{PairResult, Rating, Sprt, SprtDecision, ratings};
pub use matches::{
    Ending, GameResult, MatchResult, Thinking, play_built, play_game, play_paired,
    play_paired_resuming, seat_to_move,
};
pub use openings::{
    AnySuite, Opening, OpeningFilter, balanced_opening_lines, opening_lines_between, opening_suite,
    positions, random_opening_lines, random_openings,
};
pub use perfect::{ExactCache, ExactError, PerfectPlayScore, exact_openings};
