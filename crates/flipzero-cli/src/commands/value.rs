//! `flipzero value`: what a variant's start is worth under perfect play, by exhaustive search.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use flipzero_core::{Color, Preset, Rules};
use flipzero_engine::ExactSolver;
use flipzero_engine::game_value::{StartValue, ValueLimits, ValueSearch, start_value};

/// Arguments of `flipzero value`.
#[derive(Debug, Args)]
pub(crate) struct ValueArgs {
    /// Variant presets or rules TOML files, comma-separated; every preset when left out.
    #[arg(long, value_delimiter = ',')]
    variant: Vec<String>,
    /// Board side (an N x N board); when left out, each preset is valued on the smallest
    /// even board it allows (4x4 for most, 6x6 for biversi) and a rules file on its own board.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// The search: `auto` is alpha-beta with the bitboard solver where the rules allow it,
    /// alpha-beta alone elsewhere; `minimax` plays every line out (small boards only);
    /// `memo-minimax` searches every position once and keeps its exact value (memory grows
    /// with the positions: small boards only).
    #[arg(long, value_enum, default_value_t = SearchArg::Auto)]
    search: SearchArg,
    /// Also value each start by minimax and by minimax with a memo, the independent
    /// references (and by alpha-beta alone where the first search used the solver), and fail
    /// when two disagree.
    #[arg(long)]
    check: bool,
    /// Log2 of the transposition table's entries (8 to 24; 24 takes 400 MB).
    #[arg(long, default_value_t = 22, value_parser = clap::value_parser!(u32).range(8..=24))]
    table_bits: u32,
    /// Give up a search after this many seconds (a variant whose tree is too large for it
    /// is reported and the next one is searched); no limit when left out.
    #[arg(long, value_parser = parse_seconds)]
    seconds: Option<f64>,
    /// The longest line searched, in turns (default: four a square of the board). Only
    /// rules whose turns need not fill a square (sacrifices, neutral swaps) come near it; a
    /// line past it leaves the variant open, where unbounded the search's memory would grow
    /// with the line.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    max_turns: Option<u16>,
    /// Print one JSON object per search instead of a table.
    #[arg(long)]
    json: bool,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 1e6 => Ok(seconds),
        _ => Err(format!("{text}: not a number of seconds in (0, 1000000]")),
    }
}

