//! `flipzero replay`: plays a move list under a variant's rules and prints where it ends.

use std::io::Write;
use std::process::ExitCode;

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use flipzero_core::{AnyGame, Color, Outcome, Rules};
use flipzero_data::saved_game::read_saved_game;

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
    #[arg(long, allow_hyphen_values = true, required_unless_present = "games")]
    moves: Option<String>,
    /// Replay a game saved by `flipzero arena --games FILE` (its rules, opening and moves).
    #[arg(long, conflicts_with_all = ["moves", "position", "variant", "size"])]
    games: Option<PathBuf>,
    /// The game's line in the --games file, from 1.
    #[arg(long, default_value_t = 1, requires = "games")]
    line: usize,
    /// Start from this position instead of the variant's start.
    #[arg(long, allow_hyphen_values = true)]
    position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let (variant, size, position, moves) = match &args.games {
        Some(path) => {
            let saved = read_saved_game(path, args.line)?;
            (
                saved.variant,
                saved.size,
                Some(saved.opening),
                saved.decisions,
            )
        }
        None => (
            args.variant.clone(),
            args.size,
            args.position.clone(),
            args.moves.clone().unwrap_or_default(),
        ),
    };
    let rules = Rules::load(&variant, size).with_context(|| format!("--variant {variant}"))?;
    let start = match &position {
        Some(text) => AnyGame::from_text(&rules, text).context("--position")?,
        None => AnyGame::start(&rules),
    };
    report(&rules, &start, &moves, args.json)
}

fn result_name(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "unfinished",
        Some(Outcome::Win(Color::Black)) => "black wins",
        Some(Outcome::Win(Color::White)) => "white wins",
        Some(Outcome::Draw) => "draw",
    }
}

fn report(rules: &Rules, start: &AnyGame, moves: &str, json: bool) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match start.replay_decisions(rules, moves) {
        Ok((_, game)) => {
            let outcome = game.outcome(rules);
            if json {
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
            if json {
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
