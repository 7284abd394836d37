//! `flipzero tune`: fits the evaluation weights of one preset and board size and writes them
//! into a weights file.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use flipzero_core::Rules;
use flipzero_engine::eval::{identify_preset, profile_keys};
use flipzero_engine::tune::{TuneConfig, tune};

use super::engine_setup::weights_file;

/// Arguments of `flipzero tune`.
#[derive(Debug, Args)]
pub(crate) struct TuneArgs {
    /// A variant preset name or a rules TOML file.
    #[arg(long, default_value = "othello")]
    variant: String,
    /// Board side, where the preset allows another.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// Positions to collect and label.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(50..=10_000_000))]
    positions: u64,
    /// Search depth of the labels above the solve threshold.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Label exactly at this many empties or fewer.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(0..=24))]
    solve: u32,
    /// Ridge penalty (per sample), above 0.
    #[arg(long, default_value_t = 1e-3, value_parser = positive_number)]
    ridge: f64,
    /// Seed of the games the positions come from.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weights to start from (and to label with); else the `--out` file when it exists,
    /// else the embedded weights. The other profiles of this file are kept in the output.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Where to write the weights file with the fitted profile added (written to a
    /// temporary name, then renamed into place).
    #[arg(long, default_value = "configs/eval/weights.toml")]
    out: PathBuf,
}

pub(crate) fn run(args: &TuneArgs) -> anyhow::Result<()> {
    let rules = Rules::load(&args.variant, args.size)
        .with_context(|| format!("--variant {}", args.variant))?;
    let base = args
        .weights
        .as_deref()
        .or_else(|| args.out.exists().then_some(args.out.as_path()));
    let (mut file, name) = weights_file(base)?;
    let start = file.weights_for(&rules, &name)?;
    let config = TuneConfig {
        positions: args.positions as usize,
        label_depth: args.depth,
        solve_empties: args.solve,
        ridge: args.ridge,
        seed: args.seed,
    };
    let started = Instant::now();
    let report = flipzero_core::with_width!(rules.square_count(), W => {
        tune::<W>(&rules, &start, &config)?
    });
    let seconds = started.elapsed().as_secs_f64();
    let key = profile_keys(&rules).remove(0);
    if identify_preset(&rules).is_none() {
        eprintln!("note: these rules are no preset; the profile is stored as `{key}`");
    }
    let note = format!(
        "flipzero tune --variant {} --size {} --positions {} --depth {} --solve {} --seed {}: held-out error {:.2} -> {:.2} discs over {} samples ({} exact)",
        args.variant,
        rules.rows(),
        args.positions,
        args.depth,
        args.solve,
        args.seed,
        report.held_out_error_before,
        report.held_out_error_after,
        report.training + report.held_out,
        report.exact_labels,
    );
    file.profiles
        .insert(key.clone(), report.weights.to_spec(note.clone()));
    let all_finite = report
        .weights
        .opening
        .iter()
        .chain(&report.weights.endgame)
        .all(|weight| weight.is_finite());
    anyhow::ensure!(
        all_finite,
        "the fit gave weights that are not finite; nothing was written"
    );
    flipzero_core::files::write_atomically(&args.out, file.to_toml().as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{note}")?;
    writeln!(
        out,
        "profile `{key}` written to {} in {seconds:.1} s",
        args.out.display()
    )?;
    Ok(())
}

fn positive_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}
