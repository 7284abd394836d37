//! Self-play games replay to their recorded ends, and their samples carry the right targets.

use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Preset, Rules};
use flipzero_mcts::{MctsConfig, UniformEvaluator};
use flipzero_selfplay::{GameRecord, SelfPlayConfig, play};

fn config(games: usize) -> SelfPlayConfig {
    SelfPlayConfig {
        games,
        parallel_games: 3,
        mcts: MctsConfig {
            simulations: 24,
            ..MctsConfig::default()
        },
        temperature_decisions: 8,
        solve_targets_empties: 0,
        solved_value_targets: false,
        full_search_fraction: 1.0,
        fast_simulations: 1,
        opening_plies: 0..=0,
        seed: 5,
    }
}

fn check(rules: &Rules, record: &GameRecord) {
    let mut game = Game::<u64>::from_text(rules, &record.start).unwrap();
    let mut samples = record.samples.iter();
    for &decision in &record.decisions {
        if game.awaits_chance() {
            // Drawn, not searched: no sample.
            assert!(matches!(decision, Decision::TieBreak { .. }));
            game = game.play(rules, decision).unwrap();
            continue;
        }
        let sample = samples
            .next()
            .expect("a sample for every searched decision");
        assert_eq!(sample.position, game.to_text(rules));
        let total: f32 = sample.policy.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
        let index = rules.decision_index(decision) as u16;
        assert!(
            sample.policy.iter().any(|p| p.0 == index && p.1 > 0.0),
            "played unvisited"
        );
        game = game.play(rules, decision).unwrap();
    }
    assert!(samples.next().is_none(), "a sample without a decision");
    assert!(game.is_over());
    assert_eq!(game.outcome(rules), Some(record.outcome));
    assert_eq!(game.score(rules), record.score);
}

