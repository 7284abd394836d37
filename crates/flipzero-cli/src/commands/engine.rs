//! `flipzero engine`: an agent served over GTP or the NBoard protocol on stdin/stdout, for
//! Othello GUIs.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use burn::tensor::Device;
use clap::{Args, ValueEnum};
use flipzero_arena::protocol::{GUI_DEPTH_TIME_LIMIT, Protocol, SpecSource, serve};
use flipzero_arena::{AgentSpec, MctsSpec};

/// The protocols.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProtocolArg {
    Gtp,
    Nboard,
}

/// Arguments of `flipzero engine`.
#[derive(Debug, Args)]
pub(crate) struct EngineArgs {
    /// The protocol the GUI speaks.
    #[arg(long, value_enum)]
    protocol: ProtocolArg,
    /// The agent: `engine:depth=N,...`, `mcts:checkpoint=FILE,...`, or a checkpoint file
    /// (MCTS with 400 simulations).
    #[arg(long, default_value = "engine:depth=8")]
    agent: String,
    /// The variant (a preset name or a rules TOML file).
    #[arg(long, default_value = "othello")]
    variant: String,
    /// The board side at the start (the GUI may change it).
    #[arg(long, default_value_t = 8)]
    size: u8,
    /// The longest, in seconds, an engine searches a move at a depth the GUI set (when the
    /// agent sets no time) or a whole NBoard hint.
    #[arg(long, default_value_t = GUI_DEPTH_TIME_LIMIT.as_secs_f64(), value_parser = parse_seconds)]
    depth_seconds: f64,
}

/// A positive number of seconds, at most a day.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 86_400.0 => Ok(seconds),
        _ => Err(format!("{text}: not a number of seconds in (0, 86400]")),
    }
}

pub(crate) fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let spec: AgentSpec = if Path::new(&args.agent).is_file() {
        AgentSpec::Mcts(MctsSpec {
            checkpoint: Some(args.agent.clone().into()),
            ..MctsSpec::with_simulations(400)
        })
    } else {
        args.agent.parse().with_context(|| "--agent")?
    };
    flipzero_core::Rules::load(&args.variant, Some(args.size))
        .with_context(|| format!("--variant {} --size {}", args.variant, args.size))?;
    let protocol = match args.protocol {
        ProtocolArg::Gtp => Protocol::Gtp,
        ProtocolArg::Nboard => Protocol::Nboard,
    };
    let source = SpecSource {
        depth_time_limit: Duration::from_secs_f64(args.depth_seconds),
        ..SpecSource::new(spec, Device::default())
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // A starting board the agent cannot serve is refused by `serve` before it writes
    // anything: on stderr, not as a line the GUI did not ask for.
    serve(
        protocol,
        &args.variant,
        args.size,
        &source,
        &mut stdin.lock(),
        &mut stdout.lock(),
    )?;
    Ok(())
}
