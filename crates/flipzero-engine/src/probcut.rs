//! Multi-ProbCut (Buro, 1997): in the middle game the value of a deep search is predicted
//! well by a shallow search of the same position, `deep = slope * shallow + intercept` with
//! an error of about `sigma`. Before a node is searched to some depth, a null-window search
//! to the shallow depth asks whether the deep value is almost surely (by `threshold` sigmas,
//! the engine option `probcut=T`) at least beta or at most alpha; if so the node is cut
//! without the deep search.
//!
//! The lines are fitted per depth and game stage from the engine's own searches
//! (`flipzero tune --model probcut`) and kept in the weights profile whose evaluation they
//! were fitted over: refitting that evaluation drops them.

use flipzero_core::{Bitboard, Game, Rules, with_width};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::eval::{Weights, eval_bound};
use crate::search::{Engine, SearchConfig};
use crate::tune::{TuneError, collect_positions};

/// Searches shallower than this are never cut (their shallow search would be depth 0).
pub const MIN_DEPTH: u32 = 3;
/// The deepest search the lines may be fitted for.
pub const MAX_DEPTH: u32 = 16;
/// Stages with fewer positions than this get no line (sigma 0: never cut).
const MIN_POSITIONS: usize = 30;

/// The shallow depth whose value predicts a search to `depth`: about half as deep and of
/// the same parity (an evaluation after the mover's turn differs from one after the
/// opponent's).
pub fn shallow_depth(depth: u32) -> u32 {
    2 * (depth / 4) + depth % 2
}

/// The fitted lines of one profile, as the weights file writes them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbCutSpec {
    /// How the lines were fitted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Game stages by empty squares: a position with `e` empties of `n` squares is in stage
    /// `e * stages / (n + 1)`.
    pub stages: u32,
    /// The lines of each fitted depth.
    pub depths: Vec<DepthLines>,
}

/// The lines of one depth, one value per stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthLines {
    /// The deep search's depth (its shallow one is [`shallow_depth`]).
    pub depth: u32,
    /// Deep value per unit of shallow value.
    pub slope: Vec<f32>,
    /// Deep value at a shallow value of 0, centi-discs.
    pub intercept: Vec<f32>,
    /// Root-mean-square error of the prediction, centi-discs; 0 where the stage had too few
    /// positions to fit (never cut there).
    pub sigma: Vec<f32>,
}

/// The prediction for one depth and stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// The shallow search's depth.
    pub shallow: u32,
    /// Deep value per unit of shallow value.
    pub slope: f32,
    /// Deep value at a shallow value of 0.
    pub intercept: f32,
    /// Error of the prediction.
    pub sigma: f32,
}

impl ProbCutSpec {
    /// Checks the shape and values; the reason names what is wrong.
    ///
    /// # Errors
    /// Stages out of 1 to 64, a depth out of range or given twice, a list of another length
    /// than `stages`, or a value that is not finite (a slope must lie in 0.1 to 10, a sigma
    /// must not be negative).
    pub fn check(&self) -> Result<(), String> {
        if !(1..=64).contains(&self.stages) {
            return Err(format!("probcut.stages = {}: use 1 to 64", self.stages));
        }
        let mut seen = Vec::new();
        for lines in &self.depths {
            let depth = lines.depth;
            if !(MIN_DEPTH..=MAX_DEPTH).contains(&depth) || seen.contains(&depth) {
                return Err(format!(
                    "probcut depth {depth}: use each depth from {MIN_DEPTH} to {MAX_DEPTH} once"
                ));
            }
            seen.push(depth);
            for (name, values) in [
                ("slope", &lines.slope),
                ("intercept", &lines.intercept),
                ("sigma", &lines.sigma),
            ] {
                if values.len() != self.stages as usize {
                    return Err(format!(
                        "probcut depth {depth}: {name} has {} values for {} stages",
                        values.len(),
                        self.stages
                    ));
                }
                if !values.iter().all(|v| v.is_finite()) {
                    return Err(format!("probcut depth {depth}: a {name} is not finite"));
                }
            }
            if !lines.slope.iter().all(|s| (0.1..=10.0).contains(s)) {
                return Err(format!(
                    "probcut depth {depth}: a slope is outside 0.1 to 10"
                ));
            }
            if lines.sigma.iter().any(|&s| s < 0.0) {
                return Err(format!("probcut depth {depth}: a sigma is negative"));
            }
        }
        Ok(())
    }

