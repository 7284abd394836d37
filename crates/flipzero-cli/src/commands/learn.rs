//! `flipzero loop`, `selfplay`, `train` and `evaluate`: the stages of a learning run on one
//! run directory, with progress bars and one summary line per iteration.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_run::{EvaluateOptions, Progress, Record, Run, RunDir, WorkerId};
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `flipzero loop`.
#[derive(Debug, Args)]
pub(crate) struct LoopArgs {
    /// The run config (see configs/runs/).
    #[arg(long)]
    config: PathBuf,
    /// The run directory; `runs/<config name>` when absent. An existing run resumes.
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Stop when the run has this many iterations (replaces the config's budget; with
    /// `--minutes` too, whichever comes first).
    #[arg(long)]
    iterations: Option<u64>,
    /// Stop after the iteration that passes this many minutes of run time (replaces the
    /// config's budget; with `--iterations` too, whichever comes first).
    #[arg(long)]
    minutes: Option<f64>,
    /// Run the stages as separate processes at the same time: this many self-play workers,
    /// a trainer and an evaluator on the run directory (as on a cluster).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    workers: Option<u32>,
}

/// The run directory argument of the single stages.
#[derive(Debug, Args)]
pub(crate) struct RunDirArg {
    /// The run directory (made by `flipzero loop` or `flipzero init`).
    #[arg(long)]
    run_dir: PathBuf,
}

/// Arguments of `flipzero init`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The run config (see configs/runs/).
    #[arg(long)]
    config: PathBuf,
    /// The run directory; `runs/<config name>` when absent.
    #[arg(long)]
    run_dir: Option<PathBuf>,
}

/// Arguments of `flipzero selfplay`.
#[derive(Debug, Args)]
pub(crate) struct SelfPlayArgs {
    #[command(flatten)]
    run: RunDirArg,
    /// Games the newest checkpoint should have played (ids 0..N; games already played are
    /// kept); the config's games per iteration when absent.
    #[arg(long, conflicts_with = "follow")]
    games: Option<u64>,
    /// Work as one of many workers: play batches with the newest checkpoint until the
    /// trainer marks the run finished.
    #[arg(long)]
    follow: bool,
    /// The worker's name in its shards; under Slurm `<array job>.<task>` by default, else
    /// `<host>-<process id>`.
    #[arg(long, requires = "follow")]
    worker: Option<String>,
    /// Games per batch of a following worker; the config's parallel games times its worker
    /// threads when absent.
    #[arg(long, requires = "follow", value_parser = clap::value_parser!(u64).range(1..))]
    batch: Option<u64>,
    /// Stop a following worker after this many batches.
    #[arg(long, requires = "follow")]
    batches: Option<u64>,
}

/// Arguments of `flipzero train`.
#[derive(Debug, Args)]
pub(crate) struct TrainArgs {
    #[command(flatten)]
    run: RunDirArg,
    /// Optimizer steps; the config's steps per iteration when absent.
    #[arg(long, conflicts_with = "follow")]
    steps: Option<u64>,
    /// Train each time an iteration's games have arrived from workers, until the budget is
    /// spent; then mark the run finished.
    #[arg(long)]
    follow: bool,
    /// Budget of a following trainer in iterations (replaces the config's budget).
    #[arg(long, requires = "follow")]
    iterations: Option<u64>,
    /// Budget of a following trainer in minutes of run time (replaces the config's budget).
    #[arg(long, requires = "follow")]
    minutes: Option<f64>,
}

