//! External engines that fail mid-match: each failure ends only its own game, recorded as a
//! forfeit with the reason (or as a time loss under a clock), and the match goes on. The
//! engines are small shell scripts that speak just enough GTP.

mod common;

use std::path::Path;
use std::time::Duration;

use flipzero_arena::competition::saved_game;
use flipzero_arena::{AgentFactory, AgentSpec, Ending, play_paired, random_openings};
use flipzero_core::{Color, Preset};

/// A GTP engine that answers every command with an empty success, and `genmove` as told:
/// `exit` ends the process, `hang` sleeps, `illegal` answers a1 (never legal at the start).
fn fake_engine(folder: &Path, genmove: &str) -> String {
    let action = match genmove {
        "exit" => "exit 0",
        "hang" => "exec sleep 60",
        "illegal" => "printf '= a1\\n\\n'",
        other => panic!("no fake engine does {other}"),
    };
    let script = folder.join(format!("{genmove}.sh"));
    std::fs::write(
        &script,
        format!(
            "while read -r line; do\n  case \"$line\" in\n    genmove*) {action} ;;\n    quit*) printf '=\\n\\n'; exit 0 ;;\n    *) printf '=\\n\\n' ;;\n  esac\ndone\n"
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

#[test]
fn a_failing_engine_forfeits_its_games_and_the_match_goes_on() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let openings = random_openings::<u64>(&rules, 2, 2, 3);
    let device = burn::tensor::Device::flex();
    let random = AgentFactory::new(&AgentSpec::Random, &rules, &device).unwrap();
    for (behaviour, clock, reason) in [
        ("exit", None, "closed its output"),
        ("illegal", None, "a1"),
        ("hang", Some(Duration::from_secs(1)), ""),
    ] {
        let command = fake_engine(folder.path(), behaviour);
        // It answers `protocol_version` and `boardsize`: the factory takes it.
        let engine = AgentFactory::new(&AgentSpec::Gtp(command.clone()), &rules, &device)
            .unwrap_or_else(|e| panic!("{behaviour}: {e}"));
        let result = play_paired(
            &rules,
            &openings,
            clock,
            |index| (engine.build(index as u64), random.build(index as u64)),
            |_| {},
        );
        // Every game was played, and every one is lost by the engine at its first move.
        assert_eq!(result.games.len(), 4, "{behaviour}");
        for (index, game) in result.games.iter().enumerate() {
            assert_eq!((game.points, game.margin), (0.0, -1), "{behaviour}");
            assert!(
                game.decisions.len() <= 1,
                "{behaviour}: {:?}",
                game.decisions
            );
            let seat = game.first_agent_color;
            if clock.is_some() {
                // A hung engine under a clock loses on time.
                assert_eq!(game.ending, Ending::Time(seat), "{behaviour}");
                continue;
            }
            assert_eq!(game.ending, Ending::Forfeit(seat), "{behaviour}");
            let failure = game.failure.as_deref().unwrap_or_default();
            assert!(failure.contains(reason), "{behaviour}: {failure}");
            // The games file says so.
            let opening = &openings[index / 2];
            let saved = saved_game(
                "othello",
                Some(6),
                &rules,
                opening,
                (&command, "random"),
                game,
            );
            assert!(saved.ending.starts_with("forfeit: "), "{}", saved.ending);
            assert!(saved.ending.contains(reason), "{}", saved.ending);
            let winner = if seat == Color::Black { "0-1" } else { "1-0" };
            assert_eq!(saved.result, winner);
        }
    }
}

#[test]
fn the_arena_tells_a_gtp_engine_each_opening_by_its_own_moves() {
    use flipzero_arena::random_opening_lines;
    use flipzero_core::{Game, variant::notation};
    // An engine that logs what it hears, one file per process (one per game), answers every
    // command with an empty success and so forfeits at its first `genmove`.
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("engine.sh");
    std::fs::write(
        &script,
        format!(
            "log=$(mktemp -p {} heard-XXXXXX)\nwhile read -r line; do\n  echo \"$line\" >> \"$log\"\n  printf '=\\n\\n'\n  [ \"$line\" = quit ] && exit 0\ndone\n",
            folder.path().display()
        ),
    )
    .unwrap();
    // 8x8 openings of 30 plies, deeper than a searched line from the start is sure to reach.
    let text = format!(
        "variant = \"othello\"\nformat = \"match\"\nseed = 5\nagents = [\"gtp:sh {}\", \"random\"]\n\
         [openings]\ncount = 2\nplies = 30\n",
        script.display()
    );
    let (report, rules) = common::run_config(&text, "deep.toml");
    assert_eq!(report.games.len(), 4);
    let suite = random_opening_lines::<u64>(&rules, 2, 30, 5);
    let lines: Vec<Vec<String>> = suite
        .iter()
        .map(|opening| {
            let mut position: Game<u64> = opening.start.clone();
            opening
                .decisions
                .iter()
                .map(|&decision| {
                    let name = notation::decision_name(&rules, position.geometry(), decision);
                    position = position.play_unchecked(&rules, decision);
                    name
                })
                .collect()
        })
        .collect();
    let logs: Vec<_> = std::fs::read_dir(folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains("heard-"))
        .collect();
    // A game per seat and opening (the factory's probe hears no `play`): as Black the engine
    // hears the opening's moves, as White those and the random player's first move.
    let mut told = Vec::new();
    for log in logs {
        let heard = std::fs::read_to_string(&log).unwrap();
        let plays: Vec<String> = heard
            .lines()
            .filter(|command| command.starts_with("play "))
            .map(|command| command.split_whitespace().nth(2).unwrap().to_owned())
            .collect();
        if plays.is_empty() {
            continue;
        }
        let opening = lines
            .iter()
            .position(|line| plays.starts_with(line))
            .unwrap_or_else(|| panic!("{} heard another line: {plays:?}", log.display()));
        let after: Vec<&str> = plays[lines[opening].len()..]
            .iter()
            .map(String::as_str)
            .collect();
        told.push((opening, after.join(" ")));
    }
    told.sort();
    // Nothing more as Black; as White, the random player's first move of that game.
    let mut expected = vec![(0, String::new()), (1, String::new())];
    for game in report
        .games
        .iter()
        .filter(|game| game.white.starts_with("gtp:"))
    {
        let opening = suite
            .iter()
            .position(|opening| opening.position.to_text(&rules) == game.opening)
            .unwrap();
        let first_move = game.decisions.split_whitespace().next().unwrap();
        expected.push((opening, first_move.to_owned()));
    }
    assert_eq!(expected.len(), 4);
    expected.sort();
    assert_eq!(told, expected);
    for game in &report.games {
        assert!(game.ending.starts_with("forfeit"), "{}", game.ending);
    }
}

/// GRhino (Debian's `grhino`, installed by `scripts/install-grhino.sh`), or `None` with a
/// SKIPPED line where it is not installed.
fn grhino() -> Option<&'static str> {
    const PROGRAM: &str = "/usr/games/gtp-rhino";
    if Path::new(PROGRAM).exists() {
        Some(PROGRAM)
    } else {
        println!("SKIPPED: GRhino is not installed (scripts/install-grhino.sh installs it)");
        None
    }
}

#[test]
fn grhino_is_told_a_pass_its_own_way_and_answers_after_it() {
    use flipzero_arena::agent::Agent;
    use flipzero_arena::external::GtpAgent;
    use flipzero_core::{Decision, Game, variant::notation};
    let Some(program) = grhino() else { return };
    let rules = Preset::Othello.rules(None).unwrap();
    // A game in which Black has no move with two squares left (White has a8 and b8).
    let line = "d3 e3 f5 c3 f2 f3 f4 e6 f6 c5 d6 c6 e2 e7 c4 d2 c1 f7 f8 b5 c2 g6 e8 g4 g3 g5 \
                h3 h4 h5 g2 b6 d7 d8 c7 a4 b4 h1 a5 a3 a2 b3 b2 c8 e1 d1 b1 a7 h6 h7 a6 a1 h2 \
                g7 h8 f1 g1 b7 g8 pass";
    let start = Game::<u64>::start(&rules);
    let (decisions, position) = notation::replay_decisions(&rules, &start, line).unwrap();
    assert_eq!(decisions.last(), Some(&Decision::Pass));
    let mut engine = GtpAgent::<u64>::start(&rules, &format!("{program} -l 1")).unwrap();
    engine.start_from(&start, &decisions);
    let answer = engine.choose(&position).unwrap();
    assert!(
        position.legal_decisions(&rules).contains(&answer),
        "{answer:?}"
    );
}

#[test]
fn full_games_against_grhino_end_on_the_board() {
    let Some(program) = grhino() else { return };
    let text = format!(
        "variant = \"othello\"\nformat = \"match\"\nseed = 13\n\
         agents = [\"engine:depth=1\", \"gtp:{program} -l 1\"]\n[openings]\ncount = 3\nplies = 4\n"
    );
    let (report, rules) = common::run_config(&text, "grhino.toml");
    assert_eq!(report.games.len(), 6);
    for game in &report.games {
        assert_eq!(game.ending, "finished", "{}", game.decisions);
        // Played to the end: the board is full or neither side can move.
        let opening = flipzero_core::Game::<u64>::from_text(&rules, &game.opening).unwrap();
        let end =
            flipzero_core::variant::notation::replay(&rules, &opening, &game.decisions).unwrap();
        assert!(end.is_over(), "{}", game.decisions);
    }
}

/// Six turns of `command` (a GTP engine) from a position no line of moves reaches, each of
/// its answers legal there, then a game from the start: its first answer is legal at the
/// start, so the engine was put back on it and not left on the position it was set up on.
fn an_engine_plays_from_a_position_no_line_reaches_then_from_the_start(command: &str) {
    use flipzero_arena::agent::Agent;
    use flipzero_arena::external::GtpAgent;
    use flipzero_core::Game;
    let rules = Preset::Othello.rules(None).unwrap();
    // The start and one more black disc, in a corner, White to move.
    let lonely = format!("X{}OX------XO{} O", "-".repeat(26), "-".repeat(27));
    let mut position = Game::<u64>::from_text(&rules, &lonely).unwrap();
    let mut engine = GtpAgent::<u64>::start(&rules, command).unwrap();
    engine.start_from(&position, &[]);
    for _ in 0..6 {
        let answer = engine.choose(&position).unwrap();
        assert!(
            position.legal_decisions(&rules).contains(&answer),
            "{answer:?} in {}",
            position.to_text(&rules)
        );
        position = position.play(&rules, answer).unwrap();
        // Black replies with its first legal move, told to the engine at its next turn.
        let reply = position.legal_decisions(&rules)[0];
        position = position.play(&rules, reply).unwrap();
    }
    let start = Game::<u64>::start(&rules);
    engine.start_from(&start, &[]);
    let first = engine.choose(&start).unwrap();
    assert!(
        start.legal_decisions(&rules).contains(&first),
        "{first:?} at the start"
    );
}

#[test]
fn grhino_is_set_up_on_a_position_no_line_of_moves_reaches() {
    let Some(program) = grhino() else { return };
    an_engine_plays_from_a_position_no_line_reaches_then_from_the_start(&format!("{program} -l 1"));
}

/// Edax is loaded a GGF file of the position (`loadsgf`), and since its `clear_board` then
/// returns to that board, the start is loaded for the next game. Edax is no Debian package:
/// set `FLIPZERO_EDAX` to its GTP command line (docs/RELIABILITY.md says how it is built).
#[test]
fn edax_is_loaded_a_position_no_line_of_moves_reaches_and_the_start_after_it() {
    let Ok(command) = std::env::var("FLIPZERO_EDAX") else {
        println!("SKIPPED: FLIPZERO_EDAX (Edax's GTP command line) is not set");
        return;
    };
    an_engine_plays_from_a_position_no_line_reaches_then_from_the_start(&command);
}
