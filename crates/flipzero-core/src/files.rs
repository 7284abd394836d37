//! Data files (shards, checkpoints): written so that a reader never sees half of one, and
//! the error that names the file when one cannot be written or read.

use std::io::Write;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
