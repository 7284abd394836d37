//! Learning runs from the command line: `loop`, the stages, `ladder`, `evaluate`, `accuracy`, `report`.

mod common;

use common::{
    assert_success, failing, flipzero, non_empty, succeeding, tiny_run_command, tiny_run_config,
    write_file,
};

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

    let output = succeeding(&["loop", "--config", config_arg, "--run-dir", run_arg]);
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
    let ok = |args: &[&str]| String::from_utf8_lossy(&succeeding(args).stdout).into_owned();
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
    let stderr = failing(&[
        "train",
        "--run-dir",
        folder.path().join("nothing").to_str().unwrap(),
    ]);
    assert!(stderr.contains("config.toml"), "{stderr}");
}

#[test]
fn ladder_rates_a_checkpoint_against_engine_depths() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let config = tiny_run_config();
    assert_success(&tiny_run_command("init", &run));
    let checkpoint = run.join("checkpoints").join("step-000000000.ckpt");
    // A two-rung ladder over two openings, with more arguments after.
    let ladder = |simulations: &str, more: &[&str]| {
        let mut args = vec![
            "ladder",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--depth",
            "2",
            "--openings",
            "2",
            "--simulations",
            simulations,
            "--json",
        ];
        args.extend_from_slice(more);
        succeeding(&args)
    };
    let output = ladder("4", &[]);
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
    // With a journal, the same command run again takes its 12 games and gives the same report.
    let journal = folder.path().join("ladder.journal");
    let journalled =
        |simulations: &str| ladder(simulations, &["--journal", journal.to_str().unwrap()]);
    let first = journalled("4");
    // The rules' line and the 12 games.
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        1 + 12
    );
    let again = journalled("4");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("resumed: 12 games taken from the journal"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(again.stdout, first.stdout);
    // Another search is another candidate: its 8 games are played, the rungs' 4 taken.
    let other = journalled("3");
    assert!(String::from_utf8_lossy(&other.stderr).contains("resumed: 4 games"));
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        1 + 20
    );
    // A file that is not a checkpoint is refused with its name.
    assert!(failing(&["ladder", "--checkpoint", config.to_str().unwrap()]).contains("tiny.toml"));
}

#[test]
fn a_checkpoint_is_measured_against_perfect_play() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    assert_success(&tiny_run_command("init", &run));
    let checkpoint = run.join("checkpoints").join("step-000000000.ckpt");
    let checkpoint = checkpoint.to_str().unwrap();

    // The ladder with perfect play on top.
    let output = succeeding(&[
        "ladder",
        "--checkpoint",
        checkpoint,
        "--depth",
        "1",
        "--perfect",
        "--openings",
        "2",
        "--opening-plies",
        "14",
        "--simulations",
        "4",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rungs = report["rungs"].as_array().unwrap();
    assert_eq!(rungs[1]["rung"], "perfect");
    assert!(rungs[1]["elo"].as_f64().unwrap() > 0.0, "{report}");

    // evaluate against perfect play from openings of known value.
    let evaluated = succeeding(&[
        "evaluate",
        "--run-dir",
        run.to_str().unwrap(),
        "--opponent",
        "perfect",
        "--openings",
        "2",
        "--opening-plies",
        "14-16",
        "--exact-within",
        "10",
        "--solve",
        "0",
        "--simulations",
        "4",
    ]);
    let line = String::from_utf8_lossy(&evaluated.stdout);
    assert!(
        line.contains("against the exact values of 4 games"),
        "{line}"
    );
    assert!(run.join("exact-values.json").exists());

    // accuracy on drawn positions, scored into the run's cache.
    let output = succeeding(&[
        "accuracy",
        "--checkpoint",
        checkpoint,
        "--sample",
        "6",
        "--empties",
        "8-12",
        "--simulations",
        "4",
        "--json",
    ]);
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
    let output = succeeding(&[
        "accuracy",
        "--checkpoint",
        checkpoint,
        "--positions",
        positions.to_str().unwrap(),
        "--json",
    ]);
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

#[test]
fn report_plots_a_run_as_png_and_svg_beside_a_page() {
    let folder = tempfile::tempdir().unwrap();
    let run = folder.path().join("run");
    let output = tiny_run_command("loop", &run);
    assert_success(&output);
    // A damaged shard training moved aside is listed with the reason it recorded.
    std::fs::create_dir_all(run.join("quarantine")).unwrap();
    std::fs::write(
        run.join("quarantine/step-000000000-game-000009.shard"),
        b"cut",
    )
    .unwrap();
    let mut metrics = std::fs::OpenOptions::new()
        .append(true)
        .open(run.join("metrics.jsonl"))
        .unwrap();
    std::io::Write::write_all(
        &mut metrics,
        br#"{"stage":"quarantine","shard":"step-000000000-game-000009.shard","reason":"damaged: its CRC-32 does not match","elapsed_seconds":1.0}
"#,
    )
    .unwrap();
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
        assert_success(&output);
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
        assert!(
            page.contains("quarantined step-000000000-game-000009.shard")
                && page.contains("damaged: its CRC-32 does not match"),
            "{page}"
        );
        // The SVG carries its text, in the embedded font's family.
        let svg = std::fs::read_to_string(out.join("losses.svg")).unwrap();
        assert!(svg.contains("training step"), "axis label in the SVG");
    }
    // A directory without a run is refused.
    assert!(
        failing(&["report", folder.path().join("none").to_str().unwrap()]).contains("no metrics")
    );
}
