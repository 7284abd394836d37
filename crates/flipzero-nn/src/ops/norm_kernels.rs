//! Batch normalisation of channels-last (NHWC) f32 buffers: statistics and the
//! normalisation one pass over the activations each, the gradients two (Burn's generic
//! version makes about ten, each with a transpose).

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

    fn image_len(&self) -> usize {
        self.channels * self.positions
    }
}

/// Per-channel sums of `parts(value, other value, channel)` over every square of every image
/// (channels last): each thread sums an image's squares in f32 (a few dozen values per
/// channel) and the images in its own f64 accumulators.
fn channel_sums<const N: usize>(
    shape: &NormShape,
    values: &[f32],
    others: &[f32],
    parts: impl Fn(f32, f32, usize) -> [f32; N] + Sync,
) -> Vec<[f64; N]> {
    let image_len = shape.image_len();
    values
        .par_chunks(image_len)
        .zip(others.par_chunks(image_len))
        .fold(
            || vec![[0.0f64; N]; shape.channels],
            |mut sums, (image, other)| {
                let mut image_sums = vec![[0.0f32; N]; shape.channels];
                for (square, other) in image
                    .chunks_exact(shape.channels)
                    .zip(other.chunks_exact(shape.channels))
                {
                    for (channel, ((&value, &other), sum)) in
                        square.iter().zip(other).zip(&mut image_sums).enumerate()
                    {
                        for (total, part) in sum.iter_mut().zip(parts(value, other, channel)) {
                            *total += part;
                        }
                    }
                }
                for (total, part) in sums.iter_mut().zip(image_sums) {
                    for (t, p) in total.iter_mut().zip(part) {
                        *t += f64::from(p);
                    }
                }
                sums
            },
        )
        .reduce(
            || vec![[0.0f64; N]; shape.channels],
            |mut total, part| {
                for (total, part) in total.iter_mut().zip(part) {
                    for (t, p) in total.iter_mut().zip(part) {
                        *t += p;
                    }
                }
                total
            },
        )
}

/// Each channel's mean and biased variance (the statistics Burn's running averages take).
pub(super) fn statistics(shape: &NormShape, input: &[f32]) -> (Vec<f32>, Vec<f32>) {
    assert_eq!(input.len(), shape.len());
    channel_sums(shape, input, input, |value, _, _| [value, value * value])
        .into_iter()
        .map(|[sum, squares]| {
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
        .par_chunks_mut(shape.image_len())
        .zip(input.par_chunks(shape.image_len()))
        .for_each(|(out, image)| {
            for (out, square) in out
                .chunks_exact_mut(shape.channels)
                .zip(image.chunks_exact(shape.channels))
            {
                for (((o, &v), &scale), &shift) in out.iter_mut().zip(square).zip(scale).zip(shift)
                {
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
    let (beta_gradient, gamma_gradient): (Vec<f32>, Vec<f32>) =
        channel_sums(shape, input, output_gradient, |x, g, channel| {
            [g, (x - mean[channel]) * inverse_deviation[channel] * g]
        })
        .into_iter()
        .map(|[sum, weighted]| (sum as f32, weighted as f32))
        .unzip();
    // Per channel: input gradient = scale * (g - mean_gradient - normalised * projection).
    let count = shape.count() as f32;
    let scale: Vec<f32> = gamma
        .iter()
        .zip(inverse_deviation)
        .map(|(g, i)| g * i)
        .collect();
    let mean_gradient: Vec<f32> = beta_gradient.iter().map(|sum| sum / count).collect();
    let projection: Vec<f32> = gamma_gradient.iter().map(|sum| sum / count).collect();
    let mut input_gradient = vec![0.0; input.len()];
    input_gradient
        .par_chunks_mut(shape.image_len())
        .zip(input.par_chunks(shape.image_len()))
        .zip(output_gradient.par_chunks(shape.image_len()))
        .for_each(|((out, image), gradient)| {
            for ((out, square), gradient) in out
                .chunks_exact_mut(shape.channels)
                .zip(image.chunks_exact(shape.channels))
                .zip(gradient.chunks_exact(shape.channels))
            {
                for (channel, ((o, &x), &g)) in out.iter_mut().zip(square).zip(gradient).enumerate()
                {
                    let normalised = (x - mean[channel]) * inverse_deviation[channel];
                    *o = scale[channel]
                        * (g - mean_gradient[channel] - normalised * projection[channel]);
                }
            }
        });
    (input_gradient, gamma_gradient, beta_gradient)
}
