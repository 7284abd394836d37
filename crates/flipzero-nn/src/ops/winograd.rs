//! 3x3 "same" convolutions by Winograd's minimal filtering F(2x2, 3x3) (Lavin and Gray,
//! "Fast Algorithms for Convolutional Neural Networks", 2016), forward and both gradients.
//!
//! The board is cut into 2x2 output tiles. Each tile's 4x4 input patch is transformed
//! (`B^T d B`), each kernel too (`G g G^T`); the 16 points of the transformed tiles are then
//! 16 independent matrix products over channels, and `A^T m A` turns each tile's 16 products
//! back into its 2x2 outputs. That is 16 multiplications per 4 outputs where the direct
//! convolution needs 36: 2.25 times fewer, the rest being additions in the transforms. The
//! input gradient is the same convolution with the kernels rotated and transposed; the weight
//! gradient multiplies the transformed inputs with the transformed output gradient
//! (`A dY A^T`) and transforms the sums back (`G^T dU G`).

use std::ops::{Add, Mul, Neg, Sub};

use rayon::prelude::*;

use super::blocks::{
    self, ConvShape, Epilogue, Operand, add_into, compact, grown, matmul, tap_matrix, with_scratch,
};

/// Output squares per tile side.
const TILE: usize = 2;
/// Input squares per tile side.
const PATCH: usize = 4;
/// Points of a transformed tile.
const POINTS: usize = PATCH * PATCH;

/// What the transforms compute on: one channel's value, or several channels' at once.
trait Value:
    Copy
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f32, Output = Self>
{
}

impl Value for f32 {}

/// Channels transformed together: arithmetic on this array is element-wise, which the
/// compiler turns into SIMD instructions.
const LANES: usize = 16;

#[derive(Clone, Copy, Default)]
struct Lanes([f32; LANES]);

impl Lanes {
    /// The `LANES` values from `at` in `values`.
    #[inline(always)]
    fn load(values: &[f32], at: usize) -> Self {
        let lanes: &[f32; LANES] = values[at..at + LANES].try_into().expect("a group of lanes");
        Self(*lanes)
    }

    /// Writes the lanes from `at` in `out`.
    #[inline(always)]
    fn store(self, out: &mut [f32], at: usize) {
        let lanes: &mut [f32; LANES] = (&mut out[at..at + LANES])
            .try_into()
            .expect("a group of lanes");
        *lanes = self.0;
    }

    #[inline(always)]
    fn zip(mut self, other: Self, operation: impl Fn(f32, f32) -> f32) -> Self {
        for (value, other) in self.0.iter_mut().zip(other.0) {
            *value = operation(*value, other);
        }
        self
    }
}

impl Add for Lanes {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.zip(other, |a, b| a + b)
    }
}

impl Sub for Lanes {
    type Output = Self;
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        self.zip(other, |a, b| a - b)
    }
}

impl Neg for Lanes {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self::default() - self
    }
}

impl Mul<f32> for Lanes {
    type Output = Self;
    #[inline(always)]
    fn mul(self, factor: f32) -> Self {
        self.zip(self, |a, _| a * factor)
    }
}

impl Value for Lanes {}

/// Channels as the transforms lay them out: rounded up to whole groups of lanes, the extra
/// ones zero (in the frames and the kernels, so zero in every product).
fn padded(channels: usize) -> usize {
    channels.next_multiple_of(LANES)
}

/// The first channel of each group of lanes of `channels` (padded) channels.
fn channel_groups(channels: usize) -> impl Iterator<Item = usize> {
    debug_assert_eq!(channels % LANES, 0);
    (0..channels).step_by(LANES)
}

/// `B^T` of a 4-value column.
#[inline(always)]
fn input_transform_1d<T: Value>(d: [T; 4]) -> [T; 4] {
    [d[0] - d[2], d[1] + d[2], d[2] - d[1], d[1] - d[3]]
}

