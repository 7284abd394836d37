//! The classical engine from the command line: `solve`, `analyze`, `tune`.

mod common;

use common::{assert_success, failing, flipzero, json_lines, succeeding};

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
    let output = succeeding(&["solve", file.to_str().unwrap(), "--json"]);
    let records = json_lines(&output.stdout);
    assert_eq!(records.len(), 5);
    for record in records {
        assert_eq!(record["score"], record["published_score"], "{record}");
        assert!(record["nodes"].as_u64().unwrap() > 0);
    }
    // Win, draw or loss only: the sign of the published score, with fewer nodes.
    let outcomes = succeeding(&["solve", file.to_str().unwrap(), "--json", "--outcome"]);
    let (exact, outcomes) = (json_lines(&output.stdout), json_lines(&outcomes.stdout));
    assert_eq!(outcomes.len(), exact.len());
    for (exact, outcome) in exact.iter().zip(&outcomes) {
        assert_eq!(outcome["published_score"], exact["published_score"]);
        let sign = exact["published_score"].as_i64().unwrap().signum();
        assert_eq!(outcome["score"].as_i64(), Some(sign), "{outcome}");
        let nodes = |record: &serde_json::Value| record["nodes"].as_u64().unwrap();
        assert!(nodes(outcome) < nodes(exact), "{outcome}");
    }
}

