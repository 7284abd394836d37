//! Elo, SPRT and tournament pairings against cases worked by hand.

use flipzero_arena::elo::{EloError, elo_difference, expected_score};
use flipzero_arena::tournament::{
    BqGame, Pairing, SwissPlayer, brightwell_quotient, round_robin, swiss_round,
};
use flipzero_arena::{PairResult, Sprt, SprtDecision, ratings};

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

#[test]
fn expected_scores_and_differences_invert_each_other() {
    assert_eq!(expected_score(0.0), 0.5);
    // 400 log10(3): a 3-to-1 score.
    assert!(close(elo_difference(0.75), 190.848_501_887_865, 1e-9));
    assert!(close(expected_score(190.848_501_887_865), 0.75, 1e-12));
    assert!(close(expected_score(-400.0), 1.0 / 11.0, 1e-12));
}

#[test]
fn two_agents_get_the_difference_of_their_score_and_its_standard_error() {
    let results = [PairResult {
        first: 0,
        second: 1,
        wins: 70,
        draws: 10,
        losses: 20,
    }];
    let rated = ratings(2, &results, 1, 1000.0).unwrap();
    // 75 points of 100, plus the prior's virtual draw: 75.5 of 101.
    let p = 75.5 / 101.0;
    assert!(
        close(rated[0].elo, 1000.0 + elo_difference(p), 1e-6),
        "{rated:?}"
    );
    assert_eq!(
        rated[1],
        flipzero_arena::Rating {
            elo: 1000.0,
            margin: 0.0
        }
    );
    // The standard error of a logit estimated from n games: 1 / sqrt(n p (1 - p)).
    let margin = 1.96 * (400.0 / std::f64::consts::LN_10) / (101.0 * p * (1.0 - p)).sqrt();
    assert!(
        close(rated[0].margin, margin, 1e-6),
        "{} {margin}",
        rated[0].margin
    );
}

#[test]
fn differences_add_up_along_a_chain_of_matches() {
    let pair = |first, second| PairResult {
        first,
        second,
        wins: 3000,
        draws: 0,
        losses: 1000,
    };
    let rated = ratings(3, &[pair(0, 1), pair(1, 2)], 2, 0.0).unwrap();
    let step = elo_difference(0.75);
    assert!(close(rated[1].elo, step, 0.5), "{rated:?}");
    assert!(close(rated[0].elo, 2.0 * step, 1.0), "{rated:?}");
    // The far end of the chain is known less precisely than the near one.
    assert!(rated[0].margin > rated[1].margin);
}

#[test]
fn a_perfect_score_stays_finite_and_bad_input_is_refused() {
    let results = [PairResult {
        first: 0,
        second: 1,
        wins: 20,
        draws: 0,
        losses: 0,
    }];
    let rated = ratings(2, &results, 1, 0.0).unwrap();
    assert!(
        rated[0].elo.is_finite() && rated[0].elo > 400.0,
        "{rated:?}"
    );
    assert!(matches!(
        ratings(
            2,
            &[PairResult {
                first: 0,
                second: 2,
                ..results[0]
            }],
            0,
            0.0
        ),
        Err(EloError::BadPair { index: 0, .. })
    ));
    assert!(matches!(
        ratings(2, &results, 5, 0.0),
        Err(EloError::BadAnchor { .. })
    ));
    // An agent that never played has no measurable rating.
    let rated = ratings(3, &results, 1, 0.0).unwrap();
    assert!(rated[2].margin.is_infinite());
}

#[test]
fn sprt_log_likelihood_ratio_matches_a_hand_computation() {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let (lower, upper) = sprt.bounds();
    assert!(close(lower, -2.944_438_979, 1e-9) && close(upper, 2.944_438_979, 1e-9));
    // 60-0-40: mean 0.6, variance 0.24; s0 = 0.5, s1 = expected_score(10).
    let s1 = expected_score(10.0);
    let expected = 100.0 * (s1 - 0.5) * (1.2 - 0.5 - s1) / 0.48;
    assert!(close(expected, 0.5563, 1e-3));
    assert!(close(sprt.llr(60, 0, 40), expected, 1e-12));
    assert_eq!(sprt.decide(60, 0, 40), SprtDecision::Continue);
    assert_eq!(sprt.decide(600, 0, 400), SprtDecision::AcceptH1);
    assert_eq!(sprt.decide(400, 0, 600), SprtDecision::AcceptH0);
    assert_eq!(sprt.llr(0, 0, 0), 0.0);
    // All wins: one virtual draw defines the variance. 10 wins and a draw: mean 10.5/11.
    let mean = 10.5 / 11.0;
    let variance = (10.0 * (1.0 - mean) * (1.0 - mean) + (0.5 - mean) * (0.5 - mean)) / 11.0;
    let expected = 11.0 * (s1 - 0.5) * (2.0 * mean - 0.5 - s1) / (2.0 * variance);
    assert!(close(sprt.llr(10, 0, 0), expected, 1e-12));
    assert!(sprt.llr(10, 0, 0) > 0.0 && sprt.llr(0, 0, 10) < 0.0);
    assert_eq!(
        sprt.decide(1, 0, 0),
        SprtDecision::Continue,
        "one game decides nothing"
    );
}

