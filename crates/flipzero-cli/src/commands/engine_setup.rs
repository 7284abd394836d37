//! What the engine commands share: the rules, the evaluation weights and the players.

use std::path::{Path, PathBuf};

use flipzero_core::Rules;
use flipzero_engine::{SearchConfig, Weights, WeightsFile};

/// The weights file and its name for messages: the given file, or the embedded default.
pub(crate) fn weights_file(path: Option<&Path>) -> anyhow::Result<(WeightsFile, String)> {
    match path {
        Some(path) => Ok((WeightsFile::load(path)?, path.display().to_string())),
        None => Ok((
            WeightsFile::embedded().clone(),
            "embedded weights".to_owned(),
        )),
    }
}

/// The weights for `rules` from the given file or the embedded default.
pub(crate) fn weights_for(rules: &Rules, path: Option<&PathBuf>) -> anyhow::Result<Weights> {
    let (file, name) = weights_file(path.map(PathBuf::as_path))?;
    Ok(file.weights_for(rules, &name)?)
}

/// A player named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PlayerSpec {
    /// Moves typed at the terminal.
    Human,
    /// The classical engine with these settings.
    Engine(SearchConfig),
}

impl std::str::FromStr for PlayerSpec {
    type Err = String;

    /// `human`, `engine`, or `engine:<options>` such as `engine:depth=8,time=2`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.split_once(':') {
            None if text == "human" => Ok(PlayerSpec::Human),
            None if text == "engine" => Ok(PlayerSpec::Engine(SearchConfig::default())),
            Some(("engine", options)) => options
                .parse()
                .map(PlayerSpec::Engine)
                .map_err(|error: flipzero_engine::search::ConfigError| error.to_string()),
            _ => Err(format!(
                "`{text}`: use `human`, `engine` or `engine:depth=8` (options depth, nodes, time, solve, end, random, seed)"
            )),
        }
    }
}
