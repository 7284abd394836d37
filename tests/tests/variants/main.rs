//! End-to-end tests of the variant engine: presets and their config files, validation, the
//! sources' worked examples, the conformance suite and the perft files.

mod conformance;
mod golden;
mod perft;
mod presets;
mod reference_games;
mod validation;

use flipzero_core::{Preset, Rules};

/// Every preset with every board side it allows.
pub(crate) fn every_preset_and_size() -> Vec<(Preset, u8, Rules)> {
    let mut all = Vec::new();
    for preset in Preset::ALL {
        for side in (4..=16).step_by(2) {
            if let Ok(rules) = preset.rules(Some(side)) {
                all.push((preset, side, rules));
            }
        }
    }
    all
}
