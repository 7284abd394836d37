//! Many processes on one run directory, as on a cluster: self-play workers and a following
//! trainer killed at random moments and restarted; afterwards every shard is whole, every
//! game is once in the directory, and the trainer's records agree. Also the Slurm job
//! scripts and `cluster status`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_success, failing, flipzero, succeeding, tiny_run_config};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The binary's path, for processes the tests start and kill.
fn program() -> PathBuf {
    assert_cmd::cargo::cargo_bin("flipzero")
}

/// A tiny 6x6 run: 4 iterations of 4 games and 3 steps, no evaluation, a window that holds
/// every game.
fn tiny_config(folder: &Path) -> PathBuf {
    let text = std::fs::read_to_string(tiny_run_config())
        .unwrap()
        .replace("games_per_iteration = 6", "games_per_iteration = 4")
        .replace("parallel_games = 3", "parallel_games = 2")
        .replace("workers = 2", "workers = 1")
        .replace("every_iterations = 2", "every_iterations = 0")
        .replace("iterations = 2", "iterations = 4")
        // A window that holds every game: none can be left out of all trainings.
        .replace("window_samples = 1000", "window_samples = 1000000");
    let path = folder.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn stage(args: &[&str], run: &Path) -> Child {
    Command::new(program())
        .args(args)
        .arg("--run-dir")
        .arg(run)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn status(run: &Path) -> serde_json::Value {
    let output = succeeding(&["cluster", "status", "--json", run.to_str().unwrap()]);
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn processes_killed_at_random_moments_lose_and_corrupt_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let config = tiny_config(folder.path());
    let run = folder.path().join("run");
    let init = flipzero()
        .args(["init", "--config"])
        .arg(&config)
        .arg("--run-dir")
        .arg(&run)
        .output()
        .unwrap();
    assert_success(&init);
    let commands: [&[&str]; 3] = [
        &["selfplay", "--follow", "--worker", "a", "--batch", "2"],
        &["selfplay", "--follow", "--worker", "b", "--batch", "2"],
        &["train", "--follow"],
    ];
    let mut children: Vec<Child> = commands.iter().map(|args| stage(args, &run)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let started = Instant::now();
    let mut kills = 0;
    while !run.join("finished").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the run did not finish"
        );
        std::thread::sleep(Duration::from_millis(rng.random_range(200..1200)));
        if kills < 8 {
            let victim = rng.random_range(0..children.len());
            // SIGKILL: no chance to clean up.
            let _ = children[victim].kill();
            children[victim].wait().unwrap();
            children[victim] = stage(commands[victim], &run);
            kills += 1;
        }
    }
    for mut child in children {
        // The trainer ends the run; the workers stop after their current batch.
        assert!(child.wait().unwrap().success());
    }
    assert!(kills >= 3, "only {kills} kills before the run finished");

    // Every shard is whole.
    let shards = run.join("shards");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&shards).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".shard") {
            let (_, samples) = flipzero_data::read_shard(&shards.join(&name))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!samples.is_empty(), "{name}");
            names.push(name);
        }
    }
    // The checkpoints are the budget's, one per iteration.
    let summary = status(&run);
    assert_eq!(summary["finished"], true);
    assert_eq!(summary["checkpoints"], serde_json::json!([0, 3, 6, 9, 12]));
    // Every game once: a worker's game numbers for a checkpoint never repeat, and the
    // trainer's lists name only shards that exist; nothing written before the last
    // training was left out of every window.
    assert_eq!(summary["games"], names.len());
    assert_eq!(summary["missing"], 0, "{summary}");
    assert_eq!(summary["skipped"], 0, "{summary}");
    let consumed = summary["consumed"].as_u64().unwrap();
    assert!(consumed >= 4 * 3, "{summary}");
    for worker in ["a", "b"] {
        assert!(summary["games_by_worker"][worker].as_u64().unwrap() > 0);
    }
}

#[test]
fn cluster_submit_writes_slurm_scripts_and_status_reads_the_run() {
    let folder = tempfile::tempdir().unwrap();
    let config = tiny_config(folder.path());
    let run = folder.path().join("run");
    succeeding(&[
        "cluster",
        "submit",
        "--scheduler",
        "slurm",
        "--dry-run",
        "--workers",
        "3",
        "--throttle",
        "2",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
    ]);
    let selfplay = std::fs::read_to_string(run.join("slurm/selfplay.sbatch")).unwrap();
    assert!(selfplay.contains("#SBATCH --array=0-2%2"), "{selfplay}");
    assert!(selfplay.contains("selfplay --run-dir"), "{selfplay}");
    let train = std::fs::read_to_string(run.join("slurm/train.sbatch")).unwrap();
    assert!(train.contains("#SBATCH --gres=gpu:1"), "{train}");
    assert!(run.join("slurm/submit.sh").exists());
    // The first checkpoint exists before any job starts.
    assert!(run.join("checkpoints/step-000000000.ckpt").exists());
    let summary = status(&run);
    assert_eq!(summary["finished"], false);
    assert_eq!(summary["checkpoints"], serde_json::json!([0]));
    assert_eq!(summary["games"], 0);
    assert_eq!(summary["job_logs"], serde_json::json!([]));
    // What the jobs write into slurm/logs, status reads back: each log's last line.
    std::fs::write(
        run.join("slurm/logs/train-77.log"),
        "run started\niteration 3 | step 180\n\n",
    )
    .unwrap();
    let summary = status(&run);
    assert_eq!(
        summary["job_logs"],
        serde_json::json!([["train-77.log", "iteration 3 | step 180"]])
    );
    let output = succeeding(&["cluster", "status", run.to_str().unwrap()]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("job log train-77.log: iteration 3 | step 180"),
        "{printed}"
    );

    let error = failing(&["cluster", "status", folder.path().to_str().unwrap()]);
    assert!(error.contains("not a run directory"), "{error}");
}
