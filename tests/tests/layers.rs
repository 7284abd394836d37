//! The README's crate map is the workspace's layering: each crate depends only on the crates
//! its row allows ("may depend on"), all in the rows above its own, and every crate of
//! `crates/` has a row. A dependency that points down the table (a report that starts runs,
//! an engine that needs a network) or that the row does not name fails here.

use std::path::Path;

/// A row of the README's crate map: the crate and the crates it may depend on.
struct Row {
    name: String,
    allowed: Vec<String>,
}

/// The crates of the README's crate map, top row first (`| `crates/<name>` | owns | may
/// depend on | state |`, the allowed crates written without `flipzero-`, comma separated).
fn crate_map(readme: &str) -> Vec<Row> {
    readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `crates/"))
        .filter_map(|rest| {
            let (name, rest) = rest.split_once('`')?;
            let cells: Vec<&str> = rest.split(" | ").collect();
            let allowed = cells.get(cells.len().checked_sub(2)?)?;
            let allowed = allowed
                .split(',')
                .map(str::trim)
                .filter(|short| !short.is_empty() && *short != "no workspace crate")
                .map(|short| format!("flipzero-{short}"))
                .collect();
            Some(Row {
                name: name.to_owned(),
                allowed,
            })
        })
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
    let rows = crate_map(&readme);
    let layers: Vec<&str> = rows.iter().map(|row| row.name.as_str()).collect();
    assert!(layers.len() >= 10, "the crate map lists {layers:?}");
    let mut crates: Vec<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| root.join("crates").join(name).join("Cargo.toml").exists())
        .collect();
    crates.sort();
    let mut listed = layers.clone();
    listed.sort_unstable();
    assert_eq!(
        listed, crates,
        "every crate has one row in the README's crate map"
    );
    let mut wrong = Vec::new();
    for (layer, row) in rows.iter().enumerate() {
        for allowed in &row.allowed {
            let at = layers.iter().position(|other| other == allowed);
            if at.is_none_or(|at| at >= layer) {
                wrong.push(format!(
                    "{} may depend on {allowed}, not above it",
                    row.name
                ));
            }
        }
        let manifest =
            std::fs::read_to_string(root.join("crates").join(&row.name).join("Cargo.toml"))
                .unwrap();
        for dependency in workspace_dependencies(&manifest) {
            if !row.allowed.contains(&dependency) {
                wrong.push(format!(
                    "{} -> {dependency}, which its row does not allow",
                    row.name
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the Cargo files break the crate map's layering: {wrong:?}"
    );
}

#[test]
fn the_crate_map_and_the_dependencies_are_read_as_written() {
    // The two readers the check rests on, on a made-up map and manifest.
    let map = crate_map(
        "| `crates/flipzero-core` | x | no workspace crate | done |\n\
         | `crates/flipzero-report` | y | core, data | |\n",
    );
    let read: Vec<(&str, &[String])> = map
        .iter()
        .map(|row| (row.name.as_str(), row.allowed.as_slice()))
        .collect();
    assert_eq!(
        read,
        [
            ("flipzero-core", &[][..]),
            (
                "flipzero-report",
                &["flipzero-core".to_owned(), "flipzero-data".to_owned()][..]
            )
        ]
    );
    let manifest = "[package]\nname = \"flipzero-core\"\n[dependencies]\nflipzero-report.workspace = true\nserde = \"1\"\n";
    assert_eq!(workspace_dependencies(manifest), ["flipzero-report"]);
}

/// The wings of `flipzero-core` each source file belongs to: `othello/`, `variant/`, or the
/// shared modules at the top.
fn core_wing(relative: &Path) -> &'static str {
    match relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
    {
        Some("othello") => "othello",
        Some("variant") => "variant",
        _ => "shared",
    }
}

/// The wings a Rust source names in its code (comments and doc lines left out).
fn wings_named(source: &str) -> Vec<&'static str> {
    let code = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    ["othello", "variant"]
        .into_iter()
        .filter(|wing| {
            code.contains(&format!("crate::{wing}"))
                || code.contains(&format!("super::super::{wing}"))
        })
        .collect()
}

fn rust_files(folder: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn the_core_wings_stand_on_the_shared_modules_only() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/flipzero-core/src");
    let mut files = Vec::new();
    rust_files(&source, &mut files);
    assert!(files.len() >= 15, "found {files:?}");
    let mut crossings = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&source).unwrap();
        if relative == Path::new("lib.rs") {
            continue; // the crate root re-exports both wings
        }
        let own = core_wing(relative);
        for wing in wings_named(&std::fs::read_to_string(&file).unwrap()) {
            if wing != own {
                crossings.push(format!("{} ({own}) -> {wing}", relative.display()));
            }
        }
    }
    assert!(
        crossings.is_empty(),
        "a wing or a shared module uses another wing: {crossings:?}"
    );
}

#[test]
fn wings_are_read_from_code_not_comments() {
    assert_eq!(
        wings_named("//! see crate::variant\nuse crate::othello::Position;"),
        ["othello"]
    );
    assert_eq!(core_wing(Path::new("variant/game/mod.rs")), "variant");
    assert_eq!(core_wing(Path::new("movegen.rs")), "shared");
}

/// Whether a source file's code (not its comments) picks a bitboard width or is generic over
/// one.
fn picks_a_width(source: &str) -> bool {
    source
        .lines()
        .map(str::trim_start)
        .filter(|line| !line.starts_with("//"))
        .any(|line| line.contains("with_width!") || line.contains("Bitboard"))
}

#[test]
fn the_crates_above_the_speed_crates_work_on_width_free_handles() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
    let upper = [
        "flipzero-rundir",
        "flipzero-report",
        "flipzero-run",
        "flipzero-study",
        "flipzero-web",
        "flipzero-cli",
    ];
    let mut picking = Vec::new();
    for name in upper {
        let mut files = Vec::new();
        rust_files(&crates.join(name).join("src"), &mut files);
        for file in files {
            if picks_a_width(&std::fs::read_to_string(&file).unwrap()) {
                let relative = file.strip_prefix(&crates).unwrap();
                picking.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    assert!(
        picking.is_empty(),
        "files above the speed crates that pick a bitboard width (use AnyGame, AnyEngine and \
         the width-free entry points below them): {picking:?}"
    );
}

#[test]
fn a_width_is_read_from_code_not_comments() {
    assert!(picks_a_width("let x = with_width!(n, W => 1);"));
    assert!(picks_a_width("fn f<W: Bitboard>() {}"));
    assert!(!picks_a_width(
        "// with_width! is not used here\n/// nor Bitboard"
    ));
}
