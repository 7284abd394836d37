//! Exact values of games against the engine's own search to the end of the decision tree,
//! which shares nothing with the bitboard solver but the rules.

use flipzero_core::{Bitboard, Game, Preset, Rules};
use flipzero_engine::{
    Engine, ExactSolver, Goal, Proof, SearchConfig, WeightsFile, solve_one_best,
};
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

/// `game` with `black` and `white` discs left to its players.
fn with_supplies<W: Bitboard>(rules: &Rules, game: &Game<W>, black: u16, white: u16) -> Game<W> {
    let text: Vec<String> = game
        .to_text(rules)
        .split_whitespace()
        .map(|field| match field.starts_with("supply=") {
            true => format!("supply={black}/0,{white}/0"),
            false => field.to_string(),
        })
        .collect();
    Game::from_text(rules, &text.join(" ")).unwrap()
}

#[test]
fn supplies_that_run_out_are_solved_as_the_rules_play_them() {
    // Classic reversi on 6x6: with the supplies it deals, and with each side's discs cut
    // short, so that a side runs out and passes while the other plays on, or the game ends
    // with squares still empty.
    let rules = Preset::ClassicReversi.rules(Some(6)).unwrap();
    let solver = ExactSolver::new(&rules).unwrap();
    let mut search = engine::<u64>(&rules);
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let mut cut_short = |game: &Game<u64>| {
        let (black, white) = (rng.random_range(0..=5), rng.random_range(0..=5));
        with_supplies(&rules, game, black, white)
    };
    let mut games = Vec::new();
    for dealt in positions::<u64>(&rules, 9, 30, 6) {
        games.push(cut_short(&dealt));
        games.push(dealt);
    }
    // Far from the end too, where short supplies keep the tree small and the solver's
    // tables are used.
    let far = positions::<u64>(&rules, 18, 30, 7);
    games.extend(far.iter().map(&mut cut_short));
    let mut supplies_mattered = 0;
    for game in games {
        if game.is_over() {
            // Neither side can move with the discs it has left.
            continue;
        }
        let (text, side) = (game.to_text(&rules), game.side_to_move());
        let value = solver.solve(&game, Proof::OneBest).unwrap();
        let expected = search.exact_value_by_search(&game);
        assert_eq!(100 * value.margin_for(side), expected, "{text}");
        let decisions = solver.decision_values(&rules, &game).unwrap();
        let best = decisions.iter().map(|(_, child)| child.margin_for(side));
        assert_eq!(best.max(), Some(value.margin_for(side)), "{text}");
        // The same discs with supplies that cannot run out: Othello's value.
        let unlimited = Goal {
            supplies: None,
            ..solver.goal_for(&game)
        };
        let position = solver.position(&game).unwrap();
        let othello = solve_one_best(&position, unlimited).score;
        supplies_mattered += usize::from(othello != value.margin_for(side));
    }
    // Not a vacuous test: the supplies change many of these values.
    assert!(supplies_mattered >= 20, "{supplies_mattered} of 90");
}