/// The rules to value: on the board asked for, or a preset on the smallest even board its
/// rules allow (a rules file keeps its own board).
fn load_rules(variant: &str, size: Option<u8>) -> anyhow::Result<Rules> {
    if let Some(size) = size {
        return Rules::load(variant, Some(size))
            .with_context(|| format!("--variant {variant} --size {size}"));
    }
    if variant.parse::<Preset>().is_err() {
        return Rules::load(variant, None).with_context(|| format!("--variant {variant}"));
    }
    let mut first_error = None;
    for side in (4..=16).step_by(2) {
        match Rules::load(variant, Some(side)) {
            Ok(rules) => return Ok(rules),
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    Err(anyhow::Error::new(
        first_error.expect("at least one board was tried"),
    ))
    .with_context(|| format!("--variant {variant}: on no board from 4x4 to 16x16"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SearchArg {
    Auto,
    AlphaBeta,
    Solver,
    Minimax,
    MemoMinimax,
}

pub(crate) fn run(args: &ValueArgs) -> anyhow::Result<()> {
    let variants: Vec<String> = if args.variant.is_empty() {
        Preset::ALL.iter().map(|p| p.name().to_owned()).collect()
    } else {
        args.variant.clone()
    };
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "{:<22} {:>5} {:>5} {:>8} {:>7} {:>17} {:>8} {:<22} {:>14} {:>9}",
            "variant",
            "board",
            "first",
            "margin",
            "outcome",
            "win/draw/loss %",
            "openings",
            "search",
            "nodes",
            "seconds"
        )?;
    }
    let mut disagreements = Vec::new();
    for variant in &variants {
        let rules = load_rules(variant, args.size)?;
        let solvable = ExactSolver::new(&rules).is_some();
        let first = match args.search {
            SearchArg::Auto => ValueSearch::AlphaBeta {
                solver_leaves: solvable,
            },
            SearchArg::AlphaBeta => ValueSearch::AlphaBeta {
                solver_leaves: false,
            },
            SearchArg::Solver if !solvable => {
                bail!("--search solver: the bitboard solver cannot play {variant}")
            }
            SearchArg::Solver => ValueSearch::AlphaBeta {
                solver_leaves: true,
            },
            SearchArg::Minimax => ValueSearch::Minimax,
            SearchArg::MemoMinimax => ValueSearch::MemoMinimax,
        };
        let mut searches = vec![first];
        if args.check {
            for other in [
                ValueSearch::AlphaBeta {
                    solver_leaves: false,
                },
                ValueSearch::Minimax,
                ValueSearch::MemoMinimax,
            ] {
                if !searches.contains(&other) {
                    searches.push(other);
                }
            }
        }
        let mut values: Vec<(ValueSearch, StartValue)> = Vec::new();
        for search in searches {
            let defaults = ValueLimits::for_rules(&rules);
            let limits = ValueLimits {
                time: args.seconds.map(Duration::from_secs_f64),
                max_turns: args.max_turns.unwrap_or(defaults.max_turns),
            };
            let value = start_value(&rules, search, args.table_bits, limits);
            match value {
                Ok(value) => {
                    print_value(&mut out, args.json, variant, &rules, search, &value)?;
                    values.push((search, value));
                }
                // One variant's tree too large for the limits leaves the others to search.
                Err(reason) => {
                    print_open(&mut out, args.json, variant, &rules, search, &reason)?;
                }
            }
        }
        let Some((first_search, first_value)) = values.first() else {
            continue;
        };
        for (search, value) in &values[1..] {
            if !same_value(first_value, value) {
                disagreements.push(format!(
                    "{variant}: {} and {} disagree",
                    first_search.name(),
                    search.name()
                ));
            }
        }
    }
    if !disagreements.is_empty() {
        bail!("{}", disagreements.join("; "));
    }
    Ok(())
}

/// Whether two searches found the same value (the margins to within rounding of means).
fn same_value(a: &StartValue, b: &StartValue) -> bool {
    let margins_agree = match (a.margin, b.margin) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    };
    let outcomes_agree = a
        .outcome
        .iter()
        .zip(&b.outcome)
        .all(|(x, y)| (x - y).abs() < 1e-9);
    margins_agree && outcomes_agree && a.first_player == b.first_player
}

/// A search that did not finish: the variant stays open.
fn print_open(
    out: &mut impl Write,
    json: bool,
    variant: &str,
    rules: &Rules,
    search: ValueSearch,
    reason: &str,
) -> anyhow::Result<()> {
    let board = format!("{}x{}", rules.rows(), rules.cols());
    if json {
        let record = serde_json::json!({
            "variant": variant,
            "board": board,
            "search": search.name(),
            "open": reason,
        });
        writeln!(out, "{record}")?;
    } else {
        writeln!(
            out,
            "{variant:<22} {board:>5} open: {reason} ({})",
            search.name()
        )?;
    }
    out.flush()?;
    Ok(())
}

fn print_value(
    out: &mut impl Write,
    json: bool,
    variant: &str,
    rules: &Rules,
    search: ValueSearch,
    value: &StartValue,
) -> anyhow::Result<()> {
    let first = match value.first_player {
        Some(Color::Black) => "black",
        Some(Color::White) => "white",
        None => "either",
    };
    let board = format!("{}x{}", rules.rows(), rules.cols());
    if json {
        let record = serde_json::json!({
            "variant": variant,
            "board": board,
            "first_player": first,
            "margin": value.margin,
            "win": value.outcome[0],
            "draw": value.outcome[1],
            "loss": value.outcome[2],
            "openings": value.openings,
            "search": search.name(),
            "nodes": value.nodes,
            "seconds": value.seconds,
        });
        writeln!(out, "{record}")?;
    } else {
        // A fixed start has one certain outcome; a drawn one may mix them.
        let certain = value.outcome.iter().position(|&share| share == 1.0);
        let outcome = certain.map_or("mixed", |index| ["win", "draw", "loss"][index]);
        let margin = value
            .margin
            .map_or_else(|| "line".to_owned(), |m| format!("{m:+.2}"));
        let shares = format!(
            "{:.1}/{:.1}/{:.1}",
            100.0 * value.outcome[0],
            100.0 * value.outcome[1],
            100.0 * value.outcome[2]
        );
        writeln!(
            out,
            "{variant:<22} {board:>5} {first:>5} {margin:>8} {outcome:>7} {shares:>17} {:>8} {:<22} {:>14} {:>9.2}",
            value.openings,
            search.name(),
            value.nodes,
            value.seconds
        )?;
    }
    out.flush()?;
    Ok(())
}
