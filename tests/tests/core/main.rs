//! End-to-end tests of `flipzero-core` against independent references.

mod movegen;
mod perft;
mod symmetry;
mod text;

/// Runs `$body` with `$W` bound to the bitboard type of each shape in turn and `$geometry`
/// to the shape's geometry.
macro_rules! for_each_shape {
    (|$geometry:ident: $W:ident| $body:block) => {
        for &(rows, cols) in flipzero_tests::SHAPES {
            flipzero_core::with_width!(u32::from(rows) * u32::from(cols), $W => {
                let $geometry = flipzero_core::Geometry::<$W>::get(rows, cols).unwrap();
                $body
            })
        }
    };
}
pub(crate) use for_each_shape;
