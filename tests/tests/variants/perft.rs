//! The perft file of every preset (`tests/data/perft/<preset>.txt`): one line per depth,
//! `<side> <depth> <leaves>`, counted as docs/RULES.md section 6 says. Depths whose leaves exceed
//! `NORMAL_SUITE_LEAVES` run only with `--ignored`.

use flipzero_core::{Game, Preset, variant};

const NORMAL_SUITE_LEAVES: u64 = 400_000;

fn perft_lines(preset: Preset) -> Vec<(u8, u32, u64)> {
    let path = format!(
        "{}/data/perft/{}.txt",
        env!("CARGO_MANIFEST_DIR"),
        preset.name()
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<u64> = line
                .split_whitespace()
                .map(|field| field.parse().unwrap())
                .collect();
            (fields[0] as u8, fields[1] as u32, fields[2])
        })
        .collect()
}

fn check(heavy: bool) {
    for preset in Preset::ALL {
        let lines = perft_lines(preset);
        let deepest = lines.iter().map(|&(_, depth, _)| depth).max().unwrap_or(0);
        // Biversi turns are two placements: its depth 6 has some 4.5e9 leaves.
        let wanted = if preset == Preset::Biversi { 5 } else { 6 };
        assert!(
            deepest >= wanted,
            "{preset}: the file must reach depth {wanted}"
        );
        for (side, depth, leaves) in lines {
            if (leaves > NORMAL_SUITE_LEAVES) != heavy {
                continue;
            }
            let rules = preset.rules(Some(side)).unwrap();
            let counted = flipzero_core::with_width!(rules.square_count(), W => {
                variant::perft::perft_parallel(&rules, &Game::<W>::start(&rules), depth)
            });
            assert_eq!(counted, leaves, "{preset} {side}x{side} depth {depth}");
        }
    }
}

#[test]
fn every_preset_matches_its_perft_file() {
    check(false);
}

#[test]
#[ignore = "the deep lines of the perft files: minutes"]
fn every_preset_matches_its_perft_file_deep() {
    check(true);
}
