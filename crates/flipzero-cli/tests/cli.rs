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
        assert!(record["seconds"].as_f64().unwrap() >= 0.0);
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
