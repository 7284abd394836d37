//! Multi-ProbCut: the fit against its own definition (least squares beats the identity
//! line), the lines' checks, and the search with cuts against the full search.

use std::sync::Arc;

use flipzero_core::{Game, Preset, Rules};
use flipzero_engine::probcut::{
    DepthLines, ProbCutSpec, ProbCutTuneConfig, shallow_depth, tune_probcut,
};
use flipzero_engine::{Engine, SearchConfig, Weights, WeightsFile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn othello_6x6() -> (Rules, Weights) {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let weights = WeightsFile::embedded()
        .weights_for(&rules, "embedded")
        .unwrap();
    (rules, weights)
}

/// Middle-game positions after random decisions.
fn middle_games(rules: &Rules, count: u64) -> Vec<Game<u64>> {
    (0..count)
        .filter_map(|seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let decisions = rng.random_range(4..14);
            let game = Game::<u64>::start(rules).play_randomly(rules, &mut rng, decisions);
            (!game.is_over()).then_some(game)
        })
        .collect()
}

#[test]
fn shallow_searches_are_about_half_as_deep_and_of_the_same_parity() {
    let pairs: Vec<(u32, u32)> = (3..=12).map(|d| (d, shallow_depth(d))).collect();
    assert_eq!(
        pairs,
        [
            (3, 1),
            (4, 2),
            (5, 3),
            (6, 2),
            (7, 3),
            (8, 4),
            (9, 5),
            (10, 4),
            (11, 5),
            (12, 6)
        ]
    );
}

#[test]
fn a_fit_predicts_deep_values_at_least_as_well_as_the_shallow_value_itself() {
    let (rules, weights) = othello_6x6();
    let config = ProbCutTuneConfig {
        positions: 300,
        deepest: 5,
        stages: 3,
        solve_empties: 8,
        seed: 3,
    };
    let report = tune_probcut(&rules, &weights, &config).unwrap();
    report.spec.check().unwrap();
    assert!(report.positions > 250, "{}", report.positions);
    assert_eq!(
        report
            .spec
            .depths
            .iter()
            .map(|d| d.depth)
            .collect::<Vec<_>>(),
        [3, 4, 5]
    );
    assert_eq!(report.fits.len(), 9);
    let fitted: Vec<_> = report.fits.iter().filter(|f| f.line.sigma > 0.0).collect();
    assert!(fitted.len() >= 6, "{:?}", report.fits);
    for fit in fitted {
        // Least squares over slope and intercept can only do better than slope 1, intercept 0.
        assert!(fit.line.sigma <= fit.raw_error + 1.0, "{fit:?}");
        assert!((0.5..1.5).contains(&fit.line.slope), "{fit:?}");
        assert!(fit.positions >= 30);
        assert!(fit.empties.0 <= fit.empties.1 && fit.empties.1 <= 36);
    }
}

/// Lines that say the deep value is the shallow one with an error of `sigma` everywhere.
fn identity_lines(sigma: f32) -> ProbCutSpec {
    ProbCutSpec {
        note: String::new(),
        stages: 1,
        depths: vec![DepthLines {
            depth: 3,
            slope: vec![1.0],
            intercept: vec![0.0],
            sigma: vec![sigma],
        }],
    }
}

fn choose(rules: &Rules, weights: &Weights, options: &str, game: &Game<u64>) -> (i32, u64) {
    let config: SearchConfig = options.parse().unwrap();
    let choice = Engine::<u64>::new(rules, weights.clone(), config)
        .choose(game)
        .unwrap();
    (choice.value, choice.nodes)
}

