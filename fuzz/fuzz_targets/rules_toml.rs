//! Rules TOML: validates or says why; valid rules print to TOML that reads back the same.
#![no_main]

use flipzero_core::Rules;
use flipzero_fuzz::assert_explained;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Rules::from_toml(text, "fuzz.toml") {
        Ok(rules) => {
            let again = Rules::from_toml(&rules.to_toml(), "printed").expect("printed rules");
            assert_eq!(again.spec(), rules.spec());
        }
        Err(error) => assert_explained(&error),
    }
});
