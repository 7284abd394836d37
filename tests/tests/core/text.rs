//! Text formats round-trip, and the position hash tells positions apart.

use std::collections::HashMap;

use flipzero_core::{Bitboard, Position, text_shape};
use flipzero_tests::{random_game, random_position, rng};

use crate::for_each_shape;

fn assert_round_trips<W: Bitboard>(position: &Position<W>) {
    let text = position.to_text();
    assert_eq!(
        Position::<W>::from_text(&text).as_ref(),
        Ok(position),
        "{text}"
    );
    let geometry = position.geometry();
    assert_eq!(text_shape(&text), Ok((geometry.rows(), geometry.cols())));
    let diagram = position.to_diagram();
    assert_eq!(
        Position::<W>::from_diagram(&diagram).as_ref(),
        Ok(position),
        "{diagram}"
    );
}

#[test]
fn text_and_diagrams_round_trip_on_every_shape() {
    let mut rng = rng(4);
    for_each_shape!(|geometry: W| {
        random_game(geometry, &mut rng, assert_round_trips);
        for _ in 0..20 {
            assert_round_trips(&random_position(geometry, &mut rng));
        }
    });
}

#[test]
fn every_ffo_position_parses_and_prints_back() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/ffo");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "obf") {
            for line in std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .filter(|line| !line.trim().is_empty())
            {
                let position = Position::<u64>::from_text(line).unwrap();
                let board_and_side = line.split(';').next().unwrap().trim();
                assert_eq!(position.to_text(), board_and_side);
                count += 1;
            }
        }
    }
    assert_eq!(count, 79);
}

#[test]
fn the_hash_separates_the_positions_of_random_games() {
    let mut rng = rng(5);
    let geometry = flipzero_core::Geometry::<u64>::get(8, 8).unwrap();
    let mut seen: HashMap<u64, Position<u64>> = HashMap::new();
    for _ in 0..200 {
        random_game(geometry, &mut rng, |position| {
            let previous = seen.insert(position.hash(), *position);
            if let Some(previous) = previous {
                assert_eq!(previous, *position, "hash collision");
            }
            assert_ne!(position.hash(), position.pass_unchecked().hash());
        });
    }
    assert!(seen.len() > 10_000);
}
