//! The rules of every variant: the serde [`RulesSpec`], its validated form [`Rules`], and the
//! named presets of docs/RULES.md section 4.

mod preset;
mod spec;

use std::path::Path;

pub use preset::Preset;
pub use spec::{
    BoardSpec, ColourChoice, FlippedOrientation, KomiSpec, LineFallback, NeutralPlacement,
    NeutralSpec, Objective, OrientationSpec, PassRule, Ply4, Protocol, RulesSpec, SacrificeSpec,
    ScoringSpec, StartSpec, SupplySpec, SwapNeutralises, Topology,
};

use crate::U256;
use crate::color::{Color, Scoring};
use crate::geometry::{MAX_SIDE, MIN_SIDE};
use crate::variant::decision::Decision;

/// A rules spec that cannot be played, with the field at fault and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// A field's value, or its combination with another field, is not allowed.
    #[error("{field}: {reason}")]
    Invalid {
        /// The field, as written in TOML (`board.rows`, `objective.line.length`).
        field: &'static str,
        /// Why the value is refused.
        reason: String,
    },
    /// The TOML text does not parse into a spec.
    #[error("rules file {source_name}: {message}")]
    Toml {
        /// The file (or `<text>`).
        source_name: String,
        /// The parser's message, with the line and field.
        message: String,
    },
    /// A preset name that does not exist.
    #[error("unknown variant `{0}`; `flipzero variants` lists them")]
    UnknownPreset(String),
}

fn invalid(field: &'static str, reason: impl Into<String>) -> RulesError {
    RulesError::Invalid {
        field,
        reason: reason.into(),
    }
}

/// Komi in half discs, so that every value of docs/RULES.md is an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Komi {
    /// No komi.
    None,
    /// A fixed komi of `halves / 2` discs.
    Fixed {
        /// Twice the komi.
        halves: i16,
    },
    /// Komi set by a bid phase with bids from `min` to `max`.
    Bid {
        /// Lowest bid.
        min: i8,
        /// Highest bid.
        max: i8,
    },
}

/// Validated rules: every axis checked alone and in combination. Build with
/// `Rules::try_from(spec)`, [`Rules::from_toml`] or [`Preset::rules`].
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    spec: RulesSpec,
    komi: Komi,
    scoring: Scoring,
    placement_options: u8,
}

impl TryFrom<RulesSpec> for Rules {
    type Error = RulesError;

