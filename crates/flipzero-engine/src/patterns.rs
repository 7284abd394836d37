//! Pattern evaluation: the value of each configuration of a group of squares (an edge with
//! its X squares, a corner block, a row, a diagonal), learned from positions, as strong
//! Othello engines score a position. Every instance of a shape under the board's symmetries
//! shares one table, one table set per game stage (by discs on the board), and each linear
//! feature of [`crate::eval`] adds a table over its value (so mobility or parity may count
//! differently at each stage and not only in proportion).
//!
//! The model adds to the linear evaluation: the tables are fitted to what the linear weights
//! leave unexplained, so a configuration the training positions never showed is worth 0 and
//! the linear evaluation stands alone there.
//!
//! A model is stored in a compact file (`.fzp`): a magic, a format version, the
//! bincode-encoded model deflated, and a CRC-32 seal. `flipzero tune --model patterns` writes
//! one per preset and board size; the embedded ones are listed in [`EMBEDDED_MODELS`].

use std::io::Read;

use flipzero_core::variant::rules::Topology;
use flipzero_core::{Bitboard, Game, Geometry, Rules, Square, Symmetry};
use serde::{Deserialize, Serialize};

use crate::eval::{FEATURE_COUNT, Features};

/// The most squares in one shape: 3^10 = 59,049 configurations a table.
pub const MAX_SHAPE_SQUARES: usize = 10;
/// The most stages a model may have.
pub const MAX_STAGES: u32 = 64;
/// The first bytes of a pattern file.
pub const MAGIC: &[u8; 8] = b"FZPATTRN";
/// The format version written.
pub const FORMAT_VERSION: u32 = 1;
/// The most bytes a pattern file may decompress to (a 16x16 board's model is far smaller).
const MAX_DECODED_BYTES: u64 = 256 << 20;

/// The pattern files built into the binary, by the name weights profiles give them.
pub const EMBEDDED_MODELS: &[(&str, &[u8])] = &[
    (
        "patterns/othello-6x6.fzp",
        include_bytes!("../../../configs/eval/patterns/othello-6x6.fzp"),
    ),
    (
        "patterns/othello-8x8.fzp",
        include_bytes!("../../../configs/eval/patterns/othello-8x8.fzp"),
    ),
];

/// A shape as stored: a name and its squares in the base position (square indices, row-major),
/// the first square the most significant digit of a configuration's index.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Shape {
    /// What the shape is (`edge-x`, `corner-3x3`, ...).
    pub name: String,
    /// Its squares.
    pub squares: Vec<u8>,
}

/// One placed copy of a shape: its squares and where its shape's table starts.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Instance {
    squares: Vec<u8>,
    table_start: u32,
}

/// The model as stored.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct StoredModel {
    rows: u8,
    cols: u8,
    stages: u32,
    shapes: Vec<Shape>,
    /// Per stage, every table in order: the features' tables, then the shapes'.
    values: Vec<Vec<i16>>,
    note: String,
}

/// A pattern file or model that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern model {source_name}: {reason}")]
pub struct PatternError {
    /// Where the model came from.
    pub source_name: String,
    /// What is wrong.
    pub reason: String,
}

/// A pattern evaluation for one board size: values in centi-discs of the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternModel {
    stored: StoredModel,
    instances: Vec<Instance>,
    /// Entries of one stage's tables.
    stage_size: usize,
    squares: u32,
}

/// Whether a pattern model can evaluate these rules: a square board with edges and corners,
/// and no third kind of disc (neutrals), which the tables' three states per square leave out.
pub fn fits(rules: &Rules) -> bool {
    rules.rows() == rules.cols()
        && rules.spec().board.topology != Topology::Torus
        && rules.spec().neutral.is_none()
}

/// The half-width of a feature's table: a feature counts at most every square.
fn feature_reach(squares: u32) -> i32 {
    squares as i32
}

