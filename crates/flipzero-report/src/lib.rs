//! Reports: plots (PNG or SVG, with an embedded font) of a learning run's metrics and of
//! competitions, and a Markdown or HTML page that shows them beside a summary table. A report
//! reads a run directory (`flipzero-rundir`); it never starts a run (the variant study, which
//! does, is `flipzero-study`, above this crate).

pub mod plots;
mod run;

pub use run::{ReportFormat, run_report};

/// A report that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A plot.
    #[error("plot {path}: {reason}")]
    Plot {
        /// Its file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// Reading the run or writing the page.
    #[error(transparent)]
    File(#[from] flipzero_data::files::FileError),
    /// The run has nothing to report yet.
    #[error("{0}: no metrics records yet (run a stage first)")]
    Empty(String),
}