/// Arguments of `flipzero evaluate`.
#[derive(Debug, Args)]
pub(crate) struct EvaluateArgs {
    #[command(flatten)]
    run: RunDirArg,
    /// The checkpoint's step; the newest when absent.
    #[arg(long)]
    step: Option<u64>,
    /// Openings, each played with both colours; the config's count when absent.
    #[arg(long)]
    openings: Option<usize>,
    /// Random plies from the start that make each opening, `K` or a range `A-B` (a number
    /// drawn per opening); the config's when absent.
    #[arg(long, value_parser = flipzero_run::parse_range)]
    opening_plies: Option<std::ops::RangeInclusive<u32>>,
    /// Keep only openings the classical engine (depth 6) scores within this many discs of
    /// even: random plies can leave one side lost by force.
    #[arg(long, conflicts_with = "exact_within")]
    balanced: Option<f64>,
    /// Keep only openings whose exact value is within this many discs of a draw (solved by
    /// the exact solver and cached in the run directory's exact-values.json).
    #[arg(long, value_parser = clap::value_parser!(i32).range(0..=1000))]
    exact_within: Option<i32>,
    /// The network's exact-solver threshold in empties (0: no solver leaves, the network's
    /// own play); the config's when absent.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=24))]
    solve: Option<u32>,
    /// The network's tree policy, `puct` or `gumbel`; the config's when absent.
    #[arg(long, value_parser = |text: &str| text.parse::<flipzero_run::SearchKind>())]
    search: Option<flipzero_run::SearchKind>,
    /// `all`: each of the network's evaluations averaged over the position's images under
    /// every board symmetry (eight network inputs instead of one); `one`: the position as it is.
    #[arg(long, default_value = "one", action = clap::ArgAction::Set, value_parser = flipzero_arena::parse_symmetries)]
    symmetries: bool,
    /// An opponent (`random`, `engine:depth=4`, ...); repeat for several. The config's
    /// opponents when absent.
    #[arg(long = "opponent")]
    opponents: Vec<flipzero_arena::NamedAgentSpec>,
    /// Simulations per decision of the network's agent.
    #[arg(long)]
    simulations: Option<u32>,
    /// The seed the openings are drawn from; the config's seed when absent. Give runs of
    /// other seeds the same one to measure them on the same openings.
    #[arg(long)]
    opening_seed: Option<u64>,
    /// Append every game to this file, one JSON object per line (as `flipzero arena
    /// --games` writes them; `flipzero replay --games FILE --line N` plays one back).
    #[arg(long)]
    games: Option<PathBuf>,
    /// Evaluate each due checkpoint as the trainer publishes it, until the run is finished
    /// (with the config's openings, opponents and simulations).
    #[arg(long, conflicts_with_all = ["step", "openings", "opening_plies", "balanced", "exact_within", "solve", "search", "opponents", "simulations", "opening_seed", "games"])]
    follow: bool,
}

/// Progress bars on standard error (hidden when it is not a terminal).
pub(crate) struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub(crate) fn new() -> Self {
        Self {
            bar: Mutex::new(None),
        }
    }
}

