//! Exact values of games against the engine's own search to the end of the decision tree,
//! which shares nothing with the bitboard solver but the rules.

use flipzero_core::{Bitboard, Game, Preset, Rules};
use flipzero_engine::{Engine, ExactSolver, Proof, SearchConfig, WeightsFile};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn engine<W: Bitboard>(rules: &Rules) -> Engine<W> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded")
        .unwrap();
    Engine::new(rules, weights, SearchConfig::default())
}

/// Positions along random games with `empties` empty squares, still to be played.
fn positions<W: Bitboard>(rules: &Rules, empties: u32, count: usize, seed: u64) -> Vec<Game<W>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut game = Game::<W>::try_start(rules, rng.random()).unwrap();
        while !game.is_over() && game.empty().count() > empties {
            let decision = *game.legal_decisions(rules).choose(&mut rng).unwrap();
            game = game.play(rules, decision).unwrap();
        }
        if !game.is_over() {
            found.push(game);
        }
    }
    found
}

#[test]
fn exact_values_equal_the_engines_search_to_the_end() {
    for (preset, size) in [
        (Preset::Othello, 6),
        (Preset::Anti, 6),
        (Preset::Othello, 4),
    ] {
        let rules = preset.rules(Some(size)).unwrap();
        let solver = ExactSolver::new(&rules).unwrap();
        let mut search = engine::<u64>(&rules);
        for game in positions::<u64>(&rules, 9, 25, size as u64) {
            let value = solver.solve(&game, Proof::EveryBest).unwrap();
            let expected = search.exact_value_by_search(&game);
            // The engine's values are centi-discs for the side to move, objective-signed.
            assert_eq!(
                100 * value.margin_for(game.side_to_move()),
                expected,
                "{preset:?} {}",
                game.to_text(&rules)
            );
            assert_eq!(
                i32::from(value.outcome_for(game.side_to_move())),
                expected.signum()
            );
            // Every best decision reaches the value, and the values of all decisions agree.
            let decisions = solver.decision_values(&rules, &game).unwrap();
            let side = game.side_to_move();
            let best = decisions
                .iter()
                .map(|(_, child)| child.margin_for(side))
                .max()
                .unwrap();
            assert_eq!(best, value.margin_for(side));
            let mut reaching: Vec<_> = decisions
                .iter()
                .filter(|(_, child)| child.margin_for(side) == best)
                .map(|(decision, _)| *decision)
                .collect();
            reaching.sort();
            let mut proven = value.best.clone();
            proven.sort();
            assert_eq!(reaching, proven, "{}", game.to_text(&rules));
        }
    }
}

#[test]
fn komi_decides_the_outcome_and_not_the_margin() {
    let rules = Preset::KomiFixed.rules(Some(6)).unwrap();
    let solver = ExactSolver::new(&rules).unwrap();
    let mut search = engine::<u64>(&rules);
    let mut both_outcomes = [false; 2];
    for game in positions::<u64>(&rules, 8, 30, 11) {
        let value = solver.solve(&game, Proof::OneBest).unwrap();
        let side = game.side_to_move();
        let expected = search.exact_value_by_search(&game);
        assert_eq!(
            i32::from(value.outcome_for(side)),
            expected.signum(),
            "{}",
            game.to_text(&rules)
        );
        // The engine counts the komi into its value; the margin does not.
        let komi = search.komi_value(&game);
        assert_eq!(100 * value.margin_for(side) + komi, expected);
        both_outcomes[usize::from(expected > 0)] = true;
    }
    assert_eq!(both_outcomes, [true, true], "wins and losses both seen");
}

#[test]
fn rules_the_solver_cannot_play_have_no_exact_solver() {
    for preset in [
        Preset::Rotation,
        Preset::Sacrifice,
        Preset::Gomullo,
        Preset::Neuversi,
    ] {
        let rules = preset.rules(None).unwrap();
        assert!(ExactSolver::new(&rules).is_none(), "{preset:?}");
    }
    // Classic reversi is covered, but not during its placement plies.
    let rules = Preset::ClassicReversi.rules(Some(6)).unwrap();
    let solver = ExactSolver::new(&rules).unwrap();
    let start = Game::<u64>::try_start(&rules, 0).unwrap();
    assert!(solver.position(&start).is_none());
}
