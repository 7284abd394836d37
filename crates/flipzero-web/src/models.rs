//! The checkpoints the server may load: files under the one directory it was started with
//! (`--models`), named by their path inside it. A request can name no other file.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use burn::tensor::Device;
use flipzero_core::Rules;
use flipzero_nn::PolicyValueNet;

use crate::games::ApiError;

/// How deep [`Models::list`] looks for checkpoints (`runs/NAME/checkpoints/FILE` is 3).
const LIST_DEPTH: usize = 4;
/// At most this many checkpoints are listed.
const LIST_LIMIT: usize = 2000;
/// The largest checkpoint file read (a 6-block 64-channel network is about 2 MB).
const MOST_BYTES: u64 = 512 << 20;

/// The models directory and the networks loaded from it so far.
pub struct Models {
    /// The directory, canonical; `None` when the server serves no networks.
    root: Option<PathBuf>,
    /// Networks by canonical path: each file is read once.
    loaded: Mutex<HashMap<PathBuf, (PolicyValueNet, flipzero_core::RulesSpec)>>,
}

impl Models {
    /// The checkpoints under `root`, or none.
    ///
    /// # Errors
    /// A directory that does not exist or cannot be read.
    pub fn new(root: Option<&Path>) -> std::io::Result<Self> {
        let root = match root {
            Some(path) => {
                let canonical = path.canonicalize()?;
                std::fs::read_dir(&canonical)?;
                Some(canonical)
            }
            None => None,
        };
        Ok(Self {
            root,
            loaded: Mutex::new(HashMap::new()),
        })
    }

    /// The checkpoint files (`*.ckpt`) under the directory, by their path inside it with `/`
    /// between components, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(root) = &self.root {
            collect(root, root, LIST_DEPTH, &mut found);
        }
        found.sort();
        found.truncate(LIST_LIMIT);
        found
    }

    /// The file a request names, checked to lie inside the directory.
    fn resolve(&self, name: &str) -> Result<PathBuf, ApiError> {
        let Some(root) = &self.root else {
            return Err(ApiError::bad(
                "this server serves no networks: start it with --models DIR",
            ));
        };
        let relative = Path::new(name);
        let plain = relative
            .components()
            .all(|component| matches!(component, Component::Normal(_)));
        if name.is_empty() || !plain || relative.extension().is_none_or(|ext| ext != "ckpt") {
            return Err(ApiError {
                status: 403,
                message: format!(
                    "checkpoint `{name}`: name a `.ckpt` file by its path inside the models directory, without `..` or a leading `/`"
                ),
            });
        }
        let path = root.join(relative).canonicalize().map_err(|_| ApiError {
            status: 404,
            message: format!("checkpoint `{name}`: no such file in the models directory"),
        })?;
        // A link inside the directory may point out of it.
        if !path.starts_with(root) || !path.is_file() {
            return Err(ApiError {
                status: 403,
                message: format!("checkpoint `{name}`: not a file inside the models directory"),
            });
        }
        Ok(path)
    }

    /// The network of checkpoint `name`, which must play `rules`.
    ///
    /// # Errors
    /// A name outside the directory, a file that is not a checkpoint, a network of other
    /// rules.
    pub fn network(
        &self,
        name: &str,
        rules: &Rules,
        device: &Device,
    ) -> Result<PolicyValueNet, ApiError> {
        let path = self.resolve(name)?;
        let cached = self.lock().get(&path).cloned();
        let (net, spec) = match cached {
            Some(found) => found,
            None => {
                let size = std::fs::metadata(&path).map_or(0, |metadata| metadata.len());
                if size > MOST_BYTES {
                    return Err(ApiError::bad(format!(
                        "checkpoint `{name}`: {size} bytes, more than a network's {MOST_BYTES}"
                    )));
                }
                // Read without the lock: other requests go on meanwhile.
                let checkpoint = flipzero_nn::checkpoint::load(&path, device)
                    .map_err(|error| ApiError::bad(format!("checkpoint `{name}`: {error}")))?;
                let entry = (checkpoint.net, checkpoint.meta.rules);
                self.lock().insert(path, entry.clone());
                entry
            }
        };
        if let Err(mismatch) = rules.spec().check_file_rules(&spec) {
            return Err(ApiError::bad(format!(
                "checkpoint `{name}` is a network for other rules than this game's (they \
                 differ in {})",
                mismatch.differences()
            )));
        }
        Ok(net)
    }
}

impl Models {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<PathBuf, (PolicyValueNet, flipzero_core::RulesSpec)>>
    {
        self.loaded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn collect(root: &Path, directory: &Path, depth: usize, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        // Enough found: a directory of many runs is not walked to its end.
        if found.len() >= LIST_LIMIT {
            return;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth > 0 {
            collect(root, &path, depth - 1, found);
        } else if kind.is_file()
            && path.extension().is_some_and(|ext| ext == "ckpt")
            && let Ok(relative) = path.strip_prefix(root)
        {
            let parts: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            found.push(parts.join("/"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_the_directory_are_refused() {
        let directory = tempfile::tempdir().unwrap();
        let inside = directory.path().join("models");
        std::fs::create_dir(&inside).unwrap();
        std::fs::write(directory.path().join("secret.ckpt"), b"not for the server").unwrap();
        std::fs::write(inside.join("a.ckpt"), b"not a checkpoint").unwrap();
        let models = Models::new(Some(&inside)).unwrap();
        assert_eq!(models.list(), vec!["a.ckpt".to_owned()]);
        std::fs::write(inside.join("notes.txt"), b"not a network").unwrap();
        for name in [
            "../secret.ckpt",
            "/etc/passwd",
            "",
            "x/../../secret.ckpt",
            "notes.txt",
        ] {
            assert_eq!(models.resolve(name).unwrap_err().status, 403, "{name}");
        }
        assert_eq!(models.resolve("b.ckpt").unwrap_err().status, 404);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                directory.path().join("secret.ckpt"),
                inside.join("link.ckpt"),
            )
            .unwrap();
            assert_eq!(models.resolve("link.ckpt").unwrap_err().status, 403);
        }
        let rules = Rules::load("othello", Some(6)).unwrap();
        let error = models
            .network("a.ckpt", &rules, &Device::default())
            .unwrap_err();
        assert_eq!(error.status, 400);
        assert!(error.message.contains("a.ckpt"), "{}", error.message);
        let none = Models::new(None).unwrap();
        assert!(none.list().is_empty());
        assert!(
            none.resolve("a.ckpt")
                .unwrap_err()
                .message
                .contains("--models")
        );
    }
}
