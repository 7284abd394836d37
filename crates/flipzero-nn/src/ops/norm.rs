//! Batch normalisation of the network's channels-last [batch, rows, cols, channels]
//! activations, with the same behaviour as Burn's `BatchNorm::forward` (batch statistics and
//! running averages in training on an autodiff device, running statistics otherwise), run by
//! the one-pass kernels of [`kernels`] on flex.

use burn::backend::Flex;
use burn::backend::autodiff::NodeId;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::{Autodiff, flex::FlexTensor};
use burn::nn::BatchNorm;
use burn::tensor::{Device, Tensor, TensorData};

use super::norm_kernels::{self as kernels, NormShape};
use super::{flex_tensor, on_autodiff_flex, on_flex, values};

/// `norm` applied to `input`, [batch, rows, cols, channels].
pub fn batch_norm(norm: &BatchNorm, input: Tensor<4>) -> Tensor<4> {
    let [batch, rows, cols, channels] = input.dims();
    let shape = NormShape {
        batch,
        channels,
        positions: rows * cols,
    };
    let gamma = norm.gamma.val();
    let beta = norm.beta.val();
    let [features] = gamma.dims();
    assert_eq!(
        channels, features,
        "batch norm of {features} features applied to {channels} channels"
    );
    if batch * channels * rows * cols == 0 {
        return burn_norm(norm, input);
    }
    let device = input.device();
    if trains(norm, &device) {
        let (Some(x), Some(g), Some(b)) = (
            on_autodiff_flex(&input),
            on_autodiff_flex(&gamma),
            on_autodiff_flex(&beta),
        ) else {
            return burn_norm(norm, input);
        };
        let x_values = values(x.primitive());
        let (mean, variance) = kernels::statistics(&shape, &x_values);
        let inverse_deviation = kernels::inverse_deviations(&variance, norm.epsilon);
        let (scale, shift) = kernels::scale_and_shift(
            &mean,
            &inverse_deviation,
            &values(g.primitive()),
            &values(b.primitive()),
        );
        let normalised = flex_tensor(
            kernels::affine(&shape, &x_values, &scale, &shift),
            [batch, rows, cols, channels],
        );
        drop(x_values);
        let output = match TrainingNorm
            .prepare::<NoCheckpointing>([x.node(), g.node(), b.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(mut prep) => {
                let state = NormState {
                    input: prep.checkpoint(&x),
                    gamma: prep.checkpoint(&g),
                    dims: [batch, rows, cols, channels],
                    mean: mean.clone(),
                    inverse_deviation,
                };
                prep.finish(state, normalised)
            }
            OpsKind::UnTracked(prep) => prep.finish(normalised),
        };
        update_running_statistics(norm, mean, variance, &device);
        return Tensor::from_primitive::<Autodiff<Flex>>(output);
    }
    let running_mean = norm.running_mean.value();
    let running_var = norm.running_var.value();
    if let (Some(x), Some(g), Some(b), Some(mean), Some(variance)) = (
        on_flex(&input),
        on_flex(&gamma),
        on_flex(&beta),
        on_flex(&running_mean),
        on_flex(&running_var),
    ) {
        let inverse_deviation = kernels::inverse_deviations(&values(&variance), norm.epsilon);
        let (scale, shift) =
            kernels::scale_and_shift(&values(&mean), &inverse_deviation, &values(&g), &values(&b));
        let output = kernels::affine(&shape, &values(&x), &scale, &shift);
        return Tensor::from_primitive::<Flex>(flex_tensor(output, [batch, rows, cols, channels]));
    }
    burn_norm(norm, input)
}

/// Whether `norm` normalises with batch statistics on `device`, as `BatchNorm::forward` does:
/// in training, on an autodiff device.
pub(super) fn trains(norm: &BatchNorm, device: &Device) -> bool {
    device.is_autodiff() && norm.training.is_enabled()
}

/// Moves `norm`'s running averages towards a batch's `mean` and `variance`, as
/// `BatchNorm::forward` does.
pub(super) fn update_running_statistics(
    norm: &BatchNorm,
    mean: Vec<f32>,
    variance: Vec<f32>,
    device: &Device,
) {
    let update = |running: &burn::module::RunningState<Tensor<1>>, batch_value: Vec<f32>| {
        let channels = batch_value.len();
        let batch_value = Tensor::<1>::from_data(TensorData::new(batch_value, [channels]), device);
        let value = running
            .value_sync()
            .to_device(device)
            .mul_scalar(1.0 - norm.momentum)
            .add(batch_value.mul_scalar(norm.momentum));
        running.update(value.detach());
    };
    update(&norm.running_mean, mean);
    update(&norm.running_var, variance);
}

/// Burn's own normalisation of channels-last `input` (which takes channels first).
fn burn_norm(norm: &BatchNorm, input: Tensor<4>) -> Tensor<4> {
    norm.forward(input.permute([0, 3, 1, 2]))
        .permute([0, 2, 3, 1])
}

/// What the backward step of a training-mode normalisation keeps.
#[derive(Clone, Debug)]
struct NormState {
    input: NodeId,
    gamma: NodeId,
    dims: [usize; 4],
    mean: Vec<f32>,
    inverse_deviation: Vec<f32>,
}

/// The backward step of a training-mode normalisation on autodiff flex.
#[derive(Debug)]
struct TrainingNorm;

impl Backward<Flex, 3> for TrainingNorm {
    type State = NormState;

    fn backward(
        self,
        ops: Ops<Self::State, 3>,
        grads: &mut Gradients,
        checkpointer: &mut Checkpointer,
    ) {
        let [input_node, gamma_node, beta_node] = ops.parents;
        let output_gradient = grads.consume::<Flex>(&ops.node);
        let state = ops.state;
        let [batch, rows, cols, channels] = state.dims;
        let shape = NormShape {
            batch,
            channels,
            positions: rows * cols,
        };
        let input = checkpointer.retrieve_node_output::<FlexTensor>(state.input);
        let gamma = checkpointer.retrieve_node_output::<FlexTensor>(state.gamma);
        let (input_gradient, gamma_gradient, beta_gradient) = kernels::gradients(
            &shape,
            &values(&input),
            &values(&output_gradient),
            &state.mean,
            &state.inverse_deviation,
            &values(&gamma),
        );
        if let Some(node) = input_node {
            grads.register::<Flex>(node.id, flex_tensor(input_gradient, state.dims));
        }
        if let Some(node) = gamma_node {
            grads.register::<Flex>(node.id, flex_tensor(gamma_gradient, [channels]));
        }
        if let Some(node) = beta_node {
            grads.register::<Flex>(node.id, flex_tensor(beta_gradient, [channels]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_tensors_close as close, test_norm};
    use super::*;
    use burn::tensor::Distribution;

    fn norm(device: &Device) -> BatchNorm {
        test_norm(5, device, 11)
    }

    /// Inference with running statistics, against Burn's `BatchNorm::forward`.
    #[test]
    fn inference_matches_burn() {
        let device = Device::flex();
        let norm = norm(&device);
        let input = Tensor::<4>::random([7, 6, 6, 5], Distribution::Normal(1.0, 2.0), &device);
        close(batch_norm(&norm, input.clone()), burn_norm(&norm, input));
    }

    /// Training: outputs, running statistics and the gradients of input, gamma and beta against
    /// Burn's `BatchNorm::forward` on autodiff flex.
    #[test]
    fn training_matches_burn() {
        let device = Device::flex().autodiff();
        let ours = norm(&device);
        let burns = norm(&device);
        let input = Tensor::<4>::random([7, 6, 6, 5], Distribution::Normal(1.0, 2.0), &device)
            .require_grad();
        let probe = Tensor::<4>::random([7, 6, 6, 5], Distribution::Default, &device);
        let run = |norm: &BatchNorm, output: Tensor<4>| {
            let grads = (output.clone() * probe.clone()).sum().backward();
            (
                output,
                input.grad(&grads).expect("input"),
                norm.gamma.val().grad(&grads).expect("gamma"),
                norm.beta.val().grad(&grads).expect("beta"),
            )
        };
        let (expected, expected_input, expected_gamma, expected_beta) =
            run(&burns, burn_norm(&burns, input.clone()));
        let (output, input_grad, gamma_grad, beta_grad) =
            run(&ours, batch_norm(&ours, input.clone()));
        close(output.inner(), expected.inner());
        close(input_grad, expected_input);
        close(gamma_grad, expected_gamma);
        close(beta_grad, expected_beta);
        close(
            ours.running_mean.value_sync(),
            burns.running_mean.value_sync(),
        );
        close(
            ours.running_var.value_sync(),
            burns.running_var.value_sync(),
        );
    }
}
