//! Move lists replayed from each preset's start: play or say which move is wrong; a list
//! that plays, written back as move-list text, replays to the same decisions and game.
#![no_main]

use flipzero_core::{Bitboard, Game, Rules, variant::notation, with_width};
use flipzero_fuzz::{assert_explained, rules_and_text};
use libfuzzer_sys::fuzz_target;

fn check<W: Bitboard>(rules: &Rules, text: &str) {
    let start = Game::<W>::try_start(rules, 7).expect("presets have a start");
    match notation::replay_decisions(rules, &start, text) {
        Ok((decisions, game)) => {
            let written: Vec<String> = decisions
                .iter()
                .map(|&decision| notation::decision_name(rules, start.geometry(), decision))
                .collect();
            let (again, replayed) = notation::replay_decisions(rules, &start, &written.join(" "))
                .expect("a written move list replays");
            assert_eq!(again, decisions, "the decisions of {written:?}");
            assert_eq!(replayed.to_text(rules), game.to_text(rules));
        }
        Err(error) => assert_explained(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some((rules, text)) = rules_and_text(data) {
        with_width!(rules.square_count(), W => check::<W>(&rules, text));
    }
});
