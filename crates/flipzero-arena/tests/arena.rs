//! Agents and paired matches: who plays which seat, points and margins from the first
//! agent's side, and strength in the expected order.

mod common;

use flipzero_arena::{
    Agent, AgentFactory, AgentSpec, MctsAgent, MctsSpec, RandomAgent, balanced_opening_lines,
    play_game, play_paired, random_openings, seat_to_move,
};
use flipzero_core::{Bitboard, Color, Decision, Game, Outcome, Preset, Rules};
use flipzero_engine::{Engine, SearchConfig, WeightsFile};
use flipzero_mcts::{MctsConfig, UniformEvaluator};

fn weights(rules: &Rules) -> flipzero_engine::Weights {
    WeightsFile::embedded()
        .weights_for(rules, "embedded")
        .unwrap()
}

fn factory(spec: &AgentSpec, rules: &Rules) -> AgentFactory {
    AgentFactory::new(spec, rules, &burn::tensor::Device::flex()).unwrap()
}

#[test]
fn openings_are_distinct_live_and_as_long_as_asked() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let openings = random_openings::<u64>(&rules, 12, 3, 7);
    assert_eq!(openings.len(), 12);
    let texts: std::collections::HashSet<String> =
        openings.iter().map(|g| g.to_text(&rules)).collect();
    assert_eq!(texts.len(), 12);
    for opening in &openings {
        assert!(!opening.is_over());
        // Three discs placed on the four of the start.
        assert_eq!(opening.empty().count(), 36 - 7);
    }
    assert_eq!(
        openings
            .iter()
            .map(|g| g.to_text(&rules))
            .collect::<Vec<_>>(),
        random_openings::<u64>(&rules, 12, 3, 7)
            .iter()
            .map(|g| g.to_text(&rules))
            .collect::<Vec<_>>(),
        "seeded"
    );
    // Othello has 4 openings of one ply: no more can be found.
    assert_eq!(random_openings::<u64>(&rules, 10, 1, 7).len(), 4);
}

#[test]
fn balanced_openings_are_near_even_for_the_engine() {
    let rules = Preset::Othello.rules(Some(8)).unwrap();
    let weights = weights(&rules);
    let openings = flipzero_arena::positions(&balanced_opening_lines::<u64>(
        &rules,
        &weights,
        6,
        6..=6,
        3,
        2.0,
        1,
    ));
    assert_eq!(openings.len(), 6);
    let mut engine = Engine::<u64>::new(&rules, weights, SearchConfig::default());
    for opening in &openings {
        let (value, _) = engine.value(opening, 3);
        assert!(value.abs() <= 200, "{value}");
    }
}

#[test]
fn a_paired_match_plays_each_opening_with_both_colours() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let openings = random_openings::<u64>(&rules, 5, 2, 3);
    let result = play_paired(
        &rules,
        &openings,
        None,
        |game| -> (Box<dyn Agent<u64>>, Box<dyn Agent<u64>>) {
            (
                Box::new(RandomAgent::new(&rules, game as u64)),
                Box::new(RandomAgent::new(&rules, 1000 + game as u64)),
            )
        },
        |_| {},
    );
    assert_eq!(result.games.len(), 10);
    for (index, game) in result.games.iter().enumerate() {
        let expected = if index % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        assert_eq!(game.first_agent_color, expected);
        // Replay the decisions: the recorded points and margin follow from the end.
        let mut end = openings[index / 2].clone();
        let mut first_agent_decisions = 0;
        for &decision in &game.decisions {
            first_agent_decisions += u32::from(seat_to_move(&end) == expected);
            end = end.play(&rules, decision).unwrap();
        }
        assert!(end.is_over());
        // Each agent is timed on exactly the decisions it made.
        let [first, second] = game.thinking;
        assert_eq!(first.decisions, first_agent_decisions);
        assert_eq!(
            (first.decisions + second.decisions) as usize,
            game.decisions.len(),
            "Othello has no chance decisions: every one was an agent's"
        );
        assert!(first.decisions > 0 && second.decisions > 0);
        let black_margin = end.score(&rules);
        let margin = if expected == Color::Black {
            black_margin
        } else {
            -black_margin
        };
        assert_eq!(game.margin, margin);
        let points = match end.outcome(&rules).unwrap() {
            Outcome::Draw => 0.5,
            Outcome::Win(color) if color == expected => 1.0,
            Outcome::Win(_) => 0.0,
        };
        assert_eq!(game.points, points);
    }
    assert_eq!(result.wins() + result.draws() + result.losses(), 10);
    let points: f64 = result.games.iter().map(|g| g.points).sum();
    assert_eq!(result.score(), points / 10.0);
}