/// The shapes of strong engines, fitted to a side of `side` squares: the edge with its two X
/// squares, the 3x3 and 2x5 corner blocks, every row and column from the second to the
/// middle, and every diagonal of four squares or more. Lines longer than
/// [`MAX_SHAPE_SQUARES`] keep the squares nearest their start.
pub fn standard_shapes(side: u8) -> Vec<Shape> {
    let n = i32::from(side);
    let index = |row: i32, col: i32| (row * n + col) as u8;
    let mut shapes = Vec::new();
    let mut push = |name: String, squares: Vec<(i32, i32)>| {
        let squares: Vec<u8> = squares
            .into_iter()
            .filter(|&(row, col)| row < n && col < n)
            .take(MAX_SHAPE_SQUARES)
            .map(|(row, col)| index(row, col))
            .collect();
        if squares.len() >= 4 {
            shapes.push(Shape { name, squares });
        }
    };
    let mut edge: Vec<(i32, i32)> = (0..n).map(|col| (0, col)).collect();
    if edge.len() + 2 <= MAX_SHAPE_SQUARES {
        edge.extend([(1, 1), (1, n - 2)]);
    }
    push("edge-x".to_owned(), edge);
    push(
        "corner-3x3".to_owned(),
        (0..3)
            .flat_map(|row| (0..3).map(move |col| (row, col)))
            .collect(),
    );
    push(
        "corner-2x5".to_owned(),
        (0..2)
            .flat_map(|row| (0..5).map(move |col| (row, col)))
            .collect(),
    );
    for row in 1..n / 2 {
        push(
            format!("row-{}", row + 1),
            (0..n).map(|col| (row, col)).collect(),
        );
    }
    for length in (4..=n).rev() {
        push(
            format!("diagonal-{length}"),
            (0..length).map(|k| (k, length - 1 - k)).collect(),
        );
    }
    shapes
}

/// Every placed copy of each shape under the board's symmetries, with the start of its
/// shape's table; copies that cover the same squares are kept once.
fn instances(side: u8, shapes: &[Shape], first_table: usize) -> Vec<Instance> {
    let mut instances = Vec::new();
    let mut table_start = first_table;
    for shape in shapes {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        for symmetry in Symmetry::ALL {
            let squares = images(side, symmetry, &shape.squares);
            let mut set = squares.clone();
            set.sort_unstable();
            if !seen.contains(&set) {
                seen.push(set);
                instances.push(Instance {
                    squares,
                    table_start: table_start as u32,
                });
            }
        }
        table_start += table_len(shape);
    }
    instances
}

/// For each entry of one stage's tables, the entry that stands for it: the least among the
/// configurations that a symmetry mapping the shape's squares onto themselves (an edge read
/// backwards) makes of it. Tables that give every configuration its representative's value
/// evaluate a position and its mirror images alike.
fn canonical_entries(side: u8, shapes: &[Shape]) -> Vec<u32> {
    let squares = u32::from(side) * u32::from(side);
    let mut canonical: Vec<u32> = (0..feature_tables_len(squares) as u32).collect();
    for shape in shapes {
        let length = shape.squares.len();
        let permutations: Vec<Vec<usize>> = Symmetry::ALL
            .into_iter()
            .filter_map(|symmetry| {
                let image = images(side, symmetry, &shape.squares);
                image
                    .iter()
                    .map(|square| shape.squares.iter().position(|s| s == square))
                    .collect::<Option<Vec<usize>>>()
            })
            .collect();
        let start = canonical.len() as u32;
        let mut digits = vec![0u32; length];
        for configuration in 0..table_len(shape) as u32 {
            let mut rest = configuration;
            for digit in digits.iter_mut().rev() {
                *digit = rest % 3;
                rest /= 3;
            }
            let least = permutations
                .iter()
                .map(|permutation| {
                    permutation
                        .iter()
                        .fold(0, |index, &k| 3 * index + digits[k])
                })
                .min()
                .unwrap_or(configuration);
            canonical.push(start + least);
        }
    }
    canonical
}

/// Where a symmetry of a square board of side `side` takes each of `squares`.
fn images(side: u8, symmetry: Symmetry, squares: &[u8]) -> Vec<u8> {
    flipzero_core::with_width!(u32::from(side) * u32::from(side), W => {
        let geometry = Geometry::<W>::get(side, side).expect("a checked board side");
        squares
            .iter()
            .map(|&square| symmetry.apply(geometry, Square(square)).0)
            .collect()
    })
}

