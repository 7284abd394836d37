//! Export for other front-ends: the network as ONNX (traced by `burn-onnx`, dynamic batch
//! axis) and as safetensors (written by `burn-store` in PyTorch's names and layouts), beside a
//! JSON description that says how to encode a position and read the outputs, and optionally
//! test vectors: random legal positions with the planes and the outputs this build computes,
//! so a front-end can check its encoder and its runtime against ours.
//!
//! Every file is written to a temporary name and renamed into place.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use burn::module::Module;
use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, SafetensorsStore};
use burn::tensor::{Device, Tensor, TensorData};
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter, Opset};
use flipzero_core::{Bitboard, Decision, Game, Rules, RulesSpec, variant::notation, with_width};
use flipzero_data::Encoder;
use flipzero_data::encoder::{ENCODER_VERSION, PLANES, legal_mask};
use flipzero_data::files::{FileError, write_atomically};
use onnx_ir::{Message, ModelProto};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::checkpoint::Checkpoint;
use crate::net::{NetConfig, PolicyValueNet};

/// Version of the metadata layout below; front-ends should refuse a newer one.
pub const EXPORT_FORMAT_VERSION: u32 = 1;
/// The ONNX operator set the model is written in.
pub const ONNX_OPSET: u32 = 18;
/// Names of the ONNX graph's input and outputs.
pub const INPUT_NAME: &str = "planes";
/// Names of the outputs, in the graph's order.
pub const OUTPUT_NAMES: [&str; 3] = ["policy_logits", "wdl_logits", "score"];
/// File names inside the export directory.
pub const ONNX_FILE: &str = "model.onnx";
/// The safetensors weights.
pub const SAFETENSORS_FILE: &str = "model.safetensors";
/// The JSON description.
pub const METADATA_FILE: &str = "model.json";
/// The test vectors.
pub const TEST_VECTORS_FILE: &str = "test-vectors.json";

/// A file format the network can be exported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// ONNX, opset [`ONNX_OPSET`], dynamic batch axis.
    Onnx,
    /// safetensors weights, PyTorch names and layouts.
    Safetensors,
}

impl FromStr for ExportFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "onnx" => Ok(ExportFormat::Onnx),
            "safetensors" => Ok(ExportFormat::Safetensors),
            other => Err(format!(
                "unknown export format `{other}`: expected onnx or safetensors"
            )),
        }
    }
}

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The formats; the metadata file is always written.
    pub formats: Vec<ExportFormat>,
    /// Random legal positions to write as test vectors (0: none).
    pub test_vectors: usize,
    /// Seed of the test positions.
    pub seed: u64,
}

/// An export that failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file could not be written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The ONNX exporter refused the network.
    #[error("ONNX export: {0}")]
    Onnx(String),
    /// The safetensors writer failed.
    #[error("safetensors export: {0}")]
    Safetensors(String),
    /// The checkpoint's rules do not build.
    #[error("the checkpoint's rules: {0}")]
    Rules(String),
}

/// The files an export wrote.
#[derive(Clone, Debug, Default)]
pub struct ExportedFiles {
    /// Every file, in the order written.
    pub paths: Vec<PathBuf>,
}

/// One input plane.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlaneDescription {
    /// Index along the plane axis.
    pub index: usize,
    /// Short name.
    pub name: String,
    /// What a 1 (or the constant value) means.
    pub meaning: String,
}

/// The input encoding.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EncoderDescription {
    /// `flipzero_data::ENCODER_VERSION`.
    pub version: u32,
    /// Tensor layout and conventions.
    pub layout: String,
    /// The planes in order.
    pub planes: Vec<PlaneDescription>,
}

/// One entry of the decision map: what a policy index means.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DecisionEntry {
    /// Index in the policy output.
    pub index: usize,
    /// The decision as move-list text (`c4`, `c4x`, `pass`, `+`, `bid-2`).
    pub name: String,
    /// `square`, `pass`, `orient` or `bid`.
    pub kind: String,
    /// Board row from 0 (top), for square decisions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<u8>,
    /// Board column from 0 (left), for square decisions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub col: Option<u8>,
    /// Placement option (rotation: 0 `+`, 1 `x`; colour choice: 0 black, 1 white).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option: Option<u8>,
    /// Bid value (komi bids, discs in White's favour).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bid: Option<i8>,
}

/// One tensor of a model file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TensorDescription {
    /// Its name in the file.
    pub name: String,
    /// Its shape; `"batch"` marks the dynamic axis.
    pub shape: Vec<serde_json::Value>,
    /// What it holds.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub meaning: String,
}

