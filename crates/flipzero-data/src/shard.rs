//! Shard files: the training samples of some finished games. A shard starts with a magic
//! number and a format version, then a header that names the rules (as TOML) and the encoder
//! version, then the samples, all in bincode 2, and ends with the CRC-32 of all that
//! (`crate::files::seal`; version 1 shards, written before 2026-12-02, have none).
//! Shards are written to a temporary name, flushed and renamed into place, so a reader never
//! sees half a shard; a truncated or corrupt shard is refused with the reason, never a panic.

use std::path::Path;

use crate::files::FileError;
use flipzero_core::RulesSpec;
use serde::{Deserialize, Serialize};

/// The first bytes of every shard.
pub const SHARD_MAGIC: &[u8; 8] = b"FLIPZSHD";
/// Version of the layout: 2 ends with a checksum.
pub const SHARD_VERSION: u32 = 2;
/// The layout before checksums, still read.
const UNSEALED_SHARD_VERSION: u32 = 1;

/// One training position with its targets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The position in the one-line text format of its rules (`Game::to_text`).
    pub position: String,
    /// The policy target: (decision index, probability) for the decisions the search visited.
    pub policy: Vec<(u16, f32)>,
    /// The game's result for the player to move: 1 win, 0 draw, -1 loss.
    pub outcome: i8,
    /// The final margin for the player to move, in discs, signed by the objective.
    pub score: f32,
    /// Whether the value targets come from the exact solver rather than the game's end.
    pub solved: bool,
}

/// What a shard says about its samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// The rules (on disk, their TOML text).
    #[serde(with = "flipzero_core::variant::rules::toml_text")]
    pub rules: RulesSpec,
    /// The input encoder version the samples are meant for.
    pub encoder_version: u32,
    /// Finished games in the shard.
    pub games: u32,
    /// Who wrote it (worker and job ids), for the record.
    pub writer: String,
}

fn invalid(path: &Path, reason: impl Into<String>) -> FileError {
    FileError::invalid(path, reason)
}

/// Writes a shard atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_shard(path: &Path, header: &ShardHeader, samples: &[Sample]) -> Result<(), FileError> {
    let config = bincode::config::standard();
    let mut contents = SHARD_MAGIC.to_vec();
    contents.extend_from_slice(&SHARD_VERSION.to_le_bytes());
    let body = bincode::serde::encode_to_vec((header, samples), config)
        .map_err(|error| invalid(path, format!("encoding: {error}")))?;
    contents.extend_from_slice(&body);
    crate::files::seal(&mut contents);
    crate::files::write_atomically(path, &contents).map_err(|source| FileError::io(path, source))
}

/// The largest shard read: an iteration of 8x8 self-play writes a few megabytes.
const MAX_SHARD_BYTES: usize = 256 << 20;
// The largest decoding limit below is eight times the largest shard.
const _: () = assert!(MAX_SHARD_BYTES * 8 <= 1 << 31);

/// A shard body decoded, with the bytes it took. bincode checks every string length the body
/// claims against a fixed limit before allocating for it (and serde preallocates sequences
/// cautiously); the limit is chosen from the body's own size (the decoded samples take at
/// most a few times their encoded bytes), so that a damaged length allocates little more
/// than the file, never a gigabyte.
fn decode_body(
    body: &[u8],
) -> Result<((ShardHeader, Vec<Sample>), usize), bincode::error::DecodeError> {
    fn with_limit<const LIMIT: usize>(
        body: &[u8],
    ) -> Result<((ShardHeader, Vec<Sample>), usize), bincode::error::DecodeError> {
        bincode::serde::decode_from_slice(body, bincode::config::standard().with_limit::<LIMIT>())
    }
    match body.len().saturating_mul(8) {
        bound if bound <= 1 << 20 => with_limit::<{ 1 << 20 }>(body),
        bound if bound <= 1 << 24 => with_limit::<{ 1 << 24 }>(body),
        bound if bound <= 1 << 28 => with_limit::<{ 1 << 28 }>(body),
        bound if bound <= 1 << 29 => with_limit::<{ 1 << 29 }>(body),
        bound if bound <= 1 << 30 => with_limit::<{ 1 << 30 }>(body),
        _ => with_limit::<{ 1 << 31 }>(body),
    }
}

