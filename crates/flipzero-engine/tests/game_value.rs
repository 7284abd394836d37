//! Values of whole variants from their start: alpha-beta, alpha-beta with the bitboard solver
//! and plain minimax agree on small boards, and the solver's own value of the start
//! confirms them where it applies.

use std::time::Duration;

use flipzero_core::{Color, Geometry, Position, Preset, Rules};
use flipzero_engine::game_value::{StartValue, ValueLimits, ValueSearch, start_value};
use flipzero_engine::{ExactSolver, solve_for};

fn value(rules: &Rules, search: ValueSearch) -> StartValue {
    start_value(rules, search, 16, ValueLimits::for_rules(rules)).unwrap()
}

fn within(rules: &Rules, time: Duration) -> ValueLimits {
    ValueLimits {
        time: Some(time),
        ..ValueLimits::for_rules(rules)
    }
}

/// Alpha-beta alone, with the solver where it applies (after a placement opening, in the
/// windows the search above it asks for), and minimax with a memo agree with minimax on each
/// preset's 4x4 start.
fn assert_agrees_with_minimax(presets: &[Preset]) {
    for &preset in presets {
        let rules = preset.rules(Some(4)).unwrap();
        let reference = value(&rules, ValueSearch::Minimax);
        let mut searches = vec![ALPHA_BETA, ValueSearch::MemoMinimax];
        if ExactSolver::new(&rules).is_some() {
            searches.push(WITH_SOLVER);
        }
        for search in searches {
            let found = value(&rules, search);
            let name = search.name();
            assert_eq!(found.margin, reference.margin, "{preset} {name}");
            assert_eq!(found.outcome, reference.outcome, "{preset} {name}");
            assert_eq!(found.first_player, reference.first_player, "{preset}");
            assert!(found.nodes < reference.nodes, "{preset} {name}");
        }
    }
}

const ALPHA_BETA: ValueSearch = ValueSearch::AlphaBeta {
    solver_leaves: false,
};
const WITH_SOLVER: ValueSearch = ValueSearch::AlphaBeta {
    solver_leaves: true,
};

#[test]
fn four_by_four_othello_is_valued_alike_by_every_search_and_the_solver() {
    let rules = Preset::Othello.rules(Some(4)).unwrap();
    let by_search = value(&rules, ALPHA_BETA);
    assert_eq!(by_search.first_player, Some(Color::Black));
    assert_eq!(by_search.openings, 1);
    for other in [WITH_SOLVER, ValueSearch::Minimax] {
        let found = value(&rules, other);
        assert_eq!(found.margin, by_search.margin, "{}", other.name());
        assert_eq!(found.outcome, by_search.outcome, "{}", other.name());
    }
    // The solver alone, on the bitboard start position.
    let start = Position::<u64>::start(Geometry::get(4, 4).unwrap());
    let solved = solve_for(&start, flipzero_engine::exact::solver_goal(&rules).unwrap());
    assert_eq!(by_search.margin, Some(f64::from(solved.score)));
    let margin = by_search.margin.unwrap();
    let expected = [margin > 0.0, margin == 0.0, margin < 0.0].map(|b| f64::from(u8::from(b)));
    assert_eq!(by_search.outcome, expected);
    // Minimax visits every line; alpha-beta far fewer.
    assert!(value(&rules, ValueSearch::Minimax).nodes > 2 * by_search.nodes);
}

#[test]
fn anti_othello_margins_count_fewer_discs_as_better() {
    let rules = Preset::Anti.rules(Some(4)).unwrap();
    let found = value(&rules, WITH_SOLVER);
    let reference = value(&rules, ValueSearch::Minimax);
    assert_eq!(
        (found.margin, found.outcome),
        (reference.margin, reference.outcome)
    );
    let start = Position::<u64>::start(Geometry::get(4, 4).unwrap());
    // The preset's own count (its scoring of empty squares), for fewer discs.
    let goal = flipzero_engine::exact::solver_goal(&rules).unwrap();
    assert!(goal.fewest_discs);
    assert_eq!(found.margin, Some(f64::from(solve_for(&start, goal).score)));
}

#[test]
fn a_random_start_is_the_mean_over_its_openings() {
    let rules = Preset::RandomOpening.rules(Some(4)).unwrap();
    let by_search = value(&rules, ALPHA_BETA);
    let by_minimax = value(&rules, ValueSearch::Minimax);
    assert!(by_search.openings > 10, "{by_search:?}");
    assert_eq!(by_search.openings, by_minimax.openings);
    let total: f64 = by_search.outcome.iter().sum();
    assert!((total - 1.0).abs() < 1e-9, "{by_search:?}");
    for (a, b) in by_search.outcome.iter().zip(&by_minimax.outcome) {
        assert!((a - b).abs() < 1e-9, "{by_search:?} {by_minimax:?}");
    }
    let (a, b) = (by_search.margin.unwrap(), by_minimax.margin.unwrap());
    assert!((a - b).abs() < 1e-9, "{a} {b}");
    // Drawn openings differ: the chances are not all on one outcome.
    assert!(by_search.outcome.iter().all(|&p| p < 1.0), "{by_search:?}");
}

