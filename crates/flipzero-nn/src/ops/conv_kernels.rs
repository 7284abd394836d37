//! "Same"-padded, stride-1 convolutions with square odd kernels on channels-last (NHWC) f32
//! buffers, as one GEMM per block of images.
//!
//! Burn's flex backend runs a convolution as one small GEMM per image (32 to 64 rows on our
//! boards), which spends most of its time packing and in im2col. Here a block of images is
//! unrolled (im2col) into one matrix of a few hundred rows and multiplied once, straight into
//! the channels-last output; blocks run in parallel on the current rayon pool. 1x1 kernels
//! need no unrolling: the block is the matrix. The backward passes reuse the same pieces: the
//! input gradient is a forward convolution of the output gradient with the kernel flipped, the
//! weight gradient a GEMM of the unrolled input with the output gradient.

use rayon::prelude::*;

use super::blocks::{
    self, ConvShape, Epilogue, Operand, Scratch, add_into, grown, matmul, tap_matrix, with_scratch,
};

/// Positions of one block's GEMM.
const BLOCK_ROWS: usize = 256;

fn images_per_block(shape: &ConvShape) -> usize {
    blocks::images_per_block(shape.batch, shape.positions(), BLOCK_ROWS)
}

/// The block of channels-last images unrolled, one row of `taps * inputs` values per
/// position: for each kernel tap, the channels of the square it reads, or zeros beyond the
/// board. A 1x1 kernel's is the block itself; others are built in `scratch.lhs`.
///
/// The images are first copied into a zero-bordered frame, so that the `kernel` taps of one
/// kernel row are `kernel * inputs` consecutive values of the frame.
fn unrolled<'a>(shape: &ConvShape, block: &'a [f32], scratch: &'a mut Scratch) -> &'a [f32] {
    let (channels, positions, kernel) = (shape.inputs, shape.positions(), shape.kernel);
    if kernel == 1 {
        return block;
    }
    let reach = kernel / 2;
    let (frame_rows, frame_cols) = (shape.rows + 2 * reach, shape.cols + 2 * reach);
    let frame_len = frame_rows * frame_cols * channels;
    let images = block.len() / (channels * positions);
    let frames = scratch.frames.fill(
        block,
        (channels, channels),
        (shape.rows, shape.cols),
        (frame_rows, frame_cols),
        reach,
    );
    let span = kernel * channels;
    let width = kernel * span;
    let lhs = grown(&mut scratch.lhs, images * positions * width);
    let mut rows = lhs.chunks_exact_mut(width);
    for frame in frames.chunks_exact(frame_len) {
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
    lhs
}

/// The convolution of `input` [batch, rows, cols, inputs] with a `[k*k*inputs, outputs]`
/// GEMM kernel, into [batch, rows, cols, outputs], each block finished by `epilogue`.
pub(super) fn convolve(
    shape: &ConvShape,
    input: &[f32],
    kernel: &[f32],
    epilogue: Option<&Epilogue>,
) -> Vec<f32> {
    let positions = shape.positions();
    assert_eq!(input.len(), shape.batch * shape.inputs * positions);
    let mut output = vec![0.0; shape.batch * shape.outputs * positions];
    let images = images_per_block(shape);
    input
        .par_chunks(images * shape.inputs * positions)
        .zip(output.par_chunks_mut(images * shape.outputs * positions))
        .enumerate()
        .for_each(|(index, (block, out))| {
            with_scratch(|scratch| {
                let width = shape.taps() * shape.inputs;
                let lhs = unrolled(shape, block, scratch);
                matmul(
                    (lhs.len() / width, shape.outputs, width),
                    out,
                    shape.outputs,
                    false,
                    Operand::rows(lhs, width),
                    Operand::rows(kernel, shape.outputs),
                );
                if let Some(epilogue) = epilogue {
                    epilogue.apply(out, index * images * shape.outputs * positions);
                }
            })
        });
    output
}

/// The forward convolution's GEMM kernel from `weight` [outputs, inputs, k, k].
pub(super) fn prepare(shape: &ConvShape, weight: &[f32]) -> Vec<f32> {
    tap_matrix(shape, weight, false, shape.outputs)
}

/// The gradient of the input, [batch, rows, cols, inputs], from the output's.
pub(super) fn input_gradient(
    shape: &ConvShape,
    output_gradient: &[f32],
    weight: &[f32],
) -> Vec<f32> {
    let kernel = tap_matrix(shape, weight, true, shape.inputs);
    convolve(&shape.transposed(), output_gradient, &kernel, None)
}

/// The gradient of the weight, [outputs, inputs, k, k], from the input and the output's
/// gradient.
pub(super) fn weight_gradient(
    shape: &ConvShape,
    input: &[f32],
    output_gradient: &[f32],
) -> Vec<f32> {
    let positions = shape.positions();
    assert_eq!(input.len(), shape.batch * shape.inputs * positions);
    assert_eq!(
        output_gradient.len(),
        shape.batch * shape.outputs * positions
    );
    let width = shape.taps() * shape.inputs;
    let images = images_per_block(shape);
    // Each thread sums its blocks' products into its own [width, outputs] matrix.
    let summed = input
        .par_chunks(images * shape.inputs * positions)
        .zip(output_gradient.par_chunks(images * shape.outputs * positions))
        .fold(
            || vec![0.0; width * shape.outputs],
            |mut sum, (block, gradient)| {
                with_scratch(|scratch| {
                    let lhs = unrolled(shape, block, scratch);
                    matmul(
                        (width, shape.outputs, lhs.len() / width),
                        &mut sum,
                        shape.outputs,
                        true,
                        Operand::transposed(lhs, width),
                        Operand::rows(gradient, shape.outputs),
                    );
                });
                sum
            },
        )
        .reduce(|| vec![0.0; width * shape.outputs], add_into);
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
    use super::super::testing::{assert_close, values};
    use super::*;

    /// Visits every multiply-add of the direct convolution: `(input index, weight index,
    /// output index)`, input and output channels last.
    fn each_product(shape: &ConvShape, mut visit: impl FnMut(usize, usize, usize)) {
        let (h, w, k) = (shape.rows as isize, shape.cols as isize, shape.kernel);
        let reach = (k / 2) as isize;
        for n in 0..shape.batch {
            for o in 0..shape.outputs {
                for y in 0..h {
                    for x in 0..w {
                        let out = ((n * shape.rows + y as usize) * shape.cols + x as usize)
                            * shape.outputs
                            + o;
                        for i in 0..shape.inputs {
                            for ky in 0..k {
                                for kx in 0..k {
                                    let sy = y + ky as isize - reach;
                                    let sx = x + kx as isize - reach;
                                    if (0..h).contains(&sy) && (0..w).contains(&sx) {
                                        let at = ((n * shape.rows + sy as usize) * shape.cols
                                            + sx as usize)
                                            * shape.inputs
                                            + i;
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
                &convolve(&shape, &input, &prepare(&shape, &weight), None),
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
