//! Decisions: the atomic steps every turn of every variant is made of (DESIGN.md, Variants).
//!
//! A turn is one or more decisions by the same player. What a square decision means depends on
//! the phase of the turn and on the square: on an empty square it places a disc, on one of the
//! mover's discs it is a sacrifice, on a neutral disc it starts a swap, and so on. Every
//! decision has a stable index in its rules' decision set ([`crate::Rules::decision_index`]),
//! which is what the network's policy head covers.

/// The orientation of a rotation disc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Orientation {
    /// `+`: flanks along rows and columns.
    Plus = 0,
    /// `x`: flanks along diagonals.
    Cross = 1,
}

impl Orientation {
    /// Both orientations, in index order.
    pub const ALL: [Orientation; 2] = [Orientation::Plus, Orientation::Cross];

    /// The symbol in move lists: `+` or `x`.
    pub fn symbol(self) -> char {
        match self {
            Orientation::Plus => '+',
            Orientation::Cross => 'x',
        }
    }
}

/// One decision of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decision {
    /// A square, with an option where a placement carries one: the orientation of a rotation
    /// disc (0 `+`, 1 `x`) or the colour of a Reversi II free disc (0 black, 1 white).
    Square {
        /// The square.
        square: crate::Square,
        /// The placement option, 0 where there is none.
        option: u8,
    },
    /// Pass.
    Pass,
    /// Orient the next flipped disc (rotation).
    Orient(Orientation),
    /// Bid the disc difference expected in White's favour (komi).
    Bid(i8),
    /// The chance event after equal komi bids: whether the first bidder takes the colour
    /// other than the one they bid as. No player chooses it: whoever runs the game draws it,
    /// each outcome with probability 1/2 ([`crate::Game::draw_chance`]).
    TieBreak {
        /// The first bidder plays the other colour.
        swapped: bool,
    },
}

impl Decision {
    /// A square decision without an option.
    pub fn square(square: crate::Square) -> Decision {
        Decision::Square { square, option: 0 }
    }

    /// The decision seen through a board symmetry: a square moves with the board, every
    /// other decision stays what it is.
    ///
    /// # Panics
    /// When the symmetry swaps rows and columns on a board that is not square.
    pub fn transformed<W: crate::Bitboard>(
        self,
        geometry: &crate::Geometry<W>,
        symmetry: crate::Symmetry,
    ) -> Decision {
        match self {
            Decision::Square { square, option } => Decision::Square {
                square: symmetry.apply(geometry, square),
                option,
            },
            other => other,
        }
    }
}