/// `A^T` of a 4-value column.
#[inline(always)]
fn output_transform_1d<T: Value>(m: [T; 4]) -> [T; 2] {
    [m[0] + m[1] + m[2], m[1] - m[2] - m[3]]
}

/// `A` of a 2-value column (the transpose of the output transform).
#[inline(always)]
fn output_gradient_transform_1d<T: Value>(y: [T; 2]) -> [T; 4] {
    [y[0], y[0] + y[1], y[0] - y[1], -y[1]]
}

/// `G` of a 3-value column.
#[inline(always)]
fn kernel_transform_1d<T: Value>(g: [T; 3]) -> [T; 4] {
    [
        g[0],
        (g[0] + g[1] + g[2]) * 0.5,
        (g[0] - g[1] + g[2]) * 0.5,
        g[2],
    ]
}

/// `G^T` of a 4-value column (the transpose of the kernel transform).
#[inline(always)]
fn kernel_gradient_transform_1d<T: Value>(u: [T; 4]) -> [T; 3] {
    [
        u[0] + (u[1] + u[2]) * 0.5,
        (u[1] - u[2]) * 0.5,
        (u[1] + u[2]) * 0.5 + u[3],
    ]
}

/// `F X F^T` for the linear map `F` of `transform`: the columns of `x`, then its rows.
#[inline(always)]
fn transform_2d<T: Value, const I: usize, const O: usize>(
    x: [[T; I]; I],
    transform: impl Fn([T; I]) -> [T; O],
) -> [[T; O]; O] {
    let mut columns = [[T::default(); O]; I];
    for (j, column) in columns.iter_mut().enumerate() {
        let mut values = [T::default(); I];
        for (value, row) in values.iter_mut().zip(&x) {
            *value = row[j];
        }
        *column = transform(values);
    }
    let mut out = [[T::default(); O]; O];
    for (r, row) in out.iter_mut().enumerate() {
        let mut values = [T::default(); I];
        for (value, column) in values.iter_mut().zip(&columns) {
            *value = column[r];
        }
        *row = transform(values);
    }
    out
}

/// Tiles per side: (rows, columns).
fn tiles(shape: &ConvShape) -> (usize, usize) {
    (shape.rows.div_ceil(TILE), shape.cols.div_ceil(TILE))
}

/// Tiles of one block's GEMMs (on 8x8 boards with 64 channels, 128 ran faster than 64 and
/// 256).
const BLOCK_TILES: usize = 128;

fn images_per_block(shape: &ConvShape) -> usize {
    let (tile_rows, tile_cols) = tiles(shape);
    blocks::images_per_block(shape.batch, tile_rows * tile_cols, BLOCK_TILES)
}

/// The transformed kernels `G g G^T` of `weight` [outputs, inputs, 3, 3] as the 16 GEMMs'
/// right-hand sides, [16][padded inputs][padded outputs]; `transposed` gives those of the
/// input gradient's convolution instead (inputs and outputs swapped, each kernel rotated by
/// 180 degrees).
fn transformed_kernels(shape: &ConvShape, weight: &[f32], transposed: bool) -> Vec<f32> {
    assert!(shape.kernel == 3);
    let (inputs, outputs) = if transposed {
        (shape.outputs, shape.inputs)
    } else {
        (shape.inputs, shape.outputs)
    };
    let taps = tap_matrix(shape, weight, transposed, padded(outputs));
    let mut out = vec![0.0; POINTS * padded(inputs) * padded(outputs)];
    transform_kernels(&taps, inputs, &mut out);
    out
}

