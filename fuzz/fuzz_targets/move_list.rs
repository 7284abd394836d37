//! Move lists replayed from each preset's start: play or say which move is wrong.
#![no_main]

use flipzero_core::{Bitboard, Game, Rules, variant::notation, with_width};
use flipzero_fuzz::{assert_explained, rules_and_text};
use libfuzzer_sys::fuzz_target;

fn check<W: Bitboard>(rules: &Rules, text: &str) {
    let start = Game::<W>::try_start(rules, 7).expect("presets have a start");
    match notation::replay(rules, &start, text) {
        Ok(game) => {
            let _ = game.to_text(rules);
        }
        Err(error) => assert_explained(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some((rules, text)) = rules_and_text(data) {
        with_width!(rules.square_count(), W => check::<W>(&rules, text));
    }
});
