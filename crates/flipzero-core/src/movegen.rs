//! The two kernels every search spends its time in: legal moves in bulk and the discs a move
//! flips. Both work on the (mover, opponent) pair of bitboards and are `inline(always)` so that
//! they are compiled into each caller, including the callers built for wider CPU features.

use crate::bitboard::Bitboard;
use crate::geometry::{Axis, Geometry};

/// Where the move generator reads the board shape from.
///
/// Any [`Geometry`] is a layout, read at run time. [`SquareBoard`] is the same shape with its
/// side as a constant, so that the shifts become immediates and the fill loops unroll: the
/// fast path of perft and search on the standard boards.
pub trait Layout<W: Bitboard>: Copy {
    /// All squares of the board.
    fn board(self) -> W;
    /// The four axes, see [`Geometry`].
    fn axes(self) -> [Axis<W>; 4];
    /// The eight rays from a square, towards higher indices first.
    fn rays(self, index: u32) -> &'static [W; 8];
}

impl<W: Bitboard> Layout<W> for &'static Geometry<W> {
    #[inline(always)]
    fn board(self) -> W {
        Geometry::board(self)
    }
    #[inline(always)]
    fn axes(self) -> [Axis<W>; 4] {
        self.axes
    }
    #[inline(always)]
    fn rays(self, index: u32) -> &'static [W; 8] {
        &self.rays[index as usize]
    }
}

/// A square board whose side is known at compile time; masks and rays come from its geometry.
#[derive(Clone, Copy, Debug)]
pub struct SquareBoard<W: 'static, const SIDE: u8>(&'static Geometry<W>);

impl<W: Bitboard, const SIDE: u8> SquareBoard<W, SIDE> {
    /// The layout of `geometry`, when it is the `SIDE` x `SIDE` board.
    pub fn new(geometry: &'static Geometry<W>) -> Option<Self> {
        (geometry.rows() == SIDE && geometry.cols() == SIDE).then_some(Self(geometry))
    }
}

impl<W: Bitboard, const SIDE: u8> Layout<W> for SquareBoard<W, SIDE> {
    #[inline(always)]
    fn board(self) -> W {
        self.0.board()
    }
    #[inline(always)]
    fn axes(self) -> [Axis<W>; 4] {
        let side = u32::from(SIDE);
        // The longest flank line of a square board runs along any axis: SIDE - 2 discs.
        let passes = u32::BITS - (side - 2).leading_zeros();
        let [horizontal, anti_diagonal, vertical, diagonal] = self.0.axes;
        [
            Axis::new(1, horizontal.interior, passes),
            Axis::new(side - 1, anti_diagonal.interior, passes),
            Axis::new(side, vertical.interior, passes),
            Axis::new(side + 1, diagonal.interior, passes),
        ]
    }
    #[inline(always)]
    fn rays(self, index: u32) -> &'static [W; 8] {
        self.0.rays(index)
    }
}

/// Evaluates `$body` with `$layout` bound to the fastest layout of a board: a [`SquareBoard`]
/// with its side as a constant for the square boards of even side (those that fit `$W`), the
/// [`Geometry`] itself otherwise. `$body` is compiled once per layout.
///
/// ```
/// use flipzero_core::{Geometry, movegen};
///
/// let geometry = Geometry::<u64>::get(8, 8)?;
/// let start = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
/// let moves = flipzero_core::with_layout!(geometry, u64, |layout| {
///     movegen::legal_moves(layout, start.0, start.1).count_ones()
/// });
/// assert_eq!(moves, 4);
/// # Ok::<(), flipzero_core::GeometryError>(())
/// ```
#[macro_export]
macro_rules! with_layout {
    ($geometry:expr, $W:ty, |$layout:ident| $body:expr) => {{
        let geometry: &'static $crate::Geometry<$W> = $geometry;
        let run = || {
            macro_rules! try_side {
                ($side:literal) => {
                    if let Some($layout) = $crate::movegen::SquareBoard::<$W, $side>::new(geometry)
                    {
                        return $body;
                    }
                };
            }
            if <$W as $crate::Bitboard>::BITS == 64 {
                try_side!(4);
                try_side!(6);
                try_side!(8);
            } else {
                try_side!(10);
                try_side!(12);
                try_side!(14);
                try_side!(16);
            }
            let $layout = geometry;
            $body
        };
        run()
    }};
}

/// The squares where `player` may move against `opponent`.
#[inline(always)]
pub fn legal_moves<W: Bitboard, L: Layout<W>>(layout: L, player: W, opponent: W) -> W {
    let empty = layout.board() & !(player | opponent);
    let mut moves = W::EMPTY;
    for axis in layout.axes() {
        moves |= flank_ends(axis, player, opponent);
    }
    moves & empty
}

/// Legal moves where each axis has its own pivots (rotation discs flank only along their
/// arms; an axis with no pivots flanks nothing). `through` holds the discs a line may cross.
/// Axes are ordered horizontal, anti-diagonal, vertical, diagonal.
#[inline]
pub fn legal_moves_by_axis<W: Bitboard, L: Layout<W>>(
    layout: L,
    pivots: [W; 4],
    through: W,
    empty: W,
) -> W {
    let mut moves = W::EMPTY;
    for (axis, pivots) in layout.axes().into_iter().zip(pivots) {
        if !pivots.is_empty() {
            moves |= flank_ends(axis, pivots, through);
        }
    }
    moves & empty
}

