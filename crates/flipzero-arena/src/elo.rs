//! Ratings from game results: maximum-likelihood Elo over a pool of agents (the
//! Bradley-Terry model, a draw counting as half a win and half a loss) with 95% intervals
//! from the observed information, and the sequential probability ratio test for promotions.

/// Elo points per unit of logistic log-odds: 400 / ln 10.
const ELO_PER_LOGIT: f64 = 400.0 / std::f64::consts::LN_10;

/// The expected score of a player `elo` points stronger than its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives an expected score `score` (0 < score < 1).
pub fn elo_difference(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Results between two agents of a pool, from the first's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// The first agent.
    pub first: usize,
    /// The second agent.
    pub second: usize,
    /// Games the first won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the first lost.
    pub losses: u32,
}

/// An agent's rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo, with the anchor at its given value.
    pub elo: f64,
    /// Half the width of the 95% interval (1.96 standard errors); 0 for the anchor, infinite
    /// when the results do not pin the rating (all wins or all losses, or no games).
    pub margin: f64,
}

/// Ratings that cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EloError {
    /// A result names an agent outside the pool or pairs an agent with itself.
    #[error("result {index}: agents {first} and {second} in a pool of {size}")]
    BadPair {
        /// The result's place in the list.
        index: usize,
        /// Its first agent.
        first: usize,
        /// Its second agent.
        second: usize,
        /// The pool's size.
        size: usize,
    },
    /// The anchor is outside the pool.
    #[error("anchor {anchor} outside a pool of {size}")]
    BadAnchor {
        /// The anchor.
        anchor: usize,
        /// The pool's size.
        size: usize,
    },
}

/// Maximum-likelihood ratings of `size` agents from their results, agent `anchor` held at
/// `anchor_elo`. A draw counts as half a win and half a loss. Ratings are found by
/// Newton's method on the log-likelihood; to keep agents with perfect scores finite, every
/// pair that has played gets a prior of one virtual draw (half a game each way), as
/// BayesElo-style tools do, which moves ratings of well-measured pairs by little.
///
/// # Errors
/// Results that name agents outside the pool, or an anchor outside it.
pub fn ratings(
    size: usize,
    results: &[PairResult],
    anchor: usize,
    anchor_elo: f64,
) -> Result<Vec<Rating>, EloError> {
    if anchor >= size {
        return Err(EloError::BadAnchor { anchor, size });
    }
    // points[i][j]: points agent i scored against j; games[i][j] games between them.
    let mut points = vec![vec![0.0f64; size]; size];
    let mut games = vec![vec![0.0f64; size]; size];
    for (index, result) in results.iter().enumerate() {
        let (first, second) = (result.first, result.second);
        if first >= size || second >= size || first == second {
            return Err(EloError::BadPair {
                index,
                first,
                second,
                size,
            });
        }
        let played = f64::from(result.wins + result.draws + result.losses);
        let scored = f64::from(result.wins) + 0.5 * f64::from(result.draws);
        points[first][second] += scored;
        points[second][first] += played - scored;
        games[first][second] += played;
        games[second][first] += played;
    }
    for i in 0..size {
        for j in 0..size {
            if i != j && games[i][j] > 0.0 {
                points[i][j] += 0.5;
                games[i][j] += 1.0;
            }
        }
    }
    // Newton's method in logits over every agent but the anchor.
    let free: Vec<usize> = (0..size).filter(|&i| i != anchor).collect();
    let mut logits = vec![0.0f64; size];
    let mut information = vec![vec![0.0f64; free.len()]; free.len()];
    for _ in 0..100 {
        let mut gradient = vec![0.0f64; free.len()];
        for row in &mut information {
            row.iter_mut().for_each(|v| *v = 0.0);
        }
        let place = |agent: usize| free.iter().position(|&f| f == agent);
        for i in 0..size {
            for j in 0..size {
                if i == j || games[i][j] == 0.0 {
                    continue;
                }
                let p = 1.0 / (1.0 + (logits[j] - logits[i]).exp());
                let weight = games[i][j] * p * (1.0 - p);
                if let Some(a) = place(i) {
                    gradient[a] += points[i][j] - games[i][j] * p;
                    information[a][a] += weight;
                    if let Some(b) = place(j) {
                        information[a][b] -= weight;
                    }
                }
            }
        }
        let Some(step) = solve(&information, &gradient) else {
            break;
        };
        let mut largest = 0.0f64;
        for (a, &agent) in free.iter().enumerate() {
            // Damped: a step of at most 2 logits (about 350 Elo) at a time.
            let change = step[a].clamp(-2.0, 2.0);
            logits[agent] += change;
            largest = largest.max(change.abs());
        }
        if largest < 1e-10 {
            break;
        }
    }
    let covariance = invert(&information);
    Ok((0..size)
        .map(|agent| {
            let elo = anchor_elo + (logits[agent] - logits[anchor]) * ELO_PER_LOGIT;
            let margin = if agent == anchor {
                0.0
            } else {
                let a = free.iter().position(|&f| f == agent).expect("a free agent");
                covariance
                    .as_ref()
                    .map(|c| c[a][a])
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .map_or(f64::INFINITY, |variance| {
                        1.96 * variance.sqrt() * ELO_PER_LOGIT
                    })
            };
            Rating { elo, margin }
        })
        .collect())
}

