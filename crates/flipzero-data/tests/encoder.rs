//! The input encoding against hand-checked planes, and its symmetry and perspective laws on
//! random positions of every preset.

use flipzero_core::{Bitboard, Color, Decision, Game, Phase, Preset, Rules, Symmetry, with_width};
use flipzero_data::encoder::PLANES;
use flipzero_data::{Encoder, legal_mask, policy_permutation};
use ndarray::{Array3, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn plane(planes: &Array3<f32>, name: &str) -> ndarray::Array2<f32> {
    let index = PLANES.iter().position(|(n, _)| *n == name).unwrap();
    planes.index_axis(Axis(0), index).to_owned()
}

fn squares_set(plane: &ndarray::Array2<f32>) -> Vec<(usize, usize)> {
    plane
        .indexed_iter()
        .filter(|(_, value)| **value == 1.0)
        .map(|(at, _)| at)
        .collect()
}

#[test]
fn the_othello_start_from_each_side() {
    let rules = Preset::Othello.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let planes = encoder.encode(&start);
    assert_eq!(planes.dim(), (PLANES.len(), 8, 8));
    // Black to move: own discs e4 and d5 (row, column from a1 = (0, 0)).
    assert_eq!(squares_set(&plane(&planes, "own")), [(3, 4), (4, 3)]);
    assert_eq!(squares_set(&plane(&planes, "opponent")), [(3, 3), (4, 4)]);
    assert_eq!(plane(&planes, "empty").sum(), 60.0);
    assert_eq!(plane(&planes, "on-board").sum(), 64.0);
    assert_eq!(plane(&planes, "own-supply").sum(), 64.0);
    assert_eq!(plane(&planes, "komi").sum(), 0.0);
    // After f5 (which flips e5) White moves: the planes follow the side to move, and White
    // has d4 left.
    let after = start
        .play(&rules, Decision::square(rules_square(&start, "f5")))
        .unwrap();
    let planes = encoder.encode(&after);
    assert_eq!(squares_set(&plane(&planes, "own")), [(3, 3)]);
    assert_eq!(plane(&planes, "opponent").sum(), 4.0);
}

fn rules_square<W: Bitboard>(game: &Game<W>, name: &str) -> flipzero_core::Square {
    game.geometry().parse_square(name).unwrap()
}

#[test]
fn komi_supplies_and_phases_reach_their_planes() {
    // Fixed komi -2.5 favours Black by 2.5 discs, so Black sees +2.5 and White -2.5.
    let rules = Preset::KomiFixed.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let komi = plane(&encoder.encode(&start), "komi");
    assert!(
        komi.iter().all(|&v| (v - 2.5 / 64.0).abs() < 1e-6),
        "{komi}"
    );
    let after = start.play_unchecked(&rules, start.legal_decisions(&rules)[0]);
    assert!(
        plane(&encoder.encode(&after), "komi")
            .iter()
            .all(|&v| (v + 2.5 / 64.0).abs() < 1e-6)
    );
    // Komi bidding: the phase plane, then the first bid.
    let rules = Preset::Komi.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    assert_eq!(plane(&encoder.encode(&start), "phase-bid").sum(), 64.0);
    let bid = start.play(&rules, Decision::Bid(4)).unwrap();
    assert_eq!(plane(&encoder.encode(&bid), "first-bid").sum(), 4.0);
    // Classic reversi: 32 discs each of 64 squares.
    let rules = Preset::ClassicReversi.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let planes = encoder.encode(&Game::<u64>::start(&rules));
    assert_eq!(plane(&planes, "own-supply")[(0, 0)], 0.5);
    // Neuversi: after the placement, the drop phase.
    let rules = Preset::Neuversi.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let placed = start.play_unchecked(&rules, start.legal_decisions(&rules)[0]);
    assert_eq!(placed.phase(), Phase::NeutralDrop);
    assert_eq!(
        plane(&encoder.encode(&placed), "phase-neutral-drop").sum(),
        64.0
    );
}

#[test]
fn reversi_ii_supplies_and_next_colours_are_visible() {
    let rules = Preset::ReversiII.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let planes = encoder.encode(&start);
    let constant = |planes: &Array3<f32>, name: &str| plane(planes, name)[(0, 0)];
    // 15 discs of each colour each, of 64 squares; everyone places their own colour first.
    for name in [
        "own-supply",
        "opponent-supply",
        "own-supply-other",
        "opponent-supply-other",
    ] {
        assert_eq!(constant(&planes, name), 15.0 / 64.0, "{name}");
    }
    assert_eq!(constant(&planes, "own-places-other"), 0.0);
    assert_eq!(constant(&planes, "opponent-places-other"), 0.0);
    // After Black's first (black) disc, White to move: Black's next disc is white, and
    // Black has one black disc fewer.
    let after = start.play_unchecked(&rules, start.legal_decisions(&rules)[0]);
    let planes = encoder.encode(&after);
    assert_eq!(constant(&planes, "own-places-other"), 0.0);
    assert_eq!(constant(&planes, "opponent-places-other"), 1.0);
    assert_eq!(constant(&planes, "opponent-supply"), 14.0 / 64.0);
    assert_eq!(constant(&planes, "opponent-supply-other"), 15.0 / 64.0);
    assert_eq!(constant(&planes, "own-supply"), 15.0 / 64.0);
    // Two states that differ only in the colour the side to move places next (the text's
    // `next=` field: the colours Black's and White's players place next) differ in the
    // planes.
    let text = after.to_text(&rules);
    assert!(text.contains("next=OO"), "{text}");
    let white_places_black =
        Game::<u64>::from_text(&rules, &text.replace("next=OO", "next=OX")).unwrap();
    assert_eq!(
        constant(&encoder.encode(&white_places_black), "own-places-other"),
        1.0
    );
    assert_ne!(encoder.encode(&white_places_black), planes);
    // Under the free choice both next-colour planes stay 0: the colour is the decision's.
    let rules = Preset::ReversiIIFree.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let after = start.play_unchecked(&rules, start.legal_decisions(&rules)[0]);
    let planes = encoder.encode(&after);
    assert_eq!(constant(&planes, "opponent-places-other"), 0.0);
    assert_eq!(constant(&planes, "own-places-other"), 0.0);
}

#[test]
fn sacrifice_repetitions_are_visible_and_hashed() {
    // e4 d4 d5 e4 d4 d5 brings back the start board, so after e4 and after that cycle and e4
    // again the board, the side to move and the ko are the same; the second is the position's
    // second occurrence, two more of which draw (repetition limit 3).
    let rules = Preset::Sacrifice.rules(None).unwrap();
    let encoder = Encoder::new(&rules);
    let start = Game::<u64>::start(&rules);
    let replay =
        |line: &str| flipzero_core::variant::notation::replay(&rules, &start, line).unwrap();
    let first = replay("e4");
    let second = replay("e4 d4 d5 e4 d4 d5 e4");
    let seen = |game: &Game<u64>| {
        let discs = (game.discs(Color::Black), game.discs(Color::White));
        (discs, game.side_to_move(), game.ko())
    };
    assert_eq!(seen(&first), seen(&second));
    assert_eq!(
        (first.earlier_occurrences(), second.earlier_occurrences()),
        (0, 1)
    );
    let repetitions = |game: &Game<u64>| plane(&encoder.encode(game), "repetitions")[(0, 0)];
    assert_eq!(repetitions(&first), 0.0);
    assert_eq!(repetitions(&second), 1.0 / 3.0);
    assert_ne!(encoder.encode(&first), encoder.encode(&second));
    assert_ne!(first.hash(), second.hash());
    // A placement clears the record (no earlier position can come back): from there on the
    // two games look alike again.
    let placed = |game: &Game<u64>| {
        let square = game
            .legal_decisions(&rules)
            .into_iter()
            .find(|decision| {
                let next = game.play_unchecked(&rules, *decision);
                next.empty().count() < game.empty().count()
            })
            .unwrap();
        game.play_unchecked(&rules, square)
    };
    let (first, second) = (placed(&first), placed(&second));
    assert_eq!(seen(&first), seen(&second));
    assert_eq!(
        (first.earlier_occurrences(), second.earlier_occurrences()),
        (0, 0)
    );
    assert_eq!(encoder.encode(&first), encoder.encode(&second));
    // Under rules without the repetition rule the plane stays 0.
    let othello = Preset::Othello.rules(None).unwrap();
    let start = Game::<u64>::start(&othello);
    assert_eq!(
        plane(&Encoder::new(&othello).encode(&start), "repetitions").sum(),
        0.0
    );
}

/// The game after random decisions.
fn random_game<W: Bitboard>(rules: &Rules, seed: u64) -> Game<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let decisions = rng.random_range(0..30);
    Game::<W>::try_start(rules, seed)
        .unwrap()
        .play_randomly(rules, &mut rng, decisions)
}

