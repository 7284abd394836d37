//! Run directories under faults beyond a kill (cli.rs has the kill test): a disk that fills
//! up and a directory that cannot be written. Each is refused with the file named, nothing
//! already written is changed, and the run resumes once the fault is gone.

#[allow(dead_code)]
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

/// `flipzero loop` on the tiny config for `iterations`, run by `sh -c <prefix> ...`.
fn run_loop(run: &Path, iterations: &str, prefix: &str) -> std::process::Output {
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{prefix} exec \"$0\" \"$@\""))
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
    assert_success(&run_loop(&run, "1", ""));
    let before = written(&run);
    // Files may grow to 16 blocks (8 or 16 KiB, as the shell counts them; the tiny network's
    // checkpoints are about 30 KiB), and a write past that fails with "File too large"
    // instead of killing the process.
    let output = run_loop(&run, "2", "ulimit -f 16; trap '' XFSZ;");
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
    let output = run_loop(&run, "2", "");
    assert_success(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("iteration   2"));
}

#[test]
fn a_read_only_run_directory_is_refused_with_its_name() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert_success(&run_loop(&run, "1", ""));
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
    // Root writes into read-only directories anyway: nothing to test there.
    if std::fs::write(run.join("probe"), b"x").is_ok() {
        set_writable(true);
        println!("SKIPPED: running as root, a read-only directory is still writable");
        return;
    }
    let output = run_loop(&run, "2", "");
    set_writable(true);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains(run.to_str().unwrap()), "{said}");
    assert_eq!(written(&run), before);
    assert_success(&run_loop(&run, "2", ""));
}
