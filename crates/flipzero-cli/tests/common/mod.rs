//! Helpers shared by the test files that drive the `flipzero` binary.

use assert_cmd::Command;

/// The binary, ready for arguments.
pub(crate) fn flipzero() -> Command {
    Command::cargo_bin("flipzero").unwrap()
}

/// Runs `flipzero` with `args`, expects it to fail, and returns what it said on stderr.
pub(crate) fn failing(args: &[&str]) -> String {
    let output = flipzero().args(args).output().unwrap();
    assert!(!output.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Fails the test, showing the program's stderr, unless it exited successfully.
pub(crate) fn assert_success(output: &std::process::Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The tiny 6x6 run config of the run crate's tests (one block of 8 channels).
#[allow(dead_code)] // each test file compiles this module; export.rs has no run
pub(crate) fn tiny_run_config() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../flipzero-run/tests/tiny.toml")
}
