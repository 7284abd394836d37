//! `flipzero perft`: counts the leaves of the game tree at each depth, with timings.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use flipzero_core::{Bitboard, Geometry, Kernel, Position, perft_parallel, perft_with_kernel};

/// Arguments of `flipzero perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// Board side (an N x N board with the standard centred start).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: u8,
    /// Deepest depth to count; every depth from 1 up is printed.
    #[arg(long)]
    depth: u32,
    /// Start from this position (one-line text format) instead of the start position.
    #[arg(long, allow_hyphen_values = true)]
    position: Option<String>,
    /// Print one JSON object per depth instead of a table.
    #[arg(long)]
    json: bool,
    /// Threads for a parallel perft (1 counts on the calling thread).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: u32,
    /// Force the portable kernel even where a faster one is available.
    #[arg(long)]
    portable: bool,
}

pub(crate) fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let (rows, cols) = match &args.position {
        Some(text) => flipzero_core::text_shape(text).context("--position")?,
        None => (args.size, args.size),
    };
    flipzero_core::with_width!(u32::from(rows) * u32::from(cols), W => {
        let position = match &args.position {
            Some(text) => Position::<W>::from_text(text).context("--position")?,
            None => Position::start(Geometry::<W>::get(rows, cols)?),
        };
        count_depths(&position, args)
    })
}

fn count_depths<W: Bitboard>(position: &Position<W>, args: &PerftArgs) -> anyhow::Result<()> {
    let kernel = if args.portable {
        Kernel::Portable
    } else {
        Kernel::detect()
    };
    if args.threads > 1 && args.portable {
        bail!("--portable applies to single-threaded perft only");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .build()
        .context("starting the thread pool")?;
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "perft {} from {position}, {} thread(s), {} kernel",
            position.geometry().size_name(),
            args.threads,
            kernel.name()
        )?;
        writeln!(
            out,
            "{:>5} {:>16} {:>10} {:>16}",
            "depth", "leaves", "seconds", "leaves/s"
        )?;
    }
    for depth in 1..=args.depth {
        let started = Instant::now();
        let leaves = if args.threads > 1 {
            pool.install(|| perft_parallel(position, depth))
        } else {
            perft_with_kernel(position, depth, kernel)
        };
        let seconds = started.elapsed().as_secs_f64();
        let rate = leaves as f64 / seconds.max(1e-9);
        if args.json {
            let record = serde_json::json!({
                "depth": depth,
                "leaves": leaves,
                "seconds": seconds,
                "leaves_per_second": rate.round(),
            });
            writeln!(out, "{record}")?;
        } else {
            writeln!(out, "{depth:>5} {leaves:>16} {seconds:>10.3} {rate:>16.0}")?;
        }
        out.flush()?;
    }
    Ok(())
}
