//! What the convolution kernels share: the shape of a convolution, per-thread buffers, the
//! zero-bordered frames of channels-last images, and the GEMM call.

use std::cell::RefCell;

/// Images per block of a batch whose images give `rows_per_image` GEMM rows each: about
/// `target_rows` rows (large enough for the GEMM kernels to run near their peak, small enough
/// for a block's buffers to stay in the L2 cache), but small enough for two blocks per
/// thread when the batch is small, so that every core works.
pub(super) fn images_per_block(batch: usize, rows_per_image: usize, target_rows: usize) -> usize {
    let for_cache = target_rows / rows_per_image;
    let for_threads = batch.div_ceil(2 * rayon::current_num_threads());
    for_cache.min(for_threads).max(1)
}

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
    /// The shape of the same convolution of a channels-last input [batch, rows, cols, inputs]
    /// with a weight [outputs, inputs, k, k], when the weight is a square odd kernel over the
    /// input's channels.
    pub(super) fn of(input: [usize; 4], weight: [usize; 4]) -> Option<Self> {
        let [batch, rows, cols, inputs] = input;
        let [outputs, weight_inputs, kernel, kernel_cols] = weight;
        let fits = weight_inputs == inputs && kernel == kernel_cols && kernel % 2 == 1;
        fits.then_some(Self {
            batch,
            inputs,
            outputs,
            rows,
            cols,
            kernel,
        })
    }

    /// Whether the convolution has no value to compute.
    pub(super) fn is_empty(&self) -> bool {
        self.batch * self.inputs * self.outputs * self.positions() == 0
    }

    pub(super) fn positions(&self) -> usize {
        self.rows * self.cols
    }

    pub(super) fn taps(&self) -> usize {
        self.kernel * self.kernel
    }

    /// The shape of the input-gradient convolution: inputs and outputs swapped.
    pub(super) fn transposed(&self) -> Self {
        Self {
            inputs: self.outputs,
            outputs: self.inputs,
            ..*self
        }
    }
}

/// A kernel [outputs, inputs, k, k] as a matrix [tap][input][output] (the right-hand side of
/// an im2col GEMM), each row `row_len` values: the outputs then zeros. `flipped` gives the
/// kernel of the input gradient's convolution instead: inputs and outputs swapped, each
/// kernel rotated by 180 degrees.
pub(super) fn tap_matrix(
    shape: &ConvShape,
    weight: &[f32],
    flipped: bool,
    row_len: usize,
) -> Vec<f32> {
    let taps = shape.taps();
    assert_eq!(weight.len(), shape.outputs * shape.inputs * taps);
    let (inputs, outputs) = if flipped {
        (shape.outputs, shape.inputs)
    } else {
        (shape.inputs, shape.outputs)
    };
    assert!(row_len >= outputs);
    let mut out = vec![0.0; taps * inputs * row_len];
    // Written in order: writes `inputs * row_len` values apart, as the weight's order gives,
    // fall in the same few cache sets (8x8 boards at batch 1 spent 60% of their time here).
    for (row_index, row) in out.chunks_exact_mut(row_len).enumerate() {
        let (tap, input) = (row_index / inputs, row_index % inputs);
        for (output, value) in row[..outputs].iter_mut().enumerate() {
            *value = if flipped {
                weight[(input * shape.inputs + output) * taps + taps - 1 - tap]
            } else {
                weight[(output * shape.inputs + input) * taps + tap]
            };
        }
    }
    out
}

/// What a forward convolution does to each block's output while it is in the cache, in
/// inference: the batch norm's per-channel scale and shift, a residual added, relu.
#[derive(Clone, Copy)]
pub(super) struct Epilogue<'a> {
    pub(super) scale: &'a [f32],
    pub(super) shift: &'a [f32],
    /// Added after the norm, laid out as the output; empty for none.
    pub(super) residual: &'a [f32],
}

impl Epilogue<'_> {
    /// Applies to `out`, the output's values from `start`.
    pub(super) fn apply(&self, out: &mut [f32], start: usize) {
        let residual = match self.residual {
            [] => &[][..],
            all => &all[start..start + out.len()],
        };
        normalise_add_relu(out, residual, self.scale, self.shift);
    }
}

vectorised! {
/// `out = relu(out * scale[channel] + shift[channel] + residual)`, channels last (no
/// residual when it is empty).
fn normalise_add_relu(out: &mut [f32], residual: &[f32], scale: &[f32], shift: &[f32]) {
    let channels = scale.len();
    if residual.is_empty() {
        for square in out.chunks_exact_mut(channels) {
            for ((o, &scale), &shift) in square.iter_mut().zip(scale).zip(shift) {
                *o = relu(*o * scale + shift);
            }
        }
    } else {
        let squares = out.chunks_exact_mut(channels);
        for (square, residual) in squares.zip(residual.chunks_exact(channels)) {
            let parameters = scale.iter().zip(shift);
            for ((o, (&scale, &shift)), &r) in square.iter_mut().zip(parameters).zip(residual) {
                *o = relu(*o * scale + shift + r);
            }
        }
    }
}
}

/// `value` where it is not negative, zero where it is; NaN stays NaN (as in flex's relu and
/// PyTorch's: `f32::max` would turn it into 0 and hide a diverged network).
#[inline(always)]
pub(super) fn relu(value: f32) -> f32 {
    if value < 0.0 { 0.0 } else { value }
}

