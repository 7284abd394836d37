//! The variant engine: a game state for any [`Rules`], its legal decisions, and how a decision
//! changes it.
//!
//! The state is plain data; every method takes the rules it was started with. Standard Othello
//! runs through the same code (and the same bitboard kernels) as every other variant; the fast
//! path for perft and search on plain Othello is [`crate::Position`].

mod lines;
mod text;

use crate::bitboard::Bitboard;
use crate::color::{Color, Outcome, Scoring};
use crate::geometry::{Geometry, GeometryError, Square};
use crate::variant::decision::{Decision, Orientation};
use crate::variant::rules::{
    ColourChoice, FlippedOrientation, Komi, LineFallback, NeutralPlacement, Objective, PassRule,
    Ply4, Protocol, Rules, StartSpec, SupplySpec, SwapNeutralises,
};
use lines::Tables;

pub use text::GameTextError;

/// Where a turn stands: what the next decision means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase<W> {
    /// Komi bidding: the side to move bids.
    Bid,
    /// Equal bids: the chance event that seats the bidders comes next
    /// ([`Decision::TieBreak`], drawn by whoever runs the game, not chosen by a player).
    TieBreak,
    /// The first decision of a turn.
    TurnStart,
    /// Neuversi: the disc is placed; the neutral comes next.
    NeutralDrop,
    /// Neuversi swap: one neutral turned (`swapped`); the second comes next.
    SwapSecond {
        /// Squares turned so far.
        swapped: W,
    },
    /// Neuversi swap: both neutrals turned; a disc becomes neutral next.
    SwapNeutralise {
        /// The two squares turned.
        swapped: W,
    },
    /// Rotation: the flipped discs still to orient, lowest square first.
    Orient {
        /// Flipped discs not yet oriented.
        pending: W,
    },
    /// Biversi: the second placement of a turn.
    SecondPlacement {
        /// Whether the first placement joined group A (the crossed pattern's group).
        first_in_group_a: bool,
    },
}

/// A decision that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Not among the legal decisions.
    #[error("{decision} is not legal here ({why})")]
    Illegal {
        /// The decision as written.
        decision: String,
        /// What the position allows instead.
        why: String,
    },
}

/// A start that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The board does not fit the bitboard width.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// The start position's text does not parse.
    #[error(transparent)]
    Text(#[from] GameTextError),
    /// A player's supply is smaller than the discs the start gives them.
    #[error("the supply is smaller than the {on_board} discs {color} starts with")]
    Supply {
        /// The player.
        color: Color,
        /// Their discs on the start position.
        on_board: u16,
    },
    /// A move of an opening list is illegal.
    #[error("opening move {index}: {error}")]
    Opening {
        /// Position of the move in the list, from 1.
        index: usize,
        /// Why it is illegal.
        error: String,
    },
}

/// The part of a position the repetition rule compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RepetitionKey<W> {
    black: W,
    white: W,
    cross: W,
    side_to_move: Color,
    ko: Option<Square>,
}

impl<W: Bitboard> RepetitionKey<W> {
    fn hash(&self) -> u64 {
        use crate::hash::mix64;
        let scalars = [
            self.side_to_move as u64,
            self.ko.map_or(u64::MAX, |square| u64::from(square.0)),
        ];
        let sets = [self.black, self.white, self.cross];
        let mut key = 0x5851_f42d_4c95_7f2d;
        for word in sets.iter().flat_map(|set| set.words()).chain(scalars) {
            key = mix64(key ^ word);
        }
        key
    }
}

/// The positions recorded at turn starts since the last placement (sacrifice's repetition
/// rule), with an order-free key of them kept as they come: the rule counts occurrences, so
/// the order the positions came in does not change the game's future, and the position hash
/// reads the key without walking the record.
#[derive(Clone, Debug)]
struct RepetitionRecord<W> {
    positions: Vec<RepetitionKey<W>>,
    /// The wrapping sum of the positions' hashes.
    key: u64,
}

impl<W: Bitboard> RepetitionRecord<W> {
    fn new() -> Self {
        Self {
            positions: Vec::new(),
            key: 0,
        }
    }

    fn push(&mut self, position: RepetitionKey<W>) {
        self.key = self.key.wrapping_add(position.hash());
        self.positions.push(position);
    }

    fn clear(&mut self) {
        self.positions.clear();
        self.key = 0;
    }

    /// How often `position` is in the record.
    fn occurrences(&self, position: RepetitionKey<W>) -> usize {
        self.positions
            .iter()
            .filter(|&&entry| entry == position)
            .count()
    }
}

/// Disc supplies of one colour's player: discs of their own colour and of the opponent's.
/// `UNLIMITED` where the rules set no limit.
pub const UNLIMITED: u16 = u16::MAX;

/// The state of a game of any variant.
#[derive(Clone, Debug)]
pub struct Game<W: Bitboard> {
    tables: &'static Tables<W>,
    black: W,
    white: W,
    neutral: W,
    /// Discs oriented `x` (rotation); every other disc is `+`.
    cross: W,
    /// Squares whose discs belong to biversi group A.
    group_a: W,
    side_to_move: Color,
    phase: Phase<W>,
    /// Per colour: [discs of own colour, discs of the other colour] left.
    supply: [[u16; 2]; 2],
    /// Reversi II alternating: the colour each player places next.
    next_colour: [Color; 2],
    /// A square the side to move may not sacrifice (ko).
    ko: Option<Square>,
    /// Consecutive passes.
    passes: u8,
    /// Completed turns.
    turns: u16,
    /// Komi in half discs, once settled.
    komi_halves: i16,
    /// The first bid, while the second is awaited.
    first_bid: Option<i8>,
    /// Whether the bids put the first bidder on the other colour.
    seats_swapped: bool,
    /// A result decided by a rule (a line, a repetition) rather than the count.
    decided: Option<Outcome>,
    over: bool,
    /// The positions at turn starts, for the repetition rule (sacrifice only).
    history: RepetitionRecord<W>,
}

