//! MCTS with the uniform evaluator against exact values from the classical engine.

use flipzero_core::{Bitboard, Decision, Game, Preset, Rules};
use flipzero_engine::{Engine, SearchConfig, WeightsFile};
use flipzero_mcts::{
    Evaluation, Evaluator, Mcts, MctsConfig, SearchKind, UniformEvaluator, search_many,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn exact_engine<W: Bitboard>(rules: &Rules) -> Engine<W> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded")
        .unwrap();
    let config = SearchConfig {
        solve_empties: 64,
        end_search_empties: 20,
        ..SearchConfig::default()
    };
    Engine::new(rules, weights, config)
}

/// The exact value of each decision for the player to move, in centi-discs.
fn exact_values<W: Bitboard>(rules: &Rules, game: &Game<W>) -> Vec<(Decision, i32)> {
    let mut engine = exact_engine::<W>(rules);
    engine
        .analyze(game, 1)
        .into_iter()
        .map(|entry| {
            assert!(entry.exact);
            (entry.decision, entry.value)
        })
        .collect()
}

/// Random decisions until at most `empties` squares are empty.
fn endgame<W: Bitboard>(rules: &Rules, seed: u64, empties: u32) -> Game<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Game::<W>::try_start(rules, seed)
        .unwrap()
        .play_randomly_until(rules, &mut rng, |game| {
            game.empty().count() <= empties && !game.is_mid_turn()
        })
}

/// Endgames of `empties` squares (random decisions from the start, seeds 0..30) where some
/// decision wins and some does not, with the winning decisions: only those test a search.
fn forced_wins(
    rules: &Rules,
    empties: impl Fn(u64) -> u32,
) -> Vec<(u64, Game<u64>, Vec<Decision>, usize)> {
    (0..30)
        .filter_map(|seed| {
            let game = endgame::<u64>(rules, seed, empties(seed));
            if game.is_over() {
                return None;
            }
            let values = exact_values(rules, &game);
            let winning: Vec<Decision> = values
                .iter()
                .filter(|(_, v)| *v > 0)
                .map(|(d, _)| *d)
                .collect();
            let decisive = !winning.is_empty() && winning.len() < values.len();
            decisive.then_some((seed, game, winning, values.len()))
        })
        .collect()
}

#[test]
fn the_uniform_search_finds_the_forced_wins_of_small_endgames() {
    let mut checked = 0;
    for (preset, empties) in [
        (Preset::Othello, 7),
        (Preset::Anti, 7),
        (Preset::Gomullo, 6),
    ] {
        let rules = preset.rules(Some(6)).unwrap();
        for (seed, game, winning, _) in forced_wins(&rules, |_| empties) {
            let config = MctsConfig {
                simulations: 3000,
                ..MctsConfig::default()
            };
            let mut tree = Mcts::new(&rules, config, &game);
            let result = tree.search(&mut UniformEvaluator);
            assert_eq!(result.decisions.iter().map(|d| d.1).sum::<u32>(), 3000);
            assert!(
                winning.contains(&result.best()),
                "{preset} seed {seed}: chose {:?}, winning {winning:?} in {}",
                result.best(),
                game.to_text(&rules)
            );
            assert!(
                result.value > 0.0,
                "{preset} seed {seed}: value {}",
                result.value
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "only {checked} positions had a forced win to find"
    );
}

#[test]
fn the_tree_is_reused_and_noise_and_sampling_follow_the_seed() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let start = Game::<u64>::start(&rules);
    let config = MctsConfig {
        simulations: 200,
        noise_fraction: 0.25,
        seed: 9,
        ..MctsConfig::default()
    };
    let run = || {
        let mut tree = Mcts::new(&rules, config.clone(), &start);
        let mut line = Vec::new();
        for _ in 0..6 {
            let result = tree.search(&mut UniformEvaluator);
            let decision = tree.sample(&result, 1.0);
            line.push(decision);
            tree.advance(decision);
        }
        (line, tree.game().to_text(&rules))
    };
    let (line, end) = run();
    assert_eq!(run(), (line.clone(), end.clone()));
    // The root after the moves is the game those moves reach.
    let mut game = start.clone();
    for decision in &line {
        game = game.play(&rules, *decision).unwrap();
    }
    assert_eq!(game.to_text(&rules), end);
    // Reuse: the child's earlier visits stay, so a new search adds to them.
    let mut tree = Mcts::new(&rules, MctsConfig::default(), &start);
    let first = tree.search(&mut UniformEvaluator);
    let best = first.best();
    let carried = first.decisions.iter().find(|d| d.0 == best).unwrap().1;
    tree.advance(best);
    let second = tree.search(&mut UniformEvaluator);
    let total: u32 = second.decisions.iter().map(|d| d.1).sum();
    assert_eq!(
        total,
        carried - 1 + 400,
        "visits carried over from the first search"
    );
}

#[test]
fn solved_leaves_find_wins_with_few_simulations() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut checked = 0;
    // Even seeds: the root itself is within the solver's reach, and must still be searched.
    for (seed, game, winning, _) in forced_wins(&rules, |seed| 10 + (seed % 2) as u32) {
        let config = MctsConfig {
            simulations: 100,
            solve_empties: 10,
            ..MctsConfig::default()
        };
        let mut tree = Mcts::new(&rules, config, &game);
        let result = tree.search(&mut UniformEvaluator);
        assert!(winning.contains(&result.best()), "seed {seed}");
        assert_eq!(result.decisions.iter().map(|d| d.1).sum::<u32>(), 100);
        checked += 1;
    }
    assert!(
        checked >= 5,
        "only {checked} positions had a forced win to find"
    );
}