#[test]
fn fewest_discs_margins_count_for_the_side_with_fewer() {
    let rules = Preset::Anti.rules(Some(6)).unwrap();
    let opening = Game::<u64>::try_start(&rules, 0).unwrap();
    let mut first = RandomAgent::new(&rules, 1);
    let mut second = RandomAgent::new(&rules, 2);
    for color in [Color::Black, Color::White] {
        let game = play_game(&rules, &opening, [&mut first, &mut second], color, None);
        // A win under anti-Othello is a positive margin for the winner.
        if game.points == 1.0 {
            assert!(game.margin > 0, "{}", game.margin);
        }
        if game.points == 0.0 {
            assert!(game.margin < 0, "{}", game.margin);
        }
    }
}

#[test]
fn komi_bidding_that_swaps_seats_is_scored_for_the_right_agent() {
    // Under bidding the seat that starts as Black may end up playing White. An engine of
    // depth 3 against a random player must still be credited with its wins.
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let openings = random_openings::<u64>(&rules, 6, 0, 11);
    let engine = factory(&AgentSpec::Engine("depth=3".parse().unwrap()), &rules);
    let random = factory(&AgentSpec::Random, &rules);
    let result = play_paired(
        &rules,
        &openings,
        None,
        |game| (engine.build::<u64>(0), random.build::<u64>(game as u64)),
        |_| {},
    );
    assert!(
        result.score() >= 0.8,
        "engine vs random under komi: {}",
        result.score()
    );
}

#[test]
fn the_match_draws_the_seats_after_equal_bids_and_asks_no_agent() {
    let rules = Preset::Komi.rules(Some(6)).unwrap();
    let tie = flipzero_core::replay(&rules, &Game::<u64>::start(&rules), "bid+1 bid+1").unwrap();
    let engine = factory(&AgentSpec::Engine("depth=2".parse().unwrap()), &rules);
    let game = |first_agent_color| {
        let (mut first, mut second) = (engine.build::<u64>(0), engine.build::<u64>(1));
        play_game(
            &rules,
            &tie,
            [first.as_mut(), second.as_mut()],
            first_agent_color,
            None,
        )
    };
    let (as_black, as_white) = (game(Color::Black), game(Color::White));
    for result in [&as_black, &as_white] {
        assert!(
            matches!(result.decisions[0], Decision::TieBreak { .. }),
            "{:?}",
            result.decisions[0]
        );
        assert!(
            !result.decisions[1..]
                .iter()
                .any(|d| matches!(d, Decision::TieBreak { .. }))
        );
        let end = result
            .decisions
            .iter()
            .fold(tie.clone(), |game, &decision| {
                game.play(&rules, decision).unwrap()
            });
        assert!(end.is_over());
    }
    // Both games of a pair draw alike (a seed of the opening).
    assert_eq!(as_black.decisions[0], as_white.decisions[0]);
}

#[test]
fn strength_goes_random_then_greedy_then_shallow_then_deeper() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let openings = random_openings::<u64>(&rules, 8, 2, 5);
    let score = |first: &AgentSpec, second: &AgentSpec| {
        let (first, second) = (factory(first, &rules), factory(second, &rules));
        play_paired(
            &rules,
            &openings,
            None,
            |game| {
                (
                    first.build::<u64>(game as u64),
                    second.build::<u64>(100 + game as u64),
                )
            },
            |_| {},
        )
        .score()
    };
    let depth = |d: u32| {
        AgentSpec::Engine(SearchConfig {
            depth: d,
            solve_empties: 0,
            ..SearchConfig::default()
        })
    };
    assert!(score(&AgentSpec::Greedy, &AgentSpec::Random) >= 0.6);
    assert!(score(&depth(1), &AgentSpec::Random) >= 0.8);
    assert!(score(&depth(4), &depth(1)) >= 0.6);
}

