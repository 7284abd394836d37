//! `flipzero accuracy`: how often a checkpoint's raw policy, and its search, plays a best
//! decision on positions the exact solver has scored, by number of empty squares.

use std::path::{Path, PathBuf};

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_arena::accuracy::{AccuracyReport, measure, sample_positions};
use flipzero_arena::{AgentFactory, AgentSpec, ExactCache, MctsSpec};
use flipzero_core::{AnyGame, Rules};
use flipzero_engine::WeightsFile;
use flipzero_nn::NetEvaluator;
use flipzero_run::{PlaySettings, SearchKind};

/// Arguments of `flipzero accuracy`.
#[derive(Debug, Args)]
pub(crate) struct AccuracyArgs {
    /// The network checkpoint.
    #[arg(long)]
    checkpoint: PathBuf,
    /// A file of positions, one a line (the text format of the checkpoint's rules;
    /// anything after `;` is ignored), instead of positions drawn from games.
    #[arg(long, conflicts_with_all = ["sample", "empties"])]
    positions: Option<PathBuf>,
    /// Positions to draw: one from each game, half of the games the checkpoint's own (its
    /// search against itself), half the classical engine's (depth 4, choosing among moves
    /// within a disc of its best).
    #[arg(long, default_value_t = 200)]
    sample: usize,
    /// Empty squares of the drawn positions, `A-B` or `K`.
    #[arg(long, default_value = "12-24", value_parser = flipzero_run::parse_range)]
    empties: std::ops::RangeInclusive<u32>,
    /// Simulations per decision of the checkpoint's search.
    #[arg(long, default_value_t = 64)]
    simulations: u32,
    /// Exact solver values at the search's leaves from this many empties (0: the
    /// network's own play).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=24))]
    solve: u32,
    /// The search's tree policy, `puct` or `gumbel`.
    #[arg(long, default_value = "puct", value_parser = |text: &str| text.parse::<SearchKind>())]
    search: SearchKind,
    /// Weight of the predicted final margin beside the result in the search's values (0 to
    /// 10; 0: the result alone).
    #[arg(long, default_value_t = 0.0, value_parser = score_utility)]
    score_utility: f32,
    /// `all`: each of the network's evaluations (raw policy and search) averaged over the
    /// position's images under every board symmetry; `one`: the position as it is.
    #[arg(long, default_value = "one", action = clap::ArgAction::Set, value_parser = flipzero_arena::parse_symmetries)]
    symmetries: bool,
    /// Random plies of the openings of the games positions are drawn from.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Where the exact scores of the positions are kept; the run directory's
    /// exact-values.json when the checkpoint is in one, else beside the checkpoint.
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Seed of the openings and the choice of positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The run directory's cache for a checkpoint in `<run>/checkpoints/`, else a file beside it.
fn default_cache(checkpoint: &Path) -> PathBuf {
    let folder = checkpoint.parent().unwrap_or(Path::new("."));
    match folder.parent() {
        Some(run) if folder.file_name().is_some_and(|name| name == "checkpoints") => {
            run.join("exact-values.json")
        }
        _ => checkpoint.with_extension("exact-values.json"),
    }
}

fn read_positions(rules: &Rules, path: &Path) -> anyhow::Result<Vec<AnyGame>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(number, line)| (number, line.split(';').next().unwrap_or("").trim()))
        .filter(|(_, line)| !line.is_empty())
        .map(|(number, line)| {
            AnyGame::from_text(rules, line)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), number + 1))
        })
        .collect()
}

pub(crate) fn run(args: &AccuracyArgs) -> anyhow::Result<()> {
    let device = Device::default();
    let (loaded, rules) = super::load_checkpoint(&args.checkpoint, &device)?;
    let cache_path = args
        .cache
        .clone()
        .unwrap_or_else(|| default_cache(&args.checkpoint));
    let mut cache = ExactCache::open(&rules, Some(&cache_path))?;
    let weights = WeightsFile::embedded().weights_for(&rules, "embedded weights")?;
    let defaults = MctsSpec::default();
    let spec = AgentSpec::Mcts(MctsSpec {
        play: PlaySettings {
            simulations: args.simulations,
            solve_empties: args.solve,
            search: args.search,
            score_utility: args.score_utility,
            ..defaults.play
        },
        every_symmetry: args.symmetries,
        ..defaults
    });
    let network = (loaded.net, device);
    let searcher =
        AgentFactory::with_network(&spec, &rules, weights.clone(), Some(network.clone()));
    let engine: AgentSpec = "engine:depth=4,random=100".parse()?;
    let engine = AgentFactory::with_network(&engine, &rules, weights, None);
    let positions = match &args.positions {
        Some(path) => read_positions(&rules, path)?,
        None => {
            eprintln!("drawing {} positions from games ...", args.sample);
            sample_positions(
                &rules,
                &searcher,
                &engine,
                args.sample,
                args.empties.clone(),
                args.opening_plies,
                args.seed,
            )
        }
    };
    eprintln!(
        "scoring every decision of {} positions exactly (kept in {}) ...",
        positions.len(),
        cache_path.display()
    );
    let (net, device) = &network;
    let report = measure(
        &rules,
        &mut cache,
        &positions,
        || NetEvaluator::new(&rules, net, device).over_every_symmetry(args.symmetries),
        &searcher,
    )?;
    print_report(&report, loaded.meta.step, args);
    Ok(())
}

fn print_report(report: &AccuracyReport, step: u64, args: &AccuracyArgs) {
    let (raw, search) = report.total();
    if args.json {
        let rows: Vec<serde_json::Value> = report
            .by_empties
            .iter()
            .map(|(empties, (raw, search))| {
                serde_json::json!({
                    "empties": empties, "positions": raw.positions,
                    "policy_best": raw.best_share(), "policy_discs_lost": raw.mean_discs_lost(),
                    "search_best": search.best_share(), "search_discs_lost": search.mean_discs_lost(),
                })
            })
            .collect();
        let value = serde_json::json!({
            "step": step,
            "simulations": args.simulations,
            "solve": args.solve,
            "positions": raw.positions,
            "policy_best": raw.best_share(),
            "policy_discs_lost": raw.mean_discs_lost(),
            "search_best": search.best_share(),
            "search_discs_lost": search.mean_discs_lost(),
            "by_empties": rows,
        });
        println!("{value}");
        return;
    }
    println!(
        "checkpoint step {step}: a best decision on {} exactly scored positions \
         (search: {} simulations, solver leaves from {} empties)",
        raw.positions, args.simulations, args.solve
    );
    println!(
        "{:>7} {:>9} {:>12} {:>12} {:>12} {:>12}",
        "empties", "positions", "policy best", "discs lost", "search best", "discs lost"
    );
    let row = |label: String,
               raw: &flipzero_arena::accuracy::Tally,
               search: &flipzero_arena::accuracy::Tally| {
        println!(
            "{label:>7} {:>9} {:>11.1}% {:>12.2} {:>11.1}% {:>12.2}",
            raw.positions,
            raw.best_share() * 100.0,
            raw.mean_discs_lost(),
            search.best_share() * 100.0,
            search.mean_discs_lost()
        );
    };
    for (empties, (raw, search)) in &report.by_empties {
        row(empties.to_string(), raw, search);
    }
    row("all".to_owned(), &raw, &search);
}

fn score_utility(text: &str) -> Result<f32, String> {
    text.parse::<f32>()
        .ok()
        .filter(|w| w.is_finite() && (0.0..=10.0).contains(w))
        .ok_or_else(|| format!("`{text}`: use a score utility of 0 to 10"))
}
