#!/usr/bin/env python3
"""How far a game's end lies from the exact value of its first solved position: for each
self-play game of a shard dump (dump_shards's output on stdin), the last unsolved sample's
targets (the game's end) against the first solved sample's (exact), seen from the same side.

    cd runs/x/shards && ls | grep 'game.*shard$' | tail -n 1024 \\
        | xargs path/to/target/release/examples/dump_shards | python3 value-targets.py

(for a run with selfplay.solved_value_targets off: with it on, the two agree by design.)
"""
import collections
import sys

games = collections.defaultdict(list)
for line in sys.stdin:
    shard, index, position, solved, outcome, score, _ = line.rstrip("\n").split("\t")
    games[shard].append((int(index), position, solved == "true", int(outcome), float(score)))
compared = outcome_changed = 0
margin_gap = 0.0
for samples in games.values():
    samples.sort()
    solved = [s for s in samples if s[2]]
    unsolved = [s for s in samples if not s[2]]
    if not solved or not unsolved:
        continue
    first_solved, last_unsolved = solved[0], unsolved[-1]
    side = lambda sample: sample[1].split()[1]
    sign = 1 if side(first_solved) == side(last_unsolved) else -1
    compared += 1
    outcome_changed += first_solved[3] * sign != last_unsolved[3]
    margin_gap += abs(first_solved[4] * sign - last_unsolved[4])
print(f"{compared} games: the end's outcome differs from the exact one in {outcome_changed} "
      f"({100 * outcome_changed / max(compared, 1):.1f}%), its margin by "
      f"{margin_gap / max(compared, 1):.2f} discs on average")
