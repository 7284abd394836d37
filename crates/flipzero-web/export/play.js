// Plays an exported flipzero network in the browser with onnxruntime-web, no server: reads
// model.json, encodes positions as docs/EXPORT.md says (encoder version 4), runs model.onnx,
// and plays the legal move with the highest policy logit. Othello's moves only (the presets
// othello, anti, parallel, random-opening at the exported board size).
//
// `index.html?check` instead runs every position of test-vectors.json through this page's
// own encoder and move generator and the model, and writes the largest differences from
// flipzero's outputs into #check (the browser test asserts them under 1e-4).
import * as ort from "./node_modules/onnxruntime-web/dist/ort.wasm.min.mjs";

const $ = (id) => document.getElementById(id);
const DIRECTIONS = [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];

let meta, session, rows, cols, planeIndex, passIndex;
let board, toMove, passes, last, over;
let moves = [], evaluation = null; // the position drawn: its legal moves and the network's view
let generation = 0;                 // bumped by every change of position: stale work stops
let busy = false;                   // the network is evaluating or about to move

const other = (colour) => (colour === "X" ? "O" : "X");

function flips(cells, square, me) {
  const row = Math.floor(square / cols), col = square % cols;
  const them = other(me);
  const flipped = [];
  for (const [dr, dc] of DIRECTIONS) {
    let r = row + dr, c = col + dc;
    const line = [];
    while (r >= 0 && r < rows && c >= 0 && c < cols && cells[r * cols + c] === them) {
      line.push(r * cols + c);
      r += dr;
      c += dc;
    }
    if (line.length > 0 && r >= 0 && r < rows && c >= 0 && c < cols && cells[r * cols + c] === me) flipped.push(...line);
  }
  return flipped;
}

function legalMoves(cells, me) {
  const moves = [];
  for (let square = 0; square < rows * cols; square++) {
    if (cells[square] === "-" && flips(cells, square, me).length > 0) moves.push(square);
  }
  return moves;
}

// The planes of docs/EXPORT.md for a position under Othello's rules: [planes, rows, cols].
function encode(cells, me, passCount) {
  const size = rows * cols;
  const planes = new Float32Array(meta.encoder.planes.length * size);
  const fill = (name, value) => planes.fill(value, planeIndex[name] * size, (planeIndex[name] + 1) * size);
  for (let square = 0; square < size; square++) {
    planes[planeIndex.own * size + square] = cells[square] === me ? 1 : 0;
    planes[planeIndex.opponent * size + square] = cells[square] === other(me) ? 1 : 0;
    planes[planeIndex.empty * size + square] = cells[square] === "-" ? 1 : 0;
  }
  fill("on-board", 1);
  fill("own-supply", 1); // unlimited supplies encode as 1
  fill("opponent-supply", 1);
  fill("passes", Math.min(passCount, 2) / 2);
  return planes;
}

async function evaluate(planes) {
  const input = new ort.Tensor("float32", planes, [1, meta.encoder.planes.length, rows, cols]);
  const output = await session.run({ [meta.onnx.input.name]: input });
  return {
    policy: Array.from(output.policy_logits.data),
    wdl: Array.from(output.wdl_logits.data),
    score: output.score.data[0],
  };
}

// Position text: optional shape, one character per square, the side to move, fields.
function parsePosition(text) {
  let words = text.trim().split(/\s+/);
  if (/^\d+x\d+$/.test(words[0])) words = words.slice(1);
  const [cells, me, ...fields] = words;
  const values = Object.fromEntries(fields.map((field) => field.split("=")));
  return { cells: cells.split(""), me, passes: Number(values.passes || 0) };
}

function othelloMovesOnly(rules) {
  const plain = rules.protocol === "single" && rules.supply === "unlimited" && rules.komi === "none"
    && ["most-discs", "fewest-discs"].includes(rules.objective) && rules.board.topology === "plane"
    && (rules["first-player"] ?? "black") === "black" && (rules.pass ?? "forced-only") === "forced-only";
  return plain && !("sacrifice" in rules) && !("neutral" in rules) && !("orientation" in rules);
}

function softmax(values) {
  const top = Math.max(...values);
  const exps = values.map((value) => Math.exp(value - top));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((value) => value / sum);
}

let start = null; // the rules' start position, when test-vectors.json gives it

function newGame() {
  if (start) {
    board = [...start.cells];
    toMove = start.me;
  } else {
    board = new Array(rows * cols).fill("-");
    const r = rows / 2, c = cols / 2;
    // The cross start: White on the top-left and bottom-right centre squares.
    board[(r - 1) * cols + c - 1] = "O";
    board[(r - 1) * cols + c] = "X";
    board[r * cols + c - 1] = "X";
    board[r * cols + c] = "O";
    toMove = "X";
  }
  passes = 0;
  last = -1;
  over = false;
  step();
}

function play(square) {
  if (square === null) {
    passes++;
  } else {
    for (const flipped of flips(board, square, toMove)) board[flipped] = toMove;
    board[square] = toMove;
    passes = 0;
  }
  last = square === null ? -1 : square;
  toMove = other(toMove);
  step();
}

// A person's click or pass: only on their turn, and not while the network thinks.
function humanPlays(square) {
  if (busy || over || toMove !== $("human").value) return;
  play(square);
}

async function step() {
  const mine = ++generation;
  busy = true;
  moves = legalMoves(board, toMove);
  over = moves.length === 0 && legalMoves(board, other(toMove)).length === 0;
  evaluation = over ? null : await evaluate(encode(board, toMove, passes));
  if (mine !== generation) return; // a new game meanwhile
  busy = false;
  draw();
  if (over || toMove === $("human").value) return;
  // The network's move: the legal decision with the highest logit.
  busy = true;
  const choices = moves.length > 0 ? moves : [null];
  const logit = (move) => evaluation.policy[move === null ? passIndex : move];
  const best = choices.reduce((a, b) => (logit(b) > logit(a) ? b : a));
  setTimeout(() => {
    if (mine === generation) play(best);
  }, 250);
}

