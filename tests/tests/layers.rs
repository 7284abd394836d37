//! The README's crate map is the workspace's layering: each crate depends only on crates in
//! the rows above its own, and every crate of `crates/` has a row. A dependency that points
//! down the table (a report that starts runs, an engine that needs a network) fails here.

use std::path::Path;

/// The crates of the README's crate map, top row first (`| `crates/<name>` | ...`).
fn crate_map(readme: &str) -> Vec<String> {
    readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `crates/"))
        .filter_map(|rest| rest.split_once('`').map(|(name, _)| name.to_owned()))
        .collect()
}

/// The workspace crates a `Cargo.toml` names in its `[dependencies]`.
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let manifest: toml::Table = toml::from_str(manifest).expect("a Cargo.toml parses");
    manifest
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .map(|table| {
            table
                .keys()
                .filter(|name| name.starts_with("flipzero-"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_crate_map_is_the_layering_of_the_cargo_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let layers = crate_map(&readme);
    assert!(layers.len() >= 10, "the crate map lists {layers:?}");
    let mut crates: Vec<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| root.join("crates").join(name).join("Cargo.toml").exists())
        .collect();
    crates.sort();
    let mut listed = layers.clone();
    listed.sort();
    assert_eq!(
        listed, crates,
        "every crate has one row in the README's crate map"
    );
    let mut downward = Vec::new();
    for (layer, name) in layers.iter().enumerate() {
        let manifest =
            std::fs::read_to_string(root.join("crates").join(name).join("Cargo.toml")).unwrap();
        for dependency in workspace_dependencies(&manifest) {
            let below = layers.iter().position(|other| *other == dependency);
            if below.is_none_or(|below| below >= layer) {
                downward.push(format!("{name} -> {dependency}"));
            }
        }
    }
    assert!(
        downward.is_empty(),
        "dependencies on crates at or below their own row of the crate map: {downward:?}"
    );
}

#[test]
fn the_crate_map_and_the_dependencies_are_read_as_written() {
    // The two readers the check rests on, on a made-up map and manifest.
    let map = crate_map("| `crates/flipzero-core` | x |\n| `crates/flipzero-report` | y |\n");
    assert_eq!(map, ["flipzero-core", "flipzero-report"]);
    let manifest = "[package]\nname = \"flipzero-core\"\n[dependencies]\nflipzero-report.workspace = true\nserde = \"1\"\n";
    assert_eq!(workspace_dependencies(manifest), ["flipzero-report"]);
}
