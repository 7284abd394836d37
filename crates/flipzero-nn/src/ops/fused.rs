//! A convolution, its batch norm, a residual and relu: every convolution of the network is
//! followed by these. On flex they run as one operation: in inference the norm, the residual
//! and relu are applied to each block of the convolution's output while it is in the cache;
//! in training one pass normalises, adds and rectifies, and one backward step takes the
//! gradient back through all four (Burn's relu and addition cost two passes each way, with
//! their buffers). Elsewhere they run as the separate operations.

use burn::backend::autodiff::NodeId;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, NodeGuard, Ops, OpsKind};
use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Flex};
use burn::nn::BatchNorm;
use burn::tensor::Tensor;
use burn::tensor::activation::relu;
use rayon::prelude::*;

use super::blocks::{ConvShape, Epilogue};
use super::conv::{flex_forward, kernels_for, register_gradients};
use super::norm::{trains, update_running_statistics};
use super::norm_kernels::{self, NormShape, inverse_deviations, scale_and_shift};
use super::prepared::prepared;
use super::{batch_norm, flex_tensor, on_autodiff_flex, on_flex, same_convolution, values};

/// `relu(norm(conv(input)) + residual)` for channels-last `input` [batch, rows, cols,
/// inputs], `weight` [outputs, inputs, k, k] and `residual` (when given) of the output's
/// shape, [batch, rows, cols, outputs].
pub fn conv_norm_relu(
    input: Tensor<4>,
    weight: Tensor<4>,
    norm: &BatchNorm,
    residual: Option<Tensor<4>>,
) -> Tensor<4> {
    if let Some(shape) = fused_shape(&input, &weight, norm, residual.as_ref()) {
        let fused = if trains(norm, &input.device()) {
            fused_training(&shape, &input, &weight, norm, residual.as_ref())
        } else {
            fused_inference(&shape, &input, &weight, norm, residual.as_ref())
        };
        if let Some(output) = fused {
            return output;
        }
    }
    let normalised = batch_norm(norm, same_convolution(input, weight));
    relu(match residual {
        Some(residual) => normalised + residual,
        None => normalised,
    })
}

/// The convolution's shape when the tensors' shapes agree and none is empty.
fn fused_shape(
    input: &Tensor<4>,
    weight: &Tensor<4>,
    norm: &BatchNorm,
    residual: Option<&Tensor<4>>,
) -> Option<ConvShape> {
    let shape = ConvShape::of(input.dims(), weight.dims())?;
    let fits = norm.gamma.dims() == [shape.outputs]
        && residual.is_none_or(|residual| residual.dims() == output_dims(&shape))
        && !shape.is_empty();
    fits.then_some(shape)
}

fn output_dims(shape: &ConvShape) -> [usize; 4] {
    [shape.batch, shape.rows, shape.cols, shape.outputs]
}

/// The fused operation in inference (the norm's running statistics) when every tensor is on
/// flex without autodiff.
fn fused_inference(
    shape: &ConvShape,
    input: &Tensor<4>,
    weight: &Tensor<4>,
    norm: &BatchNorm,
    residual: Option<&Tensor<4>>,
) -> Option<Tensor<4>> {
    let (x, w) = (on_flex(input)?, on_flex(weight)?);
    let (gamma, beta) = (on_flex(&norm.gamma.val())?, on_flex(&norm.beta.val())?);
    let mean = on_flex(&norm.running_mean.value())?;
    let variance = on_flex(&norm.running_var.value())?;
    let residual = match residual {
        Some(residual) => Some(on_flex(residual)?),
        None => None,
    };
    let inverse_deviation = inverse_deviations(&values(&variance), norm.epsilon);
    let (scale, shift) = scale_and_shift(
        &values(&mean),
        &inverse_deviation,
        &values(&gamma),
        &values(&beta),
    );
    let residual = residual.as_ref().map(values);
    let epilogue = Epilogue {
        scale: &scale,
        shift: &shift,
        residual: residual.as_deref().unwrap_or_default(),
    };
    let kernels = kernels_for(shape, true);
    let weight = prepared(&kernels, shape, &w);
    let output = (kernels.convolve)(shape, &values(&x), &weight, Some(&epilogue));
    Some(Tensor::from_primitive::<Flex>(flex_tensor(
        output,
        output_dims(shape),
    )))
}