#[test]
fn mcts_with_a_uniform_evaluator_beats_random_play() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let openings = random_openings::<u64>(&rules, 10, 2, 9);
    let result = play_paired(
        &rules,
        &openings,
        None,
        |game| -> (Box<dyn Agent<u64>>, Box<dyn Agent<u64>>) {
            let config = MctsConfig {
                simulations: 200,
                solve_empties: 10,
                ..MctsConfig::default()
            };
            (
                Box::new(MctsAgent::new(&rules, config, UniformEvaluator)),
                Box::new(RandomAgent::new(&rules, game as u64)),
            )
        },
        |_| {},
    );
    // Without a network the search only knows exact ends: strong late, blind early.
    assert!(result.score() >= 0.7, "{}", result.score());
}

#[test]
fn agent_names_parse_or_say_what_is_wrong() {
    assert_eq!("random".parse::<AgentSpec>().unwrap(), AgentSpec::Random);
    assert_eq!(
        "engine:depth=4".parse::<AgentSpec>().unwrap(),
        AgentSpec::Engine(SearchConfig {
            depth: 4,
            ..SearchConfig::default()
        })
    );
    assert_eq!(
        "mcts:checkpoint=a.ckpt,simulations=50,time=0.5"
            .parse::<AgentSpec>()
            .unwrap(),
        AgentSpec::Mcts(MctsSpec {
            checkpoint: Some("a.ckpt".into()),
            time: Some(std::time::Duration::from_millis(500)),
            ..MctsSpec::with_simulations(50)
        })
    );
    assert_eq!(
        "mcts:simulations=16,search=gumbel,considered=8,score=0.5,symmetries=all"
            .parse::<AgentSpec>()
            .unwrap(),
        AgentSpec::Mcts(MctsSpec {
            play: flipzero_mcts::PlaySettings {
                simulations: 16,
                search: flipzero_mcts::SearchKind::Gumbel,
                considered_actions: 8,
                score_utility: 0.5,
                ..MctsSpec::default().play
            },
            every_symmetry: true,
            ..MctsSpec::default()
        })
    );
    for bad in [
        "randm",
        "engine:depth=x",
        "mcts:sims=3",
        "mcts:score=-1",
        "mcts:score=nan",
        "mcts:time=-1",
        "mcts:search=alphabeta",
        "mcts:considered=0",
        "mcts:symmetries=8",
        "",
    ] {
        let error = bad.parse::<AgentSpec>().unwrap_err().to_string();
        assert!(error.contains(&format!("`{bad}`")), "{error}");
    }
}

#[test]
fn mcts_agents_search_by_time_and_refuse_a_missing_checkpoint() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let timed = factory(&"mcts:time=0.02,solve=0".parse().unwrap(), &rules);
    let game = Game::<u64>::try_start(&rules, 0).unwrap();
    let started = std::time::Instant::now();
    let decision = timed.build::<u64>(0).choose(&game).unwrap();
    assert!(game.legal_decisions(&rules).contains(&decision));
    assert!(started.elapsed() >= std::time::Duration::from_millis(20));
    let missing: AgentSpec = "mcts:checkpoint=/no/such/file.ckpt".parse().unwrap();
    let error = AgentFactory::new(&missing, &rules, &burn::tensor::Device::flex())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("/no/such/file.ckpt"), "{error}");
}

/// An agent that thinks too long, whatever the clock says.
struct Dawdler(RandomAgent);

impl Agent<u64> for Dawdler {
    fn choose(&mut self, game: &Game<u64>) -> Result<flipzero_core::Decision, String> {
        std::thread::sleep(std::time::Duration::from_millis(30));
        self.0.choose(game)
    }
}

