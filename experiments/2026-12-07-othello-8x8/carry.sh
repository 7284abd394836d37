#!/usr/bin/env bash
# Carries the 8x8 run across machines: the development machine of a session is not the next
# session's, and only what is committed survives. `save` copies into resume/ what `flipzero
# loop` needs to go on (config, rules, metrics, the newest checkpoint with its optimizer
# state and its list of shards, and the newest shards, compressed); `restore` puts them back
# into a run directory that does not exist yet. The loop then resumes at the saved step;
# shards older than those saved are gone, so its replay window refills from new games.
#
#   experiments/2026-12-07-othello-8x8/carry.sh save    [RUN_DIR]   (default runs/othello-8x8)
#   experiments/2026-12-07-othello-8x8/carry.sh restore [RUN_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
run="${2:-runs/othello-8x8}"
saved="$here/resume"
# Newest shards kept: about 1,500 games, some 80,000 samples (a third of the window).
keep_shards=1500
case "${1:-}" in
save)
    newest=$(ls "$run/checkpoints" | grep '\.ckpt$' | sort | tail -n 1)
    rm -rf "$saved.tmp" && mkdir -p "$saved.tmp/checkpoints"
    cp "$run/config.toml" "$run/rules.toml" "$run/metrics.jsonl" "$saved.tmp/"
    cp "$run/checkpoints/$newest" "$saved.tmp/checkpoints/"
    list="$run/checkpoints/${newest%.ckpt}.shards"
    [ -f "$list" ] && cp "$list" "$saved.tmp/checkpoints/"
    (cd "$run/shards" && ls | grep '\.shard$' | sort | tail -n "$keep_shards") > "$saved.tmp/shard-names"
    tar -cJf "$saved.tmp/shards.tar.xz" -C "$run/shards" -T "$saved.tmp/shard-names"
    rm "$saved.tmp/shard-names"
    rm -rf "$saved" && mv "$saved.tmp" "$saved"
    echo "saved $newest and $(tar -tJf "$saved/shards.tar.xz" | wc -l) shards into $saved"
    ;;
restore)
    [ -e "$run" ] && { echo "$run exists: restore only into a new run directory"; exit 1; }
    [ -d "$saved" ] || { echo "nothing saved in $saved"; exit 1; }
    mkdir -p "$run/shards"
    cp -r "$saved/config.toml" "$saved/rules.toml" "$saved/metrics.jsonl" "$saved/checkpoints" "$run/"
    tar -xJf "$saved/shards.tar.xz" -C "$run/shards"
    echo "restored $(ls "$run/checkpoints" | grep '\.ckpt$') into $run"
    ;;
*)
    echo "usage: $0 save|restore [RUN_DIR]"; exit 2
    ;;
esac
