#!/usr/bin/env bash
# A paired equal-time match of the engine as built now against a base build served over GTP
# (issue 20 item 3: a search change is kept only when such a match says so).
#
#   experiments/2026-12-03-search-trials/trial.sh NAME BASE_BINARY SECONDS [OPENINGS]
#
# 8x8 Othello, OPENINGS (default 50) engine-balanced 6-ply openings, each played with both
# colours; both sides `engine:time=SECONDS,depth=60`. Writes NAME.toml, NAME.json and
# NAME.games.jsonl here. Run it on a quiet machine: both searches are bounded by time.
# NEW_AGENT and BASE_AGENT replace either side's agent (a time-management trial gives the
# new build a game's clock, `engine:game-time=30*SECONDS,depth=60`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
name="$1" base="$2" seconds="$3" openings="${4:-50}"
flipzero="${FLIPZERO:-$root/target/release/flipzero}"
agent="engine:time=$seconds,depth=60"
new_agent="${NEW_AGENT:-$agent}" base_agent="${BASE_AGENT:-$agent}"
cat > "$here/$name.toml" <<TOML
variant = "othello"
size = 8
seed = 20261203
format = "match"
agents = ["$new_agent", "gtp:$base engine --protocol gtp --agent $base_agent"]

[openings]
count = $openings
plies = 6
balanced = true
margin = 4.0
depth = 6
TOML
"$flipzero" arena --config "$here/$name.toml" --json --games "$here/$name.games.jsonl" \
    > "$here/$name.json.tmp"
mv "$here/$name.json.tmp" "$here/$name.json"
python3 - "$here/$name.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for s in report["standings"]:
    print(f'{s["agent"]:<70} {s["points"]:6.1f}/{s["games"]}  {s["seconds_per_decision"]:.3f} s/move')
PY