/// The ONNX file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OnnxDescription {
    /// File name in the export directory.
    pub file: String,
    /// Operator set.
    pub opset: u32,
    /// The input.
    pub input: TensorDescription,
    /// The outputs, in the graph's order.
    pub outputs: Vec<TensorDescription>,
}

/// The safetensors file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SafetensorsDescription {
    /// File name in the export directory.
    pub file: String,
    /// Naming and layout conventions.
    pub convention: String,
    /// Every tensor with its shape.
    pub tensors: Vec<TensorDescription>,
}

/// Everything a front-end needs to use an exported network.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportMetadata {
    /// [`EXPORT_FORMAT_VERSION`].
    pub format_version: u32,
    /// The program and version that wrote it.
    pub producer: String,
    /// The rules the network plays (as `configs/variants/*.toml`, in JSON).
    pub rules: RulesSpec,
    /// The input encoding.
    pub encoder: EncoderDescription,
    /// The decision set and its layout.
    pub decision_layout: String,
    /// Every policy index.
    pub decisions: Vec<DecisionEntry>,
    /// The network's shape.
    pub network: NetConfig,
    /// The layers, in enough detail to rebuild the forward pass from the safetensors file.
    pub architecture: Vec<String>,
    /// Training steps taken.
    pub step: u64,
    /// The ONNX file, when exported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub onnx: Option<OnnxDescription>,
    /// The safetensors file, when exported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safetensors: Option<SafetensorsDescription>,
    /// How the outputs become a move choice and a value.
    pub usage: Vec<String>,
}

/// One test position with what this build computes for it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestVector {
    /// Seed of the start position (random-opening presets use it).
    pub start_seed: u64,
    /// Decisions from the start to the position, as a move list.
    pub moves: String,
    /// The position as text (`flipzero analyze --position`).
    pub position: String,
    /// The encoded planes, flattened in [planes, rows, cols] order.
    pub planes: Vec<f32>,
    /// Policy indices of the legal decisions.
    pub legal: Vec<usize>,
    /// The network's decision logits.
    pub policy_logits: Vec<f32>,
    /// The network's win/draw/loss logits.
    pub wdl_logits: Vec<f32>,
    /// The network's score output.
    pub score: f32,
}

/// The test vectors file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestVectors {
    /// [`EXPORT_FORMAT_VERSION`].
    pub format_version: u32,
    /// The input shape of one position: [planes, rows, cols].
    pub input_shape: [usize; 3],
    /// The positions.
    pub vectors: Vec<TestVector>,
}

/// Exports a checkpoint's network into `out` (created when missing).
///
/// # Errors
/// When the exporter refuses the network or a file cannot be written.
pub fn export(
    checkpoint: &Checkpoint,
    options: &ExportOptions,
    out: &Path,
) -> Result<ExportedFiles, ExportError> {
    let rules = Rules::try_from(checkpoint.meta.rules.clone())
        .map_err(|error| ExportError::Rules(error.to_string()))?;
    let net = checkpoint.net.valid();
    let device = Device::flex();
    let net = net.to_device(&device);
    std::fs::create_dir_all(out).map_err(|error| FileError::io(out, error))?;
    let mut files = ExportedFiles::default();
    let mut write = |name: &str, bytes: &[u8]| -> Result<(), ExportError> {
        let path = out.join(name);
        write_atomically(&path, bytes).map_err(|error| FileError::io(&path, error))?;
        files.paths.push(path);
        Ok(())
    };

    let mut metadata = describe(&rules, checkpoint);
    if options.formats.contains(&ExportFormat::Onnx) {
        write(ONNX_FILE, &onnx_bytes(&net, &checkpoint.meta.net, &device)?)?;
        metadata.onnx = Some(onnx_description(&checkpoint.meta.net));
    }
    if options.formats.contains(&ExportFormat::Safetensors) {
        let (bytes, tensors) = safetensors_bytes(&net)?;
        write(SAFETENSORS_FILE, &bytes)?;
        metadata.safetensors = Some(SafetensorsDescription {
            file: SAFETENSORS_FILE.to_owned(),
            convention: "PyTorch names and layouts: convolution weights [out, in, kh, kw]; \
                         linear weights [out, in] (y = x W^T + b); batch norm weight, bias, \
                         running_mean, running_var; float32, little-endian"
                .to_owned(),
            tensors,
        });
    }
    let json = serde_json::to_vec_pretty(&metadata)
        .map_err(|error| FileError::invalid(&out.join(METADATA_FILE), error.to_string()))?;
    write(METADATA_FILE, &json)?;
    if options.test_vectors > 0 {
        let vectors = with_width!(rules.square_count(), W => {
            test_vectors::<W>(&rules, &net, &device, options.test_vectors, options.seed)
        });
        let json = serde_json::to_vec(&vectors)
            .map_err(|error| FileError::invalid(&out.join(TEST_VECTORS_FILE), error.to_string()))?;
        write(TEST_VECTORS_FILE, &json)?;
    }
    Ok(files)
}

