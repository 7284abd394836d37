//! The variant difficulty study: one learning run per preset under one equal budget, then
//! per preset the first player's results under strong play, the draw rate, the game length,
//! the branching factor, how many skill levels the engine ladder tells apart, and the Elo the
//! agent gained per training hour; one table and bar charts comparing them.
//!
//! A study directory holds `runs/<preset>/` (ordinary run directories: a stopped study
//! resumes them), `results/<preset>.json` (a preset measured once is not measured again) and
//! the report, `study.md` with its plots.

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use flipzero_arena::ladder::{LadderReport, ladder, rung, rung_name};
use flipzero_arena::{
    AgentFactory, AgentSpec, EngineAgent, MatchResult, MctsSpec, balanced_opening_lines, play_game,
    random_openings, seat_to_move,
};
use flipzero_core::files::{FileError, write_atomically};
use flipzero_core::{Bitboard, Game, Preset, Rules, with_width};
use flipzero_engine::{SearchConfig, WeightsFile};
use flipzero_run::{Progress, Run, RunConfig, RunDir, RunError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use flipzero_report::ReportError;
use flipzero_report::plots::{BarChart, bar_chart};

/// A study config (`configs/study/*.toml`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    /// Preset names; every preset when empty.
    #[serde(default)]
    pub presets: Vec<String>,
    /// Board side for presets that allow it; the others keep their own.
    pub size: Option<u8>,
    /// Seeds the runs, the strong-play games and the openings.
    pub seed: u64,
    /// The equal budget of every preset's run.
    pub budget: BudgetSection,
    /// The run config every preset shares: its `network`, `selfplay`, `train` sections (as
    /// in `configs/runs/`); `variant`, `size`, `seed` and the budget are set per preset.
    pub run: toml::Table,
    /// How each preset is measured.
    pub measure: MeasureSection,
}

/// The training budget per preset (the first reached stops a run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// Loop iterations (self-play games then training steps, as the run config says).
    pub iterations: Option<u64>,
    /// Run time in minutes.
    pub minutes: Option<f64>,
}

/// The measurements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureSection {
    /// Depth of the classical engine whose games against itself stand for strong play.
    pub strong_depth: u32,
    /// Those games.
    pub strong_games: usize,
    /// The engine picks at random among moves within this many centi-discs of the best, so
    /// the games differ.
    pub strong_margin: i32,
    /// The ladder's deepest rung (depths 1 to this).
    pub ladder_depth: u32,
    /// Openings per ladder match, each played with both colours.
    pub ladder_openings: usize,
    /// Random plies that make each opening.
    pub opening_plies: u32,
    /// Keep only openings the classical engine (depth 6) scores within this many discs of
    /// even (docs/RULES.md section 5.2); random plies alone can leave a game decided (under sacrifice a
    /// player can give away its last discs).
    #[serde(default)]
    pub balanced_margin: Option<f64>,
    /// MCTS simulations per decision of the trained agent on the ladder.
    pub simulations: u32,
}

/// What the study found for one preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresetResult {
    /// The preset.
    pub preset: String,
    /// Board rows and columns studied.
    pub board: (u8, u8),
    /// The budget it was measured under (a changed budget measures again).
    pub budget: BudgetSection,
    /// How it was measured (changed settings measure again).
    pub measure: MeasureSection,
    /// The run config it was trained with (a changed one measures again).
    pub run_config: String,
    /// The learning run.
    pub training: TrainingSummary,
    /// The engine's games against itself.
    pub strong_play: StrongPlay,
    /// The engine ladder and the agent on it.
    pub ladder: LadderSummary,
}

/// The learning run of a preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingSummary {
    /// Self-play games.
    pub games: u64,
    /// Training steps.
    pub steps: u64,
    /// Run time (self-play and training), hours.
    pub hours: f64,
}

