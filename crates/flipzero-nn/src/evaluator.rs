//! The network as the search's evaluator: positions encoded into one batch, one forward pass,
//! priors as a softmax over each position's legal decisions, value = P(win) - P(loss),
//! score = the score head's margin share.

use burn::module::Module;
use burn::tensor::activation::softmax;
use burn::tensor::{Device, Tensor, TensorData};
use flipzero_core::{Bitboard, Decision, Game, Rules};
use flipzero_data::Encoder;
use flipzero_mcts::{Evaluation, Evaluator};

use crate::net::PolicyValueNet;

/// Evaluates batches of positions with a network in inference mode.
pub struct NetEvaluator {
    net: PolicyValueNet,
    encoder: Encoder,
    device: Device,
}

impl NetEvaluator {
    /// An evaluator for `rules` running `net` on `device`. The network is put in inference
    /// mode (batch normalisation uses its running statistics, no gradients).
    pub fn new(rules: &Rules, net: &PolicyValueNet, device: &Device) -> Self {
        Self {
            net: net.valid(),
            encoder: Encoder::new(rules),
            device: device.clone(),
        }
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
        let (planes, rows, cols) = self.encoder.shape();
        let mut input = ndarray::Array4::<f32>::zeros((positions.len(), planes, rows, cols));
        for (slot, (game, _)) in positions.iter().enumerate() {
            self.encoder
                .encode_into(*game, input.index_axis_mut(ndarray::Axis(0), slot));
        }
        let shape = [positions.len(), planes, rows, cols];
        let (values, _) = input.into_raw_vec_and_offset();
        let input = Tensor::<4>::from_data(TensorData::new(values, shape), &self.device);
        let output = self.net.forward(input);
        let logits = to_vec(output.policy_logits);
        let wdl = to_vec(softmax(output.wdl_logits, 1));
        let scores = to_vec(output.score);
        let decisions = rules.decision_count();
        positions
            .iter()
            .enumerate()
            .map(|(slot, (_, legal))| {
                let row = &logits[slot * decisions..(slot + 1) * decisions];
                let chosen: Vec<f32> = legal
                    .iter()
                    .map(|&decision| row[rules.decision_index(decision)])
                    .collect();
                let most = chosen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let exponentials: Vec<f32> = chosen.iter().map(|l| (l - most).exp()).collect();
                let total: f32 = exponentials.iter().sum();
                Evaluation {
                    priors: exponentials.iter().map(|e| e / total).collect(),
                    value: wdl[slot * 3] - wdl[slot * 3 + 2],
                    score: scores[slot],
                }
            })
            .collect()
    }
}
