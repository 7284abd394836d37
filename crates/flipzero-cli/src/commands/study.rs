//! `flipzero study`: the variant difficulty study (one run per preset under an equal budget,
//! then measurements, a table and plots).

use std::path::PathBuf;

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_study::{StudyConfig, run_study, table};

use crate::commands::learn::{Bars, default_run_dir};

/// Arguments of `flipzero study`.
#[derive(Debug, Args)]
pub(crate) struct StudyArgs {
    /// The study config (`configs/study/*.toml`).
    #[arg(long)]
    config: PathBuf,
    /// Study directory (default `runs/<config file stem>`); a stopped study resumes there.
    #[arg(long)]
    dir: Option<PathBuf>,
}

pub(crate) fn run(args: &StudyArgs) -> anyhow::Result<()> {
    let config = StudyConfig::load(&args.config)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| default_run_dir(&args.config));
    let started = std::time::Instant::now();
    let results = run_study(
        &config,
        &dir,
        &Device::default(),
        &Bars::new(),
        &mut |line| {
            eprintln!(
                "[{:>6.1} min] {line}",
                started.elapsed().as_secs_f64() / 60.0
            );
        },
    )
    .with_context(|| format!("study in {}", dir.display()))?;
    println!("{}", table(&results));
    println!("report: {}", dir.join("study.md").display());
    Ok(())
}
