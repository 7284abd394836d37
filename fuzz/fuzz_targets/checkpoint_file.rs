//! Checkpoint files (mutated from real ones): load or refuse with a reason, without building
//! a network larger than the file's weights.
#![no_main]

use flipzero_fuzz::{assert_explained, file_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = file_with("fuzz.ckpt", data);
    if let Err(error) = flipzero_nn::checkpoint::load(&path, &Default::default()) {
        assert_explained(&error);
    }
});
