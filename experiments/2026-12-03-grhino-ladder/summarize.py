"""The ladder's table (Markdown) from the level-N.json reports and level-N.games.jsonl games."""
import json
import math
import pathlib
import sys

folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
print("| GRhino level | games | engine W-D-L | engine score (95%) | mean margin (discs) | GRhino s/move | engine s/move |")
print("|---|---|---|---|---|---|---|")
for level in range(1, 6):
    report = folder / f"level-{level}.json"
    games_file = folder / f"level-{level}.games.jsonl"
    if not report.exists():
        continue
    standings = json.loads(report.read_text())["standings"]
    engine = next(s for s in standings if s["agent"].startswith("engine"))
    rhino = next(s for s in standings if "rhino" in s["agent"])
    wins = draws = losses = 0
    margins = []
    points = []
    for line in games_file.read_text().splitlines():
        game = json.loads(line)
        sign = 1 if game["black"].startswith("engine") else -1
        margin = sign * game["score"]
        margins.append(margin)
        result = {"1-0": 1, "0-1": -1}.get(game["result"], 0) * sign
        wins += result > 0
        losses += result < 0
        draws += result == 0
        points.append({1: 1.0, 0: 0.5, -1: 0.0}[result])
    n = len(margins)
    # The interval is over openings (the two games of an opening are one paired sample).
    pairs = [(points[i] + points[i + 1]) / 2 for i in range(0, len(points) - 1, 2)]
    mean = sum(points) / n
    pair_mean = sum(pairs) / len(pairs)
    spread = math.sqrt(sum((p - pair_mean) ** 2 for p in pairs) / (len(pairs) - 1))
    half = 1.96 * spread / math.sqrt(len(pairs))
    print(
        f"| {level} | {n} | {wins}-{draws}-{losses} | {100 * mean:.1f}% "
        f"(+/-{100 * half:.1f}) | {sum(margins) / n:+.1f} | "
        f"{rhino['seconds_per_decision']:.3f} | {engine['seconds_per_decision']:.3f} |"
    )
