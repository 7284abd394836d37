//! The network input: planes of the board seen by the side to move, then constant planes
//! that carry the rules' global state (komi, each player's supplies of each colour, the colour
//! each places next, turn phase, a pending bid, how often the position has occurred).
//!
//! The layout is versioned by [`ENCODER_VERSION`]: shards, checkpoints and exported models
//! record it, and any change to the planes below must raise it.

use flipzero_core::variant::rules::{ColourChoice, Komi, SupplySpec};
use flipzero_core::{Bitboard, Color, Game, Phase, Rules, Symmetry};
use ndarray::{Array1, Array3, ArrayViewMut3};

/// Version of the plane layout below.
pub const ENCODER_VERSION: u32 = 4;

/// The planes, in order: name and meaning.
pub const PLANES: [(&str, &str); 26] = [
    ("own", "discs of the side to move"),
    ("opponent", "discs of the other side"),
    ("neutral", "neutral discs (neuversi)"),
    (
        "own-cross",
        "the side to move's discs oriented x (rotation)",
    ),
    (
        "opponent-cross",
        "the other side's discs oriented x (rotation)",
    ),
    ("group-a", "discs of biversi group A"),
    ("empty", "empty squares"),
    ("on-board", "1 on every square of the board"),
    ("ko", "the square the side to move may not sacrifice"),
    (
        "pending",
        "squares of the unfinished multi-step turn (swapped neutrals, discs to orient)",
    ),
    (
        "komi",
        "komi for the side to move, in discs / squares (constant)",
    ),
    (
        "own-supply",
        "discs of its own colour the side to move has left, / squares; 1 when unlimited (constant)",
    ),
    (
        "opponent-supply",
        "discs of its own colour the other side has left, / squares; 1 when unlimited (constant)",
    ),
    (
        "own-supply-other",
        "discs of the other colour the side to move has left, / squares (Reversi II; constant)",
    ),
    (
        "opponent-supply-other",
        "discs of the other colour the other side has left, / squares (Reversi II; constant)",
    ),
    (
        "own-places-other",
        "1 when the side to move's next disc is of the other colour (Reversi II; constant)",
    ),
    (
        "opponent-places-other",
        "1 when the other side's next disc is of the other colour (Reversi II; constant)",
    ),
    ("phase-bid", "1 while bidding (constant)"),
    (
        "phase-neutral-drop",
        "1 when a neutral is to be dropped (constant)",
    ),
    ("phase-swap", "1 during a neutral swap (constant)"),
    (
        "phase-orient",
        "1 while flipped discs are oriented (constant)",
    ),
    (
        "phase-second-placement",
        "1 before biversi's second placement (constant)",
    ),
    (
        "first-bid",
        "the first bid / squares once made, while bidding (constant)",
    ),
    ("passes", "consecutive passes so far / 2 (constant)"),
    (
        "first-in-group-a",
        "1 when biversi's first placement of the turn joined group A (constant)",
    ),
    (
        "repetitions",
        "earlier occurrences of this position at a turn start / the repetition limit \
         (sacrifice: the limit's next occurrence draws; constant)",
    ),
];

/// Encodes positions of one set of rules.
#[derive(Clone, Debug)]
pub struct Encoder {
    rules: Rules,
}

impl Encoder {
    /// An encoder for `rules`.
    pub fn new(rules: &Rules) -> Self {
        Self {
            rules: rules.clone(),
        }
    }

    /// Shape of one encoded position: (planes, rows, columns).
    pub fn shape(&self) -> (usize, usize, usize) {
        (
            PLANES.len(),
            usize::from(self.rules.rows()),
            usize::from(self.rules.cols()),
        )
    }

    /// The planes of a position.
    pub fn encode<W: Bitboard>(&self, game: &Game<W>) -> Array3<f32> {
        let mut planes = Array3::zeros(self.shape());
        self.encode_into(game, planes.view_mut());
        planes
    }

