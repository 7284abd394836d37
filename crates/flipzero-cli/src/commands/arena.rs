//! `flipzero arena`: a competition from a config, its table and its games.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use burn::tensor::Device;
use clap::Args;
use flipzero_arena::competition::{ArenaConfig, ArenaReport, run_arena};
use flipzero_arena::journal::Journal;
use flipzero_data::files::write_atomically;
use flipzero_data::saved_game::write_saved_games;
use indicatif::ProgressBar;

/// Arguments of `flipzero arena`.
#[derive(Debug, Args)]
pub(crate) struct ArenaArgs {
    /// The competition (see configs/arena/).
    #[arg(long)]
    config: PathBuf,
    /// Write every game here, one JSON object per line (replay one with
    /// `flipzero replay --games FILE --line N`). Until the competition ends, each game is
    /// appended to FILE.journal as it finishes; the same command, run again after an
    /// interruption, takes the journal's games instead of playing them again.
    #[arg(long)]
    games: Option<PathBuf>,
    /// Write the win-rate matrix (PNG and SVG) and the table (Markdown) into this folder.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Print the table as one JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &ArenaArgs) -> anyhow::Result<()> {
    let name = args.config.display().to_string();
    let text = std::fs::read_to_string(&args.config).with_context(|| format!("reading {name}"))?;
    let (config, rules) = ArenaConfig::parse(&text, &name)?;
    let journal = match &args.games {
        Some(path) => Some(Journal::open(&journal_path(path), &rules)?),
        None => None,
    };
    if let Some(journal) = journal.as_ref().filter(|j| j.resumed() > 0) {
        eprintln!(
            "resuming: {} finished games in the journal",
            journal.resumed()
        );
    }
    let bar = ProgressBar::no_length().with_message("games");
    let report = run_arena(
        &config,
        &rules,
        &Device::default(),
        journal.as_ref(),
        &|| bar.inc(1),
    )?;
    bar.finish_and_clear();
    if let Some(failure) = &report.journal_failure {
        eprintln!("warning: {failure}; an interrupted run would have played those games again");
    }
    if let Some(path) = &args.games {
        write_saved_games(path, &report.games)?;
        if let Some(journal) = journal {
            journal.remove()?;
        }
    }
    if let Some(folder) = &args.report {
        let names: Vec<String> = config
            .agents
            .iter()
            .map(|agent| agent.name.clone())
            .collect();
        write_report(folder, &names, &report)?;
    }
    print_report(&report, args.json)
}

/// Where the games of `--games FILE` are journalled while the competition runs.
fn journal_path(games: &std::path::Path) -> PathBuf {
    let mut name = games.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

/// The win-rate matrix as plots and the table as Markdown.
fn write_report(
    folder: &std::path::Path,
    agents: &[String],
    report: &ArenaReport,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    // Row agent's points and games against the column agent.
    let mut cells = vec![vec![(0.0f64, 0u32); agents.len()]; agents.len()];
    for pair in &report.pairs {
        let games = pair.wins + pair.draws + pair.losses;
        let points = f64::from(pair.wins) + 0.5 * f64::from(pair.draws);
        cells[pair.first][pair.second].0 += points;
        cells[pair.first][pair.second].1 += games;
        cells[pair.second][pair.first].0 += f64::from(games) - points;
        cells[pair.second][pair.first].1 += games;
    }
    let shares: Vec<Vec<Option<f64>>> = cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|&(points, games)| (games > 0).then(|| points / f64::from(games)))
                .collect()
        })
        .collect();
    for extension in ["png", "svg"] {
        flipzero_report::plots::matrix(
            &folder.join(format!("win-rates.{extension}")),
            "Score of the row agent against the column agent",
            agents,
            &shares,
        )?;
    }
    let mut page = String::from(
        "# Arena report\n\n| # | agent | games | points | Elo | 95% | BQ | s/move |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (place, s) in report.standings.iter().enumerate() {
        page.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.0} | +/-{:.0} | {} | {:.3} |\n",
            place + 1,
            s.name,
            s.games,
            s.points,
            s.rating.elo,
            s.rating.margin,
            s.brightwell.map_or(String::new(), |bq| format!("{bq:.1}")),
            s.thinking.seconds_per_decision()
        ));
    }
    page.push_str("\n![win rates](win-rates.png)\n");
    let path = folder.join("report.md");
    write_atomically(&path, page.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn print_report(report: &ArenaReport, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "standings": report.standings.iter().map(|s| serde_json::json!({
                "agent": s.name, "games": s.games, "points": s.points,
                "elo": s.rating.elo, "margin": s.rating.margin, "brightwell": s.brightwell,
                "seconds_per_decision": s.thinking.seconds_per_decision(),
                "decisions": s.thinking.decisions,
            })).collect::<Vec<_>>(),
            "games": report.games.len(),
            "resumed": report.resumed,
            "sprt": report.sprt.map(|d| format!("{d:?}")),
            "perfect": report.perfect.iter().map(|(agent, score)| serde_json::json!({
                "agent": agent, "score": score,
                "kept_outcome": score.kept_outcome_share(2),
                "kept_margin": score.kept_margin_share(),
                "discs_lost": score.mean_discs_lost(),
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<4} {:<36} {:>6} {:>7} {:>14} {:>10} {:>9}",
        "#", "agent", "games", "points", "Elo (95%)", "BQ", "s/move"
    )?;
    for (place, standing) in report.standings.iter().enumerate() {
        writeln!(
            out,
            "{:<4} {:<36} {:>6} {:>7.1} {:>7.0} +/-{:<4.0} {:>10} {:>9.3}",
            place + 1,
            standing.name,
            standing.games,
            standing.points,
            standing.rating.elo,
            standing.rating.margin,
            standing
                .brightwell
                .map_or(String::new(), |bq| format!("{bq:.1}")),
            standing.thinking.seconds_per_decision(),
        )?;
    }
    if let Some(decision) = report.sprt {
        writeln!(out, "SPRT: {decision:?}")?;
    }
    for (agent, score) in &report.perfect {
        writeln!(out, "{agent} {}", score.summary())?;
    }
    Ok(())
}
