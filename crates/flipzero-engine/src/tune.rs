//! Fitting evaluation weights: positions from varied engine games, labelled by a deeper
//! search or by exact solving, and a ridge regression of the labels on the features (one
//! weight set for the opening and one for the end, as the evaluation blends them).

use flipzero_core::{Bitboard, Game, Rules, with_width};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::eval::{FEATURE_COUNT, Features, Weights, eval_bound};
use crate::search::{Engine, SearchConfig};

/// How to build the training set and fit.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Positions to label.
    pub positions: usize,
    /// Search depth of the labels (positions not solved exactly).
    pub label_depth: u32,
    /// Positions with this many empties or fewer are labelled by exact solving.
    pub solve_empties: u32,
    /// Ridge penalty, relative to the number of samples.
    pub ridge: f64,
    /// Seed of the games the positions come from.
    pub seed: u64,
}

impl Default for TuneConfig {
    fn default() -> Self {
        Self {
            positions: 2000,
            label_depth: 4,
            solve_empties: 12,
            ridge: 1e-3,
            seed: 1,
        }
    }
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Its features.
    pub features: Features,
    /// Its phase (share of occupied squares).
    pub phase: f32,
    /// The label: the final margin for the side to move, centi-discs, objective-signed,
    /// without komi.
    pub label: f32,
    /// Whether the label is exact.
    pub exact: bool,
}

/// What a fit achieved.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneReport {
    /// The fitted weights.
    pub weights: Weights,
    /// Samples fitted on.
    pub training: usize,
    /// Samples held out to measure the fit.
    pub held_out: usize,
    /// Labels that came from exact solving.
    pub exact_labels: usize,
    /// Root-mean-square error on the held-out samples, in discs, of the weights before.
    pub held_out_error_before: f64,
    /// The same for the fitted weights.
    pub held_out_error_after: f64,
}

/// A tuning run that cannot finish.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// Too few positions to fit.
    #[error("only {0} positions were collected; ask for at least 50")]
    TooFewPositions(usize),
    /// Pattern models need a square board with edges and no neutral discs.
    #[error(
        "these rules cannot have a pattern model (it needs a square board with edges and no neutral discs); tune the linear weights instead (--model linear)"
    )]
    NoPatterns,
    /// The pattern model cannot be built.
    #[error("{0}")]
    Model(String),
    /// The regression system is singular even with the ridge penalty.
    #[error("the regression has no unique solution; raise the ridge penalty")]
    Singular,
}

/// A collected position and the game it came from.
#[derive(Clone, Debug)]
pub struct Collected<W: Bitboard> {
    /// The game's number, from 1.
    pub game: usize,
    /// The position.
    pub position: Game<W>,
}

/// Whether a game's positions are held out to measure a fit (one game in five): positions of
/// one game are alike, so a held-out position from a training game would flatter the fit.
pub fn is_held_out(game: usize) -> bool {
    game.is_multiple_of(5)
}

/// Positions from games between seeded engines that pick at random among moves within two
/// discs of the best at depth 1, after a few uniformly random decisions.
pub fn collect_positions<W: Bitboard>(
    rules: &Rules,
    weights: &Weights,
    count: usize,
    seed: u64,
) -> Vec<Collected<W>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    let mut game_index = 0;
    while positions.len() < count && game_index < 50 * count as u64 + 10 {
        game_index += 1;
        let config = SearchConfig {
            depth: 1,
            random_margin: 200,
            seed: rng.random(),
            solve_empties: 0,
            end_search_empties: 0,
            // A depth-1 search needs no large table, and one is built per game.
            table_bits: 10,
            ..SearchConfig::default()
        };
        let mut player = Engine::<W>::new(rules, weights.clone(), config);
        let Ok(mut game) = Game::<W>::try_start(rules, rng.random()) else {
            break;
        };
        let random_decisions = rng.random_range(0..6);
        let mut decisions = 0;
        while !game.is_over() {
            let decision = if decisions < random_decisions {
                let legal = game.legal_decisions(rules);
                legal[rng.random_range(0..legal.len())]
            } else {
                player.choose(&game).expect("unfinished").decision
            };
            game = game.play_unchecked(rules, decision);
            decisions += 1;
            if !game.is_over() && !game.is_mid_turn() && rng.random_bool(0.25) {
                positions.push(Collected {
                    game: game_index as usize,
                    position: game.clone(),
                });
                if positions.len() == count {
                    break;
                }
            }
            if decisions > 4000 {
                break;
            }
        }
    }
    positions
}