/// Copies of channels-last images, each inside a larger frame of zeros.
#[derive(Default)]
pub(super) struct Frames {
    values: Vec<f32>,
    /// (image rows, image columns, channels, frame rows, frame columns, stride, offset) of the
    /// frames in `values`: what their zeros are zeros for.
    layout: [usize; 7],
}

impl Frames {
    /// Copies the images of `block` ([images, rows, cols, channels]) into frames of
    /// `frame_rows` x `frame_cols` squares of `stride` values (the channels, then zeros),
    /// square (y, x) of an image at (y + offset, x + offset) of its frame and zeros around;
    /// returns the frames.
    pub(super) fn fill(
        &mut self,
        block: &[f32],
        (channels, stride): (usize, usize),
        (rows, cols): (usize, usize),
        (frame_rows, frame_cols): (usize, usize),
        offset: usize,
    ) -> &[f32] {
        let image_len = rows * cols * channels;
        let frame_len = frame_rows * frame_cols * stride;
        let images = block.len() / image_len;
        // Only the images' values are written below: the zeros around them (and in the
        // channels beyond `channels`) stay while the images and frames keep their shapes.
        let layout = [rows, cols, channels, frame_rows, frame_cols, stride, offset];
        if self.layout != layout {
            self.values.clear();
            self.layout = layout;
        }
        let frames = grown(&mut self.values, images * frame_len);
        for (image, frame) in block
            .chunks_exact(image_len)
            .zip(frames.chunks_exact_mut(frame_len))
        {
            for (y, line) in image.chunks_exact(cols * channels).enumerate() {
                let start = ((y + offset) * frame_cols + offset) * stride;
                let squares = &mut frame[start..start + cols * stride];
                if stride == channels {
                    squares.copy_from_slice(line);
                } else {
                    compact(line, (channels, channels), squares, stride);
                }
            }
        }
        frames
    }
}

/// Copies the first `channels` of each square of `from` (squares of `from_stride` values)
/// into the squares of `to` (`to_stride` values each, the rest left as they are).
pub(super) fn compact(
    from: &[f32],
    (channels, from_stride): (usize, usize),
    to: &mut [f32],
    to_stride: usize,
) {
    for (to, from) in to
        .chunks_exact_mut(to_stride)
        .zip(from.chunks_exact(from_stride))
    {
        to[..channels].copy_from_slice(&from[..channels]);
    }
}

/// A thread's buffers for the block it works on, kept from one convolution to the next.
#[derive(Default)]
pub(super) struct Scratch {
    /// The block's input images.
    pub(super) frames: Frames,
    /// The block's output-gradient images (weight gradients).
    pub(super) gradient_frames: Frames,
    /// The left-hand side of the block's GEMMs.
    pub(super) lhs: Vec<f32>,
    /// The GEMMs' results.
    pub(super) product: Vec<f32>,
    /// The block's output with padded channels (Winograd's, when they are padded).
    pub(super) padded_output: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Runs `work` with this thread's scratch buffers (not re-entrant: `work` must not start
/// another block on this thread, which it does not, the GEMMs being single-threaded).
pub(super) fn with_scratch<R>(work: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with_borrow_mut(work)
}

/// The first `len` values of `buffer`, grown (never shrunk, so that blocks of different
/// sizes do not refill it) to hold them. Callers overwrite what they use.
pub(super) fn grown(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// A GEMM operand: element (r, c) at `values[r * row_stride + c * col_stride]`.
#[derive(Clone, Copy)]
pub(super) struct Operand<'a> {
    pub(super) values: &'a [f32],
    pub(super) row_stride: usize,
    pub(super) col_stride: usize,
}

impl<'a> Operand<'a> {
    /// A row-major matrix with rows of `row_len` values.
    pub(super) fn rows(values: &'a [f32], row_len: usize) -> Self {
        Self {
            values,
            row_stride: row_len,
            col_stride: 1,
        }
    }

    /// The transpose of a row-major matrix with rows of `row_len` values.
    pub(super) fn transposed(values: &'a [f32], row_len: usize) -> Self {
        Self {
            values,
            row_stride: 1,
            col_stride: row_len,
        }
    }

    /// Whether an (rows x cols) matrix fits in `values`.
    fn holds(&self, rows: usize, cols: usize) -> bool {
        rows == 0
            || cols == 0
            || (rows - 1) * self.row_stride + (cols - 1) * self.col_stride < self.values.len()
    }
}

/// `dst = lhs (m x k) * rhs (k x n)`, or `dst += ...` when `accumulate`; `dst` is row-major
/// with rows `dst_row_stride` apart. Single-threaded: blocks run in parallel instead.
pub(super) fn matmul(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    dst_row_stride: usize,
    accumulate: bool,
    lhs: Operand<'_>,
    rhs: Operand<'_>,
) {
    let out = Operand {
        values: &*dst,
        row_stride: dst_row_stride,
        col_stride: 1,
    };
    assert!(out.holds(m, n) && lhs.holds(m, k) && rhs.holds(k, n));
    // SAFETY: the assertion keeps every element of the three matrices, read or written with
    // these strides, inside its slice; `dst` does not alias the inputs (a `&mut` borrow).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            dst_row_stride as isize,
            accumulate,
            lhs.values.as_ptr(),
            lhs.col_stride as isize,
            lhs.row_stride as isize,
            rhs.values.as_ptr(),
            rhs.col_stride as isize,
            rhs.row_stride as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Sums per-thread partial results (the fold and reduce of a weight gradient).
pub(super) fn add_into(mut total: Vec<f32>, part: Vec<f32>) -> Vec<f32> {
    total.iter_mut().zip(&part).for_each(|(t, p)| *t += p);
    total
}
