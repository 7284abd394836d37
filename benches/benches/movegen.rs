//! Move generation speed: perft leaves per second on each board size and kernel, and the two
//! kernels (legal moves, flips) on a fixed list of positions.
//!
//! Run with `cargo bench -p flipzero-benches --bench movegen`.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use flipzero_core::{Bitboard, Geometry, Kernel, Position, U256, perft_with_kernel};

fn perft_start<W: Bitboard>(c: &mut Criterion, size: u8, depth: u32) {
    let start = Position::start(Geometry::<W>::get(size, size).unwrap());
    let leaves = perft_with_kernel(&start, depth, Kernel::detect());
    let mut group = c.benchmark_group(format!("perft/{size}x{size}/depth-{depth}"));
    group.sample_size(20);
    group.throughput(Throughput::Elements(leaves));
    for kernel in Kernel::available() {
        group.bench_function(BenchmarkId::from_parameter(kernel.name()), |b| {
            b.iter(|| perft_with_kernel(black_box(&start), depth, kernel))
        });
    }
    group.finish();
}

fn perft(c: &mut Criterion) {
    perft_start::<u64>(c, 8, 9);
    perft_start::<u64>(c, 6, 9);
    perft_start::<u128>(c, 10, 7);
    perft_start::<U256>(c, 16, 6);
}

/// Positions of the FFO endgame suite: midgame-like boards with many legal moves.
fn ffo_positions() -> Vec<Position<u64>> {
    let text = include_str!("../../tests/data/ffo/fforum-40-59.obf");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| Position::from_text(line).unwrap())
        .collect()
}

fn kernels(c: &mut Criterion) {
    let positions = ffo_positions();
    let moves: Vec<(Position<u64>, flipzero_core::Square)> = positions
        .iter()
        .flat_map(|position| {
            position
                .legal_squares()
                .map(move |square| (*position, square))
        })
        .collect();
    let mut group = c.benchmark_group("kernels/8x8");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            positions.iter().fold(0u64, |acc, position| {
                acc ^ black_box(position).legal_moves()
            })
        })
    });
    group.throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function("play", |b| {
        b.iter(|| {
            moves.iter().fold(0u64, |acc, (position, square)| {
                acc ^ black_box(position).play_unchecked(*square).player()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, perft, kernels);
criterion_main!(benches);
