//! Checkpoint files (mutated from real ones, as they are and with their checksum made anew):
//! load or refuse with a reason, without building a network larger than the file's weights.
#![no_main]

use flipzero_fuzz::{as_is_and_resealed, assert_explained, file_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for contents in as_is_and_resealed(data) {
        let path = file_with("fuzz.ckpt", &contents);
        if let Err(error) = flipzero_nn::checkpoint::load(&path, &Default::default()) {
            assert_explained(&error);
        }
    }
});
