#!/usr/bin/env bash
# The classical engine on GRhino's ladder at equal time per move (issue 20 item 4, issue 22
# item 1). For each GRhino level: a short calibration match measures GRhino's mean seconds
# per move from the arena's own timing; then a paired match of 50 balanced 6-ply openings
# (100 games, each opening with both colours) gives the engine exactly that many seconds
# per move (`engine:time=T`, a hard deadline: its own mean stays at or below T). Two games
# run at once on the two cores, each side thinking in turn, so each engine has one core.
#
#   experiments/2026-12-03-grhino-ladder/run.sh [LEVEL ...]     (default: 1 2 3 4 5)
#
# Resumes: a level whose result file exists is skipped, and an interrupted match takes the
# games it finished from level-N.games.jsonl.journal. Run it on a quiet machine (or pinned to
# a core of its own, `taskset -c 1`, one game at a time):
# the engine's search is bounded by time, GRhino's by depth.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
flipzero="${FLIPZERO:-$root/target/release/flipzero}"
grhino="${GRHINO:-/usr/games/gtp-rhino}"
[ -x "$grhino" ] || { echo "SKIPPED: $grhino is not installed (scripts/install-grhino.sh)"; exit 0; }
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(1 2 3 4 5)

config() { # name agents openings
    cat <<TOML
variant = "othello"
size = 8
seed = 20261203
format = "match"
agents = [$2]

[openings]
count = $3
plies = 6
balanced = true
margin = 4.0
depth = 6
TOML
}

for level in "${levels[@]}"; do
    rhino="gtp:$grhino -l $level"
    result="$here/level-$level.json"
    [ -f "$result" ] && { echo "level $level: done ($result)"; continue; }
    calibration="$here/level-$level.calibration.json"
    if [ ! -f "$calibration" ]; then
        config "calibration-$level" "\"engine:depth=1\", \"$rhino\"" 4 > "$here/level-$level.calibration.toml"
        "$flipzero" arena --config "$here/level-$level.calibration.toml" --json > "$calibration.tmp"
        mv "$calibration.tmp" "$calibration"
    fi
    seconds=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['standings']; print(next(x['seconds_per_decision'] for x in s if 'rhino' in x['agent']))" "$calibration")
    echo "level $level: GRhino spends $seconds s a move; the engine gets the same"
    config "level-$level" "\"engine:time=$seconds,depth=60\", \"$rhino\"" 50 > "$here/level-$level.toml"
    "$flipzero" arena --config "$here/level-$level.toml" --json \
        --games "$here/level-$level.games.jsonl" > "$result.tmp"
    mv "$result.tmp" "$result"
done
python3 "$here/summarize.py" "$here"