vectorised! {
/// Transforms the kernels of `taps` ([tap][input][padded output]) into `out`
/// ([`transformed_kernels`]), 16 outputs at a time.
fn transform_kernels(taps: &[f32], inputs: usize, out: &mut [f32]) {
    let padded_outputs = taps.len() / (9 * inputs);
    let padded_inputs = out.len() / (POINTS * padded_outputs);
    for input in 0..inputs {
        for group in channel_groups(padded_outputs) {
            let mut kernel = [[Lanes::default(); 3]; 3];
            for (ky, row) in kernel.iter_mut().enumerate() {
                for (kx, value) in row.iter_mut().enumerate() {
                    let tap = ky * 3 + kx;
                    *value = Lanes::load(taps, (tap * inputs + input) * padded_outputs + group);
                }
            }
            let points = transform_2d(kernel, kernel_transform_1d);
            for (point, value) in points.iter().flatten().enumerate() {
                value.store(out, (point * padded_inputs + input) * padded_outputs + group);
            }
        }
    }
}
}

/// Loads the `N x N` squares from (`top`, `left`) of a channels-last `frame` of
/// `frame_cols` columns, the group of channels from `group`.
#[inline(always)]
fn load_square<const N: usize>(
    frame: &[f32],
    frame_cols: usize,
    channels: usize,
    (top, left): (usize, usize),
    group: usize,
) -> [[Lanes; N]; N] {
    // Loops rather than `array::from_fn`, whose closures the compiler left out of line,
    // compiled without the vector features, each group of lanes going through memcpy (6x6
    // training at batch 256: 46-48 ms against 54-57 ms).
    let mut square = [[Lanes::default(); N]; N];
    for (i, row) in square.iter_mut().enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            *value = Lanes::load(
                frame,
                ((top + i) * frame_cols + left + j) * channels + group,
            );
        }
    }
    square
}

/// Stores a transformed tile's 16 points, the group of channels from `group`, into `tile`,
/// [point][channel].
#[inline(always)]
fn store_points(points: [[Lanes; PATCH]; PATCH], tile: &mut [f32], channels: usize, group: usize) {
    // Nested loops of constant length, which the compiler unrolls into direct stores (over
    // the flattened points it kept them on the stack and copied them in a loop).
    for (i, row) in points.iter().enumerate() {
        for (j, value) in row.iter().enumerate() {
            value.store(tile, (i * PATCH + j) * channels + group);
        }
    }
}

vectorised! {
/// Transforms the 4x4 patches of every tile of the block's frames (channels last, the
/// image's first square at (1, 1)) into `out`, [tile][point][channel].
fn transform_inputs(
    shape: &ConvShape,
    frames: &[f32],
    frame_shape: (usize, usize),
    channels: usize,
    out: &mut [f32],
) {
    let (tile_rows, tile_cols) = tiles(shape);
    let (frame_rows, frame_cols) = frame_shape;
    let mut tiles_out = out.chunks_exact_mut(POINTS * channels);
    for frame in frames.chunks_exact(frame_rows * frame_cols * channels) {
        for tile_y in 0..tile_rows {
            for tile_x in 0..tile_cols {
                let tile = tiles_out.next().expect("one transformed tile per tile");
                let corner = (tile_y * TILE, tile_x * TILE);
                for group in channel_groups(channels) {
                    let patch =
                        load_square::<PATCH>(frame, frame_cols, channels, corner, group);
                    let points = transform_2d(patch, input_transform_1d);
                    store_points(points, tile, channels, group);
                }
            }
        }
    }
}
}

// The same loops as `transform_inputs` with another square and transform: folding both into
// one function taking the transform as a closure left the closure out of line, compiled
// without the vector features (6x6 training 20% slower).
vectorised! {
/// Transforms the 2x2 output-gradient tiles of the block's frames (channels last, image at
/// (0, 0), zeros beyond the board) into `out`, [tile][point][channel].
fn transform_output_gradients(
    shape: &ConvShape,
    frames: &[f32],
    frame_cols: usize,
    channels: usize,
    out: &mut [f32],
) {
    let (tile_rows, tile_cols) = tiles(shape);
    let mut tiles_out = out.chunks_exact_mut(POINTS * channels);
    for frame in frames.chunks_exact(frame_cols * tile_rows * TILE * channels) {
        for tile_y in 0..tile_rows {
            for tile_x in 0..tile_cols {
                let tile = tiles_out.next().expect("one transformed tile per tile");
                let corner = (tile_y * TILE, tile_x * TILE);
                for group in channel_groups(channels) {
                    let square =
                        load_square::<TILE>(frame, frame_cols, channels, corner, group);
                    let points = transform_2d(square, output_gradient_transform_1d);
                    store_points(points, tile, channels, group);
                }
            }
        }
    }
}
}

