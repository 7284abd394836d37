//! Board text and diagrams (the OBF form and the printed diagram): parse or say why; a
//! parsed position prints back to itself in both forms.
#![no_main]

use flipzero_core::Position;
use flipzero_fuzz::assert_explained;
use libfuzzer_sys::fuzz_target;

fn check(text: &str) {
    match Position::<u128>::from_text(text) {
        Ok(position) => {
            let again = Position::<u128>::from_text(&position.to_text()).expect("printed text");
            assert_eq!(again, position);
            let drawn = Position::<u128>::from_diagram(&position.to_diagram()).expect("diagram");
            assert_eq!(drawn, position);
        }
        Err(error) => assert_explained(&error),
    }
    match Position::<u128>::from_diagram(text) {
        Ok(position) => {
            let again = Position::<u128>::from_diagram(&position.to_diagram()).expect("diagram");
            assert_eq!(again, position);
        }
        Err(error) => assert_explained(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check(text);
    }
});
