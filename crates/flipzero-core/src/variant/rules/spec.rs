//! `RulesSpec`: the serde form of the rules, one field per axis of docs/RULES.md section 3.
//!
//! Every field has a default (standard 8x8 Othello), so a TOML file names only what differs.
//! Unknown fields are rejected. A spec is checked and turned into [`crate::Rules`] by
//! `Rules::try_from(spec)`.

use serde::{Deserialize, Serialize};

use crate::color::Color;

/// The rules as written in a config file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RulesSpec {
    /// Board shape and topology.
    #[serde(default)]
    pub board: BoardSpec,
    /// The position the game starts from.
    #[serde(default)]
    pub start: StartSpec,
    /// Who moves first (in the bid phase: who bids first).
    #[serde(default)]
    pub first_player: Color,
    /// How many placements a turn has.
    #[serde(default)]
    pub protocol: Protocol,
    /// Discs each player may place.
    #[serde(default)]
    pub supply: SupplySpec,
    /// Turning one of one's own discs to the opponent's colour as a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sacrifice: Option<SacrificeSpec>,
    /// Neutral discs (neuversi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neutral: Option<NeutralSpec>,
    /// `+` and `x` discs that flank only orthogonally or only diagonally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<OrientationSpec>,
    /// When passing is allowed.
    #[serde(default)]
    pub pass: PassRule,
    /// How the game is won.
    #[serde(default)]
    pub objective: Objective,
    /// Komi: a handicap on the final disc difference, fixed or bid for.
    #[serde(default)]
    pub komi: KomiSpec,
    /// How the final margin is counted.
    #[serde(default)]
    pub scoring: ScoringSpec,
}

/// Board shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BoardSpec {
    /// Rows, 4 to 16.
    #[serde(default = "eight")]
    pub rows: u8,
    /// Columns, 4 to 16.
    #[serde(default = "eight")]
    pub cols: u8,
    /// `plane` (lines end at the edge) or `torus` (lines wrap).
    #[serde(default)]
    pub topology: Topology,
}

fn eight() -> u8 {
    8
}

impl Default for BoardSpec {
    fn default() -> Self {
        Self {
            rows: 8,
            cols: 8,
            topology: Topology::Plane,
        }
    }
}

/// Whether lines stop at the edge or wrap around.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    /// Lines end at the board's edge.
    #[default]
    Plane,
    /// Every line wraps, stopping before it returns to its own square.
    Torus,
}

/// The position a game starts from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum StartSpec {
    /// Othello: the four centre squares, the top-left one white.
    #[default]
    Cross,
    /// Black on the left centre column, White on the right (d4, d5 black; e4, e5 white).
    Parallel,
    /// Empty board; the first four plies place discs on the centre squares.
    Placement {
        /// Whether White's second disc (ply 4) fills the centre, or may or must be an
        /// ordinary move instead.
        #[serde(default)]
        ply4: Ply4,
    },
    /// Biversi: a crossed pattern at the centre-left and a parallel one antipodal to it.
    TwoPatterns,
    /// Any position, in the one-line text format of the variant.
    Diagram(String),
    /// The cross start followed by this many uniformly random legal turns (each turn's
    /// decisions drawn one by one).
    RandomPlies(u8),
    /// The cross start followed by one of these move lists, drawn at random.
    OpeningList(Vec<String>),
}

/// Classic reversi's ply 4 (docs/RULES.md section 4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ply4 {
    /// White fills the last centre square, as every other opening ply does (the sources'
    /// rule: all four first discs go on the four centre squares).
    #[default]
    Centre,
    /// White fills the last centre square or, if it likes, plays an ordinary flanking move.
    May,
    /// White must play an ordinary flanking move when one exists.
    Must,
}

/// How many placements a turn has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// One placement per turn.
    #[default]
    Single,
    /// Biversi: one placement on the first turn, two on every later turn.
    Progressive,
}

