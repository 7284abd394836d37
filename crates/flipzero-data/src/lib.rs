//! Training data for flipzero. So far: the versioned input encoding of a position for the
//! network ([`Encoder`]), the mask of legal decisions over the rules' decision set, and the
//! board symmetries applied to inputs and policy targets (augmentation).

pub mod encoder;

pub use encoder::{ENCODER_VERSION, Encoder, legal_mask, policy_permutation};
