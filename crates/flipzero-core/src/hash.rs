//! The hash mixer behind the keys of positions and games.

/// A strong 64-bit mixer (the finaliser of SplitMix64), for the hash keys of positions and
/// games.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