/// The fused operation in training (batch statistics, running averages updated) when every
/// tensor is on autodiff flex.
fn fused_training(
    shape: &ConvShape,
    input: &Tensor<4>,
    weight: &Tensor<4>,
    norm: &BatchNorm,
    residual: Option<&Tensor<4>>,
) -> Option<Tensor<4>> {
    let (x, w) = (on_autodiff_flex(input)?, on_autodiff_flex(weight)?);
    let gamma = on_autodiff_flex(&norm.gamma.val())?;
    let beta = on_autodiff_flex(&norm.beta.val())?;
    let residual = match residual {
        Some(residual) => Some(on_autodiff_flex(residual)?),
        None => None,
    };
    let convolved = flex_forward(shape, x.primitive(), w.primitive());
    let norm_shape = norm_shape(shape);
    let (mean, variance) = norm_kernels::statistics(&norm_shape, &values(&convolved));
    let inverse_deviation = inverse_deviations(&variance, norm.epsilon);
    let gamma_values = values(gamma.primitive()).into_owned();
    let (scale, shift) = scale_and_shift(
        &mean,
        &inverse_deviation,
        &gamma_values,
        &values(beta.primitive()),
    );
    let residual_values = residual
        .as_ref()
        .map(|residual| values(residual.primitive()));
    let epilogue = Epilogue {
        scale: &scale,
        shift: &shift,
        residual: residual_values.as_deref().unwrap_or_default(),
    };
    let mut output = values(&convolved).into_owned();
    let image_len = norm_shape.channels * norm_shape.positions;
    output
        .par_chunks_mut(image_len)
        .enumerate()
        .for_each(|(image, out)| epilogue.apply(out, image * image_len));
    drop(residual_values);
    let output = flex_tensor(output, output_dims(shape));
    let state = |input: NodeId, weight: NodeId| FusedState {
        input,
        weight,
        gamma: gamma_values,
        convolved,
        output: output.clone(),
        mean: mean.clone(),
        inverse_deviation,
        shape: *shape,
    };
    let parents = [x.node(), w.node(), gamma.node(), beta.node()];
    let finished = match &residual {
        Some(residual) => {
            let [x_node, w_node, gamma_node, beta_node] = parents;
            let parents = [x_node, w_node, gamma_node, beta_node, residual.node()];
            finish(parents, (&x, &w), state, output.clone())
        }
        None => finish(parents, (&x, &w), state, output.clone()),
    };
    update_running_statistics(norm, mean, variance, &input.device());
    Some(Tensor::from_primitive::<Autodiff<Flex>>(finished))
}

/// Registers the fused operation's output with its `parents` (input, weight, gamma, beta and
/// the residual when there is one), keeping the input and the weight for the backward step.
fn finish<const N: usize>(
    parents: [NodeGuard; N],
    (input, weight): (&FloatTensor<Autodiff<Flex>>, &FloatTensor<Autodiff<Flex>>),
    state: impl FnOnce(NodeId, NodeId) -> FusedState,
    output: FlexTensor,
) -> FloatTensor<Autodiff<Flex>> {
    match FusedTraining
        .prepare::<NoCheckpointing>(parents)
        .compute_bound()
        .stateful()
    {
        OpsKind::Tracked(mut prep) => {
            let state = state(prep.checkpoint(input), prep.checkpoint(weight));
            prep.finish(state, output)
        }
        OpsKind::UnTracked(prep) => prep.finish(output),
    }
}

fn norm_shape(shape: &ConvShape) -> NormShape {
    NormShape {
        batch: shape.batch,
        channels: shape.outputs,
        positions: shape.positions(),
    }
}

/// What the fused operation's backward step keeps.
#[derive(Clone, Debug)]
struct FusedState {
    input: NodeId,
    weight: NodeId,
    gamma: Vec<f32>,
    /// The convolution's output, which the norm normalised.
    convolved: FlexTensor,
    /// The operation's output (relu's gradient passes where it is positive).
    output: FlexTensor,
    mean: Vec<f32>,
    inverse_deviation: Vec<f32>,
    shape: ConvShape,
}

/// The fused operation's backward step: through relu, to the residual, through the norm
/// (to gamma and beta) and through the convolution (to the input and the weight).
#[derive(Debug)]
struct FusedTraining;

impl<const N: usize> Backward<Flex, N> for FusedTraining {
    type State = FusedState;

