//! One module per subcommand.

pub(crate) mod accuracy;
pub(crate) mod analyze;
pub(crate) mod arena;
pub(crate) mod cluster;
pub(crate) mod engine;
mod engine_setup;
pub(crate) mod export;
pub(crate) mod ladder;
pub(crate) mod learn;
pub(crate) mod perft;
pub(crate) mod play;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod solve;
pub(crate) mod study;
pub(crate) mod tune;
pub(crate) mod variants;
