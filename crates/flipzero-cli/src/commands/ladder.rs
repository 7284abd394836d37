//! `flipzero ladder`: a checkpoint rated against the classical engine at depths 1 to N.

use std::path::PathBuf;

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_arena::journal::Journal;
use flipzero_arena::ladder::{LadderJournal, LadderReport, ladder_anchored, rung, rung_name};
use flipzero_arena::perfect::check_within_reach;
use flipzero_arena::{AgentFactory, AgentSpec, AnySuite, MctsSpec, OpeningFilter};
use flipzero_engine::WeightsFile;

/// Arguments of `flipzero ladder`.
#[derive(Debug, Args)]
pub(crate) struct LadderArgs {
    /// The network checkpoint to rate.
    #[arg(long)]
    checkpoint: PathBuf,
    /// The deepest rung of the engine ladder.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=12))]
    depth: u32,
    /// Openings per match, each played with both colours.
    #[arg(long, default_value_t = 20)]
    openings: usize,
    /// Random plies from the start that make each opening.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Simulations per decision of the checkpoint's MCTS.
    #[arg(long, default_value_t = 100)]
    simulations: u32,
    /// Put perfect play (the exact solver from the first decision) on top of the ladder: it
    /// plays the deepest rung and the checkpoint (rules the solver covers only).
    #[arg(long)]
    perfect: bool,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Append each game to FILE as it finishes; the same command, run again after an
    /// interruption, takes the games it finds there instead of playing them again.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
}

pub(crate) fn run(args: &LadderArgs) -> anyhow::Result<()> {
    let device = Device::default();
    let (loaded, rules) = super::load_checkpoint(&args.checkpoint, &device)?;
    let weights = WeightsFile::embedded().weights_for(&rules, "embedded weights")?;
    let spec = AgentSpec::Mcts(MctsSpec::with_simulations(args.simulations));
    let candidate =
        AgentFactory::with_network(&spec, &rules, weights.clone(), Some((loaded.net, device)));
    let mut rungs: Vec<(String, AgentFactory)> = (1..=args.depth)
        .map(|depth| {
            (
                rung_name(depth),
                AgentFactory::with_network(&rung(depth), &rules, weights.clone(), None),
            )
        })
        .collect();
    if args.perfect {
        let perfect = AgentFactory::new(&AgentSpec::Perfect, &rules, &Device::default())
            .context("--perfect")?;
        rungs.push(("perfect".to_owned(), perfect));
    }
    let journal = match &args.journal {
        Some(path) => Some(Journal::open(path, &rules)?),
        None => None,
    };
    // The candidate's name in the journal's keys: games of another checkpoint or search are
    // never taken for its own.
    let candidate_ids = [format!(
        "{} (step {}), {} simulations",
        args.checkpoint.display(),
        loaded.meta.step,
        args.simulations
    )];
    let kept = journal.as_ref().map(|journal| LadderJournal {
        journal,
        candidate_ids: &candidate_ids,
    });
    let plies = args.opening_plies..=args.opening_plies;
    let openings =
        AnySuite::draw(&rules, args.openings, plies, OpeningFilter::All, args.seed)?.positions();
    if args.perfect {
        check_within_reach(&rules, &openings).context("--perfect")?;
    }
    let candidates = std::slice::from_ref(&candidate);
    let report = ladder_anchored(
        &rules,
        candidates,
        &rungs,
        0,
        &openings,
        kept.as_ref(),
        &|_| {},
    )?;
    if report.resumed > 0 {
        eprintln!("resumed: {} games taken from the journal", report.resumed);
    }
    if let Some(failure) = &report.journal_failure {
        eprintln!("the journal could not be written ({failure}): a rerun plays those games again");
    }
    print_report(&report, loaded.meta.step, args.json);
    Ok(())
}

fn print_report(report: &LadderReport, step: u64, json: bool) {
    let candidate = report.candidates[0];
    if json {
        let value = serde_json::json!({
            "step": step,
            "elo": candidate.elo,
            "margin": candidate.margin,
            "rungs": report.rungs.iter().map(|(name, rating)| serde_json::json!({
                "rung": name, "elo": rating.elo, "margin": rating.margin,
            })).collect::<Vec<_>>(),
            "matches": report.matches.iter().map(|m| serde_json::json!({
                "first": m.first, "second": m.second, "games": m.result.games.len(),
                "wins": m.result.wins(), "draws": m.result.draws(), "losses": m.result.losses(),
                "score": m.result.score(),
            })).collect::<Vec<_>>(),
        });
        println!("{value}");
        return;
    }
    println!("{:<22} {:>8} {:>8}", "match", "score", "games");
    for found in &report.matches {
        println!(
            "{:<22} {:>7.1}% {:>8}",
            format!("{} vs {}", found.first, found.second),
            found.result.score() * 100.0,
            found.result.games.len()
        );
    }
    println!();
    for (name, rating) in &report.rungs {
        println!("{name:<14} {:>7.0} +/- {:.0}", rating.elo, rating.margin);
    }
    println!(
        "checkpoint step {step}: {:.0} +/- {:.0} Elo on the ladder (depth 1 = 0)",
        candidate.elo, candidate.margin
    );
}
