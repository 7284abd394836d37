//! `flipzero engine`: an agent served over GTP or the NBoard protocol on stdin/stdout, for
//! Othello GUIs.

use std::path::Path;

use anyhow::Context;
use burn::tensor::Device;
use clap::{Args, ValueEnum};
use flipzero_arena::protocol::{Protocol, SpecSource, serve};
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
}

pub(crate) fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let spec: AgentSpec = if Path::new(&args.agent).is_file() {
        AgentSpec::Mcts(MctsSpec {
            checkpoint: Some(args.agent.clone().into()),
            simulations: 400,
            ..MctsSpec::default()
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
        spec,
        device: Device::default(),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
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
