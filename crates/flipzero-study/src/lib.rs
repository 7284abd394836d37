//! The variant difficulty study: one learning run per preset under one equal budget, then
//! per preset its game-theoretic value from the start (read from `flipzero value` records),
//! the first player's results under strong play, the draw rate, the game length, the
//! branching factor, how many skill levels the engine ladder tells apart, and the agent's
//! strength along its training time (checkpoints on the ladder, perfect play on top where
//! the solver plays the preset, with what the agent kept of the openings' exact values); one
//! table, curves and bar charts comparing them.
//!
//! A study directory holds `runs/<preset>/` (ordinary run directories: a stopped study
//! resumes them), `results/<preset>.json` (a preset measured once is not measured again),
//! `exact/<preset>.json` (the openings' exact values) and the report, `study.md` with its
//! plots, rewritten after every preset.

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use flipzero_arena::journal::Journal;
use flipzero_arena::ladder::{
    LadderJournal, LadderReport, candidate_name, ladder_anchored, rung, rung_name,
};
use flipzero_arena::perfect::{ExactCache, PerfectPlayScore};
use flipzero_arena::{
    AgentFactory, AgentSpec, AnySuite, MatchResult, MctsSpec, OpeningFilter, play_built,
};
use flipzero_core::{AnyGame, Preset, Rules};
use flipzero_data::files::{FileError, write_atomically};
use flipzero_engine::{ExactSolver, SearchConfig, WeightsFile};
use flipzero_run::{Progress, Run, RunConfig, RunDir, RunError, StopSection};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use flipzero_report::ReportError;
use flipzero_report::plots::{BarChart, LinePlot, Series, bar_chart, line_plot};

/// A study config (`configs/study/*.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    /// Preset names; every preset when empty.
    #[serde(default)]
    pub presets: Vec<String>,
    /// Board side for presets that allow it; the others keep their own.
    pub size: Option<u8>,
    /// Seeds the runs, the strong-play games and the openings.
    pub seed: u64,
    /// Records of `flipzero value --json` (one JSON object a line; a relative path is read
    /// from the config's folder): each preset's exact value from the start at the board
    /// studied, shown in the table where the file has it.
    #[serde(default)]
    pub start_values: Option<PathBuf>,
    /// The equal budget of every preset's run: the run config's `[loop]` table (the first
    /// of iterations and minutes reached stops a run; `cpu_clock_cores` counts run time as
    /// CPU time, so that every preset gets the same work however busy the machine).
    pub budget: StopSection,
    /// The run config every preset shares: its `network`, `selfplay`, `train` sections (as
    /// in `configs/runs/`); `variant`, `size`, `seed` and the budget are set per preset.
    pub run: toml::Table,
    /// How each preset is measured.
    pub measure: MeasureSection,
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
    /// Perfect play (the exact solver) as the ladder's top rung, where the solver plays the
    /// preset and the board has at most 36 squares; the openings are then random lines whose
    /// exact value lies within `exact_within` discs of a draw.
    #[serde(default)]
    pub perfect: bool,
    /// With `perfect`: the openings' largest exact margin (discs).
    #[serde(default)]
    pub exact_within: Option<i32>,
    /// A uniformly random player as the ladder's bottom rung (depth 1 stays at 0 Elo), so
    /// that a network weaker than depth 1 still has a finite rating.
    #[serde(default)]
    pub random_rung: bool,
    /// Checkpoints rated along each run besides the untrained one: the first checkpoint past
    /// each of 1/n, 2/n, ..., n/n of the run time.
    #[serde(default = "one")]
    pub curve_points: usize,
}

fn one() -> usize {
    1
}

/// What the study found for one preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresetResult {
    /// The preset.
    pub preset: String,
    /// Board rows and columns studied.
    pub board: (u8, u8),
    /// The budget it was measured under (a changed budget measures again).
    pub budget: StopSection,
    /// How it was measured (changed settings measure again).
    pub measure: MeasureSection,
    /// The run config it was trained with (a changed one measures again).
    pub run_config: String,
    /// The learning run.
    pub training: TrainingSummary,
    /// The exact value from the start, from the study's `start_values`.
    pub start_value: Option<StartValue>,
    /// The engine's games against itself.
    pub strong_play: StrongPlay,
    /// The engine ladder and the agent on it.
    pub ladder: LadderSummary,
    /// The agent's strength along the run: the untrained network, then each curve point.
    pub curve: Vec<CurvePoint>,
}

