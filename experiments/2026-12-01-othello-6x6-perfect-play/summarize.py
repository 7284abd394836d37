#!/usr/bin/env python3
"""Per quarter of a run's hour, from its metrics.jsonl: iterations, self-play and training
speeds, the first player's self-play score, the learning rate, and the quick matches' mean
score against each opponent (16 games each, pooled; evaluations run after the loop, with more
games, are left out).

    python3 summarize.py RUN_DIR [RUN_DIR ...]
"""
import collections
import json
import pathlib
import sys

for run in sys.argv[1:]:
    records = [json.loads(line) for line in (pathlib.Path(run) / "metrics.jsonl").read_text().splitlines()]
    quarters = collections.defaultdict(lambda: collections.defaultdict(list))
    for record in records:
        quarter = min(int(record["elapsed_seconds"] // 900), 3)
        q = quarters[quarter]
        if record["stage"] == "selfplay":
            q["positions/s"].append(record["positions_per_second"])
            q["first player"].append(record["first_player_score"])
        elif record["stage"] == "train":
            q["samples/s"].append(record["samples_per_second"])
            q["learning rate"].append(record["learning_rate"])
            q["steps"].append(record["step"])
        elif record["games"] == 16:
            # The loop's quick matches only (8 openings, both colours), not later evaluations.
            q["vs " + record["opponent"]].append(record["score"])
    print(f"## {run}")
    print("| minutes | last step | positions/s | samples/s | first player | learning rate (end) | "
          + " | ".join(k for k in sorted(quarters[0]) if k.startswith("vs ")) + " |")
    print("|---" * (6 + len([k for k in quarters[0] if k.startswith("vs ")])) + "|")
    for quarter in sorted(quarters):
        q = quarters[quarter]
        if not q["steps"]:
            continue  # only evaluations run after the loop
        mean = lambda key: sum(q[key]) / max(len(q[key]), 1)
        cells = [f"{15 * quarter}-{15 * quarter + 15}", str(max(q["steps"], default=0)),
                 f"{mean('positions/s'):.0f}", f"{mean('samples/s'):.0f}",
                 f"{100 * mean('first player'):.0f}%", f"{q['learning rate'][-1]:.5f}"]
        cells += [f"{100 * mean(k):.1f}% ({len(q[k])} matches)" for k in sorted(quarters[0]) if k.startswith("vs ")]
        print("| " + " | ".join(cells) + " |")
    print()
