//! The alpha-beta player against plain minimax, the bitboard solver against a search of the
//! decision tree to the end, and whole games on every preset.

use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Preset, Rules, with_width};
use flipzero_engine::search::{fills_a_square_per_turn, minimax};
use flipzero_engine::{Engine, SearchConfig, WeightsFile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every preset on its smallest board of side 6 or more.
fn small_presets() -> Vec<(Preset, Rules)> {
    Preset::ALL
        .into_iter()
        .map(|preset| {
            let rules = (6..=16)
                .find_map(|side| preset.rules(Some(side)).ok())
                .expect("every preset has a size");
            (preset, rules)
        })
        .collect()
}

fn engine<W: Bitboard>(rules: &Rules, config: SearchConfig) -> Engine<W> {
    let weights = WeightsFile::embedded()
        .weights_for(rules, "embedded")
        .unwrap();
    Engine::new(rules, weights, config)
}

/// A game after `decisions` random decisions (fewer if it ends first).
fn random_game<W: Bitboard>(rules: &Rules, seed: u64, decisions: usize) -> Game<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Game::<W>::try_start(rules, seed)
        .unwrap()
        .play_randomly(rules, &mut rng, decisions)
}

/// Plays random decisions until at most `empties` squares are empty or the game ends.
fn random_endgame<W: Bitboard>(rules: &Rules, seed: u64, empties: u32) -> Game<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Game::<W>::try_start(rules, seed)
        .unwrap()
        .play_randomly_until(rules, &mut rng, |game| {
            game.empty().count() <= empties && !game.is_mid_turn()
        })
}

#[test]
fn alpha_beta_equals_minimax_on_every_preset() {
    for (preset, rules) in small_presets() {
        with_width!(rules.square_count(), W => {
            let mut player = engine::<W>(&rules, SearchConfig::default());
            for seed in 0..6 {
                let game = random_game::<W>(&rules, seed, 3 + seed as usize * 4);
                for depth in 1..=3 {
                    let expected = minimax(&player, &game, depth);
                    let found = player.search_value(&game, depth);
                    assert_eq!(found, expected, "{preset} seed {seed} depth {depth}");
                }
            }
        });
    }
}

/// Every position at the end of the mover's turn from `game`: the decisions after which the
/// same player moves again belong to the turn (read from the side to move, not from the
/// engine's own test of an unfinished turn).
fn turn_ends<W: Bitboard>(rules: &Rules, game: &Game<W>) -> Vec<Game<W>> {
    game.legal_decisions(rules)
        .into_iter()
        .flat_map(|decision| {
            let child = game.play_unchecked(rules, decision);
            if !child.is_over() && game.same_player_to_move(&child) {
                turn_ends(rules, &child)
            } else {
                vec![child]
            }
        })
        .collect()
}

/// A depth-1 search looks exactly one turn ahead in every preset: its value is the best of
/// the evaluations at the turn's ends, however many decisions the turn takes. Komi is left
/// out: there a bid can be followed by the same player's first move, a turn of its own.
#[test]
fn depth_counts_turns_on_every_preset() {
    let mut multi_decision_turns = 0;
    for (preset, rules) in small_presets()
        .into_iter()
        .filter(|(preset, _)| !matches!(preset, Preset::Komi))
    {
        with_width!(rules.square_count(), W => {
            let mut player = engine::<W>(&rules, SearchConfig::default());
            for seed in 0..6 {
                let mut game = random_game::<W>(&rules, seed, 2 + seed as usize * 3);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                while game.is_mid_turn() {
                    let legal = game.legal_decisions(&rules);
                    game = game.play_unchecked(&rules, legal[rng.random_range(0..legal.len())]);
                }
                if game.is_over() {
                    continue;
                }
                let ends = turn_ends(&rules, &game);
                if ends.len() > game.legal_decisions(&rules).len() {
                    multi_decision_turns += 1;
                }
                let best = ends
                    .iter()
                    .map(|end| {
                        let value = minimax(&player, end, 0);
                        if game.same_player_to_move(end) { value } else { -value }
                    })
                    .max()
                    .unwrap();
                assert_eq!(player.search_value(&game, 1), best, "{preset} seed {seed}");
            }
        });
    }
    // Rotation's orientations, neuversi's drops and swaps, biversi's second placements.
    assert!(multi_decision_turns >= 6, "{multi_decision_turns}");
}