/// The forward pass as the exporter sees it: the three heads as a tuple.
fn heads(net: &PolicyValueNet, input: Tensor<4>) -> (Tensor<2>, Tensor<2>, Tensor<2>) {
    let output = net.forward(input);
    (output.policy_logits, output.wdl_logits, output.score)
}

/// The traced ONNX model, with its input and outputs given readable names.
fn onnx_bytes(
    net: &PolicyValueNet,
    config: &NetConfig,
    device: &Device,
) -> Result<Vec<u8>, ExportError> {
    // The exporter moves the module to its capture device, and batch-norm running statistics
    // are shared between clones: trace a copy rebuilt from a record, so that `net` stays usable.
    let net = &config.init(device).load_record(net.clone().into_record());
    let shape = |batch: usize| [batch, config.input_planes, config.rows, config.cols];
    // Two traces at different batch sizes tell the exporter which axis is the batch.
    let sample = Tensor::<4>::zeros(shape(2), device);
    let validation = Tensor::<4>::zeros(shape(3), device);
    let axes = [InputSpec::new([
        AxisSpec::dynamic("batch"),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ])];
    let model = OnnxExporter::new()
        .opset(Opset::V18)
        .export_dynamic(net, sample, validation, &axes, heads)
        .map_err(|error| ExportError::Onnx(error.to_string()))?;
    let mut proto = ModelProto::parse_from_bytes(model.as_bytes())
        .map_err(|error| ExportError::Onnx(format!("reading the traced model: {error}")))?;
    let graph = proto
        .graph
        .as_mut()
        .ok_or_else(|| ExportError::Onnx("the traced model has no graph".to_owned()))?;
    if graph.input.len() != 1 || graph.output.len() != OUTPUT_NAMES.len() {
        return Err(ExportError::Onnx(format!(
            "the traced graph has {} inputs and {} outputs; expected 1 and {}",
            graph.input.len(),
            graph.output.len(),
            OUTPUT_NAMES.len()
        )));
    }
    let mut renames = vec![(graph.input[0].name.clone(), INPUT_NAME)];
    renames.extend(
        graph
            .output
            .iter()
            .map(|output| output.name.clone())
            .zip(OUTPUT_NAMES),
    );
    for (old, new) in &renames {
        let rename = |name: &mut String| {
            if name == old {
                *name = (*new).to_owned();
            }
        };
        graph
            .input
            .iter_mut()
            .for_each(|value| rename(&mut value.name));
        graph
            .output
            .iter_mut()
            .for_each(|value| rename(&mut value.name));
        for node in &mut graph.node {
            node.input.iter_mut().for_each(rename);
            node.output.iter_mut().for_each(rename);
        }
    }
    graph.name = "flipzero_policy_value".to_owned();
    proto.producer_name = "flipzero".to_owned();
    proto.producer_version = env!("CARGO_PKG_VERSION").to_owned();
    proto
        .write_to_bytes()
        .map_err(|error| ExportError::Onnx(format!("writing the model: {error}")))
}

fn onnx_description(config: &NetConfig) -> OnnxDescription {
    let batch = serde_json::Value::from("batch");
    let tensor = |name: &str, width: usize, meaning: &str| TensorDescription {
        name: name.to_owned(),
        shape: vec![batch.clone(), width.into()],
        meaning: meaning.to_owned(),
    };
    OnnxDescription {
        file: ONNX_FILE.to_owned(),
        opset: ONNX_OPSET,
        input: TensorDescription {
            name: INPUT_NAME.to_owned(),
            shape: vec![
                batch.clone(),
                config.input_planes.into(),
                config.rows.into(),
                config.cols.into(),
            ],
            meaning: "float32 planes of each position, see `encoder`".to_owned(),
        },
        outputs: vec![
            tensor(
                OUTPUT_NAMES[0],
                config.decisions,
                "decision logits over the decision set (`decisions`); mask the illegal ones \
                 before a softmax",
            ),
            tensor(
                OUTPUT_NAMES[1],
                3,
                "win, draw, loss logits for the side to move (softmax them)",
            ),
            tensor(
                OUTPUT_NAMES[2],
                1,
                "expected final disc margin for the side to move, signed so that positive \
                 is good under the objective (fewest-discs rules negate it), komi left out, \
                 divided by the number of squares, in [-1, 1]",
            ),
        ],
    }
}

