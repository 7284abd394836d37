//! The `flipzero` binary, driven as a user would.

mod common;

use common::{assert_success, failing, flipzero, tiny_run_config};

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
    assert_eq!(leaves(&json_lines(&output.stdout)), [17, 306, 1224]);
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
    // Win, draw or loss only: the sign of the published score, with fewer nodes.
    let outcomes = flipzero()
        .args(["solve", file.to_str().unwrap(), "--json", "--outcome"])
        .output()
        .unwrap();
    assert!(outcomes.status.success());
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

const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

#[test]
fn analyze_scores_every_move_of_an_endgame_exactly() {
    let output = flipzero()
        .args(["analyze", "--position", FFO_1, "--solve", "14", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
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
    let output = flipzero()
        .args([
            "analyze",
            "--variant",
            "gomullo",
            "--size",
            "6",
            "--depth",
            "3",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("4 decisions, depth 3"), "{text}");
    let full = "X".repeat(36) + " O";
    assert!(failing(&["analyze", "--size", "6", "--position", &full]).contains("the game is over"));
}

#[test]
fn play_refuses_mistyped_moves_and_takes_moves_back() {
    let output = flipzero()
        .args(["play", "--size", "6", "--white", "engine:depth=2"])
        .write_stdin("zz9\nb3 d2\nh8\nc4\nb3\nundo\nundo\nquit\n")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
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
    assert!(output.status.success(), "{output:?}");
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
    let output = flipzero()
        .args([
            "play",
            "--variant",
            "anti",
            "--size",
            "6",
            "--black",
            "engine:depth=2",
            "--white",
            "engine:depth=3,random=100,seed=4",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
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
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("input closed"));
}

#[test]
fn a_bad_player_option_is_refused_by_name() {
    let output = flipzero()
        .args(["play", "--white", "engine:depht=3"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("engine option `depht=3`: unknown option"),
        "{error}"
    );
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
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("[profiles.\"othello/6x6\"]"), "{text}");
    assert!(text.contains("held-out error"), "{text}");
    let output = flipzero()
        .args(["analyze", "--size", "6", "--depth", "2", "--weights"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
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
        assert!(output.status.success(), "{output:?}");
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

/// The tiny 6x6 run of the run crate's tests.
/// `flipzero <subcommand> --config <tiny run> --run-dir <run>`.
fn tiny_run_command(subcommand: &str, run: &std::path::Path) -> std::process::Output {
    let config = tiny_run_config();
    flipzero()
        .args([subcommand, "--config", config.to_str().unwrap()])
        .args(["--run-dir", run.to_str().unwrap()])
        .output()
        .unwrap()
}

fn shard_names(run: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(run.join("shards"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".shard"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_loop_killed_in_the_middle_resumes_and_loses_no_game() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let run_arg = run.to_str().unwrap();
    let config = tiny_run_config();
    let config_arg = config.to_str().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("flipzero"))
        .args(["loop", "--config", config_arg, "--run-dir", run_arg])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL: no chance to tidy up) once some games of the first iteration are
    // written and before the iteration ends.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while shard_names(&run).len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = shard_names(&run);
    assert!(!before.is_empty(), "games were written before the kill");
    let kept: Vec<Vec<u8>> = before
        .iter()
        .map(|name| std::fs::read(run.join("shards").join(name)).unwrap())
        .collect();

    let output = flipzero()
        .args(["loop", "--config", config_arg, "--run-dir", run_arg])
        .output()
        .unwrap();
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("iteration   2"), "{stdout}");
    // Every game written before the kill is still there, unchanged, and every game of both
    // iterations exists once.
    for (name, bytes) in before.iter().zip(&kept) {
        assert_eq!(
            &std::fs::read(run.join("shards").join(name)).unwrap(),
            bytes,
            "{name}"
        );
    }
    let expected: Vec<String> = [0, 3]
        .iter()
        .flat_map(|step| (0..6).map(move |game| format!("step-{step:09}-game-{game:06}.shard")))
        .collect();
    assert_eq!(shard_names(&run), expected);
    let checkpoints: Vec<String> = {
        let mut names: Vec<String> = std::fs::read_dir(run.join("checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".ckpt"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        checkpoints,
        [
            "step-000000000.ckpt",
            "step-000000003.ckpt",
            "step-000000006.ckpt"
        ]
    );
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let evaluations = metrics
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|record| record["stage"] == "evaluate" && record["step"] == 6)
        .count();
    assert_eq!(evaluations, 2, "{metrics}");
}

#[test]
fn the_stages_run_as_separate_commands_on_one_run_directory() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let run_arg = run.to_str().unwrap();
    let config = tiny_run_config();
    let ok = |args: &[&str]| {
        let output = flipzero().args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    ok(&[
        "init",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run_arg,
    ]);
    let played = ok(&["selfplay", "--run-dir", run_arg, "--games", "4"]);
    assert!(played.contains("step 0: 4 games"), "{played}");
    let trained = ok(&["train", "--run-dir", run_arg, "--steps", "2"]);
    assert!(trained.contains("step 2:"), "{trained}");
    let games = folder.path().join("games.jsonl");
    let evaluated = ok(&[
        "evaluate",
        "--run-dir",
        run_arg,
        "--openings",
        "1",
        "--opponent",
        "random",
        "--balanced",
        "30",
        "--games",
        games.to_str().unwrap(),
    ]);
    assert!(evaluated.contains("step 2: vs random"), "{evaluated}");
    // Both games of the opening were saved, and each replays to its end.
    let saved = std::fs::read_to_string(&games).unwrap();
    assert_eq!(saved.lines().count(), 2);
    for line in ["1", "2"] {
        let replayed = ok(&["replay", "--games", games.to_str().unwrap(), "--line", line]);
        assert!(replayed.contains("result:"), "{replayed}");
    }
    // A stage on a directory that holds no run says so.
    let output = flipzero()
        .args([
            "train",
            "--run-dir",
            folder.path().join("nothing").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("config.toml"), "{stderr}");
}

#[test]
fn ladder_rates_a_checkpoint_against_engine_depths() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let config = tiny_run_config();
    let output = tiny_run_command("init", &run);
    assert!(output.status.success());
    let checkpoint = run.join("checkpoints").join("step-000000000.ckpt");
    let output = flipzero()
        .args(["ladder", "--checkpoint", checkpoint.to_str().unwrap()])
        .args([
            "--depth",
            "2",
            "--openings",
            "2",
            "--simulations",
            "4",
            "--json",
        ])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["step"], 0);
    assert_eq!(report["rungs"][0]["elo"], 0.0, "depth 1 anchors the scale");
    assert_eq!(report["rungs"].as_array().unwrap().len(), 2);
    // The candidate against each rung, then depth 2 against depth 1: 4 games each.
    let matches = report["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 3);
    assert_eq!(matches[2]["first"], "depth 2");
    for found in matches {
        assert_eq!(found["games"], 4);
    }
    assert!(report["elo"].as_f64().unwrap().is_finite());
    // A file that is not a checkpoint is refused with its name.
    assert!(failing(&["ladder", "--checkpoint", config.to_str().unwrap()]).contains("tiny.toml"));
}

#[test]
fn a_checkpoint_is_measured_against_perfect_play() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert!(tiny_run_command("init", &run).status.success());
    let checkpoint = run.join("checkpoints").join("step-000000000.ckpt");
    let checkpoint = checkpoint.to_str().unwrap();

    // The ladder with perfect play on top.
    let output = flipzero()
        .args([
            "ladder",
            "--checkpoint",
            checkpoint,
            "--depth",
            "1",
            "--perfect",
        ])
        .args([
            "--openings",
            "2",
            "--opening-plies",
            "14",
            "--simulations",
            "4",
            "--json",
        ])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rungs = report["rungs"].as_array().unwrap();
    assert_eq!(rungs[1]["rung"], "perfect");
    assert!(rungs[1]["elo"].as_f64().unwrap() > 0.0, "{report}");

    // evaluate against perfect play from openings of known value.
    let evaluated = flipzero()
        .args([
            "evaluate",
            "--run-dir",
            run.to_str().unwrap(),
            "--opponent",
            "perfect",
        ])
        .args([
            "--openings",
            "2",
            "--opening-plies",
            "14-16",
            "--exact-within",
            "10",
        ])
        .args(["--solve", "0", "--simulations", "4"])
        .output()
        .unwrap();
    assert_success(&evaluated);
    let line = String::from_utf8_lossy(&evaluated.stdout);
    assert!(
        line.contains("against the exact values of 4 games"),
        "{line}"
    );
    assert!(run.join("exact-values.json").exists());

    // accuracy on drawn positions, scored into the run's cache.
    let output = flipzero()
        .args(["accuracy", "--checkpoint", checkpoint, "--sample", "6"])
        .args(["--empties", "8-12", "--simulations", "4", "--json"])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let positions = report["positions"].as_u64().unwrap();
    assert!(positions >= 3, "{report}");
    for key in ["policy_best", "search_best"] {
        let share = report[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&share), "{report}");
    }
    assert!(report["policy_discs_lost"].as_f64().unwrap() >= 0.0);
    let rows = report["by_empties"].as_array().unwrap();
    assert!(
        rows.iter()
            .all(|row| (8..=12).contains(&row["empties"].as_u64().unwrap()))
    );

    // accuracy on a file of positions; a bad line is named.
    let positions = write_file(
        folder.path(),
        "positions.txt",
        "; a comment\nXXXXXXOOOOOOXXXXXXOOOOOOXXXX-------- X\n",
    );
    let output = flipzero()
        .args(["accuracy", "--checkpoint", checkpoint])
        .args(["--positions", positions.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["positions"], 1, "{report}");
    let bad = write_file(folder.path(), "bad.txt", "XXXX\n");
    let error = failing(&[
        "accuracy",
        "--checkpoint",
        checkpoint,
        "--positions",
        bad.to_str().unwrap(),
    ]);
    assert!(error.contains("bad.txt line 1"), "{error}");
}

fn write_file(folder: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_arena_round_robin_rates_agents_and_its_games_replay() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "arena.toml",
        r#"
variant = "othello"
size = 6
format = "round-robin"
agents = ["random", "greedy", "engine:depth=2"]
anchor = "random"
[openings]
count = 3
plies = 2
"#,
    );
    let games = folder.path().join("games.jsonl");
    let output = flipzero()
        .args(["arena", "--config", config.to_str().unwrap(), "--json"])
        .args(["--games", games.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Three pairs, three openings, both colours: 18 games, 12 per agent.
    assert_eq!(report["games"], 18);
    let standings = report["standings"].as_array().unwrap();
    assert_eq!(standings[0]["agent"], "engine:depth=2");
    let random = standings.iter().find(|s| s["agent"] == "random").unwrap();
    assert_eq!(random["elo"], 0.0);
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 18.0);
    for standing in standings {
        assert_eq!(standing["games"], 12);
    }
    // Every saved game replays to its recorded result.
    let lines = std::fs::read_to_string(&games).unwrap();
    assert_eq!(lines.lines().count(), 18);
    for (index, line) in lines.lines().enumerate() {
        let saved: serde_json::Value = serde_json::from_str(line).unwrap();
        let output = flipzero()
            .args(["replay", "--games", games.to_str().unwrap(), "--json"])
            .args(["--line", &(index + 1).to_string()])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
        let replayed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(replayed["over"], true);
        assert_eq!(replayed["score"], saved["score"], "line {}", index + 1);
        let expected = match saved["result"].as_str().unwrap() {
            "1-0" => "black wins",
            "0-1" => "white wins",
            _ => "draw",
        };
        assert_eq!(replayed["result"], expected);
    }
    assert!(
        failing(&["replay", "--games", games.to_str().unwrap(), "--line", "19"])
            .contains("no line 19")
    );
}

#[test]
fn an_arena_swiss_with_an_odd_field_and_a_clock() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "swiss.toml",
        r#"
variant = "othello"
size = 6
format = "swiss"
rounds = 3
agents = ["random", "greedy", "engine:depth=1"]
seconds_per_game = 30.0
[openings]
count = 2
plies = 1
"#,
    );
    let output = flipzero()
        .args(["arena", "--config", config.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Three players: one game and one bye per round.
    assert_eq!(report["games"], 3);
    let standings = report["standings"].as_array().unwrap();
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 3.0 + 3.0, "a point per game and per bye");
    for standing in standings {
        assert!(standing["brightwell"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn an_arena_config_with_a_mistake_is_refused_by_name() {
    let folder = tempfile::tempdir().unwrap();
    for (text, named) in [
        (
            "variant = \"othello\"\nformat = \"match\"\nagents = [\"random\"]\n[openings]\ncount = 2\n",
            "needs 2 to 2 agents",
        ),
        (
            "variant = \"othello\"\nformat = \"swiss\"\nagents = [\"random\", \"greedy\"]\n[openings]\ncount = 2\n",
            "rounds",
        ),
        (
            "variant = \"othello\"\nformat = \"league\"\nagents = [\"random\", \"greedy\"]\n[openings]\ncount = 2\n",
            "league",
        ),
        (
            "variant = \"othello\"\nformat = \"match\"\nagents = [\"random\", \"grredy\"]\n[openings]\ncount = 2\n",
            "grredy",
        ),
    ] {
        let config = write_file(folder.path(), "bad.toml", text);
        let output = flipzero()
            .args(["arena", "--config", config.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("bad.toml") && stderr.contains(named),
            "{stderr}"
        );
    }
}

fn non_empty(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 1000)
}

#[test]
fn report_plots_a_run_as_png_and_svg_beside_a_page() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let output = tiny_run_command("loop", &run);
    assert_success(&output);
    for html in [false, true] {
        let out = folder.path().join(if html { "html" } else { "markdown" });
        let mut command = flipzero();
        command.args([
            "report",
            run.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        if html {
            command.arg("--html");
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let page =
            std::fs::read_to_string(out.join(if html { "report.html" } else { "report.md" }))
                .unwrap();
        for plot in [
            "losses",
            "scores",
            "elo-time",
            "elo-steps",
            "speed",
            "margins",
        ] {
            assert!(page.contains(&format!("{plot}.png")), "{plot} in {page}");
            for extension in ["png", "svg"] {
                let file = out.join(format!("{plot}.{extension}"));
                assert!(non_empty(&file), "{}", file.display());
            }
        }
        // The SVG carries its text, in the embedded font's family.
        let svg = std::fs::read_to_string(out.join("losses.svg")).unwrap();
        assert!(svg.contains("training step"), "axis label in the SVG");
    }
    // A directory without a run is refused.
    assert!(
        failing(&["report", folder.path().join("none").to_str().unwrap()]).contains("no metrics")
    );
}

#[test]
fn arena_report_draws_the_win_rate_matrix() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "arena.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"gauntlet\"\nagents = [\"greedy\", \"random\", \"engine:depth=1\"]\n[openings]\ncount = 2\nplies = 2\n",
    );
    let report = folder.path().join("report");
    let output = flipzero()
        .args([
            "arena",
            "--config",
            config.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_success(&output);
    for file in ["win-rates.png", "win-rates.svg"] {
        assert!(non_empty(&report.join(file)), "{file}");
    }
    let page = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(page.contains("| greedy |"), "{page}");
}

/// Runs `flipzero engine` on a transcript and returns what it answered.
fn engine_session(args: &[&str], transcript: &str) -> String {
    let output = flipzero()
        .arg("engine")
        .args(args)
        .write_stdin(transcript)
        .output()
        .unwrap();
    assert_success(&output);
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn gtp_sessions_play_undo_and_refuse_bad_commands_without_stopping() {
    let transcript = "protocol_version\n7 name\nboardsize 8\nclear_board\nkomi 0\n\
                      play b d3\ngenmove w\nplay b z9\nplay w d3\nfrobnicate\nundo\nundo\n\
                      showboard\nboardsize 7\nknown_command genmove\nquit\n";
    let answer = engine_session(
        &["--protocol", "gtp", "--agent", "engine:depth=2"],
        transcript,
    );
    let replies: Vec<&str> = answer.split("\n\n").filter(|r| !r.is_empty()).collect();
    assert_eq!(replies[0], "= 2");
    assert_eq!(replies[1], "=7 flipzero");
    assert_eq!(&replies[2..5], ["=", "=", "="]);
    assert_eq!(replies[5], "=", "d3 is legal for Black");
    // White's reply to d3 is one of c3, c5, e3.
    let genmove = replies[6].strip_prefix("= ").unwrap();
    assert!(["C3", "C5", "E3"].contains(&genmove), "{genmove}");
    assert!(replies[7].starts_with("? illegal move"), "{}", replies[7]);
    assert!(
        replies[8].starts_with("? illegal move"),
        "White has just played"
    );
    assert_eq!(replies[9], "? unknown command");
    assert_eq!(&replies[10..12], ["=", "="], "two undos: the start again");
    assert!(replies[12].contains("X to move"), "{}", replies[12]);
    assert_eq!(replies[13], "? unacceptable size");
    assert_eq!(replies[14], "= true");
    assert_eq!(replies[15], "=");
}

#[test]
fn gtp_on_a_small_board_plays_a_whole_game_against_itself() {
    let mut transcript = String::from("boardsize 6\n");
    for _ in 0..20 {
        transcript.push_str("genmove b\ngenmove w\n");
    }
    transcript.push_str("final_score\n");
    let answer = engine_session(
        &["--protocol", "gtp", "--agent", "engine:depth=1"],
        &transcript,
    );
    let replies: Vec<&str> = answer.split("\n\n").filter(|r| !r.is_empty()).collect();
    let score = replies.last().unwrap();
    assert!(
        score.starts_with("= B+") || score.starts_with("= W+") || *score == "= 0",
        "{score}"
    );
}

#[test]
fn nboard_sessions_follow_the_gui_and_report_errors_as_status_lines() {
    let transcript = "nboard 2\nset depth 4\n\
        set game (;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5];)\n\
        ping 1\ngo\nhint 2\nmove E6/0.5/1.0\nmove Z9\nbogus words\nset game (;GM[Othello]BO[8 nonsense *];)\nping 2\nquit\n";
    let answer = engine_session(&["--protocol", "nboard"], transcript);
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines[0], "set myname flipzero");
    assert_eq!(lines[1], "pong 1");
    // After f5 f6 d3 c5 Black moves: the answer is a legal move in GUI notation.
    let chosen = lines[2]
        .strip_prefix("=== ")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    assert!(
        ["B4", "C4", "C6", "D6", "E6", "F4", "G6", "E7"].contains(&chosen),
        "{chosen}"
    );
    assert_eq!(lines[3], "status thinking");
    assert!(lines[4].starts_with("search ") && lines[5].starts_with("search "));
    assert_eq!(lines[6], "status");
    assert!(
        lines[7].starts_with("status error: move Z9"),
        "{}",
        lines[7]
    );
    assert!(
        lines[8].starts_with("status error: unknown command"),
        "{}",
        lines[8]
    );
    assert!(
        lines[9].starts_with("status error: set game"),
        "{}",
        lines[9]
    );
    assert_eq!(lines[10], "pong 2", "still running");
}

/// `flipzero engine --protocol <protocol>` at depth 2, as an external agent of the arena,
/// plays a 6-game match against a random player and wins it; every game is saved.
fn external_engine_wins_an_arena_match(protocol: &str, folder: &std::path::Path) {
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let external = format!(
        "{protocol}:{} engine --protocol {protocol} --agent engine:depth=2",
        program.display()
    );
    let config = write_file(
        folder,
        "external.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"{external}\", \"random\"]\n[openings]\ncount = 3\nplies = 2\n"
        ),
    );
    let games = folder.join("games.jsonl");
    let output = flipzero()
        .args(["arena", "--config", config.to_str().unwrap(), "--json"])
        .args(["--games", games.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["games"], 6);
    assert_eq!(
        report["standings"][0]["agent"],
        external.as_str(),
        "depth 2 beats random"
    );
    assert_eq!(std::fs::read_to_string(&games).unwrap().lines().count(), 6);
}

#[test]
fn an_external_nboard_engine_plays_in_the_arena() {
    let folder = tempfile::tempdir().unwrap();
    external_engine_wins_an_arena_match("nboard", folder.path());
    // A program that does not speak NBoard is refused before any game: it does not
    // answer `ping`, so its output ends.
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let config = write_file(
        folder.path(),
        "broken.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:{} variants\", \"random\"]\n[openings]\ncount = 1\n",
            program.display()
        ),
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    // Which comes first is a race: the program ends before its output is read, or before
    // the first command reaches it.
    assert!(
        said.contains("closed its output") || said.contains("went away"),
        "{said}"
    );
    // Nor does it play other rules than standard Othello.
    let config = write_file(
        folder.path(),
        "anti.toml",
        &format!(
            "variant = \"anti\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:{} engine --protocol nboard\", \"random\"]\n[openings]\ncount = 1\n",
            program.display()
        ),
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    assert!(said.contains("standard Othello"), "{said}");
    // A process that never answers is given up on, not waited for.
    let config = write_file(
        folder.path(),
        "silent.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:sleep 60\", \"random\"]\n[openings]\ncount = 1\n",
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    assert!(said.contains("no answer within 10 s"), "{said}");
}

#[test]
fn an_external_gtp_engine_plays_in_the_arena() {
    let folder = tempfile::tempdir().unwrap();
    external_engine_wins_an_arena_match("gtp", folder.path());
    // A command that is not an engine is refused before any game.
    let config = write_file(
        folder.path(),
        "broken.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"gtp:/no/such/engine\", \"random\"]\n[openings]\ncount = 1\n",
    );
    assert!(failing(&["arena", "--config", config.to_str().unwrap()]).contains("/no/such/engine"));
    // Openings of 14 random plies reach the engine by moves (a breadth-first search from the
    // start gave up past 12), and every game is played out.
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let config = write_file(
        folder.path(),
        "deep.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"gtp:{} engine --protocol gtp --agent engine:depth=1\", \"random\"]\n[openings]\ncount = 2\nplies = 14\n",
            program.display()
        ),
    );
    let games = folder.path().join("deep.jsonl");
    let output = flipzero()
        .args(["arena", "--config", config.to_str().unwrap()])
        .args(["--games", games.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&output);
    let saved = std::fs::read_to_string(&games).unwrap();
    assert_eq!(saved.lines().count(), 4, "{saved}");
    for line in saved.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(game["ending"], "finished", "{line}");
        let empties = game["opening"].as_str().unwrap().matches('-').count();
        // 14 plies, a pass among them at most: 13 discs or more beyond the start's four.
        assert!(empties <= 32 - 13, "{line}");
    }
}
