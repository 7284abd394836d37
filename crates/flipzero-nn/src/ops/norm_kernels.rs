//! Batch normalisation of channels-first (NCHW) f32 buffers: statistics, the normalisation
//! itself and its gradients, each one pass over the activations (Burn's generic version
//! makes about ten, each with a transpose).

use rayon::prelude::*;

/// The shape of a normalised activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NormShape {
    /// Images in the batch.
    pub(super) batch: usize,
    /// Channels (each normalised on its own).
    pub(super) channels: usize,
    /// Squares of each image.
    pub(super) positions: usize,
}

impl NormShape {
    fn len(&self) -> usize {
        self.batch * self.channels * self.positions
    }

    /// Values per channel.
    fn count(&self) -> f64 {
        (self.batch * self.positions) as f64
    }

    /// The planes (one image, one channel) of `channel`.
    fn planes<'a>(&self, values: &'a [f32], channel: usize) -> impl Iterator<Item = &'a [f32]> {
        let (channels, positions) = (self.channels, self.positions);
        (0..self.batch).map(move |image| {
            let at = (image * channels + channel) * positions;
            &values[at..at + positions]
        })
    }
}

/// Each channel's mean and biased variance (the statistics Burn's running averages take).
pub(super) fn statistics(shape: &NormShape, input: &[f32]) -> (Vec<f32>, Vec<f32>) {
    assert_eq!(input.len(), shape.len());
    (0..shape.channels)
        .into_par_iter()
        .map(|channel| {
            let (mut sum, mut squares) = (0.0f64, 0.0f64);
            for plane in shape.planes(input, channel) {
                // f32 partial sums per plane (a few dozen values), f64 across planes.
                sum += f64::from(plane.iter().sum::<f32>());
                squares += f64::from(plane.iter().map(|v| v * v).sum::<f32>());
            }
            let mean = sum / shape.count();
            let variance = (squares / shape.count() - mean * mean).max(0.0);
            (mean as f32, variance as f32)
        })
        .unzip()
}

/// `1 / sqrt(variance + epsilon)` per channel.
pub(super) fn inverse_deviations(variance: &[f32], epsilon: f64) -> Vec<f32> {
    variance
        .iter()
        .map(|&v| (1.0 / (f64::from(v) + epsilon).sqrt()) as f32)
        .collect()
}

/// `output = input * scale[channel] + shift[channel]`.
pub(super) fn affine(shape: &NormShape, input: &[f32], scale: &[f32], shift: &[f32]) -> Vec<f32> {
    assert_eq!(input.len(), shape.len());
    let mut output = vec![0.0; input.len()];
    output
        .par_chunks_mut(shape.channels * shape.positions)
        .zip(input.par_chunks(shape.channels * shape.positions))
        .for_each(|(out, image)| {
            for (((out, plane), &scale), &shift) in out
                .chunks_exact_mut(shape.positions)
                .zip(image.chunks_exact(shape.positions))
                .zip(scale)
                .zip(shift)
            {
                for (o, &v) in out.iter_mut().zip(plane) {
                    *o = v * scale + shift;
                }
            }
        });
    output
}

/// The scale and shift that normalise with `mean` and `inverse_deviation` and then apply
/// `gamma` and `beta`.
pub(super) fn scale_and_shift(
    mean: &[f32],
    inverse_deviation: &[f32],
    gamma: &[f32],
    beta: &[f32],
) -> (Vec<f32>, Vec<f32>) {
    mean.iter()
        .zip(inverse_deviation)
        .zip(gamma.iter().zip(beta))
        .map(|((&mean, &inverse), (&gamma, &beta))| {
            let scale = gamma * inverse;
            (scale, beta - mean * scale)
        })
        .unzip()
}

/// Gradients of a training-mode normalisation (batch statistics) from the output's: those of
/// the input, of gamma and of beta.
pub(super) fn gradients(
    shape: &NormShape,
    input: &[f32],
    output_gradient: &[f32],
    mean: &[f32],
    inverse_deviation: &[f32],
    gamma: &[f32],
) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    assert_eq!(input.len(), shape.len());
    assert_eq!(output_gradient.len(), shape.len());
    // Per channel: the sum of the output gradient (beta's gradient) and of the output gradient
    // times the normalised input (gamma's).
    let (beta_gradient, gamma_gradient): (Vec<f32>, Vec<f32>) = (0..shape.channels)
        .into_par_iter()
        .map(|channel| {
            let (mean, inverse) = (mean[channel], inverse_deviation[channel]);
            let (mut sum, mut weighted) = (0.0f64, 0.0f64);
            for (plane, gradient) in shape
                .planes(input, channel)
                .zip(shape.planes(output_gradient, channel))
            {
                sum += f64::from(gradient.iter().sum::<f32>());
                weighted += f64::from(
                    plane
                        .iter()
                        .zip(gradient)
                        .map(|(&x, &g)| (x - mean) * inverse * g)
                        .sum::<f32>(),
                );
            }
            (sum as f32, weighted as f32)
        })
        .unzip();
    let count = shape.count() as f32;
    let mut input_gradient = vec![0.0; input.len()];
    input_gradient
        .par_chunks_mut(shape.channels * shape.positions)
        .zip(input.par_chunks(shape.channels * shape.positions))
        .zip(output_gradient.par_chunks(shape.channels * shape.positions))
        .for_each(|((out, image), gradient)| {
            for (channel, ((out, plane), gradient)) in out
                .chunks_exact_mut(shape.positions)
                .zip(image.chunks_exact(shape.positions))
                .zip(gradient.chunks_exact(shape.positions))
                .enumerate()
            {
                let (mean, inverse) = (mean[channel], inverse_deviation[channel]);
                let scale = gamma[channel] * inverse;
                let mean_gradient = beta_gradient[channel] / count;
                let projection = gamma_gradient[channel] / count;
                for ((o, &x), &g) in out.iter_mut().zip(plane).zip(gradient) {
                    let normalised = (x - mean) * inverse;
                    *o = scale * (g - mean_gradient - normalised * projection);
                }
            }
        });
    (input_gradient, gamma_gradient, beta_gradient)
}
