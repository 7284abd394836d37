#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 60) with cargo-fuzz on
# the nightly toolchain, installing cargo-fuzz from crates.io when it is missing. Each target
# starts from its committed seeds (fuzz/seeds/<target>) and keeps what it finds in
# fuzz/corpus/<target> (not committed). A crash stops the script with the target's name; the
# input lies in fuzz/artifacts/<target>/ (replay it with `cargo +nightly fuzz run <target>
# <file>`, then add a regression test named after it).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
# Where no nightly toolchain is installed, or cargo-fuzz cannot be, it says SKIPPED.
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
    if ! cargo +nightly install cargo-fuzz --locked --quiet; then
        echo "fuzz: SKIPPED (cargo-fuzz could not be installed)"
        exit 0
    fi
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir fuzz)
fi
# One build of every target first (fuzz/Cargo.lock pins the dependencies), so that the time
# below is fuzzing time.
flags=(--fuzz-dir fuzz --release --debug-assertions)
cargo +nightly fuzz build "${flags[@]}"
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target"
    rm -rf "fuzz/artifacts/$target"
    echo "fuzz: $target for $seconds s"
    log="fuzz/corpus/$target.log"
    # -rss_limit_mb: a loader that allocated what a header claims would pass 2 GiB.
    status=0
    cargo +nightly fuzz run "${flags[@]}" "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=60 -max_len=65536 \
        -print_final_stats=1 > "$log" 2>&1 || status=$?
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+ +DONE" "$log" || true
    if [ "$status" -ne 0 ] || [ -n "$(ls -A "fuzz/artifacts/$target" 2>/dev/null)" ]; then
        # The panic message first: the failing input's dump that follows it can be long.
        grep -m 3 -A 3 -E "panicked at|ERROR: libFuzzer" "$log" | cut -c1-400 || true
        tail -n 40 "$log" | cut -c1-400
        echo "fuzz: $target FAILED (exit $status): $(ls "fuzz/artifacts/$target" 2>/dev/null)"
        exit 1
    fi
done
echo "fuzz: ${#targets[@]} targets, $seconds s each, no crash"
