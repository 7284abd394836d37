//! The one-line text of a variant position: the plain format of [`crate::board_text`] extended with
//! neutral and oriented discs and `key=value` fields for the rest of the state.
//!
//! ```text
//! ---------------------------OX------XO--------------------------- X
//! ---------#-----------------Ox------XO--------------------------- O phase=orient pending=e4
//! ```
//!
//! Squares: `X` black, `O` white, `-` empty, `#` neutral; under rotation rules lower-case `x`
//! and `o` are discs oriented `x` (upper case are `+`). Fields, each printed only when it
//! differs from its default: `phase=` (`bid`, `tie` (the chance event after equal bids),
//! `turn`, `drop`, `swap`, `neutralise`, `orient`, `second-a`, `second-b`), `pending=` (the
//! squares of a swap or the discs still to orient), `supply=` (`own/other,own/other`, Black
//! first), `next=` (the colours Black and White place next under Reversi II alternating), `ko=`, `passes=`, `turns=`, `komi=`, `bid=` (the first
//! bid while the second is awaited), `seats=swapped`, `group-a=` (biversi),
//! `result=` (`black`, `white`, `draw`: decided by a line or a repetition) and `over=1`.
//! The repetition history is not part of the text.

use std::fmt::Write;

use super::{Game, Phase, UNLIMITED};
use crate::bitboard::Bitboard;
use crate::color::{Color, Outcome};
use crate::geometry::Square;
use crate::variant::rules::{Komi, Rules, StartSpec, SupplySpec};

/// Variant position text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameTextError {
    /// The board part, as for standard positions.
    #[error(transparent)]
    Board(#[from] crate::board_text::TextError),
    /// A board of another shape than the rules'.
    #[error("the text has a {found} board, the rules a {expected} one")]
    WrongShape {
        /// The text's shape.
        found: String,
        /// The rules' shape.
        expected: String,
    },
    /// A disc these rules do not have.
    #[error("`{character}` at square {square}: {why}")]
    BadSquare {
        /// The character.
        character: char,
        /// The square's name.
        square: String,
        /// Why it does not belong.
        why: &'static str,
    },
    /// A field that does not parse.
    #[error("field `{field}`: {why}")]
    BadField {
        /// The field as written.
        field: String,
        /// What is wrong.
        why: String,
    },
}

fn bad_field(field: &str, why: impl Into<String>) -> GameTextError {
    GameTextError::BadField {
        field: field.to_owned(),
        why: why.into(),
    }
}

impl<W: Bitboard> Game<W> {
    fn square_list(&self, set: W) -> String {
        let names: Vec<String> = set
            .indices()
            .map(|index| self.geometry().square_name(Square(index as u8)).to_string())
            .collect();
        names.join(",")
    }

    fn symbol_at(&self, rules: &Rules, index: u32) -> char {
        let bit = W::square(index);
        let cross = rules.spec().orientation.is_some() && !(self.cross & bit).is_empty();
        if !(self.black & bit).is_empty() {
            if cross { 'x' } else { 'X' }
        } else if !(self.white & bit).is_empty() {
            if cross { 'o' } else { 'O' }
        } else if !(self.neutral & bit).is_empty() {
            '#'
        } else {
            '-'
        }
    }

    /// The board as an ASCII diagram with column letters and row numbers, then the side to
    /// move (for reading; the one-line text is the exchange format).
    pub fn to_diagram(&self, rules: &Rules) -> String {
        self.to_diagram_marked(rules, W::EMPTY)
    }

    /// The diagram with the empty squares of `marks` shown as `*` (the legal moves, say).
    pub fn to_diagram_marked(&self, rules: &Rules, marks: W) -> String {
        let state = if self.over { "game over" } else { "to move" };
        let footer = format!("{} {state}", self.side_to_move.symbol());
        let marks = marks & self.empty();
        crate::board_text::diagram(
            self.geometry(),
            |square| {
                if marks.contains(square.index()) {
                    '*'
                } else {
                    self.symbol_at(rules, square.index())
                }
            },
            &footer,
        )
    }