/// Discs each player may place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum SupplySpec {
    /// No limit.
    #[default]
    Unlimited,
    /// Each player has this many discs, the start discs included.
    PerPlayer(u16),
    /// Reversi II: each player has discs of their own colour and of the opponent's.
    ColourDiscs {
        /// Discs of the player's own colour.
        own: u16,
        /// Discs of the opponent's colour.
        opponent: u16,
        /// Which colour a player may place.
        #[serde(default)]
        choice: ColourChoice,
    },
}

/// Which colour a Reversi II player places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColourChoice {
    /// Own colour first, then alternating; a pass does not advance the cycle.
    #[default]
    Alternating,
    /// Any colour with discs left.
    Free,
}

/// The sacrifice move (docs/RULES.md section 4.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SacrificeSpec {
    /// The game is drawn when a (board, side to move, ko square) occurs more than this often.
    #[serde(default = "three")]
    pub repetition_limit: u8,
}

fn three() -> u8 {
    3
}

impl Default for SacrificeSpec {
    fn default() -> Self {
        Self {
            repetition_limit: 3,
        }
    }
}

/// Neutral discs (docs/RULES.md section 4.12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct NeutralSpec {
    /// Where a dropped neutral may go.
    #[serde(default)]
    pub placement: NeutralPlacement,
    /// Whose disc the last step of a swap turns neutral.
    #[serde(default)]
    pub swap_neutralises: SwapNeutralises,
}

/// Where a dropped neutral disc may go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NeutralPlacement {
    /// Any empty square (neuversi).
    #[default]
    Anywhere,
    /// An empty square 8-adjacent to a black or white disc (adneuversi).
    Adjacent,
}

/// Whose disc the last step of a neuversi swap turns neutral.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwapNeutralises {
    /// One of the mover's own discs (every primary source).
    #[default]
    Own,
    /// One of the opponent's discs (the seed's reading).
    Opponent,
}

/// Oriented discs (docs/RULES.md section 4.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OrientationSpec {
    /// How flipped discs are oriented.
    #[serde(default)]
    pub flipped: FlippedOrientation,
}

/// How the discs a rotation move flips are oriented.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlippedOrientation {
    /// The mover orients each flipped disc, one decision per disc in square order.
    #[default]
    MoverChooses,
    /// Flipped discs keep their orientation.
    Keep,
    /// Flipped discs take the placed disc's orientation.
    CopyPlaced,
}

/// When a player may pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PassRule {
    /// Only with no other decision.
    #[default]
    ForcedOnly,
    /// With no regular (flanking) move, even if another kind of move exists.
    NoRegularMayPass,
    /// Always.
    AlwaysMayPass,
}

/// How the game is won.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum Objective {
    /// More discs wins.
    #[default]
    MostDiscs,
    /// Fewer discs wins; a player with no discs left wins.
    FewestDiscs,
    /// The first player to own `length` consecutive squares of a row, column or diagonal wins.
    Line {
        /// Squares in the line.
        length: u8,
        /// The result when the game ends with no line.
        #[serde(default)]
        fallback: LineFallback,
    },
}

/// Result of a line game that ends with no line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineFallback {
    /// More discs wins.
    #[default]
    DiscCount,
    /// A draw.
    Draw,
}

/// Komi.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub enum KomiSpec {
    /// No komi.
    #[default]
    None,
    /// A fixed komi K, a multiple of 0.5: Black wins when black - white > K.
    Fixed(f64),
    /// A bid phase: each player bids the disc difference they expect in White's favour, a
    /// whole number between `min` and `max`; the higher bid plays White, and
    /// K = -(b1 + b2) / 2. Under wof scoring the final difference is recorded as Othello
    /// records it (empties to the side with more discs) before it is compared with K.
    Bid {
        /// Lowest bid.
        min: i8,
        /// Highest bid.
        max: i8,
    },
}

/// How the final margin is counted (docs/RULES.md section 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoringSpec {
    /// Empty squares go to the winner.
    #[default]
    Wof,
    /// Discs on the board only.
    Raw,
}
