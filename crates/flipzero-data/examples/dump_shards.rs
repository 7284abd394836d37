//! Prints every sample of the given shard files, one tab-separated line each: the shard, the
//! sample's index in it, its position, whether its targets are solved, its outcome and score
//! targets, and its policy target's most likely decision index. For looking at what a run
//! trains on (experiments/2026-12-01-othello-6x6-perfect-play/value-targets.py reads it):
//!
//!     cargo run --release -p flipzero-data --example dump_shards -- runs/x/shards/*.shard

use std::path::Path;

fn main() {
    for path in std::env::args().skip(1) {
        let (_, samples) = match flipzero_data::read_shard(Path::new(&path)) {
            Ok(shard) => shard,
            Err(error) => {
                eprintln!("{error}");
                std::process::exit(1);
            }
        };
        for (index, sample) in samples.iter().enumerate() {
            let likeliest = sample
                .policy
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(0, |&(decision, _)| decision);
            println!(
                "{path}\t{index}\t{}\t{}\t{}\t{}\t{likeliest}",
                sample.position, sample.solved, sample.outcome, sample.score
            );
        }
    }
}
