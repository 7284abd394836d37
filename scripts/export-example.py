#!/usr/bin/env python3
"""Plays one move of standard Othello (any board size) with an exported flipzero model.

Everything a front-end needs is here: read model.json, encode the position into planes,
run model.onnx with onnxruntime, keep the legal moves' logits, pick the best one.

Usage: export-example.py EXPORT_DIR "POSITION"
POSITION is flipzero's position text: one character per square, row by row from a1
(X black, O white, - empty), then the side to move, then optional fields such as passes=1:
  export-example.py export/ "--------------OX----XO-------------- X"
Needs numpy and onnxruntime.
"""

import json
import pathlib
import sys

import numpy as np
import onnxruntime

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, row, col, me, rows, cols):
    """Squares that a disc of `me` at (row, col) would flip."""
    them = "O" if me == "X" else "X"
    flipped = []
    for dr, dc in DIRECTIONS:
        r, c, line = row + dr, col + dc, []
        while 0 <= r < rows and 0 <= c < cols and board[r][c] == them:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < rows and 0 <= c < cols and board[r][c] == me:
            flipped += line
    return flipped


def parse(meta, position):
    """The board as rows of X/O/- characters, the side to move and the passes so far."""
    rules = meta["rules"]
    plain = (rules["protocol"], rules["supply"], rules["komi"], rules["objective"]) == (
        "single", "unlimited", "none", "most-discs"
    )
    extras = {"sacrifice", "neutral", "orientation"} & rules.keys()
    if not plain or extras or rules["board"]["topology"] != "plane":
        sys.exit("this example encodes standard Othello rules only")
    rows, cols = meta["network"]["rows"], meta["network"]["cols"]
    words = position.split()
    if "x" in words[0] and not words[0].startswith(("X", "O", "-")):
        words = words[1:]  # a rectangle's shape, such as 6x8
    cells, me, *fields = words
    board = [cells[r * cols : (r + 1) * cols] for r in range(rows)]
    passes = int(dict(f.split("=") for f in fields).get("passes", 0))
    return board, me, passes


def encode(meta, board, me, passes):
    """The network's input planes for one position, by the names model.json gives them;
    planes not set here stay 0 under standard Othello rules."""
    rows, cols = meta["network"]["rows"], meta["network"]["cols"]
    them = "O" if me == "X" else "X"
    planes = np.zeros((len(meta["encoder"]["planes"]), rows, cols), dtype=np.float32)
    index = {plane["name"]: plane["index"] for plane in meta["encoder"]["planes"]}
    for r in range(rows):
        for c in range(cols):
            planes[index["own"], r, c] = board[r][c] == me
            planes[index["opponent"], r, c] = board[r][c] == them
            planes[index["empty"], r, c] = board[r][c] == "-"
    planes[index["on-board"]] = 1.0
    planes[index["own-supply"]] = 1.0  # unlimited supplies encode as 1
    planes[index["opponent-supply"]] = 1.0
    planes[index["passes"]] = min(passes, 2) / 2
    return planes


def main(directory, position):
    meta = json.loads((pathlib.Path(directory) / "model.json").read_text())
    board, me, passes = parse(meta, position)
    rows, cols = meta["network"]["rows"], meta["network"]["cols"]
    planes = encode(meta, board, me, passes)

    session = onnxruntime.InferenceSession(
        str(pathlib.Path(directory) / meta["onnx"]["file"]), providers=["CPUExecutionProvider"]
    )
    policy, wdl, score = session.run(None, {meta["onnx"]["input"]["name"]: planes[None]})

    # Legal decisions: placements that flip, else the pass; their indices from the map.
    by_square = {(d["row"], d["col"]): d for d in meta["decisions"] if d["kind"] == "square"}
    legal = [
        by_square[(r, c)]
        for r in range(rows)
        for c in range(cols)
        if board[r][c] == "-" and flips(board, r, c, me, rows, cols)
    ] or [d for d in meta["decisions"] if d["kind"] == "pass"]
    best = max(legal, key=lambda d: policy[0, d["index"]])

    win, draw, loss = np.exp(wdl[0]) / np.exp(wdl[0]).sum()
    print(f"best: {best['name']}")
    print(f"value {win - loss:+.3f} (win {win:.3f}, draw {draw:.3f}, loss {loss:.3f})")
    print(f"expected margin {score[0, 0] * rows * cols:+.1f} discs for {me}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