#[test]
fn a_player_who_runs_out_of_time_loses_by_one() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let opening = Game::<u64>::try_start(&rules, 0).unwrap();
    let mut slow = Dawdler(RandomAgent::new(&rules, 1));
    let mut quick = RandomAgent::new(&rules, 2);
    let clock = Some(std::time::Duration::from_millis(10));
    let game = play_game(
        &rules,
        &opening,
        [&mut slow, &mut quick],
        Color::White,
        clock,
    );
    assert_eq!(game.ending, flipzero_arena::Ending::Time(Color::White));
    assert_eq!((game.points, game.margin), (0.0, -1));
    // Black (the quick player) moved once; White flagged on its first move.
    assert_eq!(game.decisions.len(), 1);
    // Without a clock the same players finish the game.
    let mut slow = Dawdler(RandomAgent::new(&rules, 1));
    let game = play_game(
        &rules,
        &opening,
        [&mut slow, &mut quick],
        Color::White,
        None,
    );
    assert_eq!(game.ending, flipzero_arena::Ending::Finished);
}

#[test]
fn an_sprt_match_stops_once_the_test_decides() {
    let text = r#"
variant = "othello"
size = 6
format = "match"
agents = ["engine:depth=3", "random"]
[openings]
count = 60
plies = 3
[sprt]
elo0 = 0.0
elo1 = 100.0
alpha = 0.05
beta = 0.05
"#;
    let (report, _) = common::run_config(text, "sprt.toml");
    assert_eq!(report.sprt, Some(flipzero_arena::SprtDecision::AcceptH1));
    assert!(report.games.len() < 120, "{} games", report.games.len());
    assert_eq!(report.standings[0].name, "engine:depth=3");
}

#[test]
fn every_committed_arena_config_is_valid() {
    use flipzero_arena::competition::ArenaConfig;
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/arena");
    let mut count = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        ArenaConfig::parse(&text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        count += 1;
    }
    assert_eq!(count, 4);
}

#[test]
fn perfect_play_keeps_every_openings_exact_value_and_a_random_player_does_not() {
    use flipzero_arena::{ExactCache, PerfectPlayScore, exact_openings, positions};
    let rules = Preset::Othello.rules(Some(4)).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("exact-values.json");
    let mut cache = ExactCache::open(&rules, Some(&path)).unwrap();
    let openings = positions(&exact_openings::<u64>(&rules, &mut cache, 6, 2..=4, 16, 5).unwrap());
    assert!(openings.len() >= 4, "{} openings", openings.len());
    assert!(path.exists(), "the values are kept");
    let perfect = factory(&AgentSpec::Perfect, &rules);
    let random = factory(&AgentSpec::Random, &rules);
    let against = |first: &AgentFactory| {
        let result = play_paired(
            &rules,
            &openings,
            None,
            |game| {
                (
                    first.build::<u64>(game as u64),
                    perfect.build::<u64>(game as u64),
                )
            },
            |_| {},
        );
        PerfectPlayScore::of_match(&rules, &cache, &openings, &result.games)
    };
    let itself = against(&perfect);
    assert_eq!(itself.games, 2 * openings.len());
    assert_eq!(itself.kept_outcome, itself.not_lost);
    assert_eq!(itself.kept_margin, itself.games);
    assert_eq!(itself.discs_lost, 0);
    // Each opening is lost for one side at most, and 4x4 has draws: something is not lost.
    assert!(itself.not_lost[2] >= openings.len());
    let random_score = against(&random);
    assert!(random_score.discs_lost > 0, "{random_score:?}");
    assert!(random_score.kept_margin < random_score.games);

    // The cache is read back, and refused for other rules.
    let reopened = ExactCache::open(&rules, Some(&path)).unwrap();
    for opening in &openings {
        assert_eq!(
            reopened.value(&rules, opening),
            cache.value(&rules, opening)
        );
    }
    let other = Preset::Anti.rules(Some(4)).unwrap();
    let error = ExactCache::open(&other, Some(&path))
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("other rules"), "{error}");
}

#[test]
fn perfect_is_refused_for_rules_the_solver_does_not_cover() {
    assert_eq!("perfect".parse::<AgentSpec>().unwrap(), AgentSpec::Perfect);
    let rules = Preset::Rotation.rules(None).unwrap();
    let error = AgentFactory::new(&AgentSpec::Perfect, &rules, &burn::tensor::Device::flex())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("exact solver covers"), "{error}");
}

