//! Classic reversi (its three readings of the fourth turn), sacrifice, Reversi II (both
//! colour rules), rotation, neuversi, adneuversi and biversi against the slow references of `flipzero_tests::rules_reference`, written from docs/RULES.md: random games
//! compared decision by decision, and perft.

use flipzero_core::{Bitboard, Color, Game, Outcome, Preset, Rules, decision_name, with_width};
use flipzero_tests::rules_reference::{Ply4, ReferenceGame, ReferenceRules};
use rand::Rng;

fn cases() -> Vec<(Preset, ReferenceRules)> {
    vec![
        (
            Preset::ClassicReversi,
            ReferenceRules::ClassicReversi { ply4: Ply4::Centre },
        ),
        (
            Preset::ClassicReversiMay,
            ReferenceRules::ClassicReversi { ply4: Ply4::May },
        ),
        (
            Preset::ClassicReversiMust,
            ReferenceRules::ClassicReversi { ply4: Ply4::Must },
        ),
        (Preset::Sacrifice, ReferenceRules::Sacrifice),
        (Preset::ReversiII, ReferenceRules::ReversiII { free: false }),
        (
            Preset::ReversiIIFree,
            ReferenceRules::ReversiII { free: true },
        ),
        (Preset::Rotation, ReferenceRules::Rotation),
        (
            Preset::Neuversi,
            ReferenceRules::Neuversi { adjacent: false },
        ),
        (
            Preset::Adneuversi,
            ReferenceRules::Neuversi { adjacent: true },
        ),
        (Preset::Biversi, ReferenceRules::Biversi),
    ]
}

fn legal_names<W: Bitboard>(rules: &Rules, game: &Game<W>) -> Vec<String> {
    let mut names: Vec<String> = game
        .legal_decisions(rules)
        .into_iter()
        .map(|decision| decision_name(rules, game.geometry(), decision))
        .collect();
    names.sort();
    names
}

fn board_of<W: Bitboard>(rules: &Rules, game: &Game<W>) -> String {
    game.to_text(rules)
        .split(' ')
        .next()
        .expect("a board field")
        .to_owned()
}

/// Plays one random game in both, comparing every step; returns its length.
fn compare_one_game(preset: Preset, reference_rules: ReferenceRules, side: u8, seed: u64) -> usize {
    let rules = preset.rules(Some(side)).unwrap();
    with_width!(rules.square_count(), W => compare_in::<W>(preset, &rules, reference_rules, side, seed))
}

fn compare_in<W: Bitboard>(
    preset: Preset,
    rules: &Rules,
    reference_rules: ReferenceRules,
    side: u8,
    seed: u64,
) -> usize {
    let rules = rules.clone();
    let mut game = Game::<W>::start(&rules);
    let mut reference = ReferenceGame::start(reference_rules, usize::from(side));
    let mut rng = flipzero_tests::rng(seed);
    // Sacrifices can go on for long; random games end well before this.
    for step in 0..3000 {
        let context = format!(
            "{preset} {side}x{side}, seed {seed}, decision {step}: {}",
            game.to_text(&rules)
        );
        assert_eq!(game.is_over(), reference.is_over(), "over? {context}");
        assert_eq!(
            game.is_mid_turn(),
            reference.is_mid_turn(),
            "mid-turn? {context}"
        );
        // Inside a rotation turn the flipped discs' orientations are still being chosen.
        if !game.is_mid_turn() {
            assert_eq!(
                board_of(&rules, &game),
                reference.board(),
                "board: {context}"
            );
        }
        if game.is_over() {
            let result = reference.result();
            let winner = match game.outcome(&rules).unwrap() {
                Outcome::Win(Color::Black) => 1,
                Outcome::Win(Color::White) => -1,
                Outcome::Draw => 0,
            };
            assert_eq!(winner, result.winner, "winner: {context}");
            assert_eq!(game.score(&rules), result.score, "score: {context}");
            return step;
        }
        assert_eq!(
            game.side_to_move().symbol(),
            reference.mover(),
            "mover: {context}"
        );
        let names = legal_names(&rules, &game);
        assert_eq!(names, reference.legal(), "legal decisions: {context}");
        let chosen = &names[rng.random_range(0..names.len())];
        let decision = game
            .legal_decisions(&rules)
            .into_iter()
            .find(|&d| decision_name(&rules, game.geometry(), d) == *chosen)
            .unwrap();
        game = game.play(&rules, decision).unwrap();
        reference.play(chosen);
    }
    panic!("{preset} seed {seed}: a random game longer than 3000 decisions");
}