    fn backward(
        self,
        ops: Ops<Self::State, N>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        let state = ops.state;
        let parent = |index: usize| ops.parents.get(index).cloned().flatten().map(|n| n.id);
        let output_gradient = grads.consume::<Flex>(&ops.node);
        let rectified = flex_tensor(
            relu_gradient(&values(&output_gradient), &values(&state.output)),
            output_dims(&state.shape),
        );
        if let Some(residual) = parent(4) {
            grads.register::<Flex>(residual, rectified.clone());
        }
        let (convolved_gradient, gamma_gradient, beta_gradient) = norm_kernels::gradients(
            &norm_shape(&state.shape),
            &values(&state.convolved),
            &values(&rectified),
            &state.mean,
            &state.inverse_deviation,
            &state.gamma,
        );
        let channels = [state.shape.outputs];
        if let Some(gamma) = parent(2) {
            grads.register::<Flex>(gamma, flex_tensor(gamma_gradient, channels));
        }
        if let Some(beta) = parent(3) {
            grads.register::<Flex>(beta, flex_tensor(beta_gradient, channels));
        }
        let input = checkpointer.retrieve_node_output::<FlexTensor>(state.input);
        let weight = checkpointer.retrieve_node_output::<FlexTensor>(state.weight);
        register_gradients(
            &state.shape,
            &convolved_gradient,
            (&input, &weight),
            [parent(0), parent(1)],
            grads,
        );
    }
}

/// `gradient` where `output` is positive (or NaN, as flex's relu passes it), zero elsewhere.
fn relu_gradient(gradient: &[f32], output: &[f32]) -> Vec<f32> {
    const CHUNK: usize = 1 << 14;
    let mut rectified = vec![0.0; gradient.len()];
    rectified
        .par_chunks_mut(CHUNK)
        .zip(gradient.par_chunks(CHUNK))
        .zip(output.par_chunks(CHUNK))
        .for_each(|((out, gradient), output)| pass_where_positive(out, gradient, output));
    rectified
}