/// The squares just past a run of `through` discs that starts next to a pivot, both ways
/// along one axis.
#[inline(always)]
fn flank_ends<W: Bitboard>(axis: Axis<W>, pivots: W, through: W) -> W {
    let through = through & axis.interior;
    // Kogge-Stone occluded fill in both directions of the axis: after pass k, `ahead` holds
    // the discs reachable from a pivot by runs of up to 2^k - 1.
    let (mut ahead_up, mut open_up) = (pivots, through);
    let (mut ahead_down, mut open_down) = (pivots, through);
    let mut step = axis.shift;
    for _ in 0..axis.passes {
        ahead_up |= open_up & (ahead_up << step);
        ahead_down |= open_down & (ahead_down >> step);
        open_up &= open_up << step;
        open_down &= open_down >> step;
        step *= 2;
    }
    ((ahead_up & through) << axis.shift) | ((ahead_down & through) >> axis.shift)
}

/// The opponent discs flipped when `player` moves on the empty square `index`.
///
/// Returns the empty set when the move is illegal.
#[inline(always)]
pub fn flips<W: Bitboard, L: Layout<W>>(layout: L, player: W, opponent: W, index: u32) -> W {
    let rays = layout.rays(index);
    let mut flipped = W::EMPTY;
    for &ray in &rays[..4] {
        flipped |= run_towards_higher(ray, player, opponent);
    }
    for &ray in &rays[4..] {
        flipped |= run_towards_lower(ray, player, opponent);
    }
    flipped
}

/// The discs flipped by a disc on `index` when each axis has its own pivots, as in
/// [`legal_moves_by_axis`].
#[inline]
pub fn flips_by_axis<W: Bitboard, L: Layout<W>>(
    layout: L,
    pivots: [W; 4],
    through: W,
    index: u32,
) -> W {
    let rays = layout.rays(index);
    let mut flipped = W::EMPTY;
    for (axis, pivots) in pivots.into_iter().enumerate() {
        if !pivots.is_empty() {
            flipped |= run_towards_higher(rays[axis], pivots, through);
            flipped |= run_towards_lower(rays[axis + 4], pivots, through);
        }
    }
    flipped
}

/// The run of `through` discs along a ray towards higher indices, if a pivot closes it.
#[inline(always)]
fn run_towards_higher<W: Bitboard>(ray: W, pivots: W, through: W) -> W {
    // The first square that is not a `through` disc is the lowest set bit of `candidates`;
    // if it is a pivot, everything before it flips.
    let candidates = ray & !through;
    let first = candidates & candidates.wrapping_neg();
    let outflank = first & pivots;
    let run = outflank.wrapping_sub(W::ONE) & ray;
    if outflank.is_empty() { W::EMPTY } else { run }
}

/// The run of `through` discs along a ray towards lower indices, if a pivot closes it.
#[inline(always)]
fn run_towards_lower<W: Bitboard>(ray: W, pivots: W, through: W) -> W {
    // The first square is the highest set bit. Square 0 is added as a sentinel so the set is
    // never empty; `& ray` drops it again when it is not on the ray.
    let candidates = (ray & !through) | W::ONE;
    let outflank = W::square(candidates.highest_index()) & pivots & ray;
    (outflank.wrapping_neg() << 1) & ray
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_has_four_moves_that_flip_one_disc() {
        let geometry = Geometry::<u64>::get(8, 8).unwrap();
        // d4 (27) and e5 (36) white; e4 (28) and d5 (35) black.
        let black = (1u64 << 28) | (1 << 35);
        let white = (1u64 << 27) | (1 << 36);
        let moves = legal_moves(geometry, black, white);
        // d3 (19), c4 (26), f5 (37), e6 (44).
        assert_eq!(moves, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
        assert_eq!(flips(geometry, black, white, 37), 1 << 36);
        assert_eq!(flips(geometry, black, white, 19), 1 << 27);
        assert_eq!(flips(geometry, black, white, 0), 0);
    }

    #[test]
    fn constant_square_layouts_equal_the_computed_ones() {
        fn check<const SIDE: u8>() {
            let geometry = Geometry::<crate::U256>::get(SIDE, SIDE).unwrap();
            let constant = SquareBoard::<_, SIDE>::new(geometry).unwrap();
            for (fixed, computed) in constant.axes().iter().zip(geometry.axes()) {
                assert_eq!(
                    (fixed.shift, fixed.interior, fixed.passes),
                    (computed.shift, computed.interior, computed.passes),
                    "{SIDE}"
                );
            }
        }
        check::<4>();
        check::<5>();
        check::<8>();
        check::<9>();
        check::<16>();
        assert!(SquareBoard::<u64, 6>::new(Geometry::get(8, 8).unwrap()).is_none());
    }
}
