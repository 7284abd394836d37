//! The named presets of docs/RULES.md section 4.

use std::fmt;
use std::str::FromStr;

use super::spec::*;
use super::{Rules, RulesError};
use crate::color::Color;

/// A named variant. Each has a commented TOML file `configs/variants/<name>.toml` that reads
/// to the same spec (checked by a test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Standard Othello.
    Othello,
    /// Classic 1880s reversi: the first four discs fill the centre in any order, then 32
    /// discs each.
    ClassicReversi,
    /// Classic reversi where White's ply 4 may be a flanking move instead.
    ClassicReversiMay,
    /// Classic reversi where White's ply 4 must be a flanking move when one exists.
    ClassicReversiMust,
    /// Othello from the parallel start.
    Parallel,
    /// Othello with a komi bid phase.
    Komi,
    /// Othello with a fixed komi of -2.5 (White must win by 3).
    KomiFixed,
    /// Othello from 8 random plies.
    RandomOpening,
    /// Anti-Othello: fewer discs wins.
    Anti,
    /// Othello plus gomoku: a full row, column or main diagonal wins at once.
    Gomullo,
    /// Othello where turning one of your own discs over is also a move.
    Sacrifice,
    /// 15 discs of each colour per player, own colour and opponent's alternating.
    ReversiII,
    /// Reversi II with a free choice of colour each move.
    ReversiIIFree,
    /// `+` and `x` discs that flank only orthogonally or diagonally.
    Rotation,
    /// Two placements a turn on a 10x10 torus from two start patterns.
    Biversi,
    /// Neutral discs: a move drops a neutral, or a swap turns two neutrals.
    Neuversi,
    /// Neuversi with neutrals dropped next to a disc.
    Adneuversi,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 17] = [
        Preset::Othello,
        Preset::ClassicReversi,
        Preset::ClassicReversiMay,
        Preset::ClassicReversiMust,
        Preset::Parallel,
        Preset::Komi,
        Preset::KomiFixed,
        Preset::RandomOpening,
        Preset::Anti,
        Preset::Gomullo,
        Preset::Sacrifice,
        Preset::ReversiII,
        Preset::ReversiIIFree,
        Preset::Rotation,
        Preset::Biversi,
        Preset::Neuversi,
        Preset::Adneuversi,
    ];

    /// The stable name, as on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Othello => "othello",
            Preset::ClassicReversi => "classic-reversi",
            Preset::ClassicReversiMay => "classic-reversi-may",
            Preset::ClassicReversiMust => "classic-reversi-must",
            Preset::Parallel => "parallel",
            Preset::Komi => "komi",
            Preset::KomiFixed => "komi-fixed",
            Preset::RandomOpening => "random-opening",
            Preset::Anti => "anti",
            Preset::Gomullo => "gomullo",
            Preset::Sacrifice => "sacrifice",
            Preset::ReversiII => "reversi-ii",
            Preset::ReversiIIFree => "reversi-ii-free",
            Preset::Rotation => "rotation",
            Preset::Biversi => "biversi",
            Preset::Neuversi => "neuversi",
            Preset::Adneuversi => "adneuversi",
        }
    }

    /// One line for `flipzero variants`.
    pub fn description(self) -> &'static str {
        match self {
            Preset::Othello => {
                "standard Othello: centred cross start, forced passes, most discs wins"
            }
            Preset::ClassicReversi => {
                "1880s reversi: the first four discs fill the centre in any order, 32 discs each"
            }
            Preset::ClassicReversiMay => {
                "classic reversi where White's ply 4 may be a flanking move instead"
            }
            Preset::ClassicReversiMust => {
                "classic reversi where White's ply 4 must be a flanking move when one exists"
            }
            Preset::Parallel => "Othello from the parallel start (d4, d5 black; e4, e5 white)",
            Preset::Komi => "Othello with a bid phase: the higher bid plays White, komi -(b1+b2)/2",
            Preset::KomiFixed => "Othello with a fixed komi of -2.5: White must win by 3 or more",
            Preset::RandomOpening => "Othello from 8 uniformly random plies (ballot openings)",
            Preset::Anti => "anti-Othello: fewer discs wins, a player with no discs left wins",
            Preset::Gomullo => {
                "Othello plus gomoku: owning a full row, column or main diagonal wins at once"
            }
            Preset::Sacrifice => {
                "Othello plus turning one of your own discs over, with ko and repetition draws"
            }
            Preset::ReversiII => {
                "15 own-colour and 15 opponent-colour discs each, placed alternately"
            }
            Preset::ReversiIIFree => "Reversi II with a free choice of disc colour on each move",
            Preset::Rotation => {
                "+ discs flank orthogonally, x discs diagonally; the mover orients flipped discs"
            }
            Preset::Biversi => {
                "10x10 torus, two start patterns, two placements a turn (White first)"
            }
            Preset::Neuversi => "each move drops a neutral disc anywhere, or swaps two neutrals",
            Preset::Adneuversi => "neuversi with neutrals dropped next to a black or white disc",
        }
    }

    /// The board side of the preset when none is given.
    pub fn default_side(self) -> u8 {
        match self {
            Preset::Biversi => 10,
            _ => 8,
        }
    }

    /// The spec of the preset on a `side` x `side` board (the default side when `None`).
    pub fn spec(self, side: Option<u8>) -> RulesSpec {
        let side = side.unwrap_or(self.default_side());
        let squares = u16::from(side) * u16::from(side);
        let mut spec = RulesSpec {
            board: BoardSpec {
                rows: side,
                cols: side,
                topology: Topology::Plane,
            },
            ..RulesSpec::default()
        };
        let classic = |ply4| RulesSpec {
            start: StartSpec::Placement { ply4 },
            supply: SupplySpec::PerPlayer(squares / 2),
            scoring: ScoringSpec::Raw,
            ..spec.clone()
        };
        let reversi_ii = |choice| RulesSpec {
            supply: SupplySpec::ColourDiscs {
                own: squares.saturating_sub(4) / 4,
                opponent: squares.saturating_sub(4) / 4,
                choice,
            },
            ..spec.clone()
        };
        let neuversi = |placement| RulesSpec {
            neutral: Some(NeutralSpec {
                placement,
                swap_neutralises: SwapNeutralises::Own,
            }),
            ..spec.clone()
        };
        match self {
            Preset::Othello => {}
            Preset::ClassicReversi => spec = classic(Ply4::Centre),
            Preset::ClassicReversiMay => spec = classic(Ply4::May),
            Preset::ClassicReversiMust => spec = classic(Ply4::Must),
            Preset::Parallel => spec.start = StartSpec::Parallel,
            Preset::Komi => spec.komi = KomiSpec::Bid { min: -8, max: 8 },
            Preset::KomiFixed => spec.komi = KomiSpec::Fixed(-2.5),
            Preset::RandomOpening => spec.start = StartSpec::RandomPlies(8),
            Preset::Anti => {
                spec.objective = Objective::FewestDiscs;
                spec.scoring = ScoringSpec::Raw;
            }
            Preset::Gomullo => {
                spec.objective = Objective::Line {
                    length: side,
                    fallback: LineFallback::DiscCount,
                }
            }
            Preset::Sacrifice => {
                spec.sacrifice = Some(SacrificeSpec::default());
                spec.pass = PassRule::NoRegularMayPass;
            }
            Preset::ReversiII => spec = reversi_ii(ColourChoice::Alternating),
            Preset::ReversiIIFree => spec = reversi_ii(ColourChoice::Free),
            Preset::Rotation => spec.orientation = Some(OrientationSpec::default()),
            Preset::Biversi => {
                spec.board.topology = Topology::Torus;
                spec.start = StartSpec::TwoPatterns;
                spec.protocol = Protocol::Progressive;
                spec.first_player = Color::White;
            }
            Preset::Neuversi => spec = neuversi(NeutralPlacement::Anywhere),
            Preset::Adneuversi => spec = neuversi(NeutralPlacement::Adjacent),
        }
        spec
    }

    /// The validated rules of the preset.
    ///
    /// ```
    /// use flipzero_core::{Game, Preset};
    ///
    /// let komi = Preset::Komi.rules(None)?;
    /// let start = Game::<u64>::start(&komi);
    /// // The game opens with Black's bid, a whole number of discs from -8 to +8.
    /// assert_eq!(start.legal_decisions(&komi).len(), 17);
    /// // An odd side has no centred start.
    /// assert!(Preset::Othello.rules(Some(7)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the side does not suit the preset (an odd side with a centred start, say).
    pub fn rules(self, side: Option<u8>) -> Result<Rules, RulesError> {
        Rules::try_from(self.spec(side))
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = RulesError;

    fn from_str(name: &str) -> Result<Self, RulesError> {
        Preset::ALL
            .into_iter()
            .find(|preset| preset.name() == name)
            .ok_or_else(|| RulesError::UnknownPreset(name.to_owned()))
    }
}
