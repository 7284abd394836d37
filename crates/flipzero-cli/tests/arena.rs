//! Competitions from the command line: `arena` with built-in and external agents.

mod common;

use common::{failing, non_empty, succeeding, write_file};

/// `flipzero arena --config CONFIG --json --games GAMES`: its report.
fn arena_report(config: &std::path::Path, games: &std::path::Path) -> serde_json::Value {
    let output = succeeding(&[
        "arena",
        "--config",
        config.to_str().unwrap(),
        "--json",
        "--games",
        games.to_str().unwrap(),
    ]);
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn an_arena_round_robin_rates_agents_and_its_games_replay() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "arena.toml",
        r#"
variant = "othello"
size = 6
format = "round-robin"
agents = ["random", "greedy", "engine:depth=2"]
anchor = "random"
[openings]
count = 3
plies = 2
"#,
    );
    let games = folder.path().join("games.jsonl");
    let report = arena_report(&config, &games);
    // Three pairs, three openings, both colours: 18 games, 12 per agent.
    assert_eq!(report["games"], 18);
    let standings = report["standings"].as_array().unwrap();
    assert_eq!(standings[0]["agent"], "engine:depth=2");
    let random = standings.iter().find(|s| s["agent"] == "random").unwrap();
    assert_eq!(random["elo"], 0.0);
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 18.0);
    for standing in standings {
        assert_eq!(standing["games"], 12);
    }
    // Every saved game replays to its recorded result.
    let lines = std::fs::read_to_string(&games).unwrap();
    assert_eq!(lines.lines().count(), 18);
    for (index, line) in lines.lines().enumerate() {
        let saved: serde_json::Value = serde_json::from_str(line).unwrap();
        let line_number = (index + 1).to_string();
        let output = succeeding(&[
            "replay",
            "--games",
            games.to_str().unwrap(),
            "--json",
            "--line",
            &line_number,
        ]);
        let replayed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(replayed["over"], true);
        assert_eq!(replayed["score"], saved["score"], "line {}", index + 1);
        let expected = match saved["result"].as_str().unwrap() {
            "1-0" => "black wins",
            "0-1" => "white wins",
            _ => "draw",
        };
        assert_eq!(replayed["result"], expected);
    }
    assert!(
        failing(&["replay", "--games", games.to_str().unwrap(), "--line", "19"])
            .contains("no line 19")
    );
}

#[test]
fn an_arena_swiss_with_an_odd_field_and_a_clock() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "swiss.toml",
        r#"