    /// The stage of a position with `empties` empty squares of `squares`.
    pub fn stage(&self, empties: u32, squares: u32) -> usize {
        ((empties * self.stages) / (squares + 1)).min(self.stages - 1) as usize
    }

    /// The line for a search to `depth` at `empties`: that depth's own, or beyond the
    /// deepest fitted depth the deepest one's (errors grow with depth, so a little bold).
    /// `None` below [`MIN_DEPTH`], without lines, or where the stage had too few positions.
    pub fn line(&self, depth: u32, empties: u32, squares: u32) -> Option<Line> {
        if depth < MIN_DEPTH {
            return None;
        }
        let lines = self
            .depths
            .iter()
            .filter(|lines| lines.depth <= depth)
            .max_by_key(|lines| lines.depth)?;
        let stage = self.stage(empties, squares);
        let sigma = lines.sigma[stage];
        (sigma > 0.0).then(|| Line {
            shallow: shallow_depth(depth),
            slope: lines.slope[stage],
            intercept: lines.intercept[stage],
            sigma,
        })
    }
}

/// How to fit the lines.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCutTuneConfig {
    /// Positions to search.
    pub positions: usize,
    /// The deepest depth to fit (every depth from [`MIN_DEPTH`] to it gets lines).
    pub deepest: u32,
    /// Game stages.
    pub stages: u32,
    /// Positions with this many empties or fewer are left out: the engine plays them
    /// exactly.
    pub solve_empties: u32,
    /// Seed of the games the positions come from.
    pub seed: u64,
}

impl Default for ProbCutTuneConfig {
    fn default() -> Self {
        Self {
            positions: 2000,
            deepest: 8,
            stages: 4,
            solve_empties: 12,
            seed: 1,
        }
    }
}

/// One depth's fit in one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageFit {
    /// The deep depth.
    pub depth: u32,
    /// The stage.
    pub stage: usize,
    /// The empties the stage covers, fewest first.
    pub empties: (u32, u32),
    /// Positions fitted on.
    pub positions: usize,
    /// The fitted line (sigma 0 when too few positions).
    pub line: Line,
    /// Root-mean-square difference of the deep and shallow values, before the fit.
    pub raw_error: f32,
}

/// What a fit found.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCutReport {
    /// The lines, ready for a weights profile (without a note).
    pub spec: ProbCutSpec,
    /// Positions searched.
    pub positions: usize,
    /// Every depth and stage.
    pub fits: Vec<StageFit>,
}

/// Searches positions of varied engine games to every depth up to `deepest` (no cuts) and
/// fits each depth's value on its shallow depth's, per stage, by least squares.
///
/// # Errors
/// Too few positions.
pub fn tune_probcut(
    rules: &Rules,
    weights: &Weights,
    config: &ProbCutTuneConfig,
) -> Result<ProbCutReport, TuneError> {
    with_width!(rules.square_count(), W => tune_probcut_at::<W>(rules, weights, config))
}

