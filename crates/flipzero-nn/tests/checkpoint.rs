//! Checkpoints round-trip exactly and damaged ones are refused with the reason.

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use flipzero_core::Preset;
use flipzero_nn::checkpoint::{load, save};
use flipzero_nn::{CheckpointMeta, NetConfig};

fn meta() -> CheckpointMeta {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    CheckpointMeta {
        rules: rules.spec().clone(),
        encoder_version: flipzero_data::ENCODER_VERSION,
        net: NetConfig {
            input_planes: flipzero_data::encoder::PLANES.len(),
            rows: 6,
            cols: 6,
            decisions: rules.decision_count(),
            tower: flipzero_nn::Tower::new(1, 8, 16),
            torus: false,
        },
        step: 42,
    }
}

fn outputs(net: &flipzero_nn::PolicyValueNet, device: &Device) -> Vec<f32> {
    let planes = flipzero_data::encoder::PLANES.len();
    let values: Vec<f32> = (0..2 * planes * 36)
        .map(|i| ((i * 7) % 5) as f32 / 4.0)
        .collect();
    let input = Tensor::<4>::from_data(TensorData::new(values, [2, planes, 6, 6]), device);
    let output = net.valid().forward(input);
    let mut all = output
        .policy_logits
        .into_data()
        .try_into_vec::<f32>()
        .unwrap();
    all.extend(output.wdl_logits.into_data().try_into_vec::<f32>().unwrap());
    all.extend(output.score.into_data().try_into_vec::<f32>().unwrap());
    all
}

