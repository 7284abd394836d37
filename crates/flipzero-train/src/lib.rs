//! Training: samples turned into batches (each position seen through a random board
//! symmetry), the three losses of the network's heads, and Adam steps.
//!
//! ```
//! use burn::tensor::Device;
//! use flipzero_core::{Game, Preset};
//! use flipzero_data::{Encoder, Sample};
//! use flipzero_nn::{NetConfig, Tower, checkpoint};
//! use flipzero_train::{TrainConfig, Trainer};
//!
//! let rules = Preset::Othello.rules(Some(6))?;
//! let (input_planes, rows, cols) = Encoder::new(&rules).shape();
//! let net = NetConfig {
//!     input_planes, rows, cols,
//!     decisions: rules.decision_count(),
//!     tower: Tower::new(1, 8, 8),
//!     torus: rules.is_torus(),
//! };
//! let mut trainer = Trainer::new(&rules, &net, TrainConfig::default(), &Device::flex());
//! // The start, its first legal decision as the policy target, and a won game.
//! let start = Game::<u64>::start(&rules);
//! let first = rules.decision_index(start.legal_decisions(&rules)[0]) as u16;
//! let sample = Sample {
//!     position: start.to_text(&rules),
//!     policy: vec![(first, 1.0)],
//!     outcome: 1,
//!     score: 4.0,
//!     solved: false,
//! };
//! let losses = trainer.train_step(&vec![sample; 16])?;
//! assert!(losses.total.is_finite() && losses.policy > 0.0);
//! // A checkpoint keeps the network, its rules and the step.
//! let path = std::env::temp_dir().join(format!("flipzero-doc-{}.ckpt", std::process::id()));
//! trainer.save(&path)?;
//! let loaded = checkpoint::load(&path, &Device::flex())?;
//! assert_eq!((loaded.meta.step, &loaded.meta.net), (1, &net));
//! std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use burn::module::Module;
use burn::optim::{AdamConfig, AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use flipzero_core::{Bitboard, Game, Rules, with_width};
use flipzero_data::files::FileError;
use flipzero_data::{Encoder, Sample, decision_preserving_symmetries, policy_permutation};
use flipzero_nn::checkpoint;
use flipzero_nn::{CheckpointMeta, NetConfig, PolicyValueNet};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Optimisation settings. In a run config they are keys of `[train]`; the seed is the
/// config's own.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainConfig {
    /// Adam's peak learning rate.
    pub learning_rate: f64,
    /// Steps of linear warm-up from 0 to the peak rate.
    pub warmup_steps: u64,
    /// Steps of cosine decay after the warm-up, down to `final_fraction` of the peak; 0 keeps
    /// the peak rate. Unused while [`Trainer::set_budget_progress`] has set a progress.
    #[serde(default)]
    pub decay_steps: u64,
    /// Share of the peak rate left at the end of the decay (and after it).
    pub final_fraction: f64,
    /// Decoupled weight decay (AdamW): each step shrinks every weight by `learning_rate *
    /// weight_decay` of itself. 0 trains with plain Adam, as runs before the option did. Both
    /// keep the same moment estimates, so a checkpoint of either continues under the other.
    #[serde(default)]
    pub weight_decay: f32,
    /// Weight of the win/draw/loss loss against the policy loss.
    pub value_weight: f32,
    /// Weight of the score loss.
    pub score_weight: f32,
    /// See each position through a random symmetry of the board.
    pub augment: bool,
    /// Seed of the symmetries drawn.
    #[serde(skip)]
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            learning_rate: 1e-3,
            warmup_steps: 0,
            decay_steps: 0,
            final_fraction: 0.1,
            weight_decay: 0.0,
            value_weight: 1.0,
            score_weight: 1.0,
            augment: true,
            seed: 0,
        }
    }
}

