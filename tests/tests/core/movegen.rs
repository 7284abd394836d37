//! The fast move generator against the slow reference, on every shape.

use flipzero_core::{Bitboard, Color, Geometry, Position, Square, perft};
use flipzero_tests::reference::{ReferenceBoard, indices, legal_indices};
use flipzero_tests::{SHAPES, random_game, random_position, rng};
use proptest::prelude::*;

use crate::for_each_shape;

/// Checks moves, flips and every successor of one position against the reference.
fn assert_matches_reference<W: Bitboard>(position: &Position<W>) {
    let reference = ReferenceBoard::from_position(position);
    assert_eq!(
        legal_indices(position),
        reference.legal_moves(),
        "moves of {position}"
    );
    for square in position.geometry().squares() {
        let index = usize::from(square.0);
        assert_eq!(
            indices(position.flips(square)),
            reference.flips(index),
            "flips of {} in {position}",
            position.geometry().square_name(square)
        );
    }
    for square in position.legal_squares() {
        let next = position.play(square).unwrap();
        let expected = reference.play(usize::from(square.0));
        assert_eq!(
            ReferenceBoard::from_position(&next),
            expected,
            "after {square:?}"
        );
    }
    assert_eq!(
        position.is_game_over(),
        reference.is_game_over(),
        "{position}"
    );
}

#[test]
fn random_games_agree_with_the_reference_on_every_shape() {
    let mut rng = rng(1);
    for_each_shape!(|geometry: W| {
        for _ in 0..6 {
            random_game(geometry, &mut rng, |position| {
                assert_matches_reference(position)
            });
        }
    });
}

#[test]
fn random_boards_agree_with_the_reference_on_every_shape() {
    let mut rng = rng(2);
    for_each_shape!(|geometry: W| {
        for _ in 0..40 {
            assert_matches_reference(&random_position(geometry, &mut rng));
        }
    });
}

#[test]
fn perft_agrees_with_the_reference_on_every_shape() {
    for_each_shape!(|geometry: W| {
        let start = Position::start(geometry);
        let reference = ReferenceBoard::from_position(&start);
        let depth = if geometry.square_count() <= 64 { 6 } else { 5 };
        for depth in 0..=depth {
            assert_eq!(
                perft(&start, depth),
                reference.perft(depth),
                "{} depth {depth}",
                geometry.size_name()
            );
        }
    });
}

#[test]
fn a_game_ends_when_both_sides_are_blocked() {
    // White's one disc sits in the corner with empty squares between it and every black line:
    // Black cannot flank it and White has no line to close.
    let position = Position::<u64>::from_diagram(
        "  a b c d e f g h
         1 X X X X X X X X
         2 X X X X X X X X
         3 X X X X X X X X
         4 X X X X X X X X
         5 X X X X X X X X
         6 X X X X X X X X
         7 X X X X X X - -
         8 X X X X X X - O
         X to move",
    )
    .unwrap();
    assert!(position.legal_moves().is_empty());
    assert!(position.is_game_over());
    assert_eq!(perft(&position, 5), 1);
    assert_eq!(
        position.outcome(),
        Some(flipzero_core::Outcome::Win(Color::Black))
    );
    assert_eq!(
        position.score(flipzero_core::Scoring::WinnerTakesEmpties),
        60 - 1 + 3
    );
}

#[test]
fn a_forced_pass_is_one_ply() {
    // White has no move; Black has a1, and after it White still has none: game over.
    let position = Position::<u64>::from_text(
        "-OXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O",
    )
    .unwrap();
    assert_eq!(position.side_to_move(), Color::White);
    assert!(position.must_pass());
    assert_eq!(perft(&position, 1), 1);
    // The pass, then Black's one move; then the game is over and stays one leaf.
    assert_eq!(perft(&position, 2), 1);
    let after_pass = position.pass().unwrap();
    let a1 = Square(0);
    assert!(after_pass.play(a1).unwrap().is_game_over());
    assert_eq!(perft(&position, 9), 1);
}

fn shape_strategy() -> impl Strategy<Value = (u8, u8)> {
    proptest::sample::select(SHAPES.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_boards_agree_with_the_reference(
        (rows, cols) in shape_strategy(),
        black_bits in any::<[u64; 4]>(),
        white_bits in any::<[u64; 4]>(),
        white_to_move in any::<bool>(),
    ) {
        flipzero_core::with_width!(u32::from(rows) * u32::from(cols), W => {
            let geometry = Geometry::<W>::get(rows, cols).unwrap();
            let set = |words: [u64; 4]| {
                geometry.squares().fold(W::EMPTY, |set, square| {
                    let index = square.index();
                    if words[index as usize / 64] >> (index % 64) & 1 == 1 {
                        set | W::square(index)
                    } else {
                        set
                    }
                })
            };
            let black = set(black_bits);
            let white = set(white_bits) & !black;
            let side = if white_to_move { Color::White } else { Color::Black };
            let position = Position::new(geometry, black, white, side).unwrap();
            assert_matches_reference(&position);
        });
    }
}
