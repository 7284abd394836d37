//! The variant study end to end on tiny runs: results, table, curves, plots, perfect play as
//! a rung; a second call keeps what was measured; a changed budget measures again; bad
//! configs are named.

use std::path::Path;

use burn::tensor::Device;
use flipzero_run::Silent;
use flipzero_study::{StudyConfig, run_study};

const TINY: &str = include_str!("tiny-study.toml");

fn config(dir: &Path, text: &str) -> Result<StudyConfig, String> {
    let path = dir.join("study.toml");
    std::fs::write(&path, text).unwrap();
    StudyConfig::load(&path).map_err(|e| e.to_string())
}

#[test]
fn a_tiny_study_measures_every_preset_and_writes_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let study = config(dir.path(), TINY).unwrap();
    let out = dir.path().join("study");
    let mut lines = Vec::new();
    let results = run_study(&study, &out, &Device::flex(), &Silent, &mut |line| {
        lines.push(line.to_owned());
    })
    .unwrap();
    assert_eq!(results.len(), 2);
    for result in &results {
        assert_eq!(result.board, (4, 4));
        let play = &result.strong_play;
        assert_eq!(play.games, 6);
        let total = play.first_wins + play.draws + play.first_losses;
        assert!((total - 1.0).abs() < 1e-9, "{play:?}");
        assert!(
            play.mean_length > 4.0 && play.mean_length <= 13.0,
            "{play:?}"
        );
        assert!(play.mean_branching >= 1.0, "{play:?}");
        assert_eq!(result.training.games, 4);
        assert_eq!(result.training.steps, 2);
        assert!(result.training.hours > 0.0);
        let ladder = &result.ladder;
        assert_eq!(ladder.rungs.len(), 2);
        assert_eq!(ladder.rungs[0].1, 0.0, "depth 1 anchors the scale");
        assert!((1..=2).contains(&ladder.levels));
        assert_eq!(ladder.openings, 1);
        // The untrained and the last checkpoint are the curve's ends.
        assert!(ladder.initial.0.is_finite() && ladder.trained.0.is_finite());
        assert_eq!(result.curve.len(), 2);
        assert_eq!(result.curve[0].step, 0);
        assert_eq!(result.curve[1].step, 2);
        assert_eq!(result.curve[0].elo, ladder.initial);
        assert_eq!(result.curve[1].elo, ladder.trained);
        assert!(result.curve.iter().all(|point| point.perfect.is_none()));
    }
    for file in [
        "study.md",
        "first-player.png",
        "first-player.svg",
        "ladder-span.png",
        "trained-elo.svg",
        "strength-curve.png",
        "branching.png",
        "game-length.svg",
        "results/othello.json",
        "results/anti.json",
        "runs/anti/metrics.jsonl",
        "configs/anti.toml",
    ] {
        let size = std::fs::metadata(out.join(file)).unwrap().len();
        assert!(size > 0, "{file} is empty");
    }
    // The ladders' journals are gone once their results are written.
    assert!(out.join("ladder").is_dir());
    assert_eq!(std::fs::read_dir(out.join("ladder")).unwrap().count(), 0);
    let page = std::fs::read_to_string(out.join("study.md")).unwrap();
    assert!(page.contains("| othello | 4x4 |"), "{page}");
    assert!(page.contains("| anti | 4x4 |"), "{page}");

    // Again: nothing is trained or measured twice.
    lines.clear();
    let again = run_study(&study, &out, &Device::flex(), &Silent, &mut |line| {
        lines.push(line.to_owned());
    })
    .unwrap();
    assert_eq!(again, results);
    assert!(
        lines.iter().all(|l| l.contains("measured before")),
        "{lines:?}"
    );

    // A bigger budget goes on from the runs as they are and measures again.
    let bigger = config(
        dir.path(),
        &TINY.replace("iterations = 1", "iterations = 2"),
    )
    .unwrap();
    let presets = bigger.presets.clone();
    let bigger = StudyConfig {
        presets: presets[..1].to_vec(),
        ..bigger
    };
    let grown = run_study(&bigger, &out, &Device::flex(), &Silent, &mut |_| {}).unwrap();
    assert_eq!(grown[0].training.games, 8);
    assert_eq!(grown[0].training.steps, 4);
}

