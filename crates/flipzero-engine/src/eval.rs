//! Static evaluation for every objective: a linear model over features that strong Othello
//! engines use, with one weight set for the opening and one for the end, blended by how full
//! the board is. The model predicts the final disc margin of the side to move in centi-discs,
//! signed by the objective (fewer discs is better under anti-Othello); komi is added by the
//! search, not here.
//!
//! Weights live in a TOML data file (`configs/eval/weights.toml`, embedded in the binary);
//! `flipzero tune` fits them per preset and board size. A profile may also name a pattern
//! model ([`crate::patterns`]) whose tables add to the linear value.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use flipzero_core::variant::rules::{Objective, SupplySpec, Topology};
use flipzero_core::{Bitboard, Color, Game, Geometry, Preset, Rules};
use serde::{Deserialize, Serialize};

use crate::patterns::{self, PatternError, PatternModel};
use crate::probcut::ProbCutSpec;

/// The evaluation features, in the order of [`Features`].
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    "bias",
    "discs",
    "mobility",
    "frontier",
    "corners",
    "x-squares",
    "c-squares",
    "edges",
    "stable",
    "parity",
    "supply",
    "lines",
];

/// Number of evaluation features.
pub const FEATURE_COUNT: usize = 12;

/// Feature values of one position, each "side to move minus opponent" unless said otherwise:
/// `bias` (always 1: the value of having the move), `discs`, `mobility` (squares where a
/// placement flanks), `frontier` (empty squares next to the opponent's discs minus those next
/// to one's own: potential mobility), `corners`, `x-squares` and `c-squares` (discs beside an
/// empty corner), `edges` (other edge discs), `stable` (corner discs and the unbroken runs of
/// one colour along the edges from them), `parity` (1 when the number of empties is odd, so
/// the side to move would play last, else -1), `supply` (discs left to place, where supplies
/// are limited) and `lines` (the most discs in a still-open winning window, under a line
/// objective).
pub type Features = [f32; FEATURE_COUNT];

/// The embedded weights file.
pub const DEFAULT_WEIGHTS: &str = include_str!("../../../configs/eval/weights.toml");

/// A weights file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The TOML does not parse or has unknown keys.
    #[error("{source_name}: {message}")]
    Toml {
        /// Where the text came from.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A feature name that the evaluation does not have.
    #[error("{source_name}: profile `{profile}` names an unknown feature `{feature}` (known: {})", FEATURE_NAMES.join(", "))]
    UnknownFeature {
        /// Where the text came from.
        source_name: String,
        /// The profile.
        profile: String,
        /// The unknown name.
        feature: String,
    },
    /// A weight that is not a finite number.
    #[error("{source_name}: profile `{profile}` gives `{feature}` a weight that is not finite")]
    NotFinite {
        /// Where the text came from.
        source_name: String,
        /// The profile.
        profile: String,
        /// The feature.
        feature: String,
    },
    /// A pattern model that cannot be read.
    #[error(transparent)]
    Patterns(#[from] PatternError),
    /// A profile's pattern model is for other rules or another board.
    #[error("{source_name}: profile `{profile}`: {reason}")]
    PatternsDoNotFit {
        /// Where the text came from.
        source_name: String,
        /// The profile.
        profile: String,
        /// Why the model does not apply.
        reason: String,
    },
    /// A profile's ProbCut lines are malformed.
    #[error("{source_name}: profile `{profile}`: {reason}")]
    BadProbCut {
        /// Where the text came from.
        source_name: String,
        /// The profile.
        profile: String,
        /// What is wrong.
        reason: String,
    },
    /// The file has no profile for these rules.
    #[error("{source_name}: no profile for `{wanted}` (nor the objective's default)")]
    Missing {
        /// Where the text came from.
        source_name: String,
        /// The profile looked for.
        wanted: String,
    },
}

/// One weight set as written in the file: feature name to centi-discs per unit.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// Where the weights came from (hand-set, or the tune command that fitted them).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Weights with the board nearly empty.
    pub opening: BTreeMap<String, f32>,
    /// Weights with the board full.
    pub endgame: BTreeMap<String, f32>,
    /// A pattern file whose tables add to these weights' value, relative to the weights
    /// file's folder (for the embedded file: one of [`patterns::EMBEDDED_MODELS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<String>,
    /// Multi-ProbCut lines fitted over this evaluation (`flipzero tune --model probcut`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probcut: Option<ProbCutSpec>,
}

