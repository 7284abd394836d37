//! "Same"-padded, stride-1 convolutions with square odd kernels on channels-first (NCHW) f32
//! buffers, as one GEMM per block of images.
//!
//! Burn's flex backend runs a convolution as one small GEMM per image (32 to 64 rows on our
//! boards), which spends most of its time packing and in im2col. Here a block of images is
//! turned channels-last, unrolled (im2col) into one matrix of a few hundred rows and multiplied
//! once; blocks run in parallel on the current rayon pool. The backward passes reuse the same
//! pieces: the input gradient is a forward convolution of the output gradient with the kernel
//! flipped, the weight gradient a GEMM of the unrolled input with the output gradient.

use std::cell::RefCell;

use rayon::prelude::*;

/// Rows (positions) of one block's GEMM: large enough for the GEMM kernels to run near their
/// peak, small enough for a block's buffers to stay in the L2 cache.
const BLOCK_ROWS: usize = 256;

/// The shape of one convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ConvShape {
    /// Images in the batch.
    pub(super) batch: usize,
    /// Input channels.
    pub(super) inputs: usize,
    /// Output channels.
    pub(super) outputs: usize,
    /// Rows of each image.
    pub(super) rows: usize,
    /// Columns of each image.
    pub(super) cols: usize,
    /// Side of the square kernel (odd).
    pub(super) kernel: usize,
}

impl ConvShape {
    fn positions(&self) -> usize {
        self.rows * self.cols
    }

    fn taps(&self) -> usize {
        self.kernel * self.kernel
    }

    fn images_per_block(&self) -> usize {
        (BLOCK_ROWS / self.positions()).max(1)
    }

    /// The shape of the input-gradient convolution: inputs and outputs swapped.
    fn transposed(&self) -> Self {
        Self {
            inputs: self.outputs,
            outputs: self.inputs,
            ..*self
        }
    }
}