vectorised! {
/// `out = gradient` where `output` is positive or NaN, zero elsewhere.
fn pass_where_positive(out: &mut [f32], gradient: &[f32], output: &[f32]) {
    for ((o, &g), &y) in out.iter_mut().zip(gradient).zip(output) {
        *o = if y <= 0.0 { 0.0 } else { g };
    }
}
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_tensors_close as close, test_norm};
    use super::*;
    use burn::tensor::module::conv2d;
    use burn::tensor::ops::ConvOptions;
    use burn::tensor::{Device, Distribution, TensorData};

    /// Burn's own operations, channels first, on channels-last tensors.
    fn burns(
        input: Tensor<4>,
        weight: Tensor<4>,
        norm: &BatchNorm,
        residual: Option<Tensor<4>>,
    ) -> Tensor<4> {
        let padding = weight.dims()[2] / 2;
        let options = ConvOptions::new([1, 1], [padding, padding], [1, 1], 1);
        let convolved = conv2d(input.permute([0, 3, 1, 2]), weight, None, options);
        let normalised = norm.forward(convolved).permute([0, 2, 3, 1]);
        relu(match residual {
            Some(residual) => normalised + residual,
            None => normalised,
        })
    }

    fn norm(device: &Device) -> BatchNorm {
        test_norm(6, device, 5)
    }

    /// (batch, kernel) pairs: 3x3 under and over batch 8 (im2col and Winograd in training,
    /// Winograd at every batch in inference) and 1x1 (im2col).
    const CASES: [(usize, usize); 5] = [(1, 3), (3, 3), (9, 3), (1, 1), (10, 1)];

    /// Inference, with and without a residual.
    #[test]
    fn inference_matches_burns_operations() {
        let device = Device::flex();
        let random = |shape: [usize; 4]| Tensor::<4>::random(shape, Distribution::Default, &device);
        let norm = norm(&device);
        for (batch, kernel) in CASES {
            let input = random([batch, 6, 5, 4]);
            let weight = random([6, 4, kernel, kernel]);
            let residual = random([batch, 6, 5, 6]);
            let shape = fused_shape(&input, &weight, &norm, Some(&residual)).expect("a shape");
            assert!(fused_inference(&shape, &input, &weight, &norm, Some(&residual)).is_some());
            close(
                conv_norm_relu(input.clone(), weight.clone(), &norm, Some(residual.clone())),
                burns(input.clone(), weight.clone(), &norm, Some(residual)),
            );
            close(
                conv_norm_relu(input.clone(), weight.clone(), &norm, None),
                burns(input, weight, &norm, None),
            );
        }
    }

    /// A NaN in the input stays NaN through the fused relu and its gradient, as through
    /// flex's own relu: a diverged network shows as NaN, not as zeros.
    #[test]
    fn nan_passes_through_as_through_burns_relu() {
        for device in [Device::flex(), Device::flex().autodiff()] {
            let mut values = vec![0.5f32; 2 * 6 * 5 * 4];
            values[7] = f32::NAN;
            let input = Tensor::<4>::from_data(TensorData::new(values, [2, 6, 5, 4]), &device);
            let input = if device.is_autodiff() {
                input.require_grad()
            } else {
                input
            };
            let weight = Tensor::<4>::random([6, 4, 3, 3], Distribution::Default, &device);
            let norm = norm(&device);
            let nans = |tensor: Tensor<4>| -> Vec<bool> {
                let data = tensor.into_data();
                let values = data.as_slice::<f32>().expect("f32 values");
                values.iter().map(|value| value.is_nan()).collect()
            };
            let fused = conv_norm_relu(input.clone(), weight.clone(), &norm, None);
            let separate = burns(input.clone(), weight, &norm, None);
            let expected = nans(separate.clone());
            assert!(expected.iter().any(|&nan| nan));
            assert_eq!(nans(fused.clone()), expected);
            if device.is_autodiff() {
                let gradient =
                    |output: Tensor<4>| input.grad(&output.sum().backward()).expect("a gradient");
                assert_eq!(nans(gradient(fused)), nans(gradient(separate)));
            }
        }
    }

    /// relu's gradient against Burn's on outputs that are NaN, negative, zero and positive.
    #[test]
    fn relu_gradient_matches_burns() {
        let device = Device::flex().autodiff();
        let values = vec![f32::NAN, -1.0, 0.0, 2.0];
        let input =
            Tensor::<1>::from_data(TensorData::new(values.clone(), [4]), &device).require_grad();
        let burns = input
            .grad(&relu(input.clone()).sum().backward())
            .expect("a gradient")
            .into_data();
        let outputs: Vec<f32> = values
            .iter()
            .map(|&v| super::super::blocks::relu(v))
            .collect();
        assert_eq!(
            relu_gradient(&[1.0; 4], &outputs),
            burns.as_slice::<f32>().expect("f32 values")
        );
    }

    /// A weight changed by an operation that flex may run in place: the next inference uses
    /// its new values, not the kernels prepared from the old ones.
    #[test]
    fn inference_follows_a_changed_weight() {
        let device = Device::flex();
        let random = |shape: [usize; 4]| Tensor::<4>::random(shape, Distribution::Default, &device);
        let norm = norm(&device);
        let input = random([9, 6, 5, 4]);
        let weight = random([6, 4, 3, 3]);
        let before = conv_norm_relu(input.clone(), weight.clone(), &norm, None);
        close(before, burns(input.clone(), weight.clone(), &norm, None));
        let changed = weight.mul_scalar(-2.0);
        close(
            conv_norm_relu(input.clone(), changed.clone(), &norm, None),
            burns(input, changed, &norm, None),
        );
    }

    /// Training on autodiff flex, with and without a residual: the outputs, the running
    /// statistics and the gradients of every input of a weighted sum of the output.
    #[test]
    fn training_matches_burns_operations() {
        let device = Device::flex().autodiff();
        let random = |shape: [usize; 4]| {
            Tensor::<4>::random(shape, Distribution::Default, &device).require_grad()
        };
        for (batch, kernel) in CASES {
            for with_residual in [true, false] {
                let ours = norm(&device);
                let theirs = norm(&device);
                let input = random([batch, 6, 5, 4]);
                let weight = random([6, 4, kernel, kernel]);
                let residual = with_residual.then(|| random([batch, 6, 5, 6]));
                let probe = Tensor::<4>::random([batch, 6, 5, 6], Distribution::Default, &device);
                // The fused training operation applies (a fallback would pass too).
                assert!(trains(&ours, &device) && on_autodiff_flex(&input).is_some());
                // The output, then the gradients of the input, the weight, the residual, gamma
                // and beta.
                let run = |norm: &BatchNorm, output: Tensor<4>| {
                    let grads = (output.clone() * probe.clone()).sum().backward();
                    let gradient = |tensor: Tensor<4>| tensor.grad(&grads).expect("a gradient");
                    let mut tensors = vec![output.inner(), gradient(input.clone())];
                    tensors.push(gradient(weight.clone()));
                    tensors.extend(residual.clone().map(gradient));
                    let gamma = norm.gamma.val().grad(&grads).expect("gamma");
                    let beta = norm.beta.val().grad(&grads).expect("beta");
                    (tensors, [gamma, beta])
                };
                let fused = run(
                    &ours,
                    conv_norm_relu(input.clone(), weight.clone(), &ours, residual.clone()),
                );
                let separate = run(
                    &theirs,
                    burns(input.clone(), weight.clone(), &theirs, residual.clone()),
                );
                for (fused, separate) in fused.0.into_iter().zip(separate.0) {
                    close(fused, separate);
                }
                for (fused, separate) in fused.1.into_iter().zip(separate.1) {
                    close(fused, separate);
                }
                close(
                    ours.running_mean.value_sync(),
                    theirs.running_mean.value_sync(),
                );
                close(
                    ours.running_var.value_sync(),
                    theirs.running_var.value_sync(),
                );
            }
        }
    }
}
