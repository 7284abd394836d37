//! Random games to the end on every preset and size, checking the engine's invariants.

use flipzero_core::variant::rules::{Komi, Objective};
use flipzero_core::{
    Bitboard, Color, Decision, Game, Outcome, Phase, Preset, Rules, Scoring, Symmetry,
};
use rand::Rng;

use crate::every_preset_and_size;

/// The result an independent reading of the objective and komi gives for a finished game
/// that no rule (line, repetition) decided early.
fn expected_by_count<W: Bitboard>(rules: &Rules, game: &Game<W>) -> Outcome {
    let black = game.discs(Color::Black).count() as i32;
    let white = game.discs(Color::White).count() as i32;
    let mut margin = black - white;
    if rules.scoring() == Scoring::WinnerTakesEmpties {
        margin += margin.signum() * game.empty().count() as i32;
    }
    let komi_halves = match rules.komi() {
        Komi::None => 0,
        _ => (game.komi() * 2.0) as i32,
    };
    let black_ahead = match rules.spec().objective {
        Objective::FewestDiscs => komi_halves - 2 * margin,
        _ => 2 * margin - komi_halves,
    };
    match black_ahead.signum() {
        1 => Outcome::Win(Color::Black),
        -1 => Outcome::Win(Color::White),
        _ => Outcome::Draw,
    }
}

/// Whether `discs` fill `length` consecutive squares of a row, column or diagonal (wrapping
/// on a torus), by walking the board.
fn has_line<W: Bitboard>(rules: &Rules, discs: W, length: u8) -> bool {
    let (rows, cols) = (i32::from(rules.rows()), i32::from(rules.cols()));
    let owns = |row: i32, col: i32| {
        let on_board = (0..rows).contains(&row) && (0..cols).contains(&col);
        let (row, col) = if rules.is_torus() {
            (row.rem_euclid(rows), col.rem_euclid(cols))
        } else if on_board {
            (row, col)
        } else {
            return false;
        };
        discs.contains((row * cols + col) as u32)
    };
    (0..rows).any(|row| {
        (0..cols).any(|col| {
            [(0, 1), (1, 0), (1, 1), (1, -1)]
                .iter()
                .any(|(dr, dc)| (0..i32::from(length)).all(|k| owns(row + dr * k, col + dc * k)))
        })
    })
}

