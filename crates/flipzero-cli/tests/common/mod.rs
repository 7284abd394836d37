//! Helpers shared by the test files that drive the `flipzero` binary.
// Each test file compiles this module and uses some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// The binary, ready for arguments.
pub(crate) fn flipzero() -> Command {
    Command::cargo_bin("flipzero").unwrap()
}

/// Runs `flipzero` with `args` and expects it to succeed (showing its stderr if not).
pub(crate) fn succeeding(args: &[&str]) -> Output {
    let output = flipzero().args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs `flipzero` with `args` and expects it to fail.
pub(crate) fn failing_output(args: &[&str]) -> Output {
    let output = flipzero().args(args).output().unwrap();
    assert!(!output.status.success(), "{args:?} should fail");
    output
}

/// Runs `flipzero` with `args`, expects it to fail, and returns what it said on stderr.
pub(crate) fn failing(args: &[&str]) -> String {
    String::from_utf8_lossy(&failing_output(args).stderr).into_owned()
}

/// Fails the test, showing the program's stderr, unless it exited successfully.
pub(crate) fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Each line of a command's output as JSON.
pub(crate) fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The tiny 6x6 run config of the run crate's tests (one block of 8 channels).
pub(crate) fn tiny_run_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../flipzero-run/tests/tiny.toml")
}

/// `flipzero <subcommand> --config <tiny run> --run-dir <run>`.
pub(crate) fn tiny_run_command(subcommand: &str, run: &Path) -> Output {
    let config = tiny_run_config();
    flipzero()
        .args([subcommand, "--config", config.to_str().unwrap()])
        .args(["--run-dir", run.to_str().unwrap()])
        .output()
        .unwrap()
}

/// Writes `text` to `folder/name` and returns the path.
pub(crate) fn write_file(folder: &Path, name: &str, text: &str) -> PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Whether a written file (a plot) has real content.
pub(crate) fn non_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 1000)
}
