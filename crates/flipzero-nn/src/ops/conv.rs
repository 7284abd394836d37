//! The network's convolutions on channels-last activations: "same"-padded, stride 1, no
//! bias, square odd kernels.
//!
//! On flex they run our kernels (forward and both gradients): Winograd's for 3x3 kernels at
//! batches of 8 and more (at every batch in the fused inference of `fused`, which keeps the
//! transformed kernels), block im2col GEMMs otherwise; elsewhere (and for empty tensors)
//! Burn's own `conv2d` between two permutations.

use burn::backend::autodiff::NodeId;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::flex::FlexTensor;
use burn::backend::{Autodiff, Flex};
use burn::tensor::Tensor;
use burn::tensor::module::conv2d;
use burn::tensor::ops::ConvOptions;

use super::blocks::{ConvShape, Epilogue};
use super::{conv_kernels, winograd};
use super::{flex_tensor, on_autodiff_flex, on_flex, values};

/// Convolves `input` [batch, rows, cols, inputs] with `weight` [outputs, inputs, k, k] (k odd),
/// padding with zeros so that the output, [batch, rows, cols, outputs], keeps the board's
/// size.
pub fn same_convolution(input: Tensor<4>, weight: Tensor<4>) -> Tensor<4> {
    let shape = ConvShape::of(input.dims(), weight.dims())
        .expect("a same convolution needs a square odd kernel over the input's channels");
    let empty = shape.is_empty();
    if let (false, Some(x), Some(w)) = (empty, on_flex(&input), on_flex(&weight)) {
        return Tensor::from_primitive::<Flex>(flex_forward(&shape, &x, &w));
    }
    if let (false, Some(x), Some(w)) = (empty, on_autodiff_flex(&input), on_autodiff_flex(&weight))
    {
        let output = match SameConvolution
            .prepare::<NoCheckpointing>([x.node(), w.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(mut prep) => {
                let state = (prep.checkpoint(&x), prep.checkpoint(&w), shape);
                prep.finish(state, flex_forward(&shape, x.primitive(), w.primitive()))
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(flex_forward(&shape, x.primitive(), w.primitive()))
            }
        };
        return Tensor::from_primitive::<Autodiff<Flex>>(output);
    }
    let padding = shape.kernel / 2;
    conv2d(
        input.permute([0, 3, 1, 2]),
        weight,
        None,
        ConvOptions::new([1, 1], [padding, padding], [1, 1], 1),
    )
    .permute([0, 2, 3, 1])
}

/// A forward convolution of channels-last `input` with a prepared weight, each block of its
/// output finished by the epilogue.
type Convolve = fn(&ConvShape, &[f32], &[f32], Option<&Epilogue>) -> Vec<f32>;

/// A convolution's forward pass and gradients on f32 buffers.
pub(super) struct Kernels {
    /// What `prepare` makes of a weight.
    pub(super) preparation: Preparation,
    /// The weight as `convolve` takes it.
    pub(super) prepare: fn(&ConvShape, &[f32]) -> Vec<f32>,
    pub(super) convolve: Convolve,
    input_gradient: fn(&ConvShape, &[f32], &[f32]) -> Vec<f32>,
    weight_gradient: fn(&ConvShape, &[f32], &[f32]) -> Vec<f32>,
}

/// The forms a forward convolution takes its weight in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Preparation {
    /// Rows (tap, input), columns outputs: im2col's GEMM.
    TapMatrix,
    /// Winograd's 16 transformed matrices.
    Winograd,
}

impl Kernels {
    /// The forward convolution of `input` with `weight` [outputs, inputs, k, k].
    fn forward(&self, shape: &ConvShape, input: &[f32], weight: &[f32]) -> Vec<f32> {
        (self.convolve)(shape, input, &(self.prepare)(shape, weight), None)
    }
}

/// Batches from which 3x3 convolutions use Winograd's algorithm when their kernels are
/// transformed at every call: below, the transforms cost more than the multiplications they
/// save (8x8 boards, 64 channels, batch 1: 3.2 ms against 2.0 ms with im2col).
const WINOGRAD_MIN_BATCH: usize = 8;

/// Winograd's F(2x2, 3x3) for 3x3 kernels (2.25 times fewer multiplications), at any batch
/// when the forward kernels are `kept` from call to call ([`super::prepared`]: at batch 1,
/// 8x8 boards, 1.5 times faster than im2col), at batches of some size otherwise; im2col
/// GEMMs for the rest.
pub(super) fn kernels_for(shape: &ConvShape, kept: bool) -> Kernels {
    if shape.kernel == 3 && (kept || shape.batch >= WINOGRAD_MIN_BATCH) {
        Kernels {
            preparation: Preparation::Winograd,
            prepare: winograd::prepare,
            convolve: winograd::convolve,
            input_gradient: winograd::input_gradient,
            weight_gradient: winograd::weight_gradient,
        }
    } else {
        Kernels {
            preparation: Preparation::TapMatrix,
            prepare: conv_kernels::prepare,
            convolve: conv_kernels::convolve,
            input_gradient: conv_kernels::input_gradient,
            weight_gradient: conv_kernels::weight_gradient,
        }
    }
}

