//! Burn networks for flipzero: a residual policy/value network whose input is the planes of
//! `flipzero_data::Encoder` and whose heads give decision logits over the rules' decision set,
//! win/draw/loss logits and the expected final margin.
//!
//! Tensors carry their device (Burn 0.22): the embedded default is the pure-Rust `flex` CPU
//! backend; the `cuda` and `wgpu` features add GPU devices, chosen at run time.

pub mod allocator;
pub mod checkpoint;
pub mod evaluator;
pub mod export;
pub mod net;
pub mod ops;

pub use checkpoint::{Checkpoint, CheckpointMeta};
pub use evaluator::NetEvaluator;
pub use export::{ExportError, ExportFormat, ExportOptions, export};
pub use net::{NetConfig, NetOutput, PolicyValueNet, Tower};