#[test]
fn perfect_play_past_the_solvers_reach_is_refused_with_the_empty_squares_named() {
    use flipzero_arena::perfect::{ExactError, check_within_reach, exact_reach};
    use flipzero_arena::{ExactCache, PerfectAgent};
    let six = Preset::Othello.rules(Some(6)).unwrap();
    let eight = Preset::Othello.rules(None).unwrap();
    assert_eq!((exact_reach(&six), exact_reach(&eight)), (36, 26));
    // The boundary on 8x8: 26 empty squares are taken on, 27 are not.
    let at = |empties: u32| {
        let game = random_openings::<u64>(&eight, 1, 60 - empties, 3).remove(0);
        assert_eq!(game.empty().count(), empties, "no pass in the opening");
        game
    };
    assert!(check_within_reach(&eight, [&at(26)]).is_ok());
    let past = check_within_reach(&eight, [&at(26), &at(27)]).unwrap_err();
    assert!(
        matches!(
            past,
            ExactError::OutOfReach {
                empties: 27,
                reach: 26,
                squares: 64
            }
        ),
        "{past}"
    );
    // The perfect agent says so rather than searching for days, and plays within reach.
    let mut perfect = PerfectAgent::<u64>::new(&eight, weights(&eight)).unwrap();
    let start = Game::<u64>::start(&eight);
    let refusal = perfect.choose(&start).unwrap_err();
    assert!(refusal.contains("60 empty squares"), "{refusal}");
    let late = at(10);
    let decision = perfect.choose(&late).unwrap();
    assert!(late.legal_decisions(&eight).contains(&decision));
    // Exact values are refused before any is solved.
    let mut cache = ExactCache::open(&eight, None).unwrap();
    let error = cache.solve_all(&eight, &[start]).unwrap_err().to_string();
    assert!(
        error.contains("60 empty squares") && error.contains("at most 26"),
        "{error}"
    );
    // An arena with the perfect agent refuses openings past the reach before any game.
    let text = "variant = \"othello\"\nformat = \"match\"\nagents = [\"perfect\", \"random\"]\n\
                [openings]\ncount = 2\nplies = 2\n";
    let (config, rules) = flipzero_arena::competition::ArenaConfig::parse(text, "p.toml").unwrap();
    let error = flipzero_arena::competition::run_arena(
        &config,
        &rules,
        &burn::tensor::Device::flex(),
        None,
        &|| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("agent perfect: a position with 58 empty squares"),
        "{error}"
    );
}

#[test]
fn an_arena_scores_an_agent_against_perfect_play_from_openings_of_known_value() {
    use flipzero_arena::competition::ArenaConfig;
    let folder = tempfile::tempdir().unwrap();
    let cache = folder.path().join("exact.json");
    let config = |agents: &str| {
        format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nseed = 4\nagents = [{agents}]\n\
             [openings]\ncount = 6\nplies = 12\nexact_within = 8\nexact_cache = \"{}\"\n",
            cache.display()
        )
    };
    let score_of = |agents: &str| {
        let (report, _) = common::run_config(&config(agents), "perfect.toml");
        assert_eq!(report.perfect.len(), 1, "{agents}");
        report.perfect[0].clone()
    };
    let (agent, first) = score_of("\"engine:depth=1\", \"perfect\"");
    assert_eq!(agent, "engine:depth=1");
    assert_eq!(first.games, 12);
    // Perfect play never does worse than the exact value: the engine loses discs.
    assert!(first.discs_lost > 0 && first.kept_margin < 12, "{first:?}");
    assert!(first.not_lost[2] > 0 && first.not_lost[2] == first.not_lost[0] + first.not_lost[1]);
    // The values were cached, and seated the other way round the same games score the same.
    assert!(cache.exists());
    let (_, second) = score_of("\"perfect\", \"engine:depth=1\"");
    assert_eq!(second, first);
    // Openings drawn by exact value exclude a file of openings.
    let clash =
        config("\"random\", \"perfect\"").replace("[openings]", "[openings]\nbalanced = true");
    let error = ArenaConfig::parse(&clash, "clash.toml")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("exact_within draws its own openings"),
        "{error}"
    );
    let swiss = config("\"random\", \"perfect\"")
        .replace("format = \"match\"", "format = \"swiss\"\nrounds = 1");
    let error = ArenaConfig::parse(&swiss, "swiss.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("not swiss"), "{error}");
}