#[test]
fn a_checkpoint_round_trip_gives_identical_outputs_and_damage_is_named() {
    let device = Device::flex();
    let directory = std::env::temp_dir().join(format!("flipzero-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("net.ckpt");
    let meta = meta();
    let net = meta.net.init(&device);
    save(&path, &meta, &net, Some(b"optimizer state")).unwrap();
    let read = load(&path, &device).unwrap();
    assert_eq!(read.meta, meta);
    assert_eq!(outputs(&read.net, &device), outputs(&net, &device));
    assert_eq!(read.optimizer.as_deref(), Some(&b"optimizer state"[..]));
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 1);

    let sealed = std::fs::read(&path).unwrap();
    let refused_as_is = |contents: &[u8]| {
        let damaged = directory.join("damaged.ckpt");
        std::fs::write(&damaged, contents).unwrap();
        load(&damaged, &device).unwrap_err().to_string()
    };
    // Every byte changed, and every cut short of the whole, is caught by the checksum (or
    // before it by the magic number or the version), with the file's name: never a panic.
    for at in 0..sealed.len() {
        let mut corrupt = sealed.clone();
        corrupt[at] ^= 0xFF;
        let error = refused_as_is(&corrupt);
        let expected = match at {
            0..8 => "wrong magic number",
            8..12 => "format version",
            _ => "damaged: its CRC-32",
        };
        assert!(
            error.contains("damaged.ckpt") && error.contains(expected),
            "byte {at}: {error}"
        );
    }
    for length in 0..sealed.len() {
        let error = refused_as_is(&sealed[..length]);
        assert!(error.contains("damaged.ckpt"), "length {length}: {error}");
    }
    // Under the checksum, damage sealed anew (as a writer with a bug would make it) meets
    // the layout's own checks.
    let bytes = &sealed[..sealed.len() - flipzero_data::files::CHECKSUM_BYTES];
    let refused = |contents: &[u8]| {
        let mut contents = contents.to_vec();
        flipzero_data::files::seal(&mut contents);
        refused_as_is(&contents)
    };
    assert!(refused(&bytes[..bytes.len() / 2]).contains("truncated in the weights"));
    assert!(refused_as_is(&sealed[..10]).contains("truncated in the version"));
    assert!(refused(b"PK\x03\x04 not a checkpoint").contains("wrong magic number"));
    let mut newer = bytes.to_vec();
    newer[8] = 9;
    assert!(refused(&newer).contains("format version 9"));
    let mut longer = bytes.to_vec();
    longer.extend_from_slice(b"junk");
    assert!(refused(&longer).contains("4 unexpected bytes after the optimizer state"));
    assert!(refused(&bytes[..bytes.len() - 3]).contains("truncated in the optimizer state"));
    // A checkpoint of version 1 (no checksum) still loads.
    let mut version_1 = bytes.to_vec();
    version_1[8] = 1;
    let old = directory.join("version-1.ckpt");
    std::fs::write(&old, &version_1).unwrap();
    assert_eq!(
        outputs(&load(&old, &device).unwrap().net, &device),
        outputs(&net, &device)
    );
    // Metadata that describes another (smaller) network than the weights.
    let mut other = meta.clone();
    other.net.tower.channels = 4;
    let other_path = directory.join("other.ckpt");
    save(&other_path, &other, &other.net.init(&device), None).unwrap();
    let other_bytes = std::fs::read(&other_path).unwrap();
    let other_bytes = &other_bytes[..other_bytes.len() - flipzero_data::files::CHECKSUM_BYTES];
    let meta_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let other_meta_len = u32::from_le_bytes(other_bytes[12..16].try_into().unwrap()) as usize;
    let mut mixed = other_bytes[..16 + other_meta_len].to_vec();
    mixed.extend_from_slice(&bytes[16 + meta_len..]);
    let error = refused(&mixed);
    assert!(error.contains("weights do not fit the network"), "{error}");
    assert!(load(&directory.join("missing.ckpt"), &device).is_err());
    // Metadata is checked before a network is built from it.
    // The file with its metadata replaced by `meta`, the weights kept.
    let with_meta = |meta: &CheckpointMeta| {
        let json = serde_json::to_vec(meta).unwrap();
        let mut file = bytes[..12].to_vec();
        file.extend_from_slice(&(json.len() as u32).to_le_bytes());
        file.extend_from_slice(&json);
        file.extend_from_slice(&bytes[16 + meta_len..]);
        file
    };
    // The rules are kept as their TOML text, as in shards, journals and caches; metadata of
    // before 2026-12-08, with the rules as a table of fields, still loads.
    let stored: serde_json::Value = serde_json::to_value(&meta).unwrap();
    assert_eq!(
        stored["rules"].as_str(),
        Some(meta.rules.to_toml().as_str())
    );
    let mut legacy = stored.clone();
    legacy["rules"] = serde_json::to_value(&meta.rules).unwrap();
    assert!(legacy["rules"].is_object());
    let legacy_meta: CheckpointMeta = serde_json::from_value(legacy).unwrap();
    assert_eq!(legacy_meta, meta);
    let mut garbled = stored;
    garbled["rules"] = serde_json::Value::from("board = 7");
    let error = serde_json::from_value::<CheckpointMeta>(garbled)
        .unwrap_err()
        .to_string();
    assert!(error.contains("the rules header"), "{error}");
    let mut huge = meta.clone();
    huge.net.tower.channels = 1_000_000;
    assert!(refused(&with_meta(&huge)).contains("network channels = 1000000"));
    // In range, but far larger than the weights that follow: refused before it is built
    // (128 blocks of 1,024 channels would be some 10 GB).
    let mut large = meta.clone();
    (large.net.tower.blocks, large.net.tower.channels) = (128, 1024);
    let error = refused(&with_meta(&large));
    assert!(
        error.contains("(128 blocks of 1024 channels") && error.contains("bytes of weights"),
        "{error}"
    );
    // The heads count too: a value head of 256 channels into 4,096 hidden units over the
    // test's small tower would be some 150 MB.
    let mut wide_heads = meta.clone();
    (
        wide_heads.net.tower.value_channels,
        wide_heads.net.tower.value_hidden,
    ) = (256, 4096);
    let error = refused(&with_meta(&wide_heads));
    assert!(
        error.contains("256 value channels, 4096 hidden value units")
            && error.contains("bytes of weights"),
        "{error}"
    );
    let mut wrong_rules = meta.clone();
    wrong_rules.net.decisions = 65;
    assert!(
        refused(&with_meta(&wrong_rules))
            .contains("65 policy outputs; the rules have 37 decisions")
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

/// Fuzz crash `crash-4f3bb4d6...` (checkpoint_file, 2026-12-01): a weight tensor whose record
/// says I32 made burn's loader panic ("Expected float dtype"). Every tensor is now cast to
/// the network's own dtype on load, so another numeric dtype loads (converted) or is refused
/// with the file's name; it never panics.
#[test]
fn fuzz_crash_a_weight_tensor_of_another_dtype_does_not_panic() {
    let device = Device::flex();
    let directory =
        std::env::temp_dir().join(format!("flipzero-ckpt-dtype-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("net.ckpt");
    let meta = meta();
    save(&path, &meta, &meta.net.init(&device), None).unwrap();
    let sealed = std::fs::read(&path).unwrap();
    // The damage is sealed anew: the checksum alone would refuse it, and the loader beneath
    // is what this test is about.
    let bytes = &sealed[..sealed.len() - flipzero_data::files::CHECKSUM_BYTES];
    let at = bytes
        .windows(3)
        .position(|w| w == b"F32")
        .expect("the weights name their dtype");
    for dtype in [b"I32", b"U32", b"I64", b"F64", b"F16", b"I16", b"U16"] {
        let mut damaged = bytes.to_vec();
        damaged[at..at + 3].copy_from_slice(dtype);
        flipzero_data::files::seal(&mut damaged);
        let damaged_path = directory.join("dtype.ckpt");
        std::fs::write(&damaged_path, &damaged).unwrap();
        if let Err(error) = load(&damaged_path, &device) {
            assert!(error.to_string().contains("dtype.ckpt"), "{error}");
        }
    }
    std::fs::remove_dir_all(&directory).unwrap();
}
