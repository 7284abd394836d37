//! The static page of `flipzero export --format web`: it plays the exported ONNX network with
//! onnxruntime-web, in the browser, with no server (`export/README.md`).

use std::path::{Path, PathBuf};

/// The page's files: name in the export directory, contents.
const FILES: [(&str, &str); 5] = [
    ("index.html", include_str!("../export/index.html")),
    ("play.js", include_str!("../export/play.js")),
    ("package.json", include_str!("../export/package.json")),
    (
        "package-lock.json",
        include_str!("../export/package-lock.json"),
    ),
    ("README.md", include_str!("../export/README.md")),
];

/// Writes the page into `out` beside the exported model, each file to a temporary name first.
///
/// # Errors
/// A file that cannot be written.
pub fn write(out: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)?;
    FILES
        .iter()
        .map(|(name, contents)| {
            let path = out.join(name);
            flipzero_data::files::write_atomically(&path, contents.as_bytes())?;
            Ok(path)
        })
        .collect()
}
