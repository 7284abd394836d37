//! Decisions as text, and move lists replayed against the rules.
//!
//! A move list is a sequence of decisions, concatenated or separated by blanks or commas:
//!
//! - a square, `f5` (or `J10`): a placement, sacrifice, neutral drop or swap step, as the phase
//!   of the turn makes it; a placement that carries an option takes a suffix: the orientation
//!   (`c6+`, `c6x`) under rotation rules, the colour (`f5X`, `f5O`) under Reversi II `free`;
//! - `pass` or `PA`;
//! - `+` or `x` alone: the orientation of the next flipped rotation disc;
//! - `bid+3`, `bid-2`, `bid0`: a komi bid;
//! - `tie-kept`, `tie-swapped`: the chance event after equal bids (the first bidder keeps
//!   the colour they bid as, or takes the other).

use crate::bitboard::Bitboard;
use crate::geometry::Geometry;
use crate::variant::decision::{Decision, Orientation};
use crate::variant::game::{Game, Phase};
use crate::variant::rules::{ColourChoice, Rules, SupplySpec};

/// A move list that stops: the decision at fault, its position, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("decision {index} `{text}`: {reason}")]
pub struct ReplayError {
    /// Position of the decision in the list, from 1.
    pub index: usize,
    /// The decision as written.
    pub text: String,
    /// Why it cannot be played.
    pub reason: String,
}

fn orientation_suffix(rules: &Rules) -> bool {
    rules.spec().orientation.is_some()
}

fn colour_suffix(rules: &Rules) -> bool {
    matches!(
        rules.spec().supply,
        SupplySpec::ColourDiscs {
            choice: ColourChoice::Free,
            ..
        }
    )
}

/// The names of the two outcomes of the equal-bid chance event.
const TIE_KEPT: &str = "tie-kept";
const TIE_SWAPPED: &str = "tie-swapped";

/// A decision as move-list text.
pub fn decision_name<W: Bitboard>(
    rules: &Rules,
    geometry: &Geometry<W>,
    decision: Decision,
) -> String {
    match decision {
        Decision::Square { square, option } => {
            let name = geometry.square_name(square).to_string();
            let suffix = if orientation_suffix(rules) {
                Orientation::ALL
                    .get(usize::from(option))
                    .map(|o| o.symbol())
            } else if colour_suffix(rules) {
                ['X', 'O'].get(usize::from(option)).copied()
            } else {
                None
            };
            match (suffix, option) {
                (Some(suffix), _) => format!("{name}{suffix}"),
                (None, 0) => name,
                // Only a decision no rules produce has another option; name it plainly.
                (None, option) => format!("{name}/{option}"),
            }
        }
        Decision::Pass => "pass".to_owned(),
        Decision::Orient(orientation) => orientation.symbol().to_string(),
        Decision::Bid(bid) => format!("bid{bid:+}"),
        Decision::TieBreak { swapped: false } => TIE_KEPT.to_owned(),
        Decision::TieBreak { swapped: true } => TIE_SWAPPED.to_owned(),
    }
}

/// The legal decisions in a few words, for error messages.
pub(crate) fn legal_summary<W: Bitboard>(
    rules: &Rules,
    game: &Game<W>,
    legal: &[Decision],
) -> String {
    if legal.is_empty() {
        return "no decision is legal".to_owned();
    }
    let names: Vec<String> = legal
        .iter()
        .take(16)
        .map(|&decision| decision_name(rules, game.geometry(), decision))
        .collect();
    let more = if legal.len() > names.len() {
        format!(" and {} more", legal.len() - names.len())
    } else {
        String::new()
    };
    format!("legal: {}{more}", names.join(" "))
}

