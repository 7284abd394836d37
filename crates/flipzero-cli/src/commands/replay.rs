//! `flipzero replay`: plays a move list under a variant's rules and prints where it ends.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use flipzero_core::{Bitboard, Color, Game, Outcome, Rules, notation};

/// Arguments of `flipzero replay`.
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// A variant preset name or a rules TOML file.
    #[arg(long, default_value = "othello")]
    variant: String,
    /// Board side, where the preset allows another.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// The decisions: squares (`f5`), `pass`, and the variant's own forms (`c6x`, `bid+2`).
    #[arg(long, allow_hyphen_values = true)]
    moves: String,
    /// Start from this position instead of the variant's start.
    #[arg(long, allow_hyphen_values = true)]
    position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let rules = Rules::load(&args.variant, args.size)
        .with_context(|| format!("--variant {}", args.variant))?;
    flipzero_core::with_width!(rules.square_count(), W => {
        let start = match &args.position {
            Some(text) => Game::<W>::from_text(&rules, text).context("--position")?,
            None => Game::<W>::start(&rules),
        };
        report(&rules, &start, args)
    })
}

fn result_name(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "unfinished",
        Some(Outcome::Win(Color::Black)) => "black wins",
        Some(Outcome::Win(Color::White)) => "white wins",
        Some(Outcome::Draw) => "draw",
    }
}

fn report<W: Bitboard>(
    rules: &Rules,
    start: &Game<W>,
    args: &ReplayArgs,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match notation::replay(rules, start, &args.moves) {
        Ok(game) => {
            let outcome = game.outcome(rules);
            if args.json {
                let record = serde_json::json!({
                    "position": game.to_text(rules),
                    "over": game.is_over(),
                    "result": result_name(outcome),
                    "score": game.score(rules),
                    "komi": game.komi(),
                });
                writeln!(out, "{record}")?;
            } else {
                write!(out, "{}", game.to_diagram(rules))?;
                writeln!(out, "position: {}", game.to_text(rules))?;
                writeln!(
                    out,
                    "result: {}, score {:+} (black - white){}",
                    result_name(outcome),
                    game.score(rules),
                    if game.komi() != 0.0 {
                        format!(", komi {}", game.komi())
                    } else {
                        String::new()
                    }
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            if args.json {
                let record = serde_json::json!({
                    "error": {"index": error.index, "decision": error.text, "reason": error.reason},
                });
                writeln!(out, "{record}")?;
            } else {
                writeln!(out, "illegal: {error}")?;
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
