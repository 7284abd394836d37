//! `flipzero export` checked by clients that share no code with flipzero: onnxruntime runs the
//! ONNX file, and a numpy forward pass runs the safetensors weights (scripts/check-export.py),
//! on networks trained a few steps (so batch-norm statistics and affine weights are not their
//! initial values) for presets with different decision sets and planes. The Python packages
//! come from PyPI into a virtual environment under the target directory
//! (scripts/export-check-requirements.txt); without Python the test is ignored, never passed.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

mod common;

use burn::tensor::Device;
use common::{assert_success, failing, flipzero};
use flipzero_core::{Preset, Rules};
use flipzero_mcts::{MctsConfig, UniformEvaluator};
use flipzero_nn::NetConfig;
use flipzero_selfplay::{SelfPlayConfig, play};
use flipzero_train::{TrainConfig, Trainer};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A one-block network trained a few steps on uniform-MCTS self-play, saved to `path`.
fn trained_checkpoint(rules: &Rules, path: &Path) {
    let config = SelfPlayConfig {
        games: 4,
        parallel_games: 4,
        mcts: MctsConfig {
            simulations: 8,
            ..MctsConfig::default()
        },
        temperature_decisions: 8,
        solve_targets_empties: 0,
        solved_value_targets: false,
        full_search_fraction: 1.0,
        fast_simulations: 1,
        opening_plies: 0..=0,
        seed: 5,
    };
    let samples: Vec<_> = play::<u64>(rules, &config, &mut UniformEvaluator)
        .into_iter()
        .flat_map(|record| record.samples)
        .collect();
    let net = NetConfig {
        input_planes: flipzero_data::encoder::PLANES.len(),
        rows: usize::from(rules.rows()),
        cols: usize::from(rules.cols()),
        decisions: rules.decision_count(),
        tower: flipzero_nn::Tower {
            blocks: 1,
            channels: 8,
            value_hidden: 8,
            policy_channels: 4,
            value_channels: 2,
        },
        torus: rules.is_torus(),
    };
    let train = TrainConfig {
        learning_rate: 1e-2,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(rules, &net, train, &Device::flex());
    for batch in samples.chunks(32).take(4) {
        trainer.train_step(batch).unwrap();
    }
    trainer.save(path).unwrap();
}

fn export(checkpoint: &Path, out: &Path, formats: &str) {
    flipzero()
        .args(["export", "--checkpoint"])
        .arg(checkpoint)
        .args(["--format", formats, "--test-vectors", "12", "--out"])
        .arg(out)
        .assert()
        .success();
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn metadata_describes_the_decision_set_planes_and_tensors() {
    let rules = Preset::Rotation.rules(Some(6)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("net.ckpt");
    trained_checkpoint(&rules, &checkpoint);
    let out = dir.path().join("export");
    export(&checkpoint, &out, "safetensors");
    assert!(
        !out.join("model.onnx").exists(),
        "only safetensors asked for"
    );
    let meta = json(&out.join("model.json"));
    let decisions = meta["decisions"].as_array().unwrap();
    // 36 squares x 2 orientations, pass, then the two orient decisions.
    assert_eq!(decisions.len(), rules.decision_count());
    assert_eq!(decisions.len(), 36 * 2 + 1 + 2);
    assert_eq!(decisions[0]["name"], "a1+");
    assert_eq!(decisions[1]["name"], "a1x");
    assert_eq!(decisions[15]["name"], "b2x");
    assert_eq!(
        (&decisions[15]["row"], &decisions[15]["col"]),
        (&1.into(), &1.into())
    );
    assert_eq!(decisions[72]["kind"], "pass");
    assert_eq!(decisions[73]["name"], "+");
    assert_eq!(decisions[74]["kind"], "orient");
    assert_eq!(meta["encoder"]["planes"].as_array().unwrap().len(), 26);
    assert_eq!(meta["encoder"]["planes"][3]["name"], "own-cross");
    assert_eq!(meta["network"]["channels"], 8);
    let tensors: Vec<&str> = meta["safetensors"]["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tensor| tensor["name"].as_str().unwrap())
        .collect();
    assert!(tensors.contains(&"stem.norm.running_var"), "{tensors:?}");
    assert!(tensors.contains(&"policy.weight"), "{tensors:?}");
    let policy = meta["safetensors"]["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tensor| tensor["name"] == "policy.weight")
        .unwrap();
    // PyTorch layout: [out, in]: 4 policy channels a square.
    assert_eq!(policy["shape"], serde_json::json!([75, 4 * 36]));
    let vectors = json(&out.join("test-vectors.json"));
    let vectors = vectors["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 12);
    assert_eq!(vectors[0]["moves"], "");
    for vector in vectors {
        assert_eq!(vector["planes"].as_array().unwrap().len(), 26 * 36);
        assert_eq!(vector["policy_logits"].as_array().unwrap().len(), 75);
        assert!(!vector["legal"].as_array().unwrap().is_empty());
    }
}

#[test]
fn bad_export_requests_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("net.ckpt");
    std::fs::write(&checkpoint, b"FLIPZCKP trailing nonsense").unwrap();
    let out = dir.path().join("out");
    let stderr = failing(&[
        "export",
        "--format",
        "onnx",
        "--out",
        out.to_str().unwrap(),
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ]);
    assert!(stderr.contains("net.ckpt"), "{stderr}");
    let stderr = failing(&[
        "export",
        "--format",
        "tflite",
        "--out",
        "x",
        "--checkpoint",
        "y",
    ]);
    assert!(
        stderr.contains("unknown export format `tflite`: expected onnx, safetensors or web"),
        "{stderr}"
    );
}

#[test]
fn the_web_format_writes_the_onnx_model_and_the_page_beside_it() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("net.ckpt");
    trained_checkpoint(&rules, &checkpoint);
    let out = dir.path().join("site");
    export(&checkpoint, &out, "web");
    for file in [
        "model.onnx",
        "model.json",
        "test-vectors.json",
        "index.html",
        "play.js",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    // The page's package pins onnxruntime-web, and its lock file holds that version.
    let package = json(&out.join("package.json"));
    let version = package["dependencies"]["onnxruntime-web"].as_str().unwrap();
    let lock = json(&out.join("package-lock.json"));
    assert_eq!(
        lock["packages"]["node_modules/onnxruntime-web"]["version"],
        version
    );
    let script = std::fs::read_to_string(out.join("play.js")).unwrap();
    assert!(script.contains("./node_modules/onnxruntime-web/dist/ort.wasm.min.mjs"));
    assert!(
        !out.join("model.safetensors").exists(),
        "only what the page needs"
    );
}

/// A virtual environment with the checking clients, made once per target directory.
fn python_with_clients() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = tmp.join("export-check-venv");
    let python = venv.join("bin/python");
    let requirements = repository().join("scripts/export-check-requirements.txt");
    let stamp = venv.join("installed-requirements.txt");
    let wanted = std::fs::read(&requirements).unwrap();
    // Tests run in parallel (threads, or processes under nextest); two pip installs into one
    // environment break each other, so the stamp is read and the environment built under
    // this lock, and only the first test to take it builds.
    let lock = std::fs::File::create(tmp.join("export-check-venv.lock")).unwrap();
    lock.lock().unwrap();
    if std::fs::read(&stamp).ok().as_ref() != Some(&wanted) {
        let system = std::env::var("FLIPZERO_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let run = |command: &mut Process, what: &str| {
            let output = command.output().unwrap();
            assert!(
                output.status.success(),
                "{what} failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        run(
            Process::new(system)
                .args(["-m", "venv", "--clear"])
                .arg(&venv),
            "creating the virtual environment",
        );
        run(
            Process::new(&python)
                .args(["-m", "pip", "install", "--quiet", "-r"])
                .arg(&requirements),
            "pip install from PyPI",
        );
        std::fs::write(&stamp, wanted).unwrap();
    }
    python
}

#[cfg_attr(
    python_missing,
    ignore = "python3 not found: the export check by onnxruntime and numpy is skipped"
)]
#[test]
fn exported_models_match_burn_in_onnxruntime_and_numpy() {
    let python = python_with_clients();
    let presets = [
        Preset::Othello,
        Preset::Komi,
        Preset::Rotation,
        Preset::ReversiIIFree,
        Preset::Biversi,
    ];
    for preset in presets {
        let rules = preset.rules(Some(6)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let checkpoint = dir.path().join("net.ckpt");
        trained_checkpoint(&rules, &checkpoint);
        let out = dir.path().join("export");
        export(&checkpoint, &out, "onnx,safetensors");
        let output = Process::new(&python)
            .arg(repository().join("scripts/check-export.py"))
            .arg(&out)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        println!("{preset:?}\n{report}");
        assert!(
            output.status.success(),
            "{preset:?}:\n{report}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(report.contains("all outputs match"), "{report}");
        assert_eq!(report.matches("ok  ").count(), 10, "{report}");
    }
}

/// The worked example of docs/EXPORT.md picks, for every test position, the legal move the
/// Burn network ranks first, and its encoder writes exactly flipzero's planes: its encoder,
/// move generator and decision lookup agree with flipzero's.
#[cfg_attr(
    python_missing,
    ignore = "python3 not found: the export example check is skipped"
)]
#[test]
fn the_documented_example_plays_the_networks_best_move() {
    let python = python_with_clients();
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("net.ckpt");
    trained_checkpoint(&rules, &checkpoint);
    let out = dir.path().join("export");
    export(&checkpoint, &out, "onnx");
    let meta = json(&out.join("model.json"));
    let vectors = json(&out.join("test-vectors.json"));
    for vector in vectors["vectors"].as_array().unwrap() {
        let logits = vector["policy_logits"].as_array().unwrap();
        let logit = |i: usize| logits[i].as_f64().unwrap();
        let mut legal: Vec<usize> = vector["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|index| index.as_u64().unwrap() as usize)
            .collect();
        legal.sort_by(|&a, &b| logit(b).total_cmp(&logit(a)));
        // Moves whose logits are within rounding of the best may come out either way.
        let acceptable: Vec<String> = legal
            .iter()
            .take_while(|&&i| logit(legal[0]) - logit(i) < 1e-4)
            .map(|&i| format!("best: {}", meta["decisions"][i]["name"].as_str().unwrap()))
            .collect();
        let output = Process::new(&python)
            .arg(repository().join("scripts/export-example.py"))
            .arg(&out)
            .arg(vector["position"].as_str().unwrap())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let first = said.lines().next().unwrap_or_default().to_owned();
        assert!(
            acceptable.contains(&first),
            "{first} not in {acceptable:?}: {vector}"
        );
    }
    // Its encoder gives exactly the planes flipzero wrote for every test position.
    let planes_check = r#"
import importlib.util, json, sys
import numpy as np
spec = importlib.util.spec_from_file_location("example", sys.argv[1])
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
meta = json.load(open(sys.argv[2] + "/model.json"))
vectors = json.load(open(sys.argv[2] + "/test-vectors.json"))["vectors"]
for vector in vectors:
    planes = example.encode(meta, *example.parse(meta, vector["position"]))
    expected = np.array(vector["planes"], dtype=np.float32)
    assert np.array_equal(planes.reshape(-1), expected), vector["position"]
print("planes match", len(vectors))
"#;
    let output = Process::new(&python)
        .args(["-c", planes_check])
        .arg(repository().join("scripts/export-example.py"))
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "planes match 12"
    );
    let documented = std::fs::read_to_string(repository().join("docs/EXPORT.md")).unwrap();
    let script = std::fs::read_to_string(repository().join("scripts/export-example.py")).unwrap();
    assert!(
        documented.contains(&script),
        "docs/EXPORT.md must show scripts/export-example.py as it is"
    );
}
