//! Arena configs: check or say what is wrong; a config that checks, written as TOML, reads
//! back the same.
#![no_main]

use flipzero_arena::competition::ArenaConfig;
use flipzero_fuzz::{assert_explained, assert_toml_round_trip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ArenaConfig::parse(text, "fuzz.toml") {
        Ok((config, _)) => assert_toml_round_trip(&config, |text| {
            ArenaConfig::parse(text, "written.toml").map(|(again, _)| again)
        }),
        Err(error) => assert_explained(&error),
    }
});
