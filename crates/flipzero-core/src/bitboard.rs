//! Fixed-width bit sets, one bit per square.
//!
//! The engine is generic over the width: `u64` holds boards up to 8x8, `u128` up to 11x11 and
//! [`U256`] up to 16x16. The width is chosen once per game (see [`crate::Width`]) so that every
//! hot loop is compiled for one concrete integer type.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

pub use ethnum::U256;

/// An integer used as a set of squares.
///
/// Shifts are never called with an amount of `BITS` or more.
pub trait Bitboard:
    Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// Number of bits, hence the largest number of squares this width can hold.
    const BITS: u32;
    /// The empty set.
    const EMPTY: Self;
    /// The set holding square 0 only.
    const ONE: Self;

    /// Number of squares in the set.
    fn count(self) -> u32;
    /// Index of the lowest square; `BITS` for the empty set.
    fn lowest_index(self) -> u32;
    /// Index of the highest square; undefined (but no panic) for the empty set.
    fn highest_index(self) -> u32;
    /// `self - rhs` modulo 2^BITS.
    fn wrapping_sub(self, rhs: Self) -> Self;
    /// `-self` modulo 2^BITS.
    fn wrapping_neg(self) -> Self;
    /// The 64-bit words of the set, lowest first, for hashing.
    fn words(self) -> impl Iterator<Item = u64>;

    /// The set holding `index` only.
    #[inline(always)]
    fn square(index: u32) -> Self {
        Self::ONE << index
    }

    /// Whether `index` is in the set.
    #[inline(always)]
    fn contains(self, index: u32) -> bool {
        (self >> index) & Self::ONE != Self::EMPTY
    }

    /// Whether the set is empty.
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::EMPTY
    }

    /// The set of the lowest `n` squares (`n <= BITS`).
    #[inline]
    fn low_mask(n: u32) -> Self {
        if n == 0 {
            Self::EMPTY
        } else {
            !Self::EMPTY >> (Self::BITS - n)
        }
    }

    /// The squares of the set, lowest index first.
    #[inline]
    fn indices(self) -> Indices<Self> {
        Indices(self)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Copy, Debug)]
pub struct Indices<W>(W);

impl<W: Bitboard> Iterator for Indices<W> {
    type Item = u32;

    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_empty() {
            return None;
        }
        let index = self.0.lowest_index();
        // Clearing the lowest bit: x & (x - 1).
        self.0 &= self.0.wrapping_sub(W::ONE);
        Some(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl<W: Bitboard> ExactSizeIterator for Indices<W> {}

/// Implements [`Bitboard`] for an integer type with the usual bit methods, given its zero,
/// its one, and how to take its lowest 64 bits.
macro_rules! impl_bitboard {
    ($type:ty, zero: $zero:expr, one: $one:expr, low_word: $low_word:expr) => {
        impl Bitboard for $type {
            const BITS: u32 = <$type>::BITS;
            const EMPTY: Self = $zero;
            const ONE: Self = $one;

            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest_index(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn highest_index(self) -> u32 {
                (Self::BITS - 1).wrapping_sub(self.leading_zeros())
            }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$type>::wrapping_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$type>::wrapping_neg(self)
            }
            fn words(self) -> impl Iterator<Item = u64> {
                let low_word: fn(Self) -> u64 = $low_word;
                (0..Self::BITS / 64).map(move |i| low_word(self >> (64 * i)))
            }
        }
    };
}

impl_bitboard!(u64, zero: 0, one: 1, low_word: |x| x);
impl_bitboard!(u128, zero: 0, one: 1, low_word: |x| x as u64);
impl_bitboard!(U256, zero: U256::ZERO, one: U256::ONE, low_word: |x| x.as_u64());

#[cfg(test)]
mod tests {
    use super::*;

    fn check_width<W: Bitboard>() {
        let set = W::square(3) | W::square(W::BITS - 1) | W::square(40);
        assert_eq!(set.count(), 3);
        assert_eq!(set.lowest_index(), 3);
        assert_eq!(set.highest_index(), W::BITS - 1);
        assert_eq!(set.indices().collect::<Vec<_>>(), vec![3, 40, W::BITS - 1]);
        assert!(set.contains(40) && !set.contains(41));
        assert_eq!(W::low_mask(W::BITS), !W::EMPTY);
        assert_eq!(W::low_mask(5).count(), 5);
        assert_eq!(W::EMPTY.lowest_index(), W::BITS);
        assert_eq!(W::square(7).wrapping_neg(), !W::low_mask(7));
        assert_eq!(set.words().map(u64::count_ones).sum::<u32>(), 3);
    }

    #[test]
    fn every_width_behaves_as_a_set() {
        check_width::<u64>();
        check_width::<u128>();
        check_width::<U256>();
    }
}
