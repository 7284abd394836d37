//! Fitting a pattern model: positions from varied engine games, labelled by exact solving
//! near the end and by a search before it, and per stage a ridge regression of what the
//! linear evaluation leaves unexplained on the table entries each position reads, solved by
//! preconditioned conjugate gradients (a table has tens of thousands of entries; each
//! position reads one per feature and per placed shape). Later rounds label again with the
//! model just fitted, so that the exact values near the end reach further back.

use std::sync::Arc;

use flipzero_core::{Bitboard, Game, Rules, with_width};
use rayon::prelude::*;

use crate::eval::{Evaluator, Weights};
use crate::patterns::{PatternModel, Shape, standard_shapes};
use crate::tune::{Collected, TuneConfig, TuneError, collect_positions, is_held_out, label};

/// How to build the training set and fit a pattern model.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternTuneConfig {
    /// Positions to collect and label.
    pub positions: usize,
    /// Search depth of the labels above the solve threshold.
    pub label_depth: u32,
    /// Label exactly at this many empties or fewer.
    pub solve_empties: u32,
    /// Stages of the model.
    pub stages: u32,
    /// Ridge penalty, in positions: an entry read by this many positions moves half way to
    /// their mean residual.
    pub ridge: f64,
    /// Conjugate-gradient iterations per stage and round.
    pub iterations: u32,
    /// Rounds of labelling and fitting (the second and later label with the model fitted).
    pub rounds: u32,
    /// Seed of the games the positions come from.
    pub seed: u64,
}

impl Default for PatternTuneConfig {
    fn default() -> Self {
        Self {
            positions: 20_000,
            label_depth: 4,
            solve_empties: 12,
            stages: 12,
            ridge: 5.0,
            iterations: 60,
            rounds: 1,
            seed: 1,
        }
    }
}

/// The held-out error of one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageError {
    /// The stage.
    pub stage: usize,
    /// Empty squares of its positions, fewest and most.
    pub empties: (u32, u32),
    /// Held-out positions in it.
    pub positions: usize,
    /// Root-mean-square error in discs of the starting weights.
    pub before: f64,
    /// The same of the fitted model.
    pub after: f64,
}

/// What a pattern fit achieved.
#[derive(Clone, Debug)]
pub struct PatternTuneReport {
    /// The fitted model.
    pub model: PatternModel,
    /// Games the positions came from.
    pub games: usize,
    /// Positions fitted on.
    pub training: usize,
    /// Positions held out (from other games) to measure the fit.
    pub held_out: usize,
    /// Labels that came from exact solving (in the last round).
    pub exact_labels: usize,
    /// The held-out error in discs of the starting weights, then after each round.
    pub error_by_round: Vec<f64>,
    /// The held-out error by stage, after the last round.
    pub by_stage: Vec<StageError>,
}

/// The positions of a fit, as the regression reads them.
struct Design {
    /// Entries read per position.
    stride: usize,
    /// Every position's entries, `stride` apiece.
    entries: Vec<u32>,
    stages: Vec<usize>,
    /// What the linear evaluation predicts, centi-discs.
    linear: Vec<f32>,
    empties: Vec<u32>,
}

impl Design {
    fn new<W: Bitboard>(
        rules: &Rules,
        evaluator: &Evaluator<W>,
        model: &PatternModel,
        positions: &[Game<W>],
    ) -> Self {
        let stride = crate::eval::FEATURE_COUNT + model.instance_count();
        let canonical = model.canonical_entries();
        let rows: Vec<(Vec<u32>, usize, f32, u32)> = positions
            .par_iter()
            .map(|game| {
                let features = evaluator.features(rules, game);
                let mut entries = Vec::with_capacity(stride);
                let stage = model.for_each_entry(&features, game, |entry| {
                    entries.push(canonical[entry]);
                });
                let linear = evaluator.linear_value(&features, game);
                (entries, stage, linear, game.empty().count())
            })
            .collect();
        let mut design = Self {
            stride,
            entries: Vec::with_capacity(rows.len() * stride),
            stages: Vec::with_capacity(rows.len()),
            linear: Vec::with_capacity(rows.len()),
            empties: Vec::with_capacity(rows.len()),
        };
        for (entries, stage, linear, empties) in rows {
            design.entries.extend(entries);
            design.stages.push(stage);
            design.linear.push(linear);
            design.empties.push(empties);
        }
        design
    }

    fn row(&self, position: usize) -> &[u32] {
        &self.entries[position * self.stride..(position + 1) * self.stride]
    }

