//! Proof that a move or a split changed nothing: golden files of what the solver and
//! self-play do, beside the perft tables of `tests/data/perft/`. Each test writes what it sees
//! in the golden file's form and compares it line by line with the committed file.
//!
//! A change that is meant to alter these (a new move ordering, another tree policy) writes the
//! files anew with `FLIPZERO_BLESS=1 cargo test -p flipzero-tests --test unchanged`, and the
//! commit says why they changed.

use std::fmt::Write;
use std::path::PathBuf;

use flipzero_core::{Game, Geometry, Position, Preset, variant::notation};
use flipzero_engine::{Goal, Solution, obf, solve, solve_one_best, solve_outcome};
use flipzero_mcts::{MctsConfig, SearchKind, UniformEvaluator};
use flipzero_selfplay::{SelfPlayConfig, play};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

/// Compares `actual` with the golden file `name`, or writes it there under FLIPZERO_BLESS.
fn check_golden(name: &str, actual: &str) {
    let path = data(&format!("golden/{name}"));
    if std::env::var_os("FLIPZERO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (FLIPZERO_BLESS=1 writes it)", path.display()));
    for (number, (want, got)) in expected.lines().zip(actual.lines()).enumerate() {
        assert_eq!(got, want, "{name} line {}", number + 1);
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{name}: line count"
    );
}

fn solution_line(geometry: &Geometry<u64>, solution: &Solution) -> String {
    let best: Vec<String> = solution
        .best_moves
        .iter()
        .map(|&square| geometry.square_name(square).to_string())
        .collect();
    format!("{:+} {} {}", solution.score, best.join(","), solution.nodes)
}

#[test]
fn the_solver_visits_the_same_nodes_on_ffo_1_to_19() {
    let text = std::fs::read_to_string(data("ffo/fforum-1-19.obf")).unwrap();
    let mut golden =
        String::from("# line: every best move | one best move | outcome (score best nodes)\n");
    for line in obf::parse(&text).unwrap() {
        let position: &Position<u64> = &line.position;
        let geometry = position.geometry();
        writeln!(
            golden,
            "{}: {} | {} | {}",
            line.line,
            solution_line(geometry, &solve(position)),
            solution_line(geometry, &solve_one_best(position, Goal::default())),
            solution_line(geometry, &solve_outcome(position, Goal::default())),
        )
        .unwrap();
    }
    check_golden("ffo-1-19-solver.txt", &golden);
}

#[test]
fn seeded_self_play_with_the_uniform_evaluator_plays_the_same_games() {
    let mut golden = String::new();
    // PUCT with noise on Othello (the bitboard fast paths), Gumbel search with exact leaves
    // and solver targets, and a preset of the variant engine (rotation discs).
    let cases = [
        ("othello", Preset::Othello, SearchKind::Puct, 0, 0),
        (
            "othello-gumbel-solved",
            Preset::Othello,
            SearchKind::Gumbel,
            8,
            10,
        ),
        ("rotation", Preset::Rotation, SearchKind::Puct, 0, 0),
    ];
    for (name, preset, search, solve_empties, solve_targets_empties) in cases {
        let rules = preset.rules(Some(6)).unwrap();
        let config = SelfPlayConfig {
            games: 4,
            parallel_games: 2,
            mcts: MctsConfig {
                simulations: 16,
                search,
                solve_empties,
                considered_actions: 4,
                ..MctsConfig::default()
            },
            temperature_decisions: 6,
            solve_targets_empties,
            solved_value_targets: false,
            full_search_fraction: 1.0,
            fast_simulations: 1,
            opening_plies: 0..=2,
            seed: 11,
        };
        let records = play::<u64>(&rules, &config, &mut UniformEvaluator);
        writeln!(golden, "# {name}").unwrap();
        for record in &records {
            let geometry = Game::<u64>::from_text(&rules, &record.start)
                .unwrap()
                .geometry();
            let moves: Vec<String> = record
                .decisions
                .iter()
                .map(|&decision| notation::decision_name(&rules, geometry, decision))
                .collect();
            writeln!(
                golden,
                "game from {} score {:+} {:?}: {}",
                record.start,
                record.score,
                record.outcome,
                moves.join(" ")
            )
            .unwrap();
            for sample in &record.samples {
                let policy: Vec<String> = sample
                    .policy
                    .iter()
                    .map(|(decision, share)| format!("{decision}:{share:.4}"))
                    .collect();
                writeln!(
                    golden,
                    "  {} {:+} {:+} {} {}",
                    sample.outcome,
                    sample.score,
                    u8::from(sample.solved),
                    policy.join(" "),
                    sample.position
                )
                .unwrap();
            }
        }
    }
    check_golden("selfplay-uniform-6x6.txt", &golden);
}
