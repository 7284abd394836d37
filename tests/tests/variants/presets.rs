//! Presets load by name and by path, and their config files say what the code says.

use flipzero_core::{Game, Preset, Rules, RulesSpec, U256};

fn config_path(preset: Preset) -> String {
    format!(
        "{}/../configs/variants/{}.toml",
        env!("CARGO_MANIFEST_DIR"),
        preset.name()
    )
}

#[test]
fn every_config_file_reads_to_its_preset() {
    for preset in Preset::ALL {
        let text = std::fs::read_to_string(config_path(preset)).unwrap();
        let spec: RulesSpec = toml::from_str(&text).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(spec, preset.spec(None), "{preset}");
        let by_path = Rules::load(&config_path(preset), None).unwrap();
        let by_name = Rules::load(preset.name(), None).unwrap();
        assert_eq!(by_path, by_name, "{preset}");
    }
}

#[test]
fn names_parse_back_and_unknown_names_are_refused() {
    for preset in Preset::ALL {
        assert_eq!(preset.name().parse::<Preset>().unwrap(), preset);
        assert!(!preset.description().is_empty());
    }
    let error = Rules::load("otello", None).unwrap_err().to_string();
    assert!(error.contains("unknown variant `otello`"), "{error}");
}

#[test]
fn a_rules_spec_round_trips_through_toml() {
    for preset in Preset::ALL {
        let rules = preset.rules(None).unwrap();
        let again = Rules::from_toml(&rules.to_toml(), "<text>").unwrap();
        assert_eq!(again, rules, "{preset}");
    }
}

#[test]
fn a_file_of_other_rules_is_refused_naming_the_fields_that_differ() {
    let othello6 = Preset::Othello.rules(Some(6)).unwrap();
    let same = Rules::from_toml(&othello6.to_toml(), "<text>").unwrap();
    assert_eq!(othello6.spec().check_file_rules(same.spec()), Ok(()));

    let othello8 = Preset::Othello.rules(Some(8)).unwrap();
    let mismatch = othello6
        .spec()
        .check_file_rules(othello8.spec())
        .unwrap_err();
    assert_eq!(mismatch.fields, ["board.cols", "board.rows"]);
    assert_eq!(
        mismatch.to_string(),
        "written for other rules (they differ in board.cols, board.rows)"
    );

    // The same board under another preset: only what that preset changes is named.
    let anti6 = Preset::Anti.rules(Some(6)).unwrap();
    let fields = othello6
        .spec()
        .check_file_rules(anti6.spec())
        .unwrap_err()
        .fields;
    assert!(
        !fields.is_empty() && fields.iter().all(|f| !f.starts_with("board")),
        "{fields:?}"
    );
    assert!(
        fields.iter().any(|f| f.starts_with("objective")),
        "{fields:?}"
    );
}

#[test]
fn sizes_are_a_parameter() {
    let rules = Rules::load("gomullo", Some(10)).unwrap();
    assert_eq!((rules.rows(), rules.cols()), (10, 10));
    assert!(matches!(
        rules.spec().objective,
        flipzero_core::variant::rules::Objective::Line { length: 10, .. }
    ));
    let classic = Preset::ClassicReversi.rules(Some(6)).unwrap();
    assert_eq!(
        classic.spec().supply,
        flipzero_core::variant::rules::SupplySpec::PerPlayer(18)
    );
    // A path keeps its file's rules and takes the size.
    let path = config_path(Preset::Anti);
    assert_eq!(Rules::load(&path, Some(6)).unwrap().rows(), 6);
    assert!(Preset::Othello.rules(Some(7)).is_err());
}

#[test]
fn decision_sets_have_the_documented_layout() {
    let sizes: Vec<(Preset, usize)> = Preset::ALL
        .into_iter()
        .map(|preset| (preset, preset.rules(None).unwrap().decision_count()))
        .collect();
    let count = |preset: Preset| sizes.iter().find(|(p, _)| *p == preset).unwrap().1;
    assert_eq!(count(Preset::Othello), 65);
    // 64 squares x (placement option) + pass + two orientations.
    assert_eq!(count(Preset::Rotation), 64 * 2 + 1 + 2);
    assert_eq!(count(Preset::ReversiIIFree), 64 * 2 + 1);
    // 17 bids from -8 to +8.
    assert_eq!(count(Preset::Komi), 65 + 17);
    assert_eq!(count(Preset::Biversi), 101);
    for preset in Preset::ALL {
        let rules = preset.rules(None).unwrap();
        for index in 0..rules.decision_count() {
            let decision = rules.decision_at(index).unwrap();
            assert_eq!(rules.decision_index(decision), index, "{preset}");
        }
        assert_eq!(rules.decision_at(rules.decision_count()), None, "{preset}");
        let start = Game::<U256>::start(&rules);
        assert!(!start.legal_decisions(&rules).is_empty(), "{preset}");
    }
}
