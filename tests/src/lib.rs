//! Test support for flipzero: slow, obviously correct reference implementations that the fast
//! engine is checked against, and helpers shared by the integration tests in `tests/`.

pub mod reference;
pub mod rules_reference;

use flipzero_core::{Bitboard, Geometry, Position, Square};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every board shape the differential tests cover: every even square size, a few odd ones and
/// rectangles.
pub const SHAPES: &[(u8, u8)] = &[
    (4, 4),
    (6, 6),
    (8, 8),
    (10, 10),
    (12, 12),
    (14, 14),
    (16, 16),
    (5, 5),
    (7, 9),
    (4, 16),
    (6, 10),
    (16, 8),
];

/// A seeded random number generator, so that failures reproduce.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Plays uniformly random legal moves (and forced passes) from the start to the end of the
/// game, calling `visit` on every position reached, the start and the end included.
pub fn random_game<W: Bitboard>(
    geometry: &'static Geometry<W>,
    rng: &mut impl Rng,
    mut visit: impl FnMut(&Position<W>),
) {
    let mut position = Position::start(geometry);
    loop {
        visit(&position);
        let moves: Vec<Square> = position.legal_squares().collect();
        if moves.is_empty() {
            if position.is_game_over() {
                return;
            }
            position = position.pass().expect("a position with no move passes");
        } else {
            let square = moves[rng.random_range(0..moves.len())];
            position = position.play(square).expect("generated moves are legal");
        }
    }
}

/// A random position: every square independently black, white or empty, with a random side to
/// move. Most such positions no game reaches, which is what a move generator test wants.
pub fn random_position<W: Bitboard>(
    geometry: &'static Geometry<W>,
    rng: &mut impl Rng,
) -> Position<W> {
    let fill: f64 = rng.random_range(0.1..0.95);
    let (mut black, mut white) = (W::EMPTY, W::EMPTY);
    for square in geometry.squares() {
        if rng.random_bool(fill) {
            if rng.random_bool(0.5) {
                black |= W::square(square.index());
            } else {
                white |= W::square(square.index());
            }
        }
    }
    let side = if rng.random_bool(0.5) {
        flipzero_core::Color::Black
    } else {
        flipzero_core::Color::White
    };
    Position::new(geometry, black, white, side).expect("disjoint sets on the board")
}
