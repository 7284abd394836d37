//! Arena configs: check or say what is wrong.
#![no_main]

use flipzero_arena::competition::ArenaConfig;
use flipzero_fuzz::assert_explained;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(error) = ArenaConfig::parse(text, "fuzz.toml") {
        assert_explained(&error);
    }
});