/// Reads the next decision from `text`, in the context of `game`'s phase. Returns the
/// decision and the rest of the text, or `None` at the end.
fn next_decision<'a, W: Bitboard>(
    rules: &Rules,
    game: &Game<W>,
    text: &'a str,
) -> Result<Option<(Decision, &'a str, &'a str)>, String> {
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == ';');
    if text.is_empty() {
        return Ok(None);
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("pass") {
        return Ok(Some((Decision::Pass, &text[..4], &text[4..])));
    }
    if lower.starts_with("pa") {
        return Ok(Some((Decision::Pass, &text[..2], &text[2..])));
    }
    for (name, swapped) in [(TIE_KEPT, false), (TIE_SWAPPED, true)] {
        if lower.starts_with(name) {
            let (token, rest) = text.split_at(name.len());
            return Ok(Some((Decision::TieBreak { swapped }, token, rest)));
        }
    }
    if let Some(rest) = lower.strip_prefix("bid") {
        let digits = rest
            .char_indices()
            .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '+' || c == '-')))
            .count();
        let token = &text[..3 + digits];
        let bid: i8 = rest[..digits]
            .parse()
            .map_err(|_| format!("`{token}` is not a bid such as bid+3"))?;
        return Ok(Some((Decision::Bid(bid), token, &text[3 + digits..])));
    }
    let first = text.chars().next().expect("text is not empty");
    if matches!(game.phase(), Phase::Orient { .. }) && matches!(first, '+' | 'x' | 'X') {
        let orientation = if first == '+' {
            Orientation::Plus
        } else {
            Orientation::Cross
        };
        return Ok(Some((
            Decision::Orient(orientation),
            &text[..1],
            &text[1..],
        )));
    }
    if !first.is_ascii_alphabetic() {
        return Err(format!("`{first}` does not start a decision"));
    }
    let geometry = game.geometry();
    // Column letter, then the longest run of up to two digits that names a row.
    let digits: usize = text[1..]
        .chars()
        .take(2)
        .take_while(char::is_ascii_digit)
        .count();
    let mut square = None;
    let mut used = 0;
    for length in (1..=digits).rev() {
        if let Ok(found) = geometry.parse_square(&text[..1 + length]) {
            square = Some(found);
            used = 1 + length;
            break;
        }
    }
    let Some(square) = square else {
        let shown: String = text.chars().take(1 + digits.max(1)).collect();
        return Err(format!(
            "`{shown}` is not a square of the {} board",
            geometry.size_name()
        ));
    };
    // Without a suffix, a Reversi II free placement is a disc of the mover's own colour.
    let mut option = if colour_suffix(rules) {
        game.side_to_move() as u8
    } else {
        0
    };
    if let Some(suffix) = text[used..].chars().next() {
        let by_suffix = if orientation_suffix(rules) {
            match suffix {
                '+' => Some(0),
                'x' | 'X' => Some(1),
                _ => None,
            }
        } else if colour_suffix(rules) {
            match suffix {
                'X' | 'x' | '*' => Some(0),
                // Not `o`: on boards 15 columns wide it starts the next square.
                'O' => Some(1),
                _ => None,
            }
        } else {
            None
        };
        if let Some(chosen) = by_suffix {
            option = chosen;
            used += 1;
        }
    }
    Ok(Some((
        Decision::Square { square, option },
        &text[..used],
        &text[used..],
    )))
}

/// Parses a move list against `start`, playing each decision; returns the final game.
///
/// # Errors
/// The first decision that does not parse or is not legal, with the reason.
pub fn replay<W: Bitboard>(
    rules: &Rules,
    start: &Game<W>,
    text: &str,
) -> Result<Game<W>, ReplayError> {
    replay_decisions(rules, start, text).map(|(_, game)| game)
}

/// Parses a move list against `start`, playing each decision; returns the decisions one by
/// one (a list may run them together, `f5d6c3`) and the final game.
///
/// # Errors
/// The first decision that does not parse or is not legal, with the reason.
pub fn replay_decisions<W: Bitboard>(
    rules: &Rules,
    start: &Game<W>,
    text: &str,
) -> Result<(Vec<Decision>, Game<W>), ReplayError> {
    let mut decisions = Vec::new();
    let mut game = start.clone();
    let mut rest = text;
    for index in 1.. {
        let parsed = next_decision(rules, &game, rest).map_err(|reason| ReplayError {
            index,
            text: rest.trim().chars().take(8).collect(),
            reason,
        })?;
        let Some((decision, token, remaining)) = parsed else {
            break;
        };
        game = game.play(rules, decision).map_err(|error| ReplayError {
            index,
            text: token.to_owned(),
            reason: error.to_string(),
        })?;
        decisions.push(decision);
        rest = remaining;
    }
    Ok((decisions, game))
}
