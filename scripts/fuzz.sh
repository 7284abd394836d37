#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 60) with cargo-fuzz on
# the nightly toolchain, installing cargo-fuzz from crates.io when it is missing. Each target
# starts from its committed seeds (fuzz/seeds/<target>) and keeps what it finds in
# fuzz/corpus/<target> (not committed). A crash stops the script with the target's name; the
# input lies in fuzz/artifacts/<target>/ (replay it with `cargo +nightly fuzz run <target>
# <file>`, then add a regression test named after it).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
# Where no nightly toolchain is installed it says SKIPPED and succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz: SKIPPED (no nightly toolchain: rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version > /dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo +nightly install cargo-fuzz --locked --quiet
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir fuzz)
fi
# One build of every target first, so that the time below is fuzzing time.
cargo +nightly fuzz build --fuzz-dir fuzz --release --debug-assertions
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target"
    echo "fuzz: $target for $seconds s"
    # -rss_limit_mb: a loader that allocates what a header claims would pass 2 GiB.
    cargo +nightly fuzz run --fuzz-dir fuzz --release --debug-assertions "$target" \
        "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=60 -max_len=65536 \
        -print_final_stats=1 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==|SUMMARY|Done)" || true
    if [ -n "$(ls -A "fuzz/artifacts/$target" 2>/dev/null)" ]; then
        echo "fuzz: $target FAILED: $(ls "fuzz/artifacts/$target")"
        exit 1
    fi
done
echo "fuzz: ${#targets[@]} targets, $seconds s each, no crash"
