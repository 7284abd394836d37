//! `flipzero cluster`: a run as Slurm jobs on a shared run directory (docs/CLUSTER.md).

use std::path::PathBuf;
use std::process::Command;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use flipzero_run::slurm::{SlurmPlan, write_scripts};
use flipzero_run::{RunDir, run_status};

use crate::commands::learn::start;

/// Arguments of `flipzero cluster`.
#[derive(Debug, Args)]
pub(crate) struct ClusterArgs {
    #[command(subcommand)]
    command: ClusterCommand,
}

#[derive(Debug, Subcommand)]
enum ClusterCommand {
    /// Prepare the run directory, write the job scripts into <run>/slurm/ and submit them.
    Submit(SubmitArgs),
    /// Games, samples, checkpoints and ratings of a run, from its directory alone.
    Status(StatusArgs),
}

/// Schedulers the jobs can be written for.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Scheduler {
    /// Slurm (sbatch job scripts, a job array for the workers).
    Slurm,
}

#[derive(Debug, Args)]
struct SubmitArgs {
    /// The scheduler.
    #[arg(long, value_enum, default_value = "slurm")]
    scheduler: Scheduler,
    /// The run config (see configs/runs/).
    #[arg(long)]
    config: PathBuf,
    /// The run directory, on a filesystem every node shares; `runs/<config name>` when
    /// absent.
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Self-play workers (tasks of the job array).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    workers: u32,
    /// Run at most this many workers at once.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    throttle: Option<u32>,
    /// CPUs per worker.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1024))]
    cpus_per_worker: u32,
    /// The trainer's GPU request (`--gres`).
    #[arg(long, default_value = "gpu:1")]
    gres: String,
    /// Partition of every job.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of every job.
    #[arg(long, default_value = "24:00:00")]
    time: String,
    /// The program the jobs run; this one when absent (it must be reachable from every
    /// node).
    #[arg(long)]
    program: Option<PathBuf>,
    /// Write the scripts without submitting them.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, Args)]
struct StatusArgs {
    /// The run directory.
    run_dir: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &ClusterArgs) -> anyhow::Result<()> {
    match &args.command {
        ClusterCommand::Submit(submit) => submit_jobs(submit),
        ClusterCommand::Status(status) => print_status(status),
    }
}

fn submit_jobs(args: &SubmitArgs) -> anyhow::Result<()> {
    let Scheduler::Slurm = args.scheduler;
    // The directory, its config and the first checkpoint exist before any job starts.
    let run = start(&args.config, args.run_dir.as_ref())?;
    run.reopen_if_budget_left()?;
    let run_dir = std::path::absolute(run.dir().root()).context("the run directory's path")?;
    let program = match &args.program {
        Some(program) => program.clone(),
        None => std::env::current_exe().context("finding this program")?,
    };
    let plan = SlurmPlan {
        program,
        run_dir,
        workers: args.workers,
        throttle: args.throttle,
        cpus_per_worker: args.cpus_per_worker,
        trainer_gres: args.gres.clone(),
        partition: args.partition.clone(),
        time_limit: args.time.clone(),
    };
    let folder = write_scripts(&plan)?;
    println!("job scripts in {}", folder.display());
    if args.dry_run {
        println!(
            "submit them with: bash {}",
            folder.join("submit.sh").display()
        );
        return Ok(());
    }
    let output = Command::new("bash")
        .arg(folder.join("submit.sh"))
        .output()
        .context("running submit.sh (is Slurm's sbatch on the PATH?)")?;
    print!("{}", String::from_utf8_lossy(&output.stdout));
    anyhow::ensure!(
        output.status.success(),
        "submit.sh failed: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(())
}

fn print_status(args: &StatusArgs) -> anyhow::Result<()> {
    let dir = RunDir::new(&args.run_dir);
    anyhow::ensure!(
        dir.config_path().exists(),
        "{}: not a run directory (no config.toml)",
        args.run_dir.display()
    );
    let status = run_status(&dir)?;
    if args.json {
        println!("{}", serde_json::to_string(&status)?);
        return Ok(());
    }
    let newest = status.checkpoints.last().copied().unwrap_or(0);
    println!(
        "run {}: {}",
        args.run_dir.display(),
        if status.finished {
            "finished"
        } else {
            "running"
        }
    );
    println!(
        "checkpoints: {} (newest step {newest})",
        status.checkpoints.len()
    );
    println!("games: {} ({} samples)", status.games, status.samples);
    for (worker, games) in &status.games_by_worker {
        println!("  {worker:<24} {games:>8} games");
    }
    println!(
        "trained on: {} shards; waiting for a training: {}; skipped by the replay window: {}",
        status.consumed, status.waiting, status.skipped
    );
    if status.missing > 0 {
        println!("{} shards the trainer used are gone", status.missing);
    }
    for (opponent, (step, score, games)) in &status.ratings {
        println!(
            "vs {opponent:<20} step {step}: {:.1}% of {games} games",
            score * 100.0
        );
    }
    if !status.quarantined.is_empty() {
        println!(
            "quarantined (unreadable, out of the window): {}",
            status.quarantined.join(", ")
        );
    }
    for (log, last_line) in &status.job_logs {
        println!("job log {log}: {last_line}");
    }
    Ok(())
}