vectorised! {
/// Turns the products of each tile, [tile][point][channel], back into its outputs, written
/// channels-last into `out`, [image][position][channel] (squares beyond the board dropped).
fn transform_outputs(shape: &ConvShape, products: &[f32], channels: usize, out: &mut [f32]) {
    let (tile_rows, tile_cols) = tiles(shape);
    let mut tiles_in = products.chunks_exact(POINTS * channels);
    for image in out.chunks_exact_mut(shape.positions() * channels) {
        for tile_y in 0..tile_rows {
            for tile_x in 0..tile_cols {
                let tile = tiles_in.next().expect("one product per tile");
                for group in channel_groups(channels) {
                    // The tile's points as a 4x4 "frame" of 4 columns.
                    let points = load_square::<PATCH>(tile, PATCH, channels, (0, 0), group);
                    let squares = transform_2d(points, output_transform_1d);
                    for (i, row) in squares.iter().enumerate() {
                        let square_y = tile_y * TILE + i;
                        for (j, value) in row.iter().enumerate() {
                            let square_x = tile_x * TILE + j;
                            if square_y < shape.rows && square_x < shape.cols {
                                let at = (square_y * shape.cols + square_x) * channels;
                                value.store(image, at + group);
                            }
                        }
                    }
                }
            }
        }
    }
}
}

/// The frame that holds an image with its one-square border and its partial last tiles.
fn input_frame(shape: &ConvShape) -> (usize, usize) {
    let (tile_rows, tile_cols) = tiles(shape);
    (tile_rows * TILE + 2, tile_cols * TILE + 2)
}

/// The convolution of `input` [batch, rows, cols, inputs] with transformed kernels
/// [16][padded inputs][padded outputs], into [batch, rows, cols, outputs], each block
/// finished by `epilogue`.
pub(super) fn convolve(
    shape: &ConvShape,
    input: &[f32],
    kernels: &[f32],
    epilogue: Option<&Epilogue>,
) -> Vec<f32> {
    let (inputs, outputs, positions) = (shape.inputs, shape.outputs, shape.positions());
    let (padded_inputs, padded_outputs) = (padded(inputs), padded(outputs));
    assert_eq!(input.len(), shape.batch * inputs * positions);
    let (tile_rows, tile_cols) = tiles(shape);
    let mut output = vec![0.0; shape.batch * outputs * positions];
    let images = images_per_block(shape);
    input
        .par_chunks(images * inputs * positions)
        .zip(output.par_chunks_mut(images * outputs * positions))
        .enumerate()
        .for_each(|(index, (block, out))| {
            with_scratch(|scratch| {
                let block_images = block.len() / (inputs * positions);
                let block_tiles = block_images * tile_rows * tile_cols;
                let frame = input_frame(shape);
                let frames = scratch.frames.fill(
                    block,
                    (inputs, padded_inputs),
                    (shape.rows, shape.cols),
                    frame,
                    1,
                );
                let transformed = grown(&mut scratch.lhs, block_tiles * POINTS * padded_inputs);
                transform_inputs(shape, frames, frame, padded_inputs, transformed);
                let products = grown(&mut scratch.product, block_tiles * POINTS * padded_outputs);
                let kernel_len = padded_inputs * padded_outputs;
                for point in 0..POINTS {
                    matmul(
                        (block_tiles, padded_outputs, padded_inputs),
                        &mut products[point * padded_outputs..],
                        POINTS * padded_outputs,
                        false,
                        Operand {
                            values: &transformed[point * padded_inputs..],
                            row_stride: POINTS * padded_inputs,
                            col_stride: 1,
                        },
                        Operand::rows(
                            &kernels[point * kernel_len..(point + 1) * kernel_len],
                            padded_outputs,
                        ),
                    );
                }
                if padded_outputs == outputs {
                    transform_outputs(shape, products, outputs, out);
                } else {
                    let padded_output = grown(
                        &mut scratch.padded_output,
                        block_images * positions * padded_outputs,
                    );
                    transform_outputs(shape, products, padded_outputs, padded_output);
                    compact(padded_output, (outputs, padded_outputs), out, outputs);
                }
                if let Some(epilogue) = epilogue {
                    epilogue.apply(out, index * images * outputs * positions);
                }
            })
        });
    output
}

