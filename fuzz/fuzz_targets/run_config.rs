//! Run configs: check or say which key is wrong.
#![no_main]

use flipzero_fuzz::assert_explained;
use flipzero_run::RunConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(error) = RunConfig::parse(text, "fuzz.toml") {
        assert_explained(&error);
    }
});