/// Uniform priors and a value of +0.5 for Black's player (any value but 0): asked about a
/// chance event, it fails the test.
struct BlackAhead;

impl<W: Bitboard> Evaluator<W> for BlackAhead {
    fn evaluate(
        &mut self,
        rules: &Rules,
        positions: &[(&Game<W>, &[Decision])],
    ) -> Vec<Evaluation> {
        let mut evaluations = UniformEvaluator.evaluate(rules, positions);
        for (evaluation, (game, _)) in evaluations.iter_mut().zip(positions) {
            assert!(
                !game.awaits_chance(),
                "an evaluation asked at a chance event"
            );
            let black = game.side_to_move() == flipzero_core::Color::Black;
            evaluation.value = if black { 0.5 } else { -0.5 };
        }
        evaluations
    }
}

#[test]
fn the_chance_event_after_equal_bids_is_a_leaf_worth_0() {
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let first_bid = flipzero_core::replay(&rules, &Game::<u64>::start(&rules), "bid+1").unwrap();
    let config = MctsConfig {
        simulations: 400,
        noise_fraction: 0.0,
        ..MctsConfig::default()
    };
    let mut tree = Mcts::new(&rules, config, &first_bid);
    let result = tree.search(&mut BlackAhead);
    // The equal bid leads to the event: never evaluated, each visit worth exactly 0; the
    // other bids lead to evaluated positions, worth something.
    for (decision, visits, mean) in result.decisions {
        if decision == Decision::Bid(1) {
            assert!(visits > 1, "{visits} visits");
            assert_eq!(mean, 0.0);
        } else if visits > 0 {
            assert_ne!(mean, 0.0, "{decision:?}");
        }
    }
    // Played, the event is the root: it is drawn, and the tree goes on from the outcome.
    tree.advance(Decision::Bid(1));
    assert!(tree.game().awaits_chance());
    tree.advance(Decision::TieBreak { swapped: true });
    assert!(tree.game().seats_swapped());
    assert!(!tree.search(&mut BlackAhead).decisions.is_empty());
}

