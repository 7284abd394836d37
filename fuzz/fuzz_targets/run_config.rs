//! Run configs: check or say which key is wrong; a config that checks, written as TOML,
//! reads back the same.
#![no_main]

use flipzero_fuzz::{assert_explained, assert_toml_round_trip};
use flipzero_run::RunConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match RunConfig::parse(text, "fuzz.toml") {
        Ok(config) => assert_toml_round_trip(&config.settings, |text| {
            RunConfig::parse(text, "written.toml").map(|again| again.settings)
        }),
        Err(error) => assert_explained(&error),
    }
});