    fn try_from(spec: RulesSpec) -> Result<Self, RulesError> {
        let board = spec.board;
        for (field, side) in [("board.rows", board.rows), ("board.cols", board.cols)] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
                return Err(invalid(
                    field,
                    format!("{side} is outside {MIN_SIDE}..={MAX_SIDE}"),
                ));
            }
        }
        let even = board.rows.is_multiple_of(2) && board.cols.is_multiple_of(2);
        let size = format!("{}x{}", board.rows, board.cols);
        match &spec.start {
            StartSpec::Cross
            | StartSpec::Parallel
            | StartSpec::Placement { .. }
            | StartSpec::RandomPlies(_)
            | StartSpec::OpeningList(_)
                if !even =>
            {
                return Err(invalid(
                    "start",
                    format!("a centred start needs an even number of rows and columns, not {size}"),
                ));
            }
            StartSpec::TwoPatterns if !even || board.rows < 6 || board.cols < 6 => {
                return Err(invalid(
                    "start",
                    format!(
                        "two-patterns needs even sides of at least 6 so the patterns stay apart, not {size}"
                    ),
                ));
            }
            StartSpec::RandomPlies(plies) if *plies == 0 || *plies > 30 => {
                return Err(invalid(
                    "start.random-plies",
                    format!("{plies} plies; use 1 to 30"),
                ));
            }
            StartSpec::OpeningList(list) if list.is_empty() => {
                return Err(invalid("start.opening-list", "the list is empty"));
            }
            _ => {}
        }
        if let StartSpec::Placement { .. } = spec.start
            && spec.protocol == Protocol::Progressive
        {
            return Err(invalid(
                "protocol",
                "progressive turns need discs on the board at the start, not a placement start",
            ));
        }
        if spec.protocol == Protocol::Progressive
            && (spec.neutral.is_some() || spec.orientation.is_some() || spec.sacrifice.is_some())
        {
            return Err(invalid(
                "protocol",
                "progressive turns combine only with plain placements (no neutral, orientation or sacrifice moves)",
            ));
        }
        if spec.sacrifice.is_some() && spec.neutral.is_some() {
            return Err(invalid(
                "neutral",
                "neutral swaps and sacrifices are both extra moves; choose one",
            ));
        }
        if spec.neutral.is_some() && spec.orientation.is_some() {
            return Err(invalid(
                "orientation",
                "neutral discs have no orientation; neutral and orientation cannot combine",
            ));
        }
        let placement_options = match spec.supply {
            SupplySpec::Unlimited => 1,
            SupplySpec::PerPlayer(discs) => {
                let needed = start_discs_per_player(&spec.start);
                if discs < needed.max(1) {
                    return Err(invalid(
                        "supply.per-player",
                        format!(
                            "{discs} discs cannot work: each player needs {} for the start",
                            needed.max(1)
                        ),
                    ));
                }
                1
            }
            SupplySpec::ColourDiscs {
                own,
                opponent: _,
                choice,
            } => {
                if own == 0 {
                    return Err(invalid(
                        "supply.colour-discs.own",
                        "a player needs at least one disc of their own colour",
                    ));
                }
                if spec.neutral.is_some() || spec.orientation.is_some() {
                    return Err(invalid(
                        "supply.colour-discs",
                        "colour discs cannot combine with neutral or oriented discs",
                    ));
                }
                if matches!(spec.start, StartSpec::Placement { .. }) {
                    return Err(invalid(
                        "supply.colour-discs",
                        "colour discs need the discs of the start on the board",
                    ));
                }
                if spec.protocol == Protocol::Progressive {
                    return Err(invalid(
                        "supply.colour-discs",
                        "colour discs cannot combine with progressive turns",
                    ));
                }
                match choice {
                    ColourChoice::Alternating => 1,
                    ColourChoice::Free => 2,
                }
            }
        };
        let placement_options = if spec.orientation.is_some() {
            2
        } else {
            placement_options
        };
        if let Some(sacrifice) = spec.sacrifice
            && sacrifice.repetition_limit == 0
        {
            return Err(invalid(
                "sacrifice.repetition-limit",
                "0 would end every game at once; use 1 or more",
            ));
        }
        if let Objective::Line { length, .. } = spec.objective {
            let longest = board.rows.max(board.cols);
            if length < 3 || length > longest {
                return Err(invalid(
                    "objective.line.length",
                    format!("{length} does not fit: use 3 to {longest} on a {size} board"),
                ));
            }
        }
        let squares = i32::from(board.rows) * i32::from(board.cols);
        let komi = match spec.komi {
            KomiSpec::None => Komi::None,
            KomiSpec::Fixed(value) => {
                let halves = value * 2.0;
                if !halves.is_finite()
                    || halves.fract() != 0.0
                    || halves.abs() > 2.0 * f64::from(squares)
                {
                    return Err(invalid(
                        "komi.fixed",
                        format!(
                            "{value} must be a multiple of 0.5 no larger than the board's {squares} squares"
                        ),
                    ));
                }
                Komi::Fixed {
                    halves: halves as i16,
                }
            }
            KomiSpec::Bid { min, max } => {
                let beyond_board = |bid: i8| i32::from(bid).abs() > squares;
                if min > max
                    || i32::from(max) - i32::from(min) > 64
                    || beyond_board(min)
                    || beyond_board(max)
                {
                    return Err(invalid(
                        "komi.bid",
                        format!(
                            "bids {min}..={max}: min must not exceed max, at most 65 bids, none beyond the board's {squares} squares"
                        ),
                    ));
                }
                Komi::Bid { min, max }
            }
        };
        if matches!(komi, Komi::Bid { .. })
            && matches!(
                spec.start,
                StartSpec::RandomPlies(_) | StartSpec::OpeningList(_)
            )
        {
            return Err(invalid(
                "komi.bid",
                "a bid phase cannot combine with a random opening (the bids come first)",
            ));
        }
        if komi != Komi::None && matches!(spec.objective, Objective::Line { .. }) {
            return Err(invalid(
                "komi",
                "komi adjusts a disc count; a line objective has none",
            ));
        }
        let scoring = match spec.scoring {
            ScoringSpec::Wof => Scoring::WinnerTakesEmpties,
            ScoringSpec::Raw => Scoring::Raw,
        };
        let rules = Rules {
            spec,
            komi,
            scoring,
            placement_options,
        };
        rules.check_start_position()?;
        Ok(rules)
    }
}

