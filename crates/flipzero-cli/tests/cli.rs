//! The `flipzero` binary, driven as a user would.

use assert_cmd::Command;

fn flipzero() -> Command {
    Command::cargo_bin("flipzero").unwrap()
}

fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn leaves(records: &[serde_json::Value]) -> Vec<u64> {
    records
        .iter()
        .map(|record| record["leaves"].as_u64().unwrap())
        .collect()
}

#[test]
fn perft_prints_one_json_object_per_depth() {
    let output = flipzero()
        .args(["perft", "--depth", "5", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let records = json_lines(&output.stdout);
    assert_eq!(leaves(&records), [4, 12, 56, 244, 1396]);
    for (depth, record) in records.iter().enumerate() {
        assert_eq!(record["depth"], depth as u64 + 1);
        assert!(record["seconds"].is_f64(), "{record}");
    }
}

#[test]
fn perft_in_parallel_counts_the_same() {
    let output = flipzero()
        .args(["perft", "--depth", "7", "--threads", "2", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(leaves(&json_lines(&output.stdout))[6], 55092);
}

#[test]
fn perft_prints_a_table_for_other_sizes() {
    let output = flipzero()
        .args(["perft", "--size", "10", "--depth", "3"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("perft 10x10"), "{stdout}");
    assert!(
        stdout.lines().last().unwrap().split_whitespace().nth(1) == Some("56"),
        "{stdout}"
    );
}

#[test]
fn perft_starts_from_a_given_position() {
    // After f5, White has three replies.
    let after_f5 = "---------------------------OX------XXX-------------------------- O";
    let output = flipzero()
        .args(["perft", "--depth", "2", "--json", "--position", after_f5])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(leaves(&json_lines(&output.stdout)), [3, 14]);
}

#[test]
fn a_malformed_position_is_refused_with_the_reason() {
    let bad = "Z--------------------------OX------XO--------------------------- X";
    let output = flipzero()
        .args(["perft", "--depth", "2", "--position", bad])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("`Z` at square a1"), "{stderr}");
}

#[test]
fn an_unsupported_size_is_refused() {
    let output = flipzero()
        .args(["perft", "--size", "18", "--depth", "2"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--size"), "{stderr}");
}

#[test]
fn perft_counts_a_variant_by_name_and_by_file() {
    let output = flipzero()
        .args(["perft", "--variant", "komi", "--depth", "3", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(leaves(&json_lines(&output.stdout)), [17, 289, 1156]);
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../configs/variants/rotation.toml"
    );
    let output = flipzero()
        .args(["perft", "--variant", file, "--depth", "3", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(leaves(&json_lines(&output.stdout)), [8, 32, 192]);
}

#[test]
fn an_invalid_rules_file_names_the_field() {
    let dir = std::env::temp_dir().join(format!("flipzero-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(&file, "objective = { line = { length = 12 } }\n").unwrap();
    let output = flipzero()
        .args(["perft", "--variant", file.to_str().unwrap(), "--depth", "1"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("objective.line.length: 12 does not fit"),
        "{stderr}"
    );
}

#[test]
fn replay_prints_the_final_position_result_and_score() {
    let output = flipzero()
        .args(["replay", "--moves", "d3c3b3d2e1d6d7e3f4", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let record = &json_lines(&output.stdout)[0];
    assert_eq!(record["result"], "black wins");
    assert_eq!(record["score"], 64);
    assert_eq!(record["over"], true);
    let output = flipzero()
        .args([
            "replay",
            "--variant",
            "anti",
            "--moves",
            "d3 c3 b3 d2 e1 d6 d7 e3 f4",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("result: white wins"), "{stdout}");
}

#[test]
fn replay_stops_at_the_first_illegal_decision_and_says_why() {
    let output = flipzero()
        .args(["replay", "--variant", "rotation", "--moves", "f5+ + e6"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("decision 3 `e6`"), "{stdout}");
    assert!(stdout.contains("legal:"), "{stdout}");
    let output = flipzero()
        .args(["replay", "--moves", "f5 zz9"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("decision 2"), "{stdout}");
}

#[test]
fn variants_lists_every_preset() {
    let output = flipzero().args(["variants"]).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 16);
    for name in [
        "othello",
        "classic-reversi",
        "biversi",
        "adneuversi",
        "reversi-ii-free",
    ] {
        assert!(stdout.lines().any(|line| line.starts_with(name)), "{name}");
    }
}

#[test]
fn solve_reports_the_published_scores_of_ffo_positions() {
    // The first five FFO positions (14 to 16 empties) keep the debug build quick.
    let suite = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/ffo/fforum-1-19.obf"
    );
    let text: String = std::fs::read_to_string(suite)
        .unwrap()
        .lines()
        .take(5)
        .map(|line| format!("{line}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("flipzero-cli-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ffo-1-5.obf");
    std::fs::write(&file, text).unwrap();
    let output = flipzero()
        .args(["solve", file.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let records = json_lines(&output.stdout);
    assert_eq!(records.len(), 5);
    for record in records {
        assert_eq!(record["score"], record["published_score"], "{record}");
        assert!(record["nodes"].as_u64().unwrap() > 0);
    }
}