/// The forward convolution's transformed kernels from `weight` [outputs, inputs, 3, 3].
pub(super) fn prepare(shape: &ConvShape, weight: &[f32]) -> Vec<f32> {
    transformed_kernels(shape, weight, false)
}

/// The gradient of the input, [batch, rows, cols, inputs], from the output's: the
/// convolution of the output gradient with each kernel rotated by 180 degrees, inputs and
/// outputs swapped.
pub(super) fn input_gradient(
    shape: &ConvShape,
    output_gradient: &[f32],
    weight: &[f32],
) -> Vec<f32> {
    let kernels = transformed_kernels(shape, weight, true);
    convolve(&shape.transposed(), output_gradient, &kernels, None)
}

/// The gradient of the weight, [outputs, inputs, 3, 3], from the input and the output's
/// gradient.
pub(super) fn weight_gradient(
    shape: &ConvShape,
    input: &[f32],
    output_gradient: &[f32],
) -> Vec<f32> {
    let (inputs, outputs, positions) = (shape.inputs, shape.outputs, shape.positions());
    let (padded_inputs, padded_outputs) = (padded(inputs), padded(outputs));
    let kernel_len = padded_inputs * padded_outputs;
    assert!(shape.kernel == 3);
    assert_eq!(input.len(), shape.batch * inputs * positions);
    assert_eq!(output_gradient.len(), shape.batch * outputs * positions);
    let (tile_rows, tile_cols) = tiles(shape);
    let images = images_per_block(shape);
    // Each thread sums its blocks' products into its own [16][padded inputs][padded outputs]
    // matrices.
    let summed = input
        .par_chunks(images * inputs * positions)
        .zip(output_gradient.par_chunks(images * outputs * positions))
        .fold(
            || vec![0.0; POINTS * kernel_len],
            |mut sum, (block, gradient)| {
                with_scratch(|scratch| {
                    let block_images = block.len() / (inputs * positions);
                    let block_tiles = block_images * tile_rows * tile_cols;
                    let frame = input_frame(shape);
                    let frames = scratch.frames.fill(
                        block,
                        (inputs, padded_inputs),
                        (shape.rows, shape.cols),
                        frame,
                        1,
                    );
                    let transformed = grown(&mut scratch.lhs, block_tiles * POINTS * padded_inputs);
                    transform_inputs(shape, frames, frame, padded_inputs, transformed);
                    let gradient_frame = (tile_rows * TILE, tile_cols * TILE);
                    let gradient_frames = scratch.gradient_frames.fill(
                        gradient,
                        (outputs, padded_outputs),
                        (shape.rows, shape.cols),
                        gradient_frame,
                        0,
                    );
                    let transformed_gradient =
                        grown(&mut scratch.product, block_tiles * POINTS * padded_outputs);
                    transform_output_gradients(
                        shape,
                        gradient_frames,
                        gradient_frame.1,
                        padded_outputs,
                        transformed_gradient,
                    );
                    for point in 0..POINTS {
                        matmul(
                            (padded_inputs, padded_outputs, block_tiles),
                            &mut sum[point * kernel_len..(point + 1) * kernel_len],
                            padded_outputs,
                            true,
                            Operand {
                                values: &transformed[point * padded_inputs..],
                                row_stride: 1,
                                col_stride: POINTS * padded_inputs,
                            },
                            Operand {
                                values: &transformed_gradient[point * padded_outputs..],
                                row_stride: POINTS * padded_outputs,
                                col_stride: 1,
                            },
                        );
                    }
                });
                sum
            },
        )
        .reduce(|| vec![0.0; POINTS * kernel_len], add_into);
    let mut gradient = vec![0.0; outputs * inputs * 9];
    for o in 0..outputs {
        for i in 0..inputs {
            let points: [[f32; PATCH]; PATCH] = std::array::from_fn(|r| {
                std::array::from_fn(|c| {
                    summed[((r * PATCH + c) * padded_inputs + i) * padded_outputs + o]
                })
            });
            let kernel = transform_2d(points, kernel_gradient_transform_1d);
            let at = (o * inputs + i) * 9;
            for (tap, value) in kernel.iter().flatten().enumerate() {
                gradient[at + tap] = *value;
            }
        }
    }
    gradient
}