/// A weights file: profiles keyed by `<preset>/<rows>x<cols>`, `<preset>`, or an objective
/// default (`most-discs`, `fewest-discs`, `line`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeightsFile {
    /// The profiles by key.
    pub profiles: BTreeMap<String, ProfileSpec>,
    /// The pattern models the profiles name, read with the file.
    #[serde(skip)]
    pub models: BTreeMap<String, Arc<PatternModel>>,
}

impl WeightsFile {
    /// Parses and checks a weights file whose pattern models are the embedded ones.
    ///
    /// # Errors
    /// Bad TOML, unknown keys or features, weights that are not finite, or a pattern model
    /// that is not embedded.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, WeightsError> {
        Self::parse_with_models(text, source_name, None)
    }

    /// Reads a weights file and the pattern files it names (beside it).
    ///
    /// # Errors
    /// As [`WeightsFile::parse`], or a file that cannot be read.
    pub fn load(path: &Path) -> Result<Self, WeightsError> {
        let source_name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| WeightsError::Toml {
            source_name: source_name.clone(),
            message: error.to_string(),
        })?;
        let folder = path.parent().unwrap_or(Path::new("."));
        Self::parse_with_models(&text, &source_name, Some(folder))
    }

    /// Parses a weights file and reads the pattern models it names: from `folder`, or the
    /// embedded ones when `None`.
    fn parse_with_models(
        text: &str,
        source_name: &str,
        folder: Option<&Path>,
    ) -> Result<Self, WeightsError> {
        let mut file = Self::parse_text(text, source_name)?;
        let names: Vec<String> = file
            .profiles
            .values()
            .filter_map(|profile| profile.patterns.clone())
            .collect();
        for name in names {
            if file.models.contains_key(&name) {
                continue;
            }
            let model = match folder {
                Some(folder) => PatternModel::load(&folder.join(&name))?,
                None => patterns::embedded(&name).unwrap_or_else(|| {
                    Err(PatternError {
                        source_name: name.clone(),
                        reason: format!("{source_name} names it, and it is not embedded"),
                    })
                })?,
            };
            file.models.insert(name, Arc::new(model));
        }
        Ok(file)
    }

    /// Parses and checks the TOML text alone.
    fn parse_text(text: &str, source_name: &str) -> Result<Self, WeightsError> {
        let file: WeightsFile = toml::from_str(text).map_err(|error| WeightsError::Toml {
            source_name: source_name.to_owned(),
            message: error.to_string(),
        })?;
        for (profile, spec) in &file.profiles {
            if let Some(Err(reason)) = spec.probcut.as_ref().map(ProbCutSpec::check) {
                return Err(WeightsError::BadProbCut {
                    source_name: source_name.to_owned(),
                    profile: profile.clone(),
                    reason,
                });
            }
            for (feature, weight) in spec.opening.iter().chain(&spec.endgame) {
                let error_fields = || (source_name.to_owned(), profile.clone(), feature.clone());
                if !FEATURE_NAMES.contains(&feature.as_str()) {
                    let (source_name, profile, feature) = error_fields();
                    return Err(WeightsError::UnknownFeature {
                        source_name,
                        profile,
                        feature,
                    });
                }
                if !weight.is_finite() {
                    let (source_name, profile, feature) = error_fields();
                    return Err(WeightsError::NotFinite {
                        source_name,
                        profile,
                        feature,
                    });
                }
            }
        }
        Ok(file)
    }

    /// The embedded default weights, parsed once per process (every agent made asks for
    /// them: parsing them each time took most of a protocol session's start).
    pub fn embedded() -> &'static Self {
        static EMBEDDED: std::sync::OnceLock<WeightsFile> = std::sync::OnceLock::new();
        EMBEDDED.get_or_init(|| {
            Self::parse(DEFAULT_WEIGHTS, "configs/eval/weights.toml")
                .expect("the embedded weights file is valid (checked by a test)")
        })
    }

    /// The weights for `rules`: the preset at this size, else the preset, else the
    /// objective's default.
    ///
    /// # Errors
    /// When none of those profiles is in the file.
    pub fn weights_for(&self, rules: &Rules, source_name: &str) -> Result<Weights, WeightsError> {
        let keys = profile_keys(rules);
        let Some((key, spec)) = keys
            .iter()
            .find_map(|key| self.profiles.get(key).map(|spec| (key, spec)))
        else {
            return Err(WeightsError::Missing {
                source_name: source_name.to_owned(),
                wanted: keys.join("` or `"),
            });
        };
        let mut weights = Weights::from_spec(spec);
        if let Some(name) = &spec.patterns {
            let does_not_fit = |reason: String| WeightsError::PatternsDoNotFit {
                source_name: source_name.to_owned(),
                profile: key.clone(),
                reason,
            };
            let model = self.models.get(name).ok_or_else(|| {
                does_not_fit(format!(
                    "{name} was not read with the file (read it with WeightsFile::load or parse)"
                ))
            })?;
            if !patterns::fits(rules) {
                return Err(does_not_fit(format!(
                    "{name} cannot evaluate these rules (pattern models need a square board \
                     with edges and no neutral discs)"
                )));
            }
            if model.side() != rules.rows() {
                return Err(does_not_fit(format!(
                    "{name} is for a {0}x{0} board, not {1}x{1}",
                    model.side(),
                    rules.rows()
                )));
            }
            weights.patterns = Some(Arc::clone(model));
        }
        Ok(weights)
    }

    /// The file as TOML text, with a header that says what it is.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("weights always serialise");
        format!("{WEIGHTS_HEADER}\n{body}")
    }
}

