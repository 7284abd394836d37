//! Tournament pairings and standings: round robin (the circle method), Swiss rounds (score
//! groups, no repeated pairing, a bye for the lowest player without one), and the
//! Brightwell Quotient tie-break of docs/RULES.md section 5.4.

/// One game of a round: the two players' indices, or a bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// `black` plays `white`.
    Game {
        /// The player with Black.
        black: usize,
        /// The player with White.
        white: usize,
    },
    /// The player sits the round out.
    Bye(usize),
}

/// Every round of a round robin of `players`: each pair meets once; with an odd number one
/// player has a bye each round. Colours alternate so that each player has Black about half
/// of the time.
pub fn round_robin(players: usize) -> Vec<Vec<Pairing>> {
    if players < 2 {
        return Vec::new();
    }
    // The circle method over an even count, a phantom player standing for the bye.
    let count = players + players % 2;
    let mut circle: Vec<usize> = (0..count).collect();
    let mut rounds = Vec::with_capacity(count - 1);
    for round in 0..count - 1 {
        let mut pairings = Vec::with_capacity(count / 2);
        for seat in 0..count / 2 {
            let (a, b) = (circle[seat], circle[count - 1 - seat]);
            let pairing = if a >= players {
                Pairing::Bye(b)
            } else if b >= players {
                Pairing::Bye(a)
            } else if (round + seat) % 2 == 0 {
                Pairing::Game { black: a, white: b }
            } else {
                Pairing::Game { black: b, white: a }
            };
            pairings.push(pairing);
        }
        rounds.push(pairings);
        // Keep the first seat, rotate the rest by one.
        let last = circle.pop().expect("at least two seats");
        circle.insert(1, last);
    }
    rounds
}

/// A player's state in a Swiss tournament, as the pairing needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwissPlayer {
    /// Points so far (1 a win or a bye, 0.5 a draw).
    pub points: f64,
    /// Opponents met so far.
    pub opponents: Vec<usize>,
    /// Whether the player has had a bye.
    pub had_bye: bool,
    /// Games with Black minus games with White.
    pub colour_balance: i32,
}

/// The next Swiss round: players ordered by points (then by index), the lowest-placed player
/// without a bye sits out when the count is odd, and each player from the top is paired with
/// the highest-placed player it has not met that leaves the others pairable (repeats only
/// when no pairing avoids them). The player who has had fewer Blacks takes Black.
pub fn swiss_round(players: &[SwissPlayer]) -> Vec<Pairing> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| {
        players[b]
            .points
            .total_cmp(&players[a].points)
            .then(a.cmp(&b))
    });
    let mut pairings = Vec::new();
    if order.len() % 2 == 1 {
        let bye_place = order
            .iter()
            .rposition(|&p| !players[p].had_bye)
            .unwrap_or(order.len() - 1);
        pairings.push(Pairing::Bye(order.remove(bye_place)));
    }
    let pairs = pair_without_repeats(players, &order).unwrap_or_else(|| {
        // Every player has met every other: pair neighbours in the standings.
        order.chunks(2).map(|pair| (pair[0], pair[1])).collect()
    });
    for (first, second) in pairs {
        let (black, white) = if players[first].colour_balance <= players[second].colour_balance {
            (first, second)
        } else {
            (second, first)
        };
        pairings.push(Pairing::Game { black, white });
    }
    pairings
}

/// Pairs `waiting` (in standings order) so that nobody meets an opponent again: the first
/// player takes the highest-placed opponent that leaves the rest pairable (backtracking).
fn pair_without_repeats(players: &[SwissPlayer], waiting: &[usize]) -> Option<Vec<(usize, usize)>> {
    let Some((&first, rest)) = waiting.split_first() else {
        return Some(Vec::new());
    };
    for (place, &second) in rest.iter().enumerate() {
        if players[first].opponents.contains(&second) {
            continue;
        }
        let others: Vec<usize> = rest
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != place)
            .map(|(_, &p)| p)
            .collect();
        if let Some(mut pairs) = pair_without_repeats(players, &others) {
            pairs.insert(0, (first, second));
            return Some(pairs);
        }
    }
    None
}

/// One game a player took part in, for the Brightwell Quotient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BqGame {
    /// A game against an opponent who stayed in the tournament.
    Played {
        /// The player's discs at the end of the game.
        discs: u32,
        /// The opponent's final points in the tournament.
        opponent_points: f64,
    },
    /// A bye, or a game against an opponent who withdrew.
    ByeOrWithdrawn,
}

/// The Brightwell Quotient (docs/RULES.md section 5.4, as interpreted there): with
/// c = round(squares / rounds), the player's discs in games against opponents who stayed,
/// plus c times those opponents' points, plus, for each bye or withdrawn opponent, half the
/// squares plus c times the player's own points.
pub fn brightwell_quotient(squares: u32, rounds: u32, own_points: f64, games: &[BqGame]) -> f64 {
    let c = (f64::from(squares) / f64::from(rounds.max(1))).round();
    games
        .iter()
        .map(|game| match *game {
            BqGame::Played {
                discs,
                opponent_points,
            } => f64::from(discs) + c * opponent_points,
            BqGame::ByeOrWithdrawn => f64::from(squares) / 2.0 + c * own_points,
        })
        .sum()
}