impl TrainConfig {
    /// The learning rate of step `step` (from 0): linear warm-up, then cosine decay.
    pub fn learning_rate_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        if self.decay_steps == 0 {
            return self.learning_rate;
        }
        let progress = (step - self.warmup_steps) as f64 / self.decay_steps as f64;
        self.cosine_rate(progress)
    }

    /// The learning rate of step `step` when `progress` of the run's budget (0 to 1, minutes
    /// or iterations) is spent: the warm-up by steps, then a cosine decay that reaches the
    /// floor (`final_fraction` of the peak) exactly when the budget is spent, however fast
    /// the machine is.
    pub fn learning_rate_at_progress(&self, step: u64, progress: f64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        self.cosine_rate(progress)
    }

    /// A fresh optimizer: Adam, or AdamW when weights decay.
    fn optimizer(&self) -> ModuleOptimizer {
        if self.weight_decay > 0.0 {
            AdamWConfig::new()
                .with_epsilon(1e-8)
                .with_weight_decay(self.weight_decay)
                .init()
        } else {
            AdamConfig::new().with_epsilon(1e-8).init()
        }
    }

    /// The cosine decay from the peak at progress 0 to the floor at progress 1 (and after).
    fn cosine_rate(&self, progress: f64) -> f64 {
        let progress = if progress.is_nan() {
            0.0
        } else {
            progress.clamp(0.0, 1.0)
        };
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
        self.learning_rate * (self.final_fraction + (1.0 - self.final_fraction) * cosine)
    }
}

/// The losses of one batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    /// Cross-entropy of the policy against the search's visit shares.
    pub policy: f32,
    /// Cross-entropy of the win/draw/loss head against the game's result.
    pub wdl: f32,
    /// Squared error of the score head against the final margin / squares.
    pub score: f32,
    /// The weighted sum that is minimised.
    pub total: f32,
}

/// A sample that cannot be trained on.
#[derive(Debug, thiserror::Error)]
#[error("sample {index}: {reason}")]
pub struct SampleError {
    /// Its place in the batch.
    pub index: usize,
    /// What is wrong.
    pub reason: String,
}

/// The network in training, its optimizer and its step count.
pub struct Trainer {
    rules: Rules,
    net_config: NetConfig,
    encoder: Encoder,
    net: PolicyValueNet,
    optimizer: ModuleOptimizer,
    device: Device,
    config: TrainConfig,
    rng: ChaCha8Rng,
    step: u64,
    /// The share of the run's budget spent, when the rate is scheduled over the budget.
    budget_progress: Option<f64>,
    /// The rate of the last optimizer step.
    last_learning_rate: Option<f64>,
}

/// The tensors of one batch.
struct Batch {
    input: Tensor<4>,
    policy: Tensor<2>,
    wdl: Tensor<2>,
    score: Tensor<2>,
}

impl Trainer {
    /// A trainer of a fresh network on `device` (made trainable here).
    pub fn new(rules: &Rules, net: &NetConfig, config: TrainConfig, device: &Device) -> Self {
        let device = device.clone().autodiff();
        Self::resume(rules, net, net.init(&device), 0, config, &device)
    }

    /// A trainer that continues a network at `step` with a fresh optimizer.
    pub fn resume(
        rules: &Rules,
        net_config: &NetConfig,
        net: PolicyValueNet,
        step: u64,
        config: TrainConfig,
        device: &Device,
    ) -> Self {
        let device = device.clone().autodiff();
        Self {
            rules: rules.clone(),
            net_config: net_config.clone(),
            encoder: Encoder::new(rules),
            net: net.to_device(&device).train(),
            optimizer: config.optimizer(),
            rng: ChaCha8Rng::seed_from_u64(config.seed),
            device,
            config,
            step,
            budget_progress: None,
            last_learning_rate: None,
        }
    }

    /// The network being trained.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The rules the network is trained for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The network's shape.
    pub fn net_config(&self) -> &NetConfig {
        &self.net_config
    }

