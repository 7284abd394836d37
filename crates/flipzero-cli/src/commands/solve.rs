//! `flipzero solve`: exact scores of the positions of an OBF file.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use flipzero_engine::{Goal, obf, solve_for, solve_one_best, solve_outcome};

/// Arguments of `flipzero solve`.
#[derive(Debug, Args)]
pub(crate) struct SolveArgs {
    /// An OBF file: one position per line, optionally followed by `; MOVE:SCORE` pairs.
    file: PathBuf,
    /// Solve for fewer discs (anti-Othello): scores are the negated margin, so that higher is
    /// still better for the side to move.
    #[arg(long)]
    fewest_discs: bool,
    /// Prove one best move only (faster; the usual way engines are timed) instead of every
    /// best move.
    #[arg(long, conflicts_with = "outcome")]
    one_best: bool,
    /// Prove only whether the side to move wins, draws or loses (score 1, 0 or -1), with one
    /// move that does: much faster than the exact score.
    #[arg(long)]
    outcome: bool,
    /// Print one JSON object per position.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let lines = obf::parse(&text).with_context(|| format!("{}", args.file.display()))?;
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "{:>4} {:>6} {:>6} {:<12} {:>12} {:>9} {:>12}",
            "line", "empty", "score", "best", "nodes", "seconds", "nodes/s"
        )?;
    }
    let (mut total_nodes, mut total_seconds) = (0u64, 0f64);
    for line in &lines {
        let started = Instant::now();
        let goal = Goal {
            fewest_discs: args.fewest_discs,
            ..Goal::default()
        };
        let solution = if args.outcome {
            solve_outcome(&line.position, goal)
        } else if args.one_best {
            solve_one_best(&line.position, goal)
        } else {
            solve_for(&line.position, goal)
        };
        let seconds = started.elapsed().as_secs_f64();
        total_nodes += solution.nodes;
        total_seconds += seconds;
        let geometry = line.position.geometry();
        let best: Vec<String> = solution
            .best_moves
            .iter()
            .map(|&square| geometry.square_name(square).to_string())
            .collect();
        let published = line.scores.first().map(|&(_, score)| score);
        // Published scores are most-discs margins: an outcome is checked against their sign,
        // a fewest-discs solve against nothing.
        let disagrees = match published {
            Some(_) if args.fewest_discs => false,
            Some(score) if args.outcome => score.signum() != solution.score,
            Some(score) => score != solution.score,
            None => false,
        };
        if args.json {
            let record = serde_json::json!({
                "line": line.line,
                "empties": line.position.empty().count_ones(),
                "score": solution.score,
                "best_moves": best,
                "nodes": solution.nodes,
                "seconds": seconds,
                "published_score": published,
            });
            writeln!(out, "{record}")?;
        } else {
            let mark = match published {
                Some(score) if disagrees => format!("  (published {score:+})"),
                _ => String::new(),
            };
            writeln!(
                out,
                "{:>4} {:>6} {:>+6} {:<12} {:>12} {:>9.3} {:>12.0}{mark}",
                line.line,
                line.position.empty().count_ones(),
                solution.score,
                best.join(","),
                solution.nodes,
                seconds,
                solution.nodes as f64 / seconds.max(1e-9)
            )?;
        }
        out.flush()?;
    }
    if !args.json {
        writeln!(
            out,
            "total: {} positions, {total_nodes} nodes, {total_seconds:.3} s, {:.0} nodes/s",
            lines.len(),
            total_nodes as f64 / total_seconds.max(1e-9)
        )?;
    }
    Ok(())
}
