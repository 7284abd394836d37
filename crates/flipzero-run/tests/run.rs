//! Runs end to end on a tiny network: the loop's files and records, resumption of a stage
//! that was cut short, and bad configs and directories refused with their reason.

use std::path::Path;

use burn::tensor::Device;
use flipzero_run::{EvaluateOptions, Record, Run, RunConfig, RunDir, RunError, Silent};

/// A run small enough for debug-build tests; also driven through the binary by the CLI's
/// tests.
const TINY: &str = include_str!("tiny.toml");

fn write_config(folder: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A fresh tiny run in a temporary folder: the folder (kept alive), its config file, the
/// run directory and the run.
fn tiny_run() -> (tempfile::TempDir, std::path::PathBuf, RunDir, Run) {
    let folder = tempfile::tempdir().unwrap();
    let config = write_config(folder.path(), "tiny.toml", TINY);
    let dir = RunDir::new(folder.path().join("run"));
    let run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    (folder, config, dir, run)
}

fn stages(records: &[Record]) -> Vec<&'static str> {
    records
        .iter()
        .map(|record| match record {
            Record::Selfplay { .. } => "selfplay",
            Record::Train { .. } => "train",
            Record::Evaluate { .. } => "evaluate",
            Record::Quarantine { .. } => "quarantine",
        })
        .collect()
}

#[test]
fn the_loop_plays_trains_and_evaluates_then_stops_at_its_budget() {
    let (_folder, config, dir, run) = tiny_run();
    let mut iterations = Vec::new();
    run.run_loop(&Silent, |iteration, records| {
        iterations.push((iteration, records.len()));
    })
    .unwrap();
    assert_eq!(
        iterations,
        [(1, 2), (2, 4)],
        "evaluation after the 2nd iteration only"
    );
    assert_eq!(dir.checkpoint_steps().unwrap(), [0, 3, 6]);
    assert_eq!(dir.games_of_step(0).unwrap(), (0..6).collect::<Vec<_>>());
    assert_eq!(dir.games_of_step(3).unwrap(), (0..6).collect::<Vec<_>>());
    assert!(dir.games_of_step(6).unwrap().is_empty());
    let records = dir.records().unwrap();
    assert_eq!(
        stages(&records),
        [
            "selfplay", "train", "selfplay", "train", "evaluate", "evaluate"
        ]
    );
    let mut clock = 0.0;
    for record in &records {
        assert!(
            record.elapsed_seconds() >= clock,
            "the run clock only grows"
        );
        clock = record.elapsed_seconds();
    }
    match &records[0] {
        Record::Selfplay {
            step,
            games,
            positions,
            mean_length,
            ..
        } => {
            assert_eq!((*step, *games), (0, 6));
            // 6x6 Othello games last 20 to 32 placements plus passes.
            assert!((20.0..40.0).contains(mean_length), "{mean_length}");
            assert_eq!(*positions as f64, mean_length * 6.0);
        }
        other => panic!("{other:?}"),
    }
    match &records[4] {
        Record::Evaluate {
            step,
            opponent,
            games,
            wins,
            draws,
            losses,
            ..
        } => {
            assert_eq!((*step, opponent.as_str(), *games), (6, "random", 4));
            assert_eq!(wins + draws + losses, 4);
        }
        other => panic!("{other:?}"),
    }
    // A finished run does nothing more when started again.
    let again = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    again
        .run_loop(&Silent, |_, _| panic!("no iteration left"))
        .unwrap();
    assert_eq!(dir.records().unwrap().len(), records.len());
}