#[test]
fn a_score_utility_prefers_the_largest_of_winning_margins() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let search = |game: &Game<u64>, score_utility: f32| {
        let config = MctsConfig {
            simulations: 200,
            solve_empties: 10,
            score_utility,
            ..MctsConfig::default()
        };
        Mcts::new(&rules, config, game)
            .search(&mut UniformEvaluator)
            .best()
    };
    let (mut checked, mut result_alone_missed) = (0, 0);
    for seed in 0..60 {
        let game = endgame::<u64>(&rules, seed, 11);
        if game.is_over() {
            continue;
        }
        let values = exact_values(&rules, &game);
        // Only positions where every decision wins, by different margins, test the utility:
        // the result alone cannot tell their decisions apart.
        let best = values.iter().map(|(_, v)| *v).max().unwrap();
        let worst = values.iter().map(|(_, v)| *v).min().unwrap();
        if worst <= 0 || worst == best {
            continue;
        }
        let largest: Vec<Decision> = values
            .iter()
            .filter(|(_, v)| *v == best)
            .map(|(d, _)| *d)
            .collect();
        assert!(largest.contains(&search(&game, 1.0)), "seed {seed}");
        if !largest.contains(&search(&game, 0.0)) {
            result_alone_missed += 1;
        }
        checked += 1;
    }
    assert!(
        checked >= 3,
        "only {checked} positions won by every decision"
    );
    assert!(
        result_alone_missed > 0,
        "the result alone found every largest margin too"
    );
}

