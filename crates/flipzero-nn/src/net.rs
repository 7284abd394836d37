//! The residual policy/value network.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::module::conv2d;
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use crate::ops::{self, batch_norm, conv_norm_relu, same_convolution};

/// The shape of a network: its input (from the rules and the encoder), its tower and its
/// heads ([`Tower`], the part a run config chooses).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetConfig {
    /// Input planes (`flipzero_data::encoder::PLANES.len()` for the current encoder).
    pub input_planes: usize,
    /// Board rows.
    pub rows: usize,
    /// Board columns.
    pub cols: usize,
    /// Size of the rules' decision set (the policy's outputs).
    pub decisions: usize,
    /// The residual tower and the heads, written as keys of the same object.
    #[serde(flatten)]
    pub tower: Tower,
    /// Whether the board wraps around (biversi's torus): the 3x3 convolutions then read
    /// across the edges, padding each with the opposite edge's squares instead of zeros, so
    /// that squares the rules make neighbours are neighbours to the network too.
    #[serde(default)]
    pub torus: bool,
}

/// The chosen part of a network's shape: the residual tower and the widths of its heads
/// (a run config's `[network]` table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tower {
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

impl Tower {
    /// A tower of `blocks` residual blocks of `channels` channels, with a value head of
    /// `value_hidden` hidden units and AlphaZero's head widths (2 policy channels, 1 value
    /// channel).
    pub fn new(blocks: usize, channels: usize, value_hidden: usize) -> Self {
        Self {
            blocks,
            channels,
            value_hidden,
            policy_channels: default_policy_channels(),
            value_channels: default_value_channels(),
        }
    }
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

    /// `relu(norm(conv(input)) + residual)`, the convolution reading across the edges on a
    /// torus.
    fn forward_relu(
        &self,
        input: Tensor<4>,
        residual: Option<Tensor<4>>,
        layout: Layout,
        torus: bool,
    ) -> Tensor<4> {
        let radius = self.conv.weight.dims()[2] / 2;
        if torus && radius > 0 {
            return self.forward_relu_wrapped(input, residual, layout, radius);
        }
        match layout {
            Layout::ChannelsFirst => {
                with_residual_relu(self.norm.forward(self.conv.forward(input)), residual)
            }
            Layout::ChannelsLast => {
                conv_norm_relu(input, self.conv.weight.val(), &self.norm, residual)
            }
        }
    }

    /// [`Self::forward_relu`] on a torus: the board padded by `radius` squares of the
    /// opposite edges, then convolved without padding (channels first) or with the kernels'
    /// zero padding and cropped to the centre, which never read a zero (channels last). The
    /// normalisation comes after, so that its batch statistics see each square once.
    fn forward_relu_wrapped(
        &self,
        input: Tensor<4>,
        residual: Option<Tensor<4>>,
        layout: Layout,
        radius: usize,
    ) -> Tensor<4> {
        let [row_axis, col_axis] = layout.board_axes();
        let (rows, cols) = (input.dims()[row_axis], input.dims()[col_axis]);
        let wrapped = wrap_around(wrap_around(input, row_axis, radius), col_axis, radius);
        let weight = self.conv.weight.val();
        let normalised = match layout {
            Layout::ChannelsFirst => {
                let unpadded = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
                self.norm.forward(conv2d(wrapped, weight, None, unpadded))
            }
            Layout::ChannelsLast => {
                let convolved = same_convolution(wrapped, weight)
                    .narrow(row_axis, radius, rows)
                    .narrow(col_axis, radius, cols);
                batch_norm(&self.norm, convolved)
            }
        };
        with_residual_relu(normalised, residual)
    }
}

/// `relu(normalised + residual)`, or `relu(normalised)` without a residual.
fn with_residual_relu(normalised: Tensor<4>, residual: Option<Tensor<4>>) -> Tensor<4> {
    relu(match residual {
        Some(residual) => normalised + residual,
        None => normalised,
    })
}