/// Entries in a shape's table: three states a square.
fn table_len(shape: &Shape) -> usize {
    3usize.pow(shape.squares.len() as u32)
}

impl PatternModel {
    /// A model whose every entry is 0, for a square board of side `side`.
    ///
    /// # Errors
    /// A side, stage count or shape the format does not allow.
    pub fn zeros(side: u8, stages: u32, shapes: Vec<Shape>) -> Result<Self, PatternError> {
        let error = |reason: String| PatternError {
            source_name: "new model".to_owned(),
            reason,
        };
        if !(1..=MAX_STAGES).contains(&stages) {
            return Err(error(format!(
                "{stages} stages; a model has 1 to {MAX_STAGES}"
            )));
        }
        check_shapes(side, &shapes).map_err(error)?;
        let stage_size = stage_size(side, &shapes);
        Self::from_stored(
            StoredModel {
                rows: side,
                cols: side,
                stages,
                values: vec![vec![0; stage_size]; stages as usize],
                shapes,
                note: String::new(),
            },
            "new model",
        )
    }

    /// Checks a stored model and places its shapes.
    fn from_stored(stored: StoredModel, source_name: &str) -> Result<Self, PatternError> {
        let error = |reason: String| PatternError {
            source_name: source_name.to_owned(),
            reason,
        };
        let side = stored.rows;
        if stored.cols != side
            || !(flipzero_core::MIN_SIDE..=flipzero_core::MAX_SIDE).contains(&side)
        {
            return Err(error(format!(
                "a {}x{} board; pattern models are for square boards of side {} to {}",
                stored.rows,
                stored.cols,
                flipzero_core::MIN_SIDE,
                flipzero_core::MAX_SIDE
            )));
        }
        if !(1..=MAX_STAGES).contains(&stored.stages) {
            return Err(error(format!(
                "{} stages; a model has 1 to {MAX_STAGES}",
                stored.stages
            )));
        }
        let squares = u32::from(side) * u32::from(side);
        check_shapes(side, &stored.shapes).map_err(error)?;
        let stage_size = stage_size(side, &stored.shapes);
        if stored.values.len() != stored.stages as usize
            || stored
                .values
                .iter()
                .any(|values| values.len() != stage_size)
        {
            return Err(error(format!(
                "its tables do not match its shapes: {} stages of {stage_size} entries expected",
                stored.stages
            )));
        }
        let instances = instances(side, &stored.shapes, feature_tables_len(squares));
        Ok(Self {
            stored,
            instances,
            stage_size,
            squares,
        })
    }

    /// The board side.
    pub fn side(&self) -> u8 {
        self.stored.rows
    }

    /// The number of stages.
    pub fn stages(&self) -> u32 {
        self.stored.stages
    }

    /// The entries of one stage's tables.
    pub fn stage_size(&self) -> usize {
        self.stage_size
    }