function draw() {
  const element = $("board");
  element.style.gridTemplateColumns = `repeat(${cols}, 56px)`;
  element.replaceChildren();
  const human = toMove === $("human").value && !over;
  const priors = evaluation && moves.length > 0 ? softmax(moves.map((move) => evaluation.policy[move])) : [];
  for (let square = 0; square < rows * cols; square++) {
    const cell = document.createElement("button");
    cell.className = "cell";
    cell.dataset.square = String(square);
    if (square === last) cell.classList.add("last");
    const index = moves.indexOf(square);
    if (index >= 0 && human) {
      cell.classList.add("legal");
      cell.addEventListener("click", () => humanPlays(square));
    }
    if (board[square] !== "-") {
      const disc = document.createElement("div");
      disc.className = `disc ${board[square]}`;
      cell.append(disc);
    }
    if (index >= 0 && $("show-policy").checked) {
      const prior = document.createElement("span");
      prior.className = "prior";
      prior.textContent = `${Math.round(priors[index] * 100)}%`;
      cell.append(prior);
    }
    element.append(cell);
  }
  $("pass").hidden = !(human && moves.length === 0);
  const count = (colour) => board.filter((cell) => cell === colour).length;
  let status = `Black ${count("X")} · White ${count("O")} · `;
  if (over) {
    const margin = count("X") - count("O");
    const blackWins = meta.rules.objective === "fewest-discs" ? margin < 0 : margin > 0;
    status += margin === 0 ? "game over: a draw" : `game over: ${blackWins ? "Black" : "White"} wins`;
  } else {
    const [win, draw, loss] = softmax(evaluation.wdl);
    status += `${toMove === "X" ? "Black" : "White"} to move; the network gives the mover ${Math.round(win * 100)}% win, ${Math.round(draw * 100)}% draw, ${Math.round(loss * 100)}% loss, margin ${(evaluation.score * rows * cols).toFixed(1)}`;
  }
  $("status").textContent = status;
}

async function check() {
  const vectors = await (await fetch("test-vectors.json")).json();
  const result = { vectors: vectors.vectors.length, planes: 0, legal_mismatches: 0, policy: 0, wdl: 0, score: 0 };
  const largest = (a, b) => a.reduce((most, value, i) => Math.max(most, Math.abs(value - b[i])), 0);
  for (const vector of vectors.vectors) {
    const position = parsePosition(vector.position);
    const planes = encode(position.cells, position.me, position.passes);
    result.planes = Math.max(result.planes, largest(Array.from(planes), vector.planes));
    let legal = legalMoves(position.cells, position.me);
    // No move: a pass while the other side has one, else the game is over.
    if (legal.length === 0 && legalMoves(position.cells, other(position.me)).length > 0) legal = [passIndex];
    if (JSON.stringify(legal) !== JSON.stringify([...vector.legal].sort((a, b) => a - b))) result.legal_mismatches++;
    const output = await evaluate(planes);
    result.policy = Math.max(result.policy, largest(output.policy, vector.policy_logits));
    result.wdl = Math.max(result.wdl, largest(output.wdl, vector.wdl_logits));
    result.score = Math.max(result.score, Math.abs(output.score - vector.score));
  }
  $("check").hidden = false;
  $("check").textContent = JSON.stringify(result, null, 1);
  document.body.dataset.check = "done";
}

async function main() {
  meta = await (await fetch("model.json")).json();
  if (meta.encoder.version !== 4) throw new Error(`model.json has encoder version ${meta.encoder.version}; this page encodes version 4`);
  if (!meta.onnx) throw new Error("model.json names no ONNX file: export with --format web (or onnx)");
  if (!othelloMovesOnly(meta.rules)) throw new Error("this page plays Othello's moves only; the network's rules have more (use `flipzero serve` for every preset)");
  rows = meta.network.rows;
  cols = meta.network.cols;
  planeIndex = Object.fromEntries(meta.encoder.planes.map((plane) => [plane.name, plane.index]));
  passIndex = meta.decisions.find((decision) => decision.kind === "pass").index;
  // Threads need a cross-origin-isolated page; the wasm files are found beside ort's module.
  ort.env.wasm.numThreads = 1;
  session = await ort.InferenceSession.create(meta.onnx.file, { executionProviders: ["wasm"] });
  $("about").textContent = `${rows}x${cols} ${meta.rules.objective === "fewest-discs" ? "anti-" : ""}Othello, a ${meta.network.blocks}-block ${meta.network.channels}-channel network after ${meta.step} training steps.`;
  if (new URLSearchParams(location.search).has("check")) {
    await check();
    return;
  }
  // The first test vector is the start position (the parallel start, say); without the
  // file the page starts from the cross.
  const vectors = await fetch("test-vectors.json").then((response) => (response.ok ? response.json() : null)).catch(() => null);
  const first = vectors?.vectors?.[0];
  if (first && first.moves.trim() === "") start = parsePosition(first.position);
  $("new").addEventListener("click", newGame);
  $("pass").addEventListener("click", () => humanPlays(null));
  $("human").addEventListener("change", () => step());
  $("show-policy").addEventListener("change", () => {
    if (!busy) draw();
  });
  newGame();
}

main().catch((error) => {
  $("message").className = "error";
  $("message").textContent = error.message;
  document.body.dataset.check = "error";
});