/// `tensor` with `width` slices of the far end of `axis` put before its start and as many of
/// the start after its end, as a torus joins its edges. A gather of fixed indices rather
/// than slices and a concatenation: the ONNX exporter keeps the batch axis dynamic through it.
fn wrap_around(tensor: Tensor<4>, axis: usize, width: usize) -> Tensor<4> {
    let length = tensor.dims()[axis];
    let indices: Vec<i64> = (length - width..length)
        .chain(0..length)
        .chain(0..width)
        .map(|index| index as i64)
        .collect();
    let count = indices.len();
    let indices = Tensor::<1, Int>::from_data(TensorData::new(indices, [count]), &tensor.device());
    tensor.select(axis, indices)
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

    /// The axes of the board's rows and columns.
    fn board_axes(self) -> [usize; 2] {
        match self {
            Self::ChannelsFirst => [2, 3],
            Self::ChannelsLast => [1, 2],
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
    fn forward(&self, input: Tensor<4>, layout: Layout, torus: bool) -> Tensor<4> {
        let inner = self.first.forward_relu(input.clone(), None, layout, torus);
        self.second.forward_relu(inner, Some(input), layout, torus)
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
    /// [`NetConfig::torus`]: fixed by the rules, so not a weight of the record.
    #[module(skip)]
    torus: bool,
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
    /// How many numbers the network's record holds: the convolutions' kernels, the batch
    /// normalisations' scales, shifts and running means and variances, the linear layers'
    /// weights and biases (Burn's `num_params`). Computed from the sizes alone, so that a
    /// loader can compare it with the bytes a file holds before it builds anything.
    pub fn weight_count(&self) -> u64 {
        let [
            planes,
            channels,
            squares,
            decisions,
            blocks,
            hidden,
            policy_channels,
            value_channels,
        ] = [
            self.input_planes,
            self.tower.channels,
            self.rows * self.cols,
            self.decisions,
            self.tower.blocks,
            self.tower.value_hidden,
            self.tower.policy_channels,
            self.tower.value_channels,
        ]
        .map(|size| size as u64);
        let conv_norm = |input: u64, output: u64, kernel: u64| input * output * kernel + 4 * output;
        let linear = |input: u64, output: u64| input * output + output;
        conv_norm(planes, channels, 9)
            + 2 * blocks * conv_norm(channels, channels, 9)
            + conv_norm(channels, policy_channels, 1)
            + linear(policy_channels * squares, decisions)
            + conv_norm(channels, value_channels, 1)
            + linear(value_channels * squares, hidden)
            + linear(hidden, 3)
            + linear(hidden, 1)
    }

    /// A network with fresh weights on `device`.
    pub fn init(&self, device: &Device) -> PolicyValueNet {
        let squares = self.rows * self.cols;
        PolicyValueNet {
            stem: ConvNorm::new(self.input_planes, self.tower.channels, 3, device),
            tower: (0..self.tower.blocks)
                .map(|_| ResidualBlock {
                    first: ConvNorm::new(self.tower.channels, self.tower.channels, 3, device),
                    second: ConvNorm::new(self.tower.channels, self.tower.channels, 3, device),
                })
                .collect(),
            policy_conv: ConvNorm::new(self.tower.channels, self.tower.policy_channels, 1, device),
            policy: LinearConfig::new(self.tower.policy_channels * squares, self.decisions)
                .init(device),
            value_conv: ConvNorm::new(self.tower.channels, self.tower.value_channels, 1, device),
            value_hidden: LinearConfig::new(
                self.tower.value_channels * squares,
                self.tower.value_hidden,
            )
            .init(device),
            wdl: LinearConfig::new(self.tower.value_hidden, 3).init(device),
            score: LinearConfig::new(self.tower.value_hidden, 1).init(device),
            torus: self.torus,
        }
    }
}

impl PolicyValueNet {
    /// The stem and the residual tower of a channels-first batch, laid out in `layout`.
    fn tower_in(&self, input: Tensor<4>, layout: Layout) -> Tensor<4> {
        let torus = self.torus;
        let mut x = self
            .stem
            .forward_relu(layout.arrange(input), None, layout, torus);
        for block in &self.tower {
            x = block.forward(x, layout, torus);
        }
        x
    }

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
        let torus = self.torus;
        let x = self.tower_in(input, layout);
        // The heads' linear layers read their convolutions' outputs channels first.
        let head = |conv: &ConvNorm, x: Tensor<4>| {
            layout
                .channels_first(conv.forward_relu(x, None, layout, torus))
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
        net_on(device, false)
    }

    /// [`net`] on a plane or a torus.
    fn net_on(device: &Device, torus: bool) -> PolicyValueNet {
        config_on(torus).init(device)
    }

    /// The configuration of [`net_on`].
    fn config_on(torus: bool) -> NetConfig {
        NetConfig {
            input_planes: 5,
            rows: 6,
            cols: 5,
            decisions: 31,
            tower: Tower::new(2, 16, 8),
            torus,
        }
    }

    fn assert_same_outputs(ours: NetOutput, burns: NetOutput) {
        close(ours.policy_logits, burns.policy_logits);
        close(ours.wdl_logits, burns.wdl_logits);
        close(ours.score, burns.score);
    }

    #[test]
    fn the_weight_count_is_burns_parameter_count() {
        let device = Device::default();
        let config = config_on(false);
        assert_eq!(config.weight_count(), net(&device).num_params() as u64);
        let wide = NetConfig {
            tower: Tower {
                policy_channels: 3,
                value_channels: 4,
                value_hidden: 32,
                blocks: 3,
                ..config.tower.clone()
            },
            ..config
        };
        assert_eq!(wide.weight_count(), wide.init(&device).num_params() as u64);
    }

    #[test]
    fn configs_saved_before_the_head_widths_load_with_alphazero_heads() {
        let old = r#"{"input_planes":25,"rows":6,"cols":6,"decisions":37,"blocks":4,"channels":48,"value_hidden":64}"#;
        let config: NetConfig = serde_json::from_str(old).unwrap();
        assert_eq!(
            (config.tower.policy_channels, config.tower.value_channels),
            (2, 1)
        );
        let wide = NetConfig {
            tower: Tower {
                policy_channels: 8,
                value_channels: 4,
                ..config.tower.clone()
            },
            ..config
        };
        let device = Device::default();
        let output = wide
            .init(&device)
            .forward(Tensor::zeros([3, 25, 6, 6], &device));
        assert_eq!(output.policy_logits.dims(), [3, 37]);
        assert_eq!(output.wdl_logits.dims(), [3, 3]);
    }

    /// On a torus a shifted board is the same position: the tower's activations shift with
    /// it, in both layouts, where zero padding at the edges breaks that.
    #[test]
    fn a_torus_tower_commutes_with_shifting_the_board() {
        let device = Device::flex();
        let input = Tensor::<4>::random([9, 5, 6, 5], Distribution::Default, &device);
        let shifted = input.clone().roll(&[2, -1], &[2, 3]);
        for torus in [true, false] {
            let net = net_on(&device, torus);
            for layout in [Layout::ChannelsLast, Layout::ChannelsFirst] {
                let tower = |input| layout.channels_first(net.tower_in(input, layout));
                let expected = tower(input.clone()).roll(&[2, -1], &[2, 3]);
                let got = tower(shifted.clone());
                let largest: f32 = (got - expected).abs().max().into_scalar();
                if torus {
                    assert!(largest < 1e-4, "{layout:?}: off by {largest}");
                } else {
                    assert!(largest > 1e-2, "{layout:?}: a plane tower shifted too");
                }
            }
        }
    }

    #[test]
    fn both_layouts_give_the_same_outputs_on_a_torus() {
        let device = Device::flex();
        let net = net_on(&device, true);
        for batch in [3, 9] {
            let input = Tensor::<4>::random([batch, 5, 6, 5], Distribution::Default, &device);
            assert_same_outputs(
                net.forward_in(input.clone(), Layout::ChannelsLast),
                net.forward_in(input, Layout::ChannelsFirst),
            );
        }
    }

    /// Our channels-last kernels against Burn's channels-first modules on flex, in inference,
    /// at batches 3 and 9.
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
    /// the same gradients of the first and last layers' weights, on a plane and on a torus.
    #[test]
    fn both_layouts_give_the_same_gradients() {
        for torus in [false, true] {
            same_gradients_in_both_layouts(torus);
        }
    }

    fn same_gradients_in_both_layouts(torus: bool) {
        let device = Device::flex().autodiff();
        let net = net_on(&device, torus);
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