const WEIGHTS_HEADER: &str = "\
# Evaluation weights of the classical engine (crates/flipzero-engine/src/eval.rs).
#
# Each profile predicts the final disc margin of the side to move, in centi-discs, as a sum of
# feature x weight; `opening` applies to an empty board, `endgame` to a full one, and the two
# are blended by the share of occupied squares. Keys: `<preset>/<rows>x<cols>`, `<preset>`, or
# the objective defaults `most-discs`, `fewest-discs` and `line`, tried in that order.
# Features: bias, discs, mobility, frontier, corners, x-squares, c-squares, edges, stable,
# parity, supply, lines (see the module docs). `flipzero tune` rewrites fitted profiles.
";

/// The profile keys for `rules`, most specific first.
pub fn profile_keys(rules: &Rules) -> Vec<String> {
    let mut keys = Vec::new();
    if let Some(preset) = identify_preset(rules) {
        keys.push(format!(
            "{}/{}x{}",
            preset.name(),
            rules.rows(),
            rules.cols()
        ));
        keys.push(preset.name().to_owned());
    }
    keys.push(
        match rules.spec().objective {
            Objective::MostDiscs => "most-discs",
            Objective::FewestDiscs => "fewest-discs",
            Objective::Line { .. } => "line",
        }
        .to_owned(),
    );
    keys
}

/// The preset whose rules these are, at their board size.
pub fn identify_preset(rules: &Rules) -> Option<Preset> {
    if rules.rows() != rules.cols() {
        return None;
    }
    Preset::ALL.into_iter().find(|preset| {
        preset
            .rules(Some(rules.rows()))
            .is_ok_and(|r| r.spec() == rules.spec())
    })
}

/// Weights ready for use, in feature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Weights with the board empty.
    pub opening: Features,
    /// Weights with the board full.
    pub endgame: Features,
    /// Tables whose value adds to the linear one.
    pub patterns: Option<Arc<PatternModel>>,
    /// Multi-ProbCut lines fitted over this evaluation, for the search.
    pub probcut: Option<Arc<ProbCutSpec>>,
}

