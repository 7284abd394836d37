//! `flipzero`: the one program of the flipzero framework.

mod commands;

use clap::{Parser, Subcommand};

/// Self-play reinforcement learning for Othello, Reversi and their variants.
#[derive(Debug, Parser)]
#[command(name = "flipzero", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count move sequences from a position (move generator check and speed test).
    Perft(commands::perft::PerftArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => commands::perft::run(&args),
    }
}