/// A thread's buffers for the block it works on, kept from one convolution to the next.
#[derive(Default)]
struct Scratch {
    /// The block channels-last in zero-bordered frames.
    frames: Vec<f32>,
    /// (rows, columns, channels) of the frames whose zero borders `frames` holds.
    frame_shape: (usize, usize, usize),
    unrolled: Vec<f32>,
    product: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `work` with this thread's scratch buffers (not re-entrant: `work` must not start
/// another block on this thread, which it does not, the GEMMs being single-threaded).
fn with_scratch<R>(work: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with_borrow_mut(work)
}

/// The first `len` values of `buffer`, grown (never shrunk, so that blocks of different
/// sizes do not refill it) to hold them. Callers overwrite what they use.
fn grown(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// `matrix[c * positions + p]` (one image, channels first) into `out[p * channels + c]`.
fn to_channels_last(matrix: &[f32], channels: usize, positions: usize, out: &mut [f32]) {
    for (c, plane) in matrix.chunks_exact(positions).enumerate().take(channels) {
        for (p, &value) in plane.iter().enumerate() {
            out[p * channels + c] = value;
        }
    }
}

/// `rows[p * channels + c]` (one image, channels last) into `out[c * positions + p]`.
fn to_channels_first(rows: &[f32], channels: usize, positions: usize, out: &mut [f32]) {
    for (p, row) in rows.chunks_exact(channels).enumerate().take(positions) {
        for (c, &value) in row.iter().enumerate() {
            out[c * positions + p] = value;
        }
    }
}

/// `dst = lhs (m x k) * rhs (k x n)` (or `dst += ...` when `accumulate`), all row-major with
/// the given row strides, except that `lhs_transposed` reads `lhs` as the transpose of a
/// row-major k x m matrix.
#[allow(clippy::too_many_arguments)]
fn matmul(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    accumulate: bool,
    lhs: &[f32],
    lhs_transposed: bool,
    rhs: &[f32],
) {
    assert!(dst.len() >= m * n && lhs.len() >= m * k && rhs.len() >= k * n);
    let (lhs_col_stride, lhs_row_stride) = if lhs_transposed {
        (m as isize, 1)
    } else {
        (1, k as isize)
    };
    // SAFETY: the assertion above keeps every index of the three matrices, read with these
    // strides, inside its slice; `dst` does not alias the inputs (a `&mut` borrow).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_col_stride,
            lhs_row_stride,
            rhs.as_ptr(),
            1,
            n as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Unrolls a block of channels-first images into `scratch.unrolled`, one row of
/// `taps * inputs` values per position: for each kernel tap, the channels of the square it
/// reads, or zeros beyond the board. Returns the block's positions.
///
/// The images are first copied channels-last into a zero-bordered frame, so that the
/// `kernel` taps of one kernel row are `kernel * inputs` consecutive values of the frame.
fn unroll_block(shape: &ConvShape, block: &[f32], scratch: &mut Scratch) -> usize {
    let (channels, positions, kernel) = (shape.inputs, shape.positions(), shape.kernel);
    let reach = kernel / 2;
    let (frame_rows, frame_cols) = (shape.rows + 2 * reach, shape.cols + 2 * reach);
    let frame_len = frame_rows * frame_cols * channels;
    let images = block.len() / (channels * positions);
    // Only the frames' insides are written below: their borders stay zero while the frame
    // shape stays the same.
    if scratch.frame_shape != (frame_rows, frame_cols, channels) {
        scratch.frames.clear();
        scratch.frame_shape = (frame_rows, frame_cols, channels);
    }
    if scratch.frames.len() < images * frame_len {
        scratch.frames.resize(images * frame_len, 0.0);
    }
    let frames = &mut scratch.frames[..images * frame_len];
    for (image, frame) in block
        .chunks_exact(channels * positions)
        .zip(frames.chunks_exact_mut(frame_len))
    {
        for (c, plane) in image.chunks_exact(positions).enumerate() {
            for (y, line) in plane.chunks_exact(shape.cols).enumerate() {
                let start = ((y + reach) * frame_cols + reach) * channels + c;
                for (x, &value) in line.iter().enumerate() {
                    frame[start + x * channels] = value;
                }
            }
        }
    }
    let span = kernel * channels;
    let width = kernel * span;
    let mut rows = grown(&mut scratch.unrolled, images * positions * width).chunks_exact_mut(width);
    for frame in scratch.frames[..images * frame_len].chunks_exact(frame_len) {
        for y in 0..shape.rows {
            for x in 0..shape.cols {
                let row = rows.next().expect("one unrolled row per position");
                for (kernel_row, out) in row.chunks_exact_mut(span).enumerate() {
                    let at = ((y + kernel_row) * frame_cols + x) * channels;
                    out.copy_from_slice(&frame[at..at + span]);
                }
            }
        }
    }
    images * positions
}

/// A kernel [outputs, inputs, k, k] as the GEMM's right-hand side: row `(tap, input)`,
/// column `output`; `flipped` rotates each kernel by 180 degrees and swaps inputs and outputs
/// (the kernel of the input gradient).
fn gemm_weights(shape: &ConvShape, weight: &[f32], flipped: bool) -> Vec<f32> {
    let taps = shape.taps();
    let mut out = vec![0.0; weight.len()];
    for o in 0..shape.outputs {
        for i in 0..shape.inputs {
            for tap in 0..taps {
                let value = weight[(o * shape.inputs + i) * taps + tap];
                let at = if flipped {
                    ((taps - 1 - tap) * shape.outputs + o) * shape.inputs + i
                } else {
                    (tap * shape.inputs + i) * shape.outputs + o
                };
                out[at] = value;
            }
        }
    }
    out
}

/// The convolution of `input` [batch, inputs, rows, cols] with a `[k*k*inputs, outputs]`
/// GEMM kernel, into [batch, outputs, rows, cols].
fn convolve(shape: &ConvShape, input: &[f32], kernel: &[f32]) -> Vec<f32> {
    let positions = shape.positions();
    assert_eq!(input.len(), shape.batch * shape.inputs * positions);
    let mut output = vec![0.0; shape.batch * shape.outputs * positions];
    let images = shape.images_per_block();
    input
        .par_chunks(images * shape.inputs * positions)
        .zip(output.par_chunks_mut(images * shape.outputs * positions))
        .for_each(|(block, out)| {
            with_scratch(|scratch| {
                let rows = unroll_block(shape, block, scratch);
                let product = grown(&mut scratch.product, rows * shape.outputs);
                let width = shape.taps() * shape.inputs;
                matmul(
                    (rows, shape.outputs, width),
                    product,
                    false,
                    &scratch.unrolled[..rows * width],
                    false,
                    kernel,
                );
                let image_out = shape.outputs * positions;
                for (rows, out) in product
                    .chunks_exact(positions * shape.outputs)
                    .zip(out.chunks_exact_mut(image_out))
                {
                    to_channels_first(rows, shape.outputs, positions, out);
                }
            })
        });
    output
}

/// The forward convolution: `input` [batch, inputs, rows, cols], `weight`
/// [outputs, inputs, k, k], output [batch, outputs, rows, cols].
pub(super) fn forward(shape: &ConvShape, input: &[f32], weight: &[f32]) -> Vec<f32> {
    assert_eq!(weight.len(), shape.outputs * shape.inputs * shape.taps());
    convolve(shape, input, &gemm_weights(shape, weight, false))
}

/// The gradient of the input, [batch, inputs, rows, cols], from the output's.
pub(super) fn input_gradient(shape: &ConvShape, output_gradient: &[f32], weight: &[f32]) -> Vec<f32> {
    assert_eq!(weight.len(), shape.outputs * shape.inputs * shape.taps());
    convolve(
        &shape.transposed(),
        output_gradient,
        &gemm_weights(shape, weight, true),
    )
}

/// The gradient of the weight, [outputs, inputs, k, k], from the input and the output's
/// gradient.
pub(super) fn weight_gradient(shape: &ConvShape, input: &[f32], output_gradient: &[f32]) -> Vec<f32> {
    let positions = shape.positions();
    assert_eq!(input.len(), shape.batch * shape.inputs * positions);
    assert_eq!(
        output_gradient.len(),
        shape.batch * shape.outputs * positions
    );
    let width = shape.taps() * shape.inputs;
    let images = shape.images_per_block();
    // Each thread sums its blocks' products into its own [width, outputs] matrix.
    let summed = input
        .par_chunks(images * shape.inputs * positions)
        .zip(output_gradient.par_chunks(images * shape.outputs * positions))
        .fold(
            || vec![0.0; width * shape.outputs],
            |mut sum, (block, gradient)| {
                with_scratch(|scratch| {
                    let rows = unroll_block(shape, block, scratch);
                    let product = grown(&mut scratch.product, rows * shape.outputs);
                    let image_len = shape.outputs * positions;
                    for (image, out) in gradient
                        .chunks_exact(image_len)
                        .zip(product.chunks_exact_mut(image_len))
                    {
                        to_channels_last(image, shape.outputs, positions, out);
                    }
                    matmul(
                        (width, shape.outputs, rows),
                        &mut sum,
                        true,
                        &scratch.unrolled[..rows * width],
                        true,
                        product,
                    );
                });
                sum
            },
        )
        .reduce(
            || vec![0.0; width * shape.outputs],
            |mut total, part| {
                total.iter_mut().zip(&part).for_each(|(t, p)| *t += p);
                total
            },
        );
    let taps = shape.taps();
    let mut gradient = vec![0.0; shape.outputs * width];
    for o in 0..shape.outputs {
        for i in 0..shape.inputs {
            for tap in 0..taps {
                gradient[(o * shape.inputs + i) * taps + tap] =
                    summed[(tap * shape.inputs + i) * shape.outputs + o];
            }
        }
    }
    gradient
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Visits every multiply-add of the direct convolution: `(input index, weight index,
    /// output index)`.
    fn each_product(shape: &ConvShape, mut visit: impl FnMut(usize, usize, usize)) {
        let (h, w, k) = (shape.rows as isize, shape.cols as isize, shape.kernel);
        let reach = (k / 2) as isize;
        for n in 0..shape.batch {
            for o in 0..shape.outputs {
                for y in 0..h {
                    for x in 0..w {
                        let out = ((n * shape.outputs + o) * shape.rows + y as usize) * shape.cols
                            + x as usize;
                        for i in 0..shape.inputs {
                            for ky in 0..k {
                                for kx in 0..k {
                                    let sy = y + ky as isize - reach;
                                    let sx = x + kx as isize - reach;
                                    if (0..h).contains(&sy) && (0..w).contains(&sx) {
                                        let at = ((n * shape.inputs + i) * shape.rows
                                            + sy as usize)
                                            * shape.cols
                                            + sx as usize;
                                        visit(at, ((o * shape.inputs + i) * k + ky) * k + kx, out);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Direct convolution, one multiply-add at a time.
    fn reference(shape: &ConvShape, input: &[f32], weight: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; shape.batch * shape.outputs * shape.positions()];
        each_product(shape, |i, w, o| out[o] += input[i] * weight[w]);
        out
    }

    fn values(count: usize, seed: u32) -> Vec<f32> {
        (0..count as u32)
            .map(|i| {
                ((i.wrapping_mul(2_654_435_761).wrapping_add(seed)) % 1000) as f32 / 500.0 - 1.0
            })
            .collect()
    }

    fn assert_close(actual: &[f32], expected: &[f32]) {
        assert_eq!(actual.len(), expected.len());
        for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
            assert!(
                (a - e).abs() <= 1e-3 * (1.0 + e.abs()),
                "element {index}: {a} against {e}"
            );
        }
    }

    /// Shapes with blocks of one and several images, a partial last block, 1x1, 3x3 and 5x5
    /// kernels and boards that are not square.
    fn shapes() -> Vec<ConvShape> {
        let shape = |batch, inputs, outputs, rows, cols, kernel| ConvShape {
            batch,
            inputs,
            outputs,
            rows,
            cols,
            kernel,
        };
        vec![
            shape(1, 3, 4, 6, 6, 3),
            shape(17, 5, 7, 6, 6, 3),
            shape(9, 4, 2, 8, 8, 1),
            shape(5, 3, 6, 4, 7, 5),
            shape(3, 2, 3, 17, 17, 3),
        ]
    }

    #[test]
    fn forward_matches_the_direct_convolution() {
        for shape in shapes() {
            let input = values(shape.batch * shape.inputs * shape.positions(), 1);
            let weight = values(shape.outputs * shape.inputs * shape.taps(), 2);
            assert_close(
                &forward(&shape, &input, &weight),
                &reference(&shape, &input, &weight),
            );
        }
    }

    /// Gradients of `sum(output * probe)`, against the derivative of each multiply-add of the
    /// direct convolution.
    #[test]
    fn gradients_match_the_direct_convolution() {
        for shape in shapes() {
            let input = values(shape.batch * shape.inputs * shape.positions(), 3);
            let weight = values(shape.outputs * shape.inputs * shape.taps(), 4);
            let probe = values(shape.batch * shape.outputs * shape.positions(), 5);
            let mut expected_inputs = vec![0.0; input.len()];
            let mut expected_weights = vec![0.0; weight.len()];
            each_product(&shape, |i, w, o| {
                expected_inputs[i] += weight[w] * probe[o];
                expected_weights[w] += input[i] * probe[o];
            });
            assert_close(&input_gradient(&shape, &probe, &weight), &expected_inputs);
            assert_close(&weight_gradient(&shape, &input, &probe), &expected_weights);
        }
    }
}