#[test]
fn a_stage_cut_short_plays_only_the_missing_games() {
    let (_folder, _config, dir, run) = tiny_run();
    run.self_play(6, &Silent).unwrap().unwrap();
    // As if the process had been killed before games 1 and 4 ended.
    for game in [1, 4] {
        std::fs::remove_file(dir.shard_path(0, game)).unwrap();
    }
    let resumed = Run::open(dir.clone(), Device::flex()).unwrap();
    match resumed.self_play(6, &Silent).unwrap().unwrap() {
        Record::Selfplay { games, .. } => assert_eq!(games, 2),
        other => panic!("{other:?}"),
    }
    assert_eq!(dir.games_of_step(0).unwrap(), (0..6).collect::<Vec<_>>());
    assert!(
        resumed.self_play(6, &Silent).unwrap().is_none(),
        "nothing left"
    );
    // A half-written temporary file left by a kill is not a shard.
    std::fs::write(
        dir.shards().join(".step-000000000-game-000009.shard.tmp"),
        b"FLIPZ",
    )
    .unwrap();
    match resumed.train(2, &Silent).unwrap() {
        Record::Train { step, window, .. } => {
            assert_eq!(step, 2);
            assert!(window > 6 * 20, "{window}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(dir.checkpoint_steps().unwrap(), [0, 2]);
}

#[test]
fn a_corrupt_shard_is_quarantined_with_its_reason_and_training_goes_on() {
    let (_folder, _config, dir, run) = tiny_run();
    run.self_play(3, &Silent).unwrap();
    // One shard cut in half, another with one byte of its samples changed (a disk or a copy
    // gone wrong): both are caught, by the checksum that ends every shard.
    let cut = dir.shard_path(0, 1);
    let cut_bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &cut_bytes[..cut_bytes.len() / 2]).unwrap();
    let flipped = dir.shard_path(0, 2);
    let mut flipped_bytes = std::fs::read(&flipped).unwrap();
    let middle = flipped_bytes.len() * 3 / 4;
    flipped_bytes[middle] ^= 0x10;
    std::fs::write(&flipped, &flipped_bytes).unwrap();
    match run.train(1, &Silent).unwrap() {
        Record::Train { step, .. } => assert_eq!(step, 1),
        other => panic!("{other:?}"),
    }
    assert!(
        !cut.exists() && !flipped.exists(),
        "moved out of the shards"
    );
    let quarantine = dir.quarantine();
    assert_eq!(
        std::fs::read(quarantine.join("step-000000000-game-000001.shard")).unwrap(),
        &cut_bytes[..cut_bytes.len() / 2]
    );
    assert_eq!(
        std::fs::read(quarantine.join("step-000000000-game-000002.shard")).unwrap(),
        flipped_bytes
    );
    let mut quarantined: Vec<(String, String)> = dir
        .records()
        .unwrap()
        .into_iter()
        .filter_map(|record| match record {
            Record::Quarantine { shard, reason, .. } => Some((shard, reason)),
            _ => None,
        })
        .collect();
    quarantined.sort();
    let names: Vec<&str> = quarantined.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "step-000000000-game-000001.shard",
            "step-000000000-game-000002.shard"
        ]
    );
    for (name, reason) in &quarantined {
        assert!(reason.contains("damaged: its CRC-32"), "{name}: {reason}");
    }
    // The next stage reads the window without it and records nothing more.
    run.train(1, &Silent).unwrap();
    let records = dir.records().unwrap();
    assert_eq!(
        records
            .iter()
            .filter(|record| matches!(record, Record::Quarantine { .. }))
            .count(),
        2
    );
}

#[test]
fn the_loop_plays_more_games_when_a_batch_needs_more_samples() {
    let folder = tempfile::tempdir().unwrap();
    // Two games of 6x6 Othello give at most about 70 samples: not a batch of 100.
    let text = TINY
        .replace("games_per_iteration = 6", "games_per_iteration = 2")
        .replace("batch_size = 16", "batch_size = 100")
        .replace("iterations = 2", "iterations = 1");
    let config = write_config(folder.path(), "short.toml", &text);
    let dir = RunDir::new(folder.path().join("run"));
    let run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    run.run_loop(&Silent, |_, _| {}).unwrap();
    let played = dir.games_of_step(0).unwrap().len();
    assert!(played >= 4 && played.is_multiple_of(2), "{played} games");
    assert_eq!(dir.checkpoint_steps().unwrap(), [0, 3]);
}

