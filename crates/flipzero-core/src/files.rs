//! Writing files so that a reader never sees half of one.

use std::io::Write;
use std::path::Path;

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