#[test]
fn exact_search_equals_minimax_to_the_end_on_every_preset() {
    // Sacrifices and neutral swaps fill no square: those trees have no near end (and the
    // player never searches them to the end).
    for (preset, rules) in small_presets()
        .into_iter()
        .filter(|(_, rules)| fills_a_square_per_turn(rules))
    {
        with_width!(rules.square_count(), W => {
            let mut player = engine::<W>(&rules, SearchConfig::default());
            for seed in 0..4 {
                let game = random_endgame::<W>(&rules, seed, 6);
                let expected = minimax(&player, &game, 1000);
                assert_eq!(
                    player.exact_value_by_search(&game),
                    expected,
                    "{preset} seed {seed}: {}",
                    game.to_text(&rules)
                );
            }
        });
    }
}

#[test]
fn bitboard_solver_equals_search_to_the_end() {
    for preset in [
        Preset::Othello,
        Preset::Anti,
        Preset::KomiFixed,
        Preset::Parallel,
        Preset::Komi,
        Preset::RandomOpening,
    ] {
        let rules = preset.rules(Some(6)).unwrap();
        let mut player = engine::<u64>(&rules, SearchConfig::default());
        let mut solved = 0;
        for seed in 0..12 {
            let game = random_endgame::<u64>(&rules, seed, 9);
            let Some(by_solver) = player.exact_value_by_solver(&game) else {
                continue;
            };
            solved += 1;
            assert_eq!(
                by_solver,
                player.exact_value_by_search(&game),
                "{preset} seed {seed}: {}",
                game.to_text(&rules)
            );
        }
        assert!(solved >= 8, "{preset}: the solver took only {solved} of 12");
    }
}

#[test]
fn the_player_finishes_a_game_on_every_preset_at_every_small_depth() {
    for (preset, rules) in small_presets() {
        with_width!(rules.square_count(), W => {
            for depth in 1..=2 {
                let config = SearchConfig {
                    depth,
                    solve_empties: 6,
                    end_search_empties: 3,
                    ..SearchConfig::default()
                };
                let mut player = engine::<W>(&rules, config);
                let mut game = Game::<W>::try_start(&rules, 1).unwrap();
                let mut decisions = 0;
                while let Some(choice) = player.choose(&game) {
                    game = game.play(&rules, choice.decision).unwrap_or_else(|error| {
                        panic!("{preset} depth {depth}: {error}")
                    });
                    decisions += 1;
                    assert!(decisions < 3000, "{preset}: a game that does not end");
                }
                assert!(game.is_over(), "{preset}");
            }
        });
    }
}

#[test]
fn a_seed_fixes_the_game_and_the_margin_varies_it() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let play = |seed: u64| -> Vec<Decision> {
        let config = SearchConfig {
            depth: 2,
            random_margin: 300,
            seed,
            solve_empties: 0,
            ..SearchConfig::default()
        };
        let mut player = engine::<u64>(&rules, config);
        let mut game = Game::<u64>::start(&rules);
        let mut line = Vec::new();
        while let Some(choice) = player.choose(&game) {
            line.push(choice.decision);
            game = game.play(&rules, choice.decision).unwrap();
        }
        line
    };
    assert_eq!(play(5), play(5));
    let distinct: std::collections::HashSet<Vec<Decision>> = (0..6).map(play).collect();
    assert!(distinct.len() > 1, "six seeds gave one game");
}

#[test]
fn limits_stop_the_search_and_keep_a_finished_iteration() {
    let rules = Preset::Othello.rules(Some(8)).unwrap();
    let game = Game::<u64>::start(&rules);
    let config = SearchConfig {
        depth: 30,
        nodes: Some(20_000),
        solve_empties: 0,
        ..SearchConfig::default()
    };
    let mut player = engine::<u64>(&rules, config);
    let choice = player.choose(&game).unwrap();
    assert!(
        choice.depth >= 2 && choice.depth < 30,
        "depth {}",
        choice.depth
    );
    assert!(choice.nodes <= 20_000 + 1024, "nodes {}", choice.nodes);
    assert!(game.legal_decisions(&rules).contains(&choice.decision));
    // The analysis says how deep each value is: the depth asked for within the limit,
    // less where the limit cut the search (each decision has its own node budget).
    for value in player.analyze(&game, 30) {
        assert!(!value.exact);
        assert!(value.depth >= 2 && value.depth < 30, "{value:?}");
    }
    for value in player.analyze(&game, 3) {
        assert_eq!(value.depth, 3, "{value:?}");
    }
}