#[test]
fn solve_handles_the_fewest_discs_goal() {
    // 4x4, one empty square: Black's only move d4 flips b4 and c4 and fills the board black.
    let directory = std::env::temp_dir().join(format!("flipzero-anti-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("one.obf");
    std::fs::write(&file, "XXXXXXXXXXXXXOO- X\n").unwrap();
    let score = |extra: &[&str]| {
        let output = flipzero()
            .arg("solve")
            .arg(&file)
            .args(extra)
            .arg("--json")
            .output()
            .unwrap();
        assert_success(&output);
        let record = &json_lines(&output.stdout)[0];
        assert_eq!(record["best_moves"][0], "d4");
        record["score"].as_i64().unwrap()
    };
    assert_eq!(score(&[]), 16);
    assert_eq!(score(&["--fewest-discs"]), -16);
    assert_eq!(score(&["--outcome"]), 1);
    assert_eq!(score(&["--fewest-discs", "--outcome"]), -1);
    std::fs::remove_dir_all(&directory).unwrap();
}

const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

#[test]
fn analyze_scores_every_move_of_an_endgame_exactly() {
    let output = succeeding(&["analyze", "--position", FFO_1, "--solve", "14", "--json"]);
    let record = &json_lines(&output.stdout)[0];
    let decisions = record["decisions"].as_array().unwrap();
    // The published FFO #1 scores: g8 +18, h1 +12, ..., g2 -24.
    let value_of = |name: &str| {
        decisions
            .iter()
            .find(|d| d["decision"] == name)
            .map(|d| (d["value"].as_f64().unwrap(), d["exact"].as_bool().unwrap()))
            .unwrap()
    };
    assert_eq!(decisions[0]["decision"], "g8");
    assert_eq!(value_of("g8"), (18.0, true));
    assert_eq!(value_of("h1"), (12.0, true));
    assert_eq!(value_of("g2"), (-24.0, true));
    assert_eq!(decisions.len(), 8);
}

#[test]
fn analyze_searches_any_variant_and_refuses_a_finished_game() {
    let output = succeeding(&[
        "analyze",
        "--variant",
        "gomullo",
        "--size",
        "6",
        "--depth",
        "3",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("4 decisions, depth 3"), "{text}");
    let full = "X".repeat(36) + " O";
    assert!(failing(&["analyze", "--size", "6", "--position", &full]).contains("the game is over"));
}

#[test]
fn tune_writes_a_profile_that_the_engine_then_reads() {
    let directory = std::env::temp_dir().join(format!("flipzero-tune-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let out = directory.join("weights.toml");
    let output = flipzero()
        .args([
            "tune",
            "--size",
            "6",
            "--positions",
            "300",
            "--depth",
            "2",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("[profiles.\"othello/6x6\"]"), "{text}");
    assert!(text.contains("held-out error"), "{text}");
    let output = flipzero()
        .args(["analyze", "--size", "6", "--depth", "2", "--weights"])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    std::fs::write(
        &out,
        "[profiles.othello]\nopening = { corner = 3 }\nendgame = {}\n",
    )
    .unwrap();
    let output = flipzero()
        .args(["analyze", "--size", "6", "--weights"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown feature `corner`"));
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn tune_fits_probcut_lines_that_the_engine_then_cuts_with() {
    let directory = std::env::temp_dir().join(format!("flipzero-probcut-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let out = directory.join("weights.toml");
    let output = flipzero()
        .args([
            "tune",
            "--size",
            "6",
            "--model",
            "probcut",
            "--positions",
            "120",
            "--depth",
            "4",
            "--stages",
            "2",
            "--solve",
            "8",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_success(&output);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(printed.contains("depth  shallow  stage"), "{printed}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("[profiles.\"othello/6x6\".probcut]"),
        "{text}"
    );
    assert!(text.contains("depth = 4"), "{text}");
    // The fitted profile keeps its evaluation: the pattern model travels beside the file.
    assert!(directory.join("patterns/othello-6x6.fzp").exists());
    assert!(
        failing(&["tune", "--size", "6", "--model", "probcut", "--depth", "2"])
            .contains("at least 3")
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn value_reports_the_published_four_by_four_result_and_checks_it_by_minimax() {
    // 4x4 Othello is a second-player win, 3-11 with two squares empty (the empties go to
    // the winner here: 3-13); anti-Othello's first player wins. `--check` fails on any
    // disagreement between alpha-beta with the solver, alpha-beta alone, minimax and
    // memoised minimax.
    let output = succeeding(&[
        "value",
        "--variant",
        "othello,anti",
        "--size",
        "4",
        "--check",
        "--json",
    ]);
    let records = json_lines(&output.stdout);
    let searches: Vec<&str> = records
        .iter()
        .map(|r| r["search"].as_str().unwrap())
        .collect();
    assert_eq!(searches.len(), 8, "{records:?}");
    assert!(searches.contains(&"minimax"), "{searches:?}");
    assert!(searches.contains(&"minimax with memo"), "{searches:?}");
    for record in &records {
        let (margin, win, loss) = match record["variant"].as_str().unwrap() {
            "othello" => (-10.0, 0.0, 1.0),
            "anti" => (3.0, 1.0, 0.0),
            other => panic!("unexpected variant {other}"),
        };
        assert_eq!(record["first_player"], "black", "{record}");
        assert_eq!(record["margin"].as_f64(), Some(margin), "{record}");
        assert_eq!(record["win"].as_f64(), Some(win), "{record}");
        assert_eq!(record["loss"].as_f64(), Some(loss), "{record}");
        assert!(record["nodes"].as_u64().unwrap() > 0, "{record}");
    }
}

#[test]
fn value_reports_a_tree_too_large_for_its_time_as_open() {
    let output = succeeding(&[
        "value",
        "--variant",
        "othello",
        "--size",
        "8",
        "--seconds",
        "0.2",
        "--json",
    ]);
    let record = &json_lines(&output.stdout)[0];
    let open = record["open"].as_str().unwrap();
    assert!(open.contains("not finished within 0.2 s"), "{record}");
    assert!(record.get("margin").is_none(), "{record}");
    // Sacrifices repeat positions: a line past the limit leaves the variant open too.
    let output = succeeding(&[
        "value",
        "--variant",
        "sacrifice,othello",
        "--max-turns",
        "30",
        "--json",
    ]);
    let records = json_lines(&output.stdout);
    let open = records[0]["open"].as_str().unwrap();
    assert!(open.contains("a line went past 30 turns"), "{records:?}");
    assert_eq!(records[1]["margin"].as_f64(), Some(-10.0), "{records:?}");
    // Without --size each preset takes the smallest board it allows: biversi's two
    // patterns need 6x6.
    let output = succeeding(&[
        "value",
        "--variant",
        "biversi,othello",
        "--seconds",
        "0.2",
        "--json",
    ]);
    let records = json_lines(&output.stdout);
    assert_eq!(records[0]["board"], "6x6", "{records:?}");
    assert_eq!(records[1]["board"], "4x4", "{records:?}");
}

#[test]
fn value_refuses_bad_arguments_by_name() {
    let error = failing(&["value", "--variant", "no-such-variant"]);
    assert!(error.contains("no-such-variant"), "{error}");
    let error = failing(&["value", "--seconds", "0"]);
    assert!(error.contains("--seconds"), "{error}");
    let error = failing(&["value", "--max-turns", "0"]);
    assert!(error.contains("--max-turns"), "{error}");
    let error = failing(&["value", "--variant", "sacrifice", "--search", "solver"]);
    assert!(
        error.contains("the bitboard solver cannot play sacrifice"),
        "{error}"
    );
}