#[test]
fn with_a_score_utility_solved_leaves_and_ends_value_the_margin_alike_under_komi() {
    use flipzero_engine::ExactSolver;
    let rules = Preset::KomiFixed.rules(Some(6)).unwrap();
    let solver = ExactSolver::new(&rules).unwrap();
    let squares = rules.square_count() as f32;
    let mut checked = 0;
    for seed in 0..12 {
        // Children with 8 empties or fewer are solved leaves; some end the game at once.
        let game = endgame::<u64>(&rules, seed, 9);
        if game.is_over() || game.komi() == 0.0 {
            continue;
        }
        let config = MctsConfig {
            simulations: 400,
            solve_empties: 8,
            score_utility: 1.0,
            ..MctsConfig::default()
        };
        let result = Mcts::new(&rules, config, &game).search(&mut UniformEvaluator);
        let side = game.side_to_move();
        for (decision, exact) in solver.decision_values(&rules, &game).unwrap() {
            let expected =
                f32::from(exact.outcome_for(side)) + exact.margin_for(side) as f32 / squares;
            let &(_, visits, mean) = result.decisions.iter().find(|d| d.0 == decision).unwrap();
            if visits > 0 {
                assert!(
                    (mean - expected).abs() < 1e-4,
                    "seed {seed} {decision:?}: {mean} against {expected}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} decisions checked");
}

#[test]
fn searching_many_trees_at_once_changes_nothing_but_the_batch_size() {
    use flipzero_mcts::{Evaluation, Evaluator};
    /// Counts calls and positions, and prefers low decision indices a little.
    struct Counting {
        calls: usize,
        positions: usize,
    }
    impl Evaluator<u64> for Counting {
        fn evaluate(
            &mut self,
            rules: &Rules,
            positions: &[(&Game<u64>, &[Decision])],
        ) -> Vec<Evaluation> {
            self.calls += 1;
            self.positions += positions.len();
            positions
                .iter()
                .map(|(_, decisions)| {
                    let weights: Vec<f32> = decisions
                        .iter()
                        .map(|&d| 1.0 / (1.0 + rules.decision_index(d) as f32))
                        .collect();
                    let total: f32 = weights.iter().sum();
                    Evaluation {
                        priors: weights.iter().map(|w| w / total).collect(),
                        value: 0.1,
                        score: 0.0,
                    }
                })
                .collect()
        }
    }
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let starts: Vec<Game<u64>> = (0..4)
        .map(|seed| endgame::<u64>(&rules, seed, 24))
        .collect();
    let config = MctsConfig {
        simulations: 64,
        ..MctsConfig::default()
    };
    let alone: Vec<_> = starts
        .iter()
        .map(|game| {
            Mcts::new(&rules, config.clone(), game).search(&mut Counting {
                calls: 0,
                positions: 0,
            })
        })
        .collect();
    let mut trees: Vec<Mcts<u64>> = starts
        .iter()
        .map(|game| Mcts::new(&rules, config.clone(), game))
        .collect();
    let mut counting = Counting {
        calls: 0,
        positions: 0,
    };
    search_many(&mut trees, &mut counting);
    let together: Vec<_> = trees.iter().map(|tree| tree.result()).collect();
    assert_eq!(alone, together);
    // 4 root evaluations, then one call per round for all four trees.
    assert_eq!(counting.calls, 4 + 64);
    assert!(counting.positions > 2 * 64, "batches of several positions");
}

fn gumbel_config(simulations: u32, seed: u64, gumbel_scale: f32) -> MctsConfig {
    MctsConfig {
        simulations,
        solve_empties: 10,
        seed,
        search: SearchKind::Gumbel,
        considered_actions: 16,
        gumbel_scale,
        ..MctsConfig::default()
    }
}

#[test]
fn gumbel_search_finds_forced_wins_with_4_to_16_simulations_and_favours_them() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let mut checked = 0;
    for (seed, game, winning, decisions) in forced_wins(&rules, |seed| 10 + (seed % 2) as u32) {
        for simulations in [4, 8, 16] {
            // Every decision must be tried once to know which wins.
            if (simulations as usize) < decisions {
                continue;
            }
            for gumbel_scale in [0.0, 1.0] {
                let config = gumbel_config(simulations, seed, gumbel_scale);
                let mut tree = Mcts::new(&rules, config, &game);
                let result = tree.gumbel_search(&mut UniformEvaluator);
                assert!(
                    winning.contains(&result.decision),
                    "seed {seed}, {simulations} simulations"
                );
                let best_share = |wins: bool| {
                    result
                        .policy
                        .iter()
                        .filter(|p| winning.contains(&p.0) == wins)
                        .map(|p| p.1)
                        .fold(0.0f32, f32::max)
                };
                assert!(
                    best_share(true) > best_share(false),
                    "seed {seed}: {:?}",
                    result.policy
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} searches had a forced win to find"
    );
}

#[test]
fn gumbel_targets_are_distributions_over_the_legal_decisions_only() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    for seed in 0..6 {
        let game = endgame::<u64>(&rules, seed, 20 + seed as u32);
        if game.is_over() {
            continue;
        }
        let mut tree = Mcts::new(&rules, gumbel_config(24, seed, 1.0), &game);
        let result = tree.gumbel_search(&mut UniformEvaluator);
        let mut decisions: Vec<Decision> = result.policy.iter().map(|p| p.0).collect();
        let mut legal = game.legal_decisions(&rules);
        decisions.sort();
        legal.sort();
        assert_eq!(decisions, legal);
        assert!(result.policy.iter().all(|p| p.1 >= 0.0 && p.1.is_finite()));
        let total: f32 = result.policy.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        assert!(legal.contains(&result.decision));
        // The root's simulations add up to the budget.
        let visits: u32 = tree.result().decisions.iter().map(|d| d.1).sum();
        assert_eq!(visits, 24);
    }
}

#[test]
fn gumbel_trees_searched_together_equal_trees_searched_alone() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let starts: Vec<Game<u64>> = (0..3)
        .map(|seed| endgame::<u64>(&rules, seed, 22))
        .collect();
    let alone: Vec<_> = starts
        .iter()
        .enumerate()
        .map(|(seed, game)| {
            Mcts::new(&rules, gumbel_config(32, seed as u64, 1.0), game)
                .gumbel_search(&mut UniformEvaluator)
        })
        .collect();
    let mut trees: Vec<Mcts<u64>> = starts
        .iter()
        .enumerate()
        .map(|(seed, game)| Mcts::new(&rules, gumbel_config(32, seed as u64, 1.0), game))
        .collect();
    search_many(&mut trees, &mut UniformEvaluator);
    let together: Vec<_> = trees.iter_mut().map(|tree| tree.gumbel_result()).collect();
    assert_eq!(alone, together);
}