#[cfg(test)]
mod tests {
    use super::super::conv_kernels;
    use super::super::testing::{assert_close, values};
    use super::*;

    /// A 3x3 convolution of `batch` images of `rows` x `cols` squares, `inputs` to `outputs`.
    fn shape(batch: usize, inputs: usize, outputs: usize, rows: usize, cols: usize) -> ConvShape {
        ConvShape {
            batch,
            inputs,
            outputs,
            rows,
            cols,
            kernel: 3,
        }
    }

    /// The forward pass and both gradients against the im2col kernels (themselves checked
    /// against the direct convolution), on values drawn from `seed`.
    fn assert_matches_im2col(shape: &ConvShape, seed: u32) {
        let input = values(shape.batch * shape.inputs * shape.positions(), seed);
        let weight = values(shape.outputs * shape.inputs * 9, seed + 1);
        let probe = values(shape.batch * shape.outputs * shape.positions(), seed + 2);
        assert_close(
            &convolve(shape, &input, &prepare(shape, &weight), None),
            &conv_kernels::convolve(shape, &input, &conv_kernels::prepare(shape, &weight), None),
        );
        assert_close(
            &input_gradient(shape, &probe, &weight),
            &conv_kernels::input_gradient(shape, &probe, &weight),
        );
        assert_close(
            &weight_gradient(shape, &input, &probe),
            &conv_kernels::weight_gradient(shape, &input, &probe),
        );
    }

    /// A 5x5 board after a 6x6 one on the same thread: both use 8x8 frames, whose zeros
    /// around the 5x5 images must not keep the 6x6 images' last row and column.
    #[test]
    fn a_smaller_board_in_the_same_frames_reads_zeros_around_it() {
        let one_thread = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a thread pool");
        one_thread.install(|| {
            assert_matches_im2col(&shape(2, 3, 2, 6, 6), 1);
            assert_matches_im2col(&shape(2, 3, 2, 5, 5), 4);
        });
    }

    /// Even and odd boards (partial tiles), one image and several blocks.
    #[test]
    fn matches_the_im2col_convolution() {
        for board in [
            shape(1, 3, 4, 6, 6),
            shape(61, 5, 7, 6, 6),
            shape(35, 4, 3, 8, 8),
            shape(3, 2, 5, 5, 7),
            shape(2, 3, 2, 1, 4),
            shape(4, 6, 3, 12, 14),
            shape(9, 16, 32, 6, 6),
        ] {
            assert_matches_im2col(&board, 1);
        }
    }
}