fn index_of(color: Color) -> usize {
    color as usize
}

impl<W: Bitboard> Game<W> {
    /// The start of a game under `rules`; `seed` draws what the start leaves to chance (random
    /// openings).
    ///
    /// # Errors
    /// When the board does not fit `W`, or the start position of the rules cannot be built.
    pub fn try_start(rules: &Rules, seed: u64) -> Result<Self, StartError> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut game = match rules.spec_start() {
            StartSpec::Diagram(text) => Self::from_text(rules, text)?,
            StartSpec::Placement { .. } => Self::blank(rules)?,
            _ => Self::centred_start(rules)?,
        };
        // The equal-bid coin was once drawn here (it is now a chance event after the bids):
        // the draw is kept and discarded, so that every seed still draws the openings it drew.
        let _ = rng.random_bool(0.5);
        match rules.spec_start() {
            StartSpec::RandomPlies(plies) => {
                // Whole turns: a multi-step turn is played to its end.
                'plies: for _ in 0..*plies {
                    loop {
                        let decisions = game.legal_decisions(rules);
                        if decisions.is_empty() {
                            break 'plies;
                        }
                        let decision = decisions[rng.random_range(0..decisions.len())];
                        game = game.play_unchecked(rules, decision);
                        if !game.is_mid_turn() {
                            break;
                        }
                    }
                }
                game.turns = 0;
            }
            StartSpec::OpeningList(list) => {
                let line = &list[rng.random_range(0..list.len())];
                game = crate::variant::notation::replay(rules, &game, line).map_err(|error| {
                    StartError::Opening {
                        index: error.index,
                        error: error.to_string(),
                    }
                })?;
                game.turns = 0;
            }
            _ => {}
        }
        game.history.clear();
        game.record_turn_start(rules);
        Ok(game)
    }

    /// The start with a fixed seed (0), for perft and tests.
    ///
    /// # Panics
    /// When `W` is too narrow for the board.
    pub fn start(rules: &Rules) -> Self {
        Self::try_start(rules, 0).expect("validated rules have a start")
    }

    /// The rules' cross (or other centred) start, before any random plies.
    pub(crate) fn cross_start(rules: &Rules) -> Self {
        Self::centred_start(rules).expect("validated rules have a start")
    }

    fn blank(rules: &Rules) -> Result<Self, StartError> {
        let geometry = Geometry::<W>::get(rules.rows(), rules.cols())?;
        let line_length = match rules.spec().objective {
            Objective::Line { length, .. } => length,
            _ => 0,
        };
        let supply = match rules.spec().supply {
            SupplySpec::Unlimited => [UNLIMITED, 0],
            SupplySpec::PerPlayer(discs) => [discs, 0],
            SupplySpec::ColourDiscs { own, opponent, .. } => [own, opponent],
        };
        let mut game = Self {
            tables: Tables::get(geometry, rules.is_torus(), line_length),
            black: W::EMPTY,
            white: W::EMPTY,
            neutral: W::EMPTY,
            cross: W::EMPTY,
            group_a: W::EMPTY,
            side_to_move: rules.first_player(),
            phase: Phase::TurnStart,
            supply: [supply; 2],
            next_colour: [Color::Black, Color::White],
            ko: None,
            passes: 0,
            turns: 0,
            komi_halves: 0,
            first_bid: None,
            seats_swapped: false,
            decided: None,
            over: false,
            history: RepetitionRecord::new(),
        };
        match rules.komi() {
            Komi::Fixed { halves } => game.komi_halves = halves,
            Komi::Bid { .. } => game.phase = Phase::Bid,
            Komi::None => {}
        }
        Ok(game)
    }

    fn centred_start(rules: &Rules) -> Result<Self, StartError> {
        let mut game = Self::blank(rules)?;
        let geometry = game.tables.geometry;
        let (top, left) = (
            i32::from(rules.rows() / 2 - 1),
            i32::from(rules.cols() / 2 - 1),
        );
        let at = |row: i32, col: i32| {
            let (rows, cols) = (i32::from(rules.rows()), i32::from(rules.cols()));
            let square = geometry
                .square_at(row.rem_euclid(rows), col.rem_euclid(cols))
                .expect("wrapped coordinates are on the board");
            W::square(square.index())
        };
        match rules.spec_start() {
            StartSpec::Parallel => {
                game.black = at(top, left) | at(top + 1, left);
                game.white = at(top, left + 1) | at(top + 1, left + 1);
            }
            StartSpec::TwoPatterns => {
                // Crossed at d4-e5 (on 10x10), parallel antipodal at i9-j10.
                let (top, left) = (top - 1, left - 1);
                let (down, right) = (i32::from(rules.rows() / 2), i32::from(rules.cols() / 2));
                game.white = at(top, left) | at(top + 1, left + 1);
                game.black = at(top, left + 1) | at(top + 1, left);
                game.group_a = game.white | game.black;
                game.black |= at(top + down, left + right) | at(top + down + 1, left + right);
                game.white |=
                    at(top + down, left + right + 1) | at(top + down + 1, left + right + 1);
            }
            _ => {
                game.white = at(top, left) | at(top + 1, left + 1);
                game.black = at(top, left + 1) | at(top + 1, left);
            }
        }
        if let SupplySpec::PerPlayer(_) = rules.spec().supply {
            for color in Color::ALL {
                let on_board = game.discs(color).count() as u16;
                let own = &mut game.supply[index_of(color)][0];
                *own = own.checked_sub(on_board).ok_or(StartError::Opening {
                    index: 0,
                    error: format!(
                        "the supply is smaller than the {on_board} discs {color} starts with"
                    ),
                })?;
            }
        }
        Ok(game)
    }

    /// The board shape.
    pub fn geometry(&self) -> &'static Geometry<W> {
        self.tables.geometry
    }

    /// Discs of a colour.
    pub fn discs(&self, color: Color) -> W {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// Neutral discs.
    pub fn neutral(&self) -> W {
        self.neutral
    }

    /// Discs oriented `x`.
    pub fn cross_discs(&self) -> W {
        self.cross
    }

    /// Squares of biversi group A.
    pub fn group_a(&self) -> W {
        self.group_a
    }

    /// Empty squares.
    pub fn empty(&self) -> W {
        self.tables.geometry.board() & !(self.black | self.white | self.neutral)
    }

    /// The colour whose decision is next.
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// What the next decision means.
    pub fn phase(&self) -> Phase<W> {
        self.phase
    }

    /// Whether the side to move is in the middle of a turn (its next decision continues it).
    /// The chance event after equal bids belongs to the second bid's turn.
    pub fn is_mid_turn(&self) -> bool {
        !matches!(self.phase, Phase::TurnStart | Phase::Bid)
    }

    /// Whether the next decision is a chance event (the seats after equal komi bids) rather
    /// than a player's: its legal decisions are its outcomes, equally likely.
    pub fn awaits_chance(&self) -> bool {
        self.phase == Phase::TieBreak
    }

    /// At a chance event, one of its outcomes drawn uniformly with `rng`; `None` elsewhere.
    /// Whoever runs a game calls this before asking a player for a decision.
    pub fn draw_chance(&self, rules: &Rules, rng: &mut impl rand::Rng) -> Option<Decision> {
        if !self.awaits_chance() {
            return None;
        }
        let outcomes = self.legal_decisions(rules);
        outcomes.get(rng.random_range(0..outcomes.len())).copied()
    }

    /// Discs left to a colour's player: [own colour, other colour]; [`UNLIMITED`] for no limit.
    pub fn supply(&self, color: Color) -> [u16; 2] {
        self.supply[index_of(color)]
    }

    /// The square the side to move may not sacrifice.
    pub fn ko(&self) -> Option<Square> {
        self.ko
    }

    /// Completed turns (not counting random opening plies).
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// The komi in discs (0 before bids are settled).
    pub fn komi(&self) -> f64 {
        f64::from(self.komi_halves) / 2.0
    }

    /// Whether the player who bid first plays the colour other than the one they bid as.
    pub fn seats_swapped(&self) -> bool {
        self.seats_swapped
    }

    /// A 64-bit key of everything that decides the game's future (discs, supplies, phase,
    /// ko, passes, komi, the opening ply, and under the repetition rule the positions recorded
    /// since the last placement), for transposition tables: two sacrifice positions with the
    /// same board but another record can end in a draw at different points.
    pub fn hash(&self) -> u64 {
        use crate::hash::mix64;
        let (phase, phase_set) = match self.phase {
            Phase::Bid => (1, W::EMPTY),
            Phase::TieBreak => (9, W::EMPTY),
            Phase::TurnStart => (2, W::EMPTY),
            Phase::NeutralDrop => (3, W::EMPTY),
            Phase::SwapSecond { swapped } => (4, swapped),
            Phase::SwapNeutralise { swapped } => (5, swapped),
            Phase::Orient { pending } => (6, pending),
            Phase::SecondPlacement { first_in_group_a } => {
                (7 + u64::from(first_in_group_a), W::EMPTY)
            }
        };
        let scalars = [
            self.side_to_move as u64,
            phase,
            u64::from(self.supply[0][0]) | u64::from(self.supply[0][1]) << 16,
            u64::from(self.supply[1][0]) | u64::from(self.supply[1][1]) << 16,
            self.next_colour[0] as u64 | (self.next_colour[1] as u64) << 1,
            self.ko.map_or(u64::MAX, |square| u64::from(square.0)),
            u64::from(self.passes) | u64::from(self.turns.min(4)) << 8,
            self.komi_halves as u64 ^ (self.first_bid.map_or(0xff, |bid| bid as u8) as u64) << 16,
            u64::from(self.seats_swapped) | u64::from(self.over) << 2,
            match self.decided {
                None => 0,
                Some(Outcome::Draw) => 1,
                Some(Outcome::Win(color)) => 2 + color as u64,
            },
        ];
        let sets = [
            self.black,
            self.white,
            self.neutral,
            self.cross,
            self.group_a,
            phase_set,
        ];
        let mut key = 0x9e37_79b9_7f4a_7c15;
        let record = std::iter::once(self.history.key);
        for word in sets
            .iter()
            .flat_map(|set| set.words())
            .chain(scalars)
            .chain(record)
        {
            key = mix64(key ^ word);
        }
        key
    }

    /// How often the position has occurred at a turn start before now, under the repetition
    /// rule (sacrifice; 0 elsewhere): its `repetition-limit + 1`-th occurrence is a draw.
    pub fn earlier_occurrences(&self) -> usize {
        self.history
            .occurrences(self.repetition_key())
            .saturating_sub(1)
    }

    /// The squares 8-adjacent to any square of `set` (across the wrap on a torus).
    pub fn neighbours(&self, set: W) -> W {
        self.tables.dilate(set)
    }

    /// Every window of squares whose full occupation by one colour wins under a line
    /// objective (empty for other objectives).
    pub fn line_windows(&self) -> &[W] {
        &self.tables.line_windows
    }

    /// Whether the player to move here is also the one to move in `child` (a position after
    /// one of this position's decisions). Players are colours, except that the end of komi
    /// bidding may seat the first bidder on White.
    pub fn same_player_to_move(&self, child: &Self) -> bool {
        let mover = if child.seats_swapped == self.seats_swapped {
            self.side_to_move
        } else {
            self.side_to_move.opponent()
        };
        child.side_to_move == mover
    }

    /// Consecutive passes so far (two end the game where passing is allowed).
    pub fn passes(&self) -> u8 {
        self.passes
    }

    /// The first bid of the komi bidding, once made and while the second is awaited.
    pub fn first_bid(&self) -> Option<i8> {
        self.first_bid
    }

    /// A result decided by a rule (a line, a repetition) rather than by counting discs.
    pub fn decided(&self) -> Option<Outcome> {
        self.decided
    }

    /// The squares where `color` would flank a line if it were placing a disc now, with any
    /// placement option and ignoring supplies and multi-step turns: the mobility an
    /// evaluation counts.
    pub fn flank_squares(&self, rules: &Rules, color: Color) -> W {
        (0..rules.placement_options()).fold(W::EMPTY, |set, option| {
            set | self.tables.placements(
                self.pivots(rules, color, option),
                self.through(color),
                self.empty(),
            )
        })
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Black discs minus white discs, counted as `scoring` says: with
    /// [`Scoring::WinnerTakesEmpties`] the empty squares go to the side with more discs.
    pub fn disc_margin(&self, scoring: Scoring) -> i32 {
        let difference = self.black.count() as i32 - self.white.count() as i32;
        match scoring {
            Scoring::Raw => difference,
            Scoring::WinnerTakesEmpties => {
                crate::color::winner_takes_empties(difference, self.empty().count() as i32)
            }
        }
    }

    /// The margin, Black minus White: under the rules' scoring once the game is over (the
    /// training target), the plain disc difference before.
    pub fn score(&self, rules: &Rules) -> i32 {
        let raw = self.disc_margin(Scoring::Raw);
        if !self.over || rules.scoring() == Scoring::Raw {
            return raw;
        }
        // A result decided by a rule gives the empties to its winner (a draw splits them).
        match self.decided {
            None => self.disc_margin(rules.scoring()),
            Some(Outcome::Draw) => raw,
            Some(Outcome::Win(color)) => {
                let empties = self.empty().count() as i32;
                raw + if color == Color::Black {
                    empties
                } else {
                    -empties
                }
            }
        }
    }

    /// The result, once the game is over.
    pub fn outcome(&self, rules: &Rules) -> Option<Outcome> {
        if !self.over {
            return None;
        }
        if let Some(decided) = self.decided {
            return Some(decided);
        }
        // Compare twice the margin with the komi in half discs. Under wof scoring the margin
        // is first recorded as Othello records it (empties to the side with more discs), then
        // compared with the komi.
        let margin = 2 * self.score(rules) - i32::from(self.komi_halves);
        let black_ahead = match rules.spec().objective {
            Objective::Line {
                fallback: LineFallback::Draw,
                ..
            } => return Some(Outcome::Draw),
            Objective::MostDiscs | Objective::Line { .. } => margin,
            Objective::FewestDiscs => -margin,
        };
        Some(match black_ahead.signum() {
            1 => Outcome::Win(Color::Black),
            -1 => Outcome::Win(Color::White),
            _ => Outcome::Draw,
        })
    }

    fn record_turn_start(&mut self, rules: &Rules) {
        if rules.spec().sacrifice.is_some() {
            self.history.push(self.repetition_key());
        }
    }

    /// What the repetition rule compares: board, side to move and ko square.
    fn repetition_key(&self) -> RepetitionKey<W> {
        RepetitionKey {
            black: self.black,
            white: self.white,
            cross: self.cross,
            side_to_move: self.side_to_move,
            ko: self.ko,
        }
    }

    /// The state seen through a board symmetry: every disc set, the pending squares of a
    /// multi-step turn and the ko square move with the board.
    ///
    /// # Panics
    /// When the symmetry swaps rows and columns on a board that is not square.
    #[must_use]
    pub fn transformed(&self, symmetry: crate::Symmetry) -> Self {
        let geometry = self.tables.geometry;
        let map = |set: W| symmetry.apply_to_set(geometry, set);
        let mut image = self.clone();
        image.black = map(self.black);
        image.white = map(self.white);
        image.neutral = map(self.neutral);
        image.cross = map(self.cross);
        image.group_a = map(self.group_a);
        image.ko = self.ko.map(|square| symmetry.apply(geometry, square));
        image.history.clear();
        for original in &self.history.positions {
            image.history.push(RepetitionKey {
                black: map(original.black),
                white: map(original.white),
                cross: map(original.cross),
                ko: original.ko.map(|square| symmetry.apply(geometry, square)),
                ..*original
            });
        }
        image.phase = match self.phase {
            Phase::SwapSecond { swapped } => Phase::SwapSecond {
                swapped: map(swapped),
            },
            Phase::SwapNeutralise { swapped } => Phase::SwapNeutralise {
                swapped: map(swapped),
            },
            Phase::Orient { pending } => Phase::Orient {
                pending: map(pending),
            },
            other => other,
        };
        image
    }

    // ----- move generation -----

    /// The discs a line may run through when `color` places a disc: the other colour and the
    /// neutral discs.
    fn through(&self, color: Color) -> W {
        self.discs(color.opponent()) | self.neutral
    }

    /// Pivots per axis for a placement of `color` with the given placement option.
    fn pivots(&self, rules: &Rules, color: Color, option: u8) -> [W; 4] {
        let own = self.discs(color);
        if rules.spec().orientation.is_none() {
            return [own; 4];
        }
        // A `+` disc flanks along rows and columns with `+` pivots, an `x` disc along the
        // diagonals with `x` pivots.
        let plus = own & !self.cross;
        let cross = own & self.cross;
        match option {
            0 => [plus, W::EMPTY, plus, W::EMPTY],
            _ => [W::EMPTY, cross, W::EMPTY, cross],
        }
    }

    /// The colour a placement with `option` puts down, and whether the mover has that disc.
    fn placed_colour(&self, rules: &Rules, option: u8) -> Option<Color> {
        self.colour_placed_by(rules, self.side_to_move, option)
    }

    /// The colour `player`'s next placement with `option` would put down (option 0 where
    /// placements carry none), or `None` when they have no such disc left. Reversi II
    /// alternating is the only rule under which it is not simply `player`'s own colour.
    pub fn colour_placed_by(&self, rules: &Rules, player: Color, option: u8) -> Option<Color> {
        let supply = self.supply[index_of(player)];
        match rules.spec().supply {
            SupplySpec::Unlimited => Some(player),
            SupplySpec::PerPlayer(_) => (supply[0] > 0).then_some(player),
            SupplySpec::ColourDiscs { choice, .. } => {
                let has = |color: Color| supply[usize::from(color != player)] > 0;
                let color = match choice {
                    ColourChoice::Free => [Color::Black, Color::White][usize::from(option)],
                    ColourChoice::Alternating => {
                        let next = self.next_colour[index_of(player)];
                        if has(next) { next } else { next.opponent() }
                    }
                };
                has(color).then_some(color)
            }
        }
    }

    /// Legal placements (flanking moves), one set per placement option.
    fn placements(&self, rules: &Rules) -> [W; 2] {
        let mut sets = [W::EMPTY; 2];
        for option in 0..rules.placement_options() {
            let Some(color) = self.placed_colour(rules, option) else {
                continue;
            };
            sets[usize::from(option)] = self.tables.placements(
                self.pivots(rules, color, option),
                self.through(color),
                self.empty(),
            );
        }
        sets
    }

    /// Whether the classic opening is still placing centre discs, and which ply it is on.
    fn centre_ply(&self, rules: &Rules) -> Option<Ply4> {
        match rules.spec_start() {
            StartSpec::Placement { ply4 } if self.turns < 4 => Some(*ply4),
            _ => None,
        }
    }

    fn centre(&self) -> W {
        let geometry = self.tables.geometry;
        let (top, left) = (geometry.rows() / 2 - 1, geometry.cols() / 2 - 1);
        [(0, 0), (0, 1), (1, 0), (1, 1)]
            .into_iter()
            .fold(W::EMPTY, |set, (row, col)| {
                let square = geometry
                    .square_at(i32::from(top + row), i32::from(left + col))
                    .expect("the centre is on the board");
                set | W::square(square.index())
            })
    }

    /// The regular (disc-placing) decisions of a turn's first step, per option.
    fn regular_moves(&self, rules: &Rules) -> [W; 2] {
        let Some(ply4) = self.centre_ply(rules) else {
            let mut sets = self.placements(rules);
            if let Some(neutral) = rules.spec().neutral {
                // A drop needs a square left for the neutral after the disc is placed (and
                // the neutrals it flips have become discs a neutral may be dropped beside).
                let mover = self.side_to_move;
                sets[0] = sets[0]
                    .indices()
                    .filter(|&index| {
                        let flipped =
                            self.tables
                                .flips([self.discs(mover); 4], self.through(mover), index);
                        let placed = W::square(index);
                        !self
                            .neutral_squares_after(neutral.placement, placed, flipped)
                            .is_empty()
                    })
                    .fold(W::EMPTY, |set, index| set | W::square(index));
            }
            return sets;
        };
        if self.placed_colour(rules, 0).is_none() {
            return [W::EMPTY; 2];
        }
        let centre = self.centre() & self.empty();
        if self.turns < 3 {
            return [centre, W::EMPTY];
        }
        let flanking = self.placements(rules)[0] & !self.centre();
        match ply4 {
            Ply4::Centre => [centre, W::EMPTY],
            Ply4::May => [centre | flanking, W::EMPTY],
            Ply4::Must if flanking.is_empty() => [centre, W::EMPTY],
            Ply4::Must => [flanking, W::EMPTY],
        }
    }

    /// Squares where a neutral may be dropped once a disc is on `placed` and the neutrals in
    /// `flipped` have turned to its colour.
    fn neutral_squares_after(&self, placement: NeutralPlacement, placed: W, flipped: W) -> W {
        let empty = self.empty() & !placed;
        match placement {
            NeutralPlacement::Anywhere => empty,
            NeutralPlacement::Adjacent => {
                empty
                    & self
                        .tables
                        .dilate(self.black | self.white | placed | flipped)
            }
        }
    }

    /// Discs flipped by turning the neutral on `index` into the mover's colour.
    fn swap_flips(&self, index: u32) -> W {
        let mover = self.side_to_move;
        let through = self.through(mover) & !W::square(index);
        self.tables.flips([self.discs(mover); 4], through, index)
    }

    /// Neutral squares that a swap step may turn (each must flip something); for the first
    /// step, only those after which a second step exists.
    fn swap_squares(&self, first_step: bool) -> W {
        let mut squares = W::EMPTY;
        for index in self.neutral.indices() {
            let flipped = self.swap_flips(index);
            if flipped.is_empty() {
                continue;
            }
            if first_step {
                let after = self.apply_swap(index, flipped);
                if after.swap_squares(false).is_empty() {
                    continue;
                }
            }
            squares |= W::square(index);
        }
        squares
    }

    fn apply_swap(&self, index: u32, flipped: W) -> Self {
        let mut next = self.clone();
        let gained = flipped | W::square(index);
        next.set_discs(self.side_to_move, self.discs(self.side_to_move) | gained);
        let other = self.side_to_move.opponent();
        next.set_discs(other, self.discs(other) & !gained);
        next.neutral &= !gained;
        next
    }

    fn set_discs(&mut self, color: Color, discs: W) {
        match color {
            Color::Black => self.black = discs,
            Color::White => self.white = discs,
        }
    }

    /// Whether groups A and B of biversi touch.
    fn groups_touch(&self) -> bool {
        let occupied = self.black | self.white;
        let group_b = occupied & !self.group_a;
        !(self.tables.dilate(self.group_a & occupied) & group_b).is_empty()
    }

    /// Legal second placements of a biversi turn.
    fn second_placements(&self, rules: &Rules, first_in_group_a: bool) -> W {
        let placements = self.placements(rules)[0];
        if self.groups_touch() {
            return placements;
        }
        let occupied = self.black | self.white;
        let other_group = if first_in_group_a {
            occupied & !self.group_a
        } else {
            self.group_a
        };
        let mover = self.side_to_move;
        placements
            .indices()
            .filter(|&index| {
                let flipped = self
                    .tables
                    .flips([self.discs(mover); 4], self.through(mover), index);
                !(flipped & other_group).is_empty()
            })
            .fold(W::EMPTY, |set, index| set | W::square(index))
    }

    fn sacrifices(&self, rules: &Rules) -> W {
        if rules.spec().sacrifice.is_none() {
            return W::EMPTY;
        }
        let ko = self.ko.map_or(W::EMPTY, |square| W::square(square.index()));
        self.discs(self.side_to_move) & !ko
    }

    /// Every legal decision, in decision-index order.
    pub fn legal_decisions(&self, rules: &Rules) -> Vec<Decision> {
        let mut decisions = Vec::new();
        if self.over {
            return decisions;
        }
        let squares = |set: W, option: u8, decisions: &mut Vec<Decision>| {
            decisions.extend(set.indices().map(|index| Decision::Square {
                square: Square(index as u8),
                option,
            }));
        };
        match self.phase {
            Phase::Bid => {
                if let Komi::Bid { min, max } = rules.komi() {
                    decisions.extend((min..=max).map(Decision::Bid));
                }
            }
            Phase::TieBreak => {
                decisions.extend([false, true].map(|swapped| Decision::TieBreak { swapped }))
            }
            Phase::TurnStart => {
                let regular = self.regular_moves(rules);
                let extra = self.sacrifices(rules)
                    | if rules.spec().neutral.is_some() && self.neutral.count() >= 2 {
                        self.swap_squares(true)
                    } else {
                        W::EMPTY
                    };
                // Decision-index order: square by square, options within a square.
                let options = rules.placement_options();
                let all = regular[0] | regular[1] | extra;
                for index in all.indices() {
                    for option in 0..options {
                        let bit = W::square(index);
                        let is_regular = !(regular[usize::from(option)] & bit).is_empty();
                        if is_regular || (option == 0 && !(extra & bit).is_empty()) {
                            decisions.push(Decision::Square {
                                square: Square(index as u8),
                                option,
                            });
                        }
                    }
                }
                let may_pass = match rules.spec().pass {
                    PassRule::ForcedOnly => decisions.is_empty(),
                    PassRule::NoRegularMayPass => (regular[0] | regular[1]).is_empty(),
                    PassRule::AlwaysMayPass => true,
                };
                if may_pass {
                    decisions.push(Decision::Pass);
                }
            }
            Phase::NeutralDrop => {
                let placement = rules
                    .spec()
                    .neutral
                    .map(|n| n.placement)
                    .unwrap_or_default();
                squares(
                    self.neutral_squares_after(placement, W::EMPTY, W::EMPTY),
                    0,
                    &mut decisions,
                );
            }
            Phase::SwapSecond { .. } => squares(self.swap_squares(false), 0, &mut decisions),
            Phase::SwapNeutralise { swapped } => {
                squares(self.neutralisable(rules, swapped), 0, &mut decisions);
            }
            Phase::Orient { .. } => {
                decisions.extend(Orientation::ALL.map(Decision::Orient));
            }
            Phase::SecondPlacement { first_in_group_a } => squares(
                self.second_placements(rules, first_in_group_a),
                0,
                &mut decisions,
            ),
        }
        decisions
    }

    fn neutralisable(&self, rules: &Rules, swapped: W) -> W {
        let reading = rules
            .spec()
            .neutral
            .map(|n| n.swap_neutralises)
            .unwrap_or_default();
        match reading {
            SwapNeutralises::Own => self.discs(self.side_to_move) & !swapped,
            SwapNeutralises::Opponent => self.discs(self.side_to_move.opponent()),
        }
    }

    /// Whether `color`, at the start of a turn, has a decision other than passing.
    fn can_act(&self, rules: &Rules, color: Color) -> bool {
        let mut view = self.clone();
        view.side_to_move = color;
        view.phase = Phase::TurnStart;
        if color != self.side_to_move {
            // The other side would move after a pass, which lifts the ko.
            view.ko = None;
        }
        let regular = view.regular_moves(rules);
        !(regular[0] | regular[1]).is_empty()
            || !view.sacrifices(rules).is_empty()
            || (rules.spec().neutral.is_some()
                && view.neutral.count() >= 2
                && !view.swap_squares(true).is_empty())
    }

    /// Whether every legal decision ends the turn, so that perft can count them without
    /// playing them. Conservative: `false` where some might not.
    pub(crate) fn every_decision_ends_turn(&self, rules: &Rules) -> bool {
        match self.phase {
            // The second bid, when equal to the first, leads to the chance event.
            Phase::Bid => self.first_bid.is_none(),
            Phase::TieBreak
            | Phase::NeutralDrop
            | Phase::SwapNeutralise { .. }
            | Phase::SecondPlacement { .. } => true,
            Phase::Orient { pending } => pending.count() == 1,
            Phase::SwapSecond { .. } => false,
            Phase::TurnStart => {
                rules.spec().neutral.is_none()
                    && !rules.mover_orients_flips()
                    && !(rules.spec().protocol == Protocol::Progressive && self.turns > 0)
            }
        }
    }

    // ----- playing -----

    /// Plays a decision after checking that it is legal.
    ///
    /// ```
    /// use flipzero_core::{Bitboard, Color, Decision, Game, Preset};
    ///
    /// let rules = Preset::Othello.rules(None)?;
    /// let start = Game::<u64>::start(&rules);
    /// let f5 = Decision::square(start.geometry().parse_square("f5")?);
    /// let after = start.play(&rules, f5)?;
    /// assert_eq!(after.side_to_move(), Color::White);
    /// assert_eq!(after.discs(Color::Black).count(), 4);
    /// // An illegal decision is an error that says what is legal instead, not a panic.
    /// let error = after.play(&rules, f5).unwrap_err();
    /// assert!(error.to_string().starts_with("f5 is not legal here"), "{error}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the game is over or the decision is not among [`Game::legal_decisions`].
    pub fn play(&self, rules: &Rules, decision: Decision) -> Result<Self, DecisionError> {
        if self.over {
            return Err(DecisionError::GameOver);
        }
        let legal = self.legal_decisions(rules);
        if !legal.contains(&decision) {
            return Err(DecisionError::Illegal {
                decision: crate::variant::notation::decision_name(rules, self.geometry(), decision),
                why: crate::variant::notation::legal_summary(rules, self, &legal),
            });
        }
        Ok(self.play_unchecked(rules, decision))
    }

    /// The game after uniformly random decisions until `stop` holds for the game reached or
    /// the game ends: the random positions of tests, benches and fitting data.
    pub fn play_randomly_until(
        mut self,
        rules: &Rules,
        rng: &mut impl rand::Rng,
        mut stop: impl FnMut(&Self) -> bool,
    ) -> Self {
        while !self.is_over() && !stop(&self) {
            let legal = self.legal_decisions(rules);
            if legal.is_empty() {
                break;
            }
            self = self.play_unchecked(rules, legal[rng.random_range(0..legal.len())]);
        }
        self
    }

    /// The game after `count` uniformly random decisions (fewer when it ends first).
    pub fn play_randomly(self, rules: &Rules, rng: &mut impl rand::Rng, count: usize) -> Self {
        let mut played = 0;
        self.play_randomly_until(rules, rng, |_| {
            played += 1;
            played > count
        })
    }

    /// Plays a decision from [`Game::legal_decisions`] without checking it.
    pub fn play_unchecked(&self, rules: &Rules, decision: Decision) -> Self {
        let mut next = self.clone();
        let mover = self.side_to_move;
        match (self.phase, decision) {
            (Phase::Bid, Decision::Bid(bid)) => {
                match self.first_bid {
                    None => {
                        // Bids come before the game: they do not count as its turns.
                        next.first_bid = Some(bid);
                        next.side_to_move = mover.opponent();
                    }
                    Some(first) => {
                        // The higher bid plays White; the first bidder bid as the first player.
                        next.komi_halves = -(i16::from(first) + i16::from(bid));
                        next.first_bid = None;
                        next.side_to_move = rules.first_player();
                        if first == bid {
                            next.phase = Phase::TieBreak;
                        } else {
                            let first_bidder_is_white = rules.first_player() == Color::White;
                            next.seat_bidders(rules, (first > bid) != first_bidder_is_white);
                        }
                    }
                }
                return next;
            }
            (Phase::TieBreak, Decision::TieBreak { swapped }) => {
                next.seat_bidders(rules, swapped);
                return next;
            }
            (Phase::TurnStart, Decision::Pass) => {
                next.passes += 1;
                next.ko = None;
                next.end_turn(rules, true);
                return next;
            }
            (Phase::TurnStart, Decision::Square { square, option }) => {
                let bit = W::square(square.index());
                next.ko = None;
                if !(self.discs(mover) & bit).is_empty() {
                    // Sacrifice: the disc turns to the opponent's colour.
                    next.set_discs(mover, self.discs(mover) & !bit);
                    let other = mover.opponent();
                    next.set_discs(other, self.discs(other) | bit);
                    next.ko = Some(square);
                    next.check_line(rules, other);
                    if !next.over {
                        next.end_turn(rules, false);
                    }
                    return next;
                }
                if !(self.neutral & bit).is_empty() {
                    let flipped = self.swap_flips(square.index());
                    next = self.apply_swap(square.index(), flipped);
                    next.phase = Phase::SwapSecond { swapped: bit };
                    next.check_line(rules, mover);
                    return next;
                }
                let centre_fill =
                    self.centre_ply(rules).is_some() && !(self.centre() & bit).is_empty();
                next.place(rules, square, option, centre_fill);
                if next.over {
                    return next;
                }
                if rules.spec().neutral.is_some() {
                    next.phase = Phase::NeutralDrop;
                    return next;
                }
                if next.is_mid_turn() {
                    return next;
                }
                if rules.spec().protocol == Protocol::Progressive && self.turns > 0 {
                    let first_in_group_a = !(next.group_a & bit).is_empty();
                    next.phase = Phase::SecondPlacement { first_in_group_a };
                    if next.second_placements(rules, first_in_group_a).is_empty() {
                        // A placement with no legal square is skipped.
                        next.end_turn(rules, false);
                    }
                    return next;
                }
                next.end_turn(rules, false);
            }
            (Phase::SecondPlacement { .. }, Decision::Square { square, option }) => {
                next.place(rules, square, option, false);
                if !next.over {
                    next.end_turn(rules, false);
                }
            }
            (Phase::NeutralDrop, Decision::Square { square, .. }) => {
                next.neutral |= W::square(square.index());
                next.end_turn(rules, false);
            }
            (Phase::SwapSecond { swapped }, Decision::Square { square, .. }) => {
                let flipped = self.swap_flips(square.index());
                next = self.apply_swap(square.index(), flipped);
                next.phase = Phase::SwapNeutralise {
                    swapped: swapped | W::square(square.index()),
                };
                next.check_line(rules, mover);
                if next.over {
                    return next;
                }
                // Neither swapped square may turn neutral: the turn ends when no other does.
                if next
                    .neutralisable(rules, swapped | W::square(square.index()))
                    .is_empty()
                {
                    next.end_turn(rules, false);
                }
            }
            (Phase::SwapNeutralise { .. }, Decision::Square { square, .. }) => {
                let bit = W::square(square.index());
                next.black &= !bit;
                next.white &= !bit;
                next.cross &= !bit;
                next.neutral |= bit;
                next.end_turn(rules, false);
            }
            (Phase::Orient { pending }, Decision::Orient(orientation)) => {
                let disc = W::square(pending.lowest_index());
                match orientation {
                    Orientation::Plus => next.cross &= !disc,
                    Orientation::Cross => next.cross |= disc,
                }
                let pending = pending & !disc;
                if pending.is_empty() {
                    next.end_turn(rules, false);
                } else {
                    next.phase = Phase::Orient { pending };
                }
            }
            (phase, decision) => {
                panic!("decision {decision:?} does not belong to phase {phase:?}")
            }
        }
        next
    }

    /// Puts a disc down: flips, orientation, supplies, groups and the line check.
    fn place(&mut self, rules: &Rules, square: Square, option: u8, centre_fill: bool) {
        let mover = self.side_to_move;
        let color = self
            .placed_colour(rules, option)
            .expect("a legal placement has a disc to place");
        let bit = W::square(square.index());
        let flipped = if centre_fill {
            W::EMPTY
        } else {
            self.tables.flips(
                self.pivots(rules, color, option),
                self.through(color),
                square.index(),
            )
        };
        // A placement adds a disc for good, so no earlier position can come back.
        self.history.clear();
        let other = color.opponent();
        self.set_discs(color, self.discs(color) | bit | flipped);
        self.set_discs(other, self.discs(other) & !flipped);
        self.neutral &= !flipped;
        // Supplies.
        let supply = &mut self.supply[index_of(mover)];
        let slot = usize::from(color != mover);
        if supply[slot] != UNLIMITED {
            supply[slot] -= 1;
        }
        if let SupplySpec::ColourDiscs {
            choice: ColourChoice::Alternating,
            ..
        } = rules.spec().supply
        {
            self.next_colour[index_of(mover)] = color.opponent();
        }
        // Biversi groups: the placed disc joins the group of the discs it flips.
        if !(flipped & self.group_a).is_empty() {
            self.group_a |= bit;
        }
        // Orientation.
        if let Some(orientation) = rules.spec().orientation {
            if option == 1 {
                self.cross |= bit;
            } else {
                self.cross &= !bit;
            }
            match orientation.flipped {
                FlippedOrientation::Keep => {}
                FlippedOrientation::CopyPlaced => {
                    if option == 1 {
                        self.cross |= flipped;
                    } else {
                        self.cross &= !flipped;
                    }
                }
                FlippedOrientation::MoverChooses => {
                    if !flipped.is_empty() {
                        self.phase = Phase::Orient { pending: flipped };
                    }
                }
            }
        }
        self.check_line(rules, color);
    }

    /// Under a line objective, ends the game when `color` owns a whole line.
    fn check_line(&mut self, rules: &Rules, color: Color) {
        if matches!(rules.spec().objective, Objective::Line { .. })
            && self.tables.has_line(self.discs(color))
        {
            self.decided = Some(Outcome::Win(color));
            self.over = true;
        }
    }

    /// Hands the turn to the other side and checks for the end of the game.
    fn end_turn(&mut self, rules: &Rules, passed: bool) {
        if !passed {
            self.passes = 0;
        }
        self.phase = Phase::TurnStart;
        self.side_to_move = self.side_to_move.opponent();
        // Sacrifices can make a game longer than the counter holds; it only feeds the hash
        // (capped at 4) and the value searches' line limit.
        self.turns = self.turns.saturating_add(1);
        self.finish_turn_checks(rules);
    }

    /// The end of the bidding: the first bidder on the other colour where `swapped`, then
    /// the first player's first turn.
    fn seat_bidders(&mut self, rules: &Rules, swapped: bool) {
        self.seats_swapped = swapped;
        self.phase = Phase::TurnStart;
        self.side_to_move = rules.first_player();
        self.finish_turn_checks(rules);
    }

    fn finish_turn_checks(&mut self, rules: &Rules) {
        if self.over {
            return;
        }
        if self.passes >= 2 {
            self.over = true;
            return;
        }
        if rules.spec().sacrifice.is_some() {
            if self.empty().is_empty() {
                self.over = true;
                return;
            }
            let key = self.repetition_key();
            let seen = self.history.occurrences(key);
            self.history.push(key);
            let limit = rules.spec().sacrifice.map_or(3, |s| s.repetition_limit);
            if seen + 1 > usize::from(limit) {
                self.decided = Some(Outcome::Draw);
                self.over = true;
                return;
            }
        }
        if !self.can_act(rules, self.side_to_move)
            && !self.can_act(rules, self.side_to_move.opponent())
        {
            self.over = true;
        }
    }
}
