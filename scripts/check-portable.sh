#!/usr/bin/env bash
# Runs the engine's tests on emulated x86-64 CPUs without AVX2, BMI or LZCNT, to check that
# the default build runs there and picks the portable kernel. Needs qemu-user
# (Debian: apt-get install qemu-user). Usage: scripts/check-portable.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v qemu-x86_64 >/dev/null || { echo "skipped: qemu-x86_64 not installed"; exit 0; }

cargo build --release --bin flipzero
binaries=$(cargo test -p flipzero-core -p flipzero-engine -p flipzero-tests --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"], m["manifest_path"].rsplit("/", 1)[0])')

for cpu in qemu64 Nehalem; do
  echo "== $cpu"
  qemu-x86_64 -cpu "$cpu" target/release/flipzero perft --depth 9 2>/dev/null | sed -n '1p;$p'
  while read -r binary package_dir; do
    (cd "$package_dir" && qemu-x86_64 -cpu "$cpu" "$binary" -q 2>/dev/null | grep 'test result')
  done <<<"$binaries"
done