/// Labels positions on every core: exact below the solve threshold, a search to
/// `label_depth` above it.
pub fn label<W: Bitboard>(
    rules: &Rules,
    weights: &Weights,
    positions: &[Game<W>],
    config: &TuneConfig,
) -> Vec<Sample> {
    let search = SearchConfig {
        depth: config.label_depth,
        solve_empties: config.solve_empties,
        end_search_empties: config.solve_empties.min(6),
        // Full width: ProbCut lines belong to the evaluation being replaced.
        probcut: 0.0,
        ..SearchConfig::default()
    };
    let bound = eval_bound(rules) as f32;
    positions
        .par_iter()
        .map_init(
            || Engine::<W>::new(rules, weights.clone(), search.clone()),
            |engine, game| {
                let (value, exact) = engine.value(game, config.label_depth);
                let label = (value - engine.komi_value(game)) as f32;
                Sample {
                    features: engine.evaluator().features(rules, game),
                    phase: engine.evaluator().phase(game),
                    label: label.clamp(-bound, bound),
                    exact,
                }
            },
        )
        .collect()
}

/// The regression inputs of a sample: each feature times the opening share, then times the
/// end share.
fn design_row(sample: &Sample) -> [f64; 2 * FEATURE_COUNT] {
    let (opening, end) = (f64::from(1.0 - sample.phase), f64::from(sample.phase));
    std::array::from_fn(|i| {
        let feature = f64::from(sample.features[i % FEATURE_COUNT]);
        if i < FEATURE_COUNT {
            feature * opening
        } else {
            feature * end
        }
    })
}

/// The prediction of some weights for a sample.
fn predict(weights: &Weights, sample: &Sample) -> f64 {
    let coefficients = weights.opening.iter().chain(&weights.endgame);
    design_row(sample)
        .iter()
        .zip(coefficients)
        .map(|(x, &w)| x * f64::from(w))
        .sum()
}

/// Root-mean-square error in discs.
pub fn error(weights: &Weights, samples: &[Sample]) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|sample| (predict(weights, sample) - f64::from(sample.label)).powi(2))
        .sum();
    (total / samples.len().max(1) as f64).sqrt() / 100.0
}

/// Ridge regression of the labels on the design rows.
///
/// # Errors
/// When the system is singular.
pub fn fit(samples: &[Sample], ridge: f64) -> Result<Weights, TuneError> {
    let columns = 2 * FEATURE_COUNT;
    let rows: Vec<f64> = samples.iter().flat_map(design_row).collect();
    let design = DMatrix::from_row_slice(samples.len(), columns, &rows);
    let labels = DVector::from_iterator(samples.len(), samples.iter().map(|s| f64::from(s.label)));
    let mut normal = design.transpose() * &design;
    // Scale the penalty with the data so that it means the same at any sample count; a
    // feature that never varies (supply under unlimited supplies) gets weight 0.
    let penalty = ridge * samples.len() as f64;
    for i in 0..columns {
        normal[(i, i)] += penalty;
    }
    let solution = normal
        .cholesky()
        .ok_or(TuneError::Singular)?
        .solve(&(design.transpose() * labels));
    let weight = |i: usize| solution[i] as f32;
    Ok(Weights::linear(
        std::array::from_fn(weight),
        std::array::from_fn(|i| weight(FEATURE_COUNT + i)),
    ))
}

/// Collects, labels and fits; the positions of one game in five are held out to measure the
/// fit.
///
/// # Errors
/// Too few positions, or a singular system.
pub fn tune(rules: &Rules, start: &Weights, config: &TuneConfig) -> Result<TuneReport, TuneError> {
    with_width!(rules.square_count(), W => tune_at::<W>(rules, start, config))
}

fn tune_at<W: Bitboard>(
    rules: &Rules,
    start: &Weights,
    config: &TuneConfig,
) -> Result<TuneReport, TuneError> {
    let positions = collect_positions::<W>(rules, start, config.positions, config.seed);
    if positions.len() < 50 {
        return Err(TuneError::TooFewPositions(positions.len()));
    }
    let games: Vec<Game<W>> = positions.iter().map(|c| c.position.clone()).collect();
    let samples = label(rules, start, &games, config);
    let (mut training, mut held_out) = (Vec::new(), Vec::new());
    for (collected, sample) in positions.iter().zip(&samples) {
        if is_held_out(collected.game) {
            held_out.push(sample.clone());
        } else {
            training.push(sample.clone());
        }
    }
    let weights = fit(&training, config.ridge)?;
    Ok(TuneReport {
        held_out_error_before: error(start, &held_out),
        held_out_error_after: error(&weights, &held_out),
        exact_labels: samples.iter().filter(|sample| sample.exact).count(),
        training: training.len(),
        held_out: held_out.len(),
        weights,
    })
}