    /// Writes the planes of a position into `out` (one slot of a batch), which must have
    /// [`Encoder::shape`].
    ///
    /// # Panics
    /// When `out` has another shape.
    pub fn encode_into<W: Bitboard>(&self, game: &Game<W>, mut out: ArrayViewMut3<f32>) {
        assert_eq!(out.dim(), self.shape(), "encoder output shape");
        out.fill(0.0);
        let me = game.side_to_move();
        let (mine, theirs) = (game.discs(me), game.discs(me.opponent()));
        let cross = game.cross_discs();
        let pending = match game.phase() {
            Phase::SwapSecond { swapped } | Phase::SwapNeutralise { swapped } => swapped,
            Phase::Orient { pending } => pending,
            _ => W::EMPTY,
        };
        let ko = game
            .ko()
            .map_or(W::EMPTY, |square| W::square(square.index()));
        let sets = [
            mine,
            theirs,
            game.neutral(),
            mine & cross,
            theirs & cross,
            game.group_a() & (mine | theirs),
            game.empty(),
            game.geometry().board(),
            ko,
            pending,
        ];
        let cols = usize::from(self.rules.cols());
        for (plane, set) in sets.into_iter().enumerate() {
            let mut plane = out.index_axis_mut(ndarray::Axis(0), plane);
            for index in set.indices() {
                let index = index as usize;
                plane[(index / cols, index % cols)] = 1.0;
            }
        }
        let squares = self.rules.square_count() as f32;
        // [own colour, other colour] of a player's discs left; unlimited own discs read 1.
        let supply = |color: Color| match self.rules.spec().supply {
            SupplySpec::Unlimited => [1.0, 0.0],
            _ => game.supply(color).map(|left| f32::from(left) / squares),
        };
        // Free colour choice leaves the colour to the decision: both planes stay 0 there.
        let alternating = matches!(
            self.rules.spec().supply,
            SupplySpec::ColourDiscs {
                choice: ColourChoice::Alternating,
                ..
            }
        );
        let places_other = |color: Color| {
            let placed = game.colour_placed_by(&self.rules, color, 0);
            f32::from(u8::from(alternating && placed == Some(color.opponent())))
        };
        let (own_supply, opponent_supply) = (supply(me), supply(me.opponent()));
        let komi = match me {
            Color::Black => -game.komi(),
            Color::White => game.komi(),
        } as f32;
        let first_bid = match (self.rules.komi(), game.phase()) {
            (Komi::Bid { .. }, Phase::Bid) => {
                game.first_bid().map_or(0.0, |bid| f32::from(bid) / squares)
            }
            _ => 0.0,
        };
        let repetitions = self.rules.spec().sacrifice.map_or(0.0, |sacrifice| {
            game.earlier_occurrences() as f32 / f32::from(sacrifice.repetition_limit)
        });
        let phase = game.phase();
        let constants = [
            komi / squares,
            own_supply[0],
            opponent_supply[0],
            own_supply[1],
            opponent_supply[1],
            places_other(me),
            places_other(me.opponent()),
            f32::from(u8::from(phase == Phase::Bid)),
            f32::from(u8::from(phase == Phase::NeutralDrop)),
            f32::from(u8::from(matches!(
                phase,
                Phase::SwapSecond { .. } | Phase::SwapNeutralise { .. }
            ))),
            f32::from(u8::from(matches!(phase, Phase::Orient { .. }))),
            f32::from(u8::from(matches!(phase, Phase::SecondPlacement { .. }))),
            first_bid,
            f32::from(game.passes().min(2)) / 2.0,
            f32::from(u8::from(matches!(
                phase,
                Phase::SecondPlacement {
                    first_in_group_a: true
                }
            ))),
            repetitions,
        ];
        for (offset, value) in constants.into_iter().enumerate() {
            out.index_axis_mut(ndarray::Axis(0), sets.len() + offset)
                .fill(value);
        }
    }
}

/// 1 for every legal decision of the rules' decision set, else 0.
pub fn legal_mask<W: Bitboard>(rules: &Rules, game: &Game<W>) -> Array1<f32> {
    let mut mask = Array1::zeros(rules.decision_count());
    for decision in game.legal_decisions(rules) {
        mask[rules.decision_index(decision)] = 1.0;
    }
    mask
}

/// Where each decision index goes when the board is seen through `symmetry`: squares move,
/// every other decision stays. Apply it to a policy target together with
/// `Game::transformed(symmetry)` on the position; take the symmetry from
/// [`decision_preserving_symmetries`].
pub fn policy_permutation<W: Bitboard>(
    rules: &Rules,
    game: &Game<W>,
    symmetry: Symmetry,
) -> Vec<usize> {
    (0..rules.decision_count())
        .map(|index| {
            let decision = rules.decision_at(index).expect("index in range");
            rules.decision_index(decision.transformed(game.geometry(), symmetry))
        })
        .collect()
}

/// The board symmetries under which `game`'s decisions keep their meaning: all of the
/// board's, identity first, except while several flipped discs wait to be oriented (an
/// orient decision applies to the lowest pending square, which a symmetry may change), when
/// only the identity does.
pub fn decision_preserving_symmetries<W: Bitboard>(game: &Game<W>) -> Vec<Symmetry> {
    if matches!(game.phase(), Phase::Orient { pending } if pending.count() > 1) {
        vec![Symmetry::Identity]
    } else {
        Symmetry::of_board(game.geometry()).collect()
    }
}