impl Weights {
    fn from_spec(spec: &ProfileSpec) -> Self {
        let read = |map: &BTreeMap<String, f32>| {
            FEATURE_NAMES.map(|name| map.get(name).copied().unwrap_or(0.0))
        };
        Self {
            opening: read(&spec.opening),
            endgame: read(&spec.endgame),
            patterns: None,
            probcut: spec.probcut.clone().map(Arc::new),
        }
    }

    /// The linear weights alone.
    pub fn linear(opening: Features, endgame: Features) -> Self {
        Self {
            opening,
            endgame,
            patterns: None,
            probcut: None,
        }
    }

    /// The linear weights as a file profile (without a pattern model or ProbCut lines, which
    /// belong to the evaluation they were fitted over).
    pub fn to_spec(&self, note: String) -> ProfileSpec {
        let write = |weights: &Features| {
            FEATURE_NAMES
                .iter()
                .zip(weights)
                .map(|(name, &weight)| ((*name).to_owned(), (weight * 10.0).round() / 10.0))
                .collect()
        };
        ProfileSpec {
            note,
            opening: write(&self.opening),
            endgame: write(&self.endgame),
            patterns: None,
            probcut: None,
        }
    }
}

/// The squares an evaluation reads, per board shape.
#[derive(Clone, Debug)]
struct Landmarks<W> {
    corners: W,
    /// Per corner: the corner, its diagonal neighbour and its two edge neighbours.
    corner_neighbours: Vec<(W, W, W)>,
    edges: W,
    /// From each corner, the squares along each of its two edges, nearest first.
    edge_runs: Vec<(W, Vec<W>)>,
}

impl<W: Bitboard> Landmarks<W> {
    fn new(geometry: &Geometry<W>, torus: bool) -> Self {
        if torus {
            // A torus has no corners and no edges.
            return Self {
                corners: W::EMPTY,
                corner_neighbours: Vec::new(),
                edges: W::EMPTY,
                edge_runs: Vec::new(),
            };
        }
        let (last_row, last_col) = (
            i32::from(geometry.rows()) - 1,
            i32::from(geometry.cols()) - 1,
        );
        let at = |row: i32, col: i32| {
            geometry
                .square_at(row, col)
                .map_or(W::EMPTY, |square| W::square(square.index()))
        };
        let mut landmarks = Self {
            corners: W::EMPTY,
            corner_neighbours: Vec::new(),
            edges: W::EMPTY,
            edge_runs: Vec::new(),
        };
        for (row, col, row_step, col_step) in [
            (0, 0, 1, 1),
            (0, last_col, 1, -1),
            (last_row, 0, -1, 1),
            (last_row, last_col, -1, -1),
        ] {
            let corner = at(row, col);
            landmarks.corners |= corner;
            landmarks.corner_neighbours.push((
                corner,
                at(row + row_step, col + col_step),
                at(row + row_step, col) | at(row, col + col_step),
            ));
            let along_row = (1..=last_col)
                .map(|k| at(row, col + k * col_step))
                .collect();
            let along_col = (1..=last_row)
                .map(|k| at(row + k * row_step, col))
                .collect();
            landmarks.edge_runs.push((corner, along_row));
            landmarks.edge_runs.push((corner, along_col));
        }
        for square in geometry.squares() {
            let (row, col) = geometry.coordinates(square);
            let (row, col) = (i32::from(row), i32::from(col));
            if row == 0 || col == 0 || row == last_row || col == last_col {
                landmarks.edges |= W::square(square.index());
            }
        }
        landmarks.edges &= !landmarks.corners;
        landmarks
    }

    /// Corner discs of `discs` and the unbroken runs along the edges from them.
    fn stable(&self, discs: W) -> W {
        let mut stable = discs & self.corners;
        for (corner, run) in &self.edge_runs {
            if (discs & *corner).is_empty() {
                continue;
            }
            for &square in run {
                if (discs & square).is_empty() {
                    break;
                }
                stable |= square;
            }
        }
        stable
    }
}