    /// The model's prediction (linear part plus tables) for a position.
    fn predict(&self, values: &[Vec<f32>], position: usize) -> f64 {
        let stage = &values[self.stages[position]];
        let tables: f64 = self
            .row(position)
            .iter()
            .map(|&entry| f64::from(stage[entry as usize]))
            .sum();
        f64::from(self.linear[position]) + tables
    }
}

/// Fits one stage's tables on `rows` (positions of this stage and its neighbours), each entry
/// taking its representative's value: the ridge
/// regression `(A'A + ridge I) x = A'r` of the residuals `r` on the entries read, by
/// conjugate gradients preconditioned with each entry's count.
fn fit_stage(
    design: &Design,
    rows: &[usize],
    labels: &[f32],
    canonical: &[u32],
    ridge: f64,
    iterations: u32,
) -> Vec<f32> {
    let stage_size = canonical.len();
    // The diagonal of A'A: per position, the square of how often it reads an entry (a row
    // of empty edges reads one entry several times).
    let mut diagonal = vec![0.0f64; stage_size];
    let mut right = vec![0.0f64; stage_size];
    let mut sorted = Vec::with_capacity(design.stride);
    for &position in rows {
        let residual = f64::from(labels[position]) - f64::from(design.linear[position]);
        sorted.clear();
        sorted.extend_from_slice(design.row(position));
        sorted.sort_unstable();
        for run in sorted.chunk_by(|a, b| a == b) {
            let times = run.len() as f64;
            diagonal[run[0] as usize] += times * times;
            right[run[0] as usize] += times * residual;
        }
    }
    let normal_times = |vector: &[f64]| -> Vec<f64> {
        let mut product: Vec<f64> = vector.iter().map(|v| ridge * v).collect();
        for &position in rows {
            let row = design.row(position);
            let sum: f64 = row.iter().map(|&entry| vector[entry as usize]).sum();
            for &entry in row {
                product[entry as usize] += sum;
            }
        }
        product
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let precondition = |r: &[f64]| -> Vec<f64> {
        r.iter()
            .zip(&diagonal)
            .map(|(value, diagonal)| value / (diagonal + ridge))
            .collect()
    };
    let mut solution = vec![0.0f64; stage_size];
    let mut residual = right;
    let mut preconditioned = precondition(&residual);
    let mut direction = preconditioned.clone();
    let mut rz = dot(&residual, &preconditioned);
    let start_norm = dot(&residual, &residual).sqrt();
    for _ in 0..iterations {
        if rz <= 0.0 || dot(&residual, &residual).sqrt() <= 1e-6 * start_norm.max(1e-30) {
            break;
        }
        let product = normal_times(&direction);
        let step = rz / dot(&direction, &product);
        for ((x, r), (d, q)) in solution
            .iter_mut()
            .zip(residual.iter_mut())
            .zip(direction.iter().zip(&product))
        {
            *x += step * d;
            *r -= step * q;
        }
        preconditioned = precondition(&residual);
        let next_rz = dot(&residual, &preconditioned);
        let beta = next_rz / rz;
        rz = next_rz;
        for (d, z) in direction.iter_mut().zip(&preconditioned) {
            *d = z + beta * *d;
        }
    }
    canonical
        .iter()
        .map(|&representative| solution[representative as usize] as f32)
        .collect()
}

/// Root-mean-square error in discs over some positions, of predictions in centi-discs.
fn rms_discs(errors: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = errors.fold((0.0, 0usize), |(sum, count), e| (sum + e * e, count + 1));
    (sum / count.max(1) as f64).sqrt() / 100.0
}

/// Collects positions, labels them, and fits a pattern model on the shapes of
/// [`standard_shapes`] over `start`'s linear weights.
///
/// # Errors
/// Too few positions, or rules a pattern model cannot evaluate.
pub fn tune_patterns(
    rules: &Rules,
    start: &Weights,
    config: &PatternTuneConfig,
) -> Result<PatternTuneReport, TuneError> {
    with_width!(rules.square_count(), W => tune_patterns_at::<W>(rules, start, config))
}

fn tune_patterns_at<W: Bitboard>(
    rules: &Rules,
    start: &Weights,
    config: &PatternTuneConfig,
) -> Result<PatternTuneReport, TuneError> {
    if !crate::patterns::fits(rules) {
        return Err(TuneError::NoPatterns);
    }
    if !(config.ridge.is_finite() && config.ridge > 0.0) {
        return Err(TuneError::Model(format!(
            "a ridge penalty of {} (use a number above 0)",
            config.ridge
        )));
    }
    let shapes: Vec<Shape> = standard_shapes(rules.rows());
    let empty_model = PatternModel::zeros(rules.rows(), config.stages, shapes)
        .map_err(|error| TuneError::Model(error.to_string()))?;
    let collected: Vec<Collected<W>> =
        collect_positions::<W>(rules, start, config.positions, config.seed);
    if collected.len() < 50 {
        return Err(TuneError::TooFewPositions(collected.len()));
    }
    let positions: Vec<Game<W>> = collected.iter().map(|c| c.position.clone()).collect();
    let linear = Weights::linear(start.opening, start.endgame);
    let geometry = flipzero_core::Geometry::<W>::get(rules.rows(), rules.cols())
        .expect("the bitboard width fits the board");
    let evaluator = Evaluator::new(rules, geometry, linear.clone());
    let design = Design::new(rules, &evaluator, &empty_model, &positions);
    let (training, held_out): (Vec<usize>, Vec<usize>) =
        (0..positions.len()).partition(|&i| !is_held_out(collected[i].game));
    let label_config = TuneConfig {
        positions: config.positions,
        label_depth: config.label_depth,
        solve_empties: config.solve_empties,
        ridge: 0.0,
        seed: config.seed,
    };
    let start_evaluator = Evaluator::new(rules, geometry, start.clone());
    let start_predictions: Vec<f64> = positions
        .par_iter()
        .map(|game| f64::from(start_evaluator.evaluate(rules, game)))
        .collect();
    let mut labelling = start.clone();
    let mut model = empty_model.clone();
    let mut error_by_round = Vec::new();
    let mut labels: Vec<f32> = Vec::new();
    let mut exact_labels = 0;
    for round in 0..config.rounds.max(1) {
        let samples = label(rules, &labelling, &positions, &label_config);
        exact_labels = samples.iter().filter(|sample| sample.exact).count();
        labels = samples.iter().map(|sample| sample.label).collect();
        if round == 0 {
            error_by_round.push(rms_discs(
                held_out
                    .iter()
                    .map(|&i| start_predictions[i] - f64::from(labels[i])),
            ));
        }
        let stages = config.stages as usize;
        let mut rows_by_stage: Vec<Vec<usize>> = vec![Vec::new(); stages];
        for &position in &training {
            let stage = design.stages[position];
            let neighbours = stage.saturating_sub(1)..=(stage + 1).min(stages - 1);
            for rows in &mut rows_by_stage[neighbours] {
                rows.push(position);
            }
        }
        let canonical = empty_model.canonical_entries();
        let values: Vec<Vec<f32>> = rows_by_stage
            .par_iter()
            .map(|rows| {
                fit_stage(
                    &design,
                    rows,
                    &labels,
                    &canonical,
                    config.ridge,
                    config.iterations,
                )
            })
            .collect();
        model = empty_model.with_values(&values, String::new());
        let fitted: Vec<Vec<f32>> = (0..stages).map(|s| model.stage_values(s)).collect();
        error_by_round.push(rms_discs(
            held_out
                .iter()
                .map(|&i| design.predict(&fitted, i) - f64::from(labels[i])),
        ));
        labelling = Weights {
            patterns: Some(Arc::new(model.clone())),
            ..linear.clone()
        };
    }
    let fitted: Vec<Vec<f32>> = (0..config.stages as usize)
        .map(|s| model.stage_values(s))
        .collect();
    let by_stage = (0..config.stages as usize)
        .filter_map(|stage| {
            let in_stage: Vec<usize> = held_out
                .iter()
                .copied()
                .filter(|&i| design.stages[i] == stage)
                .collect();
            let empties = in_stage.iter().map(|&i| design.empties[i]);
            let (fewest, most) = (empties.clone().min()?, empties.max()?);
            Some(StageError {
                stage,
                empties: (fewest, most),
                positions: in_stage.len(),
                before: rms_discs(
                    in_stage
                        .iter()
                        .map(|&i| start_predictions[i] - f64::from(labels[i])),
                ),
                after: rms_discs(
                    in_stage
                        .iter()
                        .map(|&i| design.predict(&fitted, i) - f64::from(labels[i])),
                ),
            })
        })
        .collect();
    Ok(PatternTuneReport {
        model,
        games: collected
            .iter()
            .map(|c| c.game)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        training: training.len(),
        held_out: held_out.len(),
        exact_labels,
        error_by_round,
        by_stage,
    })
}