fn games_of(round: &[Pairing]) -> Vec<(usize, usize)> {
    round
        .iter()
        .filter_map(|p| match *p {
            Pairing::Game { black, white } => Some((black.min(white), black.max(white))),
            Pairing::Bye(_) => None,
        })
        .collect()
}

#[test]
fn a_round_robin_meets_every_pair_once_with_byes_for_odd_counts() {
    for players in 2..=9 {
        let rounds = round_robin(players);
        let even = players + players % 2;
        assert_eq!(rounds.len(), even - 1);
        let mut pairs: Vec<(usize, usize)> = rounds.iter().flat_map(|r| games_of(r)).collect();
        pairs.sort();
        let expected: Vec<(usize, usize)> = (0..players)
            .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
            .collect();
        assert_eq!(pairs, expected, "{players} players");
        let byes: Vec<usize> = rounds
            .iter()
            .flatten()
            .filter_map(|p| match *p {
                Pairing::Bye(player) => Some(player),
                Pairing::Game { .. } => None,
            })
            .collect();
        if players % 2 == 1 {
            let mut sorted = byes.clone();
            sorted.sort();
            assert_eq!(sorted, (0..players).collect::<Vec<_>>(), "one bye each");
        } else {
            assert!(byes.is_empty());
        }
    }
}

#[test]
fn swiss_rounds_with_an_odd_field_give_one_bye_each_and_no_repeats() {
    let mut players = vec![SwissPlayer::default(); 5];
    let mut met = std::collections::HashSet::new();
    for round in 0..3 {
        let pairings = swiss_round(&players);
        let byes: Vec<usize> = pairings
            .iter()
            .filter_map(|p| match *p {
                Pairing::Bye(player) => Some(player),
                Pairing::Game { .. } => None,
            })
            .collect();
        assert_eq!(byes.len(), 1, "round {round}");
        assert!(!players[byes[0]].had_bye, "a second bye in round {round}");
        players[byes[0]].had_bye = true;
        players[byes[0]].points += 1.0;
        for pairing in pairings {
            if let Pairing::Game { black, white } = pairing {
                assert!(met.insert((black.min(white), black.max(white))), "a repeat");
                // The lower index wins: scores spread so that the groups matter.
                let (winner, _) = (black.min(white), black.max(white));
                players[winner].points += 1.0;
                players[black].opponents.push(white);
                players[white].opponents.push(black);
                players[black].colour_balance += 1;
                players[white].colour_balance -= 1;
            }
        }
    }
    let total: f64 = players.iter().map(|p| p.points).sum();
    assert_eq!(total, 3.0 * 3.0, "two games and a bye per round");
}

#[test]
fn the_brightwell_quotient_of_a_worked_example() {
    // 8x8, 8 rounds: c = 8. Two games against opponents who finished with 5 and 3 points,
    // won 40-24 and lost 30-34, and a bye; the player finished with 6 points.
    let games = [
        BqGame::Played {
            discs: 40,
            opponent_points: 5.0,
        },
        BqGame::Played {
            discs: 30,
            opponent_points: 3.0,
        },
        BqGame::ByeOrWithdrawn,
    ];
    // (40 + 8*5) + (30 + 8*3) + (64/2 + 8*6) = 80 + 54 + 80.
    assert_eq!(brightwell_quotient(64, 8, 6.0, &games), 214.0);
    // c rounds to the nearest integer: 36 squares over 5 rounds is 7.2, so c = 7.
    assert_eq!(
        brightwell_quotient(
            36,
            5,
            1.0,
            &[BqGame::Played {
                discs: 20,
                opponent_points: 2.0
            }]
        ),
        34.0
    );
}
