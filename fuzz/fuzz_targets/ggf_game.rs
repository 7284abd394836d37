//! GGF games (NBoard's `set game`) for every preset: read and replayed to their end, or
//! refused with a reason; a read game's positions of plain discs written as GGF read back to
//! the same board and side to move, the start included (GGF carries nothing else).
#![no_main]

use flipzero_arena::ggf;
use flipzero_core::{Bitboard, Rules, with_width};
use flipzero_fuzz::{assert_explained, rules_and_text};
use libfuzzer_sys::fuzz_target;

fn check<W: Bitboard>(rules: &Rules, text: &str) {
    match ggf::read_to_end::<W>(rules, text) {
        Ok((end, history)) => {
            let board_and_mover = |game: &flipzero_core::Game<W>| {
                let text = game.to_text(rules);
                text.split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            for game in history.iter().chain(std::iter::once(&end)) {
                let plain = board_and_mover(game);
                if !plain
                    .split(' ')
                    .next()
                    .unwrap_or("")
                    .chars()
                    .all(|c| "XO-".contains(c))
                {
                    continue;
                }
                let written = ggf::write_position(rules, game);
                let (again, moves) = ggf::read::<W>(rules, &written).expect("written GGF reads");
                assert!(moves.is_empty(), "a position is written without moves");
                assert_eq!(board_and_mover(&again), plain, "{written}");
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