/// Strong play: the engine at one depth against itself from the start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrongPlay {
    /// Engine depth.
    pub depth: u32,
    /// Games.
    pub games: usize,
    /// Share of games won by the player who makes the first decision.
    pub first_wins: f64,
    /// Share drawn.
    pub draws: f64,
    /// Share lost by the first player.
    pub first_losses: f64,
    /// Mean decisions per game.
    pub mean_length: f64,
    /// Mean legal decisions per decision.
    pub mean_branching: f64,
}

/// The ladder of engine depths, and the agent before and after training on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderSummary {
    /// Openings each match was played from (balanced ones can be fewer than asked).
    pub openings: usize,
    /// Elo of each depth, depth 1 at 0, with 95% margins (`None`: unbounded).
    pub rungs: Vec<(u32, f64, Option<f64>)>,
    /// Elo of the deepest rung minus depth 1.
    pub span: f64,
    /// Skill levels told apart: 1 plus the neighbouring rungs whose direct match score is
    /// above 50% with 95% confidence.
    pub levels: u32,
    /// The untrained network's Elo (MCTS, step 0) and margin.
    pub initial: (f64, Option<f64>),
    /// The trained network's Elo (MCTS, last checkpoint) and margin.
    pub trained: (f64, Option<f64>),
    /// (trained - initial) / training hours.
    pub elo_per_hour: f64,
}