    /// The shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.stored.shapes
    }

    /// How the tables were made.
    pub fn note(&self) -> &str {
        &self.stored.note
    }

    /// The placed copies of the shapes on the board.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    /// The stage of a position with this many discs on the board.
    pub fn stage_of(&self, occupied: u32) -> usize {
        (occupied.min(self.squares) as usize * self.stored.stages as usize)
            / (self.squares as usize + 1)
    }

    /// The stage of `game`, and the index within that stage's tables of every entry the
    /// position reads, passed to `visit` (the evaluation sums them; the fit adjusts them).
    pub fn for_each_entry<W: Bitboard>(
        &self,
        features: &Features,
        game: &Game<W>,
        mut visit: impl FnMut(usize),
    ) -> usize {
        let reach = feature_reach(self.squares);
        for (feature, &value) in features.iter().enumerate() {
            let offset = (value.round() as i32).clamp(-reach, reach) + reach;
            visit(feature * (2 * reach as usize + 1) + offset as usize);
        }
        let me = game.side_to_move();
        let mut states = [0u8; 256];
        for square in game.discs(me).indices() {
            states[square as usize] = 1;
        }
        for square in game.discs(me.opponent()).indices() {
            states[square as usize] = 2;
        }
        for instance in &self.instances {
            let configuration = instance.squares.iter().fold(0usize, |index, &square| {
                3 * index + usize::from(states[usize::from(square)])
            });
            visit(instance.table_start as usize + configuration);
        }
        self.stage_of(self.squares - game.empty().count())
    }

    /// The tables' value of a position for its side to move, in centi-discs (added to the
    /// linear evaluation's).
    pub fn value<W: Bitboard>(&self, features: &Features, game: &Game<W>) -> i32 {
        let occupied = self.squares - game.empty().count();
        let values = &self.stored.values[self.stage_of(occupied)];
        let mut sum = 0i32;
        self.for_each_entry(features, game, |entry| sum += i32::from(values[entry]));
        sum
    }

    /// The same shapes with other values (centi-discs, rounded into the stored range) and a
    /// note on how they were fitted.
    ///
    /// # Panics
    /// When `values` does not have this model's stages and stage size.
    #[must_use]
    pub fn with_values(&self, values: &[Vec<f32>], note: String) -> Self {
        assert!(
            values.len() == self.stored.stages as usize
                && values.iter().all(|stage| stage.len() == self.stage_size),
            "values shaped as the model's tables"
        );
        let stored = StoredModel {
            values: values
                .iter()
                .map(|stage| {
                    stage
                        .iter()
                        .map(|&value| {
                            value
                                .round()
                                .clamp(f32::from(i16::MIN), f32::from(i16::MAX))
                                as i16
                        })
                        .collect()
                })
                .collect(),
            note,
            ..self.stored.clone()
        };
        Self {
            stored,
            ..self.clone()
        }
    }

    /// The same model with another note.
    #[must_use]
    pub fn with_note(&self, note: String) -> Self {
        let mut model = self.clone();
        model.stored.note = note;
        model
    }

    /// For each entry of a stage's tables, the entry whose value it takes in a fit
    /// (configurations that a symmetry of their shape exchanges share one value).
    pub fn canonical_entries(&self) -> Vec<u32> {
        canonical_entries(self.side(), &self.stored.shapes)
    }

    /// The stored values of a stage, as numbers.
    pub fn stage_values(&self, stage: usize) -> Vec<f32> {
        self.stored.values[stage]
            .iter()
            .map(|&v| f32::from(v))
            .collect()
    }

    /// The model as a pattern file: magic, version, deflated body, checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = bincode::serde::encode_to_vec(&self.stored, bincode::config::standard())
            .expect("a model always encodes");
        let mut encoder = flate2::write::DeflateEncoder::new(
            MAGIC
                .iter()
                .copied()
                .chain(FORMAT_VERSION.to_le_bytes())
                .collect::<Vec<u8>>(),
            flate2::Compression::best(),
        );
        std::io::Write::write_all(&mut encoder, &body).expect("writing to memory");
        let mut bytes = encoder.finish().expect("writing to memory");
        flipzero_data::files::seal(&mut bytes);
        bytes
    }

    /// Reads a pattern file.
    ///
    /// # Errors
    /// Not a pattern file, another format version, a damaged file, or a model that does not
    /// check.
    pub fn from_bytes(bytes: &[u8], source_name: &str) -> Result<Self, PatternError> {
        let error = |reason: String| PatternError {
            source_name: source_name.to_owned(),
            reason,
        };
        let header = MAGIC.len() + 4;
        if bytes.len() < header + flipzero_data::files::CHECKSUM_BYTES
            || &bytes[..MAGIC.len()] != MAGIC
        {
            return Err(error(
                "not a pattern file (it does not start with FZPATTRN)".to_owned(),
            ));
        }
        let version =
            u32::from_le_bytes(bytes[MAGIC.len()..header].try_into().expect("four bytes"));
        if version != FORMAT_VERSION {
            return Err(error(format!(
                "format version {version}; this build reads version {FORMAT_VERSION}"
            )));
        }
        let contents = flipzero_data::files::unseal(bytes).map_err(error)?;
        let mut body = Vec::new();
        flate2::read::DeflateDecoder::new(&contents[header..])
            .take(MAX_DECODED_BYTES + 1)
            .read_to_end(&mut body)
            .map_err(|e| error(format!("its body does not inflate: {e}")))?;
        if body.len() as u64 > MAX_DECODED_BYTES {
            return Err(error(format!(
                "its body inflates past {MAX_DECODED_BYTES} bytes"
            )));
        }
        const LIMIT: usize = MAX_DECODED_BYTES as usize;
        let (stored, read): (StoredModel, usize) = bincode::serde::decode_from_slice(
            &body,
            bincode::config::standard().with_limit::<LIMIT>(),
        )
        .map_err(|e| error(format!("its body does not decode: {e}")))?;
        if read != body.len() {
            return Err(error(format!(
                "{} bytes follow the model",
                body.len() - read
            )));
        }
        Self::from_stored(stored, source_name)
    }

    /// Reads a pattern file from disk.
    ///
    /// # Errors
    /// As [`PatternModel::from_bytes`], or when the file cannot be read.
    pub fn load(path: &std::path::Path) -> Result<Self, PatternError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| PatternError {
            source_name: name.clone(),
            reason: e.to_string(),
        })?;
        Self::from_bytes(&bytes, &name)
    }

    /// Writes the model to `path` (a temporary name, then renamed into place).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        flipzero_data::files::write_atomically(path, &self.to_bytes())
    }
}