/// A small gauntlet and a Swiss round whose games are journalled.
fn journalled_configs() -> [&'static str; 2] {
    [
        r#"
variant = "othello"
size = 6
seed = 9
format = "gauntlet"
agents = ["engine:depth=1", "random", "greedy"]
[openings]
count = 3
plies = 4
"#,
        r#"
variant = "othello"
size = 6
seed = 9
format = "swiss"
rounds = 2
agents = ["engine:depth=1", "random", "greedy", "engine:depth=2"]
[openings]
count = 2
plies = 4
"#,
    ]
}

#[test]
fn an_interrupted_competition_takes_its_finished_games_from_the_journal() {
    for (index, text) in journalled_configs().into_iter().enumerate() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("games.journal");
        let (whole, _) = common::run_config_journalled(text, "journalled.toml", Some(&path));
        assert_eq!(whole.resumed, 0);
        assert_eq!(whole.journal_failure, None);
        let lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        // The rules' line, then one line a game.
        assert!(lines[0].starts_with("{\"rules\":"), "config {index}");
        assert_eq!(lines.len(), 1 + whole.games.len(), "config {index}");

        // The run stopped after two games, in the middle of writing the third; the first
        // game's line is changed so that taking it (not replaying it) shows in the report.
        let mut changed: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        let original = changed["black_score"].as_i64().unwrap() as i32;
        changed["black_score"] = serde_json::json!(99);
        let cut = &lines[3][..lines[3].len() / 2];
        let journal = format!("{}\n{changed}\n{}\n{cut}", lines[0], lines[2]);
        std::fs::write(&path, journal).unwrap();
        let (resumed, _) = common::run_config_journalled(text, "journalled.toml", Some(&path));
        assert_eq!(resumed.resumed, 2, "config {index}");
        let scores = |report: &flipzero_arena::competition::ArenaReport| {
            let mut scores: Vec<i32> = report.games.iter().map(|g| g.score).collect();
            scores.sort_unstable();
            scores
        };
        let mut expected = scores(&whole);
        let taken = expected.iter().position(|&s| s == original).unwrap();
        expected[taken] = 99;
        expected.sort_unstable();
        // The changed game is taken from the journal; the others are played as before.
        assert_eq!(scores(&resumed), expected, "config {index}");
        // Every game is in the journal again, the cut line gone.
        assert_eq!(
            std::fs::read_to_string(&path).unwrap().lines().count(),
            1 + whole.games.len()
        );
    }
}

#[test]
fn a_journal_line_that_is_not_a_game_names_the_file_and_line() {
    use flipzero_arena::journal::Journal;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("games.journal");
    std::fs::write(&path, "{\"key\": \"k\"}\n").unwrap();
    let error = Journal::open(&path, &rules).err().unwrap().to_string();
    assert!(
        error.contains("games.journal") && error.contains("line 1"),
        "{error}"
    );
    std::fs::write(&path, "not json\n").unwrap();
    assert!(Journal::open(&path, &rules).is_err());
}

#[test]
fn a_journal_names_its_rules_and_refuses_other_rules() {
    use flipzero_arena::journal::Journal;
    let six = Preset::Othello.rules(Some(6)).unwrap();
    let anti = Preset::Anti.rules(Some(6)).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("games.journal");
    drop(Journal::open(&path, &six).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\"rules\":") && text.ends_with("}\n"),
        "{text}"
    );
    assert_eq!(Journal::open(&path, &six).unwrap().resumed(), 0);
    let error = Journal::open(&path, &anti).err().unwrap().to_string();
    assert!(
        error.contains("games.journal") && error.contains("other rules"),
        "{error}"
    );
    // A journal written before the header was added reads as it is.
    let legacy = "{\"key\":\"k\",\"first_agent_color\":\"black\",\"points\":0.0,\
                  \"margin\":-4,\"decisions\":[],\"black_score\":-4,\"discs\":[16,20],\
                  \"ending\":\"finished\",\"seconds\":[2.5,1.5],\"chosen\":[0,0]}\n";
    std::fs::write(&path, legacy).unwrap();
    assert_eq!(Journal::open(&path, &anti).unwrap().resumed(), 1);
}