fn check_state<W: Bitboard>(rules: &Rules, game: &Game<W>, initial_supply: [[u16; 2]; 2]) {
    let text = game.to_text(rules);
    let board = game.geometry().board();
    let (black, white, neutral) = (
        game.discs(Color::Black),
        game.discs(Color::White),
        game.neutral(),
    );
    assert!(
        (black & white).is_empty() && (black & neutral).is_empty() && (white & neutral).is_empty(),
        "{text}"
    );
    assert!(((black | white | neutral) & !board).is_empty(), "{text}");
    for color in Color::ALL {
        let [own, other] = game.supply(color);
        let [own_0, other_0] = initial_supply[color as usize];
        assert!(
            own <= own_0 && other <= other_0,
            "supply grew or wrapped: {text}"
        );
    }
    // The text round-trips (the repetition history aside, which the text does not carry).
    let parsed = Game::<W>::from_text(rules, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(parsed.to_text(rules), text);
    assert_eq!(
        parsed.legal_decisions(rules),
        game.legal_decisions(rules),
        "{text}"
    );

    let decisions = game.legal_decisions(rules);
    if game.awaits_chance() {
        // The outcomes of a chance event are no player's decisions: they have no index.
        assert_eq!(
            decisions,
            [false, true].map(|swapped| Decision::TieBreak { swapped }),
            "{text}"
        );
        return;
    }
    let mut sorted = decisions.clone();
    sorted.sort_by_key(|&decision| rules.decision_index(decision));
    sorted.dedup();
    assert_eq!(sorted, decisions, "duplicates or disorder in {text}");
    for &decision in &decisions {
        let index = rules.decision_index(decision);
        assert!(index < rules.decision_count());
        assert_eq!(rules.decision_at(index), Some(decision));
    }
    if game.is_over() {
        assert!(decisions.is_empty(), "{text}");
        let outcome = game.outcome(rules).expect("a finished game has a result");
        match rules.spec().objective {
            Objective::Line { length, .. } => {
                let winner_line = |color: Color| has_line(rules, game.discs(color), length);
                match outcome {
                    Outcome::Win(color) if winner_line(color) => {}
                    _ => {
                        assert!(
                            !winner_line(Color::Black) && !winner_line(Color::White),
                            "{text}"
                        );
                        if rules.spec().objective
                            == (Objective::Line {
                                length,
                                fallback: flipzero_core::variant::rules::LineFallback::Draw,
                            })
                        {
                            assert_eq!(outcome, Outcome::Draw);
                        } else {
                            assert_eq!(outcome, expected_by_count(rules, game), "{text}");
                        }
                    }
                }
            }
            _ if rules.spec().sacrifice.is_some() && outcome == Outcome::Draw => {}
            _ => assert_eq!(outcome, expected_by_count(rules, game), "{text}"),
        }
    } else {
        assert!(!decisions.is_empty(), "a live game has a decision: {text}");
        assert_eq!(game.outcome(rules), None);
    }
}

fn check_symmetry<W: Bitboard>(rules: &Rules, game: &Game<W>, symmetry: Symmetry) {
    let geometry = game.geometry();
    let image = game.transformed(symmetry);
    let map = |decision: Decision| match decision {
        Decision::Square { square, option } => Decision::Square {
            square: symmetry.apply(geometry, square),
            option,
        },
        other => other,
    };
    let mut expected: Vec<Decision> = game.legal_decisions(rules).into_iter().map(map).collect();
    if !game.awaits_chance() {
        expected.sort_by_key(|&decision| rules.decision_index(decision));
    }
    assert_eq!(
        image.legal_decisions(rules),
        expected,
        "{symmetry:?} of {}",
        game.to_text(rules)
    );
    if matches!(game.phase(), Phase::Orient { .. }) {
        // Flipped discs are oriented lowest square first, an order symmetries do not keep.
        return;
    }
    for decision in game.legal_decisions(rules) {
        let turned_after = game.play_unchecked(rules, decision).transformed(symmetry);
        let after_turned = image.play_unchecked(rules, map(decision));
        assert_eq!(
            turned_after.to_text(rules),
            after_turned.to_text(rules),
            "{symmetry:?} {decision:?}"
        );
    }
}

fn play_random_game<W: Bitboard>(rules: &Rules, seed: u64) -> usize {
    let mut rng = flipzero_tests::rng(seed);
    let mut game = Game::<W>::try_start(rules, seed).unwrap();
    let initial_supply = [game.supply(Color::Black), game.supply(Color::White)];
    let symmetries: Vec<Symmetry> = Symmetry::of_board(game.geometry()).collect();
    let mut decisions_played = 0;
    loop {
        if decisions_played % 5 == 0 || game.is_over() || game.awaits_chance() {
            check_state(rules, &game, initial_supply);
        }
        if decisions_played % 7 == 0 {
            let symmetry = symmetries[rng.random_range(0..symmetries.len())];
            check_symmetry(rules, &game, symmetry);
        }
        let decisions = game.legal_decisions(rules);
        if decisions.is_empty() {
            return decisions_played;
        }
        let decision = decisions[rng.random_range(0..decisions.len())];
        game = game.play(rules, decision).unwrap();
        decisions_played += 1;
        assert!(decisions_played < 5000, "a game that does not end");
    }
}

#[test]
fn the_chance_event_after_equal_bids_keeps_every_invariant() {
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let start = Game::<u64>::start(&rules);
    let initial_supply = [start.supply(Color::Black), start.supply(Color::White)];
    let tie = flipzero_core::replay(&rules, &start, "bid-3 bid-3").unwrap();
    assert!(tie.awaits_chance());
    check_state(&rules, &tie, initial_supply);
    for symmetry in Symmetry::of_board(tie.geometry()) {
        check_symmetry(&rules, &tie, symmetry);
    }
}

#[test]
fn random_games_keep_every_invariant_on_every_preset_and_size() {
    for (preset, side, rules) in every_preset_and_size() {
        // Larger boards get one game, small ones several.
        let games = if side <= 8 { 3 } else { 1 };
        for seed in 0..games {
            let played = flipzero_core::with_width!(rules.square_count(), W => {
                play_random_game::<W>(&rules, seed)
            });
            assert!(played > 0, "{preset} {side}x{side}");
        }
    }
}

#[test]
fn position_text_refuses_supplies_and_komi_the_rules_cannot_have() {
    let othello = flipzero_core::Preset::Othello.rules(None).unwrap();
    let start = format!(
        "{}OX{}XO{} X",
        "-".repeat(27),
        "-".repeat(6),
        "-".repeat(27)
    );
    let error = Game::<u64>::from_text(&othello, &format!("{start} supply=0/0,0/0"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("no supply limit"), "{error}");
    let error = Game::<u64>::from_text(&othello, &format!("{start} komi=100"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("komi beyond the board's 64 squares"),
        "{error}"
    );
    assert!(Game::<u64>::from_text(&othello, &format!("{start} komi=-2.5")).is_ok());
}

#[test]
fn per_player_supplies_run_out_and_the_opponent_plays_on() {
    let rules = flipzero_core::Preset::ClassicReversi.rules(None).unwrap();
    // After the centre plies, Black has no disc left though moves exist: Black passes and
    // White, with discs left, plays on.
    let text = format!(
        "{}OX{}XO{} X supply=0/0,2/0 turns=4",
        "-".repeat(27),
        "-".repeat(6),
        "-".repeat(27)
    );
    let game = Game::<u64>::from_text(&rules, &text).unwrap();
    assert!(!game.is_over());
    assert_eq!(game.legal_decisions(&rules), [Decision::Pass]);
    let white = game.play(&rules, Decision::Pass).unwrap();
    assert!(white.legal_decisions(&rules).len() > 1);
    let after = white.play_unchecked(&rules, white.legal_decisions(&rules)[0]);
    assert_eq!(after.supply(Color::White), [1, 0]);
    // Every disc on the board of a random game came out of a supply.
    for seed in 0..10 {
        let mut rng = flipzero_tests::rng(seed);
        let mut game = Game::<u64>::start(&rules);
        while !game.is_over() {
            let decisions = game.legal_decisions(&rules);
            game = game.play_unchecked(&rules, decisions[rng.random_range(0..decisions.len())]);
        }
        let placed = |color: Color| 32 - game.supply(color)[0];
        let on_board = game.discs(Color::Black).count() + game.discs(Color::White).count();
        assert_eq!(
            u32::from(placed(Color::Black) + placed(Color::White)),
            on_board
        );
    }
}
