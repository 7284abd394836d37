//! The report of a learning run: its metrics file and newest shards turned into plots and a
//! page.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use flipzero_data::files::{FileError, write_atomically};
use flipzero_rundir::{Record, RunDir};

use crate::ReportError;
use crate::plots::{LinePlot, Series, histogram, line_plot};

/// The page's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// `report.md`.
    Markdown,
    /// `report.html`.
    Html,
}

/// Games of the newest shards whose margins are plotted.
const NEWEST_GAMES: usize = 2000;

/// The Elo difference of a score, kept finite for 0% and 100% by counting half a game
/// either way out of `games`.
fn performance_elo(score: f64, games: usize) -> f64 {
    let half = 0.5 / games.max(1) as f64;
    flipzero_arena::elo::elo_difference(score.clamp(half, 1.0 - half))
}

/// Writes plots (PNG and SVG) and a page about the run in `dir` into `out`; returns the
/// page's path.
///
/// # Errors
/// An unreadable run, a run with no records, files that cannot be written.
pub fn run_report(dir: &Path, out: &Path, format: ReportFormat) -> Result<PathBuf, ReportError> {
    let run = RunDir::new(dir);
    let records = run.records()?;
    if records.is_empty() {
        return Err(ReportError::Empty(dir.display().to_string()));
    }
    std::fs::create_dir_all(out).map_err(|e| FileError::io(out, e))?;
    let minutes = |record: &Record| record.elapsed_seconds() / 60.0;
    // A checkpoint's age: the run time when training wrote it. Evaluations are plotted there,
    // so that one run later on an old checkpoint lands where the checkpoint was made.
    let made_at: BTreeMap<u64, f64> = records
        .iter()
        .filter_map(|record| match record {
            Record::Train { step, .. } => Some((*step, minutes(record))),
            _ => None,
        })
        .collect();

    let mut losses = [Vec::new(), Vec::new(), Vec::new()];
    let mut speeds = [Vec::new(), Vec::new()];
    let mut scores: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut elo_time: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut elo_steps: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let (mut games, mut positions, mut last_step) = (0u64, 0u64, 0u64);
    let mut quarantine_reasons: BTreeMap<&str, &str> = BTreeMap::new();
    for record in &records {
        match record {
            Record::Selfplay {
                games: played,
                positions: samples,
                positions_per_second,
                ..
            } => {
                games += played;
                positions += samples;
                speeds[0].push((minutes(record), *positions_per_second));
            }
            Record::Train {
                step,
                policy_loss,
                wdl_loss,
                score_loss,
                samples_per_second,
                ..
            } => {
                let step_value = *step as f64;
                losses[0].push((step_value, *policy_loss));
                losses[1].push((step_value, *wdl_loss));
                losses[2].push((step_value, *score_loss));
                speeds[1].push((minutes(record), *samples_per_second));
                last_step = *step;
            }
            Record::Evaluate {
                step,
                opponent,
                games: played,
                score,
                ..
            } => {
                let at = made_at.get(step).copied().unwrap_or(0.0);
                scores
                    .entry(opponent.clone())
                    .or_default()
                    .push((at, score * 100.0));
                let elo = performance_elo(*score, *played);
                elo_time
                    .entry(opponent.clone())
                    .or_default()
                    .push((at, elo));
                elo_steps
                    .entry(opponent.clone())
                    .or_default()
                    .push((*step as f64, elo));
            }
            Record::Quarantine { shard, reason, .. } => {
                quarantine_reasons.insert(shard.as_str(), reason.as_str());
            }
        }
    }
    let series = |map: &BTreeMap<String, Vec<(f64, f64)>>| -> Vec<Series> {
        map.iter()
            .map(|(label, points)| {
                let mut points = points.clone();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    label: format!("vs {label}"),
                    points,
                }
            })
            .collect()
    };
    let plots: Vec<(&str, &str, LinePlot)> = vec![
        (
            "losses",
            "Training losses",
            LinePlot {
                title: "Training losses (mean over each stage)".into(),
                x_label: "training step".into(),
                y_label: "loss".into(),
                series: ["policy", "win/draw/loss", "score"]
                    .iter()
                    .zip(losses)
                    .map(|(label, points)| Series {
                        label: (*label).to_owned(),
                        points,
                    })
                    .collect(),
                y_range: None,
            },
        ),
        (
            "scores",
            "Match scores",
            LinePlot {
                title: "Score of the network against each opponent".into(),
                x_label: "run time (minutes)".into(),
                y_label: "score (%)".into(),
                series: series(&scores),
                y_range: Some((0.0, 100.0)),
            },
        ),
        (
            "elo-time",
            "Elo against training time",
            LinePlot {
                title: "Performance Elo against each opponent".into(),
                x_label: "run time (minutes)".into(),
                y_label: "Elo above the opponent".into(),
                series: series(&elo_time),
                y_range: None,
            },
        ),
        (
            "elo-steps",
            "Elo against training steps",
            LinePlot {
                title: "Performance Elo against each opponent".into(),
                x_label: "training step".into(),
                y_label: "Elo above the opponent".into(),
                series: series(&elo_steps),
                y_range: None,
            },
        ),
        (
            "speed",
            "Speed",
            LinePlot {
                title: "Self-play and training speed".into(),
                x_label: "run time (minutes)".into(),
                y_label: "per second".into(),
                series: vec![
                    Series {
                        label: "self-play positions".into(),
                        points: std::mem::take(&mut speeds[0]),
                    },
                    Series {
                        label: "training samples".into(),
                        points: std::mem::take(&mut speeds[1]),
                    },
                ],
                y_range: None,
            },
        ),
    ];
    let mut figures = Vec::new();
    for (name, heading, plot) in &plots {
        if plot.series.iter().all(|s| s.points.is_empty()) {
            continue;
        }
        for extension in ["png", "svg"] {
            line_plot(&out.join(format!("{name}.{extension}")), plot)?;
        }
        figures.push((*heading, format!("{name}.png")));
    }
    let margins = newest_margins(&run)?;
    if !margins.is_empty() {
        for extension in ["png", "svg"] {
            histogram(
                &out.join(format!("margins.{extension}")),
                &format!(
                    "Final margin of the first player, newest {} games",
                    margins.len()
                ),
                "discs (first player minus second)",
                &margins,
                2.0,
            )?;
        }
        figures.push(("Self-play margins", "margins.png".to_owned()));
    }

    let mut summary = vec![
        ("run".to_owned(), dir.display().to_string()),
        ("self-play games".to_owned(), games.to_string()),
        ("positions".to_owned(), positions.to_string()),
        ("training step".to_owned(), last_step.to_string()),
        (
            "run time at the newest checkpoint".to_owned(),
            format!(
                "{:.1} minutes",
                made_at.values().last().copied().unwrap_or(0.0)
            ),
        ),
    ];
    for (opponent, points) in &scores {
        if let Some((_, score)) = points.last() {
            summary.push((format!("last score vs {opponent}"), format!("{score:.1}%")));
        }
    }
    // Shards training moved out of the window, each with the reason it recorded.
    for shard in run.quarantined_shards()? {
        let reason = quarantine_reasons
            .get(shard.as_str())
            .copied()
            .unwrap_or("no reason recorded");
        summary.push((
            format!("quarantined {shard}"),
            format!("{reason} (in {})", run.quarantine().display()),
        ));
    }
    let page = match format {
        ReportFormat::Markdown => markdown(&summary, &figures),
        ReportFormat::Html => html(&summary, &figures),
    };
    let path = out.join(match format {
        ReportFormat::Markdown => "report.md",
        ReportFormat::Html => "report.html",
    });
    write_atomically(&path, page.as_bytes()).map_err(|e| FileError::io(&path, e))?;
    Ok(path)
}