/// Found by the `game_journal` fuzz target: a finite thinking time too large for a duration
/// (8.6e70 s) panicked in `Duration::from_secs_f64`.
#[test]
fn fuzz_crash_a_journal_time_too_large_for_a_duration_is_refused() {
    use flipzero_arena::journal::Journal;
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("games.journal");
    let line = |seconds: &str| {
        format!(
            "{{\"key\":\"k\",\"first_agent_color\":\"black\",\"points\":0.0,\"margin\":-4,\
             \"decisions\":[],\"black_score\":-4,\"discs\":[16,20],\"ending\":\"finished\",\
             \"seconds\":[{seconds},1.5],\"chosen\":[0,0]}}\n"
        )
    };
    std::fs::write(&path, line("2.5")).unwrap();
    assert_eq!(Journal::open(&path, &rules).unwrap().resumed(), 1);
    for seconds in ["8.6e70", "-1.0"] {
        std::fs::write(&path, line(seconds)).unwrap();
        let error = Journal::open(&path, &rules).err().unwrap().to_string();
        assert!(
            error.contains("line 1") && error.contains("seconds"),
            "{seconds}: {error}"
        );
    }
}

/// A one-opening 6x6 match config of two quick agents, with `extra` top-level lines.
fn quick_match_config(extra: &str) -> String {
    format!(
        "variant = \"othello\"\nsize = 6\nagents = [\"random\", \"greedy\"]\n\
         format = \"match\"\n{extra}\n[openings]\ncount = 1\nplies = 2\n"
    )
}

#[test]
fn sprt_settings_and_an_anchor_rating_without_meaning_are_refused_at_parse_time() {
    use flipzero_arena::competition::ArenaConfig;
    let config = quick_match_config;
    let sprt = |elo0: &str, elo1: &str, alpha: &str, beta: &str| {
        config(&format!(
            "[sprt]\nelo0 = {elo0}\nelo1 = {elo1}\nalpha = {alpha}\nbeta = {beta}\n"
        ))
    };
    for good in [
        config("anchor_elo = -400.0"),
        sprt("0.0", "10.0", "0.05", "0.5"),
    ] {
        assert!(ArenaConfig::parse(&good, "good.toml").is_ok(), "{good}");
    }
    let refused = [
        (config("anchor_elo = nan"), "anchor_elo = NaN"),
        (config("anchor_elo = inf"), "anchor_elo = inf"),
        (sprt("10.0", "0.0", "0.05", "0.05"), "elo0 = 10, elo1 = 0"),
        (sprt("0.0", "0.0", "0.05", "0.05"), "elo0 = 0, elo1 = 0"),
        (sprt("nan", "10.0", "0.05", "0.05"), "elo0 = NaN"),
        (sprt("0.0", "10.0", "0.0", "0.05"), "alpha = 0"),
        (sprt("0.0", "10.0", "0.05", "0.6"), "beta = 0.6"),
        (sprt("0.0", "10.0", "nan", "0.05"), "alpha = NaN"),
    ];
    for (text, named) in refused {
        let error = ArenaConfig::parse(&text, "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(error.contains(named), "{named}: {error}");
    }
}

#[test]
fn a_game_clock_no_duration_holds_is_refused_at_parse_time() {
    use flipzero_arena::competition::ArenaConfig;
    let config = |seconds: &str| quick_match_config(&format!("seconds_per_game = {seconds}"));
    assert!(ArenaConfig::parse(&config("60.0"), "clock.toml").is_ok());
    for seconds in ["1e300", "0.0", "-5.0"] {
        let error = ArenaConfig::parse(&config(seconds), "clock.toml")
            .unwrap_err()
            .to_string();
        assert!(error.contains("seconds_per_game"), "{seconds}: {error}");
    }
}
