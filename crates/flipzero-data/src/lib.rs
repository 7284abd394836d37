//! Training data for flipzero: the versioned input encoding of a position for the network
//! ([`Encoder`]), the mask of legal decisions over the rules' decision set, the board
//! symmetries applied to inputs and policy targets (augmentation), and the files flipzero
//! keeps: shards of training samples, checkpoints' container, journals, exact-value caches,
//! games files, and the atomic, sealed writing under them all.

pub mod checkpoint_file;
pub mod encoder;
pub mod exact_values;
pub mod files;
pub mod journal;
pub mod saved_game;
pub mod shard;

pub use encoder::{
    ENCODER_VERSION, Encoder, decision_preserving_symmetries, legal_mask, policy_permutation,
};
pub use shard::{ReplayWindow, Sample, ShardHeader, read_shard, replay_window, write_shard};