impl Progress for Bars {
    fn begin(&self, stage: &str, total: u64) {
        let bar = ProgressBar::new(total).with_style(
            ProgressStyle::with_template(
                "{prefix:>14} [{bar:30}] {pos}/{len} {per_sec:>10} eta {eta}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(stage.to_owned());
        *self.bar.lock().expect("no panic while drawing") = Some(bar);
    }

    fn advance(&self, units: u64) {
        if let Some(bar) = self.bar.lock().expect("no panic while drawing").as_ref() {
            bar.inc(units);
        }
    }

    fn end(&self) {
        if let Some(bar) = self.bar.lock().expect("no panic while drawing").take() {
            bar.finish_and_clear();
        }
    }
}

/// `runs/<config file stem>`.
pub(crate) fn default_run_dir(config: &Path) -> PathBuf {
    let stem = config
        .file_stem()
        .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
    PathBuf::from("runs").join(stem)
}

pub(crate) fn start(config: &Path, run_dir: Option<&PathBuf>) -> anyhow::Result<Run> {
    let dir = run_dir.cloned().unwrap_or_else(|| default_run_dir(config));
    let run = Run::start(RunDir::new(&dir), config, Device::default())
        .with_context(|| format!("starting the run in {}", dir.display()))?;
    run.ensure_checkpoint()?;
    Ok(run)
}

fn open(arg: &RunDirArg) -> anyhow::Result<Run> {
    Run::open(RunDir::new(&arg.run_dir), Device::default())
        .with_context(|| format!("opening the run in {}", arg.run_dir.display()))
}

/// One line per stage record, as the loop's summary and the single stages print them.
fn describe(record: &Record) -> String {
    match record {
        Record::Selfplay {
            step,
            games,
            positions,
            positions_per_second,
            first_player_score,
            ..
        } => format!(
            "self-play  step {step}: {games} games, {positions} positions, \
             {positions_per_second:.0} positions/s, first player {:.0}%",
            first_player_score * 100.0
        ),
        Record::Train {
            step,
            window,
            policy_loss,
            wdl_loss,
            score_loss,
            samples_per_second,
            ..
        } => format!(
            "training   step {step}: loss policy {policy_loss:.3} wdl {wdl_loss:.3} \
             score {score_loss:.4}, window {window}, {samples_per_second:.0} samples/s"
        ),
        Record::Evaluate {
            step,
            opponent,
            games,
            wins,
            draws,
            losses,
            score,
            mean_margin,
            perfect,
            ..
        } => {
            let mut line = format!(
                "evaluation step {step}: vs {opponent} {:.1}% (+{wins} ={draws} -{losses} of {games}), \
                 mean margin {mean_margin:+.2}",
                score * 100.0
            );
            if let Some(perfect) = perfect {
                line.push_str(&format!("; {}", perfect.summary()));
            }
            line
        }
        Record::Quarantine { shard, reason, .. } => {
            format!("quarantine {shard}: cannot be read ({reason}); moved out of the window")
        }
    }
}

/// One line for an iteration: losses, speeds and match scores.
fn summary(iteration: u64, records: &[Record], elapsed: f64) -> String {
    let mut parts = vec![format!("iteration {iteration:>3}")];
    for record in records {
        match record {
            Record::Selfplay {
                games,
                positions_per_second,
                ..
            } => parts.push(format!("{games} games {positions_per_second:.0} pos/s")),
            Record::Train {
                step,
                policy_loss,
                wdl_loss,
                ..
            } => parts.push(format!("step {step} loss {policy_loss:.3}+{wdl_loss:.3}")),
            Record::Evaluate {
                opponent, score, ..
            } => parts.push(format!("vs {opponent} {:.0}%", score * 100.0)),
            Record::Quarantine { shard, .. } => parts.push(format!("quarantined {shard}")),
        }
    }
    let minutes = (elapsed / 60.0).floor();
    parts.push(format!("{minutes:.0}m{:02.0}s", elapsed - minutes * 60.0));
    parts.join(" | ")
}

pub(crate) fn run_loop(args: &LoopArgs) -> anyhow::Result<()> {
    let mut run = start(&args.config, args.run_dir.as_ref())?;
    run.set_stop(args.iterations, args.minutes);
    if let Some(workers) = args.workers {
        return run_processes(&run, args, workers);
    }
    eprintln!(
        "run {}: {} on {}x{}, network {} blocks x {} channels",
        run.dir().root().display(),
        run.config().settings.variant,
        run.config().rules.rows(),
        run.config().rules.cols(),
        run.config().settings.network.blocks,
        run.config().settings.network.channels,
    );
    let step = run.ensure_checkpoint()?;
    if step > 0 {
        eprintln!(
            "resuming at step {step} after {:.1} minutes of run time",
            run.elapsed_seconds() / 60.0
        );
    }
    let bars = Bars::new();
    run.run_loop(&bars, |iteration, records| {
        println!("{}", summary(iteration, records, run.elapsed_seconds()));
    })?;
    Ok(())
}

pub(crate) fn init(args: &InitArgs) -> anyhow::Result<()> {
    let run = start(&args.config, args.run_dir.as_ref())?;
    println!("run directory {} ready", run.dir().root().display());
    Ok(())
}

pub(crate) fn self_play(args: &SelfPlayArgs) -> anyhow::Result<()> {
    let run = open(&args.run)?;
    if args.follow {
        let worker = match &args.worker {
            Some(name) => WorkerId::new(name).map_err(anyhow::Error::msg)?,
            None => WorkerId::from_slurm().map_or_else(default_worker, Ok)?,
        };
        let play = &run.config().settings.selfplay;
        let batch = args
            .batch
            .unwrap_or((play.play.parallel_games * play.workers) as u64);
        eprintln!("worker {worker}: batches of {batch} games");
        run.self_play_worker(&worker, batch, args.batches, &Bars::new(), &mut |record| {
            println!("{worker}: {}", describe(record));
        })?;
        return Ok(());
    }
    let games = args
        .games
        .unwrap_or(run.config().settings.selfplay.games_per_iteration);
    match run.self_play(games, &Bars::new())? {
        Some(record) => println!("{}", describe(&record)),
        None => println!("the newest checkpoint has played its {games} games already"),
    }
    Ok(())
}

pub(crate) fn train(args: &TrainArgs) -> anyhow::Result<()> {
    let mut run = open(&args.run)?;
    if args.follow {
        run.set_stop(args.iterations, args.minutes);
        run.train_following(&Bars::new(), &mut |record| println!("{}", describe(record)))?;
        println!("run finished");
        return Ok(());
    }
    let steps = args
        .steps
        .unwrap_or(run.config().settings.train.steps_per_iteration);
    println!("{}", describe(&run.train(steps, &Bars::new())?));
    Ok(())
}

pub(crate) fn evaluate(args: &EvaluateArgs) -> anyhow::Result<()> {
    let run = open(&args.run)?;
    if args.follow {
        run.evaluate_following(&Bars::new(), &mut |record| println!("{}", describe(record)))?;
        return Ok(());
    }
    let options = EvaluateOptions {
        step: args.step,
        openings: args.openings,
        opening_plies: args.opening_plies.clone(),
        balanced_margin: args.balanced,
        exact_within: args.exact_within,
        opening_seed: args.opening_seed,
        solve_empties: args.solve,
        search: args.search,
        every_symmetry: args.symmetries,
        opponents: (!args.opponents.is_empty()).then(|| args.opponents.clone()),
        simulations: args.simulations,
        games: args.games.clone(),
    };
    for record in run.evaluate(&options, &Bars::new())? {
        println!("{}", describe(&record));
    }
    Ok(())
}

/// `<host>-<process id>`: a worker name that no other process on any host shares.
fn default_worker() -> anyhow::Result<WorkerId> {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|name| name.trim().to_owned())
        .unwrap_or_default();
    let host: String = host
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    let host = if host.is_empty() {
        "local".to_owned()
    } else {
        host
    };
    WorkerId::new(&format!("{host}-{}", std::process::id())).map_err(anyhow::Error::msg)
}

/// `flipzero loop --workers N`: the stages as processes of this program on one run
/// directory, as a cluster would run them: N self-play workers, the trainer and the
/// evaluator. Returns when the trainer has finished and the others have stopped.
fn run_processes(run: &Run, args: &LoopArgs, workers: u32) -> anyhow::Result<()> {
    use std::process::{Child, Command};
    let program = std::env::current_exe().context("finding this program")?;
    let dir = run.dir().root().to_path_buf();
    if run.reopen_if_budget_left()? {
        eprintln!("the budget has room for more: the run goes on");
    }
    let spawn = |stage: &[&str]| -> anyhow::Result<Child> {
        Command::new(&program)
            .args(stage)
            .arg("--run-dir")
            .arg(&dir)
            .spawn()
            .with_context(|| format!("starting {}", stage.join(" ")))
    };
    eprintln!(
        "run {}: {workers} self-play workers, a trainer and an evaluator as processes",
        dir.display()
    );
    // The trainer keeps the budget; the others stop when it marks the run finished.
    let mut budget = Vec::new();
    if let Some(iterations) = args.iterations {
        budget.extend(["--iterations".to_owned(), iterations.to_string()]);
    }
    if let Some(minutes) = args.minutes {
        budget.extend(["--minutes".to_owned(), minutes.to_string()]);
    }
    let mut train = vec!["train", "--follow"];
    train.extend(budget.iter().map(String::as_str));
    let mut trainer = spawn(&train)?;
    let mut others = vec![spawn(&["evaluate", "--follow"])?];
    for index in 0..workers {
        let name = format!("local-{index}");
        others.push(spawn(&["selfplay", "--follow", "--worker", &name])?);
    }
    let trained = trainer.wait().context("waiting for the trainer")?;
    if !trained.success() {
        for child in &mut others {
            let _ = child.kill();
        }
    }
    let mut failed = Vec::new();
    for mut child in others {
        if !child.wait().context("waiting for a stage")?.success() && trained.success() {
            failed.push(child.id());
        }
    }
    anyhow::ensure!(trained.success(), "the trainer failed ({trained})");
    anyhow::ensure!(failed.is_empty(), "stage processes {failed:?} failed");
    Ok(())
}
