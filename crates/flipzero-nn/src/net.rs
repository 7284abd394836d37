//! The residual policy/value network.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::ops::{self, conv_norm_relu};

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
    /// Channels of the policy head's 1x1 convolution (AlphaZero's 2).
    #[serde(default = "default_policy_channels")]
    pub policy_channels: usize,
    /// Channels of the value head's 1x1 convolution (AlphaZero's 1: the whole position's
    /// value has to pass through one number a square).
    #[serde(default = "default_value_channels")]
    pub value_channels: usize,
}

/// The policy head's channels of networks saved before they could be set.
pub fn default_policy_channels() -> usize {
    2
}

/// The value head's channels of networks saved before they could be set.
pub fn default_value_channels() -> usize {
    1
}

/// A 3x3 (or 1x1) convolution followed by batch normalisation (and, in the network, by a
/// residual and relu).
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

    /// `relu(norm(conv(input)) + residual)`.
    fn forward_relu(
        &self,
        input: Tensor<4>,
        residual: Option<Tensor<4>>,
        layout: Layout,
    ) -> Tensor<4> {
        match layout {
            Layout::ChannelsFirst => {
                let normalised = self.norm.forward(self.conv.forward(input));
                relu(match residual {
                    Some(residual) => normalised + residual,
                    None => normalised,
                })
            }
            Layout::ChannelsLast => {
                conv_norm_relu(input, self.conv.weight.val(), &self.norm, residual)
            }
        }
    }
}

/// How the tower's activations are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// [batch, channels, rows, cols], through Burn's own modules: any device.
    ChannelsFirst,
    /// [batch, rows, cols, channels], through our kernels ([`ops`]): flex. Between layers
    /// the kernels then need no transposes (a fifth of an 8x8 batch's time when they took
    /// channels first).
    ChannelsLast,
}

impl Layout {
    /// A channels-first tensor laid out this way.
    fn arrange(self, tensor: Tensor<4>) -> Tensor<4> {
        match self {
            Self::ChannelsFirst => tensor,
            Self::ChannelsLast => tensor.permute([0, 2, 3, 1]),
        }
    }

    /// A tensor laid out this way, channels first.
    fn channels_first(self, tensor: Tensor<4>) -> Tensor<4> {
        match self {
            Self::ChannelsFirst => tensor,
            Self::ChannelsLast => tensor.permute([0, 3, 1, 2]),
        }
    }
}

/// Two convolutions with a skip connection.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    first: ConvNorm,
    second: ConvNorm,
}

impl ResidualBlock {
    fn forward(&self, input: Tensor<4>, layout: Layout) -> Tensor<4> {
        let inner = self.first.forward_relu(input.clone(), None, layout);
        self.second.forward_relu(inner, Some(input), layout)
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
            policy_conv: ConvNorm::new(self.channels, self.policy_channels, 1, device),
            policy: LinearConfig::new(self.policy_channels * squares, self.decisions).init(device),
            value_conv: ConvNorm::new(self.channels, self.value_channels, 1, device),
            value_hidden: LinearConfig::new(self.value_channels * squares, self.value_hidden)
                .init(device),
            wdl: LinearConfig::new(self.value_hidden, 3).init(device),
            score: LinearConfig::new(self.value_hidden, 1).init(device),
        }
    }
}