impl RulesSpec {
    /// The spec as TOML text, as rules files write it.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a rules spec always serialises")
    }

    /// Checks that the rules a file names (`found`) are these: the one comparison of every
    /// file that names its rules (shards, checkpoints, journals, caches).
    ///
    /// # Errors
    /// Other rules, naming the fields that differ.
    pub fn check_file_rules(&self, found: &RulesSpec) -> Result<(), RulesMismatch> {
        if self == found {
            return Ok(());
        }
        let table = |spec: &RulesSpec| {
            toml::Table::try_from(spec).expect("a rules spec always serialises to a table")
        };
        let mut fields = Vec::new();
        differing_fields("", &table(self), &table(found), &mut fields);
        if fields.is_empty() {
            // Equal text, unequal values: nothing narrower to name.
            fields.push("the whole spec".to_owned());
        }
        Err(RulesMismatch { fields })
    }
}

/// A file written for other rules than the ones asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("written for other rules (they differ in {})", self.differences())]
pub struct RulesMismatch {
    /// The fields that differ, as TOML names them (`board.rows`, `pass`); a field left at
    /// its default on one side counts.
    pub fields: Vec<String>,
}

impl RulesMismatch {
    /// The fields that differ, as a list for a message.
    pub fn differences(&self) -> String {
        self.fields.join(", ")
    }
}

/// Appends to `out` the dotted names of the keys whose values differ between two tables,
/// going into tables both sides hold.
fn differing_fields(prefix: &str, asked: &toml::Table, found: &toml::Table, out: &mut Vec<String>) {
    let keys: std::collections::BTreeSet<&String> = asked.keys().chain(found.keys()).collect();
    for key in keys {
        let name = format!("{prefix}{key}");
        match (asked.get(key), found.get(key)) {
            (Some(toml::Value::Table(a)), Some(toml::Value::Table(f))) => {
                differing_fields(&format!("{name}."), a, f, out);
            }
            (a, f) if a != f => out.push(name),
            _ => {}
        }
    }
}