/// Refuses a shape that is empty, too large, repeats a square or leaves the board (before
/// anything is sized from it).
fn check_shapes(side: u8, shapes: &[Shape]) -> Result<(), String> {
    let squares = u32::from(side) * u32::from(side);
    for shape in shapes {
        let mut sorted = shape.squares.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if shape.squares.is_empty()
            || shape.squares.len() > MAX_SHAPE_SQUARES
            || sorted.len() != shape.squares.len()
            || sorted.iter().any(|&square| u32::from(square) >= squares)
        {
            return Err(format!(
                "shape `{}` must be 1 to {MAX_SHAPE_SQUARES} distinct squares of the {side}x{side} \
                 board, not {:?}",
                shape.name, shape.squares
            ));
        }
    }
    Ok(())
}

/// Entries of the features' tables: one table of `2 * reach + 1` values per feature.
fn feature_tables_len(squares: u32) -> usize {
    FEATURE_COUNT * (2 * feature_reach(squares) as usize + 1)
}

/// Entries of one stage's tables.
fn stage_size(side: u8, shapes: &[Shape]) -> usize {
    let squares = u32::from(side) * u32::from(side);
    feature_tables_len(squares) + shapes.iter().map(table_len).sum::<usize>()
}

/// The embedded pattern file of this name.
pub fn embedded(name: &str) -> Option<Result<PatternModel, PatternError>> {
    EMBEDDED_MODELS
        .iter()
        .find(|(embedded_name, _)| *embedded_name == name)
        .map(|(_, bytes)| PatternModel::from_bytes(bytes, &format!("embedded {name}")))
}

#[cfg(test)]
mod tests {
    use flipzero_core::Preset;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::eval::{Evaluator, WeightsFile};

    fn othello(side: u8) -> Rules {
        Preset::Othello.rules(Some(side)).unwrap()
    }