impl PolicyValueNet {
    /// Runs a batch of encoded positions, [batch, planes, rows, cols].
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let layout = if ops::has_kernels(&input) {
            Layout::ChannelsLast
        } else {
            Layout::ChannelsFirst
        };
        self.forward_in(input, layout)
    }

    /// [`Self::forward`] with the tower's activations in `layout`.
    fn forward_in(&self, input: Tensor<4>, layout: Layout) -> NetOutput {
        let [batch, _, _, _] = input.dims();
        let mut x = self.stem.forward_relu(layout.arrange(input), None, layout);
        for block in &self.tower {
            x = block.forward(x, layout);
        }
        // The heads' linear layers read their convolutions' outputs channels first.
        let head = |conv: &ConvNorm, x: Tensor<4>| {
            layout
                .channels_first(conv.forward_relu(x, None, layout))
                .reshape([batch as i64, -1])
        };
        let policy = head(&self.policy_conv, x.clone());
        let value = head(&self.value_conv, x);
        let hidden = relu(self.value_hidden.forward(value));
        NetOutput {
            policy_logits: self.policy.forward(policy),
            wdl_logits: self.wdl.forward(hidden.clone()),
            score: self.score.forward(hidden).tanh(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::assert_tensors_close as close;
    use burn::tensor::Distribution;

    /// A net on a board that is not square, with 16 channels (whole groups of the Winograd
    /// kernels' lanes) and heads of 2 and 1 channels.
    fn net(device: &Device) -> PolicyValueNet {
        NetConfig {
            input_planes: 5,
            rows: 6,
            cols: 5,
            decisions: 31,
            blocks: 2,
            channels: 16,
            value_hidden: 8,
            policy_channels: 2,
            value_channels: 1,
        }
        .init(device)
    }

    fn assert_same_outputs(ours: NetOutput, burns: NetOutput) {
        close(ours.policy_logits, burns.policy_logits);
        close(ours.wdl_logits, burns.wdl_logits);
        close(ours.score, burns.score);
    }

    /// Our channels-last kernels against Burn's channels-first modules on flex, in inference,
    /// at batches 3 and 9.
    #[test]
    fn configs_saved_before_the_head_widths_load_with_alphazero_heads() {
        let old = r#"{"input_planes":25,"rows":6,"cols":6,"decisions":37,"blocks":4,"channels":48,"value_hidden":64}"#;
        let config: NetConfig = serde_json::from_str(old).unwrap();
        assert_eq!((config.policy_channels, config.value_channels), (2, 1));
        let wide = NetConfig {
            policy_channels: 8,
            value_channels: 4,
            ..config
        };
        let device = Device::default();
        let output = wide
            .init(&device)
            .forward(Tensor::zeros([3, 25, 6, 6], &device));
        assert_eq!(output.policy_logits.dims(), [3, 37]);
        assert_eq!(output.wdl_logits.dims(), [3, 3]);
    }

    #[test]
    fn both_layouts_give_the_same_outputs() {
        let device = Device::flex();
        let net = net(&device);
        for batch in [3, 9] {
            let input = Tensor::<4>::random([batch, 5, 6, 5], Distribution::Default, &device);
            assert!(ops::has_kernels(&input));
            assert_same_outputs(
                net.forward_in(input.clone(), Layout::ChannelsLast),
                net.forward_in(input, Layout::ChannelsFirst),
            );
        }
    }

    /// Training (batch statistics) on autodiff flex: both layouts give the same outputs and
    /// the same gradients of the first and last layers' weights.
    #[test]
    fn both_layouts_give_the_same_gradients() {
        let device = Device::flex().autodiff();
        let net = net(&device);
        let input = Tensor::<4>::random([9, 5, 6, 5], Distribution::Default, &device);
        let probe = Tensor::<2>::random([9, 31], Distribution::Default, &device);
        let run = |layout| {
            let output = net.forward_in(input.clone(), layout);
            let loss = (output.policy_logits.clone() * probe.clone()).sum()
                + output.wdl_logits.clone().sum()
                + output.score.clone().sum();
            let grads = loss.backward();
            let stem = net
                .stem
                .conv
                .weight
                .val()
                .grad(&grads)
                .expect("stem gradient");
            let policy = net
                .policy
                .weight
                .val()
                .grad(&grads)
                .expect("policy gradient");
            (output, stem, policy)
        };
        let (ours, our_stem, our_policy) = run(Layout::ChannelsLast);
        let (burns, burn_stem, burn_policy) = run(Layout::ChannelsFirst);
        assert_same_outputs(ours, burns);
        close(our_stem, burn_stem);
        close(our_policy, burn_policy);
    }
}
