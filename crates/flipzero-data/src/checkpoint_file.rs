//! The checkpoint container: a magic number and format version, then three sections, each
//! after its length (the metadata as JSON, the weights, the optimizer's state, empty when a
//! network was saved for play), then the CRC-32 of all that ([`crate::files::seal`]; version 1
//! files, written before 2026-12-02, have none). `flipzero-nn` fills the sections (burnpack
//! records, its typed metadata); this module owns the bytes around them, so that every file
//! flipzero writes is framed, sealed and refused in one place.

use std::path::Path;

use crate::files::{FileError, contents_of_version, seal, write_atomically};

/// The first bytes of every checkpoint.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"FLIPZCKP";
/// Version of the layout: 2 ends with a checksum.
pub const CHECKPOINT_VERSION: u32 = 2;
/// The layout before checksums, still read.
const UNSEALED_CHECKPOINT_VERSION: u32 = 1;

/// The sections of a checkpoint file, as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointSections {
    /// The metadata, JSON.
    pub meta_json: Vec<u8>,
    /// The network's weights.
    pub weights: Vec<u8>,
    /// The optimizer's state; empty when none was saved.
    pub optimizer: Vec<u8>,
}

/// Writes a checkpoint file atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_checkpoint_file(
    path: &Path,
    meta_json: &[u8],
    weights: &[u8],
    optimizer: &[u8],
) -> Result<(), FileError> {
    let mut contents = Vec::with_capacity(36 + meta_json.len() + weights.len() + optimizer.len());
    contents.extend_from_slice(CHECKPOINT_MAGIC);
    contents.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
    contents.extend_from_slice(&(meta_json.len() as u32).to_le_bytes());
    contents.extend_from_slice(meta_json);
    contents.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    contents.extend_from_slice(weights);
    contents.extend_from_slice(&(optimizer.len() as u64).to_le_bytes());
    contents.extend_from_slice(optimizer);
    seal(&mut contents);
    write_atomically(path, &contents).map_err(|error| FileError::io(path, error))
}

/// Splits `count` bytes off the front of `rest`, or says what was cut short.
fn take<'a>(rest: &mut &'a [u8], count: usize, what: &str) -> Result<&'a [u8], String> {
    if rest.len() < count {
        return Err(format!("truncated in the {what}"));
    }
    let (head, tail) = rest.split_at(count);
    *rest = tail;
    Ok(head)
}

/// A little-endian length of `N` bytes off the front of `rest`.
fn take_length<const N: usize>(rest: &mut &[u8], what: &str) -> Result<usize, String> {
    let bytes: [u8; N] = take(rest, N, what)?.try_into().expect("N bytes");
    let mut wide = [0u8; 8];
    wide[..N].copy_from_slice(&bytes);
    Ok(usize::try_from(u64::from_le_bytes(wide)).unwrap_or(usize::MAX))
}

/// Reads a checkpoint file's sections; every length is checked against what the file holds
/// before anything is taken from it.
///
/// # Errors
/// An unreadable file, a wrong magic number or version, a damaged or truncated file, or
/// bytes after the last section, each naming the file.
pub fn read_checkpoint_file(path: &Path) -> Result<CheckpointSections, FileError> {
    let file = std::fs::read(path).map_err(|error| FileError::io(path, error))?;
    split_sections(&file).map_err(|reason| FileError::invalid(path, reason))
}

fn split_sections(file: &[u8]) -> Result<CheckpointSections, String> {
    let mut rest = file;
    if take(&mut rest, 8, "magic number")? != CHECKPOINT_MAGIC {
        return Err("not a flipzero checkpoint (wrong magic number)".to_owned());
    }
    let version = take_length::<4>(&mut rest, "version")? as u32;
    let contents = contents_of_version(
        file,
        version,
        CHECKPOINT_VERSION,
        UNSEALED_CHECKPOINT_VERSION,
    )?;
    rest = contents.get(12..).unwrap_or_default();
    let meta_len = take_length::<4>(&mut rest, "metadata length")?;
    let meta_json = take(&mut rest, meta_len, "metadata")?.to_vec();
    let weights_len = take_length::<8>(&mut rest, "weights length")?;
    let weights = take(&mut rest, weights_len, "weights")?.to_vec();
    let optimizer_len = take_length::<8>(&mut rest, "optimizer length")?;
    let optimizer = take(&mut rest, optimizer_len, "optimizer state")?.to_vec();
    if !rest.is_empty() {
        return Err(format!(
            "{} unexpected bytes after the optimizer state",
            rest.len()
        ));
    }
    Ok(CheckpointSections {
        meta_json,
        weights,
        optimizer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_come_back_and_every_cut_is_named() {
        let directory = tempfile_dir();
        let path = directory.join("a.ckpt");
        write_checkpoint_file(&path, b"{\"step\":1}", b"weights", b"").unwrap();
        let sections = read_checkpoint_file(&path).unwrap();
        assert_eq!(sections.meta_json, b"{\"step\":1}");
        assert_eq!(sections.weights, b"weights");
        assert!(sections.optimizer.is_empty());
        let bytes = std::fs::read(&path).unwrap();
        // 8 magic + 4 version + 4 + 10 metadata + 8 + 7 weights + 8 optimizer + 4 checksum.
        assert_eq!(bytes.len(), 53);
        // Unsealed (version 1) bytes cut at each section: the reason names the section.
        let mut unsealed = bytes[..bytes.len() - 4].to_vec();
        unsealed[8..12].copy_from_slice(&1u32.to_le_bytes());
        for (cut, what) in [
            (10, "version"),
            (14, "metadata length"),
            (20, "metadata"),
            (30, "weights length"),
            (40, "weights"),
            (45, "optimizer length"),
        ] {
            let error = split_sections(&unsealed[..cut]).unwrap_err();
            assert!(
                error.contains(&format!("truncated in the {what}")),
                "cut {cut}: {error}"
            );
        }
        let mut longer = unsealed.clone();
        longer.extend_from_slice(b"xy");
        assert_eq!(
            split_sections(&longer).unwrap_err(),
            "2 unexpected bytes after the optimizer state"
        );
        std::fs::remove_dir_all(&directory).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let directory =
            std::env::temp_dir().join(format!("flipzero-checkpoint-file-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        directory
    }
}