/// A study that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A file of the study.
    #[error(transparent)]
    File(#[from] FileError),
    /// A preset's run.
    #[error("{preset}: {source}")]
    Run {
        /// The preset.
        preset: String,
        /// What stopped its run.
        source: RunError,
    },
    /// A measurement.
    #[error("{preset}: {reason}")]
    Measure {
        /// The preset.
        preset: String,
        /// What failed.
        reason: String,
    },
    /// The report.
    #[error(transparent)]
    Report(#[from] ReportError),
}

impl StudyConfig {
    /// Reads and checks a study config.
    ///
    /// # Errors
    /// An unreadable file, bad TOML, an unknown key or preset, a run config that does not
    /// check (named by preset and key), no budget.
    pub fn load(path: &Path) -> Result<Self, FileError> {
        let invalid = |reason: String| FileError::invalid(path, reason);
        let text = std::fs::read_to_string(path).map_err(|e| FileError::io(path, e))?;
        let config: StudyConfig = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if config.budget.iterations.is_none() && config.budget.minutes.is_none() {
            return Err(invalid(
                "budget: give iterations or minutes (or both)".to_owned(),
            ));
        }
        let measure = &config.measure;
        if !(1..=12).contains(&measure.strong_depth) || !(2..=12).contains(&measure.ladder_depth) {
            return Err(invalid(
                "measure: strong_depth 1 to 12, ladder_depth 2 to 12".to_owned(),
            ));
        }
        if measure.strong_games == 0 || measure.ladder_openings == 0 || measure.simulations == 0 {
            return Err(invalid(
                "measure: strong_games, ladder_openings and simulations must be positive"
                    .to_owned(),
            ));
        }
        for preset in config.preset_names() {
            let rules = config.rules(&preset).map_err(invalid)?;
            RunConfig::parse(
                &config.run_config(&preset, &rules)?,
                &format!("run of {preset}"),
            )
            .map_err(|e| invalid(e.to_string()))?;
        }
        Ok(config)
    }

    /// The presets studied, in order.
    pub fn preset_names(&self) -> Vec<String> {
        if self.presets.is_empty() {
            Preset::ALL.iter().map(|p| p.name().to_owned()).collect()
        } else {
            self.presets.clone()
        }
    }

    /// A preset's rules at the study's size, or at its own when it cannot take that size.
    fn rules(&self, preset: &str) -> Result<Rules, String> {
        Rules::load(preset, self.size)
            .or_else(|_| Rules::load(preset, None))
            .map_err(|e| format!("preset `{preset}`: {e}"))
    }

    /// The run config of one preset, as TOML.
    fn run_config(&self, preset: &str, rules: &Rules) -> Result<String, FileError> {
        let mut table = self.run.clone();
        table.insert("variant".into(), preset.into());
        table.insert("size".into(), i64::from(rules.rows()).into());
        let seed = i64::try_from(self.seed)
            .map_err(|_| FileError::invalid(Path::new(preset), "seed: at most 2^63 - 1"))?;
        table.insert("seed".into(), seed.into());
        let mut stop = toml::Table::new();
        if let Some(iterations) = self.budget.iterations {
            stop.insert("iterations".into(), (iterations as i64).into());
        }
        if let Some(minutes) = self.budget.minutes {
            stop.insert("minutes".into(), minutes.into());
        }
        table.insert("loop".into(), stop.into());
        // The study measures at the end; no evaluation matches during the budget.
        let evaluate = toml::toml! {
            every_iterations = 0
            openings = 0
            opening_plies = 0
            simulations = 1
            solve_empties = 0
            opponents = []
        };
        table.insert("evaluate".into(), evaluate.into());
        toml::to_string(&table).map_err(|e| FileError::invalid(Path::new(preset), e.to_string()))
    }
}

fn finite(margin: f64) -> Option<f64> {
    margin.is_finite().then_some(margin)
}

/// Runs (or resumes) a study in `dir`: every preset's run, its measurements, the report.
/// `log` hears one line per phase.
///
/// # Errors
/// A run or a measurement that fails, or files that cannot be written.
pub fn run_study(
    config: &StudyConfig,
    dir: &Path,
    device: &Device,
    progress: &dyn Progress,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<PresetResult>, StudyError> {
    let results_dir = dir.join("results");
    let mut results = Vec::new();
    for preset in config.preset_names() {
        let saved = results_dir.join(format!("{preset}.json"));
        let rules = config
            .rules(&preset)
            .map_err(|reason| StudyError::Measure {
                preset: preset.clone(),
                reason,
            })?;
        let run_config = config.run_config(&preset, &rules)?;
        if let Some(result) = std::fs::read(&saved)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<PresetResult>(&bytes).ok())
            .filter(|result| {
                result.budget == config.budget
                    && result.measure == config.measure
                    && result.run_config == run_config
            })
        {
            log(&format!("{preset}: measured before ({})", saved.display()));
            results.push(result);
            continue;
        }
        let result = study_preset(config, &preset, dir, device, progress, log)?;
        let json = serde_json::to_vec_pretty(&result)
            .map_err(|e| FileError::invalid(&saved, e.to_string()))?;
        std::fs::create_dir_all(&results_dir).map_err(|e| FileError::io(&results_dir, e))?;
        write_atomically(&saved, &json).map_err(|e| FileError::io(&saved, e))?;
        results.push(result);
    }
    write_report(config, &results, dir)?;
    Ok(results)
}

fn study_preset(
    config: &StudyConfig,
    preset: &str,
    dir: &Path,
    device: &Device,
    progress: &dyn Progress,
    log: &mut dyn FnMut(&str),
) -> Result<PresetResult, StudyError> {
    let failed = |reason: String| StudyError::Measure {
        preset: preset.to_owned(),
        reason,
    };
    let rules = config.rules(preset).map_err(failed)?;
    let run_failed = |source: RunError| StudyError::Run {
        preset: preset.to_owned(),
        source,
    };
    // The learning run.
    let config_path = dir.join("configs").join(format!("{preset}.toml"));
    std::fs::create_dir_all(dir.join("configs")).map_err(|e| FileError::io(dir, e))?;
    write_atomically(&config_path, config.run_config(preset, &rules)?.as_bytes())
        .map_err(|e| FileError::io(&config_path, e))?;
    log(&format!(
        "{preset} ({}x{}): training",
        rules.rows(),
        rules.cols()
    ));
    let run_dir = RunDir::new(dir.join("runs").join(preset));
    let run = Run::start(run_dir.clone(), &config_path, device.clone()).map_err(run_failed)?;
    run.run_loop(progress, |_, _| {}).map_err(run_failed)?;
    let training = training_summary(&run_dir).map_err(run_failed)?;

    log(&format!("{preset}: strong play"));
    let strong_play = with_width!(rules.square_count(), W => {
        strong_play::<W>(&rules, &config.measure, config.seed)
    })
    .map_err(failed)?;

    log(&format!("{preset}: engine ladder"));
    let steps = run_dir.checkpoint_steps()?;
    let (first, last) = match (steps.first(), steps.last()) {
        (Some(&first), Some(&last)) => (first, last),
        _ => return Err(failed("the run has no checkpoint".to_owned())),
    };
    let spec = AgentSpec::Mcts(MctsSpec {
        simulations: config.measure.simulations,
        ..MctsSpec::default()
    });
    let weights = WeightsFile::embedded()
        .weights_for(&rules, "embedded weights")
        .map_err(|e| failed(e.to_string()))?;
    let agent = |step: u64| -> Result<AgentFactory, StudyError> {
        let path = run_dir.checkpoint_path(step);
        let loaded = flipzero_nn::checkpoint::load(&path, device)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        Ok(AgentFactory::with_network(
            &spec,
            &rules,
            weights.clone(),
            Some((loaded.net, device.clone())),
        ))
    };
    let candidates = [agent(first)?, agent(last)?];
    let rungs: Vec<(String, AgentFactory)> = (1..=config.measure.ladder_depth)
        .map(|depth| {
            let factory = AgentFactory::with_network(&rung(depth), &rules, weights.clone(), None);
            (rung_name(depth), factory)
        })
        .collect();
    let report = with_width!(rules.square_count(), W => {
        let (count, plies) = (config.measure.ladder_openings, config.measure.opening_plies);
        let openings = match config.measure.balanced_margin {
            Some(margin) => {
                flipzero_arena::positions(&balanced_opening_lines::<W>(
                    &rules,
                    &weights,
                    count,
                    plies..=plies,
                    6,
                    margin,
                    config.seed,
                ))
            }
            None => random_openings::<W>(&rules, count, plies, config.seed),
        };
        if openings.is_empty() {
            return Err(failed(format!(
                "no opening of {plies} plies is within the balanced margin: raise \
                 measure.balanced_margin"
            )));
        }
        ladder::<W>(&rules, &candidates, &rungs, &openings, &|_| {})
            .map(|report| (report, openings.len()))
            .map_err(|e| failed(e.to_string()))
    })?;
    let ladder = ladder_summary(&report.0, report.1, training.hours);
    log(&format!(
        "{preset}: span {:.0} Elo, {} levels, agent {:.0} -> {:.0} Elo",
        ladder.span, ladder.levels, ladder.initial.0, ladder.trained.0
    ));
    Ok(PresetResult {
        preset: preset.to_owned(),
        board: (rules.rows(), rules.cols()),
        budget: config.budget.clone(),
        measure: config.measure.clone(),
        run_config: config.run_config(preset, &rules)?,
        training,
        strong_play,
        ladder,
    })
}

fn training_summary(dir: &RunDir) -> Result<TrainingSummary, RunError> {
    let records = dir.records()?;
    let mut summary = TrainingSummary {
        games: 0,
        steps: 0,
        hours: 0.0,
    };
    for record in &records {
        match record {
            flipzero_run::Record::Selfplay { games, .. } => summary.games += games,
            flipzero_run::Record::Train { steps, .. } => summary.steps += steps,
            flipzero_run::Record::Evaluate { .. } | flipzero_run::Record::Quarantine { .. } => {}
        }
        summary.hours = summary.hours.max(record.elapsed_seconds() / 3600.0);
    }
    Ok(summary)
}

/// The engine against itself from the start (a fresh start per game where the rules draw
/// one), counted for the player who makes the first decision.
fn strong_play<W: Bitboard>(
    rules: &Rules,
    measure: &MeasureSection,
    seed: u64,
) -> Result<StrongPlay, String> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded weights")
        .map_err(|e| e.to_string())?;
    let games: Vec<(f64, usize, usize)> = (0..measure.strong_games as u64)
        .into_par_iter()
        .map(|game| {
            let start =
                Game::<W>::try_start(rules, seed.wrapping_add(game)).map_err(|e| e.to_string())?;
            let engine = |offset: u64| {
                EngineAgent::new(
                    rules,
                    weights.clone(),
                    SearchConfig {
                        depth: measure.strong_depth,
                        random_margin: measure.strong_margin,
                        seed: seed.wrapping_mul(7919).wrapping_add(2 * game + offset),
                        ..SearchConfig::default()
                    },
                )
            };
            let (mut first, mut second) = (engine(0), engine(1));
            let result = play_game(
                rules,
                &start,
                [&mut first, &mut second],
                seat_to_move(&start),
                None,
            );
            // The branching factor along the game, replayed: players' decisions only (not the
            // chance event after equal komi bids).
            let mut position = start;
            let (mut decided, mut legal) = (0, 0);
            for &decision in &result.decisions {
                if !position.awaits_chance() {
                    decided += 1;
                    legal += position.legal_decisions(rules).len();
                }
                position = position.play_unchecked(rules, decision);
            }
            Ok((result.points, decided, legal))
        })
        .collect::<Result<_, String>>()?;
    let count = games.len() as f64;
    let share = |points: f64| games.iter().filter(|g| g.0 == points).count() as f64 / count;
    let decisions: usize = games.iter().map(|g| g.1).sum();
    let legal: usize = games.iter().map(|g| g.2).sum();
    Ok(StrongPlay {
        depth: measure.strong_depth,
        games: games.len(),
        first_wins: share(1.0),
        draws: share(0.5),
        first_losses: share(0.0),
        mean_length: decisions as f64 / count,
        mean_branching: legal as f64 / decisions.max(1) as f64,
    })
}

