//! What the arena's test binaries share.

use flipzero_arena::competition::{ArenaConfig, ArenaReport, run_arena};
use flipzero_arena::journal::Journal;
use flipzero_core::Rules;

/// Runs the competition of an arena config text on flex, panicking with the config's name on
/// any error; the report and the config's rules.
pub(crate) fn run_config(text: &str, name: &str) -> (ArenaReport, Rules) {
    run_config_journalled(text, name, None)
}

/// [`run_config`] with the games journalled to (and resumed from) the file `journal`.
pub(crate) fn run_config_journalled(
    text: &str,
    name: &str,
    journal: Option<&std::path::Path>,
) -> (ArenaReport, Rules) {
    let (config, rules) =
        ArenaConfig::parse(text, name).unwrap_or_else(|error| panic!("{name}: {error}"));
    let journal = journal.map(|path| Journal::open(path, &rules).unwrap());
    let report = run_arena(
        &config,
        &rules,
        &burn::tensor::Device::flex(),
        journal.as_ref(),
        &|| {},
    )
    .unwrap_or_else(|error| panic!("{name}: {error}"));
    (report, rules)
}
