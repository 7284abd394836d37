//! Training on self-play samples lowers the loss; bad samples are refused by index.

use burn::tensor::Device;
use flipzero_core::{Preset, Rules};
use flipzero_data::Sample;
use flipzero_mcts::{MctsConfig, UniformEvaluator};
use flipzero_nn::NetConfig;
use flipzero_selfplay::{SelfPlayConfig, play};
use flipzero_train::{TrainConfig, Trainer};

/// Samples of `games` uniform-MCTS self-play games of 6x6 Othello.
fn self_play_samples(rules: &Rules, games: usize, simulations: u32, seed: u64) -> Vec<Sample> {
    let config = SelfPlayConfig {
        games,
        parallel_games: games,
        mcts: MctsConfig {
            simulations,
            ..MctsConfig::default()
        },
        temperature_decisions: 10,
        solve_targets_empties: 0,
        solved_value_targets: false,
        full_search_fraction: 1.0,
        fast_simulations: 1,
        opening_plies: 0..=0,
        seed,
    };
    play::<u64>(rules, &config, &mut UniformEvaluator)
        .into_iter()
        .flat_map(|record| record.samples)
        .collect()
}

/// A one-block network for 6x6 boards.
fn tiny_net(rules: &Rules, channels: usize) -> NetConfig {
    NetConfig {
        input_planes: flipzero_data::encoder::PLANES.len(),
        rows: 6,
        cols: 6,
        decisions: rules.decision_count(),
        tower: flipzero_nn::Tower::new(1, channels, channels),
        torus: false,
    }
}

#[test]
fn steps_on_self_play_samples_lower_the_loss() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let samples = self_play_samples(&rules, 8, 16, 3);
    assert!(samples.len() > 200);
    let net = tiny_net(&rules, 16);
    let train = TrainConfig {
        learning_rate: 3e-3,
        ..TrainConfig::default()
    };
    // Seeded so that the network drawn is the same on every machine, and enough steps that
    // the policy loss falls well clear of the noise of a 16-simulation target (about 3.6 to
    // 2.7 here; 25 steps once left it above where it started on one draw).
    let device = Device::flex();
    device.seed(11);
    let mut trainer = Trainer::new(&rules, &net, train, &device);
    let before = trainer.evaluate(&samples).unwrap();
    let rounds = 100;
    for round in 0..rounds {
        let start = (round * 48) % (samples.len() - 48);
        trainer.train_step(&samples[start..start + 48]).unwrap();
    }
    let after = trainer.evaluate(&samples).unwrap();
    assert_eq!(trainer.step(), rounds as u64);
    assert!(after.total < before.total, "{before:?} -> {after:?}");
    assert!(
        after.policy < before.policy - 0.3,
        "{before:?} -> {after:?}"
    );

    let mut bad = samples[..3].to_vec();
    bad[1].position = "not a position".to_owned();
    let error = trainer.train_step(&bad).unwrap_err().to_string();
    assert!(error.starts_with("sample 1:"), "{error}");
    let mut bad = samples[..3].to_vec();
    bad[2].outcome = 4;
    assert!(
        trainer
            .train_step(&bad)
            .unwrap_err()
            .to_string()
            .contains("outcome 4")
    );
}

#[test]
fn targets_land_on_the_right_outputs() {
    use burn::module::Module;
    use burn::tensor::{Tensor, TensorData};
    use flipzero_core::Game;
    use flipzero_data::Encoder;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let game = Game::<u64>::start(&rules);
    // All policy on the third legal decision; the game was won.
    let decision = game.legal_decisions(&rules)[2];
    let index = rules.decision_index(decision);
    let sample = Sample {
        position: game.to_text(&rules),
        policy: vec![(index as u16, 1.0)],
        outcome: 1,
        score: 6.0,
        solved: false,
    };
    let net = tiny_net(&rules, 8);
    let train = TrainConfig {
        learning_rate: 1e-2,
        augment: false,
        ..TrainConfig::default()
    };
    let device = Device::flex();
    let mut trainer = Trainer::new(&rules, &net, train, &device);
    for _ in 0..80 {
        trainer.train_step(&vec![sample.clone(); 4]).unwrap();
    }
    let encoder = Encoder::new(&rules);
    let (planes, rows, cols) = encoder.shape();
    let values = encoder.encode(&game).into_raw_vec_and_offset().0;
    let input = Tensor::<4>::from_data(TensorData::new(values, [1, planes, rows, cols]), &device);
    let output = trainer.net().valid().forward(input);
    let argmax = |tensor: Tensor<2>| {
        let row = tensor.into_data().try_into_vec::<f32>().unwrap();
        (0..row.len())
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap()
    };
    assert_eq!(argmax(output.policy_logits), index, "policy target index");
    assert_eq!(argmax(output.wdl_logits), 0, "a win is class 0");
    let score = output.score.into_data().try_into_vec::<f32>().unwrap()[0];
    // The target is +6 discs of 36 (0.167): the head must at least have moved well towards
    // it (the inference view's batch-norm statistics lag behind training, so not exactly).
    assert!(score > 0.05 && score < 0.5, "score {score}");
}

