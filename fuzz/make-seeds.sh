#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets (fuzz/seeds/<target>/) from the repository's
# own files and a few positions of every preset. Needs a built `flipzero` (FLIPZERO, default
# target/release/flipzero) for the positions. Run from the repository root.
set -euo pipefail
flipzero="${FLIPZERO:-target/release/flipzero}"
seeds=fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{position_text,position_diagram,move_list,rules_toml,run_config,arena_config,study_config,agent_spec,obf_lines,gtp_server,nboard_server,ggf_game,shard_file,checkpoint_file,web_requests,game_journal}

# Position text and move lists of every preset (the first byte selects the preset; the high
# bit asks for 6x6), from its start and after a few moves.
presets=$("$flipzero" variants | awk '{print $1}')
index=0
for preset in $presets; do
    for small in 0 1; do
        selector=$(( index + 128 * small ))
        size_arg=(); [ "$small" = 1 ] && size_arg=(--size 6)
        for moves in "" "pass"; do
            line=$("$flipzero" replay --variant "$preset" "${size_arg[@]}" --moves "$moves" --json 2>/dev/null) || continue
            position=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["position"])' "$line")
            name="$preset-$small-${moves:-start}"
            { printf "\\x$(printf %02x "$selector")"; printf '%s' "$position"; } > "$seeds/position_text/$name"
        done
        { printf "\\x$(printf %02x "$selector")"; printf 'f5 d6 c3 d3 c4'; } > "$seeds/move_list/$preset-$small"
    done
    index=$(( index + 1 ))
done
printf '%s' '---------------------------OX------XO--------------------------- X' > "$seeds/position_diagram/start-8x8"
printf '%s' '--------------OX----XO-------------- O' > "$seeds/position_diagram/start-6x6"
"$flipzero" replay --variant othello --moves "f5" | sed -n '1,10p' > "$seeds/position_diagram/diagram-8x8"

cp configs/variants/*.toml "$seeds/rules_toml/"
cp configs/runs/*.toml "$seeds/run_config/"
cp configs/arena/*.toml "$seeds/arena_config/"
cp configs/study/*.toml "$seeds/study_config/"
for spec in random greedy perfect engine engine:depth=4,time=0.5,solve=12 \
    mcts:checkpoint=a.ckpt,simulations=64,search=gumbel,considered=8,score=0.5 gtp:gnugo nboard:edax; do
    printf '%s' "$spec" > "$seeds/agent_spec/$(printf '%s' "$spec" | tr -c 'a-z0-9' '_')"
done
head -c 4000 configs/eval/*.toml | head -n 60 > "$seeds/agent_spec/weights" || true
for file in tests/data/ffo/*.obf; do [ -f "$file" ] && head -n 3 "$file" > "$seeds/obf_lines/$(basename "$file")"; done

printf 'protocol_version\nname\nversion\nboardsize 8\nclear_board\nplay b f5\ngenmove w\nundo\nshowboard\ntime_settings 60 0 0\ntime_left b 30 0\nboardsize 6\ngenmove b\nfinal_score\nquit\n' > "$seeds/gtp_server/session"
printf 'list_commands\nboardsize 19\nplay x z9\ngenmove\n12 komi 1.5\nquit\n' > "$seeds/gtp_server/errors"
printf 'nboard 2\nset depth 1\nset game (;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[0]TY[8r]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6];)\nping 1\nhint 3\ngo\nmove c3\nset contempt 0\nlearn\nping 2\n' > "$seeds/nboard_server/session"
printf 'nboard 2\nset game (;GM[Othello]TY[6]BO[6 --------------O*----*O-------------- *];)\ngo\nset depth 60\nping 7\n' > "$seeds/nboard_server/small"

# GGF games (the first byte picks the preset: 0 is othello, at 8x8; 0x80 at 6x6).
printf '\x00(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[0]TY[8r]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3//1.5];)' > "$seeds/ggf_game/8x8-moves"
printf '\x80(;GM[Othello]TY[6]BO[6 --------------O*----*O-------------- O]W[c4];)' > "$seeds/ggf_game/6x6-white"
printf '\x80(;GM[Othello]BO[6 *O*O*O*O*O*O*O*O*O*O*O*O*O*O*O*O*O*O *];)' > "$seeds/ggf_game/6x6-full"

# Bodies of the web server's requests (the first byte picks which: 0 state, 1 start, 2 save,
# 3 load).
start6='--------------OX----XO-------------- X'
printf '\x00{"variant":"othello","size":6,"opening":"%s","decisions":["c4","b3","a2"]}' "$start6" > "$seeds/web_requests/state"
printf '\x00{"variant":"rotation","opening":"%s","decisions":["d3+","x"]}' "$("$flipzero" replay --variant rotation --moves "" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["position"])')" > "$seeds/web_requests/state-rotation"
printf '\x01{"variant":"komi","size":6,"seed":3}' > "$seeds/web_requests/start"
printf '\x02{"game":{"variant":"othello","size":6,"opening":"%s","decisions":["c4"]},"black":"human","white":"engine"}' "$start6" > "$seeds/web_requests/save"
printf '\x03{"line":"{\\"variant\\":\\"othello\\",\\"size\\":6,\\"black\\":\\"a\\",\\"white\\":\\"b\\",\\"opening\\":\\"%s\\",\\"decisions\\":\\"c4 b3\\",\\"result\\":\\"*\\",\\"score\\":0,\\"ending\\":\\"unfinished\\"}"}' "$start6" > "$seeds/web_requests/load"

# An arena game journal (the first byte picks the preset: 0x80 is othello at 6x6), as a run
# killed in the middle leaves it: finished games, then a line cut short. The arena is killed
# once its journal holds three games (it deletes the journal when it ends), whatever the
# machine's speed. interrupted-8x8 (0x00, othello) was cut by hand from the GRhino ladder's
# journal.
arena=$(mktemp -d)
printf 'variant = "othello"\nsize = 6\nformat = "match"\nagents = ["engine:depth=6", "random"]\n[openings]\ncount = 40\nplies = 4\n' > "$arena/arena.toml"
"$flipzero" arena --config "$arena/arena.toml" --games "$arena/games.jsonl" > /dev/null 2>&1 &
arena_pid=$!
until [ "$(cat "$arena/games.jsonl.journal" 2>/dev/null | wc -l)" -ge 3 ]; do
    kill -0 "$arena_pid" 2>/dev/null || { echo "the arena ended before its journal held 3 games" >&2; exit 1; }
    sleep 0.1
done
kill -9 "$arena_pid"; wait "$arena_pid" 2>/dev/null || true
{ printf '\x80'; head -n 2 "$arena/games.jsonl.journal"; sed -n 3p "$arena/games.jsonl.journal" | head -c 100; } > "$seeds/game_journal/interrupted"
rm -rf "$arena"

# A shard and a checkpoint of a tiny run (one iteration of the run tests' 1-block, 8-channel
# 6x6 config).
run=$(mktemp -d)
"$flipzero" loop --config crates/flipzero-run/tests/tiny.toml --run-dir "$run/dir" --iterations 1 > /dev/null
cp "$(ls "$run"/dir/shards/*.shard | head -n 1)" "$seeds/shard_file/game.shard"
cp "$(ls "$run"/dir/checkpoints/*.ckpt | head -n 1)" "$seeds/checkpoint_file/tiny.ckpt"
rm -rf "$run"
echo "seeds in $seeds: $(find "$seeds" -type f | wc -l) files"
