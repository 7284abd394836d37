//! The run directory, the interface between a learning run's stages and everything that
//! reads a run afterwards (reports, studies): its files' names and layout, the records of
//! `metrics.jsonl`, the training lock and the names of the workers that write shards. It
//! knows nothing of how stages play or train, so a reader of runs depends on this crate and
//! not on `flipzero-run`.

pub mod directory;
pub mod worker;

pub use directory::{Record, RunDir, WindowRead};
pub use worker::WorkerId;