    /// Steps taken.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Writes a checkpoint with the network, the step and the optimizer's state (atomically).
    ///
    /// # Errors
    /// When the state cannot be serialised or the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let meta = CheckpointMeta {
            rules: self.rules.spec().clone(),
            encoder_version: flipzero_data::ENCODER_VERSION,
            net: self.net_config.clone(),
            step: self.step,
        };
        let optimizer = self.optimizer.into_bytes().map_err(|error| {
            FileError::invalid(path, format!("serialising the optimizer: {error:?}"))
        })?;
        checkpoint::save(path, &meta, &self.net, Some(&optimizer))
    }

    /// Continues training from a checkpoint: network, step and optimizer state. `device` is
    /// a plain device, as for [`Trainer::new`].
    ///
    /// # Errors
    /// An unreadable or invalid checkpoint, or an optimizer state that does not load.
    pub fn load(path: &Path, config: TrainConfig, device: &Device) -> Result<Self, FileError> {
        // Loaded on the plain device; `resume` moves the parameters onto the training device
        // as fresh leaves of the autodiff graph.
        let loaded = checkpoint::load(path, device)?;
        let invalid = |reason: String| FileError::invalid(path, reason);
        let rules = Rules::try_from(loaded.meta.rules.clone())
            .map_err(|error| invalid(format!("rules: {error}")))?;
        let mut trainer = Self::resume(
            &rules,
            &loaded.meta.net,
            loaded.net,
            loaded.meta.step,
            config,
            device,
        );
        if let Some(state) = loaded.optimizer {
            let optimizer = std::mem::replace(&mut trainer.optimizer, AdamConfig::new().init());
            trainer.optimizer = optimizer
                .from_bytes(Bytes::from_bytes_vec(state))
                .map_err(|error| invalid(format!("optimizer state: {error:?}")))?;
        }
        Ok(trainer)
    }

    /// Encodes samples into tensors, each through a random symmetry when augmenting.
    fn batch<W: Bitboard>(&mut self, samples: &[Sample]) -> Result<Batch, SampleError> {
        let (planes, rows, cols) = self.encoder.shape();
        let decisions = self.rules.decision_count();
        let size = samples.len();
        let mut input = ndarray::Array4::<f32>::zeros((size, planes, rows, cols));
        let mut policy = vec![0.0f32; size * decisions];
        let mut wdl = vec![0.0f32; size * 3];
        let mut score = vec![0.0f32; size];
        let squares = self.rules.square_count() as f32;
        for (index, sample) in samples.iter().enumerate() {
            let error = |reason: String| SampleError { index, reason };
            let game = Game::<W>::from_text(&self.rules, &sample.position)
                .map_err(|e| error(e.to_string()))?;
            let symmetries = decision_preserving_symmetries(&game);
            let symmetry = if self.config.augment {
                *symmetries
                    .choose(&mut self.rng)
                    .expect("the identity is a symmetry")
            } else {
                symmetries[0]
            };
            let permutation = policy_permutation(&self.rules, &game, symmetry);
            let seen = game.transformed(symmetry);
            self.encoder
                .encode_into(&seen, input.index_axis_mut(ndarray::Axis(0), index));
            if !sample.score.is_finite() {
                return Err(error(format!("score {}", sample.score)));
            }
            for &(decision, share) in &sample.policy {
                if !(0.0..=1.0).contains(&share) {
                    return Err(error(format!("policy share {share}")));
                }
                let target = *permutation
                    .get(usize::from(decision))
                    .ok_or_else(|| error(format!("decision index {decision} out of range")))?;
                policy[index * decisions + target] = share;
            }
            let class = match sample.outcome {
                1 => 0,
                0 => 1,
                -1 => 2,
                other => return Err(error(format!("outcome {other}"))),
            };
            wdl[index * 3 + class] = 1.0;
            score[index] = (sample.score / squares).clamp(-1.0, 1.0);
        }
        let (values, _) = input.into_raw_vec_and_offset();
        let device = &self.device;
        Ok(Batch {
            input: Tensor::from_data(TensorData::new(values, [size, planes, rows, cols]), device),
            policy: Tensor::from_data(TensorData::new(policy, [size, decisions]), device),
            wdl: Tensor::from_data(TensorData::new(wdl, [size, 3]), device),
            score: Tensor::from_data(TensorData::new(score, [size, 1]), device),
        })
    }

    fn losses(&self, net: &PolicyValueNet, batch: Batch) -> (Tensor<1>, Losses) {
        let output = net.forward(batch.input);
        let policy = (log_softmax(output.policy_logits, 1) * batch.policy)
            .sum_dim(1)
            .mean()
            .neg();
        let wdl = (log_softmax(output.wdl_logits, 1) * batch.wdl)
            .sum_dim(1)
            .mean()
            .neg();
        let score = (output.score - batch.score).powf_scalar(2.0).mean();
        let total = policy.clone()
            + wdl.clone() * self.config.value_weight
            + score.clone() * self.config.score_weight;
        let scalar = |t: Tensor<1>| t.into_data().try_into_vec::<f32>().expect("f32")[0];
        let losses = Losses {
            policy: scalar(policy),
            wdl: scalar(wdl),
            score: scalar(score),
            total: scalar(total.clone()),
        };
        (total, losses)
    }

    /// Schedules the rate of the next steps over a budget: `progress` is the share of it
    /// spent (see [`TrainConfig::learning_rate_at_progress`]); `None` returns to the
    /// schedule by steps.
    pub fn set_budget_progress(&mut self, progress: Option<f64>) {
        self.budget_progress = progress;
    }

    /// The rate the next optimizer step will use.
    pub fn learning_rate(&self) -> f64 {
        match self.budget_progress {
            Some(progress) => self.config.learning_rate_at_progress(self.step, progress),
            None => self.config.learning_rate_at(self.step),
        }
    }

    /// The rate of the last optimizer step taken by this trainer (`None` before the first).
    pub fn last_learning_rate(&self) -> Option<f64> {
        self.last_learning_rate
    }

    /// One optimizer step on a batch; returns its losses before the step. The positions are
    /// read at the width of the trainer's rules, so callers need not know it.
    ///
    /// # Errors
    /// A sample whose position does not parse under the rules, or whose targets are out of
    /// range.
    pub fn train_step(&mut self, samples: &[Sample]) -> Result<Losses, SampleError> {
        let squares = self.rules.square_count();
        // The network's kernels split their work over the rayon pool, best from its threads.
        let losses = flipzero_nn::ops::on_pool(
            || with_width!(squares, W => self.train_step_here::<W>(samples)),
        );
        // Batch norms keep each thread's update of their running statistics apart until they
        // are merged, and the pool may run the next step on another thread, which would read
        // stale statistics; `valid` merges them (its copy of the network is dropped).
        let _ = self.net.valid();
        losses
    }

    fn train_step_here<W: Bitboard>(&mut self, samples: &[Sample]) -> Result<Losses, SampleError> {
        let batch = self.batch::<W>(samples)?;
        let (total, losses) = self.losses(&self.net, batch);
        let gradients = GradientsParams::from_grads(total.backward(), &self.net);
        let rate = self.learning_rate();
        self.net = self.optimizer.step(rate, self.net.clone(), gradients);
        self.last_learning_rate = Some(rate);
        self.step += 1;
        Ok(losses)
    }

    /// The losses of a batch without training (no augmentation, inference mode).
    ///
    /// # Errors
    /// As [`Trainer::train_step`].
    pub fn evaluate(&mut self, samples: &[Sample]) -> Result<Losses, SampleError> {
        let augment = std::mem::replace(&mut self.config.augment, false);
        let batch = with_width!(self.rules.square_count(), W => self.batch::<W>(samples));
        self.config.augment = augment;
        let net = self.net.valid();
        Ok(self.losses(&net, batch?).1)
    }
}