/// The safetensors bytes in PyTorch conventions, and a description of every tensor.
fn safetensors_bytes(
    net: &PolicyValueNet,
) -> Result<(Vec<u8>, Vec<TensorDescription>), ExportError> {
    let failed = |error: &dyn std::fmt::Display| ExportError::Safetensors(error.to_string());
    let mut store = SafetensorsStore::from_bytes(None)
        .with_to_adapter(BurnToPyTorchAdapter)
        .metadata("producer", "flipzero");
    net.save_into(&mut store).map_err(|error| failed(&error))?;
    let bytes = store.get_bytes().map_err(|error| failed(&error))?;
    let mut tensors: Vec<TensorDescription> = net
        .collect(None, Some(Box::new(BurnToPyTorchAdapter)), false)
        .into_iter()
        .map(|snapshot| TensorDescription {
            name: snapshot.name,
            shape: snapshot.shape.iter().map(|&d| d.into()).collect(),
            meaning: String::new(),
        })
        .collect();
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((bytes, tensors))
}

/// The metadata without the per-format parts.
fn describe(rules: &Rules, checkpoint: &Checkpoint) -> ExportMetadata {
    let decisions = with_width!(rules.square_count(), W => decision_map::<W>(rules));
    ExportMetadata {
        format_version: EXPORT_FORMAT_VERSION,
        producer: format!("flipzero {}", env!("CARGO_PKG_VERSION")),
        rules: checkpoint.meta.rules.clone(),
        encoder: EncoderDescription {
            version: ENCODER_VERSION,
            layout: "float32 [batch, planes, rows, cols]; row 0 is the top row (`a1` is row \
                     0, column 0), columns run left to right; every plane is seen from the \
                     side to move; board planes are 1 or 0, constant planes repeat one \
                     value on every square of the rows x cols grid"
                .to_owned(),
            planes: PLANES
                .iter()
                .enumerate()
                .map(|(index, (name, meaning))| PlaneDescription {
                    index,
                    name: (*name).to_owned(),
                    meaning: (*meaning).to_owned(),
                })
                .collect(),
        },
        decision_layout: "every square (row-major, index = row * cols + col) times the \
                          placement options, then pass, then the two orientations when the \
                          mover orients flipped discs, then the bids from lowest to highest"
            .to_owned(),
        decisions,
        network: checkpoint.meta.net.clone(),
        architecture: architecture(&checkpoint.meta.net),
        step: checkpoint.meta.step,
        onnx: None,
        safetensors: None,
        usage: vec![
            "encode the position (see `encoder`; `test-vectors.json` has examples)".to_owned(),
            "policy: softmax of `policy_logits` over the legal decisions only (training \
             pushes the illegal ones down, but they are never exactly zero)"
                .to_owned(),
            "value for the side to move: P(win) - P(loss) from softmax(`wdl_logits`)".to_owned(),
            "score: `score` * rows * cols discs in the side to move's favour (objective-signed, \
             komi left out)"
                .to_owned(),
        ],
    }
}

/// The forward pass in words, with the safetensors names of each layer.
fn architecture(config: &NetConfig) -> Vec<String> {
    let padding = if config.torus {
        "padding (k - 1) / 2 with the opposite edge's squares (the board is a torus)"
    } else {
        "zero padding (k - 1) / 2"
    };
    let mut layers = vec![
        format!("conv(k) = convolution k x k, stride 1, {padding}, no bias"),
        "bn = batch normalisation with running statistics, epsilon 1e-5".to_owned(),
        "x = relu(stem.norm(stem.conv(planes)))   (3 x 3)".to_owned(),
    ];
    for block in 0..config.tower.blocks {
        layers.push(format!(
            "x = relu(tower.{block}.second.norm(tower.{block}.second.conv(relu(\
             tower.{block}.first.norm(tower.{block}.first.conv(x))))) + x)   (3 x 3)"
        ));
    }
    layers.extend([
        format!(
            "p = relu(policy_conv.norm(policy_conv.conv(x)))   (1 x 1, {channels} channels), \
             flattened [batch, {channels} * rows * cols] channel-major",
            channels = config.tower.policy_channels
        ),
        "policy_logits = linear policy(p)".to_owned(),
        format!(
            "v = relu(value_conv.norm(value_conv.conv(x)))   (1 x 1, {channels} channels), \
             flattened [batch, {channels} * rows * cols] channel-major",
            channels = config.tower.value_channels
        ),
        "h = relu(linear value_hidden(v))".to_owned(),
        "wdl_logits = linear wdl(h); score = tanh(linear score(h))".to_owned(),
    ]);
    layers
}