#[test]
fn a_budget_on_the_command_line_replaces_the_configs() {
    let folder = tempfile::tempdir().unwrap();
    // The config's budget would stop the run before its first iteration.
    let text = TINY
        .replace("every_iterations = 2", "every_iterations = 0")
        .replace(
            "[loop]\niterations = 2",
            "[loop]\niterations = 2\nminutes = 0.00001",
        );
    let config = write_config(folder.path(), "short.toml", &text);
    let dir = RunDir::new(folder.path().join("run"));
    let mut run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    run.set_stop(Some(3), None);
    run.run_loop(&Silent, |_, _| {}).unwrap();
    assert_eq!(dir.checkpoint_steps().unwrap(), [0, 3, 6, 9]);
    // Nothing given: the config's budget stands, and its minutes stop the run at once.
    let dir = RunDir::new(folder.path().join("run-2"));
    let mut run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    run.set_stop(None, None);
    run.run_loop(&Silent, |_, _| {}).unwrap();
    assert_eq!(dir.checkpoint_steps().unwrap(), [0]);
}

#[test]
fn a_rate_scheduled_over_the_budget_reaches_its_floor_in_the_last_step() {
    let folder = tempfile::tempdir().unwrap();
    let text = TINY
        .replace("decay_steps = 0", "schedule = \"budget\"")
        .replace("every_iterations = 2", "every_iterations = 0")
        .replace("iterations = 2", "iterations = 3");
    let config = write_config(folder.path(), "budget.toml", &text);
    let dir = RunDir::new(folder.path().join("run"));
    let run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
    run.run_loop(&Silent, |_, _| {}).unwrap();
    let rates: Vec<f64> = dir
        .records()
        .unwrap()
        .into_iter()
        .filter_map(|record| match record {
            Record::Train { learning_rate, .. } => Some(learning_rate),
            _ => None,
        })
        .collect();
    // 3 steps an iteration, 9 in the budget: each stage's last step at 3/9, 6/9 and 9/9.
    let expected =
        |spent: f64| 0.002 * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI * spent).cos()));
    assert_eq!(rates.len(), 3);
    for (rate, spent) in rates.iter().zip([1.0 / 3.0, 2.0 / 3.0, 1.0]) {
        assert!((rate - expected(spent)).abs() < 1e-12, "{rates:?}");
    }
    assert!(
        rates[1] > 0.0002 * 1.5,
        "above the floor before the end: {rates:?}"
    );
    assert!(
        (rates[2] - 0.0002).abs() < 1e-12,
        "the floor at the end: {rates:?}"
    );

    // Without a budget there is nothing to schedule over: an error that says what to set.
    let unbudgeted = text.replace("[loop]\niterations = 3", "");
    let config = write_config(folder.path(), "unbudgeted.toml", &unbudgeted);
    let run = Run::start(
        RunDir::new(folder.path().join("other")),
        &config,
        Device::flex(),
    )
    .unwrap();
    run.self_play(6, &Silent).unwrap();
    let error = run.train(1, &Silent).unwrap_err().to_string();
    assert!(error.contains("[loop] minutes or iterations"), "{error}");
}

#[test]
fn a_second_trainer_is_refused_while_one_trains() {
    let (_folder, _config, dir, run) = tiny_run();
    run.self_play(6, &Silent).unwrap();
    let held = dir.lock_training().unwrap();
    let error = run.train(1, &Silent).unwrap_err().to_string();
    assert!(error.contains("another trainer"), "{error}");
    drop(held);
    run.train(1, &Silent).unwrap();
}

#[test]
fn too_few_samples_is_an_error_not_a_panic() {
    let (_folder, _config, _dir, run) = tiny_run();
    assert!(matches!(
        run.train(1, &Silent),
        Err(RunError::NotEnoughSamples { have: 0, need: 16 })
    ));
}

#[test]
fn a_directory_of_another_run_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let first = write_config(folder.path(), "first.toml", TINY);
    let dir = RunDir::new(folder.path().join("run"));
    Run::start(dir.clone(), &first, Device::flex()).unwrap();
    let other_rules = write_config(
        folder.path(),
        "anti.toml",
        &TINY.replace(r#"variant = "othello""#, r#"variant = "anti""#),
    );
    let error = Run::start(dir.clone(), &other_rules, Device::flex())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("other rules"), "{error}");
    let wider = write_config(
        folder.path(),
        "wider.toml",
        &TINY.replace("channels = 8", "channels = 16"),
    );
    let error = Run::start(dir.clone(), &wider, Device::flex())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("network"), "{error}");
    // A changed budget is fine: the run continues under it.
    let longer = write_config(
        folder.path(),
        "longer.toml",
        &TINY.replace("iterations = 2", "iterations = 5"),
    );
    Run::start(dir, &longer, Device::flex()).unwrap();
}