/// An evaluation for one set of rules.
#[derive(Clone, Debug)]
pub struct Evaluator<W> {
    weights: Weights,
    landmarks: Landmarks<W>,
    squares: u32,
    limited_supply: bool,
}

/// The largest value an evaluation returns, in centi-discs: a whole board.
pub fn eval_bound(rules: &Rules) -> i32 {
    100 * rules.square_count() as i32
}

impl<W: Bitboard> Evaluator<W> {
    /// An evaluator with these weights.
    pub fn new(rules: &Rules, geometry: &Geometry<W>, weights: Weights) -> Self {
        Self {
            weights,
            landmarks: Landmarks::new(geometry, rules.spec().board.topology == Topology::Torus),
            squares: rules.square_count(),
            limited_supply: !matches!(rules.spec().supply, SupplySpec::Unlimited),
        }
    }

    /// The weights in use.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The share of occupied squares, 0 to 1: how far the blend leans to the end weights.
    pub fn phase(&self, game: &Game<W>) -> f32 {
        1.0 - game.empty().count() as f32 / self.squares as f32
    }

    /// The features of a position, seen by its side to move.
    pub fn features(&self, rules: &Rules, game: &Game<W>) -> Features {
        let me = game.side_to_move();
        let (mine, theirs) = (game.discs(me), game.discs(me.opponent()));
        let empty = game.empty();
        let landmarks = &self.landmarks;
        let difference = |set: W| (mine & set).count() as f32 - (theirs & set).count() as f32;
        let beside_empty_corner = |pick: fn(&(W, W, W)) -> W| {
            landmarks
                .corner_neighbours
                .iter()
                .filter(|(corner, ..)| !(*corner & empty).is_empty())
                .fold(W::EMPTY, |set, neighbours| set | pick(neighbours))
        };
        let supply = |color: Color| {
            let [own, other] = game.supply(color);
            f32::from(own) + f32::from(other)
        };
        let best_open_window = |own: W, blockers: W| {
            game.line_windows()
                .iter()
                .filter(|&&window| (window & blockers).is_empty())
                .map(|&window| (window & own).count())
                .max()
                .unwrap_or(0) as f32
        };
        let neutral = game.neutral();
        [
            1.0,
            mine.count() as f32 - theirs.count() as f32,
            game.flank_squares(rules, me).count() as f32
                - game.flank_squares(rules, me.opponent()).count() as f32,
            (empty & game.neighbours(theirs)).count() as f32
                - (empty & game.neighbours(mine)).count() as f32,
            difference(landmarks.corners),
            difference(beside_empty_corner(|(_, x, _)| *x)),
            difference(beside_empty_corner(|(_, _, c)| *c)),
            difference(landmarks.edges),
            landmarks.stable(mine).count() as f32 - landmarks.stable(theirs).count() as f32,
            if empty.count() % 2 == 1 { 1.0 } else { -1.0 },
            if self.limited_supply {
                supply(me) - supply(me.opponent())
            } else {
                0.0
            },
            best_open_window(mine, theirs | neutral) - best_open_window(theirs, mine | neutral),
        ]
    }

    /// The blend of opening and end weights at a phase, one per feature.
    pub fn blended(&self, phase: f32) -> Features {
        std::array::from_fn(|i| {
            self.weights.opening[i] * (1.0 - phase) + self.weights.endgame[i] * phase
        })
    }

    /// The predicted final margin for the side to move, in centi-discs, objective-signed and
    /// without komi.
    pub fn evaluate(&self, rules: &Rules, game: &Game<W>) -> i32 {
        let features = self.features(rules, game);
        let mut value = self.linear_value(&features, game);
        if let Some(model) = &self.weights.patterns {
            value += model.value(&features, game) as f32;
        }
        let bound = eval_bound(rules) as f32;
        value.clamp(-bound, bound).round() as i32
    }

    /// The linear part of the value, from a position's features.
    pub fn linear_value(&self, features: &Features, game: &Game<W>) -> f32 {
        let weights = self.blended(self.phase(game));
        features.iter().zip(weights).map(|(f, w)| f * w).sum()
    }
}