/// The game-theoretic value of a preset's start, as `flipzero value` found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartValue {
    /// The first player's final margin under perfect play (komi counted; a random start's
    /// mean over its draws).
    pub margin: f64,
    /// The first player's win probability (a fixed start: 0 or 1).
    pub win: f64,
    /// Draw probability.
    pub draw: f64,
    /// Loss probability.
    pub loss: f64,
    /// Positions searched.
    pub nodes: u64,
    /// Search time, seconds.
    pub seconds: f64,
    /// The search that found it.
    pub search: String,
}

/// One checkpoint of a run, rated on the ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Its training step.
    pub step: u64,
    /// Run time when it was written, minutes.
    pub minutes: f64,
    /// Ladder Elo (depth 1 at 0) and its 95% margin (`None`: unbounded).
    pub elo: (f64, Option<f64>),
    /// Against perfect play, where it is a rung: what it kept of the openings' exact values.
    pub perfect: Option<PerfectPlayScore>,
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
    /// Each rung's name and Elo, depth 1 at 0, with 95% margins (`None`: unbounded).
    pub rungs: Vec<(String, f64, Option<f64>)>,
    /// Elo of the deepest rung minus depth 1.
    pub span: f64,
    /// Skill levels told apart: 1 plus the neighbouring rungs whose direct match score is
    /// above 50% with 95% confidence.
    pub levels: u32,
    /// The untrained network's Elo (MCTS, step 0) and margin.
    pub initial: (f64, Option<f64>),
    /// The trained network's Elo (MCTS, last checkpoint) and margin.
    pub trained: (f64, Option<f64>),
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
        let mut config: StudyConfig = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        // A relative `start_values` is read beside the config, wherever the study runs from.
        if let Some(values) = config.start_values.as_mut().filter(|p| p.is_relative()) {
            *values = path.parent().unwrap_or(Path::new(".")).join(&*values);
        }
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
        if !(1..=100).contains(&measure.curve_points) {
            return Err(invalid("measure.curve_points: 1 to 100".to_owned()));
        }
        if measure.perfect && measure.exact_within.is_none_or(|discs| discs < 0) {
            return Err(invalid(
                "measure.exact_within: with perfect = true, give the openings' largest exact \
                 margin in discs (0 or more)"
                    .to_owned(),
            ));
        }
        if let Some(path) = &config.start_values {
            read_start_values(path)?;
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
        let stop = toml::Table::try_from(&self.budget)
            .map_err(|e| FileError::invalid(Path::new(preset), format!("budget: {e}")))?;
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

/// One record of `flipzero value --json` (the fields the study reads); the value fields are
/// absent from the record of a value left open.
#[derive(Deserialize)]
struct ValueRecord {
    variant: String,
    board: String,
    search: String,
    #[serde(flatten)]
    value: Option<SolvedRecord>,
}

/// The value fields of a solved record.
#[derive(Deserialize)]
struct SolvedRecord {
    margin: f64,
    win: f64,
    draw: f64,
    loss: f64,
    nodes: u64,
    seconds: f64,
}

/// Every record of a `start_values` file, named by line where one is not a value record.
fn read_start_values(path: &Path) -> Result<Vec<ValueRecord>, FileError> {
    let text = std::fs::read_to_string(path).map_err(|e| FileError::io(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| {
            serde_json::from_str(line).map_err(|e| {
                FileError::invalid(
                    path,
                    format!(
                        "line {}: not a `flipzero value --json` record: {e}",
                        number + 1
                    ),
                )
            })
        })
        .collect()
}

/// The start value of `preset` on its board in the study's `start_values`, the last record
/// where there are several.
fn start_value(
    config: &StudyConfig,
    preset: &str,
    rules: &Rules,
) -> Result<Option<StartValue>, FileError> {
    let Some(path) = &config.start_values else {
        return Ok(None);
    };
    let board = format!("{}x{}", rules.rows(), rules.cols());
    Ok(read_start_values(path)?
        .into_iter()
        .rfind(|record| record.variant == preset && record.board == board)
        .and_then(|record| {
            let value = record.value?;
            Some(StartValue {
                margin: value.margin,
                win: value.win,
                draw: value.draw,
                loss: value.loss,
                nodes: value.nodes,
                seconds: value.seconds,
                search: record.search,
            })
        }))
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
        // The result is safe: the ladder's journal has served its purpose.
        let journal = ladder_journal_path(dir, &preset);
        if journal.exists() {
            std::fs::remove_file(&journal).map_err(|e| FileError::io(&journal, e))?;
        }
        results.push(result);
        // The page grows as the study goes, so a long study shows what it has measured.
        write_report(config, &results, dir)?;
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
    let strong_play = strong_play(&rules, &config.measure, config.seed).map_err(failed)?;

    log(&format!("{preset}: engine ladder"));
    let curve_steps = curve_steps(&run_dir, config.measure.curve_points).map_err(run_failed)?;
    if curve_steps.len() < 2 {
        return Err(failed("the run has no trained checkpoint".to_owned()));
    }
    let spec = AgentSpec::Mcts(MctsSpec::with_simulations(config.measure.simulations));
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
    let candidates = curve_steps
        .iter()
        .map(|&(step, _)| agent(step))
        .collect::<Result<Vec<_>, _>>()?;
    let perfect =
        config.measure.perfect && rules.square_count() <= 36 && ExactSolver::new(&rules).is_some();
    let mut rungs: Vec<(String, AgentFactory)> = Vec::new();
    if config.measure.random_rung {
        let random = AgentFactory::with_network(&AgentSpec::Random, &rules, weights.clone(), None);
        rungs.push(("random".to_owned(), random));
    }
    let anchor = rungs.len();
    for depth in 1..=config.measure.ladder_depth {
        let factory = AgentFactory::with_network(&rung(depth), &rules, weights.clone(), None);
        rungs.push((rung_name(depth), factory));
    }
    if perfect {
        let factory =
            AgentFactory::with_network(&AgentSpec::Perfect, &rules, weights.clone(), None);
        rungs.push((PERFECT.to_owned(), factory));
    }
    let (count, plies) = (config.measure.ladder_openings, config.measure.opening_plies);
    let mut cache = None;
    let filter = if perfect {
        let path = dir.join("exact").join(format!("{preset}.json"));
        std::fs::create_dir_all(dir.join("exact")).map_err(|e| FileError::io(dir, e))?;
        let opened = ExactCache::open(&rules, Some(&path)).map_err(|e| failed(e.to_string()))?;
        OpeningFilter::Exact {
            cache: cache.insert(opened),
            within_discs: config.measure.exact_within.unwrap_or(0),
        }
    } else {
        match config.measure.balanced_margin {
            Some(margin_discs) => OpeningFilter::Balanced {
                weights: &weights,
                depth: 6,
                margin_discs,
            },
            None => OpeningFilter::All,
        }
    };
    let openings = AnySuite::draw(&rules, count, plies..=plies, filter, config.seed)
        .map_err(|e| failed(e.to_string()))?
        .positions();
    if openings.is_empty() {
        return Err(failed(format!(
            "no opening of {plies} plies is within the margin asked: raise \
             measure.balanced_margin or measure.exact_within"
        )));
    }
    // Each finished game goes to the preset's journal, so that a study stopped in the
    // ladder (its longest part) resumes it instead of playing it again.
    let journal_path = ladder_journal_path(dir, preset);
    std::fs::create_dir_all(dir.join("ladder")).map_err(|e| FileError::io(dir, e))?;
    let journal = Journal::open(&journal_path, &rules).map_err(|e| failed(e.to_string()))?;
    let candidate_ids: Vec<String> = curve_steps
        .iter()
        .map(|(step, _)| {
            format!(
                "checkpoint {step}, {} simulations",
                config.measure.simulations
            )
        })
        .collect();
    let kept = LadderJournal {
        journal: &journal,
        candidate_ids: &candidate_ids,
    };
    let report = ladder_anchored(
        &rules,
        &candidates,
        &rungs,
        anchor,
        &openings,
        Some(&kept),
        &|_| {},
    )
    .map_err(|e| failed(e.to_string()))?;
    if report.resumed > 0 {
        log(&format!(
            "{preset}: {} ladder games taken from {}",
            report.resumed,
            journal_path.display()
        ));
    }
    if let Some(failure) = &report.journal_failure {
        log(&format!(
            "{preset}: the ladder journal could not be written ({failure}); a resume would \
             play those games again"
        ));
    }
    // What each candidate kept of the exact values in its match against perfect play.
    let scores: Vec<Option<PerfectPlayScore>> = (0..candidates.len())
        .map(|index| {
            let cache = cache.as_ref()?;
            let name = candidate_name(index, candidates.len());
            let played = report
                .matches
                .iter()
                .find(|m| m.first == name && m.second == PERFECT)?;
            Some(PerfectPlayScore::of_match(
                &rules,
                cache,
                &openings,
                &played.result.games,
            ))
        })
        .collect();
    let curve: Vec<CurvePoint> = curve_steps
        .iter()
        .zip(&report.candidates)
        .zip(scores)
        .map(|((&(step, minutes), rating), perfect)| CurvePoint {
            step,
            minutes,
            elo: (rating.elo, finite(rating.margin)),
            perfect,
        })
        .collect();
    let ladder = ladder_summary(&report, openings.len());
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
        start_value: start_value(config, preset, &rules)?,
        strong_play,
        ladder,
        curve,
    })
}

