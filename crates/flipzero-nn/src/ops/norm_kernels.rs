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

/// Per-channel pairs of sums over every image: `add(image, other image, first sums, second
/// sums)` adds one image's (channels last) into f32 sums (a few dozen values per channel),
/// which each thread then adds into its own f64 accumulators.
fn channel_sums(
    shape: &NormShape,
    values: &[f32],
    others: &[f32],
    add: impl Fn(&[f32], &[f32], &mut [f32], &mut [f32]) + Sync,
) -> Vec<[f64; 2]> {
    let image_len = shape.image_len();
    values
        .par_chunks(image_len)
        .zip(others.par_chunks(image_len))
        .fold(
            || vec![[0.0f64; 2]; shape.channels],
            |mut sums, (image, other)| {
                let mut first = vec![0.0f32; shape.channels];
                let mut second = vec![0.0f32; shape.channels];
                add(image, other, &mut first, &mut second);
                for ((total, first), second) in sums.iter_mut().zip(first).zip(second) {
                    total[0] += f64::from(first);
                    total[1] += f64::from(second);
                }
                sums
            },
        )
        .reduce(
            || vec![[0.0f64; 2]; shape.channels],
            |mut total, part| {
                for (total, part) in total.iter_mut().zip(part) {
                    total[0] += part[0];
                    total[1] += part[1];
                }
                total
            },
        )
}

vectorised! {
/// Adds each channel's values and squared values over the squares of `image` into `sums`
/// and `squares`.
fn add_moments(image: &[f32], _unused: &[f32], sums: &mut [f32], squares: &mut [f32]) {
    for square in image.chunks_exact(sums.len()) {
        for ((sum, squared), &x) in sums.iter_mut().zip(squares.iter_mut()).zip(square) {
            *sum += x;
            *squared += x * x;
        }
    }
}
}

/// Each channel's mean and biased variance (the statistics Burn's running averages take).
pub(super) fn statistics(shape: &NormShape, input: &[f32]) -> (Vec<f32>, Vec<f32>) {
    assert_eq!(input.len(), shape.len());
    channel_sums(shape, input, input, add_moments)
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

vectorised! {
/// `out = a[channel] * x + b[channel] * y + c[channel]` over the squares of `x` and `y`
/// (channels last, `y` ignored where `b` is empty).
fn linear_per_channel(x: &[f32], y: &[f32], coefficients: [&[f32]; 3], out: &mut [f32]) {
    let [a, b, c] = coefficients;
    let channels = a.len();
    if b.is_empty() {
        for (out, x) in out.chunks_exact_mut(channels).zip(x.chunks_exact(channels)) {
            for (((o, &x), &a), &c) in out.iter_mut().zip(x).zip(a).zip(c) {
                *o = a * x + c;
            }
        }
    } else {
        for ((out, x), y) in out
            .chunks_exact_mut(channels)
            .zip(x.chunks_exact(channels))
            .zip(y.chunks_exact(channels))
        {
            for (((((o, &x), &y), &a), &b), &c) in
                out.iter_mut().zip(x).zip(y).zip(a).zip(b).zip(c)
            {
                *o = a * x + b * y + c;
            }
        }
    }
}
}

/// [`linear_per_channel`] over every image, in parallel, into a new buffer (`y` ignored
/// where `b` is empty).
fn per_channel(shape: &NormShape, x: &[f32], y: &[f32], coefficients: [&[f32]; 3]) -> Vec<f32> {
    let image_len = shape.image_len();
    let y = if coefficients[1].is_empty() { x } else { y };
    assert!(x.len() == shape.len() && y.len() == shape.len());
    let mut output = vec![0.0; shape.len()];
    output
        .par_chunks_mut(image_len)
        .zip(x.par_chunks(image_len))
        .zip(y.par_chunks(image_len))
        .for_each(|((out, x), y)| linear_per_channel(x, y, coefficients, out));
    output
}

/// `output = input * scale[channel] + shift[channel]`.
pub(super) fn affine(shape: &NormShape, input: &[f32], scale: &[f32], shift: &[f32]) -> Vec<f32> {
    per_channel(shape, input, &[], [scale, &[], shift])
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

vectorised! {
/// Adds each channel's output gradient `g` into `sums` and `g` times the normalised input,
/// `(x - mean) * inverse_deviation`, into `weighted`.
fn add_gradient_sums(
    image: &[f32],
    gradient: &[f32],
    statistics: (&[f32], &[f32]),
    sums: &mut [f32],
    weighted: &mut [f32],
) {
    let (mean, inverse_deviation) = statistics;
    let channels = sums.len();
    for (square, gradient) in image.chunks_exact(channels).zip(gradient.chunks_exact(channels)) {
        for (((((sum, weighted), &x), &g), &mean), &inverse) in sums
            .iter_mut()
            .zip(weighted.iter_mut())
            .zip(square)
            .zip(gradient)
            .zip(mean)
            .zip(inverse_deviation)
        {
            *sum += g;
            *weighted += (x - mean) * inverse * g;
        }
    }
}
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
    let (beta_gradient, gamma_gradient): (Vec<f32>, Vec<f32>) = channel_sums(
        shape,
        input,
        output_gradient,
        |image, gradient, sums, weighted| {
            add_gradient_sums(image, gradient, (mean, inverse_deviation), sums, weighted)
        },
    )
    .into_iter()
    .map(|[sum, weighted]| (sum as f32, weighted as f32))
    .unzip();
    // Per channel, with n values, s = gamma * inverse deviation and normalised input
    // x^ = (x - mean) * inverse deviation, the input gradient
    // s * (g - sum(g) / n - x^ * sum(g x^) / n) is a g + b x + c.
    let count = shape.count() as f32;
    let mut a = Vec::with_capacity(shape.channels);
    let mut b = Vec::with_capacity(shape.channels);
    let mut c = Vec::with_capacity(shape.channels);
    for channel in 0..shape.channels {
        let scale = gamma[channel] * inverse_deviation[channel];
        let projection = gamma_gradient[channel] / count * inverse_deviation[channel];
        a.push(scale);
        b.push(-scale * projection);
        c.push(scale * (projection * mean[channel] - beta_gradient[channel] / count));
    }
    let input_gradient = per_channel(shape, output_gradient, input, [&a, &b, &c]);
    (input_gradient, gamma_gradient, beta_gradient)
}