#[test]
fn equal_bids_are_worth_nothing_to_either_bidder() {
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let tie = flipzero_core::replay(&rules, &Game::<u64>::start(&rules), "bid-2 bid-2").unwrap();
    assert!(tie.awaits_chance());
    let mut player = engine::<u64>(&rules, SearchConfig::default());
    // Both outcomes seat the same position, Black to move: its value is the same, and the
    // bidder to move at the event is Black in one and White in the other.
    let values: Vec<i32> = tie
        .legal_decisions(&rules)
        .into_iter()
        .map(|outcome| minimax(&player, &tie.play_unchecked(&rules, outcome), 2))
        .collect();
    assert_eq!(values[0], values[1]);
    assert_ne!(values[0], 0, "a position worth something either way");
    // So the mean over the event is exactly 0, which the reference finds by averaging and
    // the search knows without searching.
    assert_eq!(minimax(&player, &tie, 3), 0);
    assert_eq!(player.value(&tie, 3), (0, true));
    assert_eq!(player.search_value(&tie, 3), 0);
    // Asked to choose there, the engine draws an outcome rather than searching.
    let choice = player.choose(&tie).unwrap();
    assert!(matches!(choice.decision, Decision::TieBreak { .. }));
    // Before the second bid, equal bids are worth 0 and other bids are searched.
    let first = flipzero_core::replay(&rules, &Game::<u64>::start(&rules), "bid-2").unwrap();
    let analysis = player.analyze(&first, 2);
    let equal = analysis
        .iter()
        .find(|value| value.decision == Decision::Bid(-2))
        .unwrap();
    assert_eq!((equal.value, equal.exact), (0, true));
}

#[test]
fn the_player_plays_exactly_below_the_solve_threshold() {
    let rules = Preset::Othello.rules(Some(8)).unwrap();
    for seed in 0..3 {
        let game = random_endgame::<u64>(&rules, seed, 9);
        let mut player = engine::<u64>(&rules, SearchConfig::default());
        let choice = player.choose(&game).unwrap();
        assert!(choice.exact, "9 empties are below the solve threshold");
        assert_eq!(
            choice.value,
            player.exact_value_by_search(&game),
            "seed {seed}"
        );
        let after = game.play_unchecked(&rules, choice.decision);
        let (reply, _) = player.value(&after, 1);
        let reply = if after.side_to_move() == game.side_to_move() {
            reply
        } else {
            -reply
        };
        assert_eq!(
            reply, choice.value,
            "seed {seed}: the chosen move keeps the value"
        );
    }
}

#[test]
fn with_a_clock_the_player_solves_a_few_empties_beyond_the_threshold() {
    let rules = Preset::Othello.rules(Some(8)).unwrap();
    for seed in 0..3 {
        // 16 empties: beyond the default threshold of 12, quick for the solver.
        let game = random_endgame::<u64>(&rules, seed, 16);
        let by_depth = engine::<u64>(&rules, SearchConfig::default()).choose(&game);
        assert!(!by_depth.unwrap().exact, "seed {seed}: no clock, no solve");
        let mut player = engine::<u64>(&rules, "time=30,depth=60".parse().unwrap());
        let choice = player.choose(&game).unwrap();
        assert!(choice.exact, "seed {seed}: solved within half the clock");
        assert_eq!(
            Some(choice.value),
            player.exact_value_by_solver(&game),
            "seed {seed}"
        );
        let after = game.play_unchecked(&rules, choice.decision);
        let reply = player.exact_value_by_solver(&after).unwrap();
        let reply = if after.side_to_move() == game.side_to_move() {
            reply
        } else {
            -reply
        };
        assert_eq!(reply, choice.value, "seed {seed}: the move keeps the value");
    }
}

#[test]
fn weights_files_are_checked() {
    let embedded = WeightsFile::embedded();
    for (_, rules) in small_presets() {
        embedded.weights_for(&rules, "embedded").unwrap();
    }
    let unknown = "[profiles.most-discs]\nopening = { corner = 1 }\nendgame = {}\n";
    let error = WeightsFile::parse(unknown, "w.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown feature `corner`"), "{error}");
    let missing = WeightsFile::parse("[profiles.line]\nopening = {}\nendgame = {}\n", "w.toml")
        .unwrap()
        .weights_for(&Preset::Othello.rules(None).unwrap(), "w.toml")
        .unwrap_err()
        .to_string();
    assert!(missing.contains("othello/8x8"), "{missing}");
    let bad_toml = WeightsFile::parse("profiles = 3", "w.toml")
        .unwrap_err()
        .to_string();
    assert!(bad_toml.starts_with("w.toml:"), "{bad_toml}");
    // The file round-trips through its own writer.
    assert_eq!(
        &WeightsFile::parse(&embedded.to_toml(), "again").unwrap(),
        embedded
    );
}

