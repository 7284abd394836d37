//! Run directories under faults beyond a kill (runs.rs has the kill test): a disk that fills
//! up, a directory that cannot be written, a newest checkpoint damaged on disk. Each is
//! refused with the file named, nothing already written is changed, and the run resumes once
//! the fault is gone.

mod common;

use common::{assert_success, tiny_run_config};
use std::collections::BTreeMap;
use std::path::Path;

/// Every checkpoint and shard of the run, by name, with its bytes.
fn written(run: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for folder in ["checkpoints", "shards"] {
        for entry in std::fs::read_dir(run.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            files.insert(name, std::fs::read(&path).unwrap());
        }
    }
    files
}

/// `flipzero loop` on the tiny config for `iterations`, run by `sh -c <setup> exec <wrapper>
/// flipzero ...` (a wrapper is a program that runs it, as `setpriv ...` does).
fn run_loop(run: &Path, iterations: &str, setup: &str, wrapper: &str) -> std::process::Output {
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{setup} exec {wrapper} \"$0\" \"$@\""))
        .arg(program)
        .args(["loop", "--config", tiny_run_config().to_str().unwrap()])
        .args([
            "--run-dir",
            run.to_str().unwrap(),
            "--iterations",
            iterations,
        ])
        .output()
        .unwrap()
}

#[test]
fn a_full_disk_stops_the_run_with_the_file_named_and_loses_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert_success(&run_loop(&run, "1", "", ""));
    let before = written(&run);
    // Files may grow to 16 blocks (8 or 16 KiB, as the shell counts them; the tiny network's
    // checkpoints are about 30 KiB), and a write past that fails with "File too large"
    // instead of killing the process.
    let output = run_loop(&run, "2", "ulimit -f 16; trap '' XFSZ;", "");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the run cannot go on: {said}");
    assert!(
        said.contains("too large") && said.contains(run.to_str().unwrap()),
        "{said}"
    );
    // What was written before is all there, unchanged, and nothing half-written is left.
    let after = written(&run);
    for (name, bytes) in &before {
        assert_eq!(after.get(name), Some(bytes), "{name}");
    }
    assert!(
        after.keys().all(|name| !name.contains(".tmp")),
        "{:?}",
        after.keys()
    );
    // With room again, the run resumes and finishes its second iteration.
    let output = run_loop(&run, "2", "", "");
    assert_success(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("iteration   2"));
}

#[test]
fn a_read_only_run_directory_is_refused_with_its_name() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert_success(&run_loop(&run, "1", "", ""));
    let before = written(&run);
    let set_writable = |writable: bool| {
        for sub in ["", "checkpoints", "shards"] {
            let path = run.join(sub);
            let mut permissions = std::fs::metadata(&path).unwrap().permissions();
            permissions.set_readonly(!writable);
            std::fs::set_permissions(&path, permissions).unwrap();
        }
    };
    set_writable(false);
    // Root writes into read-only directories anyway (the capability CAP_DAC_OVERRIDE): as
    // root, the run is started without it, as any other user would be.
    let as_a_user = if std::fs::write(run.join("probe"), b"x").is_ok() {
        std::fs::remove_file(run.join("probe")).unwrap();
        let drop = "setpriv --bounding-set=-dac_override,-dac_read_search";
        let succeeds = |command: String| {
            std::process::Command::new("sh")
                .arg("-c")
                .arg(command)
                .arg(run.join("probe"))
                .status()
                .is_ok_and(|status| status.success())
        };
        let stops_root = succeeds("setpriv --version > /dev/null 2>&1".to_owned())
            && !succeeds(format!("{drop} touch \"$0\" 2>/dev/null"));
        if !stops_root {
            let _ = std::fs::remove_file(run.join("probe"));
            set_writable(true);
            println!("SKIPPED: running as root without setpriv (util-linux) to drop its rights");
            return;
        }
        drop
    } else {
        ""
    };
    let output = run_loop(&run, "2", "", as_a_user);
    set_writable(true);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains(run.to_str().unwrap()), "{said}");
    assert_eq!(written(&run), before);
    assert_success(&run_loop(&run, "2", "", ""));
}

#[test]
fn a_damaged_newest_checkpoint_stops_the_run_with_its_name_and_loses_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert_success(&run_loop(&run, "1", "", ""));
    let before = written(&run);
    let newest = before
        .keys()
        .filter(|name| name.ends_with(".ckpt"))
        .max()
        .unwrap()
        .clone();
    let good = before[&newest].clone();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x01;
    let path = run.join(&newest);
    for (damage, bytes) in [
        ("empty", Vec::new()),
        ("cut in half", good[..good.len() / 2].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        ("one bit flipped", flipped),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let output = run_loop(&run, "2", "", "");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{damage}: {said}");
        assert!(
            said.contains(path.to_str().unwrap()) && !said.contains("panicked"),
            "{damage}: {said}"
        );
        assert!(said.contains("move it aside"), "{damage}: {said}");
        // Nothing else changed: the shards and the older checkpoints are as they were.
        let mut after = written(&run);
        assert_eq!(after.remove(&newest), Some(bytes), "{damage}");
        let mut expected = before.clone();
        expected.remove(&newest);
        assert_eq!(after, expected, "{damage}");
    }
    // Moved aside as the message says, the run resumes from the checkpoint before it.
    std::fs::rename(&path, run.join("damaged.ckpt")).unwrap();
    let output = run_loop(&run, "2", "", "");
    assert_success(&output);
}
