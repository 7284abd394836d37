//! Can a checkpoint's network fit a fixed set of its own training samples? Trains it on the
//! newest N samples of a run's shards (the replay window's, shard by shard) at a constant rate and prints, every few hundred
//! steps, the losses in training mode (batch statistics, augmented), the losses and the
//! policy's agreement with the target's likeliest decision in inference mode on those
//! samples, and the same on the N samples before them (held out):
//!
//!     cargo run --release -p flipzero-train --example fit_check -- \
//!         CHECKPOINT SHARD_DIR SAMPLES STEPS LEARNING_RATE
//!
//! `AUGMENT=0` trains without random symmetries; `REPORT_EVERY=N` reports every N steps. Boards of up to 64 squares. A diagnostic of
//! experiments/2026-12-01-othello-6x6-perfect-play (the network's raw policy agreed with only
//! 64% of its own solved training targets).

use std::path::Path;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use flipzero_core::Game;
use flipzero_data::{Encoder, Sample, ShardHeader};
use flipzero_train::{Losses, TrainConfig, Trainer};
use rand::SeedableRng;
use rand::seq::IndexedRandom;

/// Ends the program with `what` went wrong, named.
fn or_exit<T, E: std::fmt::Display>(result: Result<T, E>, what: &str) -> T {
    result.unwrap_or_else(|error| {
        eprintln!("fit_check: {what}: {error}");
        std::process::exit(1);
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [checkpoint, shards, samples, steps, rate] = args.as_slice() else {
        eprintln!("usage: fit_check CHECKPOINT SHARD_DIR SAMPLES STEPS LEARNING_RATE");
        std::process::exit(2);
    };
    let count: usize = or_exit(samples.parse(), "SAMPLES");
    let steps: u64 = or_exit(steps.parse(), "STEPS");
    let rate: f64 = or_exit(rate.parse(), "LEARNING_RATE");
    let device = Device::flex();
    let config = TrainConfig {
        learning_rate: rate,
        // AUGMENT=0 trains on the positions as they are (no random symmetry).
        augment: std::env::var("AUGMENT").map_or(true, |value| value != "0"),
        ..TrainConfig::default()
    };
    let mut trainer = or_exit(
        Trainer::load(Path::new(checkpoint), config, &device),
        "checkpoint",
    );
    let loaded = or_exit(
        flipzero_nn::checkpoint::load(Path::new(checkpoint), &device),
        "checkpoint",
    );
    let rules = or_exit(
        flipzero_core::Rules::try_from(loaded.meta.rules.clone()),
        "checkpoint rules",
    );
    let header = ShardHeader {
        rules: rules.spec().clone(),
        encoder_version: flipzero_data::ENCODER_VERSION,
        games: 0,
        writer: String::new(),
    };
    let window = or_exit(
        flipzero_data::replay_window(Path::new(shards), 2 * count, &header),
        "shards",
    );
    if window.samples.len() < 2 {
        eprintln!("fit_check: {shards}: no samples to fit");
        std::process::exit(1);
    }
    let (fitted, held_out) = window.samples.split_at(count.min(window.samples.len() / 2));
    let solved = fitted.iter().filter(|s| s.solved).count();
    let entropy: f32 = fitted
        .iter()
        .flat_map(|s| {
            s.policy
                .iter()
                .map(|&(_, p)| if p > 0.0 { -p * p.ln() } else { 0.0 })
        })
        .sum::<f32>()
        / fitted.len().max(1) as f32;
    println!(
        "{} samples to fit ({solved} solved; policy target entropy {entropy:.3}), {} held out",
        fitted.len(),
        held_out.len()
    );
    let encoder = Encoder::new(&rules);
    let report = |trainer: &mut Trainer, step: u64, train: Option<Losses>| {
        let fit = measure(trainer, &rules, &encoder, fitted, &device);
        let held = measure(trainer, &rules, &encoder, held_out, &device);
        let train = train.map_or(String::from("-"), |l| {
            format!("{:.3}+{:.3}+{:.3}", l.policy, l.wdl, l.score)
        });
        println!(
            "step {step:6} | train mode {train} | fitted: {} | held out: {}",
            fit, held
        );
    };
    report(&mut trainer, 0, None);
    // REPORT_EVERY=N reports every N steps instead of 250 (large sample sets take a while).
    let report_every: u64 = std::env::var("REPORT_EVERY")
        .ok()
        .and_then(|value| value.parse().ok())
        .filter(|&every| every > 0)
        .unwrap_or(250);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut sum = Losses {
        policy: 0.0,
        wdl: 0.0,
        score: 0.0,
        total: 0.0,
    };
    let mut since = 0;
    for step in 1..=steps {
        let batch: Vec<Sample> = fitted.choose_multiple(&mut rng, 128).cloned().collect();
        let losses = or_exit(trainer.train_step(&batch), "training sample");
        sum.policy += losses.policy;
        sum.wdl += losses.wdl;
        sum.score += losses.score;
        since += 1;
        if step % report_every == 0 || step == steps {
            let n = since as f32;
            let mean = Losses {
                policy: sum.policy / n,
                wdl: sum.wdl / n,
                score: sum.score / n,
                total: 0.0,
            };
            report(&mut trainer, step, Some(mean));
            sum = Losses {
                policy: 0.0,
                wdl: 0.0,
                score: 0.0,
                total: 0.0,
            };
            since = 0;
        }
    }
}

/// Inference-mode losses and the share of samples whose likeliest legal decision is the
/// target's likeliest one (identity symmetry).
fn measure(
    trainer: &mut Trainer,
    rules: &flipzero_core::Rules,
    encoder: &Encoder,
    samples: &[Sample],
    device: &Device,
) -> String {
    let mut policy = 0.0;
    let mut wdl = 0.0;
    let mut agree = 0usize;
    let mut solved_agree = 0usize;
    let chunks = samples.chunks(512).count().max(1) as f32;
    let net = trainer.net().valid();
    for chunk in samples.chunks(512) {
        let losses = or_exit(trainer.evaluate(chunk), "sample");
        policy += losses.policy;
        wdl += losses.wdl;
        let (planes, rows, cols) = encoder.shape();
        let mut input = ndarray::Array4::<f32>::zeros((chunk.len(), planes, rows, cols));
        let mut masks = Vec::new();
        for (index, sample) in chunk.iter().enumerate() {
            let game = or_exit(
                Game::<u64>::from_text(rules, &sample.position),
                "sample position",
            );
            encoder.encode_into(&game, input.index_axis_mut(ndarray::Axis(0), index));
            masks.push(flipzero_data::legal_mask(rules, &game));
        }
        let (values, _) = input.into_raw_vec_and_offset();
        let output = net.forward(Tensor::from_data(
            TensorData::new(values, [chunk.len(), planes, rows, cols]),
            device,
        ));
        let logits = output
            .policy_logits
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32");
        let decisions = rules.decision_count();
        for (index, sample) in chunk.iter().enumerate() {
            let row = &logits[index * decisions..(index + 1) * decisions];
            let chosen = (0..decisions)
                .filter(|&d| masks[index][d] > 0.0)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .expect("a legal decision");
            let best = sample
                .policy
                .iter()
                .map(|&(_, share)| share)
                .fold(0.0f32, f32::max);
            if sample
                .policy
                .iter()
                .any(|&(d, share)| usize::from(d) == chosen && share >= best - 1e-6)
            {
                agree += 1;
                solved_agree += usize::from(sample.solved);
            }
        }
    }
    let solved = samples.iter().filter(|s| s.solved).count().max(1);
    format!(
        "policy {:.3} wdl {:.3} agree {:.1}% (solved {:.1}%)",
        policy / chunks,
        wdl / chunks,
        100.0 * agree as f32 / samples.len().max(1) as f32,
        100.0 * solved_agree as f32 / solved as f32
    )
}
