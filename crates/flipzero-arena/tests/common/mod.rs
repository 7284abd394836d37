//! What the arena's test binaries share.

use flipzero_arena::competition::{ArenaConfig, ArenaReport, run_arena};
use flipzero_core::Rules;

/// Runs the competition of an arena config text on flex, panicking with the config's name on
/// any error; the report and the config's rules.
pub(crate) fn run_config(text: &str, name: &str) -> (ArenaReport, Rules) {
    let (config, rules, specs) =
        ArenaConfig::parse(text, name).unwrap_or_else(|error| panic!("{name}: {error}"));
    let report = run_arena(
        &config,
        &rules,
        &specs,
        &burn::tensor::Device::flex(),
        &|| {},
    )
    .unwrap_or_else(|error| panic!("{name}: {error}"));
    (report, rules)
}