/// The fitted 8x8 Othello profile against the hand-set `most-discs` one, at depth 3 from 40
/// random 4-ply openings, each played with both colours (67.5 % on 2026-11-29).
#[test]
fn tuned_weights_beat_the_hand_set_ones() {
    let rules = Preset::Othello.rules(None).unwrap();
    let file = WeightsFile::embedded();
    let tuned = file.weights_for(&rules, "embedded").unwrap();
    let hand_set = WeightsFile {
        profiles: [("most-discs".to_owned(), file.profiles["most-discs"].clone())].into(),
        ..WeightsFile::default()
    }
    .weights_for(&rules, "hand-set")
    .unwrap();
    assert_ne!(tuned, hand_set, "the othello profile is not tuned");
    let config = SearchConfig {
        depth: 3,
        solve_empties: 10,
        ..SearchConfig::default()
    };
    let mut points = 0.0;
    let mut games = 0;
    for seed in 0..40 {
        let opening = random_game::<u64>(&rules, seed, 4);
        for tuned_plays in [Color::Black, Color::White] {
            let mut players = [
                Engine::<u64>::new(&rules, tuned.clone(), config.clone()),
                Engine::<u64>::new(&rules, hand_set.clone(), config.clone()),
            ];
            if tuned_plays == Color::White {
                players.swap(0, 1);
            }
            let mut game = opening.clone();
            while let Some(choice) = players[game.side_to_move() as usize].choose(&game) {
                game = game.play_unchecked(&rules, choice.decision);
            }
            points += match game.outcome(&rules).unwrap() {
                Outcome::Draw => 0.5,
                Outcome::Win(color) if color == tuned_plays => 1.0,
                Outcome::Win(_) => 0.0,
            };
            games += 1;
        }
    }
    let score = points / f64::from(games);
    eprintln!(
        "tuned weights scored {points} of {games} ({:.1}%)",
        100.0 * score
    );
    assert!(score > 0.5, "tuned weights scored {points} of {games}");
}

#[test]
fn a_game_clock_goes_to_the_middle_game_and_is_never_overspent() {
    use std::time::Duration;
    let rules = Preset::Othello.rules(None).unwrap();
    let player = engine::<u64>(&rules, SearchConfig::default());
    let budget = Duration::from_secs(150);
    let start = Game::<u64>::try_start(&rules, 0).unwrap();
    // 30 decisions from the start: 20 searched, 4 the solver may take in half their time,
    // 6 exact (12 empties or fewer); weights 1, 0.5 and 0.05.
    let first = player.move_time(budget, &start).as_secs_f64();
    assert!((first - 150.0 / 22.3).abs() < 1e-6, "{first}");
    assert!(
        first > 150.0 / 30.0,
        "more than an even share in the middle game"
    );
    // Spent as allotted, move after move, the clock lasts the game, and the searched
    // middle game (more than 20 empties) gets nearly all of it.
    let mut left = budget;
    let mut middle_game = Duration::ZERO;
    let mut game = start;
    while !game.is_over() {
        let share = player.move_time(left, &game);
        assert!(share <= left / 2, "{share:?} of {left:?}");
        if game.side_to_move() == Color::Black {
            left -= share;
            if game.empty().count() > 20 {
                middle_game += share;
            }
        }
        let legal = game.legal_decisions(&rules);
        game = game.play_unchecked(&rules, legal[0]);
    }
    assert!(left > Duration::ZERO);
    assert!(
        middle_game.as_secs_f64() > 0.85 * 150.0,
        "{middle_game:?} of the budget before the endgame"
    );
    // A variant the solver does not take: every decision is a search, an even share.
    let rotation = Preset::Rotation.rules(Some(8)).unwrap();
    let player = engine::<u64>(&rotation, SearchConfig::default());
    let start = Game::<u64>::try_start(&rotation, 0).unwrap();
    let share = player.move_time(budget, &start).as_secs_f64();
    let decisions = f64::from(start.empty().count().div_ceil(2));
    assert!(share >= 150.0 / decisions - 1e-6, "{share}");
    assert_eq!(
        "game-time=150,depth=60"
            .parse::<SearchConfig>()
            .unwrap()
            .game_time,
        Some(budget)
    );
    assert!("game-time=0".parse::<SearchConfig>().is_err());
}
