//! `flipzero play`: a game in the terminal between humans and engines, with undo.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use flipzero_core::{AnyGame, Color, Decision, Outcome, Rules, Square};
use flipzero_engine::AnyEngine;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::engine_setup::{PlayerSpec, weights_for};

/// Arguments of `flipzero play`.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    /// A variant preset name or a rules TOML file.
    #[arg(long, default_value = "othello")]
    variant: String,
    /// Board side, where the preset allows another.
    #[arg(long, value_parser = clap::value_parser!(u8).range(4..=16))]
    size: Option<u8>,
    /// Who plays Black: `human`, `engine` or `engine:depth=8,time=2,...`.
    #[arg(long, default_value = "human")]
    black: PlayerSpec,
    /// Who plays White.
    #[arg(long, default_value = "engine:depth=8")]
    white: PlayerSpec,
    /// Seed of what the game leaves to chance (random openings, the seats after equal bids).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Evaluation weights file (TOML); the embedded weights when absent.
    #[arg(long)]
    weights: Option<PathBuf>,
}

pub(crate) fn run(args: &PlayArgs) -> anyhow::Result<()> {
    let rules = Rules::load(&args.variant, args.size)
        .with_context(|| format!("--variant {}", args.variant))?;
    let weights = weights_for(&rules, args.weights.as_ref())?;
    let start = AnyGame::try_start(&rules, args.seed).context("the start position")?;
    let seat = |spec: &PlayerSpec| match spec {
        PlayerSpec::Human => None,
        PlayerSpec::Engine(config) => Some(AnyEngine::new(&rules, weights.clone(), config.clone())),
    };
    let mut players = [seat(&args.black), seat(&args.white)];
    let stdin = std::io::stdin();
    let (input, out) = (&mut stdin.lock(), &mut std::io::stdout().lock());
    play(&rules, start, &mut players, args.seed, input, out)
}

const HELP: &str = "type a move (f5; pass; the variant's forms such as c6x or bid+2), `undo` to \
take back your last move, `moves` to list the legal ones, `quit` to stop";

fn play(
    rules: &Rules,
    mut game: AnyGame,
    players: &mut [Option<AnyEngine>; 2],
    seed: u64,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    // The positions where a human was about to decide, for undo.
    let mut human_turns: Vec<AnyGame> = Vec::new();
    let mut shown = true;
    writeln!(out, "{HELP}")?;
    while !game.is_over() {
        // Seeded by the position too: after an undo the same bids draw the same seats.
        let mut chance = ChaCha8Rng::seed_from_u64(seed ^ game.hash());
        if let Some(outcome) = game.draw_chance(rules, &mut chance) {
            let name = game.decision_name(rules, outcome);
            writeln!(out, "equal bids: the seats are drawn ({name})")?;
            game = game.play_unchecked(rules, outcome);
            continue;
        }
        let side = game.side_to_move();
        let legal = game.legal_decisions(rules);
        let name = |decision: Decision| game.decision_name(rules, decision);
        // Players keep their seats; komi bidding may put the first bidder on White.
        let seat = if game.seats_swapped() {
            side.opponent()
        } else {
            side
        };
        if let Some(engine) = &mut players[seat as usize] {
            let started = Instant::now();
            let choice = engine.choose(&game).expect("the game is not over");
            writeln!(
                out,
                "{} plays {} ({:+.2} discs{}, {} nodes, {:.2} s)",
                side.symbol(),
                name(choice.decision),
                f64::from(choice.value) / 100.0,
                if choice.exact {
                    ", exact".to_owned()
                } else {
                    format!(", depth {}", choice.depth)
                },
                choice.nodes,
                started.elapsed().as_secs_f64()
            )?;
            game = game.play_unchecked(rules, choice.decision);
            shown = false;
            continue;
        }
        if !shown {
            let marks: Vec<Square> = legal
                .iter()
                .filter_map(|decision| match decision {
                    Decision::Square { square, .. } => Some(*square),
                    _ => None,
                })
                .collect();
            write!(out, "{}", game.to_diagram_marked(rules, &marks))?;
            shown = true;
        }
        let names: Vec<String> = legal.iter().map(|&d| name(d)).collect();
        write!(out, "{} to decide ({}): ", side.symbol(), names.join(" "))?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\ninput closed; the game stops here")?;
            return Ok(());
        }
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" | "?" => writeln!(out, "{HELP}")?,
            "moves" => writeln!(out, "legal: {}", names.join(" "))?,
            "undo" => match human_turns.pop() {
                Some(earlier) => {
                    game = earlier;
                    shown = false;
                    writeln!(out, "taken back")?;
                }
                None => writeln!(out, "nothing to undo")?,
            },
            text => match legal.iter().find(|&&d| name(d).eq_ignore_ascii_case(text)) {
                Some(&decision) => {
                    let next = game.play_unchecked(rules, decision);
                    human_turns.push(game);
                    game = next;
                    shown = false;
                }
                // Not one legal decision: the notation says what is wrong, or that it holds
                // several.
                None => match game.replay_decisions(rules, text) {
                    Ok(_) => writeln!(out, "one decision at a time, please")?,
                    Err(error) => writeln!(out, "not played: {}", error.reason)?,
                },
            },
        }
    }
    write!(out, "{}", game.to_diagram(rules))?;
    let result = match game.outcome(rules) {
        Some(Outcome::Win(Color::Black)) => "Black wins",
        Some(Outcome::Win(Color::White)) => "White wins",
        _ => "draw",
    };
    writeln!(
        out,
        "{result}, score {:+} (black - white)",
        game.score(rules)
    )?;
    Ok(())
}
