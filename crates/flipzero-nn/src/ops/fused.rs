//! A convolution, its batch norm, a residual and relu: every convolution of the network is
//! followed by these. In inference on flex they run as one operation, the norm, the residual
//! and relu applied to each block of the convolution's output while it is in the cache;
//! elsewhere (training, other devices) as the separate operations.

use burn::backend::Flex;
use burn::nn::BatchNorm;
use burn::tensor::Tensor;
use burn::tensor::activation::relu;

use super::blocks::{ConvShape, Epilogue};
use super::conv::kernels_for;
use super::norm_kernels::{inverse_deviations, scale_and_shift};
use super::{batch_norm, flex_tensor, on_flex, same_convolution, values};

/// `relu(norm(conv(input)) + residual)` for channels-last `input` [batch, rows, cols,
/// inputs], `weight` [outputs, inputs, k, k] and `residual` (when given) of the output's
/// shape, [batch, rows, cols, outputs].
pub fn conv_norm_relu(
    input: Tensor<4>,
    weight: Tensor<4>,
    norm: &BatchNorm,
    residual: Option<Tensor<4>>,
) -> Tensor<4> {
    if let Some(output) = fused_inference(&input, &weight, norm, residual.as_ref()) {
        return output;
    }
    let normalised = batch_norm(norm, same_convolution(input, weight));
    relu(match residual {
        Some(residual) => normalised + residual,
        None => normalised,
    })
}

/// The fused operation when every tensor is on flex without autodiff (so the norm uses its
/// running statistics), the shapes agree and none is empty.
fn fused_inference(
    input: &Tensor<4>,
    weight: &Tensor<4>,
    norm: &BatchNorm,
    residual: Option<&Tensor<4>>,
) -> Option<Tensor<4>> {
    let [batch, rows, cols, inputs] = input.dims();
    let [outputs, weight_inputs, kernel, kernel_cols] = weight.dims();
    let output_dims = [batch, rows, cols, outputs];
    let fits = weight_inputs == inputs
        && kernel == kernel_cols
        && kernel % 2 == 1
        && norm.gamma.dims() == [outputs]
        && residual.is_none_or(|residual| residual.dims() == output_dims)
        && batch * rows * cols * inputs * outputs > 0;
    if !fits {
        return None;
    }
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
    let shape = ConvShape {
        batch,
        inputs,
        outputs,
        rows,
        cols,
        kernel,
    };
    let output = (kernels_for(&shape).forward)(&shape, &values(&x), &values(&w), Some(&epilogue));
    Some(Tensor::from_primitive::<Flex>(flex_tensor(
        output,
        output_dims,
    )))
}

#[cfg(test)]
mod tests {
    use super::super::testing::assert_tensors_close as close;
    use super::*;
    use burn::module::Param;
    use burn::nn::BatchNormConfig;
    use burn::tensor::module::conv2d;
    use burn::tensor::ops::ConvOptions;
    use burn::tensor::{Device, Distribution};

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

    /// Inference with a norm whose parameters and statistics are not the defaults, with and
    /// without a residual, at batches of the im2col and the Winograd kernels, 3x3 and 1x1.
    #[test]
    fn inference_matches_burns_operations() {
        let device = Device::flex();
        let random = |shape: [usize; 4]| Tensor::<4>::random(shape, Distribution::Default, &device);
        let vector =
            |low, high| Tensor::<1>::random([6], Distribution::Uniform(low, high), &device);
        let mut norm = BatchNormConfig::new(6).init(&device);
        norm.gamma = Param::from_tensor(vector(0.5, 1.5));
        norm.beta = Param::from_tensor(vector(-1.0, 1.0));
        norm.running_mean.update(vector(-1.0, 1.0));
        norm.running_var.update(vector(0.5, 2.0));
        for (batch, kernel) in [(1, 3), (3, 3), (9, 3), (1, 1), (10, 1)] {
            let input = random([batch, 6, 5, 4]);
            let weight = random([6, 4, kernel, kernel]);
            let residual = random([batch, 6, 5, 6]);
            assert!(fused_inference(&input, &weight, &norm, Some(&residual)).is_some());
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
}