/// The first player's final margin in the newest games: each shard's first sample carries
/// the score for the player to move at the start.
fn newest_margins(run: &RunDir) -> Result<Vec<f64>, ReportError> {
    let folder = run.shards();
    let mut names: Vec<PathBuf> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == flipzero_data::shard::SHARD_EXTENSION)
            })
            .collect(),
        Err(_) => return Ok(Vec::new()),
    };
    names.sort();
    let mut margins = Vec::new();
    for path in names.iter().rev() {
        let (header, samples) = flipzero_data::read_shard(path)?;
        // Shards of several games do not say where each game starts: only one-game shards.
        if header.games == 1
            && let Some(first) = samples.first()
        {
            margins.push(f64::from(first.score));
        }
        if margins.len() >= NEWEST_GAMES {
            break;
        }
    }
    Ok(margins)
}

fn markdown(summary: &[(String, String)], figures: &[(&str, String)]) -> String {
    let mut page = String::from("# Run report\n\n| | |\n|---|---|\n");
    for (key, value) in summary {
        let _ = writeln!(page, "| {key} | {value} |");
    }
    for (heading, file) in figures {
        let _ = write!(page, "\n## {heading}\n\n![{heading}]({file})\n");
    }
    page
}

fn html(summary: &[(String, String)], figures: &[(&str, String)]) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut page = String::from(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Run report</title></head>\
         <body>\n<h1>Run report</h1>\n<table>\n",
    );
    for (key, value) in summary {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td></tr>",
            escape(key),
            escape(value)
        );
    }
    page.push_str("</table>\n");
    for (heading, file) in figures {
        let _ = writeln!(
            page,
            "<h2>{}</h2>\n<img src=\"{}\" alt=\"{}\">",
            escape(heading),
            escape(file),
            escape(heading)
        );
    }
    page.push_str("</body></html>\n");
    page
}