/// Whether the first agent of a paired match scored above 50% with 95% confidence (normal
/// approximation, with one virtual draw so that a few games all won are not certainty).
fn clearly_stronger(result: &MatchResult) -> bool {
    let points: Vec<f64> = result.games.iter().map(|g| g.points).chain([0.5]).collect();
    let games = points.len() as f64;
    let mean = points.iter().sum::<f64>() / games;
    let variance = points.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (games - 1.0);
    mean - 1.96 * (variance / games).sqrt() > 0.5
}

fn ladder_summary(report: &LadderReport, openings: usize, hours: f64) -> LadderSummary {
    let rungs: Vec<(u32, f64, Option<f64>)> = report
        .rungs
        .iter()
        .zip(1..)
        .map(|((_, rating), depth)| (depth, rating.elo, finite(rating.margin)))
        .collect();
    let span = rungs.last().map_or(0.0, |r| r.1) - rungs.first().map_or(0.0, |r| r.1);
    let steps = report
        .matches
        .iter()
        .filter(|m| m.first.starts_with("depth") && clearly_stronger(&m.result))
        .count();
    let [initial, trained] = [report.candidates[0], report.candidates[1]];
    LadderSummary {
        openings,
        rungs,
        span,
        levels: 1 + steps as u32,
        initial: (initial.elo, finite(initial.margin)),
        trained: (trained.elo, finite(trained.margin)),
        elo_per_hour: if hours > 0.0 {
            (trained.elo - initial.elo) / hours
        } else {
            0.0
        },
    }
}

