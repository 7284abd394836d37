//! `flipzero export`: a checkpoint's network as ONNX and/or safetensors, with a JSON
//! description for front-ends (docs/EXPORT.md).

use std::path::PathBuf;

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_nn::{ExportFormat, ExportOptions};

/// Arguments of `flipzero export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The network checkpoint to export.
    #[arg(long)]
    checkpoint: PathBuf,
    /// Formats to write: onnx, safetensors (repeat the flag or separate by commas).
    #[arg(long, value_delimiter = ',', required = true)]
    format: Vec<ExportFormat>,
    /// Directory to write into (created when missing).
    #[arg(long)]
    out: PathBuf,
    /// Random legal positions to write with this build's outputs (test-vectors.json).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=10_000))]
    test_vectors: u32,
    /// Seed of the test positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub(crate) fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let checkpoint = flipzero_nn::checkpoint::load(&args.checkpoint, &Device::flex())
        .with_context(|| format!("--checkpoint {}", args.checkpoint.display()))?;
    let options = ExportOptions {
        formats: args.format.clone(),
        test_vectors: args.test_vectors as usize,
        seed: args.seed,
    };
    let files = flipzero_nn::export(&checkpoint, &options, &args.out)
        .with_context(|| format!("exporting {}", args.checkpoint.display()))?;
    for path in files.paths {
        println!("wrote {}", path.display());
    }
    Ok(())
}