#[test]
fn symmetries_move_planes_and_policies_together_on_every_preset() {
    for preset in Preset::ALL {
        let rules = preset.rules(None).unwrap();
        with_width!(rules.square_count(), W => {
            let encoder = Encoder::new(&rules);
            for seed in 0..4 {
                let game = random_game::<W>(&rules, seed);
                let planes = encoder.encode(&game);
                assert!(planes.iter().all(|v| v.is_finite() && v.abs() <= 1.0), "{preset}");
                let mask = legal_mask(&rules, &game);
                for symmetry in Symmetry::of_board(game.geometry()) {
                    let seen = game.transformed(symmetry);
                    let seen_planes = encoder.encode(&seen);
                    let cols = usize::from(rules.cols());
                    for square in game.geometry().squares() {
                        let moved = symmetry.apply(game.geometry(), square);
                        let (from, to) = (square.0 as usize, moved.0 as usize);
                        for p in 0..PLANES.len() {
                            assert_eq!(
                                planes[(p, from / cols, from % cols)],
                                seen_planes[(p, to / cols, to % cols)],
                                "{preset} {symmetry:?} plane {}",
                                PLANES[p].0
                            );
                        }
                    }
                    let permutation = policy_permutation(&rules, &game, symmetry);
                    let seen_mask = legal_mask(&rules, &seen);
                    for (index, &target) in permutation.iter().enumerate() {
                        assert_eq!(mask[index], seen_mask[target], "{preset} {symmetry:?}");
                    }
                }
            }
        });
    }
}
