//! `flipzero perft`: counts the leaves of the game tree at each depth, with timings.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use flipzero_core::{AnyGame, AnyPosition, Kernel, Preset, Rules};

/// Arguments of `flipzero perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// A variant preset name or a rules TOML file; without it, standard Othello on the fast
    /// path.
    #[arg(long)]
    variant: Option<String>,
    /// Board side (an N x N board).
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
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
    if let Some(variant) = &args.variant {
        let rules =
            Rules::load(variant, args.size).with_context(|| format!("--variant {variant}"))?;
        // Plain Othello on a square plane board (any scoring) takes the bitboard fast path.
        let mut othello = Preset::Othello.spec(Some(rules.rows()));
        othello.scoring = rules.spec().scoring;
        if *rules.spec() != othello {
            return count_variant(&rules, args);
        }
    }
    if args.portable && args.threads > 1 {
        bail!("--portable applies to single-threaded perft only");
    }
    let (rows, cols) = match &args.position {
        Some(text) => {
            let shape = flipzero_core::text_shape(text).context("--position")?;
            if let Some(size) = args.size
                && shape != (size, size)
            {
                bail!(
                    "--size {size} does not match the {}x{} board of --position",
                    shape.0,
                    shape.1
                );
            }
            shape
        }
        None => (args.size.unwrap_or(8), args.size.unwrap_or(8)),
    };
    let position = match &args.position {
        Some(text) => AnyPosition::from_text(text).context("--position")?,
        None => AnyPosition::start(rows, cols)?,
    };
    let kernel = if args.portable {
        Kernel::Portable
    } else {
        Kernel::detect()
    };
    let title = format!(
        "perft {} from {position}, {} thread(s), {} kernel",
        position.size_name(),
        args.threads,
        kernel.name()
    );
    count_depths(args, &title, |depth| {
        if args.threads > 1 {
            position.perft_parallel(depth)
        } else {
            position.perft(depth, kernel)
        }
    })
}

fn count_variant(rules: &Rules, args: &PerftArgs) -> anyhow::Result<()> {
    if args.portable {
        bail!("--portable chooses the Othello fast path's kernel; the variant engine has one");
    }
    let start = match &args.position {
        Some(text) => AnyGame::from_text(rules, text).context("--position")?,
        None => AnyGame::start(rules),
    };
    let title = format!(
        "perft {} {}x{} from {}, {} thread(s), variant engine",
        args.variant.as_deref().unwrap_or_default(),
        rules.rows(),
        rules.cols(),
        start.to_text(rules),
        args.threads
    );
    count_depths(args, &title, |depth| {
        if args.threads > 1 {
            start.perft_parallel(rules, depth)
        } else {
            start.perft(rules, depth)
        }
    })
}

/// Runs `count` for each depth on a pool of `--threads` threads and prints the table or JSON.
fn count_depths(
    args: &PerftArgs,
    title: &str,
    count: impl Fn(u32) -> u64 + Sync,
) -> anyhow::Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .build()
        .context("starting the thread pool")?;
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(out, "{title}")?;
        writeln!(
            out,
            "{:>5} {:>16} {:>10} {:>16}",
            "depth", "leaves", "seconds", "leaves/s"
        )?;
    }
    for depth in 1..=args.depth {
        let started = Instant::now();
        let leaves = pool.install(|| count(depth));
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