fn percent(share: f64) -> String {
    format!("{:.0}", share * 100.0)
}

fn elo(value: (f64, Option<f64>)) -> String {
    match value.1 {
        Some(margin) => format!("{:.0} ± {:.0}", value.0, margin),
        None => format!("{:.0} (unbounded)", value.0),
    }
}

/// The comparison table (Markdown).
pub fn table(results: &[PresetResult]) -> String {
    let mut out = String::from(
        "| preset | board | first player W/D/L % | draws % | length | branching | ladder span (Elo) | levels | agent Elo: untrained → trained | Elo per training hour | games | steps | hours |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let s = &r.strong_play;
        let l = &r.ladder;
        out.push_str(&format!(
            "| {} | {}x{} | {}/{}/{} | {} | {:.1} | {:.1} | {:.0} | {} | {} → {} | {:.0} | {} | {} | {:.3} |\n",
            r.preset,
            r.board.0,
            r.board.1,
            percent(s.first_wins),
            percent(s.draws),
            percent(s.first_losses),
            percent(s.draws),
            s.mean_length,
            s.mean_branching,
            l.span,
            l.levels,
            elo(l.initial),
            elo(l.trained),
            l.elo_per_hour,
            r.training.games,
            r.training.steps,
            r.training.hours,
        ));
    }
    out
}