fn decision_map<W: Bitboard>(rules: &Rules) -> Vec<DecisionEntry> {
    let game = Game::<W>::start(rules);
    let geometry = game.geometry();
    (0..rules.decision_count())
        .filter_map(|index| rules.decision_at(index).map(|decision| (index, decision)))
        .map(|(index, decision)| {
            let mut entry = DecisionEntry {
                index,
                name: notation::decision_name(rules, geometry, decision),
                kind: String::new(),
                row: None,
                col: None,
                option: None,
                bid: None,
            };
            match decision {
                Decision::Square { square, option } => {
                    let (row, col) = geometry.coordinates(square);
                    entry.kind = "square".to_owned();
                    (entry.row, entry.col) = (Some(row), Some(col));
                    entry.option = (rules.placement_options() > 1).then_some(option);
                }
                Decision::Pass => entry.kind = "pass".to_owned(),
                Decision::Orient(_) => entry.kind = "orient".to_owned(),
                Decision::Bid(bid) => {
                    entry.kind = "bid".to_owned();
                    entry.bid = Some(bid);
                }
                // Not a player's decision: the policy has no index for it.
                Decision::TieBreak { .. } => unreachable!("decision_at names players' decisions"),
            }
            entry
        })
        .collect()
}

/// Random legal positions (a random number of random decisions from the start, never past
/// the end) with the planes and this build's outputs.
fn test_vectors<W: Bitboard>(
    rules: &Rules,
    net: &PolicyValueNet,
    device: &Device,
    count: usize,
    seed: u64,
) -> TestVectors {
    let encoder = Encoder::new(rules);
    let (planes, rows, cols) = encoder.shape();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vectors = Vec::with_capacity(count);
    let mut inputs = Vec::with_capacity(count * planes * rows * cols);
    let squares = rules.square_count() as usize;
    while vectors.len() < count {
        let start_seed = rng.random();
        let Ok(mut game) = Game::<W>::try_start(rules, start_seed) else {
            continue;
        };
        // The first vector is the start position; the others stop at a random point of the
        // game, never past its end (finished positions are of no use to a front-end).
        let length = if vectors.is_empty() {
            0
        } else {
            rng.random_range(1..squares * 3 / 4)
        };
        let mut moves = Vec::new();
        for _ in 0..length {
            let legal = game.legal_decisions(rules);
            if legal.is_empty() || game.is_over() {
                break;
            }
            let decision = legal[rng.random_range(0..legal.len())];
            moves.push(notation::decision_name(rules, game.geometry(), decision));
            game = game.play_unchecked(rules, decision);
        }
        // Nor chance events: a network is never asked there (they are drawn).
        if game.is_over() || game.awaits_chance() {
            continue;
        }
        let encoded = encoder.encode(&game);
        inputs.extend(encoded.iter().copied());
        let mask = legal_mask(rules, &game);
        vectors.push(TestVector {
            start_seed,
            moves: moves.join(" "),
            position: game.to_text(rules),
            planes: encoded.iter().copied().collect(),
            legal: (0..mask.len()).filter(|&index| mask[index] > 0.0).collect(),
            policy_logits: Vec::new(),
            wdl_logits: Vec::new(),
            score: 0.0,
        });
    }
    let input =
        Tensor::<4>::from_data(TensorData::new(inputs, [count, planes, rows, cols]), device);
    let output = net.forward(input);
    let rows_of = |tensor: Tensor<2>| -> Vec<Vec<f32>> {
        let [_, width] = tensor.dims();
        let values = tensor
            .into_data()
            .try_into_vec::<f32>()
            .expect("the network computes in f32");
        values.chunks(width).map(<[f32]>::to_vec).collect()
    };
    let policies = rows_of(output.policy_logits);
    let wdls = rows_of(output.wdl_logits);
    let scores = rows_of(output.score);
    for (((vector, policy), wdl), score) in vectors.iter_mut().zip(policies).zip(wdls).zip(scores) {
        vector.policy_logits = policy;
        vector.wdl_logits = wdl;
        vector.score = score[0];
    }
    TestVectors {
        format_version: EXPORT_FORMAT_VERSION,
        input_shape: [planes, rows, cols],
        vectors,
    }
}
