//! Position text of every preset: parses or says why; a parsed position prints back to the
//! same text, and one that is not over has a legal decision that plays.
#![no_main]

use flipzero_core::{Bitboard, Game, Rules, with_width};
use flipzero_fuzz::{assert_explained, rules_and_text};
use libfuzzer_sys::fuzz_target;

fn check<W: Bitboard>(rules: &Rules, text: &str) {
    match Game::<W>::from_text(rules, text) {
        Ok(game) => {
            let printed = game.to_text(rules);
            let again = Game::<W>::from_text(rules, &printed).expect("printed text parses");
            assert_eq!(again.to_text(rules), printed);
            let _ = game.to_diagram(rules);
            if !game.is_over() {
                let legal = game.legal_decisions(rules);
                assert!(!legal.is_empty(), "not over and nothing to play: {text}");
                game.play(rules, legal[0]).expect("a legal decision plays");
            }
        }
        Err(error) => assert_explained(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some((rules, text)) = rules_and_text(data) {
        with_width!(rules.square_count(), W => check::<W>(&rules, text));
    }
});
