//! What the convolution kernels share: the shape of a convolution, per-thread buffers, the
//! change between channels-first images and channels-last frames, and the GEMM call.

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

/// Channels-last copies of channels-first images, each inside a larger frame of zeros.
#[derive(Default)]
pub(super) struct Frames {
    values: Vec<f32>,
    /// (image rows, image columns, channels, frame rows, frame columns, stride, offset) of the
    /// frames in `values`: what their zeros are zeros for.
    layout: [usize; 7],
}

impl Frames {
    /// Copies the images of `block` ([images, channels, rows, cols]) into frames of
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
        let positions = rows * cols;
        let frame_len = frame_rows * frame_cols * stride;
        let images = block.len() / (channels * positions);
        // Only the images' values are written below: the zeros around them (and in the
        // channels beyond `channels`) stay while the images and frames keep their shapes.
        let layout = [rows, cols, channels, frame_rows, frame_cols, stride, offset];
        if self.layout != layout {
            self.values.clear();
            self.layout = layout;
        }
        let frames = grown(&mut self.values, images * frame_len);
        for (image, frame) in block
            .chunks_exact(channels * positions)
            .zip(frames.chunks_exact_mut(frame_len))
        {
            frame_image(image, channels, cols, frame, (frame_cols, stride, offset));
        }
        frames
    }
}

vectorised! {
/// Copies one channels-first `image` of `cols` columns channels-last into `frame`, square
/// (y, x) at (y + offset, x + offset) of a frame of `frame_cols` columns and `stride` values
/// per square.
fn frame_image(
    image: &[f32],
    channels: usize,
    cols: usize,
    frame: &mut [f32],
    layout: (usize, usize, usize),
) {
    let (frame_cols, stride, offset) = layout;
    let positions = image.len() / channels;
    for (c, plane) in image.chunks_exact(positions).enumerate() {
        for (y, line) in plane.chunks_exact(cols).enumerate() {
            let start = ((y + offset) * frame_cols + offset) * stride + c;
            for (x, &value) in line.iter().enumerate() {
                frame[start + x * stride] = value;
            }
        }
    }
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
    /// The block's output, channels last.
    pub(super) channels_last: Vec<f32>,
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

/// `matrix[c * positions + p]` (one image, channels first) into `out[p * channels + c]`.
pub(super) fn to_channels_last(matrix: &[f32], channels: usize, positions: usize, out: &mut [f32]) {
    for (c, plane) in matrix.chunks_exact(positions).enumerate().take(channels) {
        for (p, &value) in plane.iter().enumerate() {
            out[p * channels + c] = value;
        }
    }
}

vectorised! {
/// `rows[p * stride + c]` (one image, channels last, `stride >= channels` values per square)
/// into `out[c * positions + p]`.
pub(super) fn to_channels_first(
    rows: &[f32],
    layout: (usize, usize),
    positions: usize,
    out: &mut [f32],
) {
    let (channels, stride) = layout;
    for (c, plane) in out.chunks_exact_mut(positions).enumerate().take(channels) {
        for (p, value) in plane.iter_mut().enumerate() {
            *value = rows[p * stride + c];
        }
    }
}
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