/// Solves `matrix * x = vector` by Gaussian elimination with partial pivoting; `None` when
/// the matrix is singular (an agent with no games).
fn solve(matrix: &[Vec<f64>], vector: &[f64]) -> Option<Vec<f64>> {
    let n = vector.len();
    let mut rows: Vec<Vec<f64>> = matrix
        .iter()
        .zip(vector)
        .map(|(row, &v)| row.iter().copied().chain([v]).collect())
        .collect();
    for column in 0..n {
        let pivot =
            (column..n).max_by(|&a, &b| rows[a][column].abs().total_cmp(&rows[b][column].abs()))?;
        if rows[pivot][column].abs() < 1e-12 {
            return None;
        }
        rows.swap(column, pivot);
        let pivot_row = rows[column].clone();
        for (index, row) in rows.iter_mut().enumerate() {
            if index != column {
                let factor = row[column] / pivot_row[column];
                for (value, pivot) in row.iter_mut().zip(&pivot_row).skip(column) {
                    *value -= factor * pivot;
                }
            }
        }
    }
    Some((0..n).map(|i| rows[i][n] / rows[i][i]).collect())
}

/// The inverse of a square matrix, column by column; `None` when singular.
fn invert(matrix: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = matrix.len();
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|column| {
            let unit: Vec<f64> = (0..n).map(|i| f64::from(u8::from(i == column))).collect();
            solve(matrix, &unit)
        })
        .collect::<Option<_>>()?;
    Some(
        (0..n)
            .map(|i| (0..n).map(|j| columns[j][i]).collect())
            .collect(),
    )
}

/// What a sequential probability ratio test concludes so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The stronger hypothesis (elo1) is accepted.
    AcceptH1,
    /// The weaker hypothesis (elo0) is accepted.
    AcceptH0,
    /// Play on.
    Continue,
}

/// A sequential probability ratio test between elo0 (H0) and elo1 (H1) with error rates
/// alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sprt {
    /// Elo difference of H0.
    pub elo0: f64,
    /// Elo difference of H1.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

impl Sprt {
    /// Says what is wrong with the test's settings: hypotheses that are not finite or not
    /// in order (elo0 below elo1), error rates outside (0, 0.5].
    ///
    /// # Errors
    /// The setting at fault and its value.
    pub fn check(&self) -> Result<(), String> {
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(format!(
                "elo0 = {}, elo1 = {}: use finite Elo differences with elo0 below elo1",
                self.elo0, self.elo1
            ));
        }
        for (name, rate) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(rate > 0.0 && rate <= 0.5) {
                return Err(format!(
                    "{name} = {rate}: use an error rate above 0 and at most 0.5"
                ));
            }
        }
        Ok(())
    }

    /// The bounds on the log-likelihood ratio: (lower, upper).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 after these results, by the generalised
    /// SPRT's normal approximation of the score (as fishtest computes it): with N games of
    /// mean score m and per-game variance v, LLR = N (s1 - s0) (2m - s0 - s1) / (2v), where
    /// s0 and s1 are the expected scores of elo0 and elo1. While every game has had the same
    /// result the variance is zero, so one virtual draw is added to define it (a perfect
    /// score then needs several games, not one, to decide). Zero before any game.
    pub fn llr(&self, wins: u32, draws: u32, losses: u32) -> f64 {
        if wins + draws + losses == 0 {
            return 0.0;
        }
        let all_alike = [wins, draws, losses].iter().filter(|&&n| n > 0).count() == 1;
        let draws = draws + u32::from(all_alike);
        let games = f64::from(wins + draws + losses);
        let (w, d, l) = (f64::from(wins), f64::from(draws), f64::from(losses));
        let mean = (w + 0.5 * d) / games;
        let variance =
            (w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2)) / games;
        if variance <= 0.0 {
            return 0.0;
        }
        let s0 = expected_score(self.elo0);
        let s1 = expected_score(self.elo1);
        games * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// The decision after these results.
    pub fn decide(&self, wins: u32, draws: u32, losses: u32) -> SprtDecision {
        let llr = self.llr(wins, draws, losses);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}