    /// The position as one line of text.
    pub fn to_text(&self, rules: &Rules) -> String {
        let geometry = self.geometry();
        let mut out = String::new();
        if geometry.rows() != geometry.cols() {
            write!(out, "{} ", geometry.size_name()).expect("writing to a string");
        }
        for index in 0..geometry.square_count() {
            out.push(self.symbol_at(rules, index));
        }
        write!(out, " {}", self.side_to_move.symbol()).expect("writing to a string");
        let mut field = |text: String| {
            out.push(' ');
            out.push_str(&text);
        };
        let default = Self::defaults(rules, self);
        let phase = match self.phase {
            Phase::Bid => "bid",
            Phase::TieBreak => "tie",
            Phase::TurnStart => "turn",
            Phase::NeutralDrop => "drop",
            Phase::SwapSecond { .. } => "swap",
            Phase::SwapNeutralise { .. } => "neutralise",
            Phase::Orient { .. } => "orient",
            Phase::SecondPlacement {
                first_in_group_a: true,
            } => "second-a",
            Phase::SecondPlacement {
                first_in_group_a: false,
            } => "second-b",
        };
        if self.phase != default.phase {
            field(format!("phase={phase}"));
        }
        if let Phase::SwapSecond { swapped: pending }
        | Phase::SwapNeutralise { swapped: pending }
        | Phase::Orient { pending } = self.phase
        {
            field(format!("pending={}", self.square_list(pending)));
        }
        if self.supply != default.supply {
            let show = |amount: u16| {
                if amount == UNLIMITED {
                    "-".to_owned()
                } else {
                    amount.to_string()
                }
            };
            let [black, white] = self.supply;
            field(format!(
                "supply={}/{},{}/{}",
                show(black[0]),
                show(black[1]),
                show(white[0]),
                show(white[1])
            ));
        }
        if self.next_colour != default.next_colour {
            field(format!(
                "next={}{}",
                self.next_colour[0].symbol(),
                self.next_colour[1].symbol()
            ));
        }
        if let Some(ko) = self.ko {
            field(format!("ko={}", self.geometry().square_name(ko)));
        }
        if self.passes > 0 {
            field(format!("passes={}", self.passes));
        }
        if self.turns > 0 {
            field(format!("turns={}", self.turns));
        }
        if self.komi_halves != default.komi_halves {
            field(format!("komi={}", f64::from(self.komi_halves) / 2.0));
        }
        if let Some(bid) = self.first_bid {
            field(format!("bid={bid}"));
        }
        if self.seats_swapped {
            field("seats=swapped".to_owned());
        }
        if self.group_a != default.group_a {
            field(format!("group-a={}", self.square_list(self.group_a)));
        }
        if let Some(decided) = self.decided {
            let result = match decided {
                Outcome::Win(Color::Black) => "black",
                Outcome::Win(Color::White) => "white",
                Outcome::Draw => "draw",
            };
            field(format!("result={result}"));
        }
        if self.over {
            field("over=1".to_owned());
        }
        out
    }

    /// The state fields a text leaves out: those of a fresh game with the same discs.
    fn defaults(rules: &Rules, discs: &Self) -> Self {
        let mut base = Self::blank(rules).expect("the rules fit the width of an existing game");
        if let SupplySpec::PerPlayer(total) = rules.spec().supply {
            for color in Color::ALL {
                let on_board = discs.discs(color).count() as u16;
                base.supply[color as usize][0] = total.saturating_sub(on_board);
            }
        }
        if matches!(rules.spec_start(), StartSpec::TwoPatterns) {
            base.group_a = Self::centred_start(rules)
                .expect("the rules fit the width of an existing game")
                .group_a;
        }
        base
    }

