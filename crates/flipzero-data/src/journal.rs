//! Journal files: one JSON record per line, each appended (and flushed) as soon as it is
//! made, after a first line that names the rules of every record below it. A job of hours
//! (a match against a slow engine, a ladder) that is interrupted reads its journal back and
//! goes on from there; a last line cut short by the interruption is dropped, and a journal of
//! other rules is refused. Journals written before the rules line was added (2026-12-07) are
//! read as they are.
//!
//! What a record holds is the caller's (`flipzero_arena`'s games); this module owns the
//! lines around them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use flipzero_core::RulesSpec;
use serde::{Deserialize, Serialize};

use crate::files::{FileError, append_lines, complete_lines, write_atomically};

/// The first line: the rules of every record below it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesLine {
    #[serde(with = "flipzero_core::variant::rules::toml_text")]
    rules: RulesSpec,
}

/// A record line read back: its line number (from 1) and its text.
pub type RecordLine = (usize, String);

/// A journal open for appending.
pub struct JournalFile {
    path: PathBuf,
    /// Held while a record is appended, so that records made at once wait their turn.
    writing: Mutex<()>,
}

impl JournalFile {
    /// Opens (or creates) the journal at `path` for records made under `rules`, and gives
    /// the record lines already in it. `what` names the records in the error of a journal of
    /// other rules ("games").
    ///
    /// # Errors
    /// A file that cannot be read, created or written; a journal of other rules.
    pub fn open(
        path: &Path,
        rules: &RulesSpec,
        what: &str,
    ) -> Result<(JournalFile, Vec<RecordLine>), FileError> {
        let io = |error| FileError::io(path, error);
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        // A line without its newline was being written when the job stopped.
        let complete = complete_lines(&text);
        let mut records = Vec::new();
        for (index, line) in complete.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if index == 0
                && let Ok(header) = serde_json::from_str::<RulesLine>(line)
            {
                rules.check_file_rules(&header.rules).map_err(|mismatch| {
                    FileError::invalid(
                        path,
                        format!(
                            "a journal of {what} {mismatch} (use another file, or remove it \
                             to start again)"
                        ),
                    )
                })?;
                continue;
            }
            records.push((index + 1, line.to_owned()));
        }
        // Drop the cut line so that new records start on a line of their own, and start a
        // new journal with its rules (atomically: a second interruption here loses nothing).
        if complete.is_empty() {
            let mut first = serde_json::to_string(&RulesLine {
                rules: rules.clone(),
            })
            .expect("rules serialise");
            first.push('\n');
            write_atomically(path, first.as_bytes()).map_err(io)?;
        } else if complete.len() < text.len() {
            write_atomically(path, complete.as_bytes()).map_err(io)?;
        }
        // Opened for appending now, so that a journal that cannot be written is refused
        // before any record is made.
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io)?;
        let file = JournalFile {
            path: path.to_owned(),
            writing: Mutex::new(()),
        };
        Ok((file, records))
    }

    /// Appends one record as a line, flushed to the file before it returns.
    ///
    /// # Errors
    /// The record cannot be serialised or the file cannot be written.
    pub fn append<T: Serialize>(&self, record: &T) -> Result<(), FileError> {
        let mut text = serde_json::to_string(record)
            .map_err(|e| FileError::invalid(&self.path, e.to_string()))?;
        text.push('\n');
        let _turn = self
            .writing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        append_lines(&self.path, &text, true)
    }

    /// Removes the journal once what it was kept for is safely written elsewhere.
    ///
    /// # Errors
    /// The file cannot be removed.
    pub fn remove(self) -> Result<(), FileError> {
        std::fs::remove_file(&self.path).map_err(|e| FileError::io(&self.path, e))
    }
}
