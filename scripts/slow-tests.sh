#!/usr/bin/env bash
# The slow checks that `.ci/run` runs: every `--ignored` test that takes under about five
# minutes on 2 cores, in release mode. The longer ones are listed with their commands.
set -euo pipefail
cd "$(dirname "$0")/.."
release=(cargo test --release --locked)
# 8x8 Othello perft to depth 12 (OEIS A124004): seconds.
"${release[@]}" -p flipzero-tests --test core -- --ignored depth_1
# The deep lines of every preset's perft file: about 3 minutes.
"${release[@]}" -p flipzero-tests --test variants -- --ignored every_preset_matches_its_perft_file_deep
# FFO #20-#39 (2 to 3 minutes) and 6x6 Othello solved from the start (about a minute).
"${release[@]}" -p flipzero-engine --test solver -- --ignored \
    ffo_20_to_39_reach_their_published_scores six_by_six_othello_is_a_white_win_by_four
# The 4x4 presets whose minimax visits millions of positions, against alpha-beta: half a minute.
"${release[@]}" -p flipzero-engine --test game_value -- --ignored the_slow_presets_agree_with_minimax
echo "not run here (about a quarter of an hour): 6x6 anti-Othello from the start:"
echo "  cargo test --release -p flipzero-engine --test solver -- --ignored six_by_six_anti_othello_is_a_black_win"