#[test]
fn evaluation_options_replace_the_configs_opponents() {
    let (_folder, _config, _dir, run) = tiny_run();
    let options = EvaluateOptions {
        openings: Some(3),
        opponents: Some(vec!["engine:depth=2".parse().unwrap()]),
        ..EvaluateOptions::default()
    };
    let records = run.evaluate(&options, &Silent).unwrap();
    assert_eq!(records.len(), 1);
    match &records[0] {
        Record::Evaluate {
            step,
            opponent,
            games,
            ..
        } => assert_eq!((*step, opponent.as_str(), *games), (0, "engine:depth=2", 6)),
        other => panic!("{other:?}"),
    }
    // A misspelt opponent is refused where it is read, before anything is evaluated.
    let error = "engine:depht=2"
        .parse::<flipzero_arena::NamedAgentSpec>()
        .unwrap_err()
        .to_string();
    assert!(error.contains("depht"), "{error}");
}

#[test]
fn an_opening_seed_draws_the_openings_of_a_run_of_that_seed() {
    let (folder, _config, _dir, run) = tiny_run();
    assert!(TINY.contains("\nseed = 3\n"), "the tiny config's seed");
    let openings_of = |run: &flipzero_run::Run, opening_seed: Option<u64>, name: &str| {
        let games = folder.path().join(name);
        let options = EvaluateOptions {
            openings: Some(4),
            opening_plies: Some(4..=6),
            opening_seed,
            opponents: Some(vec!["random".parse().unwrap()]),
            games: Some(games.clone()),
            ..EvaluateOptions::default()
        };
        run.evaluate(&options, &Silent).unwrap();
        let mut openings: Vec<String> = std::fs::read_to_string(games)
            .unwrap()
            .lines()
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line).unwrap()["opening"].to_string()
            })
            .collect();
        openings.dedup();
        openings
    };
    // A run of seed 1 (the tiny config's is 3) draws its own openings, and with the opening
    // seed 3 this run's.
    let other_folder = tempfile::tempdir().unwrap();
    let other_config = write_config(
        other_folder.path(),
        "seed-1.toml",
        &TINY.replace("\nseed = 3\n", "\nseed = 1\n"),
    );
    let other = Run::start(
        RunDir::new(other_folder.path().join("run")),
        &other_config,
        Device::flex(),
    )
    .unwrap();
    let own = openings_of(&run, None, "own.jsonl");
    assert_eq!(own.len(), 4, "{own:?}");
    assert_ne!(openings_of(&other, None, "other.jsonl"), own);
    assert_eq!(openings_of(&other, Some(3), "other-3.jsonl"), own);
}

#[test]
fn evaluation_against_perfect_play_scores_the_exact_values_it_solved_once() {
    let (_folder, _config, dir, run) = tiny_run();
    let options = EvaluateOptions {
        openings: Some(3),
        opening_plies: Some(14..=16),
        exact_within: Some(10),
        solve_empties: Some(0),
        opponents: Some(vec!["perfect".parse().unwrap(), "random".parse().unwrap()]),
        ..EvaluateOptions::default()
    };
    let records = run.evaluate(&options, &Silent).unwrap();
    let cache = std::fs::read_to_string(dir.exact_values_path()).unwrap();
    let perfect = match &records[0] {
        Record::Evaluate {
            games,
            perfect: Some(perfect),
            wins,
            ..
        } => {
            assert_eq!((*games, perfect.games), (6, 6));
            // An untrained network keeps little against perfect play, and never wins a
            // game its opening loses.
            assert!(perfect.kept_margin < 6, "{perfect:?}");
            assert!(*wins <= perfect.not_lost[2]);
            perfect.clone()
        }
        other => panic!("{other:?}"),
    };
    assert!(perfect.discs_lost > 0);
    assert!(
        matches!(&records[1], Record::Evaluate { perfect: None, .. }),
        "only games against `perfect` are scored against the truth"
    );
    // Evaluated again, the openings' values come from the cache, which stays as it was.
    run.evaluate(&options, &Silent).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.exact_values_path()).unwrap(),
        cache
    );
    assert_eq!(cache.matches("\"black_margins\"").count(), 1);

    // Rules the solver cannot play say so.
    let rotation = TINY.replace(r#"variant = "othello""#, r#"variant = "rotation""#);
    let folder = tempfile::tempdir().unwrap();
    let config = write_config(folder.path(), "rotation.toml", &rotation);
    let run = Run::start(
        RunDir::new(folder.path().join("run")),
        &config,
        Device::flex(),
    )
    .unwrap();
    let error = run.evaluate(&options, &Silent).unwrap_err().to_string();
    assert!(error.contains("exact solver covers"), "{error}");
}