/// Reads a shard.
///
/// # Errors
/// An unreadable file, a wrong magic number or version, or a truncated or corrupt body.
pub fn read_shard(path: &Path) -> Result<(ShardHeader, Vec<Sample>), FileError> {
    let size = std::fs::metadata(path)
        .map_err(|source| FileError::io(path, source))?
        .len();
    if size > MAX_SHARD_BYTES as u64 {
        return Err(invalid(
            path,
            format!(
                "{size} bytes: larger than any shard flipzero writes (at most {MAX_SHARD_BYTES})"
            ),
        ));
    }
    let contents = std::fs::read(path).map_err(|source| FileError::io(path, source))?;
    if contents.len() < 12 {
        return Err(invalid(path, "truncated before the header"));
    }
    if &contents[..8] != SHARD_MAGIC {
        return Err(invalid(path, "not a flipzero shard (wrong magic number)"));
    }
    let version = u32::from_le_bytes(contents[8..12].try_into().expect("4 bytes"));
    let contents = crate::files::contents_of_version(
        &contents,
        version,
        SHARD_VERSION,
        UNSEALED_SHARD_VERSION,
    )
    .map_err(|reason| invalid(path, reason))?;
    let body = contents.get(12..).unwrap_or_default();
    let ((header, samples), read) =
        decode_body(body).map_err(|error| invalid(path, format!("damaged body: {error}")))?;
    if read != body.len() {
        return Err(invalid(
            path,
            format!("{} unexpected bytes after the samples", body.len() - read),
        ));
    }
    if samples
        .iter()
        .any(|sample| !(-1..=1).contains(&sample.outcome))
    {
        return Err(invalid(path, "a sample's outcome is not -1, 0 or 1"));
    }
    let bad_numbers = |sample: &Sample| {
        !sample.score.is_finite()
            || sample
                .policy
                .iter()
                .any(|&(_, share)| !(0.0..=1.0).contains(&share))
    };
    if let Some(index) = samples.iter().position(bad_numbers) {
        return Err(invalid(
            path,
            format!(
                "sample {index} has a score that is not finite or a policy share outside 0..=1"
            ),
        ));
    }
    Ok((header, samples))
}

/// A replay window: the samples of the newest shards, the shards they came from, and the
/// shards that could not be read (skipped, with the reason).
#[derive(Debug, Default)]
pub struct ReplayWindow {
    /// The samples, newest shard first.
    pub samples: Vec<Sample>,
    /// The shards read.
    pub used: Vec<std::path::PathBuf>,
    /// Damaged or unreadable shards passed over, with why.
    pub unreadable: Vec<(std::path::PathBuf, String)>,
}

/// The samples of the newest shards in `directory` (by file name, which writers make
/// increase: `shard-<number>-...`), newest first, until `max_samples` are gathered. Temporary
/// files of unfinished writes are ignored; a shard that cannot be read is passed over and
/// listed, so that one damaged file does not stop training. Every shard read must have the
/// rules and encoder version of `expected`.
///
/// # Errors
/// An unreadable directory or shard file, or a shard of other rules or another encoder
/// version (named in the error): a run mixed up with another, not a damaged file.
pub fn replay_window(
    directory: &Path,
    max_samples: usize,
    expected: &ShardHeader,
) -> Result<ReplayWindow, FileError> {
    let io = |source| FileError::io(directory, source);
    let mut shards: Vec<std::path::PathBuf> = std::fs::read_dir(directory)
        .map_err(io)?
        .map(|entry| entry.map(|entry| entry.path()).map_err(io))
        .collect::<Result<_, _>>()?;
    shards.retain(|path| {
        path.extension()
            .is_some_and(|extension| extension == SHARD_EXTENSION)
    });
    shards.sort();
    let mut window = ReplayWindow::default();
    for path in shards.into_iter().rev() {
        if window.samples.len() >= max_samples {
            break;
        }
        let (header, mut shard) = match read_shard(&path) {
            Ok(read) => read,
            // Damaged (or not a shard of this format): passed over. A file the system will
            // not read now may read later, so that error stops the window instead.
            Err(error @ FileError::Invalid { .. }) => {
                window.unreadable.push((path, error.to_string()));
                continue;
            }
            Err(error) => return Err(error),
        };
        if let Err(mismatch) = expected.rules.check_file_rules(&header.rules) {
            return Err(invalid(&path, mismatch.to_string()));
        }
        if header.encoder_version != expected.encoder_version {
            return Err(invalid(
                &path,
                format!(
                    "written for encoder version {}, not {}",
                    header.encoder_version, expected.encoder_version
                ),
            ));
        }
        shard.truncate(max_samples - window.samples.len());
        window.samples.extend(shard);
        window.used.push(path);
    }
    Ok(window)
}

/// The extension of finished shard files.
pub const SHARD_EXTENSION: &str = "shard";
