//! Perft on the Othello fast path: kernels compiled per CPU feature level and per board side,
//! counting the last ply in bulk.
//!
//! Conventions (docs/RULES.md section 6): a forced pass counts as one ply, and a finished game is a
//! leaf at every deeper depth. The last ply is counted in bulk (the number of legal moves)
//! rather than played.

use crate::bitboard::Bitboard;
use crate::geometry::{Geometry, Square};
use crate::movegen::{Layout, flips, legal_moves};
use crate::othello::Position;

/// A compiled variant of the perft kernel, chosen at run time from the CPU's features.
///
/// The default release build targets the baseline of each architecture, so that one binary
/// runs everywhere; on x86-64 CPUs with AVX2, BMI1/2, LZCNT and POPCNT (x86-64-v3) a second
/// copy compiled for those features is used instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Compiled for the architecture's baseline; runs on every CPU.
    Portable,
    /// Compiled for x86-64-v3 (AVX2, BMI1, BMI2, LZCNT, POPCNT).
    X86_64V3,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            return Kernel::X86_64V3;
        }
        Kernel::Portable
    }

    /// Every kernel this CPU runs, portable first.
    pub fn available() -> Vec<Kernel> {
        let mut kernels = vec![Kernel::Portable];
        if Kernel::detect() == Kernel::X86_64V3 {
            kernels.push(Kernel::X86_64V3);
        }
        kernels
    }

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::X86_64V3 => "x86-64-v3",
        }
    }
}

/// Defines one copy of the recursive perft kernel. The copies differ only in the target
/// features they are compiled with; each recursion stays inside its own copy, so the feature
/// check happens once per call of [`perft`] rather than once per node.
macro_rules! perft_kernel {
    ($(#[$attribute:meta])* $name:ident) => {
        $(#[$attribute])*
        fn $name<W: Bitboard, L: Layout<W>>(geometry: L, player: W, opponent: W, depth: u32) -> u64 {
            let moves = legal_moves(geometry, player, opponent);
            if moves.is_empty() {
                // A forced pass is one ply; a finished game is one leaf.
                if depth == 1 || legal_moves(geometry, opponent, player).is_empty() {
                    return 1;
                }
                return $name(geometry, opponent, player, depth - 1);
            }
            if depth == 1 {
                return u64::from(moves.count());
            }
            let mut leaves = 0;
            for index in moves.indices() {
                let flipped = flips(geometry, player, opponent, index);
                let next_player = opponent ^ flipped;
                let next_opponent = player | flipped | W::square(index);
                leaves += if depth == 2 {
                    // Bulk count: each reply is a leaf, and so is a forced pass or an end.
                    u64::from(legal_moves(geometry, next_player, next_opponent).count().max(1))
                } else {
                    $name(geometry, next_player, next_opponent, depth - 1)
                };
            }
            leaves
        }
    };
}

perft_kernel!(perft_portable);
perft_kernel!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    perft_x86_64_v3
);

fn perft_raw<W: Bitboard>(
    geometry: &'static Geometry<W>,
    player: W,
    opponent: W,
    depth: u32,
    kernel: Kernel,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Square boards get kernels compiled for their constant side.
    crate::with_layout!(geometry, W, |layout| perft_layout(
        layout, player, opponent, depth, kernel
    ))
}

fn perft_layout<W: Bitboard, L: Layout<W>>(
    geometry: L,
    player: W,
    opponent: W,
    depth: u32,
    kernel: Kernel,
) -> u64 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::X86_64V3 => {
            assert_eq!(
                Kernel::detect(),
                Kernel::X86_64V3,
                "the x86-64-v3 kernel needs a CPU with AVX2, BMI1/2, LZCNT and POPCNT"
            );
            // SAFETY: the assertion above checked that the CPU has every feature the kernel
            // was compiled for.
            unsafe { perft_x86_64_v3(geometry, player, opponent, depth) }
        }
        _ => perft_portable(geometry, player, opponent, depth),
    }
}

/// Perft from `position` to `depth`, on one thread, with the fastest kernel of this CPU.
pub fn perft<W: Bitboard>(position: &Position<W>, depth: u32) -> u64 {
    perft_with_kernel(position, depth, Kernel::detect())
}

/// Perft with a chosen kernel (to test and compare them).
///
/// # Panics
/// When the CPU lacks the kernel's features. On other architectures than x86-64 every
/// kernel is the portable one.
pub fn perft_with_kernel<W: Bitboard>(position: &Position<W>, depth: u32, kernel: Kernel) -> u64 {
    perft_raw(
        position.geometry(),
        position.player(),
        position.opponent(),
        depth,
        kernel,
    )
}

/// Perft on every thread of the current rayon pool.
pub fn perft_parallel<W: Bitboard>(position: &Position<W>, depth: u32) -> u64 {
    crate::perft_driver::count_in_parallel(OthelloTree(*position), depth)
}

/// An Othello position as a node of the shared parallel driver.
struct OthelloTree<W: Bitboard>(Position<W>);

impl<W: Bitboard> crate::perft_driver::PerftTree for OthelloTree<W> {
    fn children(&self, depth: u32) -> Option<Vec<(Self, u32)>> {
        let node = &self.0;
        let moves = node.legal_moves();
        if !moves.is_empty() {
            let children = moves
                .indices()
                .map(|index| OthelloTree(node.play_unchecked(Square(index as u8))))
                .map(|child| (child, depth - 1));
            Some(children.collect())
        } else if node.is_game_over() {
            None
        } else {
            Some(vec![(OthelloTree(node.pass_unchecked()), depth - 1)])
        }
    }

    fn count(&self, depth: u32) -> u64 {
        perft(&self.0, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_counts_the_8x8_start() {
        let start = Position::start(Geometry::<u64>::get(8, 8).unwrap());
        for kernel in Kernel::available() {
            let counts: Vec<u64> = (0..=7)
                .map(|depth| perft_with_kernel(&start, depth, kernel))
                .collect();
            assert_eq!(counts, [1, 4, 12, 56, 244, 1396, 8200, 55092], "{kernel:?}");
        }
        assert_eq!(perft_parallel(&start, 8), 390_216);
    }
}
