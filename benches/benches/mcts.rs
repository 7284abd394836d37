//! MCTS without a network: simulations per second of the tree search itself (selection,
//! expansion, backup and the game engine), with the uniform evaluator.
//!
//! Run with `cargo bench -p flipzero-benches --bench mcts`.

// criterion's macros define undocumented items.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flipzero_core::{Game, Preset};
use flipzero_mcts::{Mcts, MctsConfig, UniformEvaluator};

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcts/uniform");
    for side in [6u8, 8] {
        let rules = Preset::Othello.rules(Some(side)).unwrap();
        let start = Game::<u64>::start(&rules);
        let config = MctsConfig {
            simulations: 800,
            ..MctsConfig::default()
        };
        group.throughput(Throughput::Elements(800));
        group.bench_function(format!("othello-{side}x{side}/800-simulations"), |b| {
            b.iter(|| Mcts::new(&rules, config.clone(), &start).search(&mut UniformEvaluator));
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
