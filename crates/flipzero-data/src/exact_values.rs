//! The exact-value cache file (`exact-values.json` in a run directory, or wherever
//! `flipzero evaluate`/`accuracy` are pointed): solved positions by their text, so that each
//! is solved once. JSON: the rules as their TOML text, then the final Black margin of each
//! position under perfect play, and for positions whose every decision was scored, the
//! mover's final margin after each. The solving is `flipzero_arena::ExactCache`'s.

use std::collections::BTreeMap;
use std::path::Path;

use flipzero_core::RulesSpec;
use serde::{Deserialize, Serialize};

use crate::files::{FileError, write_atomically};

/// A decision (its index in the rules' decision space) and the final margin it leads to for
/// the player who makes it, objective-signed, under perfect play afterwards.
pub type DecisionMargin = (u16, i32);

/// What the file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactValuesFile {
    /// The rules of every position in it.
    #[serde(
        rename = "rules_toml",
        with = "flipzero_core::variant::rules::toml_text"
    )]
    pub rules: RulesSpec,
    /// Black's final margin under perfect play, by position text.
    pub black_margins: BTreeMap<String, i32>,
    /// Every decision's margin for the mover, by position text.
    #[serde(default)]
    pub decision_margins: BTreeMap<String, Vec<DecisionMargin>>,
}

impl ExactValuesFile {
    /// An empty cache of `rules`.
    pub fn empty(rules: &RulesSpec) -> Self {
        Self {
            rules: rules.clone(),
            black_margins: BTreeMap::new(),
            decision_margins: BTreeMap::new(),
        }
    }

    /// The cache in `path` (empty when there is no file yet).
    ///
    /// # Errors
    /// An unreadable file, one that is not a cache, or one of other rules.
    pub fn open(path: &Path, rules: &RulesSpec) -> Result<Self, FileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::empty(rules)),
            Err(e) => return Err(FileError::io(path, e)),
        };
        let file: Self = serde_json::from_str(&text)
            .map_err(|e| FileError::invalid(path, format!("not an exact-value cache: {e}")))?;
        rules
            .check_file_rules(&file.rules)
            .map_err(|mismatch| FileError::invalid(path, format!("exact values {mismatch}")))?;
        Ok(file)
    }

    /// Writes the cache to `path` atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let text = serde_json::to_string(self).expect("exact values serialise");
        write_atomically(path, text.as_bytes()).map_err(|e| FileError::io(path, e))
    }
}
