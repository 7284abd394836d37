#!/usr/bin/env python3
"""Writes tests/data/perft/<preset>.txt: perft of each preset from its start, one line per
depth (`<side> <depth> <leaves>`), counted by `flipzero perft --variant` until a depth takes
longer than the budget. The files pin the engine's counts; the tests recount them.

Usage: scripts/make-perft-files.py [seconds per depth, default 60] [preset ...]
(every preset when none is named)
"""
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLIPZERO = ROOT / "target" / "release" / "flipzero"
BUDGET = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
# The board side per preset: the default where depth 6 stays small, smaller boards where
# the branching factor explodes (a neuversi turn is a move times a neutral square).
SIDES = {"neuversi": 4, "adneuversi": 4, "biversi": 6}
# Past depth 6, lines stop before this many leaves, so that the tests' deep pass recounts
# them in minutes. Depth 6 is always written (biversi's has 4.9e9 leaves).
MAX_LEAVES = 100_000_000

presets = sys.argv[2:] or [json.loads(line)["name"] for line in subprocess.run(
    [FLIPZERO, "variants", "--json"], capture_output=True, text=True, check=True).stdout.splitlines()]
out_dir = ROOT / "tests" / "data" / "perft"
out_dir.mkdir(parents=True, exist_ok=True)
for name in presets:
    side = SIDES.get(name, 8 if name != "biversi" else 10)
    lines = [f"# perft of `{name}` on {side}x{side} from its start (seed 0): side depth leaves",
             f"# made by scripts/make-perft-files.py with flipzero perft --variant {name} --size {side}"]
    depth = 1
    while depth <= 12:
        started = time.time()
        try:
            result = subprocess.run(
                [FLIPZERO, "perft", "--variant", name, "--size", str(side), "--depth", str(depth),
                 "--json", "--threads", "2"],
                capture_output=True, text=True, check=True,
                timeout=None if depth <= 6 else BUDGET * 3)
        except subprocess.TimeoutExpired:
            break
        record = json.loads(result.stdout.splitlines()[-1])
        if record["leaves"] > MAX_LEAVES and depth > 6:
            break
        lines.append(f"{side} {depth} {record['leaves']}")
        if time.time() - started > BUDGET and depth >= 6:
            break
        depth += 1
    (out_dir / f"{name}.txt").write_text("\n".join(lines) + "\n")
    print(name, lines[-1], flush=True)
