//! The residual policy/value network.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::ops::{batch_norm, same_convolution};

/// The shape of a network: its input, its tower and its heads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Input planes (`flipzero_data::encoder::PLANES.len()` for the current encoder).
    pub input_planes: usize,
    /// Board rows.
    pub rows: usize,
    /// Board columns.
    pub cols: usize,
    /// Size of the rules' decision set (the policy's outputs).
    pub decisions: usize,
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of the tower.
    pub channels: usize,
    /// Width of the value heads' hidden layer.
    pub value_hidden: usize,
}

/// A 3x3 (or 1x1) convolution followed by batch normalisation.
#[derive(Module, Debug)]
pub struct ConvNorm {
    conv: Conv2d,
    norm: BatchNorm,
}

impl ConvNorm {
    fn new(input: usize, output: usize, kernel: usize, device: &Device) -> Self {
        Self {
            conv: Conv2dConfig::new([input, output], [kernel, kernel])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            norm: BatchNormConfig::new(output).init(device),
        }
    }

    fn forward(&self, input: Tensor<4>) -> Tensor<4> {
        batch_norm(&self.norm, same_convolution(input, self.conv.weight.val()))
    }
}

/// Two convolutions with a skip connection.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    first: ConvNorm,
    second: ConvNorm,
}

impl ResidualBlock {
    fn forward(&self, input: Tensor<4>) -> Tensor<4> {
        let inner = relu(self.first.forward(input.clone()));
        relu(self.second.forward(inner) + input)
    }
}

/// The network.
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    stem: ConvNorm,
    tower: Vec<ResidualBlock>,
    policy_conv: ConvNorm,
    policy: Linear,
    value_conv: ConvNorm,
    value_hidden: Linear,
    wdl: Linear,
    score: Linear,
}

/// What the network says of a batch.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// Decision logits, [batch, decisions] (mask the illegal ones before a softmax).
    pub policy_logits: Tensor<2>,
    /// Win/draw/loss logits for the side to move, [batch, 3].
    pub wdl_logits: Tensor<2>,
    /// Expected final margin for the side to move divided by the number of squares,
    /// [batch, 1].
    pub score: Tensor<2>,
}

impl NetConfig {
    /// A network with fresh weights on `device`.
    pub fn init(&self, device: &Device) -> PolicyValueNet {
        let squares = self.rows * self.cols;
        PolicyValueNet {
            stem: ConvNorm::new(self.input_planes, self.channels, 3, device),
            tower: (0..self.blocks)
                .map(|_| ResidualBlock {
                    first: ConvNorm::new(self.channels, self.channels, 3, device),
                    second: ConvNorm::new(self.channels, self.channels, 3, device),
                })
                .collect(),
            policy_conv: ConvNorm::new(self.channels, 2, 1, device),
            policy: LinearConfig::new(2 * squares, self.decisions).init(device),
            value_conv: ConvNorm::new(self.channels, 1, 1, device),
            value_hidden: LinearConfig::new(squares, self.value_hidden).init(device),
            wdl: LinearConfig::new(self.value_hidden, 3).init(device),
            score: LinearConfig::new(self.value_hidden, 1).init(device),
        }
    }
}

impl PolicyValueNet {
    /// Runs a batch of encoded positions, [batch, planes, rows, cols].
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let [batch, _, _, _] = input.dims();
        let mut x = relu(self.stem.forward(input));
        for block in &self.tower {
            x = block.forward(x);
        }
        let policy = relu(self.policy_conv.forward(x.clone())).reshape([batch as i64, -1]);
        let value = relu(self.value_conv.forward(x)).reshape([batch as i64, -1]);
        let hidden = relu(self.value_hidden.forward(value));
        NetOutput {
            policy_logits: self.policy.forward(policy),
            wdl_logits: self.wdl.forward(hidden.clone()),
            score: self.score.forward(hidden).tanh(),
        }
    }
}