    /// Positions of random games, every ply.
    fn random_positions(rules: &Rules, games: usize, seed: u64) -> Vec<Game<u64>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut positions = Vec::new();
        for _ in 0..games {
            let mut game = Game::<u64>::try_start(rules, rng.random()).unwrap();
            while !game.is_over() {
                positions.push(game.clone());
                let legal = game.legal_decisions(rules);
                game = game.play_unchecked(rules, legal[rng.random_range(0..legal.len())]);
            }
        }
        positions
    }

    #[test]
    fn the_8x8_shapes_are_those_of_strong_engines_placed_in_every_orientation() {
        let shapes = standard_shapes(8);
        let named: Vec<(&str, usize)> = shapes
            .iter()
            .map(|shape| (shape.name.as_str(), shape.squares.len()))
            .collect();
        assert_eq!(
            named,
            [
                ("edge-x", 10),
                ("corner-3x3", 9),
                ("corner-2x5", 10),
                ("row-2", 8),
                ("row-3", 8),
                ("row-4", 8),
                ("diagonal-8", 8),
                ("diagonal-7", 7),
                ("diagonal-6", 6),
                ("diagonal-5", 5),
                ("diagonal-4", 4),
            ]
        );
        let model = PatternModel::zeros(8, 10, shapes).unwrap();
        // Edges, 3x3 corners and rows four ways each, 2x5 corners eight, the long diagonals
        // two ways and the shorter ones four.
        assert_eq!(model.instance_count(), 4 + 4 + 8 + 3 * 4 + 2 + 4 * 4);
        assert_eq!(
            model.stage_size(),
            12 * 129 + 2 * 59_049 + 19_683 + 4 * 6_561 + 2_187 + 729 + 243 + 81
        );
        // The 6x6 edge with its X squares is eight squares.
        assert_eq!(standard_shapes(6)[0].squares, [0, 1, 2, 3, 4, 5, 7, 10]);
    }

    #[test]
    fn a_configuration_index_reads_own_discs_as_one_and_the_opponents_as_two() {
        let rules = othello(6);
        // Black to move; a1 black, b1 white, c1 black, the X square b2 white.
        let text = "XOX----O------OX----XO-------------- X";
        let game = Game::<u64>::from_text(&rules, text).unwrap();
        let edge = Shape {
            name: "edge-x".to_owned(),
            squares: standard_shapes(6)[0].squares.clone(),
        };
        let model = PatternModel::zeros(6, 1, vec![edge]).unwrap();
        let mut entries = Vec::new();
        model.for_each_entry(&[0.0; FEATURE_COUNT], &game, |entry| entries.push(entry));
        let first_table = 12 * (2 * 36 + 1);
        // The base instance, squares a1 b1 c1 d1 e1 f1 b2 e2, most significant first.
        let expected = [1, 2, 1, 0, 0, 0, 2, 0].iter().fold(0, |i, d| 3 * i + d);
        assert_eq!(entries[FEATURE_COUNT], first_table + expected);
        // Seen by White, the same squares read the other way round.
        let white = Game::<u64>::from_text(&rules, &text.replace(" X", " O")).unwrap();
        let mut entries = Vec::new();
        model.for_each_entry(&[0.0; FEATURE_COUNT], &white, |entry| entries.push(entry));
        let expected = [2, 1, 2, 0, 0, 0, 1, 0].iter().fold(0, |i, d| 3 * i + d);
        assert_eq!(entries[FEATURE_COUNT], first_table + expected);
        // A feature's value picks its entry: mobility 3 in the third table's middle + 3.
        let mut features = [0.0; FEATURE_COUNT];
        features[2] = 3.0;
        let mut entries = Vec::new();
        model.for_each_entry(&features, &game, |entry| entries.push(entry));
        assert_eq!(entries[2], 2 * 73 + 36 + 3);
    }

    #[test]
    fn tables_shared_by_symmetric_configurations_value_a_position_as_its_mirror_images() {
        for side in [6, 8] {
            let rules = othello(side);
            let model = PatternModel::zeros(side, 4, standard_shapes(side)).unwrap();
            let canonical = model.canonical_entries();
            let mut rng = ChaCha8Rng::seed_from_u64(u64::from(side));
            let values: Vec<Vec<f32>> = (0..4)
                .map(|_| {
                    let random: Vec<f32> = (0..model.stage_size())
                        .map(|_| rng.random_range(-500.0..500.0f32).round())
                        .collect();
                    canonical.iter().map(|&c| random[c as usize]).collect()
                })
                .collect();
            let model = model.with_values(&values, String::new());
            let geometry = Geometry::<u64>::get(side, side).unwrap();
            let evaluator = Evaluator::new(
                &rules,
                geometry,
                WeightsFile::embedded()
                    .weights_for(&rules, "embedded")
                    .unwrap(),
            );
            for game in random_positions(&rules, 3, 7) {
                let value = model.value(&evaluator.features(&rules, &game), &game);
                for symmetry in Symmetry::ALL {
                    let image = game.transformed(symmetry);
                    let features = evaluator.features(&rules, &image);
                    assert_eq!(model.value(&features, &image), value, "{symmetry:?}");
                }
            }
            // Without the sharing the mirror images would differ: the check can fail.
            let lopsided: Vec<Vec<f32>> = (0..4)
                .map(|_| (0..model.stage_size()).map(|i| (i % 7) as f32).collect())
                .collect();
            let lopsided = model.with_values(&lopsided, String::new());
            let differs = random_positions(&rules, 3, 7).iter().any(|game| {
                let image = game.transformed(Symmetry::MirrorColumns);
                lopsided.value(&evaluator.features(&rules, game), game)
                    != lopsided.value(&evaluator.features(&rules, &image), &image)
            });
            assert!(differs);
        }
    }

    #[test]
    fn a_pattern_file_reads_back_equal_and_damage_is_refused_by_name() {
        let model = PatternModel::zeros(6, 3, standard_shapes(6)).unwrap();
        let values: Vec<Vec<f32>> = (0..3)
            .map(|stage| {
                (0..model.stage_size())
                    .map(|i| {
                        if i % 97 == 0 {
                            (stage * 10 + i % 50) as f32
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let model = model.with_values(&values, "test model".to_owned());
        let bytes = model.to_bytes();
        // Mostly zeros: far smaller than two bytes an entry.
        assert!(bytes.len() < model.stage_size(), "{} bytes", bytes.len());
        let back = PatternModel::from_bytes(&bytes, "m.fzp").unwrap();
        assert_eq!(back, model);
        assert_eq!(back.note(), "test model");

        let mut flipped = bytes.clone();
        flipped[20] ^= 4;
        let error = PatternModel::from_bytes(&flipped, "m.fzp")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("m.fzp") && error.contains("damaged"),
            "{error}"
        );
        let error = PatternModel::from_bytes(&bytes[..bytes.len() / 2], "m.fzp")
            .unwrap_err()
            .to_string();
        assert!(error.contains("damaged"), "{error}");
        let error = PatternModel::from_bytes(b"not a model at all", "m.fzp")
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a pattern file"), "{error}");
        let mut newer = bytes.clone();
        newer[8] = 9;
        let error = PatternModel::from_bytes(&newer, "m.fzp")
            .unwrap_err()
            .to_string();
        assert!(error.contains("format version 9"), "{error}");
    }

    #[test]
    fn a_stored_model_that_does_not_check_is_refused_before_it_is_sized() {
        let model = |rows: u8, stages: u32, shapes: Vec<Shape>, values: Vec<Vec<i16>>| {
            PatternModel::from_stored(
                StoredModel {
                    rows,
                    cols: rows,
                    stages,
                    shapes,
                    values,
                    note: String::new(),
                },
                "m.fzp",
            )
            .unwrap_err()
            .reason
        };
        let shape = |squares: Vec<u8>| Shape {
            name: "s".to_owned(),
            squares,
        };
        assert!(model(3, 1, vec![], vec![]).contains("square boards of side 4 to 16"));
        assert!(model(6, 0, vec![], vec![]).contains("0 stages"));
        assert!(model(6, 1, vec![shape((0..40).collect())], vec![]).contains("distinct squares"));
        assert!(model(6, 1, vec![shape(vec![1, 1])], vec![]).contains("distinct squares"));
        assert!(model(6, 1, vec![shape(vec![36])], vec![]).contains("distinct squares"));
        assert!(model(6, 2, vec![shape(vec![0])], vec![vec![0; 3]]).contains("do not match"));
    }

    #[test]
    fn pattern_models_fit_boards_with_edges_and_two_kinds_of_disc() {
        assert!(fits(&othello(8)));
        assert!(fits(&Preset::Anti.rules(Some(6)).unwrap()));
        assert!(!fits(&Preset::Neuversi.rules(None).unwrap()));
        assert!(!fits(&Preset::Biversi.rules(None).unwrap()));
    }
}