/// The journal of a preset's ladder games (see [`LadderJournal`]).
fn ladder_journal_path(dir: &Path, preset: &str) -> std::path::PathBuf {
    dir.join("ladder").join(format!("{preset}.jsonl"))
}

/// The name of perfect play's rung.
const PERFECT: &str = "perfect";

/// The checkpoints a run's curve rates, with their run time in minutes: the untrained one,
/// then the first past each of 1/n, ..., n/n of the run time (the last checkpoint for the
/// last), each once.
fn curve_steps(dir: &RunDir, points: usize) -> Result<Vec<(u64, f64)>, RunError> {
    let trained: Vec<(u64, f64)> = dir
        .records()?
        .iter()
        .filter_map(|record| match record {
            flipzero_run::Record::Train {
                step,
                elapsed_seconds,
                ..
            } => Some((*step, elapsed_seconds / 60.0)),
            _ => None,
        })
        .filter(|(step, _)| dir.checkpoint_path(*step).exists())
        .collect();
    let mut steps = vec![(0, 0.0)];
    let Some(&(_, total)) = trained.last() else {
        return Ok(steps);
    };
    for point in 1..=points {
        let due = total * point as f64 / points as f64;
        if let Some(&found) = trained.iter().find(|(_, minutes)| *minutes >= due - 1e-9)
            && steps.last().is_none_or(|last| last.0 < found.0)
        {
            steps.push(found);
        }
    }
    Ok(steps)
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
fn strong_play(rules: &Rules, measure: &MeasureSection, seed: u64) -> Result<StrongPlay, String> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded weights")
        .map_err(|e| e.to_string())?;
    // Each engine's seed is the one its factory is built with (the spec's own is 0).
    let engine = AgentSpec::Engine(SearchConfig {
        depth: measure.strong_depth,
        random_margin: measure.strong_margin,
        ..SearchConfig::default()
    });
    let engine = AgentFactory::with_network(&engine, rules, weights, None);
    let games: Vec<(f64, usize, usize)> = (0..measure.strong_games as u64)
        .into_par_iter()
        .map(|game| {
            let start =
                AnyGame::try_start(rules, seed.wrapping_add(game)).map_err(|e| e.to_string())?;
            let engine_seed = |offset: u64| seed.wrapping_mul(7919).wrapping_add(2 * game + offset);
            let seeds = [engine_seed(0), engine_seed(1)];
            let result = play_built(rules, &start, [&engine, &engine], seeds);
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

fn ladder_summary(report: &LadderReport, openings: usize) -> LadderSummary {
    let rungs: Vec<(String, f64, Option<f64>)> = report
        .rungs
        .iter()
        .map(|(name, rating)| (name.clone(), rating.elo, finite(rating.margin)))
        .collect();
    let depths: Vec<f64> = rungs
        .iter()
        .filter(|rung| rung.0.starts_with("depth"))
        .map(|rung| rung.1)
        .collect();
    let span = depths.last().map_or(0.0, |last| last - depths[0]);
    let steps = report
        .matches
        .iter()
        .filter(|m| {
            m.first.starts_with("depth")
                && m.second.starts_with("depth")
                && clearly_stronger(&m.result)
        })
        .count();
    let rating = |rating: &flipzero_arena::Rating| (rating.elo, finite(rating.margin));
    LadderSummary {
        openings,
        rungs,
        span,
        levels: 1 + steps as u32,
        initial: report.candidates.first().map_or((0.0, None), rating),
        trained: report.candidates.last().map_or((0.0, None), rating),
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

/// The first player's value under perfect play in words: outcome and margin, or for a
/// random start the chances and the mean margin.
fn value_text(value: Option<&StartValue>) -> String {
    let Some(value) = value else {
        return "open".to_owned();
    };
    let certain = [value.win, value.draw, value.loss]
        .iter()
        .any(|share| (share - 1.0).abs() < 1e-9);
    if certain {
        let outcome = if value.win > 0.5 {
            "win"
        } else if value.loss > 0.5 {
            "loss"
        } else {
            "draw"
        };
        format!("{outcome} {:+}", value.margin)
    } else {
        format!(
            "W/D/L {}/{}/{}, {:+.2}",
            percent(value.win),
            percent(value.draw),
            percent(value.loss),
            value.margin
        )
    }
}

/// The 95% Wilson interval of `successes` in `trials`, in percent.
fn wilson(successes: usize, trials: usize) -> (f64, f64) {
    let (n, z) = (trials as f64, 1.96f64);
    let p = successes as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (
        100.0 * (centre - half).max(0.0),
        100.0 * (centre + half).min(1.0),
    )
}

/// What a checkpoint kept against perfect play: outcomes kept of those not lost, with the
/// 95% interval, and discs lost a game.
fn perfect_text(score: Option<&PerfectPlayScore>) -> (String, String) {
    match score {
        Some(score) if score.not_lost[2] > 0 => {
            let (low, high) = wilson(score.kept_outcome[2], score.not_lost[2]);
            (
                format!(
                    "{:.0}% [{low:.0}, {high:.0}] of {}",
                    100.0 * score.kept_outcome_share(2).unwrap_or(0.0),
                    score.not_lost[2]
                ),
                format!("{:.2}", score.mean_discs_lost().unwrap_or(0.0)),
            )
        }
        _ => ("-".to_owned(), "-".to_owned()),
    }
}

/// The comparison table (Markdown).
pub fn table(results: &[PresetResult]) -> String {
    let mut out = String::from(
        "| preset | board | perfect play: first player | strong play: first player W/D/L % | draws % | length | branching | ladder span (Elo) | levels | agent Elo: untrained → trained | vs perfect: outcome kept | discs lost a game | games | steps | minutes |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let s = &r.strong_play;
        let l = &r.ladder;
        let (kept, lost) = perfect_text(r.curve.last().and_then(|point| point.perfect.as_ref()));
        out.push_str(&format!(
            "| {} | {}x{} | {} | {}/{}/{} | {} | {:.1} | {:.1} | {:.0} | {} | {} → {} | {} | {} | {} | {} | {:.1} |\n",
            r.preset,
            r.board.0,
            r.board.1,
            value_text(r.start_value.as_ref()),
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
            kept,
            lost,
            r.training.games,
            r.training.steps,
            r.training.hours * 60.0,
        ));
    }
    out
}

/// Every preset's curve (Markdown): each rated checkpoint's run time, Elo and score against
/// perfect play.
fn curve_table(results: &[PresetResult]) -> String {
    let mut out = String::from(
        "| preset | minutes | step | ladder Elo | vs perfect: outcome kept | discs lost a game |\n\
         |---|---|---|---|---|---|\n",
    );
    for r in results {
        for point in &r.curve {
            let (kept, lost) = perfect_text(point.perfect.as_ref());
            out.push_str(&format!(
                "| {} | {:.1} | {} | {} | {kept} | {lost} |\n",
                r.preset,
                point.minutes,
                point.step,
                elo(point.elo)
            ));
        }
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
            "Elo span of the engine ladder (deepest depth minus depth 1)",
            "Elo",
            results
                .iter()
                .map(|r| {
                    let deepest = r.ladder.rungs.iter().rfind(|x| x.0.starts_with("depth"));
                    (r.ladder.span, deepest.and_then(|x| x.2))
                })
                .collect(),
        ),
        (
            "trained-elo",
            "The trained agent on the ladder (depth 1 at 0)",
            "Elo",
            results
                .iter()
                .map(|r| (r.ladder.trained.0, r.ladder.trained.1))
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
         {} games, random choice within {} centi-discs. Ladder: {}engine depths 1 to {}{}, {} \
         openings of {} random plies{}, each with both colours; the agent is MCTS with {} \
         simulations, rated at {} points of its run besides the untrained network. Elo is \
         maximum likelihood with 95% intervals, depth 1 at 0.\n\n",
        budget_text(&config.budget),
        config.measure.strong_depth,
        config.measure.strong_games,
        config.measure.strong_margin,
        if config.measure.random_rung {
            "a random player, "
        } else {
            ""
        },
        config.measure.ladder_depth,
        if config.measure.perfect {
            " and perfect play on top where the solver plays the preset"
        } else {
            ""
        },
        config.measure.ladder_openings,
        config.measure.opening_plies,
        match (
            config.measure.perfect,
            config.measure.exact_within,
            config.measure.balanced_margin
        ) {
            (true, Some(within), _) => format!(
                " (exact value within {within} discs where perfect play is a rung{})",
                config.measure.balanced_margin.map_or(String::new(), |margin| format!(
                    "; elsewhere kept when the engine at depth 6 scores them within {margin} discs"
                ))
            ),
            (_, _, Some(margin)) => format!(
                " (kept when the engine at depth 6 scores them within {margin} discs of even)"
            ),
            _ => String::new(),
        },
        config.measure.simulations,
        config.measure.curve_points,
    ));
    page.push_str(&table(results));
    page.push_str("\n## Strength along training time\n\n");
    page.push_str(&curve_table(results));
    page.push('\n');
    let curves = [
        (
            "strength-curve",
            "Agent strength against training time (ladder Elo, depth 1 at 0)",
            "Elo",
            results
                .iter()
                .map(|r| Series {
                    label: r.preset.clone(),
                    points: r.curve.iter().map(|p| (p.minutes, p.elo.0)).collect(),
                })
                .collect::<Vec<_>>(),
        ),
        (
            "perfect-curve",
            "Outcomes kept against perfect play (of openings not lost)",
            "% kept",
            results
                .iter()
                .filter(|r| r.curve.iter().any(|p| p.perfect.is_some()))
                .map(|r| Series {
                    label: r.preset.clone(),
                    points: r
                        .curve
                        .iter()
                        .filter_map(|p| {
                            let share = p.perfect.as_ref()?.kept_outcome_share(2)?;
                            Some((p.minutes, 100.0 * share))
                        })
                        .collect(),
                })
                .collect(),
        ),
    ];
    for (file, title, axis, series) in curves {
        if series.is_empty() {
            continue;
        }
        let plot = LinePlot {
            title: title.to_owned(),
            x_label: "training minutes".to_owned(),
            y_label: axis.to_owned(),
            series,
            y_range: None,
        };
        for extension in ["png", "svg"] {
            line_plot(&dir.join(format!("{file}.{extension}")), &plot)?;
        }
        page.push_str(&format!("![{title}]({file}.png)\n\n"));
    }
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

fn budget_text(budget: &StopSection) -> String {
    let clock = budget.cpu_clock_cores.map_or(String::new(), |cores| {
        format!(" (minutes of CPU time per core on {cores} cores: the work of that time on {cores} idle cores)")
    });
    let budget = match (budget.iterations, budget.minutes) {
        (Some(iterations), Some(minutes)) => {
            format!("{iterations} iterations or {minutes} minutes, whichever comes first")
        }
        (Some(iterations), None) => format!("{iterations} iterations"),
        (None, Some(minutes)) => format!("{minutes} minutes"),
        (None, None) => "none".to_owned(),
    };
    budget + &clock
}
