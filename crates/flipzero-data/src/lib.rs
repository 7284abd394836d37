//! Training data for flipzero: the versioned input encoding of a position for the network
//! ([`Encoder`]), the mask of legal decisions over the rules' decision set, the board
//! symmetries applied to inputs and policy targets (augmentation), and shard files of
//! training samples.

pub mod checkpoint_file;
pub mod encoder;
pub mod files;
pub mod shard;

pub use encoder::{
    ENCODER_VERSION, Encoder, decision_preserving_symmetries, legal_mask, policy_permutation,
};
pub use shard::{ReplayWindow, Sample, ShardHeader, read_shard, replay_window, write_shard};