#[test]
fn games_replay_to_their_ends_with_consistent_targets() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let records = play::<u64>(&rules, &config(6), &mut UniformEvaluator);
    assert_eq!(records.len(), 6);
    for record in &records {
        check(&rules, record);
        // Othello turns alternate except for passes: each sample's target follows its side.
        let mut game = Game::<u64>::from_text(&rules, &record.start).unwrap();
        for (sample, &decision) in record.samples.iter().zip(&record.decisions) {
            let side = game.side_to_move();
            let expected = match record.outcome {
                Outcome::Draw => 0,
                Outcome::Win(winner) if winner == side => 1,
                Outcome::Win(_) => -1,
            };
            assert_eq!(sample.outcome, expected);
            let margin = if side == Color::Black {
                record.score
            } else {
                -record.score
            };
            assert_eq!(sample.score, margin as f32);
            game = game.play_unchecked(&rules, decision);
        }
    }
    assert_eq!(
        records,
        play::<u64>(&rules, &config(6), &mut UniformEvaluator),
        "seeded"
    );
    // Samples go into a shard and come back.
    let directory = std::env::temp_dir().join(format!("flipzero-selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("shard.bin");
    let samples: Vec<_> = records.iter().flat_map(|r| r.samples.clone()).collect();
    let header = flipzero_data::ShardHeader {
        rules: rules.spec().clone(),
        encoder_version: flipzero_data::ENCODER_VERSION,
        games: records.len() as u32,
        writer: "test".to_owned(),
    };
    flipzero_data::write_shard(&path, &header, &samples).unwrap();
    assert_eq!(flipzero_data::read_shard(&path).unwrap().1, samples);
    std::fs::remove_dir_all(&directory).unwrap();
}

/// Enough seeded komi games for equal bids (3 of these 60).
const GAMES_WITH_EQUAL_BIDS: usize = 60;

#[test]
fn bidders_get_the_result_of_the_colour_they_ended_up_with() {
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let records = play::<u64>(
        &rules,
        &config(GAMES_WITH_EQUAL_BIDS),
        &mut UniformEvaluator,
    );
    // Equal bids came up, and the chance event after them was drawn (its fairness: the
    // golden tests of the rules).
    let draws: Vec<Decision> = records
        .iter()
        .filter_map(|record| {
            record
                .decisions
                .iter()
                .copied()
                .find(|decision| matches!(decision, Decision::TieBreak { .. }))
        })
        .collect();
    assert!(
        !draws.is_empty(),
        "no equal bids in {GAMES_WITH_EQUAL_BIDS} games"
    );
    for record in &records {
        check(&rules, record);
        // The first sample is the first bid, by the first player; after the bids they play
        // White when the seats were swapped.
        let start = Game::<u64>::from_text(&rules, &record.start).unwrap();
        let mut game = start.clone();
        for &decision in &record.decisions {
            game = game.play_unchecked(&rules, decision);
        }
        let first_bidder = if game.seats_swapped() {
            start.side_to_move().opponent()
        } else {
            start.side_to_move()
        };
        let expected = match record.outcome {
            Outcome::Draw => 0,
            Outcome::Win(winner) if winner == first_bidder => 1,
            Outcome::Win(_) => -1,
        };
        assert_eq!(record.samples[0].outcome, expected);
    }
}

#[test]
fn workers_share_the_games_and_each_game_is_whole() {
    use flipzero_selfplay::play_parallel;
    use std::sync::Mutex;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let ids: Vec<u64> = (0..7).collect();
    let by_workers = |workers: usize| {
        let records = Mutex::new(Vec::new());
        play_parallel(
            &rules,
            &config(7),
            &ids,
            workers,
            |_| UniformEvaluator,
            |id, record| records.lock().unwrap().push((id, record)),
        );
        let mut records = records.into_inner().unwrap();
        records.sort_by_key(|(id, _)| *id);
        records
    };
    let records = by_workers(3);
    assert_eq!(
        records.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        ids,
        "every id played once"
    );
    for (_, record) in &records {
        check(&rules, record);
    }
    assert_eq!(
        records,
        by_workers(2),
        "games depend on their ids, not on the workers"
    );
    // A game played alone, by its id, is the same game.
    let mut alone = Vec::new();
    flipzero_selfplay::play_games::<u64>(
        &rules,
        &config(7),
        &[5],
        &mut UniformEvaluator,
        |id, record| alone.push((id, record)),
    );
    assert_eq!(alone[0], records[5]);
}

#[test]
fn gumbel_self_play_games_replay_with_improved_policies_as_targets() {
    use flipzero_mcts::SearchKind;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut gumbel = config(4);
    gumbel.mcts.search = SearchKind::Gumbel;
    gumbel.mcts.gumbel_scale = 1.0;
    gumbel.mcts.simulations = 16;
    let records = play::<u64>(&rules, &gumbel, &mut UniformEvaluator);
    assert_eq!(records.len(), 4);
    for record in &records {
        check(&rules, record);
        for sample in &record.samples {
            // The improved policy covers every legal decision.
            let game = Game::<u64>::from_text(&rules, &sample.position).unwrap();
            assert_eq!(sample.policy.len(), game.legal_decisions(&rules).len());
        }
    }
    // Gumbel noise at the root varies the games.
    let lengths: std::collections::HashSet<&Vec<_>> =
        records.iter().map(|r| &r.decisions).collect();
    assert_eq!(lengths.len(), 4);
}

#[test]
fn positions_near_the_end_take_exact_targets_from_the_solver() {
    use flipzero_engine::ExactSolver;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut exact = config(4);
    exact.solve_targets_empties = 8;
    let solver = ExactSolver::new(&rules).unwrap();
    let records = play::<u64>(&rules, &exact, &mut UniformEvaluator);
    let (mut solved, mut unsolved) = (0, 0);
    for record in &records {
        for sample in &record.samples {
            let game = Game::<u64>::from_text(&rules, &sample.position).unwrap();
            assert_eq!(
                sample.solved,
                game.empty().count() <= 8,
                "{}",
                sample.position
            );
            let total: f32 = sample.policy.iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-4);
            if !sample.solved {
                unsolved += 1;
                continue;
            }
            solved += 1;
            // The targets are the exact value, and the policy is shared by the decisions
            // that reach it, all of them.
            let side = game.side_to_move();
            let values = solver.decision_values(&rules, &game).unwrap();
            let best = values
                .iter()
                .map(|(_, v)| v.margin_for(side))
                .max()
                .unwrap();
            assert_eq!(sample.score, best as f32);
            let best_outcome = values
                .iter()
                .map(|(_, v)| v.outcome_for(side))
                .max()
                .unwrap();
            assert_eq!(sample.outcome, best_outcome);
            let mut reaching: Vec<u16> = values
                .iter()
                .filter(|(_, v)| v.margin_for(side) == best)
                .map(|(decision, _)| rules.decision_index(*decision) as u16)
                .collect();
            let mut targets: Vec<u16> = sample.policy.iter().map(|p| p.0).collect();
            reaching.sort();
            targets.sort();
            assert_eq!(targets, reaching);
        }
    }
    assert!(
        solved > 8 && unsolved > 8,
        "{solved} solved, {unsolved} not"
    );
}