// The 4x4 presets whose minimax takes under a second in release (under 250,000 nodes).
#[test]
fn the_quick_presets_agree_with_minimax_on_four_by_four() {
    assert_agrees_with_minimax(&[
        Preset::Othello,
        Preset::ClassicReversiMust,
        Preset::Parallel,
        Preset::KomiFixed,
        Preset::Anti,
        Preset::Gomullo,
    ]);
}

#[test]
fn solver_leaves_searched_in_windows_agree_with_alpha_beta_after_an_opening_phase() {
    // A komi bid or a placement opening reaches the solver after some turns, in the windows
    // alpha-beta asks for: a bound taken for an exact value would change the start's value
    // (minimax gives 0 and -3: the slow test below).
    for (preset, expected) in [(Preset::Komi, 0.0), (Preset::ClassicReversi, -3.0)] {
        let rules = preset.rules(Some(4)).unwrap();
        assert_eq!(value(&rules, ALPHA_BETA).margin, Some(expected), "{preset}");
        assert_eq!(
            value(&rules, WITH_SOLVER).margin,
            Some(expected),
            "{preset}"
        );
    }
}

// The rest of the square-filling presets: minimax visits 4 to 70 million positions
// (`flipzero value --size 4 --check` times them); `scripts/slow-tests.sh` runs this.
#[test]
#[ignore = "about half a minute in release"]
fn the_slow_presets_agree_with_minimax_on_four_by_four() {
    assert_agrees_with_minimax(&[
        Preset::ClassicReversi,
        Preset::ClassicReversiMay,
        Preset::Komi,
    ]);
}

#[test]
fn rules_that_repeat_positions_stop_at_the_line_limit_not_out_of_memory() {
    // Unbounded, a depth-first search of 4x4 sacrifice held 24 GB within two minutes.
    let rules = Preset::Sacrifice.rules(Some(4)).unwrap();
    let limits = ValueLimits {
        time: Some(Duration::from_secs(60)),
        max_turns: 40,
    };
    for search in [ALPHA_BETA, ValueSearch::Minimax] {
        let error = start_value(&rules, search, 16, limits).unwrap_err();
        assert!(error.contains("a line went past 40 turns"), "{error}");
    }
    // Neutral swaps repeat no position often enough on 4x4 to reach the default limit.
    let rules = Preset::Neuversi.rules(Some(4)).unwrap();
    let found = value(&rules, ALPHA_BETA);
    assert!(found.margin.is_some(), "{found:?}");
}

#[test]
fn a_search_past_its_limit_says_so() {
    let rules = Preset::Othello.rules(Some(6)).unwrap();
    let limits = within(&rules, Duration::from_millis(50));
    let error = start_value(&rules, ALPHA_BETA, 16, limits).unwrap_err();
    assert!(error.contains("not finished within 0.05 s"), "{error}");
    let error = start_value(&rules, ValueSearch::Minimax, 16, limits).unwrap_err();
    assert!(error.contains("not finished"), "{error}");
}

#[test]
fn leaves_solved_under_one_komi_answer_for_the_others() {
    // After each first bid of the 4x4 komi auction, every second bid leads to the same start
    // under another komi: one engine keeps what its solver leaves proved across all of them,
    // and each value must still be alpha-beta's alone.
    use flipzero_core::Game;
    use flipzero_engine::{Engine, SearchConfig, WeightsFile};
    let rules = Preset::Komi.rules(Some(4)).unwrap();
    let weights = WeightsFile::embedded()
        .weights_for(&rules, "embedded")
        .unwrap();
    let config = SearchConfig {
        probcut: 0.0,
        ..SearchConfig::default()
    };
    let mut shared = Engine::<u64>::new(&rules, weights.clone(), config.clone());
    let start = Game::<u64>::try_start(&rules, 1).unwrap();
    let mut values = Vec::new();
    for bid in start.legal_decisions(&rules) {
        let after = start.play_unchecked(&rules, bid);
        let with_memo = shared.exact_value_with(&after, true, 64).unwrap();
        let mut alone = Engine::<u64>::new(&rules, weights.clone(), config.clone());
        let reference = alone.exact_value_with(&after, false, 64).unwrap();
        assert_eq!(with_memo, reference, "after {bid:?}");
        values.push(reference);
    }
    assert_eq!(values.len(), 17);
    // The first bid matters: the values are not all one.
    assert!(values.iter().any(|&v| v != values[0]), "{values:?}");
}