#[test]
fn random_games_follow_the_references_decision_by_decision() {
    for (preset, reference_rules) in cases() {
        let sizes: &[(u8, u64)] = match reference_rules {
            ReferenceRules::Biversi => &[(6, 200), (8, 60), (10, 30)],
            _ => &[(4, 300), (6, 200), (8, 60)],
        };
        for &(side, games) in sizes {
            let mut longest = 0;
            for seed in 0..games {
                longest = longest.max(compare_one_game(preset, reference_rules, side, seed));
            }
            assert!(
                longest >= usize::from(side) * usize::from(side) / 2,
                "{preset} {side}: {longest}"
            );
        }
    }
}

/// Perft by turns (docs/RULES.md section 6.1): a decision inside a turn uses no depth.
fn reference_perft(game: &ReferenceGame, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return 1;
    }
    game.legal()
        .iter()
        .map(|name| {
            let mut next = game.clone();
            next.play(name);
            let left = if next.is_mid_turn() { depth } else { depth - 1 };
            reference_perft(&next, left)
        })
        .sum()
}

#[test]
fn perft_matches_the_references() {
    for (preset, reference_rules) in cases() {
        // Neuversi's turns multiply fast (4x4: 24,312 at depth 3, 352,944 at 4).
        let depths: &[(u8, u32)] = match reference_rules {
            ReferenceRules::Neuversi { .. } => &[(4, 3), (6, 2)],
            // Biversi has no 4x4 or odd board; 6x6 reaches 14,883 at depth 3.
            ReferenceRules::Biversi => &[(6, 3), (10, 2)],
            _ => &[(6, 5), (8, 5)],
        };
        for &(side, depth) in depths {
            let rules = preset.rules(Some(side)).unwrap();
            let reference = ReferenceGame::start(reference_rules, usize::from(side));
            for d in 1..=depth {
                let leaves = with_width!(rules.square_count(), W => {
                    flipzero_core::variant::perft::perft(&rules, &Game::<W>::start(&rules), d)
                });
                assert_eq!(
                    leaves,
                    reference_perft(&reference, d),
                    "{preset} {side}x{side} depth {d}"
                );
            }
        }
    }
}

#[test]
fn random_opening_moves_like_the_othello_reference_from_its_drawn_starts() {
    // Section 4.5: the cross start and 8 random turns (plies, on Othello), then Othello.
    let rules = Preset::RandomOpening.rules(None).unwrap();
    for seed in 0..12 {
        let game = Game::<u64>::try_start(&rules, seed).unwrap();
        let discs = game.discs(Color::Black).count() + game.discs(Color::White).count();
        assert_eq!(discs, 12, "seed {seed}: 8 plies from the 4 start discs");
        assert_eq!(
            game.turns(),
            0,
            "the turn counter starts again after the opening"
        );
        let position = flipzero_core::Position::new(
            game.geometry(),
            game.discs(Color::Black),
            game.discs(Color::White),
            game.side_to_move(),
        )
        .unwrap();
        let reference = flipzero_tests::reference::ReferenceBoard::from_position(&position);
        for depth in 1..=4 {
            assert_eq!(
                flipzero_core::variant::perft::perft(&rules, &game, depth),
                reference.perft(depth),
                "seed {seed}, depth {depth}"
            );
        }
    }
}
