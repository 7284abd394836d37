//! Pattern models: fitted from labelled positions they predict positions of other games
//! better than the linear weights, and a weights file names them by path.

use flipzero_core::{Game, Preset};
use flipzero_engine::fit_patterns::{PatternTuneConfig, tune_patterns};
use flipzero_engine::patterns::{PatternModel, standard_shapes};
use flipzero_engine::{Evaluator, WeightsFile};

fn scratch(name: &str) -> std::path::PathBuf {
    let folder =
        std::env::temp_dir().join(format!("flipzero-patterns-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("patterns")).unwrap();
    folder
}

#[test]
fn a_pattern_fit_predicts_positions_of_other_games_better_than_the_linear_weights() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    // The linear weights alone (the embedded profile has a model of its own).
    let start = flipzero_engine::Weights {
        patterns: None,
        ..WeightsFile::embedded()
            .weights_for(&rules, "embedded")
            .unwrap()
    };
    let config = PatternTuneConfig {
        positions: 20_000,
        label_depth: 2,
        solve_empties: 10,
        stages: 4,
        rounds: 2,
        ..PatternTuneConfig::default()
    };
    let report = tune_patterns(&rules, &start, &config).unwrap();
    let [before, first, second] = report.error_by_round[..] else {
        panic!("a start and two rounds: {:?}", report.error_by_round);
    };
    // Fitted on some games, measured on others.
    assert!(report.held_out > 300 && report.training > 4 * report.held_out / 2);
    assert!(first < 0.9 * before, "{:?}", report.error_by_round);
    assert!(second < before, "{:?}", report.error_by_round);
    assert!(report.exact_labels > 0);
    assert!(!report.by_stage.is_empty());
    for stage in &report.by_stage {
        assert!(stage.positions > 0 && stage.empties.0 <= stage.empties.1);
    }
    // The evaluation with the model is the linear value plus the tables'.
    let weights = flipzero_engine::Weights {
        patterns: Some(std::sync::Arc::new(report.model.clone())),
        ..start.clone()
    };
    let geometry = flipzero_core::Geometry::<u64>::get(6, 6).unwrap();
    let with = Evaluator::new(&rules, geometry, weights);
    let without = Evaluator::new(&rules, geometry, start);
    let game = Game::<u64>::try_start(&rules, 0).unwrap();
    let features = with.features(&rules, &game);
    let expected = without.evaluate(&rules, &game) + report.model.value(&features, &game);
    assert!((with.evaluate(&rules, &game) - expected).abs() <= 1);
}

#[test]
fn a_weights_file_reads_the_pattern_model_it_names_beside_it() {
    let folder = scratch("load");
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let model = PatternModel::zeros(6, 2, standard_shapes(6)).unwrap();
    model.save(&folder.join("patterns/custom-6x6.fzp")).unwrap();
    let embedded = WeightsFile::embedded();
    let mut profile = embedded.profiles["othello/6x6"].clone();
    profile.patterns = Some("patterns/custom-6x6.fzp".to_owned());
    let mut file = WeightsFile::default();
    file.profiles
        .insert("othello/6x6".to_owned(), profile.clone());
    file.profiles.insert("othello".to_owned(), profile);
    let path = folder.join("weights.toml");
    std::fs::write(&path, file.to_toml()).unwrap();

    let loaded = WeightsFile::load(&path).unwrap();
    let weights = loaded.weights_for(&rules, "w").unwrap();
    assert_eq!(weights.patterns.as_deref(), Some(&model));
    // The 6x6 model cannot evaluate 8x8 (the `othello` fallback names it too).
    let error = loaded
        .weights_for(&Preset::Othello.rules(None).unwrap(), "w.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("for a 6x6 board, not 8x8"), "{error}");
    // A missing or damaged model file is named.
    std::fs::write(
        folder.join("patterns/custom-6x6.fzp"),
        b"FZPATTRN\x01\0\0\0junk",
    )
    .unwrap();
    let error = WeightsFile::load(&path).unwrap_err().to_string();
    assert!(
        error.contains("custom-6x6.fzp") && error.contains("damaged"),
        "{error}"
    );
    std::fs::remove_file(folder.join("patterns/custom-6x6.fzp")).unwrap();
    let error = WeightsFile::load(&path).unwrap_err().to_string();
    assert!(error.contains("custom-6x6.fzp"), "{error}");
    // Parsed alone, a file may name only embedded models.
    let error = WeightsFile::parse(&file.to_toml(), "w.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("not embedded"), "{error}");
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn every_committed_pattern_file_is_embedded_as_it_is_on_disk() {
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/eval/patterns");
    let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| format!("patterns/{}", entry.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = flipzero_engine::patterns::EMBEDDED_MODELS
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    embedded.sort();
    assert_eq!(
        on_disk, embedded,
        "list every file of configs/eval/patterns in EMBEDDED_MODELS"
    );
    for (name, bytes) in flipzero_engine::patterns::EMBEDDED_MODELS {
        let path = folder.join(name.trim_start_matches("patterns/"));
        assert_eq!(
            &std::fs::read(&path).unwrap()[..],
            *bytes,
            "{name}: rebuild after a refit"
        );
        PatternModel::from_bytes(bytes, name).unwrap();
    }
    // The embedded weights name them, and the 6x6 Othello profile plays with its model.
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let weights = WeightsFile::embedded()
        .weights_for(&rules, "embedded")
        .unwrap();
    assert_eq!(weights.patterns.unwrap().side(), 6);
}
