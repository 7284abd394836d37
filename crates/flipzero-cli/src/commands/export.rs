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
    /// Formats to write: onnx, safetensors, web (the ONNX file and a static page that plays
    /// it in the browser with onnxruntime-web); repeat the flag or separate by commas.
    #[arg(long, value_delimiter = ',', required = true)]
    format: Vec<Format>,
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

/// A format of the command line: the library's, or the web page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Model(ExportFormat),
    Web,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "web" => Ok(Format::Web),
            other => other.parse().map(Format::Model).map_err(|_| {
                format!("unknown export format `{other}`: expected onnx, safetensors or web")
            }),
        }
    }
}

pub(crate) fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let checkpoint = flipzero_nn::checkpoint::load(&args.checkpoint, &Device::flex())
        .with_context(|| format!("--checkpoint {}", args.checkpoint.display()))?;
    let web = args.format.contains(&Format::Web);
    let mut formats: Vec<ExportFormat> = args
        .format
        .iter()
        .filter_map(|format| match format {
            Format::Model(format) => Some(*format),
            Format::Web => None,
        })
        .collect();
    // The page runs the ONNX file.
    if web && !formats.contains(&ExportFormat::Onnx) {
        formats.push(ExportFormat::Onnx);
    }
    let options = ExportOptions {
        formats,
        test_vectors: args.test_vectors as usize,
        seed: args.seed,
    };
    let files = flipzero_nn::export(&checkpoint, &options, &args.out)
        .with_context(|| format!("exporting {}", args.checkpoint.display()))?;
    let mut paths = files.paths;
    if web {
        paths.extend(
            flipzero_web::export_page::write(&args.out)
                .with_context(|| format!("writing the web page into {}", args.out.display()))?,
        );
    }
    for path in paths {
        println!("wrote {}", path.display());
    }
    Ok(())
}
