//! What the kernels' tests share.

use burn::module::{Param, RunningState};
use burn::nn::{BatchNorm, BatchNormConfig};
use burn::tensor::{Device, Tensor, TensorData};

/// `count` values in [-1, 1), spread by a multiplicative hash of their index and `seed`.
pub(crate) fn values(count: usize, seed: u32) -> Vec<f32> {
    (0..count as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
        .collect()
}

/// A batch norm of `channels` on `device` whose gamma, beta and running statistics are not
/// the defaults, drawn from `seed`: two calls with one seed give equal norms that share
/// nothing (clones of a norm share their running statistics).
pub(crate) fn test_norm(channels: usize, device: &Device, seed: u32) -> BatchNorm {
    let vector = |low: f32, high: f32, seed| {
        let spread = values(channels, seed)
            .into_iter()
            .map(|value| low + (value + 1.0) / 2.0 * (high - low))
            .collect::<Vec<_>>();
        Tensor::<1>::from_data(TensorData::new(spread, [channels]), device)
    };
    let mut norm = BatchNormConfig::new(channels).init(device);
    norm.gamma = Param::from_tensor(vector(0.5, 1.5, seed));
    norm.beta = Param::from_tensor(vector(-1.0, 1.0, seed + 1));
    norm.running_mean = RunningState::new(vector(-1.0, 1.0, seed + 2));
    norm.running_var = RunningState::new(vector(0.5, 2.0, seed + 3));
    norm
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
