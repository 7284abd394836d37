//! What the kernels' tests share.

use burn::tensor::Tensor;

/// `count` values in [-1, 1), spread by a multiplicative hash of their index and `seed`.
pub(crate) fn values(count: usize, seed: u32) -> Vec<f32> {
    (0..count as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
        .collect()
}

/// Asserts that each value is within 1e-4 of the expected one (relative beyond 1).
pub(crate) fn assert_close(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len());
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-4 * (1.0 + e.abs()),
            "element {index}: {a} against {e}"
        );
    }
}

/// [`assert_close`] for two f32 tensors of the same shape.
pub(crate) fn assert_tensors_close<const D: usize>(actual: Tensor<D>, expected: Tensor<D>) {
    assert_eq!(actual.dims(), expected.dims());
    let (actual, expected) = (actual.into_data(), expected.into_data());
    assert_close(
        actual.as_slice::<f32>().expect("f32 values"),
        expected.as_slice::<f32>().expect("f32 values"),
    );
}