pub(super) fn flex_forward(
    shape: &ConvShape,
    input: &FlexTensor,
    weight: &FlexTensor,
) -> FlexTensor {
    let output = kernels_for(shape, false).forward(shape, &values(input), &values(weight));
    flex_tensor(output, [shape.batch, shape.rows, shape.cols, shape.outputs])
}

/// The backward step of [`same_convolution`] on autodiff flex: the gradients of the input and
/// of the weight from the output's.
#[derive(Debug)]
struct SameConvolution;

impl Backward<Flex, 2> for SameConvolution {
    type State = (NodeId, NodeId, ConvShape);

    fn backward(
        self,
        ops: Ops<Self::State, 2>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        let [input_node, weight_node] = ops.parents;
        let output_gradient = grads.consume::<Flex>(&ops.node);
        let (input_state, weight_state, shape) = ops.state;
        let input = checkpointer.retrieve_node_output::<FlexTensor>(input_state);
        let weight = checkpointer.retrieve_node_output::<FlexTensor>(weight_state);
        register_gradients(
            &shape,
            &values(&output_gradient),
            (&input, &weight),
            [input_node, weight_node].map(|node| node.map(|node| node.id)),
            grads,
        );
    }
}

/// Registers the gradients of a convolution's input and weight (those with a tracked node)
/// from its output's.
pub(super) fn register_gradients(
    shape: &ConvShape,
    output_gradient: &[f32],
    (input, weight): (&FlexTensor, &FlexTensor),
    [input_node, weight_node]: [Option<NodeId>; 2],
    grads: &mut Gradients,
) {
    if let Some(node) = input_node {
        let gradient =
            (kernels_for(shape, false).input_gradient)(shape, output_gradient, &values(weight));
        let dims = [shape.batch, shape.rows, shape.cols, shape.inputs];
        grads.register::<Flex>(node, flex_tensor(gradient, dims));
    }
    if let Some(node) = weight_node {
        let gradient =
            (kernels_for(shape, false).weight_gradient)(shape, &values(input), output_gradient);
        let dims = [shape.outputs, shape.inputs, shape.kernel, shape.kernel];
        grads.register::<Flex>(node, flex_tensor(gradient, dims));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::assert_tensors_close as close;
    use super::*;
    use burn::tensor::{Device, Distribution};

    /// Burn's convolution of channels-last `input`, channels-last.
    fn burn_convolution(input: Tensor<4>, weight: Tensor<4>) -> Tensor<4> {
        let padding = weight.dims()[2] / 2;
        conv2d(
            input.permute([0, 3, 1, 2]),
            weight,
            None,
            ConvOptions::new([1, 1], [padding, padding], [1, 1], 1),
        )
        .permute([0, 2, 3, 1])
    }

    /// Flex, through the kernels here, against Burn's own convolution on flex.
    #[test]
    fn flex_forward_matches_burn() {
        let device = Device::flex();
        for (input, weight) in [
            ([11, 6, 6, 5], [7, 5, 3, 3]),
            ([9, 8, 8, 16], [16, 16, 3, 3]),
            ([3, 5, 7, 4], [6, 4, 3, 3]),
            ([3, 8, 7, 4], [2, 4, 1, 1]),
        ] {
            let input = Tensor::<4>::random(input, Distribution::Default, &device);
            let weight = Tensor::<4>::random(weight, Distribution::Default, &device);
            close(
                same_convolution(input.clone(), weight.clone()),
                burn_convolution(input, weight),
            );
        }
    }

    /// Gradients through the custom backward step against those of Burn's convolution, with a
    /// non-uniform output gradient (a weighted sum of the output).
    #[test]
    fn autodiff_gradients_match_burn() {
        let device = Device::flex().autodiff();
        let input =
            Tensor::<4>::random([9, 6, 6, 3], Distribution::Default, &device).require_grad();
        let weight =
            Tensor::<4>::random([4, 3, 3, 3], Distribution::Default, &device).require_grad();
        let probe = Tensor::<4>::random([9, 6, 6, 4], Distribution::Default, &device);
        let gradients = |output: Tensor<4>| {
            let grads = (output * probe.clone()).sum().backward();
            (input.grad(&grads).unwrap(), weight.grad(&grads).unwrap())
        };
        let (input_ours, weight_ours) = gradients(same_convolution(input.clone(), weight.clone()));
        let (input_burn, weight_burn) = gradients(burn_convolution(input.clone(), weight.clone()));
        close(input_ours, input_burn);
        close(weight_ours, weight_burn);
    }
}