/// The plots and the page.
fn write_report(
    config: &StudyConfig,
    results: &[PresetResult],
    dir: &Path,
) -> Result<PathBuf, StudyError> {
    let names: Vec<String> = results.iter().map(|r| r.preset.clone()).collect();
    let charts = [
        (
            "first-player",
            "First player's score under strong play (engine against itself)",
            "score % (draws half)",
            results
                .iter()
                .map(|r| {
                    let s = &r.strong_play;
                    ((s.first_wins + s.draws / 2.0) * 100.0, None)
                })
                .collect::<Vec<_>>(),
        ),
        (
            "ladder-span",
            "Elo span of the engine ladder (deepest rung minus depth 1)",
            "Elo",
            results
                .iter()
                .map(|r| (r.ladder.span, r.ladder.rungs.last().and_then(|x| x.2)))
                .collect(),
        ),
        (
            "elo-per-hour",
            "Strength gained per training hour (ladder Elo)",
            "Elo per hour",
            results
                .iter()
                .map(|r| (r.ladder.elo_per_hour, None))
                .collect(),
        ),
        (
            "branching",
            "Mean branching factor under strong play",
            "legal decisions per decision",
            results
                .iter()
                .map(|r| (r.strong_play.mean_branching, None))
                .collect(),
        ),
        (
            "game-length",
            "Mean game length under strong play",
            "decisions per game",
            results
                .iter()
                .map(|r| (r.strong_play.mean_length, None))
                .collect(),
        ),
    ];
    let mut page = String::from("# Variant difficulty study\n\n");
    page.push_str(&format!(
        "Budget per preset: {}. Strong play: the classical engine at depth {} against itself, \
         {} games, random choice within {} centi-discs. Ladder: engine depths 1 to {}, {} \
         openings of {} random plies{}, each with both colours; the agent is MCTS with {} \
         simulations.\n\n",
        budget_text(&config.budget),
        config.measure.strong_depth,
        config.measure.strong_games,
        config.measure.strong_margin,
        config.measure.ladder_depth,
        config.measure.ladder_openings,
        config.measure.opening_plies,
        config
            .measure
            .balanced_margin
            .map_or(String::new(), |margin| format!(
                " (kept when the engine at depth 6 scores them within {margin} discs of even)"
            )),
        config.measure.simulations,
    ));
    page.push_str(&table(results));
    page.push('\n');
    for (file, title, axis, values) in charts {
        let chart = BarChart {
            title: title.to_owned(),
            value_label: axis.to_owned(),
            bars: names
                .iter()
                .cloned()
                .zip(values)
                .map(|(name, (value, margin))| (name, value, margin))
                .collect(),
        };
        for extension in ["png", "svg"] {
            bar_chart(&dir.join(format!("{file}.{extension}")), &chart)?;
        }
        page.push_str(&format!("![{title}]({file}.png)\n\n"));
    }
    let path = dir.join("study.md");
    write_atomically(&path, page.as_bytes()).map_err(|e| FileError::io(&path, e))?;
    Ok(path)
}

fn budget_text(budget: &BudgetSection) -> String {
    match (budget.iterations, budget.minutes) {
        (Some(iterations), Some(minutes)) => {
            format!("{iterations} iterations or {minutes} minutes, whichever comes first")
        }
        (Some(iterations), None) => format!("{iterations} iterations"),
        (None, Some(minutes)) => format!("{minutes} minutes"),
        (None, None) => "none".to_owned(),
    }
}
