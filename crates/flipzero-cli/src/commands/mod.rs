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
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod study;
pub(crate) mod tune;
pub(crate) mod value;
pub(crate) mod variants;

/// A network checkpoint from the command line's `--checkpoint`, with its rules.
pub(crate) fn load_checkpoint(
    path: &std::path::Path,
    device: &burn::tensor::Device,
) -> anyhow::Result<(flipzero_nn::checkpoint::Checkpoint, flipzero_core::Rules)> {
    use anyhow::Context;
    let loaded = flipzero_nn::checkpoint::load(path, device)
        .with_context(|| format!("--checkpoint {}", path.display()))?;
    let rules = flipzero_core::Rules::try_from(loaded.meta.rules.clone())
        .with_context(|| format!("the rules of {}", path.display()))?;
    Ok((loaded, rules))
}
