#!/usr/bin/env python3
"""Scores of a run's checkpoints against the engine ladder or perfect play, as a Markdown
table: the learning curve of a run, score against opponents versus training time.

    python3 scripts/learning-curve.py runs/othello-6x6 --minutes 5 10 20 30 45 60 \
        --openings 20 --opponent random --opponent engine:depth=1 ...
    python3 scripts/learning-curve.py runs/othello-6x6 --minutes 5 10 15 ... \
        --openings 50 --opening-plies 8-10 --exact-within 10 --solve 0 --simulations 64 \
        --opponent perfect

For each time, the newest checkpoint written by then (the run's own clock, from
metrics.jsonl; or, with --hour-steps N, the step N * minutes / 60, for a run that shared its
machine and whose clock ran slow) plays a paired match (`flipzero evaluate`) against every
opponent. Against `perfect`, the cell also says what the network kept of the openings'
exact values.
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
    parser.add_argument("--opening-plies", default="4")
    parser.add_argument("--exact-within", type=int)
    parser.add_argument("--solve", type=int)
    parser.add_argument("--simulations", type=int)
    parser.add_argument("--hour-steps", type=int)
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
            minutes = record["elapsed_seconds"] / 60.0
            if args.hour_steps:
                minutes = 60.0 * record["step"] / args.hour_steps
            trained.append((minutes, record["step"]))

    print("| minutes | step | " + " | ".join(f"vs {o}" for o in args.opponent) + " |")
    print("|---|---|" + "---|" * len(args.opponent))
    for minutes in args.minutes:
        made = [(m, s) for m, s in trained if m <= minutes]
        if not made:
            continue
        at, step = made[-1]
        command = [args.flipzero, "evaluate", "--run-dir", str(args.run_dir), "--step", str(step),
                   "--openings", str(args.openings), "--opening-plies", str(args.opening_plies)]
        for flag, value in [("--exact-within", args.exact_within), ("--solve", args.solve),
                            ("--simulations", args.simulations)]:
            if value is not None:
                command += [flag, str(value)]
        for opponent in args.opponent:
            command += ["--opponent", opponent]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        cells = []
        for opponent in args.opponent:
            line = next((l for l in output.splitlines() if f"vs {opponent} " in l), "")
            found = re.search(rf"vs {re.escape(opponent)} ([0-9.]+)% \((\+\d+ =\d+ -\d+) of (\d+)\)", line)
            cell = f"{found.group(1)}% ({found.group(2)})" if found else "?"
            exact = re.search(r"outcome kept in ([0-9.]+%|-) of the (\d+) not lost .*exact margin kept in ([0-9.]+%|-), ([0-9.-]+) discs lost", line)
            if exact:
                cell += f"; kept {exact.group(1)} of {exact.group(2)}, margin {exact.group(3)}, {exact.group(4)} discs lost"
            cells.append(cell)
        print(f"| {at:.1f} | {step} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
