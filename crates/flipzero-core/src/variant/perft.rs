//! Perft for the variant engine, over turns (docs/RULES.md section 6): every decision sequence
//! of `depth` turns, a turn being all the decisions one player makes before the other's turn.

use crate::bitboard::Bitboard;
use crate::perft_driver::{PerftTree, count_in_parallel};
use crate::variant::{Decision, Game, Rules};

/// Perft on one thread.
pub fn perft<W: Bitboard>(rules: &Rules, game: &Game<W>, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return 1;
    }
    let decisions = game.legal_decisions(rules);
    if depth == 1 && game.every_decision_ends_turn(rules) {
        return decisions.len() as u64;
    }
    decisions
        .into_iter()
        .map(|decision| {
            let (next, remaining) = after(rules, game, decision, depth);
            perft(rules, &next, remaining)
        })
        .sum()
}

/// [`perft`] on every thread of the current rayon pool.
pub fn perft_parallel<W: Bitboard>(rules: &Rules, game: &Game<W>, depth: u32) -> u64 {
    count_in_parallel(
        GameTree {
            rules,
            game: game.clone(),
        },
        depth,
    )
}

/// The game after one decision, and the turns left below it: the same depth while the turn
/// goes on, one less after it.
fn after<W: Bitboard>(
    rules: &Rules,
    game: &Game<W>,
    decision: Decision,
    depth: u32,
) -> (Game<W>, u32) {
    let next = game.play_unchecked(rules, decision);
    let remaining = if next.is_mid_turn() { depth } else { depth - 1 };
    (next, remaining)
}

/// A game and its rules as a node of the shared parallel driver.
struct GameTree<'a, W: Bitboard> {
    rules: &'a Rules,
    game: Game<W>,
}

impl<W: Bitboard> PerftTree for GameTree<'_, W> {
    fn children(&self, depth: u32) -> Option<Vec<(Self, u32)>> {
        if self.game.is_over() {
            return None;
        }
        let children = self
            .game
            .legal_decisions(self.rules)
            .into_iter()
            .map(|decision| {
                let (game, remaining) = after(self.rules, &self.game, decision, depth);
                let rules = self.rules;
                (GameTree { rules, game }, remaining)
            });
        Some(children.collect())
    }

    fn count(&self, depth: u32) -> u64 {
        perft(self.rules, &self.game, depth)
    }
}