#[test]
fn cuts_save_nodes_and_stay_close_to_the_full_search() {
    let (rules, weights) = othello_6x6();
    let with_lines = Weights {
        probcut: Some(Arc::new(identity_lines(200.0))),
        ..weights.clone()
    };
    let options = "depth=6,solve=0,end=0";
    let (mut full_nodes, mut cut_nodes, mut differences) = (0, 0, Vec::new());
    for game in middle_games(&rules, 24) {
        let (full, nodes) = choose(&rules, &weights, options, &game);
        // Lines in the profile do nothing when the search turns cuts off.
        assert_eq!(
            choose(&rules, &with_lines, &format!("{options},probcut=0"), &game),
            (full, nodes)
        );
        // The default cuts where the profile has lines.
        assert_eq!(
            choose(&rules, &with_lines, options, &game),
            choose(&rules, &with_lines, &format!("{options},probcut=1"), &game)
        );
        let (cut, nodes_with_cuts) =
            choose(&rules, &with_lines, &format!("{options},probcut=1"), &game);
        full_nodes += nodes;
        cut_nodes += nodes_with_cuts;
        differences.push((cut - full).abs());
    }
    assert!(
        cut_nodes * 10 < full_nodes * 8,
        "{cut_nodes} nodes with cuts, {full_nodes} without"
    );
    let mean = differences.iter().sum::<i32>() as f64 / differences.len() as f64;
    assert!(mean < 400.0, "values moved by {differences:?}");
    // Beyond any bound: no cut is ever made, and the value is the full search's.
    let never = Weights {
        probcut: Some(Arc::new(identity_lines(1e6))),
        ..weights.clone()
    };
    for game in middle_games(&rules, 6) {
        let (full, _) = choose(&rules, &weights, options, &game);
        let (cut, _) = choose(&rules, &never, &format!("{options},probcut=1"), &game);
        assert_eq!(cut, full);
    }
}

#[test]
fn malformed_lines_are_refused_with_the_profile_named() {
    let mut spec = identity_lines(100.0);
    assert_eq!(spec.check(), Ok(()));
    spec.depths[0].sigma = vec![100.0, 50.0];
    assert!(
        spec.check()
            .unwrap_err()
            .contains("sigma has 2 values for 1 stages")
    );
    let mut spec = identity_lines(-1.0);
    assert!(spec.check().unwrap_err().contains("negative"));
    spec = identity_lines(1.0);
    spec.depths.push(spec.depths[0].clone());
    assert!(spec.check().unwrap_err().contains("once"));
    let text = "[profiles.othello]\nopening = {}\nendgame = {}\n\
                [profiles.othello.probcut]\nstages = 0\ndepths = []\n";
    let error = WeightsFile::parse(text, "bad.toml")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("bad.toml") && error.contains("`othello`") && error.contains("stages = 0"),
        "{error}"
    );
    let text = "[profiles.othello]\nopening = {}\nendgame = {}\n\
                [profiles.othello.probcut]\nstages = 1\ndepths = []\nextra = 1\n";
    assert!(WeightsFile::parse(text, "bad.toml").is_err());
    assert!(
        "probcut=-1"
            .parse::<SearchConfig>()
            .unwrap_err()
            .to_string()
            .contains("sigmas")
    );
}

#[test]
fn lines_beyond_the_deepest_fitted_depth_are_the_deepest_ones() {
    let spec = ProbCutSpec {
        note: String::new(),
        stages: 2,
        depths: [3, 5]
            .into_iter()
            .map(|depth| DepthLines {
                depth,
                slope: vec![1.0, 1.0],
                intercept: vec![0.0, depth as f32],
                sigma: vec![0.0, 10.0],
            })
            .collect(),
    };
    spec.check().unwrap();
    // 36 squares, 2 stages: up to 18 empties is stage 0, where nothing was fitted.
    assert_eq!(spec.line(9, 10, 36), None);
    assert_eq!(spec.line(2, 30, 36), None);
    let line = spec.line(4, 30, 36).unwrap();
    assert_eq!((line.shallow, line.intercept), (2, 3.0));
    let line = spec.line(9, 30, 36).unwrap();
    assert_eq!((line.shallow, line.intercept), (5, 5.0));
}