#[test]
fn bad_configs_are_refused_naming_the_key() {
    let cases = [
        (
            TINY.replace("blocks = 1", "blocks = 1\nlayers = 3"),
            "layers",
        ),
        (
            TINY.replace("simulations = 8\nc_puct", "simulations = 0\nc_puct"),
            "selfplay.simulations",
        ),
        (
            TINY.replace("learning_rate = 0.002", "learning_rate = -1.0"),
            "train.learning_rate",
        ),
        (
            TINY.replace(r#"variant = "othello""#, r#"variant = "otello""#),
            "otello",
        ),
        (TINY.replace(r#""random", "#, r#""randm", "#), "randm"),
        (TINY.replace("size = 6", "size = 5"), "variant"),
        (TINY.replace("[train]", "[training]"), "training"),
        (
            TINY.replace("decay_steps = 0", "schedule = \"weekly\""),
            "schedule",
        ),
        (
            TINY.replace(
                "solve_empties = 6\n\n[train]",
                "solve_empties = 6\nsearch = \"gumble\"\n\n[train]",
            ),
            "gumble",
        ),
        (
            TINY.replace(
                "solve_empties = 6\n\n[train]",
                "solve_empties = 6\nfull_search_fraction = 0.0\n\n[train]",
            ),
            "selfplay.full_search_fraction",
        ),
        (
            TINY.replace(
                "solve_empties = 6\n\n[train]",
                "solve_empties = 6\nopening_plies = \"9-3\"\n\n[train]",
            ),
            "opening_plies: `9-3`: the range's start is above its end",
        ),
        // Keys of the tables the lower crates' configs fill are checked as strictly.
        (
            TINY.replace(
                "simulations = 8\nc_puct",
                "simulatons = 8\nsimulations = 8\nc_puct",
            ),
            "unknown key `selfplay.simulatons`",
        ),
        (
            TINY.replace(
                "learning_rate = 0.002",
                "learning_rate = 0.002\nlearning_rte = 1.0",
            ),
            "unknown key `train.learning_rte`",
        ),
        (
            TINY.replace("learning_rate = 0.002", "learning_rate = 0.002\nseed = 4"),
            "unknown key `train.seed`",
        ),
        ("variant = 3".to_owned(), "variant"),
    ];
    for (text, named) in cases {
        let error = RunConfig::parse(&text, "bad.toml").unwrap_err().to_string();
        assert!(error.starts_with("bad.toml"), "{error}");
        assert!(error.contains(named), "{named}: {error}");
    }
    assert!(RunConfig::parse(TINY, "tiny.toml").is_ok());
}

#[test]
fn every_committed_run_config_is_valid_and_every_preset_has_a_small_run() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/runs");
    let mut small = Vec::new();
    for sub in [folder.clone(), folder.join("small")] {
        for entry in std::fs::read_dir(&sub).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
                if sub.ends_with("small") {
                    assert_eq!(
                        path.file_stem().unwrap().to_str().unwrap(),
                        config.settings.variant,
                        "small runs are named after their preset"
                    );
                    small.push(config.settings.variant);
                }
            }
        }
    }
    small.sort();
    let mut presets: Vec<String> = flipzero_core::Preset::ALL
        .iter()
        .map(|preset| preset.name().to_owned())
        .collect();
    presets.sort();
    assert_eq!(small, presets);
}

