//! Study configs (read from a file, as the CLI does): check or say what is wrong.
#![no_main]

use flipzero_fuzz::{assert_explained, file_with};
use flipzero_study::StudyConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = file_with("study.toml", data);
    if let Err(error) = StudyConfig::load(&path) {
        assert_explained(&error);
    }
});
