//! The network as the search's evaluator: positions encoded into one batch, one forward pass,
//! priors as a softmax over each position's legal decisions, value = P(win) - P(loss),
//! score = the score head's margin share. Optionally each position is also seen through
//! every board symmetry and the images' priors, values and scores averaged (test-time
//! augmentation: the network is trained through random symmetries, and its errors differ
//! between the images of one position).

use burn::module::Module;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData};
use flipzero_core::{Bitboard, Decision, Game, Rules, Symmetry};
use flipzero_data::{Encoder, decision_preserving_symmetries};
use flipzero_mcts::{Evaluation, Evaluator};

use crate::net::PolicyValueNet;

/// Evaluates batches of positions with a network in inference mode.
pub struct NetEvaluator {
    net: PolicyValueNet,
    encoder: Encoder,
    device: Device,
    every_symmetry: bool,
}

impl NetEvaluator {
    /// An evaluator for `rules` running `net` on `device`. The network is put in inference
    /// mode (batch normalisation uses its running statistics, no gradients).
    pub fn new(rules: &Rules, net: &PolicyValueNet, device: &Device) -> Self {
        Self {
            net: net.valid(),
            encoder: Encoder::new(rules),
            device: device.clone(),
            every_symmetry: false,
        }
    }

    /// Averages each evaluation over the position's images under every board symmetry
    /// (eight network inputs a position on a square board instead of one).
    #[must_use]
    pub fn over_every_symmetry(mut self, every_symmetry: bool) -> Self {
        self.every_symmetry = every_symmetry;
        self
    }
}

fn to_vec<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .expect("the network computes in f32")
}

impl<W: Bitboard> Evaluator<W> for NetEvaluator {
    fn evaluate(
        &mut self,
        rules: &Rules,
        positions: &[(&Game<W>, &[Decision])],
    ) -> Vec<Evaluation> {
        if positions.is_empty() {
            return Vec::new();
        }
        // Each image: the position it comes from and the symmetry it is seen through.
        let mut images = Vec::with_capacity(positions.len());
        for (slot, (game, _)) in positions.iter().enumerate() {
            if self.every_symmetry {
                images.extend(
                    decision_preserving_symmetries(*game)
                        .into_iter()
                        .map(|symmetry| (slot, symmetry)),
                );
            } else {
                images.push((slot, Symmetry::Identity));
            }
        }
        let (planes, rows, cols) = self.encoder.shape();
        let mut input = ndarray::Array4::<f32>::zeros((images.len(), planes, rows, cols));
        for (image, &(slot, symmetry)) in images.iter().enumerate() {
            let game = positions[slot].0;
            let plane = input.index_axis_mut(ndarray::Axis(0), image);
            if symmetry == Symmetry::Identity {
                self.encoder.encode_into(game, plane);
            } else {
                self.encoder.encode_into(&game.transformed(symmetry), plane);
            }
        }
        let shape = [images.len(), planes, rows, cols];
        let (values, _) = input.into_raw_vec_and_offset();
        let input = Tensor::<4>::from_data(TensorData::new(values, shape), &self.device);
        let output = self.net.forward(input);
        let logits = to_vec(output.policy_logits);
        let wdl = to_vec(softmax(output.wdl_logits, 1));
        let scores = to_vec(output.score);
        let decisions = rules.decision_count();
        let mut evaluations: Vec<Evaluation> = positions
            .iter()
            .map(|(_, legal)| Evaluation {
                priors: vec![0.0; legal.len()],
                value: 0.0,
                score: 0.0,
            })
            .collect();
        let mut image_counts = vec![0u32; positions.len()];
        for (image, &(slot, symmetry)) in images.iter().enumerate() {
            let (game, legal) = positions[slot];
            let row = &logits[image * decisions..(image + 1) * decisions];
            let chosen: Vec<f32> = legal
                .iter()
                .map(|&decision| {
                    row[rules.decision_index(decision.transformed(game.geometry(), symmetry))]
                })
                .collect();
            let most = chosen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let exponentials: Vec<f32> = chosen.iter().map(|l| (l - most).exp()).collect();
            let total: f32 = exponentials.iter().sum();
            let evaluation = &mut evaluations[slot];
            for (prior, exponential) in evaluation.priors.iter_mut().zip(&exponentials) {
                *prior += exponential / total;
            }
            evaluation.value += wdl[image * 3] - wdl[image * 3 + 2];
            evaluation.score += scores[image];
            image_counts[slot] += 1;
        }
        for (evaluation, &count) in evaluations.iter_mut().zip(&image_counts) {
            let count = count as f32;
            evaluation
                .priors
                .iter_mut()
                .for_each(|prior| *prior /= count);
            evaluation.value /= count;
            evaluation.score /= count;
        }
        evaluations
    }
}