#[test]
fn a_saved_trainer_resumes_with_its_step_and_optimizer_state() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let samples: Vec<Sample> = self_play_samples(&rules, 2, 8, 1)
        .into_iter()
        .take(32)
        .collect();
    let net = tiny_net(&rules, 8);
    let train = TrainConfig {
        augment: false,
        learning_rate: 1e-2,
        ..TrainConfig::default()
    };
    let device = Device::flex();
    let mut trainer = Trainer::new(&rules, &net, train.clone(), &device);
    for _ in 0..5 {
        trainer.train_step(&samples).unwrap();
    }
    let directory = std::env::temp_dir().join(format!("flipzero-resume-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("trainer.ckpt");
    trainer.save(&path).unwrap();
    let mut resumed = Trainer::load(&path, train.clone(), &device).unwrap();
    assert_eq!(resumed.step(), 5);
    trainer.train_step(&samples).unwrap();
    resumed.train_step(&samples).unwrap();
    let (a, b) = (
        trainer.evaluate(&samples).unwrap(),
        resumed.evaluate(&samples).unwrap(),
    );
    assert!((a.total - b.total).abs() < 1e-4, "{a:?} vs {b:?}");
    // A fresh optimizer (Adam's moments lost) takes a visibly different step.
    let loaded = flipzero_nn::checkpoint::load(&path, &device).unwrap();
    let mut fresh = Trainer::resume(&rules, &net, loaded.net, 5, train, &device);
    fresh.train_step(&samples).unwrap();
    let c = fresh.evaluate(&samples).unwrap();
    assert!(
        (a.total - c.total).abs() > 1e-4,
        "the optimizer state made no difference"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

/// Burn's batch norms keep their running statistics per thread until they are merged, and a
/// training step runs on whichever thread of the pool is free: steps alternating between two
/// threads must leave the statistics (and so the inference outputs) of steps on one thread.
#[test]
fn running_statistics_do_not_depend_on_the_threads_that_run_the_steps() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let samples: Vec<Sample> = self_play_samples(&rules, 2, 8, 2)
        .into_iter()
        .take(32)
        .collect();
    let train = TrainConfig {
        augment: false,
        ..TrainConfig::default()
    };
    let device = Device::flex();
    let directory = std::env::temp_dir().join(format!("flipzero-threads-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("start.ckpt");
    Trainer::new(&rules, &tiny_net(&rules, 8), train.clone(), &device)
        .save(&path)
        .unwrap();
    let threads: Vec<rayon::ThreadPool> = (0..2)
        .map(|_| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap()
        })
        .collect();
    let losses_after_steps_on = |pools: [usize; 4]| {
        let mut trainer = Trainer::load(&path, train.clone(), &device).unwrap();
        for pool in pools {
            threads[pool].install(|| trainer.train_step(&samples).unwrap());
        }
        threads[0].install(|| trainer.evaluate(&samples).unwrap())
    };
    let one_thread = losses_after_steps_on([0, 0, 0, 0]);
    let alternating = losses_after_steps_on([0, 1, 0, 1]);
    assert!(
        (one_thread.total - alternating.total).abs() < 1e-6,
        "{one_thread:?} vs {alternating:?}"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn the_learning_rate_warms_up_then_decays_along_a_cosine() {
    let config = TrainConfig {
        learning_rate: 1.0,
        warmup_steps: 4,
        decay_steps: 10,
        final_fraction: 0.1,
        ..TrainConfig::default()
    };
    let rate = |step| config.learning_rate_at(step);
    assert_eq!([rate(0), rate(1), rate(3)], [0.25, 0.5, 1.0]);
    assert!((rate(4) - 1.0).abs() < 1e-12);
    assert!((rate(9) - 0.55).abs() < 1e-12, "half way: {}", rate(9));
    assert!((rate(14) - 0.1).abs() < 1e-12);
    assert!((rate(1000) - 0.1).abs() < 1e-12);
    let constant = TrainConfig {
        learning_rate: 0.3,
        ..TrainConfig::default()
    };
    assert_eq!(constant.learning_rate_at(12345), 0.3);
}

#[test]
fn a_rate_scheduled_over_the_budget_reaches_its_floor_when_the_budget_is_spent() {
    let config = TrainConfig {
        learning_rate: 1.0,
        warmup_steps: 4,
        // Ignored by the budget schedule: the decay follows the budget, not the steps.
        decay_steps: 10,
        final_fraction: 0.1,
        ..TrainConfig::default()
    };
    let rate = |step, progress| config.learning_rate_at_progress(step, progress);
    // The warm-up still counts steps.
    assert_eq!([rate(0, 0.5), rate(3, 0.5)], [0.25, 1.0]);
    assert!((rate(100, 0.0) - 1.0).abs() < 1e-12);
    assert!((rate(100, 0.5) - 0.55).abs() < 1e-12);
    // Above the floor until the very end, at the floor from then on.
    assert!(rate(100_000, 0.99) > 0.1 + 1e-5, "{}", rate(100_000, 0.99));
    assert!((rate(100_000, 1.0) - 0.1).abs() < 1e-12);
    assert!((rate(100_000, 1.7) - 0.1).abs() < 1e-12);
    // A rate that falls with the budget spent, never rises.
    let rates: Vec<f64> = (0..=100)
        .map(|i| rate(1000, f64::from(i) / 100.0))
        .collect();
    assert!(rates.windows(2).all(|pair| pair[1] <= pair[0]));
}

/// The sum of squares of every trained weight of the trainer's network.
fn squared_weights(trainer: &Trainer) -> f64 {
    use burn::module::{Module, ModuleVisitor, Param};
    use burn::tensor::Tensor;
    struct Sum(f64);
    impl ModuleVisitor for Sum {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let values = param.val().into_data().try_into_vec::<f32>().unwrap();
            self.0 += values
                .iter()
                .map(|&v| f64::from(v) * f64::from(v))
                .sum::<f64>();
        }
    }
    let mut sum = Sum(0.0);
    trainer.net().visit(&mut sum);
    sum.0
}

#[test]
fn weight_decay_shrinks_the_weights_that_adam_alone_keeps() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let samples = self_play_samples(&rules, 4, 8, 5);
    let net = tiny_net(&rules, 8);
    let initial = net.init(&Device::flex());
    let trained = |weight_decay| {
        let config = TrainConfig {
            learning_rate: 1e-2,
            weight_decay,
            // One batch seen the same way by every trainer, so that their steps compare.
            augment: false,
            ..TrainConfig::default()
        };
        let device = Device::flex();
        let mut trainer = Trainer::resume(&rules, &net, initial.clone(), 0, config, &device);
        let fresh = squared_weights(&trainer);
        for _ in 0..20 {
            trainer.train_step(&samples[..32]).unwrap();
        }
        (fresh, trainer)
    };
    let (fresh, plain) = trained(0.0);
    let (same_fresh, decayed) = trained(1.0);
    assert_eq!(fresh, same_fresh, "one seed, one initialisation");
    // Each step multiplies every weight by 1 - 0.01: the squares by 0.99^40, about 0.67, after
    // 20 steps, less what Adam's own steps add back.
    let ratio = squared_weights(&decayed) / squared_weights(&plain);
    assert!((0.6..0.9).contains(&ratio), "{ratio}");

    // The loss after one more step, from a trainer as it is.
    let loss_after_next_step = |trainer: &mut Trainer| {
        trainer.train_step(&samples[..32]).unwrap();
        trainer.train_step(&samples[..32]).unwrap().total
    };
    let config = TrainConfig {
        learning_rate: 1e-2,
        weight_decay: 1.0,
        augment: false,
        ..TrainConfig::default()
    };
    let path = std::env::temp_dir().join(format!("flipzero-decay-{}.ckpt", std::process::id()));
    // A checkpoint keeps AdamW's moments: the resumed trainer steps as the one in memory.
    decayed.save(&path).unwrap();
    let mut resumed = Trainer::load(&path, config.clone(), &Device::flex()).unwrap();
    assert_eq!(resumed.step(), 20);
    let mut decayed = decayed;
    assert_eq!(
        loss_after_next_step(&mut resumed),
        loss_after_next_step(&mut decayed)
    );
    // Adam's moments load under AdamW (a run may switch the decay on): its step is not that
    // of the same weights with fresh moments.
    plain.save(&path).unwrap();
    let mut switched = Trainer::load(&path, config.clone(), &Device::flex()).unwrap();
    let mut fresh_moments = Trainer::resume(
        &rules,
        &net,
        flipzero_nn::checkpoint::load(&path, &Device::flex())
            .unwrap()
            .net,
        20,
        config,
        &Device::flex(),
    );
    let (switched, fresh) = (
        loss_after_next_step(&mut switched),
        loss_after_next_step(&mut fresh_moments),
    );
    assert!(
        switched.is_finite() && switched != fresh,
        "{switched} {fresh}"
    );
    std::fs::remove_file(&path).unwrap();
}
