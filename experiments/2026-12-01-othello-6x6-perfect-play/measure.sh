#!/usr/bin/env bash
# The final measurements of a 6x6 Othello run against perfect play, as issue 17 asks for them:
# 50 random 8-10-ply openings with exact values within 10 discs, each played with both colours
# (100 games), the network searching 64 simulations a decision; then the raw policy's and the
# search's accuracy on 200 positions with 12 to 24 empties.
#
# Usage: measure.sh RUN_DIR OUT_DIR   (FLIPZERO=path/to/flipzero, default target/release/flipzero;
# ACCURACY_OPTIONS: more options of `flipzero accuracy`, such as `--score-utility 0.5`;
# OPENING_SEED: draw the openings as a run of that seed does, so that runs of other seeds
# are measured on the same openings)
set -euo pipefail
run="$1"
out="$2"
flipzero="${FLIPZERO:-target/release/flipzero}"
mkdir -p "$out"
common=(--run-dir "$run" --openings 50 --opening-plies 8-10 --exact-within 10 --simulations 64)
[ -n "${OPENING_SEED:-}" ] && common+=(--opening-seed "$OPENING_SEED")
# The network's own play (no solver leaves) against perfect play, depth 4 and random.
"$flipzero" evaluate "${common[@]}" --solve 0 --games "$out/games-own-play.jsonl" \
    --opponent perfect --opponent engine:depth=4 --opponent random | tee "$out/own-play.txt"
# The run's evaluation settings (solver leaves from 10 empties) against perfect play.
"$flipzero" evaluate "${common[@]}" --games "$out/games-solver-leaves.jsonl" \
    --opponent perfect | tee "$out/solver-leaves.txt"
newest=$(ls "$run/checkpoints" | grep "\.ckpt$" | sort | tail -n 1)
"$flipzero" accuracy --checkpoint "$run/checkpoints/$newest" --sample 200 --empties 12-24 \
    --simulations 64 ${ACCURACY_OPTIONS:-} | tee "$out/accuracy.txt"
