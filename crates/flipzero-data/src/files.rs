//! Data files (shards, checkpoints): written so that a reader never sees half of one, sealed
//! with a checksum so that damage after writing is refused, and the error that names the
//! file when one cannot be written or read. Line files (metrics, journals, saved games) are
//! appended to a line at a time, and read back without the line a killed writer cut short.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A data file that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not this kind of file, a newer format, or a damaged one.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl FileError {
    /// The file system refused `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// `path` holds something it should not.
    pub fn invalid(path: &Path, reason: impl Into<String>) -> Self {
        Self::Invalid {
            path: path.display().to_string(),
            reason: reason.into(),
        }
    }
}

/// Writes `contents` to a temporary file beside `path` (named after it and this process),
/// flushes it to disk, and renames it into place; on failure the temporary file is removed.
///
/// # Errors
/// When the file cannot be created, written, flushed or renamed.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp.{}", std::process::id()));
    let temporary = Path::new(&temporary);
    let written = std::fs::File::create(temporary)
        .and_then(|mut file| {
            file.write_all(contents)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(temporary);
    }
    written
}

/// Bytes of the checksum at the end of a sealed file.
pub const CHECKSUM_BYTES: usize = 4;

/// Appends the CRC-32 of `contents` (little-endian) to it: a file's last four bytes. A disk,
/// a copy or a transfer that changes any byte afterwards, or cuts the file short, is then
/// caught by [`unseal`] instead of being read as other data.
pub fn seal(contents: &mut Vec<u8>) {
    let checksum = crc32fast::hash(contents);
    contents.extend_from_slice(&checksum.to_le_bytes());
}

/// The contents of a file sealed by [`seal`], without its checksum.
///
/// # Errors
/// A file too short to hold a checksum, or one whose checksum does not match its contents.
pub fn unseal(sealed: &[u8]) -> Result<&[u8], String> {
    let Some(split) = sealed.len().checked_sub(CHECKSUM_BYTES) else {
        return Err("truncated: too short to hold its checksum".to_owned());
    };
    let (contents, stored) = sealed.split_at(split);
    let stored = u32::from_le_bytes(stored.try_into().expect("four bytes"));
    let computed = crc32fast::hash(contents);
    if stored != computed {
        return Err(format!(
            "damaged: its CRC-32 is {computed:08x} and the file says {stored:08x} (cut short \
             or changed after it was written)"
        ));
    }
    Ok(contents)
}

/// The contents of a file of format `version`, without its checksum: files of the `sealed`
/// version end with one ([`seal`], checked here), files of the `unsealed` one (written before
/// checksums) have none.
///
/// # Errors
/// Another version, or a sealed file whose checksum does not match.
pub fn contents_of_version(
    file: &[u8],
    version: u32,
    sealed: u32,
    unsealed: u32,
) -> Result<&[u8], String> {
    if version == sealed {
        unseal(file)
    } else if version == unsealed {
        Ok(file)
    } else {
        Err(format!(
            "format version {version}; this build reads versions {unsealed} and {sealed}"
        ))
    }
}

/// Appends `lines` (each ending in a newline) to a line file in one write, making the file
/// when it is missing; with `sync`, flushed to the disk before it returns. A writer killed
/// mid-line left no line end: the new lines then start on a line of their own, so that only
/// the cut line is lost. One write keeps concurrent writers' lines whole.
///
/// # Errors
/// When the file cannot be opened, read or written.
pub fn append_lines(path: &Path, lines: &str, sync: bool) -> Result<(), FileError> {
    let io = |error| FileError::io(path, error);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    let length = file.metadata().map_err(io)?.len();
    let mut last = [b'\n'];
    if length > 0 {
        file.seek(SeekFrom::Start(length - 1))
            .and_then(|_| file.read_exact(&mut last))
            .map_err(io)?;
    }
    let text = if last[0] == b'\n' {
        lines.to_owned()
    } else {
        format!("\n{lines}")
    };
    file.write_all(text.as_bytes()).map_err(io)?;
    if sync {
        file.sync_data().map_err(io)?;
    }
    Ok(())
}

/// The complete lines of a line file's text: all of it up to its last line end (a last line
/// without one was cut short by a killed writer).
pub fn complete_lines(text: &str) -> &str {
    text.rfind('\n').map_or("", |end| &text[..=end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_lines_start_on_a_line_of_their_own_after_a_cut_line() {
        let folder = std::env::temp_dir().join(format!("flipzero-lines-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("lines.jsonl");
        append_lines(&path, "one\n", false).unwrap();
        append_lines(&path, "two\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
        // A writer killed mid-line.
        std::fs::write(&path, "one\ntw").unwrap();
        append_lines(&path, "three\n", false).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "one\ntw\nthree\n");
        assert_eq!(complete_lines("one\ntw"), "one\n");
        assert_eq!(complete_lines("cut"), "");
        assert_eq!(complete_lines(&text), text);
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn the_file_appears_whole_and_nothing_else_is_left() {
        let directory = std::env::temp_dir().join(format!("flipzero-files-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("data.bin");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 1);
        let missing = directory.join("no-such-folder").join("data.bin");
        assert!(write_atomically(&missing, b"x").is_err());
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_sealed_file_unseals_and_any_change_or_cut_is_refused() {
        let mut sealed = b"some contents".to_vec();
        seal(&mut sealed);
        assert_eq!(sealed.len(), 13 + CHECKSUM_BYTES);
        // The CRC-32 (IEEE) of the ASCII digits 1 to 9 is 0xcbf43926: the standard check value.
        let mut digits = b"123456789".to_vec();
        seal(&mut digits);
        assert_eq!(&digits[9..], &0xcbf4_3926_u32.to_le_bytes());
        assert_eq!(unseal(&sealed).unwrap(), b"some contents");
        for at in 0..sealed.len() {
            for bit in 0..8 {
                let mut changed = sealed.clone();
                changed[at] ^= 1 << bit;
                assert!(
                    unseal(&changed).unwrap_err().contains("damaged"),
                    "byte {at}"
                );
            }
        }
        for length in 0..sealed.len() {
            assert!(unseal(&sealed[..length]).is_err(), "length {length}");
        }
    }
}