#[test]
fn every_preset_runs_an_iteration_of_the_loop() {
    let folder = tempfile::tempdir().unwrap();
    // Left out: sacrifices and neutral swaps fill no square, so an untrained network's games
    // there can run for thousands of decisions (its initial weights are not seeded), which
    // made this test take minutes at random. Their loop is not tested here (a known gap).
    let long_games = ["sacrifice", "neuversi", "adneuversi"];
    for preset in flipzero_core::Preset::ALL
        .into_iter()
        .filter(|preset| !long_games.contains(&preset.name()))
    {
        let text = TINY
            .replace(
                r#"variant = "othello""#,
                &format!(r#"variant = "{}""#, preset.name()),
            )
            .replace("games_per_iteration = 6", "games_per_iteration = 2")
            .replace("simulations = 8", "simulations = 4")
            // Reversi II games can end after one move (a disc of the opponent's colour
            // that turns every disc to one colour leaves nobody a flanking move).
            .replace("batch_size = 16", "batch_size = 2")
            .replace("every_iterations = 2", "every_iterations = 1")
            .replace("openings = 2", "openings = 1")
            .replace(r#"["random", "engine:depth=1"]"#, r#"["engine:depth=1"]"#)
            .replace("iterations = 2", "iterations = 1");
        let config = write_config(folder.path(), &format!("{}.toml", preset.name()), &text);
        let dir = RunDir::new(folder.path().join(preset.name()));
        let run = Run::start(dir.clone(), &config, Device::flex()).unwrap();
        run.run_loop(&Silent, |_, _| {})
            .unwrap_or_else(|e| panic!("{}: {e}", preset.name()));
        assert_eq!(
            stages(&dir.records().unwrap()),
            ["selfplay", "train", "evaluate"],
            "{}",
            preset.name()
        );
    }
}

#[test]
fn a_run_of_a_rules_file_opens_with_the_rules_it_keeps_whatever_became_of_the_file() {
    let folder = tempfile::tempdir().unwrap();
    let rules = flipzero_core::Preset::Komi.rules(Some(6)).unwrap();
    let rules_file = folder.path().join("my-rules.toml");
    std::fs::write(&rules_file, rules.to_toml()).unwrap();
    let text = TINY
        .lines()
        .map(|line| {
            if line.starts_with("variant") {
                format!("variant = \"{}\"", rules_file.display())
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let config = write_config(folder.path(), "mine.toml", &text);
    let dir = RunDir::new(folder.path().join("run"));
    Run::start(dir.clone(), &config, Device::flex()).unwrap();
    // The file is gone (or was edited): the run still opens, with the rules it started with.
    std::fs::remove_file(&rules_file).unwrap();
    let opened = Run::open(dir.clone(), Device::flex()).unwrap();
    assert_eq!(opened.config().rules, rules);
    // The directory's own copy of the rules is what it reads: damage to it is named.
    std::fs::write(dir.rules_path(), "protocol = 7").unwrap();
    let error = Run::open(dir.clone(), Device::flex())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("rules.toml"), "{error}");
}

#[test]
fn the_lower_crates_configs_are_read_from_their_tables() {
    let valid = RunConfig::parse(TINY, "tiny.toml").unwrap();
    let mcts = valid.selfplay_mcts();
    assert_eq!(
        (mcts.simulations, mcts.seed, mcts.gumbel_scale),
        (8, valid.settings.seed, 1.0)
    );
    let train = valid.train_config();
    assert_eq!(
        (train.learning_rate, train.seed),
        (0.002, valid.settings.seed)
    );
    let evaluate = valid.evaluate_mcts();
    assert_eq!((evaluate.noise_fraction, evaluate.gumbel_scale), (0.0, 0.0));
    assert_eq!(evaluate.c_puct, mcts.c_puct);
    let ranged = TINY.replace(
        "solve_empties = 6\n\n[train]",
        "solve_empties = 6\nopening_plies = \"2-5\"\n\n[train]",
    );
    let ranged = RunConfig::parse(&ranged, "ranged.toml").unwrap();
    assert_eq!(ranged.settings.selfplay.play.opening_plies, 2..=5);
}
