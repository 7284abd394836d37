#!/usr/bin/env python3
"""Scores of a run's checkpoints against the engine ladder, as a Markdown table: the
learning curve of a run, score against opponents versus training time.

    python3 scripts/learning-curve.py runs/othello-6x6 --minutes 5 10 20 30 45 60 \
        --openings 20 --opponent random --opponent engine:depth=1 ...

For each time, the newest checkpoint written by then (the run's own clock, from
metrics.jsonl) plays a paired match (`flipzero evaluate`) against every opponent.
"""

import argparse
import json
import pathlib
import re
import subprocess


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=pathlib.Path)
    parser.add_argument("--minutes", type=float, nargs="+", required=True)
    parser.add_argument("--openings", type=int, default=20)
    parser.add_argument("--opening-plies", type=int, default=4)
    parser.add_argument("--opponent", action="append", required=True)
    parser.add_argument("--flipzero", default="target/release/flipzero")
    args = parser.parse_args()

    trained = []  # (minutes, step) of every checkpoint
    for line in (args.run_dir / "metrics.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("stage") == "train":
            trained.append((record["elapsed_seconds"] / 60.0, record["step"]))

    print("| minutes | step | " + " | ".join(f"vs {o}" for o in args.opponent) + " |")
    print("|---|---|" + "---|" * len(args.opponent))
    for minutes in args.minutes:
        made = [(m, s) for m, s in trained if m <= minutes]
        if not made:
            continue
        at, step = made[-1]
        command = [args.flipzero, "evaluate", "--run-dir", str(args.run_dir), "--step", str(step),
                   "--openings", str(args.openings), "--opening-plies", str(args.opening_plies)]
        for opponent in args.opponent:
            command += ["--opponent", opponent]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        cells = []
        for opponent in args.opponent:
            found = re.search(rf"vs {re.escape(opponent)} ([0-9.]+)% \((\+\d+ =\d+ -\d+) of (\d+)\)", output)
            cells.append(f"{found.group(1)}% ({found.group(2)})" if found else "?")
        print(f"| {at:.1f} | {step} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
