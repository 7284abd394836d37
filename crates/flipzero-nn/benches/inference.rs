//! Network inference on the flex CPU device: positions per second at batch 1, 64 and 256 for
//! a 6-block, 64-channel network on 6x6 and 8x8 Othello.
//!
//! Run with `cargo bench -p flipzero-nn --bench inference` (a release build of Burn: long).

// criterion's macros define undocumented items.
#![allow(missing_docs)]

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use flipzero_core::Preset;
use flipzero_nn::NetConfig;

fn inference(c: &mut Criterion) {
    let device = Device::flex();
    let mut group = c.benchmark_group("nn/flex/6x64");
    group.sample_size(10);
    for side in [6u8, 8] {
        let rules = Preset::Othello.rules(Some(side)).unwrap();
        let planes = flipzero_data::encoder::PLANES.len();
        let side = usize::from(side);
        let config = NetConfig {
            input_planes: planes,
            rows: side,
            cols: side,
            decisions: rules.decision_count(),
            blocks: 6,
            channels: 64,
            value_hidden: 64,
        };
        let net = config.init(&device).valid();
        for batch in [1usize, 64, 256] {
            let values: Vec<f32> = (0..batch * planes * side * side)
                .map(|i| (i % 3) as f32 * 0.5)
                .collect();
            let input = Tensor::<4>::from_data(
                TensorData::new(values, [batch, planes, side, side]),
                &device,
            );
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("{side}x{side}"), batch),
                &input,
                |b, input| {
                    b.iter(|| {
                        let output = net.forward(input.clone());
                        output.policy_logits.into_data()
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, inference);
criterion_main!(benches);
