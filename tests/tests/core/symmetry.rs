//! Board symmetries commute with move generation.

use flipzero_core::{Bitboard, Position, Symmetry};
use flipzero_tests::{random_game, random_position, rng};

use crate::for_each_shape;

fn assert_commutes<W: Bitboard>(position: &Position<W>) {
    let geometry = position.geometry();
    for symmetry in Symmetry::of_board(geometry) {
        let image = position.transformed(symmetry);
        assert_eq!(
            image.legal_moves(),
            symmetry.apply_to_set(geometry, position.legal_moves()),
            "{symmetry:?} of {position}"
        );
        for square in position.legal_squares() {
            let moved_then_turned = position.play(square).unwrap().transformed(symmetry);
            let turned_then_moved = image.play(symmetry.apply(geometry, square)).unwrap();
            assert_eq!(
                moved_then_turned, turned_then_moved,
                "{symmetry:?} {square:?}"
            );
        }
        assert_eq!(image.transformed(symmetry.inverse()), *position);
        assert_eq!(image.disc_difference(), position.disc_difference());
    }
}

#[test]
fn symmetries_commute_with_moves_on_every_shape() {
    let mut rng = rng(3);
    for_each_shape!(|geometry: W| {
        random_game(geometry, &mut rng, assert_commutes);
        for _ in 0..10 {
            assert_commutes(&random_position(geometry, &mut rng));
        }
    });
}

#[test]
fn the_start_is_fixed_by_the_half_turn_and_the_diagonal_mirrors_only() {
    let start = Position::start(flipzero_core::Geometry::<u64>::get(8, 8).unwrap());
    let fixing: Vec<Symmetry> = Symmetry::ALL
        .into_iter()
        .filter(|&symmetry| start.transformed(symmetry) == start)
        .collect();
    assert_eq!(
        fixing,
        [
            Symmetry::Identity,
            Symmetry::Rotate180,
            Symmetry::Transpose,
            Symmetry::AntiTranspose
        ]
    );
}