#[test]
fn bad_study_configs_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = config(dir.path(), &TINY.replace("\"anti\"", "\"antti\"")).unwrap_err();
    assert!(unknown.contains("antti"), "{unknown}");
    let no_budget = config(dir.path(), &TINY.replace("iterations = 1", "")).unwrap_err();
    assert!(no_budget.contains("budget"), "{no_budget}");
    let bad_run = config(dir.path(), &TINY.replace("channels = 4", "channels = 0")).unwrap_err();
    assert!(bad_run.contains("network.channels"), "{bad_run}");
    let typo = config(dir.path(), &TINY.replace("strong_games", "strong_gamez")).unwrap_err();
    assert!(typo.contains("strong_gamez"), "{typo}");
    let perfect_alone = config(
        dir.path(),
        &TINY.replace(
            "simulations = 4\n\n[run.network]",
            "simulations = 4\nperfect = true\n\n[run.network]",
        ),
    )
    .unwrap_err();
    assert!(perfect_alone.contains("exact_within"), "{perfect_alone}");
    std::fs::write(dir.path().join("bad.jsonl"), "{\"variant\": \"othello\"}\n").unwrap();
    let bad_values = config(
        dir.path(),
        &TINY.replace(
            "seed = 2\n",
            &format!(
                "seed = 2\nstart_values = {:?}\n",
                dir.path().join("bad.jsonl").display().to_string()
            ),
        ),
    )
    .unwrap_err();
    assert!(bad_values.contains("line 1"), "{bad_values}");
}

#[test]
fn every_committed_study_config_loads() {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/study");
    let mut seen = 0;
    for entry in std::fs::read_dir(configs).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            StudyConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            seen += 1;
        }
    }
    assert!(seen >= 1);
}

/// Exact values of the 4x4 starts, as `flipzero value --json` writes them (the solver's
/// results of experiments/2026-12-04-start-values/values-4x4.txt).
const VALUES_4X4: &str = r#"{"board":"4x4","draw":0.0,"first_player":"black","loss":1.0,"margin":-10.0,"nodes":493,"openings":1,"search":"alpha-beta with solver","seconds":0.24,"variant":"othello","win":0.0}
{"board":"6x6","draw":0.0,"first_player":"black","loss":1.0,"margin":-4.0,"nodes":661976283,"openings":1,"search":"alpha-beta with solver","seconds":46.5,"variant":"othello","win":0.0}
"#;

#[test]
fn perfect_play_tops_the_ladder_and_the_curve_follows_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("values.jsonl"), VALUES_4X4).unwrap();
    let text = TINY
        .replace("\"othello\", \"anti\"", "\"othello\"")
        .replace("iterations = 1", "iterations = 3")
        .replace(
            "seed = 2\n",
            &format!(
                "seed = 2\nstart_values = {:?}\n",
                dir.path().join("values.jsonl").display().to_string()
            ),
        )
        .replace(
            "simulations = 4\n\n[run.network]",
            "simulations = 4\nperfect = true\nexact_within = 16\nrandom_rung = true\ncurve_points = 3\n\n[run.network]",
        );
    let study = config(dir.path(), &text).unwrap();
    let out = dir.path().join("study");
    let results = run_study(&study, &out, &Device::flex(), &Silent, &mut |_| {}).unwrap();
    let result = &results[0];
    // The 4x4 record, not the 6x6 one.
    assert_eq!(result.start_value.as_ref().unwrap().margin, -10.0);
    let names: Vec<&str> = result.ladder.rungs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["random", "depth 1", "depth 2", "perfect"]);
    assert_eq!(result.ladder.rungs[1].1, 0.0, "depth 1 anchors the scale");
    // The untrained network, then the first checkpoint past each third of the run time
    // (two thirds can fall on one checkpoint), the last one last.
    let steps: Vec<u64> = result.curve.iter().map(|p| p.step).collect();
    assert_eq!((steps[0], steps[steps.len() - 1]), (0, 6), "{steps:?}");
    assert!((3..=4).contains(&steps.len()), "{steps:?}");
    assert!(result.curve.windows(2).all(|w| w[0].minutes < w[1].minutes));
    let total = result.curve.last().unwrap().minutes;
    assert!(result.curve[1].minutes >= total / 3.0 - 1e-9);
    for point in &result.curve {
        let score = point.perfect.as_ref().expect("scored against perfect play");
        // Each opening played with both colours, each game's value known.
        assert_eq!(score.games, 2 * result.ladder.openings);
        assert!(score.kept_outcome[2] <= score.not_lost[2]);
        assert!(
            score.discs_lost >= 0,
            "no one beats the exact value: {score:?}"
        );
    }
    let page = std::fs::read_to_string(out.join("study.md")).unwrap();
    assert!(page.contains("| othello | 4x4 | loss -10 |"), "{page}");
    assert!(page.contains("perfect-curve.png"), "{page}");
    assert!(
        std::fs::metadata(out.join("exact/othello.json"))
            .unwrap()
            .len()
            > 0
    );
}
