//! The classical engine of flipzero: an alpha-beta player for every variant with a tunable
//! evaluation, and an exact endgame solver. It is the yardstick of every strength
//! measurement in the project.

pub mod any_engine;
pub mod eval;
pub mod exact;
pub mod fit_patterns;
pub mod game_value;
pub mod obf;
pub mod patterns;
pub mod probcut;
pub mod search;
pub mod solver;
pub mod tune;

pub use any_engine::AnyEngine;
pub use eval::{Evaluator, Weights, WeightsFile};
pub use exact::{ExactSolver, ExactValue, Proof};
pub use patterns::PatternModel;
pub use search::{Choice, DecisionValue, Engine, SearchConfig};
pub use solver::{
    Goal, Solution, Supplies, solve, solve_for, solve_in_window_by, solve_one_best,
    solve_one_best_by, solve_outcome,
};
