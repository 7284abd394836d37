//! Tells the export test whether a Python interpreter exists, so that without one the test is
//! reported as ignored (skipped) rather than passed.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(python_missing)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=FLIPZERO_PYTHON");
    println!("cargo::rerun-if-env-changed=PATH");
    let python = std::env::var("FLIPZERO_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let found = Command::new(&python)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        println!("cargo::rustc-cfg=python_missing");
    }
}
