//! Agent names (`engine:depth=4`, `mcts:checkpoint=F,...`) and evaluation weights TOML:
//! parse or say why.
#![no_main]

use flipzero_arena::AgentSpec;
use flipzero_engine::WeightsFile;
use flipzero_fuzz::assert_explained;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(error) = text.parse::<AgentSpec>() {
        assert_explained(&error);
    }
    if let Err(error) = WeightsFile::parse(text, "fuzz.toml") {
        assert_explained(&error);
    }
});