    /// Parses the one-line text of a position under `rules`.
    ///
    /// # Errors
    /// A [`GameTextError`] naming the square or field at fault.
    pub fn from_text(rules: &Rules, text: &str) -> Result<Self, GameTextError> {
        let board = crate::board_text::split_board_text(text)?;
        if (board.rows, board.cols) != (rules.rows(), rules.cols()) {
            return Err(GameTextError::WrongShape {
                found: format!("{}x{}", board.rows, board.cols),
                expected: format!("{}x{}", rules.rows(), rules.cols()),
            });
        }
        let mut game = Self::blank(rules).map_err(|error| bad_field("board", error.to_string()))?;
        let geometry = game.geometry();
        let squares = board.squares;
        let oriented = rules.spec().orientation.is_some();
        for (index, character) in squares.chars().enumerate() {
            let bit = W::square(index as u32);
            let square = || geometry.square_name(Square(index as u8)).to_string();
            match character {
                'X' | '*' => game.black |= bit,
                'O' => game.white |= bit,
                'x' | 'o' if oriented => {
                    game.cross |= bit;
                    if character == 'x' {
                        game.black |= bit;
                    } else {
                        game.white |= bit;
                    }
                }
                'x' => game.black |= bit,
                'o' => game.white |= bit,
                '-' | '.' => {}
                '#' if rules.spec().neutral.is_some() => game.neutral |= bit,
                '#' => {
                    return Err(GameTextError::BadSquare {
                        character,
                        square: square(),
                        why: "a neutral disc, and these rules have none",
                    });
                }
                _ => {
                    return Err(GameTextError::BadSquare {
                        character,
                        square: square(),
                        why: "expected X, O, - (or # for neutral, x and o for oriented discs)",
                    });
                }
            }
        }
        game.side_to_move = board.side_to_move;
        let defaults = Self::defaults(rules, &game);
        game.supply = defaults.supply;
        game.group_a = defaults.group_a;
        game.phase = defaults.phase;
        game.komi_halves = defaults.komi_halves;
        let mut pending = W::EMPTY;
        let mut phase_name = None;
        for token in board.fields {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| bad_field(token, "expected key=value"))?;
            let squares = |value: &str| -> Result<W, GameTextError> {
                value
                    .split(',')
                    .filter(|name| !name.is_empty())
                    .try_fold(W::EMPTY, |set, name| {
                        let square = geometry
                            .parse_square(name)
                            .map_err(|error| bad_field(token, error.to_string()))?;
                        Ok(set | W::square(square.index()))
                    })
            };
            let number = |value: &str| -> Result<u16, GameTextError> {
                value
                    .parse()
                    .map_err(|_| bad_field(token, "expected a whole number"))
            };
            match key {
                "phase" => phase_name = Some(value.to_owned()),
                "pending" => pending = squares(value)?,
                "supply" => {
                    let amounts: Vec<u16> = value
                        .split([',', '/'])
                        .map(|amount| {
                            if amount == "-" {
                                Ok(UNLIMITED)
                            } else {
                                number(amount)
                            }
                        })
                        .collect::<Result<_, _>>()?;
                    let [b_own, b_other, w_own, w_other] = amounts[..] else {
                        return Err(bad_field(token, "expected own/other,own/other"));
                    };
                    if matches!(rules.spec().supply, SupplySpec::Unlimited) {
                        return Err(bad_field(token, "these rules set no supply limit"));
                    }
                    game.supply = [[b_own, b_other], [w_own, w_other]];
                }
                "next" => {
                    let colours: Vec<Color> = value
                        .chars()
                        .map(|c| match c {
                            'X' => Ok(Color::Black),
                            'O' => Ok(Color::White),
                            _ => Err(bad_field(token, "expected two of X and O")),
                        })
                        .collect::<Result<_, _>>()?;
                    let [black, white] = colours[..] else {
                        return Err(bad_field(token, "expected two of X and O"));
                    };
                    game.next_colour = [black, white];
                }
                "ko" => {
                    game.ko = Some(
                        geometry
                            .parse_square(value)
                            .map_err(|error| bad_field(token, error.to_string()))?,
                    );
                }
                "passes" => {
                    // Two passes end the game.
                    game.passes = match number(value)? {
                        passes @ 0..=2 => passes as u8,
                        _ => return Err(bad_field(token, "expected 0, 1 or 2")),
                    };
                }
                "turns" => {
                    game.turns = number(value)?;
                    if game.turns > 10_000 {
                        return Err(bad_field(token, "more turns than any game has"));
                    }
                }
                "komi" => {
                    let komi: f64 = value
                        .parse()
                        .map_err(|_| bad_field(token, "expected a number"))?;
                    if (komi * 2.0).fract() != 0.0 {
                        return Err(bad_field(token, "komi must be a multiple of 0.5"));
                    }
                    // No margin can exceed the board, so neither can a meaningful komi.
                    let squares = f64::from(rules.square_count());
                    if !(-squares..=squares).contains(&komi) {
                        return Err(bad_field(
                            token,
                            format!("komi beyond the board's {squares} squares"),
                        ));
                    }
                    game.komi_halves = (komi * 2.0) as i16;
                }
                "bid" => {
                    let bid = value
                        .parse()
                        .map_err(|_| bad_field(token, "expected a bid"))?;
                    if !matches!(rules.komi(), Komi::Bid { min, max } if (min..=max).contains(&bid))
                    {
                        return Err(bad_field(token, "not a bid of these rules"));
                    }
                    game.first_bid = Some(bid);
                }
                "seats" if value == "swapped" => game.seats_swapped = true,
                "group-a" => game.group_a = squares(value)?,
                "result" => {
                    game.decided = Some(match value {
                        "black" => Outcome::Win(Color::Black),
                        "white" => Outcome::Win(Color::White),
                        "draw" => Outcome::Draw,
                        _ => return Err(bad_field(token, "expected black, white or draw")),
                    });
                }
                "over" => game.over = value == "1",
                // The equal-bid coin of texts written before it became a chance event after
                // the bids (komi shards of encoder version 4 hold it): read and ignored.
                "coin" => {}
                _ => return Err(bad_field(token, "unknown field")),
            }
        }
        if let Some(name) = phase_name {
            game.phase = match name.as_str() {
                "bid" => Phase::Bid,
                "tie" => Phase::TieBreak,
                "turn" => Phase::TurnStart,
                "drop" => Phase::NeutralDrop,
                "swap" => Phase::SwapSecond { swapped: pending },
                "neutralise" => Phase::SwapNeutralise { swapped: pending },
                "orient" => Phase::Orient { pending },
                "second-a" => Phase::SecondPlacement {
                    first_in_group_a: true,
                },
                "second-b" => Phase::SecondPlacement {
                    first_in_group_a: false,
                },
                _ => return Err(bad_field(&format!("phase={name}"), "unknown phase")),
            };
            let field = format!("phase={name}");
            let spec = rules.spec();
            let allowed = match game.phase {
                Phase::Bid => matches!(rules.komi(), Komi::Bid { .. }),
                // After both bids: no bid is pending.
                Phase::TieBreak => {
                    matches!(rules.komi(), Komi::Bid { .. }) && game.first_bid.is_none()
                }
                Phase::TurnStart => true,
                Phase::NeutralDrop | Phase::SwapSecond { .. } | Phase::SwapNeutralise { .. } => {
                    spec.neutral.is_some()
                }
                Phase::Orient { .. } => rules.mover_orients_flips(),
                Phase::SecondPlacement { .. } => {
                    spec.protocol == crate::variant::rules::Protocol::Progressive
                }
            };
            if !allowed {
                return Err(bad_field(&field, "these rules have no such phase"));
            }
            let mover = game.discs(game.side_to_move);
            let pending_ok = match game.phase {
                // The swapped squares and the discs to orient are the mover's discs.
                Phase::SwapSecond { swapped } | Phase::SwapNeutralise { swapped } => {
                    !swapped.is_empty() && (swapped & !mover).is_empty()
                }
                Phase::Orient { pending } => !pending.is_empty() && (pending & !mover).is_empty(),
                _ => pending.is_empty(),
            };
            if !pending_ok {
                return Err(bad_field(
                    &field,
                    "`pending=` must list the mover's discs this phase works on (and only then)",
                ));
            }
        }
        if game.decided.is_some()
            || (game.phase == Phase::TurnStart
                && !game.can_act(rules, game.side_to_move)
                && !game.can_act(rules, game.side_to_move.opponent()))
        {
            game.over = true;
        }
        // A game that goes on must offer a decision (a pass at least): a mid-turn phase with
        // nothing legal (a neutral drop on a full board, say) is a state no game reaches.
        if !game.over && game.legal_decisions(rules).is_empty() {
            return Err(bad_field(
                "phase",
                "no decision is legal in this state and the game is not over: no game reaches it",
            ));
        }
        // The position read is a turn start that has occurred once, as at a game's start: the
        // repetition rule counts it (the earlier history is not part of the text).
        if game.phase == Phase::TurnStart && !game.over {
            game.record_turn_start(rules);
        }
        Ok(game)
    }
}