variant = "othello"
size = 6
format = "swiss"
rounds = 3
agents = ["random", "greedy", "engine:depth=1"]
seconds_per_game = 30.0
[openings]
count = 2
plies = 1
"#,
    );
    let output = succeeding(&["arena", "--config", config.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Three players: one game and one bye per round.
    assert_eq!(report["games"], 3);
    let standings = report["standings"].as_array().unwrap();
    let points: f64 = standings
        .iter()
        .map(|s| s["points"].as_f64().unwrap())
        .sum();
    assert_eq!(points, 3.0 + 3.0, "a point per game and per bye");
    for standing in standings {
        assert!(standing["brightwell"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn an_arena_config_with_a_mistake_is_refused_by_name() {
    let folder = tempfile::tempdir().unwrap();
    for (text, named) in [
        (
            "variant = \"othello\"\nformat = \"match\"\nagents = [\"random\"]\n[openings]\ncount = 2\n",
            "needs 2 to 2 agents",
        ),
        (
            "variant = \"othello\"\nformat = \"swiss\"\nagents = [\"random\", \"greedy\"]\n[openings]\ncount = 2\n",
            "rounds",
        ),
        (
            "variant = \"othello\"\nformat = \"league\"\nagents = [\"random\", \"greedy\"]\n[openings]\ncount = 2\n",
            "league",
        ),
        (
            "variant = \"othello\"\nformat = \"match\"\nagents = [\"random\", \"grredy\"]\n[openings]\ncount = 2\n",
            "grredy",
        ),
    ] {
        let config = write_file(folder.path(), "bad.toml", text);
        let stderr = failing(&["arena", "--config", config.to_str().unwrap()]);
        assert!(
            stderr.contains("bad.toml") && stderr.contains(named),
            "{stderr}"
        );
    }
}

#[test]
fn arena_report_draws_the_win_rate_matrix() {
    let folder = tempfile::tempdir().unwrap();
    let config = write_file(
        folder.path(),
        "arena.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"gauntlet\"\nagents = [\"greedy\", \"random\", \"engine:depth=1\"]\n[openings]\ncount = 2\nplies = 2\n",
    );
    let report = folder.path().join("report");
    succeeding(&[
        "arena",
        "--config",
        config.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    for file in ["win-rates.png", "win-rates.svg"] {
        assert!(non_empty(&report.join(file)), "{file}");
    }
    let page = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(page.contains("| greedy |"), "{page}");
}

/// `flipzero engine --protocol <protocol>` at depth 2, as an external agent of the arena,
/// plays a 6-game match against a random player and wins it; every game is saved.
fn external_engine_wins_an_arena_match(protocol: &str, folder: &std::path::Path) {
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let external = format!(
        "{protocol}:{} engine --protocol {protocol} --agent engine:depth=2",
        program.display()
    );
    let config = write_file(
        folder,
        "external.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"{external}\", \"random\"]\n[openings]\ncount = 3\nplies = 2\n"
        ),
    );
    let games = folder.join("games.jsonl");
    let report = arena_report(&config, &games);
    assert_eq!(report["games"], 6);
    assert_eq!(
        report["standings"][0]["agent"],
        external.as_str(),
        "depth 2 beats random"
    );
    assert_eq!(std::fs::read_to_string(&games).unwrap().lines().count(), 6);
}

#[test]
fn an_external_nboard_engine_plays_in_the_arena() {
    let folder = tempfile::tempdir().unwrap();
    external_engine_wins_an_arena_match("nboard", folder.path());
    // A program that does not speak NBoard is refused before any game: it does not
    // answer `ping`, so its output ends.
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let config = write_file(
        folder.path(),
        "broken.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:{} variants\", \"random\"]\n[openings]\ncount = 1\n",
            program.display()
        ),
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    // Which comes first is a race: the program ends before its output is read, or before
    // the first command reaches it.
    assert!(
        said.contains("closed its output") || said.contains("went away"),
        "{said}"
    );
    // Nor does it play other rules than standard Othello.
    let config = write_file(
        folder.path(),
        "anti.toml",
        &format!(
            "variant = \"anti\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:{} engine --protocol nboard\", \"random\"]\n[openings]\ncount = 1\n",
            program.display()
        ),
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    assert!(said.contains("standard Othello"), "{said}");
    // A process that never answers is given up on, not waited for.
    let config = write_file(
        folder.path(),
        "silent.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"nboard:sleep 60\", \"random\"]\n[openings]\ncount = 1\n",
    );
    let said = failing(&["arena", "--config", config.to_str().unwrap()]);
    assert!(said.contains("no answer within 10 s"), "{said}");
}

#[test]
fn an_external_gtp_engine_plays_in_the_arena() {
    let folder = tempfile::tempdir().unwrap();
    external_engine_wins_an_arena_match("gtp", folder.path());
    // A command that is not an engine is refused before any game.
    let config = write_file(
        folder.path(),
        "broken.toml",
        "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"gtp:/no/such/engine\", \"random\"]\n[openings]\ncount = 1\n",
    );
    assert!(failing(&["arena", "--config", config.to_str().unwrap()]).contains("/no/such/engine"));
    // Openings of 14 random plies reach the engine by moves (a breadth-first search from the
    // start gave up past 12), and every game is played out.
    let program = assert_cmd::cargo::cargo_bin("flipzero");
    let config = write_file(
        folder.path(),
        "deep.toml",
        &format!(
            "variant = \"othello\"\nsize = 6\nformat = \"match\"\nagents = [\"gtp:{} engine --protocol gtp --agent engine:depth=1\", \"random\"]\n[openings]\ncount = 2\nplies = 14\n",
            program.display()
        ),
    );
    let games = folder.path().join("deep.jsonl");
    succeeding(&[
        "arena",
        "--config",
        config.to_str().unwrap(),
        "--games",
        games.to_str().unwrap(),
    ]);
    let saved = std::fs::read_to_string(&games).unwrap();
    assert_eq!(saved.lines().count(), 4, "{saved}");
    for line in saved.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(game["ending"], "finished", "{line}");
        let empties = game["opening"].as_str().unwrap().matches('-').count();
        // 14 plies, a pass among them at most: 13 discs or more beyond the start's four.
        assert!(empties <= 32 - 13, "{line}");
    }
}
