//! OBF endgame files: parse or name the line; parsed positions print back to themselves.
#![no_main]

use flipzero_core::Position;
use flipzero_engine::obf;
use flipzero_fuzz::assert_explained;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match obf::parse(text) {
        Ok(lines) => {
            for line in lines {
                let printed = line.position.to_text();
                assert_eq!(Position::<u64>::from_text(&printed).unwrap(), line.position);
            }
        }
        Err(error) => assert_explained(&error),
    }
});
