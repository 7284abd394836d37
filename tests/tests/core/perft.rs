//! The 8x8 perft table of docs/RULES.md section 6 (OEIS A124004).

use flipzero_core::{Geometry, Kernel, Position, perft_parallel, perft_with_kernel};

const TABLE: [u64; 15] = [
    1,
    4,
    12,
    56,
    244,
    1396,
    8200,
    55092,
    390_216,
    3_005_288,
    24_571_284,
    212_258_800,
    1_939_886_636,
    18_429_641_748,
    184_042_084_512,
];

fn start() -> Position<u64> {
    Position::start(Geometry::get(8, 8).unwrap())
}

#[test]
fn every_kernel_matches_the_table_to_depth_10() {
    for kernel in Kernel::available() {
        for depth in 0..=10 {
            assert_eq!(
                perft_with_kernel(&start(), depth, kernel),
                TABLE[depth as usize],
                "{kernel:?} depth {depth}"
            );
        }
    }
}

#[test]
fn parallel_perft_matches_the_table() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    for depth in [0, 1, 2, 5, 9] {
        let leaves = pool.install(|| perft_parallel(&start(), depth));
        assert_eq!(leaves, TABLE[depth as usize], "depth {depth}");
    }
}

#[test]
#[ignore = "about 1 s in release, much longer in debug"]
fn depth_11_matches_the_table() {
    assert_eq!(perft_parallel(&start(), 11), TABLE[11]);
}

#[test]
#[ignore = "about 5 s per thread in release"]
fn depth_12_matches_the_table() {
    assert_eq!(perft_parallel(&start(), 12), TABLE[12]);
}

#[test]
fn a_wider_board_counts_the_same_as_the_same_board_on_a_narrower_type() {
    // 8x8 on u128 and U256 takes the generic layout path, not the constant one.
    let wide = Position::start(Geometry::<u128>::get(8, 8).unwrap());
    let widest = Position::start(Geometry::<flipzero_core::U256>::get(8, 8).unwrap());
    for kernel in Kernel::available() {
        assert_eq!(perft_with_kernel(&wide, 8, kernel), TABLE[8]);
        assert_eq!(perft_with_kernel(&widest, 7, kernel), TABLE[7]);
    }
}
