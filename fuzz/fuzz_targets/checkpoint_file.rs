//! Checkpoint files (mutated from real ones, as they are and with their checksum made anew):
//! load or refuse with a reason, without building a network larger than the file's weights;
//! a checkpoint that loads, saved and loaded again, has the same metadata and optimizer state
//! and a network that computes the same outputs, bit for bit.
#![no_main]

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use flipzero_fuzz::{as_is_and_resealed, assert_explained, file_with};
use flipzero_nn::checkpoint::{self, Checkpoint};
use libfuzzer_sys::fuzz_target;

/// The network's outputs on one fixed input, as bits (a damaged weight may be NaN).
fn output_bits(checkpoint: &Checkpoint) -> Vec<u32> {
    let shape = &checkpoint.meta.net;
    let [planes, rows, cols] = [shape.input_planes, shape.rows, shape.cols];
    let values: Vec<f32> = (0..planes * rows * cols)
        .map(|i| (i % 3) as f32 / 2.0)
        .collect();
    let input = Tensor::<4>::from_data(
        TensorData::new(values, [1, planes, rows, cols]),
        &Default::default(),
    );
    let output = checkpoint.net.valid().forward(input);
    [output.policy_logits, output.wdl_logits, output.score]
        .into_iter()
        .flat_map(|tensor| {
            tensor
                .into_data()
                .try_into_vec::<f32>()
                .expect("f32 outputs")
        })
        .map(f32::to_bits)
        .collect()
}

fuzz_target!(|data: &[u8]| {
    for contents in as_is_and_resealed(data) {
        let path = file_with("fuzz.ckpt", &contents);
        match checkpoint::load(&path, &Default::default()) {
            Ok(loaded) => {
                // Not compared as bytes: burn gives batch-norm running statistics new
                // parameter ids each time a network is built.
                let written = file_with("written.ckpt", &[]);
                checkpoint::save(
                    &written,
                    &loaded.meta,
                    &loaded.net,
                    loaded.optimizer.as_deref(),
                )
                .expect("a loaded checkpoint saves");
                let again = checkpoint::load(&written, &Default::default())
                    .expect("a saved checkpoint loads");
                assert_eq!(again.meta, loaded.meta);
                assert_eq!(again.optimizer, loaded.optimizer);
                assert_eq!(output_bits(&again), output_bits(&loaded));
            }
            Err(error) => assert_explained(&error),
        }
    }
});
