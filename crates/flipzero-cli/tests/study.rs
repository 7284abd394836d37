//! `flipzero study`: the variant study from the command line, resumed, and a bad config named.

mod common;

use std::path::Path;

use common::{failing, succeeding, write_file};

/// The study crate's tiny study (two presets on 4x4, one iteration each).
fn tiny_study() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../flipzero-study/tests/tiny-study.toml");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_study_runs_resumes_and_names_a_bad_config() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(folder.path(), "tiny.toml", &tiny_study());
    let dir = folder.path().join("study");
    let args = [
        "study",
        "--config",
        config.to_str().unwrap(),
        "--dir",
        dir.to_str().unwrap(),
    ];
    succeeding(&args);
    for file in ["study.md", "results/othello.json", "results/anti.json"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    let table = std::fs::read_to_string(dir.join("study.md")).unwrap();
    assert!(
        table.contains("othello") && table.contains("anti"),
        "{table}"
    );
    // A second run takes every preset's result from the directory.
    let again = succeeding(&args);
    let said = String::from_utf8_lossy(&again.stdout).into_owned()
        + &String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains("othello: measured before") && said.contains("anti: measured before"),
        "{said}"
    );

    let typo = write_file(
        folder.path(),
        "typo.toml",
        &tiny_study().replace("strong_games", "strong_gamez"),
    );
    let error = failing(&["study", "--config", typo.to_str().unwrap()]);
    assert!(error.contains("strong_gamez"), "{error}");
}
