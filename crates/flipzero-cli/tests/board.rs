//! The board and the rules from the command line: `perft`, `replay`, `variants`, `play`.

mod common;

use common::{assert_success, failing, failing_output, flipzero, json_lines, succeeding};

fn leaves(records: &[serde_json::Value]) -> Vec<u64> {
    records
        .iter()
        .map(|record| record["leaves"].as_u64().unwrap())
        .collect()
}

#[test]
fn perft_prints_one_json_object_per_depth() {
    let output = succeeding(&["perft", "--depth", "5", "--json"]);
    let records = json_lines(&output.stdout);
    assert_eq!(leaves(&records), [4, 12, 56, 244, 1396]);
    for (depth, record) in records.iter().enumerate() {
        assert_eq!(record["depth"], depth as u64 + 1);
        assert!(record["seconds"].is_f64(), "{record}");
    }
}

#[test]
fn perft_in_parallel_counts_the_same() {
    let output = succeeding(&["perft", "--depth", "7", "--threads", "2", "--json"]);
    assert_eq!(leaves(&json_lines(&output.stdout))[6], 55092);
}

#[test]
fn perft_prints_a_table_for_other_sizes() {
    let output = succeeding(&["perft", "--size", "10", "--depth", "3"]);
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
    let output = succeeding(&["perft", "--depth", "2", "--json", "--position", after_f5]);
    assert_eq!(leaves(&json_lines(&output.stdout)), [3, 14]);
}

#[test]
fn a_malformed_position_is_refused_with_the_reason() {
    let bad = "Z--------------------------OX------XO--------------------------- X";
    let stderr = failing(&["perft", "--depth", "2", "--position", bad]);
    assert!(stderr.contains("`Z` at square a1"), "{stderr}");
}

#[test]
fn an_unsupported_size_is_refused() {
    let stderr = failing(&["perft", "--size", "18", "--depth", "2"]);
    assert!(stderr.contains("--size"), "{stderr}");
}

#[test]
fn perft_counts_a_variant_by_name_and_by_file() {
    let output = succeeding(&["perft", "--variant", "komi", "--depth", "3", "--json"]);
    assert_eq!(leaves(&json_lines(&output.stdout)), [17, 306, 1224]);
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../configs/variants/rotation.toml"
    );
    let output = succeeding(&["perft", "--variant", file, "--depth", "3", "--json"]);
    assert_eq!(leaves(&json_lines(&output.stdout)), [8, 32, 192]);
}

#[test]
fn an_invalid_rules_file_names_the_field() {
    let dir = std::env::temp_dir().join(format!("flipzero-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(&file, "objective = { line = { length = 12 } }\n").unwrap();
    let stderr = failing(&["perft", "--variant", file.to_str().unwrap(), "--depth", "1"]);
    assert!(
        stderr.contains("objective.line.length: 12 does not fit"),
        "{stderr}"
    );
}

#[test]
fn replay_prints_the_final_position_result_and_score() {
    let output = succeeding(&["replay", "--moves", "d3c3b3d2e1d6d7e3f4", "--json"]);
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
    let output = failing_output(&["replay", "--variant", "rotation", "--moves", "f5+ + e6"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("decision 3 `e6`"), "{stdout}");
    assert!(stdout.contains("legal:"), "{stdout}");
    let output = failing_output(&["replay", "--moves", "f5 zz9"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("decision 2"), "{stdout}");
}

#[test]
fn variants_lists_every_preset() {
    let output = succeeding(&["variants"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 17);
    for name in [
        "othello",
        "classic-reversi",
        "classic-reversi-may",
        "biversi",
        "adneuversi",
        "reversi-ii-free",
    ] {
        assert!(stdout.lines().any(|line| line.starts_with(name)), "{name}");
    }
}

#[test]
fn play_refuses_mistyped_moves_and_takes_moves_back() {
    let output = flipzero()
        .args(["play", "--size", "6", "--white", "engine:depth=2"])
        .write_stdin("zz9\nb3 d2\nh8\nc4\nb3\nundo\nundo\nquit\n")
        .output()
        .unwrap();
    assert_success(&output);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("not played: `zz` is not a square"), "{text}");
    assert!(text.contains("one decision at a time"), "{text}");
    assert!(
        text.contains("not played: `h8` is not a square of the 6x6 board"),
        "{text}"
    );
    assert!(
        text.contains("not played: c4 is not legal here (legal: c2 b3 e4 d5)"),
        "{text}"
    );
    assert!(text.contains("O plays"), "{text}");
    assert!(text.contains("taken back"), "{text}");
    assert!(text.contains("nothing to undo"), "{text}");
    // Legal moves are marked on the board.
    assert!(text.contains('*'), "{text}");
}

#[test]
fn play_draws_the_seats_after_equal_bids_and_undo_takes_back_the_bid() {
    let output = flipzero()
        .args([
            "play",
            "--variant",
            "komi",
            "--size",
            "6",
            "--white",
            "human",
        ])
        .write_stdin("bid+1\nbid+1\nundo\nquit\n")
        .output()
        .unwrap();
    assert_success(&output);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("equal bids: the seats are drawn (tie-kept)")
            || text.contains("equal bids: the seats are drawn (tie-swapped)"),
        "{text}"
    );
    // Taken back to the second bid: the bids are offered again, the draw is not.
    let after_undo = text.split("taken back").nth(1).expect("an undo");
    assert!(after_undo.contains("bid+1"), "{text}");
    assert!(!text.contains("to decide (tie-"), "{text}");
}

#[test]
fn two_engines_play_a_whole_game_and_input_may_end_early() {
    let output = succeeding(&[
        "play",
        "--variant",
        "anti",
        "--size",
        "6",
        "--black",
        "engine:depth=2",
        "--white",
        "engine:depth=3,random=100,seed=4",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Black wins") || text.contains("White wins") || text.contains("draw"),
        "{text}"
    );
    let output = flipzero()
        .args(["play", "--size", "6"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_success(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("input closed"));
}

#[test]
fn a_bad_player_option_is_refused_by_name() {
    let error = failing(&["play", "--white", "engine:depht=3"]);
    assert!(
        error.contains("engine option `depht=3`: unknown option"),
        "{error}"
    );
}
