//! Checkpoint files: the container of `flipzero_data::checkpoint_file` (magic number, format
//! version, length-prefixed sections, checksum) filled with the metadata as JSON (the rules,
//! the encoder version, the network config, the training step), the weights as a burnpack
//! record, and the optimizer's state when a trainer wrote it. Written to a temporary name,
//! flushed and renamed, so a crash never leaves half a file under the real name; the checksum,
//! every length and the metadata are checked when reading, before any network is built, so a
//! truncated or corrupt file is refused with the reason.

use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use flipzero_core::RulesSpec;
use flipzero_data::checkpoint_file::{read_checkpoint_file, write_checkpoint_file};
use flipzero_data::files::FileError;
use serde::{Deserialize, Serialize};

use crate::net::{NetConfig, PolicyValueNet};

pub use flipzero_data::checkpoint_file::{CHECKPOINT_MAGIC, CHECKPOINT_VERSION};

/// What a checkpoint says about its network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    /// The rules the network plays (on disk their TOML text, as in every file that names its
    /// rules; checkpoints written before 2026-12-08 hold a table and still read).
    #[serde(
        serialize_with = "flipzero_core::variant::rules::toml_text::serialize",
        deserialize_with = "flipzero_core::variant::rules::toml_text::deserialize_text_or_table"
    )]
    pub rules: RulesSpec,
    /// The input encoding it was trained with (`flipzero_data::ENCODER_VERSION`).
    pub encoder_version: u32,
    /// Its shape.
    pub net: NetConfig,
    /// Training steps taken.
    pub step: u64,
}

/// A checkpoint as read back.
#[derive(Debug)]
pub struct Checkpoint {
    /// Its metadata.
    pub meta: CheckpointMeta,
    /// The network, on the device it was loaded to.
    pub net: PolicyValueNet,
    /// The optimizer's state (burnpack bytes), when a trainer saved it.
    pub optimizer: Option<Vec<u8>>,
}

fn invalid(path: &Path, reason: impl Into<String>) -> FileError {
    FileError::invalid(path, reason)
}

/// Writes a checkpoint atomically.
///
/// # Errors
/// When the weights cannot be serialised or the file cannot be written.
pub fn save(
    path: &Path,
    meta: &CheckpointMeta,
    net: &PolicyValueNet,
    optimizer: Option<&[u8]>,
) -> Result<(), FileError> {
    let optimizer = optimizer.unwrap_or_default();
    let meta_json = serde_json::to_vec(meta).map_err(|error| invalid(path, error.to_string()))?;
    // The inference view carries the synced batch-norm statistics.
    let weights = net
        .valid()
        .into_record()
        .into_bytes()
        .map_err(|error| invalid(path, format!("serialising the weights: {error:?}")))?;
    // An empty optimizer section: a network saved for play, not for training.
    write_checkpoint_file(path, &meta_json, &weights, optimizer)
}

/// Refuses metadata that declares a network larger than its weights could fill, before that
/// network is built (128 blocks of 1,024 channels would take some 10 GB, a value head of 256
/// channels into 4,096 hidden units some 150 MB on 6x6): every number of the network takes
/// four bytes of the record.
fn check_weights_size(net: &NetConfig, weight_bytes: usize) -> Result<(), String> {
    let declared = net.weight_count();
    if declared * 4 > weight_bytes as u64 {
        return Err(format!(
            "the metadata declares a network of {declared} weights ({} blocks of {} channels, \
             heads of {} policy and {} value channels, {} hidden value units), more than the \
             {weight_bytes} bytes of weights hold",
            net.tower.blocks,
            net.tower.channels,
            net.tower.policy_channels,
            net.tower.value_channels,
            net.tower.value_hidden
        ));
    }
    Ok(())
}

