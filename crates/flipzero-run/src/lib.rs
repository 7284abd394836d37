//! Learning runs: a run directory ([`RunDir`]) and a config ([`RunConfig`]), and the three
//! stages that work on them: self-play (the newest checkpoint plays games into shards),
//! training (the replay window trains the next checkpoint) and evaluation (a paired match
//! of the newest checkpoint against each configured opponent). `Run::run_loop` alternates
//! them; each can also run alone, as its own process, on the same directory, and many at
//! once (`workers`: self-play workers, a following trainer and evaluator, as cluster jobs).
//! Every stage appends a [`Record`] to the run's metrics file.

pub mod config;
pub mod slurm;
mod stages;
pub mod workers;

pub use config::{RunConfig, Schedule, StopSection, ValidConfig};
pub use flipzero_mcts::{PlaySettings, SearchKind};
pub use flipzero_rundir::{Record, RunDir, WorkerId};
pub use flipzero_selfplay::parse_range;
pub use stages::{EvaluateOptions, Progress, Run, RunError, Silent};
pub use workers::{RunStatus, run_status};