#[test]
fn positions_before_the_first_solved_one_take_its_exact_value() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut exact = config(6);
    exact.solve_targets_empties = 8;
    exact.solved_value_targets = true;
    let records = play::<u64>(&rules, &exact, &mut UniformEvaluator);
    let mut differs_from_end = 0;
    for record in &records {
        let first = record.samples.iter().position(|s| s.solved).unwrap();
        let solved = &record.samples[first];
        let solved_side = solved.position.split_whitespace().nth(1).unwrap();
        for sample in &record.samples[..first] {
            let same_side = sample.position.split_whitespace().nth(1).unwrap() == solved_side;
            let sign = if same_side { 1 } else { -1 };
            assert_eq!(sample.outcome, sign * solved.outcome, "{}", sample.position);
            assert_eq!(
                sample.score,
                sign as f32 * solved.score,
                "{}",
                sample.position
            );
        }
        // Uniform play after the solved position rarely keeps its exact margin.
        let black_margin = if solved_side == "X" {
            solved.score
        } else {
            -solved.score
        };
        if black_margin != record.score as f32 {
            differs_from_end += 1;
        }
    }
    assert!(differs_from_end > 0, "every game kept its exact margin");
}

#[test]
fn randomised_playout_caps_record_only_the_full_searches() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut capped = config(4);
    capped.full_search_fraction = 0.25;
    capped.fast_simulations = 4;
    let records = play::<u64>(&rules, &capped, &mut UniformEvaluator);
    let (decisions, samples): (usize, usize) = records
        .iter()
        .map(|record| (record.decisions.len(), record.samples.len()))
        .fold((0, 0), |(d, s), (dr, sr)| (d + dr, s + sr));
    // About a quarter of the decisions, drawn per game from its seed.
    assert!(samples * 10 > decisions, "{samples} of {decisions}");
    assert!(samples * 2 < decisions, "{samples} of {decisions}");
    for record in &records {
        // Each sample is a position of the game.
        let mut positions = std::collections::HashSet::new();
        let mut game = Game::<u64>::from_text(&rules, &record.start).unwrap();
        for &decision in &record.decisions {
            positions.insert(game.to_text(&rules));
            game = game.play(&rules, decision).unwrap();
        }
        for sample in &record.samples {
            assert!(positions.contains(&sample.position));
        }
        assert!(game.is_over());
        assert_eq!(game.score(&rules), record.score);
    }
    // The samples carry the full searches' visits (24 at the root): a fast search of 4
    // gives shares in quarters only, and most full searches do not.
    let all: Vec<&flipzero_data::Sample> = records.iter().flat_map(|r| &r.samples).collect();
    let finer = all
        .iter()
        .filter(|sample| {
            sample
                .policy
                .iter()
                .any(|p| (p.1 * 4.0 - (p.1 * 4.0).round()).abs() > 1e-3)
        })
        .count();
    assert!(2 * finer > all.len(), "{finer} of {}", all.len());
    // The same seed, the same games.
    assert_eq!(records, play::<u64>(&rules, &capped, &mut UniformEvaluator));
}

#[test]
fn games_start_after_their_random_opening_plies() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut varied = config(6);
    varied.opening_plies = 2..=6;
    let records = play::<u64>(&rules, &varied, &mut UniformEvaluator);
    let mut lengths = std::collections::HashSet::new();
    for record in &records {
        check(&rules, record);
        let start = Game::<u64>::from_text(&rules, &record.start).unwrap();
        // The 6x6 start has 32 empty squares; each opening ply fills one.
        let plies = 32 - start.empty().count();
        assert!((2..=6).contains(&plies), "{plies} plies");
        lengths.insert(plies);
    }
    assert!(lengths.len() > 1, "the number of plies is drawn per game");
    assert_eq!(records, play::<u64>(&rules, &varied, &mut UniformEvaluator));
}
