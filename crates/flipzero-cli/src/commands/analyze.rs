//! `flipzero analyze`: the value of every legal decision of a position.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use flipzero_core::{AnyGame, Rules};
use flipzero_engine::{AnyEngine, SearchConfig};

use super::engine_setup::weights_for;

/// Arguments of `flipzero analyze`.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// A variant preset name or a rules TOML file.
    #[arg(long, default_value = "othello")]
    variant: String,
    /// Board side, where the preset allows another.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// The position (one-line text); the variant's start when absent.
    #[arg(long, allow_hyphen_values = true)]
    position: Option<String>,
    /// Decisions to play from the position first (`f5 d6 c3`).
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// Search depth in turns (all of one player's decisions), for positions not solved exactly.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// Solve exactly (bitboard solver) at this many empties or fewer.
    #[arg(long, default_value_t = 14, value_parser = clap::value_parser!(u32).range(0..=40))]
    solve: u32,
    /// Search other variants to the end at this many empties or fewer.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=20))]
    end: u32,
    /// Evaluation weights file (TOML); the embedded weights when absent.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &AnalyzeArgs) -> anyhow::Result<()> {
    let rules = Rules::load(&args.variant, args.size)
        .with_context(|| format!("--variant {}", args.variant))?;
    let weights = weights_for(&rules, args.weights.as_ref())?;
    let mut game = match &args.position {
        Some(text) => AnyGame::from_text(&rules, text).context("--position")?,
        None => AnyGame::start(&rules),
    };
    if let Some(moves) = &args.moves {
        game = game.replay_decisions(&rules, moves).context("--moves")?.1;
    }
    let config = SearchConfig {
        depth: args.depth,
        solve_empties: args.solve,
        end_search_empties: args.end,
        ..SearchConfig::default()
    };
    let mut engine = AnyEngine::new(&rules, weights, config);
    report(&rules, &game, &mut engine, args)
}

fn report(
    rules: &Rules,
    game: &AnyGame,
    engine: &mut AnyEngine,
    args: &AnalyzeArgs,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if game.is_over() {
        anyhow::bail!("the game is over: there is nothing to analyze");
    }
    let started = Instant::now();
    let values = engine.analyze(game, args.depth);
    let seconds = started.elapsed().as_secs_f64();
    let name = |decision| game.decision_name(rules, decision);
    if args.json {
        let decisions: Vec<_> = values
            .iter()
            .map(|entry| {
                serde_json::json!({
                    "decision": name(entry.decision),
                    "value": f64::from(entry.value) / 100.0,
                    "exact": entry.exact,
                    "depth": entry.depth,
                })
            })
            .collect();
        let record = serde_json::json!({
            "position": game.to_text(rules),
            "side_to_move": game.side_to_move().symbol().to_string(),
            "depth": args.depth,
            "seconds": seconds,
            "decisions": decisions,
        });
        writeln!(out, "{record}")?;
        return Ok(());
    }
    write!(out, "{}", game.to_diagram(rules))?;
    writeln!(
        out,
        "values for {} in discs (final margin, komi counted; higher is better for the mover):",
        game.side_to_move().symbol()
    )?;
    for entry in &values {
        writeln!(
            out,
            "  {:<8} {:>+8.2}  {}",
            name(entry.decision),
            f64::from(entry.value) / 100.0,
            if entry.exact {
                "exact".to_owned()
            } else {
                format!("searched {} turns", entry.depth)
            }
        )?;
    }
    writeln!(
        out,
        "{} decisions, depth {}, {seconds:.2} s",
        values.len(),
        args.depth
    )?;
    Ok(())
}
