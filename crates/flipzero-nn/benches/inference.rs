//! The default networks on the flex CPU device: inference positions per second at batch 1,
//! 64 and 256, and training samples per second (forward, backward and an Adam step) at
//! batch 128 and 256. The 6x6 network is `configs/runs/othello-6x6.toml`'s (4 blocks of 32
//! channels), the 8x8 one `othello-8x8.toml`'s (6 blocks of 64). `scripts/pytorch-speed.py`
//! measures the same networks in PyTorch.
//!
//! Run with `cargo bench -p flipzero-nn --bench inference` (a release build of Burn: long);
//! add `--features ndarray` to measure Burn's NdArray backend beside flex.

// criterion's macros define undocumented items.
#![allow(missing_docs)]

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use flipzero_core::Preset;
use flipzero_nn::NetConfig;

// The allocator of the flipzero binary, set as it sets it (`keep_freed_memory` in each
// bench function, criterion owning `main`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// (name, board side, blocks, channels, value hidden units).
const NETWORKS: [(&str, u8, usize, usize, usize); 2] =
    [("6x6-4x32", 6, 4, 32, 64), ("8x8-6x64", 8, 6, 64, 128)];

fn config(side: u8, blocks: usize, channels: usize, value_hidden: usize) -> NetConfig {
    let rules = Preset::Othello.rules(Some(side)).unwrap();
    NetConfig {
        input_planes: flipzero_data::encoder::PLANES.len(),
        rows: usize::from(side),
        cols: usize::from(side),
        decisions: rules.decision_count(),
        tower: flipzero_nn::Tower::new(blocks, channels, value_hidden),
        torus: false,
    }
}

fn tensor<const D: usize>(shape: [usize; D], device: &Device) -> Tensor<D> {
    let count = shape.iter().product();
    let values: Vec<f32> = (0..count).map(|i| (i % 3) as f32 * 0.5).collect();
    Tensor::from_data(TensorData::new(values, shape), device)
}

/// Inference of both networks on `device` at each batch size, as group `nn/<backend>/inference`.
fn inference_on(c: &mut Criterion, backend: &str, device: &Device, batches: &[usize]) {
    let mut group = c.benchmark_group(format!("nn/{backend}/inference"));
    group.sample_size(10);
    for (name, side, blocks, channels, value_hidden) in NETWORKS {
        let config = config(side, blocks, channels, value_hidden);
        let net = config.init(device).valid();
        for &batch in batches {
            let input = tensor(
                [batch, config.input_planes, config.rows, config.cols],
                device,
            );
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_with_input(BenchmarkId::new(name, batch), &input, |b, input| {
                b.iter(|| net.forward(input.clone()).policy_logits.into_data())
            });
        }
    }
    group.finish();
}

fn inference(c: &mut Criterion) {
    flipzero_nn::allocator::keep_freed_memory();
    inference_on(c, "flex", &Device::flex(), &[1, 64, 256]);
}

fn training(c: &mut Criterion) {
    flipzero_nn::allocator::keep_freed_memory();
    let device = Device::flex().autodiff();
    let mut group = c.benchmark_group("nn/flex/train");
    group.sample_size(10);
    for (name, side, blocks, channels, value_hidden) in NETWORKS {
        let config = config(side, blocks, channels, value_hidden);
        for batch in [128usize, 256] {
            let input = tensor(
                [batch, config.input_planes, config.rows, config.cols],
                &device,
            );
            let policy_target = tensor([batch, config.decisions], &device) / 37.0;
            let wdl_target = tensor([batch, 3], &device) / 1.5;
            let score_target = tensor([batch, 1], &device) - 0.5;
            let mut optimizer = AdamConfig::new().init();
            let mut net = Some(config.init(&device).train());
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_function(BenchmarkId::new(name, batch), |b| {
                // On a thread of the pool, as `Trainer::train_step` runs its steps.
                b.iter(|| {
                    flipzero_nn::ops::on_pool(|| {
                        let current = net.take().expect("the network between steps");
                        let output = current.forward(input.clone());
                        let loss = (log_softmax(output.policy_logits, 1) * policy_target.clone())
                            .sum_dim(1)
                            .mean()
                            .neg()
                            - (log_softmax(output.wdl_logits, 1) * wdl_target.clone())
                                .sum_dim(1)
                                .mean()
                            + (output.score - score_target.clone())
                                .powf_scalar(2.0)
                                .mean();
                        let gradients = GradientsParams::from_grads(loss.backward(), &current);
                        net = Some(optimizer.step(1e-3, current, gradients));
                    })
                })
            });
        }
    }
    group.finish();
}

/// The deprecated NdArray backend beside flex (`--features ndarray`): batch 64 only.
#[cfg(feature = "ndarray")]
fn ndarray_inference(c: &mut Criterion) {
    #[allow(deprecated)]
    let device = Device::ndarray();
    inference_on(c, "ndarray", &device, &[64]);
}

#[cfg(not(feature = "ndarray"))]
fn ndarray_inference(_: &mut Criterion) {}

criterion_group!(benches, inference, training, ndarray_inference);
criterion_main!(benches);
