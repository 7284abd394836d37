#!/usr/bin/env bash
# Refits the embedded evaluation weights (configs/eval/weights.toml) for every preset on 6x6
# (its smallest size of 6 or more) and on its default board. The tune command notes in each
# profile the exact arguments and the held-out error before and after.
#
# Usage: scripts/tune-weights.sh [positions] [depth]
set -euo pipefail
cd "$(dirname "$0")/.."
positions="${1:-6000}"
depth="${2:-4}"
cargo build --release -p flipzero-cli
flipzero=target/release/flipzero
presets=$($flipzero variants --json | python3 -c '
import json, sys
for line in sys.stdin:
    v = json.loads(line)
    print(v["name"], v["board"].split("x")[0])')
while read -r name default_size; do
    for size in $(printf '%s\n' 6 "$default_size" | sort -un); do
        # Presets that refuse 6x6 (their line length or start needs more room) are skipped.
        $flipzero tune --variant "$name" --size "$size" --positions "$positions" --depth "$depth" \
            --weights configs/eval/weights.toml \
            --solve 14 --out configs/eval/weights.toml || echo "skipped $name at $size"
    done
done <<< "$presets"