/// The typed rules header of every flipzero file that names its rules (shards, checkpoints,
/// caches): a [`RulesSpec`] in memory, compared with `==`, and kept on disk as the TOML text
/// [`RulesSpec::to_toml`] writes. Use as `#[serde(with = "flipzero_core::variant::rules::toml_text")]`.
pub mod toml_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::{RulesSpec, spec_from_toml};

    /// Writes the spec as its TOML text.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(spec: &RulesSpec, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(&spec.to_toml())
    }

    /// Reads a spec from TOML text, refusing text that is not one.
    ///
    /// # Errors
    /// Text that is not a string or not a rules spec, with the parser's reason.
    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<RulesSpec, D::Error> {
        let text = String::deserialize(input)?;
        spec_from_toml(&text, "the rules header").map_err(serde::de::Error::custom)
    }

    /// [`deserialize`] for self-describing formats (JSON) that also reads the spec written
    /// as a table of its fields, as checkpoints were before 2026-12-08.
    ///
    /// # Errors
    /// Neither TOML text of a spec nor a table of one, with the parser's reason.
    pub fn deserialize_text_or_table<'de, D: Deserializer<'de>>(
        input: D,
    ) -> Result<RulesSpec, D::Error> {
        input.deserialize_any(TextOrTable)
    }

    struct TextOrTable;

    impl<'de> serde::de::Visitor<'de> for TextOrTable {
        type Value = RulesSpec;

        fn expecting(&self, out: &mut std::fmt::Formatter) -> std::fmt::Result {
            out.write_str("the rules as TOML text, or as a table of their fields")
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<RulesSpec, E> {
            spec_from_toml(text, "the rules header").map_err(E::custom)
        }

        fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<RulesSpec, M::Error> {
            RulesSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
}

fn spec_from_toml(text: &str, source_name: &str) -> Result<RulesSpec, RulesError> {
    toml::from_str(text).map_err(|error| RulesError::Toml {
        source_name: source_name.to_owned(),
        message: error.to_string(),
    })
}

/// Discs of each colour that a start puts on the board.
fn start_discs_per_player(start: &StartSpec) -> u16 {
    match start {
        StartSpec::Placement { .. } => 0,
        StartSpec::TwoPatterns => 4,
        _ => 2,
    }
}

impl Rules {
    /// Reads rules from TOML text; fields left out take Othello's values.
    ///
    /// ```
    /// use flipzero_core::{Game, Rules};
    ///
    /// // 6x6 Othello with White given 2.5 discs.
    /// let text = "komi = { fixed = -2.5 }\n[board]\nrows = 6\ncols = 6\n";
    /// let rules = Rules::from_toml(text, "komi-6x6.toml")?;
    /// assert_eq!(rules.square_count(), 36);
    /// assert_eq!(Game::<u64>::start(&rules).komi(), -2.5);
    /// // A bad value is refused with the field's name.
    /// let error = Rules::from_toml("[board]\nrows = 3\ncols = 6\n", "small.toml").unwrap_err();
    /// assert!(error.to_string().contains("board"), "{error}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A parse error naming the line and field, or a validation error.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Self, RulesError> {
        Rules::try_from(spec_from_toml(text, source_name)?)
    }

    /// Reads a preset by name (with an optional board side) or a TOML file by path. A side
    /// given with a path changes only the file's board; size-dependent values in the file
    /// (a line length, supplies) stay as written.
    ///
    /// ```
    /// use flipzero_core::Rules;
    ///
    /// // A preset by name, on the board side it allows.
    /// let anti = Rules::load("anti", Some(6))?;
    /// assert_eq!(anti.square_count(), 36);
    /// // A rules file by path: a side given with it changes only the board.
    /// let folder = std::env::temp_dir().join(format!("flipzero-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&folder)?;
    /// let path = folder.join("komi.toml");
    /// std::fs::write(&path, "komi = { fixed = -2.5 }\n")?;
    /// let komi = Rules::load(path.to_str().unwrap(), Some(4))?;
    /// assert_eq!(komi.square_count(), 16);
    /// // An unknown name is refused, naming it.
    /// let error = Rules::load("otello", None).unwrap_err();
    /// assert!(error.to_string().contains("otello"), "{error}");
    /// std::fs::remove_dir_all(&folder)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// An unknown name, an unreadable file, or invalid rules.
    pub fn load(name_or_path: &str, side: Option<u8>) -> Result<Self, RulesError> {
        let is_path = name_or_path.ends_with(".toml") || name_or_path.contains('/');
        if !is_path {
            let preset: Preset = name_or_path.parse()?;
            return preset.rules(side);
        }
        let text =
            std::fs::read_to_string(Path::new(name_or_path)).map_err(|error| RulesError::Toml {
                source_name: name_or_path.to_owned(),
                message: error.to_string(),
            })?;
        let mut spec = spec_from_toml(&text, name_or_path)?;
        if let Some(side) = side {
            spec.board.rows = side;
            spec.board.cols = side;
        }
        Rules::try_from(spec)
    }

    /// The spec these rules were built from (for shard headers and checkpoints).
    pub fn spec(&self) -> &RulesSpec {
        &self.spec
    }

    /// The spec as TOML text.
    pub fn to_toml(&self) -> String {
        self.spec.to_toml()
    }

    /// Rows of the board.
    pub fn rows(&self) -> u8 {
        self.spec.board.rows
    }

    /// Columns of the board.
    pub fn cols(&self) -> u8 {
        self.spec.board.cols
    }

    /// Squares of the board.
    pub fn square_count(&self) -> u32 {
        u32::from(self.rows()) * u32::from(self.cols())
    }

    /// Whether lines wrap around the edges.
    pub fn is_torus(&self) -> bool {
        self.spec.board.topology == Topology::Torus
    }

    /// The komi rule, in half discs.
    pub fn komi(&self) -> Komi {
        self.komi
    }

    /// How the final margin is counted.
    pub fn scoring(&self) -> Scoring {
        self.scoring
    }

    /// Who moves (or bids) first.
    pub fn first_player(&self) -> Color {
        self.spec.first_player
    }

    /// Placement decisions per square: 2 when a placement also picks an orientation or a
    /// colour, else 1.
    pub fn placement_options(&self) -> u8 {
        self.placement_options
    }

    /// Number of decisions in the decision set; indices run from 0 to this, exclusive.
    ///
    /// Layout: every square times [`Rules::placement_options`], then pass, then the two
    /// orientations (when flipped discs are oriented by the mover), then the bids.
    pub fn decision_count(&self) -> usize {
        let squares = self.square_count() as usize * usize::from(self.placement_options);
        let orientations = if self.mover_orients_flips() { 2 } else { 0 };
        let bids = match self.komi {
            Komi::Bid { min, max } => {
                usize::try_from(i16::from(max) - i16::from(min) + 1).expect("validated: min <= max")
            }
            _ => 0,
        };
        squares + 1 + orientations + bids
    }

    /// Whether the mover orients each flipped disc with a decision of its own (rotation).
    pub fn mover_orients_flips(&self) -> bool {
        self.spec
            .orientation
            .is_some_and(|orientation| orientation.flipped == FlippedOrientation::MoverChooses)
    }

    /// The index of a decision in the decision set.
    ///
    /// # Panics
    /// When the decision does not exist under these rules (a programmer error).
    pub fn decision_index(&self, decision: Decision) -> usize {
        let options = usize::from(self.placement_options);
        let squares = self.square_count() as usize * options;
        match decision {
            Decision::Square { square, option } => {
                assert!(
                    option < self.placement_options,
                    "option {option} out of range"
                );
                usize::from(square.0) * options + usize::from(option)
            }
            Decision::Pass => squares,
            Decision::Orient(orientation) => {
                assert!(
                    self.mover_orients_flips(),
                    "these rules have no orient decisions"
                );
                squares + 1 + orientation as usize
            }
            Decision::Bid(bid) => match self.komi {
                Komi::Bid { min, max } if (min..=max).contains(&bid) => {
                    let orientations = if self.mover_orients_flips() { 2 } else { 0 };
                    squares + 1 + orientations + (i16::from(bid) - i16::from(min)) as usize
                }
                _ => panic!("bid {bid} is not in these rules' bid range"),
            },
            Decision::TieBreak { .. } => {
                panic!("a chance outcome is no player's decision: the policy has no index for it")
            }
        }
    }

    /// The decision at an index, or `None` past the end of the set.
    pub fn decision_at(&self, index: usize) -> Option<Decision> {
        let options = usize::from(self.placement_options);
        let squares = self.square_count() as usize * options;
        let orientations = if self.mover_orients_flips() { 2 } else { 0 };
        if index < squares {
            return Some(Decision::Square {
                square: crate::Square((index / options) as u8),
                option: (index % options) as u8,
            });
        }
        match index - squares {
            0 => Some(Decision::Pass),
            offset if offset <= orientations => Some(Decision::Orient(
                crate::variant::decision::Orientation::ALL[offset - 1],
            )),
            offset => match self.komi {
                Komi::Bid { min, max } => {
                    let bid = i64::from(min) + (offset - 1 - orientations) as i64;
                    (bid <= i64::from(max)).then_some(Decision::Bid(bid as i8))
                }
                _ => None,
            },
        }
    }

    /// Checks that the start can be built: diagrams parse, opening lists replay.
    fn check_start_position(&self) -> Result<(), RulesError> {
        match &self.spec.start {
            StartSpec::Diagram(text) => crate::variant::game::Game::<U256>::from_text(self, text)
                .map(drop)
                .map_err(|error| invalid("start.diagram", error.to_string())),
            StartSpec::OpeningList(list) => {
                for (index, line) in list.iter().enumerate() {
                    let start = crate::variant::game::Game::<U256>::cross_start(self);
                    crate::variant::notation::replay(self, &start, line).map_err(|error| {
                        invalid(
                            "start.opening-list",
                            format!("opening {} (`{line}`): {error}", index + 1),
                        )
                    })?;
                }
                Ok(())
            }
            _ => {
                // Building the start also checks supplies against the start's discs.
                crate::variant::game::Game::<U256>::try_start(self, 0)
                    .map(drop)
                    .map_err(|error| invalid("start", error.to_string()))
            }
        }
    }

    pub(crate) fn spec_start(&self) -> &StartSpec {
        &self.spec.start
    }
}