/// Checks the metadata before any network is built from it: sizes in range, and the network
/// fitting its rules and this build's encoder.
fn check_meta(meta: &CheckpointMeta) -> Result<(), String> {
    let net = &meta.net;
    let limits = [
        ("rows", net.rows, 16),
        ("cols", net.cols, 16),
        ("blocks", net.tower.blocks, 128),
        ("channels", net.tower.channels, 1024),
        ("value_hidden", net.tower.value_hidden, 4096),
        ("policy_channels", net.tower.policy_channels, 256),
        ("value_channels", net.tower.value_channels, 256),
        ("input_planes", net.input_planes, 1024),
    ];
    for (name, value, most) in limits {
        if value == 0 || value > most {
            return Err(format!("network {name} = {value}: expected 1 to {most}"));
        }
    }
    if meta.encoder_version != flipzero_data::ENCODER_VERSION {
        return Err(format!(
            "trained with encoder version {}; this build encodes version {}",
            meta.encoder_version,
            flipzero_data::ENCODER_VERSION
        ));
    }
    if net.input_planes != flipzero_data::encoder::PLANES.len() {
        return Err(format!(
            "{} input planes; the encoder makes {}",
            net.input_planes,
            flipzero_data::encoder::PLANES.len()
        ));
    }
    let rules = flipzero_core::Rules::try_from(meta.rules.clone())
        .map_err(|error| format!("rules: {error}"))?;
    if (net.rows, net.cols) != (usize::from(rules.rows()), usize::from(rules.cols())) {
        return Err("the network's board is not the rules' board".to_owned());
    }
    if net.decisions != rules.decision_count() {
        return Err(format!(
            "{} policy outputs; the rules have {} decisions",
            net.decisions,
            rules.decision_count()
        ));
    }
    Ok(())
}

/// Reads a checkpoint and rebuilds its network on `device`.
///
/// ```
/// use burn::tensor::Device;
/// use flipzero_core::Preset;
/// use flipzero_data::{ENCODER_VERSION, Encoder};
/// use flipzero_nn::{CheckpointMeta, NetConfig, Tower, checkpoint};
///
/// let rules = Preset::Othello.rules(Some(6))?;
/// let (input_planes, rows, cols) = Encoder::new(&rules).shape();
/// let tower = Tower::new(1, 8, 8);
/// let net = NetConfig { input_planes, rows, cols, decisions: rules.decision_count(), tower, torus: false };
/// let meta = CheckpointMeta {
///     rules: rules.spec().clone(),
///     encoder_version: ENCODER_VERSION,
///     net: net.clone(),
///     step: 0,
/// };
/// let device = Device::flex();
/// let path = std::env::temp_dir().join(format!("flipzero-load-{}.ckpt", std::process::id()));
/// checkpoint::save(&path, &meta, &net.init(&device), None)?;
/// let loaded = checkpoint::load(&path, &device)?;
/// assert_eq!(loaded.meta, meta);
/// // A damaged file is refused with its path, never half read.
/// let mut bytes = std::fs::read(&path)?;
/// let middle = bytes.len() / 2;
/// bytes[middle] ^= 0xff;
/// std::fs::write(&path, &bytes)?;
/// assert!(checkpoint::load(&path, &device).unwrap_err().to_string().contains("flipzero-load"));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// An unreadable file, a wrong magic number or version, a truncated or corrupt file, or
/// weights that do not fit the network its metadata describes.
pub fn load(path: &Path, device: &Device) -> Result<Checkpoint, FileError> {
    let sections = read_checkpoint_file(path)?;
    let meta: CheckpointMeta = serde_json::from_slice(&sections.meta_json)
        .map_err(|error| invalid(path, format!("metadata: {error}")))?;
    let (weights, optimizer) = (sections.weights, sections.optimizer);
    check_meta(&meta).map_err(|reason| invalid(path, reason))?;
    check_weights_size(&meta.net, weights.len()).map_err(|reason| invalid(path, reason))?;
    // Cast to the network's own dtype on load: a record that names another dtype for a
    // tensor (only a damaged file does) would otherwise make burn's loader panic.
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights))
        .map_err(|error| invalid(path, format!("weights: {error:?}")))?
        .cast_to_module_dtype();
    let net = meta
        .net
        .init(device)
        .try_load_record(record)
        .map_err(|error| invalid(path, format!("weights do not fit the network: {error:?}")))?;
    Ok(Checkpoint {
        meta,
        net,
        optimizer: (!optimizer.is_empty()).then_some(optimizer),
    })
}
