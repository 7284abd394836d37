//! `flipzero variants`: the presets, one line each.

use std::io::Write;

use clap::Args;
use flipzero_core::Preset;

/// Arguments of `flipzero variants`.
#[derive(Debug, Args)]
pub(crate) struct VariantsArgs {
    /// Print one JSON object per preset.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &VariantsArgs) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for preset in Preset::ALL {
        let rules = preset.rules(None)?;
        if args.json {
            let record = serde_json::json!({
                "name": preset.name(),
                "description": preset.description(),
                "board": format!("{}x{}", rules.rows(), rules.cols()),
                "decisions": rules.decision_count(),
            });
            writeln!(out, "{record}")?;
        } else {
            writeln!(
                out,
                "{:<22} {:>5}  {}",
                preset.name(),
                format!("{}x{}", rules.rows(), rules.cols()),
                preset.description()
            )?;
        }
    }
    Ok(())
}
