//! Each validation rule of `Rules::try_from`, with the field it names.

use flipzero_core::variant::rules::*;
use flipzero_core::{Preset, Rules, RulesError};

fn refused(spec: RulesSpec, field: &str, words: &str) {
    match Rules::try_from(spec.clone()) {
        Err(RulesError::Invalid { field: got, reason }) => {
            assert_eq!(got, field, "{reason}");
            assert!(reason.contains(words), "{field}: {reason}");
        }
        other => panic!("{spec:?} gave {other:?}"),
    }
}

fn othello() -> RulesSpec {
    Preset::Othello.spec(None)
}

#[test]
fn sides_out_of_range() {
    let mut spec = othello();
    spec.board.rows = 3;
    refused(spec, "board.rows", "outside 4..=16");
    let mut spec = othello();
    spec.board.cols = 18;
    refused(spec, "board.cols", "outside 4..=16");
}

#[test]
fn an_odd_board_with_a_centred_start() {
    let mut spec = othello();
    spec.board.rows = 7;
    refused(spec, "start", "even number of rows and columns");
    let mut spec = Preset::Parallel.spec(None);
    spec.board.cols = 9;
    refused(spec, "start", "not 8x9");
}

#[test]
fn an_odd_board_with_a_diagram_start_is_fine() {
    let mut spec = othello();
    spec.board = BoardSpec {
        rows: 5,
        cols: 5,
        topology: Topology::Plane,
    };
    spec.start = StartSpec::Diagram("------OX---XO------------ X".into());
    assert!(Rules::try_from(spec).is_ok());
}

#[test]
fn two_patterns_need_room() {
    let mut spec = Preset::Biversi.spec(Some(4));
    spec.board.rows = 4;
    refused(spec, "start", "at least 6");
}

#[test]
fn random_plies_and_opening_lists() {
    let mut spec = othello();
    spec.start = StartSpec::RandomPlies(0);
    refused(spec, "start.random-plies", "use 1 to 30");
    let mut spec = othello();
    spec.start = StartSpec::OpeningList(vec![]);
    refused(spec, "start.opening-list", "empty");
    let mut spec = othello();
    spec.start = StartSpec::OpeningList(vec!["f5d6".into(), "f5a1".into()]);
    refused(spec, "start.opening-list", "opening 2 (`f5a1`)");
}

#[test]
fn a_diagram_that_does_not_parse() {
    let mut spec = othello();
    spec.start = StartSpec::Diagram("--- X".into());
    refused(spec, "start.diagram", "3 squares");
    let mut spec = othello();
    spec.start = StartSpec::Diagram(format!("{}# X", "-".repeat(63)));
    refused(spec, "start.diagram", "neutral");
}

#[test]
fn progressive_turns_combine_with_plain_placements_only() {
    let mut spec = Preset::Neuversi.spec(None);
    spec.protocol = Protocol::Progressive;
    refused(spec, "protocol", "no neutral, orientation or sacrifice");
    let mut spec = Preset::ClassicReversi.spec(None);
    spec.protocol = Protocol::Progressive;
    refused(spec, "protocol", "placement start");
}

#[test]
fn incompatible_extra_moves() {
    let mut spec = Preset::Neuversi.spec(None);
    spec.sacrifice = Some(SacrificeSpec::default());
    refused(spec, "neutral", "choose one");
    let mut spec = Preset::Neuversi.spec(None);
    spec.orientation = Some(OrientationSpec::default());
    refused(spec, "orientation", "neutral discs have no orientation");
    let mut spec = Preset::ReversiII.spec(None);
    spec.orientation = Some(OrientationSpec::default());
    refused(spec, "supply.colour-discs", "oriented");
}

#[test]
fn supplies_that_cannot_work() {
    // A torus start with four discs a side and a supply of three.
    let mut spec = Preset::Biversi.spec(None);
    spec.supply = SupplySpec::PerPlayer(3);
    refused(spec, "supply.per-player", "needs 4 for the start");
    let mut spec = othello();
    spec.supply = SupplySpec::PerPlayer(0);
    refused(spec, "supply.per-player", "cannot work");
    let mut spec = othello();
    spec.supply = SupplySpec::ColourDiscs {
        own: 0,
        opponent: 5,
        choice: ColourChoice::Free,
    };
    refused(spec, "supply.colour-discs.own", "at least one");
    let mut spec = Preset::ClassicReversi.spec(None);
    spec.supply = SupplySpec::ColourDiscs {
        own: 5,
        opponent: 5,
        choice: ColourChoice::Free,
    };
    refused(spec, "supply.colour-discs", "start on the board");
}

#[test]
fn sacrifice_repetition_limit() {
    let mut spec = Preset::Sacrifice.spec(None);
    spec.sacrifice = Some(SacrificeSpec {
        repetition_limit: 0,
    });
    refused(spec, "sacrifice.repetition-limit", "use 1 or more");
}

#[test]
fn a_line_longer_than_the_board() {
    let mut spec = Preset::Gomullo.spec(None);
    spec.objective = Objective::Line {
        length: 9,
        fallback: LineFallback::Draw,
    };
    refused(spec, "objective.line.length", "9 does not fit");
    let mut spec = Preset::Gomullo.spec(None);
    spec.objective = Objective::Line {
        length: 2,
        fallback: LineFallback::Draw,
    };
    refused(spec, "objective.line.length", "use 3 to 8");
}

#[test]
fn komi_values() {
    let mut spec = othello();
    spec.komi = KomiSpec::Fixed(-2.3);
    refused(spec, "komi.fixed", "multiple of 0.5");
    let mut spec = othello();
    spec.komi = KomiSpec::Bid { min: 4, max: -4 };
    refused(spec, "komi.bid", "min must not exceed max");
    let mut spec = Preset::Komi.spec(Some(4));
    spec.komi = KomiSpec::Bid { min: 0, max: 100 };
    refused(spec, "komi.bid", "beyond the board's 16 squares");
    let mut spec = Preset::Gomullo.spec(None);
    spec.komi = KomiSpec::Fixed(0.5);
    refused(spec, "komi", "line objective");
    // Anti-Othello on 10x10 with komi: an unlisted combination that works.
    let mut spec = Preset::Anti.spec(Some(10));
    spec.komi = KomiSpec::Fixed(1.5);
    assert!(Rules::try_from(spec).is_ok());
}

#[test]
fn combinations_the_engine_refuses() {
    let mut spec = Preset::Komi.spec(None);
    spec.start = StartSpec::RandomPlies(4);
    refused(spec, "komi.bid", "random opening");
    let mut spec = Preset::Biversi.spec(None);
    spec.supply = SupplySpec::ColourDiscs {
        own: 20,
        opponent: 20,
        choice: ColourChoice::Free,
    };
    refused(spec, "supply.colour-discs", "progressive");
}

#[test]
fn toml_errors_name_the_field() {
    let error = Rules::from_toml(
        "komi = \"none\"\nboard = { rows = 8, colums = 8 }\n",
        "x.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("x.toml") && error.contains("colums"),
        "{error}"
    );
    let error = Rules::from_toml("objective = \"most-disks\"", "y.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("most-disks"), "{error}");
    let error = Rules::from_toml("sacrifice = { repetition-limit = 0 }", "z.toml")
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("sacrifice.repetition-limit"), "{error}");
}
