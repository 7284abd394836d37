//! The solver against published exact scores (FFO suite) and against plain minimax.

use flipzero_core::{Geometry, Position, Square};
use flipzero_engine::{
    Goal, obf, solve, solve_for, solve_in_window_by, solve_one_best, solve_one_best_by,
    solve_outcome,
};

fn suite(name: &str) -> Vec<obf::ObfLine> {
    let path = format!("{}/../../tests/data/ffo/{name}", env!("CARGO_MANIFEST_DIR"));
    obf::parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn check_published(line: &obf::ObfLine) {
    let solution = solve(&line.position);
    let (first_move, best_score) = line.scores[0];
    assert_eq!(
        solution.score, best_score,
        "line {}: {}",
        line.line, line.position
    );
    let published_best: Vec<Square> = line
        .scores
        .iter()
        .filter(|(_, score)| *score == best_score)
        .map(|(square, _)| *square)
        .collect();
    assert!(
        solution.best_moves.contains(&first_move),
        "line {}",
        line.line
    );
    assert_eq!(
        solution.best_moves.len(),
        published_best.len(),
        "line {}",
        line.line
    );
}

#[test]
fn ffo_1_to_19_reach_their_published_scores() {
    for line in suite("fforum-1-19.obf") {
        check_published(&line);
    }
}

#[test]
#[ignore = "20 to 26 empties: seconds each in release"]
fn ffo_20_to_39_reach_their_published_scores() {
    for line in suite("fforum-20-39.obf") {
        check_published(&line);
    }
}

#[test]
fn a_solve_with_a_deadline_gives_up_once_it_passes_and_agrees_before() {
    let goal = Goal::default();
    for line in suite("fforum-1-19.obf").iter().take(5) {
        let passed = std::time::Instant::now();
        assert_eq!(
            solve_one_best_by(&line.position, goal, passed),
            None,
            "line {}",
            line.line
        );
        let later = passed + std::time::Duration::from_secs(600);
        let solution = solve_one_best_by(&line.position, goal, later).unwrap();
        assert_eq!(
            solution,
            solve_one_best(&line.position, goal),
            "line {}",
            line.line
        );
        assert_eq!(solution.score, line.scores[0].1, "line {}", line.line);
    }
}

/// Plain minimax over the whole tree, with the pass rule and empties to the winner.
fn minimax(position: &Position<u64>) -> i32 {
    minimax_for(position, false)
}

/// Plain minimax of the final margin (empties to the winner), negated for fewest discs.
fn minimax_for(position: &Position<u64>, fewest_discs: bool) -> i32 {
    if position.is_game_over() {
        let difference =
            position.player().count_ones() as i32 - position.opponent().count_ones() as i32;
        let margin = difference + difference.signum() * position.empty().count_ones() as i32;
        return if fewest_discs { -margin } else { margin };
    }
    if position.legal_moves() == 0 {
        return -minimax_for(&position.pass_unchecked(), fewest_discs);
    }
    position
        .legal_squares()
        .map(|square| -minimax_for(&position.play_unchecked(square), fewest_discs))
        .max()
        .unwrap()
}

#[test]
fn every_goal_finds_the_minimax_score_and_best_moves() {
    // 4x4 from the start (all four first moves are symmetric images, searched once) and the
    // positions after each first move.
    let four = Position::start(Geometry::<u64>::get(4, 4).unwrap());
    let mut positions = vec![four];
    positions.extend(
        four.legal_squares()
            .map(|square| four.play_unchecked(square)),
    );
    for fewest_discs in [false, true] {
        let goal = Goal {
            fewest_discs,
            ..Goal::default()
        };
        for position in &positions {
            let solution = solve_for(position, goal);
            let score = minimax_for(position, fewest_discs);
            let best: Vec<Square> = position
                .legal_squares()
                .filter(|&square| {
                    -minimax_for(&position.play_unchecked(square), fewest_discs) == score
                })
                .collect();
            assert_eq!(solution.score, score, "{position} fewest {fewest_discs}");
            assert_eq!(
                solution.best_moves, best,
                "{position} fewest {fewest_discs}"
            );
            // Win, draw or loss, with a move that reaches it.
            let outcome = solve_outcome(position, goal);
            assert_eq!(
                outcome.score,
                score.signum(),
                "{position} fewest {fewest_discs}"
            );
            let square = outcome.best_moves[0];
            let reached = -minimax_for(&position.play_unchecked(square), fewest_discs);
            assert_eq!(reached.signum(), score.signum(), "{position}");
        }
    }
    assert_eq!(solve(&four).best_moves.len(), 4);
}

#[test]
fn a_window_gives_the_score_inside_it_and_its_edge_as_a_bound_outside() {
    // 4x4 positions two plies from the start: their minimax scores spread over -14..=10.
    let four = Position::start(Geometry::<u64>::get(4, 4).unwrap());
    let mut positions = Vec::new();
    for first in four.legal_squares() {
        let after = four.play_unchecked(first);
        positions.extend(
            after
                .legal_squares()
                .map(|reply| after.play_unchecked(reply)),
        );
    }
    let mut inside = 0;
    for fewest_discs in [false, true] {
        let goal = Goal {
            fewest_discs,
            ..Goal::default()
        };
        for position in &positions {
            let score = minimax_for(position, fewest_discs);
            for (low, high) in [(-17, 17), (-1, 1), (score - 1, score), (score, score + 1)]
                .into_iter()
                .chain((-12..=12).step_by(3).map(|low| (low, low + 4)))
            {
                let solution = solve_in_window_by(position, goal, low, high, None).unwrap();
                assert_eq!(
                    solution.score,
                    score.clamp(low, high),
                    "{position} fewest {fewest_discs} window ({low}, {high})"
                );
                if low < score && score < high {
                    inside += 1;
                    // A position that must pass has no move to name.
                    if let Some(&square) = solution.best_moves.first() {
                        let reached = -minimax_for(&position.play_unchecked(square), fewest_discs);
                        assert_eq!(reached, score, "{position} window ({low}, {high})");
                    }
                }
            }
        }
    }
    assert!(
        inside > positions.len() * 2,
        "{inside} windows held the score"
    );
}

#[test]
fn outcomes_of_positions_that_must_pass_or_are_over() {
    // 4x4, White to move must pass (Black's d4 would flip b4 and c4); then Black to move; then
    // a full board: the outcome is the sign of the margin.
    let must_pass = Position::<u64>::from_text("XXXXXXXXXXXXXOO- O").unwrap();
    assert!(must_pass.must_pass());
    for position in [must_pass, must_pass.pass_unchecked()] {
        let outcome = solve_outcome(&position, Goal::default());
        assert_eq!(outcome.score, minimax(&position).signum(), "{position}");
    }
    // Black wins 16-0 whoever moves first: Black's outcome is a win, White's a loss.
    assert_eq!(solve_outcome(&must_pass, Goal::default()).score, -1);
    let over = Position::<u64>::from_text("XXXXXXXXXXXXXOOO X").unwrap();
    assert!(over.is_game_over());
    let outcome = solve_outcome(&over, Goal::default());
    assert_eq!((outcome.score, outcome.best_moves.len()), (1, 0));
}

#[test]
fn the_solver_equals_minimax_on_small_boards_and_late_positions() {
    // 4x4 from the start: the whole game.
    let four = Position::start(Geometry::<u64>::get(4, 4).unwrap());
    assert_eq!(solve(&four).score, minimax(&four));
    // Positions with 9 empties from random FFO lines, played forward.
    for line in suite("fforum-1-19.obf").iter().take(6) {
        let mut position = line.position;
        while position.empty().count_ones() > 9 {
            position = match position.legal_squares().next() {
                Some(square) => position.play_unchecked(square),
                None => position.pass_unchecked(),
            };
        }
        assert_eq!(solve(&position).score, minimax(&position), "{position}");
        let one = solve_one_best(&position, Goal::default());
        assert_eq!(one.score, minimax(&position), "{position}");
        let outcome = solve_outcome(&position, Goal::default());
        assert_eq!(outcome.score, minimax(&position).signum(), "{position}");
    }
}

/// docs/RULES.md section 7: perfect play in 6x6 Othello gives White 20-16. About 1 to 1.5 minutes
/// of one core (experiments/2026-11-29-solve-6x6).
#[test]
#[ignore = "solves 6x6 Othello from the start: minutes"]
fn six_by_six_othello_is_a_white_win_by_four() {
    let start = Position::start(Geometry::<u64>::get(6, 6).unwrap());
    assert_eq!(solve_one_best(&start, Goal::default()).score, -4);
}

/// docs/RULES.md section 7: Black, to move first, wins 6x6 anti-Othello. About 15 minutes of one
/// core (experiments/2026-11-29-solve-6x6).
#[test]
#[ignore = "solves 6x6 anti-Othello from the start: a quarter of an hour"]
fn six_by_six_anti_othello_is_a_black_win() {
    let start = Position::start(Geometry::<u64>::get(6, 6).unwrap());
    let goal = Goal {
        fewest_discs: true,
        ..Goal::default()
    };
    assert_eq!(solve_outcome(&start, goal).score, 1);
}
