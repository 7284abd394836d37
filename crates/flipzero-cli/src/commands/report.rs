//! `flipzero report`: plots and a page about a learning run.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use flipzero_report::{ReportFormat, run_report};

/// Arguments of `flipzero report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The run directory.
    run_dir: PathBuf,
    /// Where the page and its plots go; `<run-dir>/report` when absent.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write HTML instead of Markdown.
    #[arg(long)]
    html: bool,
}

pub(crate) fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.run_dir.join("report"));
    let format = if args.html {
        ReportFormat::Html
    } else {
        ReportFormat::Markdown
    };
    let page = run_report(&args.run_dir, &out, format)
        .with_context(|| format!("reporting on {}", args.run_dir.display()))?;
    println!("{}", page.display());
    Ok(())
}
