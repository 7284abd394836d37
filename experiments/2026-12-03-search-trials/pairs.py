"""W-D-L, score with a 95% interval over paired openings, and mean margin of the engine built
now (the non-GTP side) in a trial's games file, or in its journal while the match runs (the
journal's `points` and `margin` are the first agent's, the engine built now)."""
import json, math, re, sys
from collections import defaultdict

by_pair = defaultdict(list)
for number, line in enumerate(open(sys.argv[1])):
    game = json.loads(line)
    if "key" in game:  # a journal line
        # "... | pair A | game G | opening": games 2k and 2k+1 play one opening.
        pair = int(re.search(r"\| game (\d+) \|", game["key"]).group(1)) // 2
        points, margin = game["points"], game["margin"]
    else:  # a finished games file: two games per opening, in order
        pair = number // 2
        black_new = not game["black"].startswith("gtp")
        points = {"1-0": 1, "0-1": 0}.get(game["result"], 0.5)
        margin = game["score"]
        if not black_new:
            points, margin = 1 - points, -margin
    by_pair[pair].append((points, margin))
# Only openings with both games played count: a half-played pair is not a paired sample.
complete = [games for games in by_pair.values() if len(games) == 2]
points = [p for games in complete for p, _ in games]
margins = [m for games in complete for _, m in games]
pairs = [sum(p for p, _ in games) / 2 for games in complete]
n = len(pairs)
mean = sum(pairs) / n
sd = math.sqrt(sum((x - mean) ** 2 for x in pairs) / (n - 1))
w, d, l = (sum(p == v for p in points) for v in (1, 0.5, 0))
print(
    f"{len(points)} games: {w}-{d}-{l}, score {100 * mean:.1f}% +/- "
    f"{100 * 1.96 * sd / math.sqrt(n):.1f} (95%, over {n} pairs), "
    f"margin {sum(margins) / len(margins):+.2f} discs"
)
