//! `flipzero`: the one program of the flipzero framework.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Training allocates and frees tensors of megabytes at every step; glibc's allocator gives
// them back to the kernel and faults them in again (15-25% of a training step on flex).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Self-play reinforcement learning for Othello, Reversi and their variants.
#[derive(Debug, Parser)]
#[command(name = "flipzero", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// How often a checkpoint plays a best decision on exactly scored positions.
    Accuracy(commands::accuracy::AccuracyArgs),
    /// Run a competition between agents from a config: table, Elo, saved games.
    Arena(commands::arena::ArenaArgs),
    /// Run a learning run as cluster jobs (Slurm) and summarise a run directory.
    Cluster(commands::cluster::ClusterArgs),
    /// Print the value of every legal decision of a position (classical engine).
    Analyze(commands::analyze::AnalyzeArgs),
    /// Serve an agent to a GUI over GTP or the NBoard protocol (stdin/stdout).
    Engine(commands::engine::EngineArgs),
    /// Play a checkpoint against opponents (a stage of a learning run).
    Evaluate(commands::learn::EvaluateArgs),
    /// Write a checkpoint's network as ONNX and/or safetensors with a JSON description.
    Export(commands::export::ExportArgs),
    /// Make a run directory from a run config without running a stage.
    Init(commands::learn::InitArgs),
    /// Rate a network checkpoint against the classical engine at depths 1 to N (Elo).
    Ladder(commands::ladder::LadderArgs),
    /// Self-play, training and evaluation in turn on a run directory; resumes a stopped run.
    Loop(commands::learn::LoopArgs),
    /// Count move sequences from a position (move generator check and speed test).
    Perft(commands::perft::PerftArgs),
    /// Play a game in the terminal: humans and engines, with undo.
    Play(commands::play::PlayArgs),
    /// Play a list of decisions under a variant's rules and print the final position.
    Replay(commands::replay::ReplayArgs),
    /// Plots (PNG and SVG) and a Markdown or HTML page about a learning run.
    Report(commands::report::ReportArgs),
    /// Serve the web front-end: play, watch and analyse every preset in a browser.
    Serve(commands::serve::ServeArgs),
    /// Self-play games of the newest checkpoint into the run's shards (a stage of a run).
    Selfplay(commands::learn::SelfPlayArgs),
    /// Solve the positions of an OBF file exactly (standard Othello endgames).
    Solve(commands::solve::SolveArgs),
    /// Train an agent per preset under one budget and compare how hard the variants are.
    Study(commands::study::StudyArgs),
    /// Train the newest checkpoint on the run's replay window (a stage of a run).
    Train(commands::learn::TrainArgs),
    /// Fit the evaluation weights of a preset and board size by regression.
    Tune(commands::tune::TuneArgs),
    /// The value of each variant's start under perfect play, by exhaustive search.
    Value(commands::value::ValueArgs),
    /// List the variant presets.
    Variants(commands::variants::VariantsArgs),
}

fn main() -> ExitCode {
    flipzero_nn::allocator::keep_freed_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Accuracy(args) => commands::accuracy::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Arena(args) => commands::arena::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Cluster(args) => commands::cluster::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Analyze(args) => commands::analyze::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Play(args) => commands::play::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Tune(args) => commands::tune::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Perft(args) => commands::perft::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Replay(args) => commands::replay::run(&args),
        Command::Solve(args) => commands::solve::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Engine(args) => commands::engine::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Evaluate(args) => commands::learn::evaluate(&args).map(|()| ExitCode::SUCCESS),
        Command::Export(args) => commands::export::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Init(args) => commands::learn::init(&args).map(|()| ExitCode::SUCCESS),
        Command::Ladder(args) => commands::ladder::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Loop(args) => commands::learn::run_loop(&args).map(|()| ExitCode::SUCCESS),
        Command::Report(args) => commands::report::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Serve(args) => commands::serve::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Selfplay(args) => commands::learn::self_play(&args).map(|()| ExitCode::SUCCESS),
        Command::Study(args) => commands::study::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Train(args) => commands::learn::train(&args).map(|()| ExitCode::SUCCESS),
        Command::Value(args) => commands::value::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Variants(args) => commands::variants::run(&args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`flipzero perft ... | head`): not an error of ours.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
