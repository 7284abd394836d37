//! Study configs (read from a file, as the CLI does): check or say what is wrong; a config
//! that checks, written as TOML, reads back the same.
#![no_main]

use flipzero_fuzz::{assert_explained, assert_toml_round_trip, file_with};
use flipzero_study::StudyConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = file_with("study.toml", data);
    match StudyConfig::load(&path) {
        Ok(config) => assert_toml_round_trip(&config, |text| {
            StudyConfig::load(&file_with("written.toml", text.as_bytes()))
        }),
        Err(error) => assert_explained(&error),
    }
});