fn tune_probcut_at<W: Bitboard>(
    rules: &Rules,
    weights: &Weights,
    config: &ProbCutTuneConfig,
) -> Result<ProbCutReport, TuneError> {
    let deepest = config.deepest.clamp(MIN_DEPTH, MAX_DEPTH);
    let stages = config.stages.clamp(1, 64);
    let squares = rules.square_count();
    let positions: Vec<Game<W>> =
        collect_positions::<W>(rules, weights, 4 * config.positions, config.seed)
            .into_iter()
            .map(|collected| collected.position)
            .filter(|game| game.empty().count() > config.solve_empties)
            .take(config.positions)
            .collect();
    if positions.len() < 50 {
        return Err(TuneError::TooFewPositions(positions.len()));
    }
    let search = SearchConfig {
        depth: deepest,
        solve_empties: 0,
        end_search_empties: 0,
        probcut: 0.0,
        ..SearchConfig::default()
    };
    // Per position: its empties and its value at every depth from 1 (index 0) to deepest.
    let searched: Vec<(u32, Vec<i32>)> = positions
        .par_iter()
        .map_init(
            || Engine::<W>::new(rules, weights.clone(), search.clone()),
            |engine, game| {
                let values = (1..=deepest)
                    .map(|d| engine.search_value(game, d))
                    .collect();
                (game.empty().count(), values)
            },
        )
        .collect();
    // Rule wins and finished games are no evaluation to predict.
    let bound = eval_bound(rules);
    let usable: Vec<&(u32, Vec<i32>)> = searched
        .iter()
        .filter(|(_, values)| values.iter().all(|v| v.abs() <= bound))
        .collect();
    let spec_shape = ProbCutSpec {
        note: String::new(),
        stages,
        depths: Vec::new(),
    };
    let mut spec = spec_shape.clone();
    let mut fits = Vec::new();
    for depth in MIN_DEPTH..=deepest {
        let shallow = shallow_depth(depth);
        let mut lines = DepthLines {
            depth,
            slope: Vec::new(),
            intercept: Vec::new(),
            sigma: Vec::new(),
        };
        for stage in 0..stages as usize {
            let pairs: Vec<(f64, f64)> = usable
                .iter()
                .filter(|(empties, _)| spec_shape.stage(*empties, squares) == stage)
                .map(|(_, values)| {
                    (
                        f64::from(values[shallow as usize - 1]),
                        f64::from(values[depth as usize - 1]),
                    )
                })
                .collect();
            let line = fit_line(&pairs, shallow);
            lines.slope.push(line.slope);
            lines.intercept.push(line.intercept);
            lines.sigma.push(line.sigma);
            let raw = pairs.iter().map(|(x, y)| (y - x).powi(2)).sum::<f64>();
            fits.push(StageFit {
                depth,
                stage,
                empties: stage_empties(&spec_shape, stage, squares),
                positions: pairs.len(),
                line,
                raw_error: (raw / pairs.len().max(1) as f64).sqrt() as f32,
            });
        }
        spec.depths.push(lines);
    }
    Ok(ProbCutReport {
        spec,
        positions: usable.len(),
        fits,
    })
}

/// Least squares of deep on shallow values; sigma 0 (no line) with too few positions or no
/// spread, or a slope outside what [`ProbCutSpec::check`] accepts.
fn fit_line(pairs: &[(f64, f64)], shallow: u32) -> Line {
    let none = Line {
        shallow,
        slope: 1.0,
        intercept: 0.0,
        sigma: 0.0,
    };
    if pairs.len() < MIN_POSITIONS {
        return none;
    }
    let n = pairs.len() as f64;
    let mean_x = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let covariance: f64 = pairs.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let variance: f64 = pairs.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if variance <= 0.0 {
        return none;
    }
    let slope = covariance / variance;
    if !(0.1..=10.0).contains(&slope) {
        return none;
    }
    let intercept = mean_y - slope * mean_x;
    let residual: f64 = pairs
        .iter()
        .map(|(x, y)| (y - slope * x - intercept).powi(2))
        .sum();
    Line {
        shallow,
        slope: slope as f32,
        intercept: intercept as f32,
        // At least a centi-disc, so that a perfect fit still counts as fitted.
        sigma: ((residual / n).sqrt() as f32).max(1.0),
    }
}

/// The empties of a stage, fewest first.
fn stage_empties(spec: &ProbCutSpec, stage: usize, squares: u32) -> (u32, u32) {
    let in_stage: Vec<u32> = (0..=squares)
        .filter(|&e| spec.stage(e, squares) == stage)
        .collect();
    (
        in_stage.first().copied().unwrap_or(0),
        in_stage.last().copied().unwrap_or(0),
    )
}
