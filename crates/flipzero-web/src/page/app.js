// flipzero's page. The server keeps no game: the page holds it (preset, size, opening text,
// decisions) and sends it whole with every request; the server replays it and answers with
// the state to draw, or refuses with a reason that the page shows.
"use strict";

const $ = (id) => document.getElementById(id);

let game = null;        // {variant, size, opening, decisions}: the whole game, to its end
let view = null;        // the state drawn: the game's end, or the position the replay shows
let cursor = null;      // null: playing live; a number: decisions shown while replaying
let generation = 0;     // bumped by anything that makes a pending agent's move stale
let analysisToken = 0;  // the same for analyses
let paused = false;
let loadedLines = [];   // the lines of a loaded games file

// One request; `body.dataset.pending` counts those in flight (tests wait for 0).
async function call(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  pending(+1);
  try {
    const response = await fetch(path, options);
    const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
    if (!response.ok) {
      throw new Error(data.error || `${response.status} ${response.statusText}`);
    }
    return data;
  } finally {
    pending(-1);
  }
}

function pending(change) {
  document.body.dataset.pending = String(Number(document.body.dataset.pending || 0) + change);
}

function say(text, kind = "") {
  const message = $("message");
  message.textContent = text;
  message.className = kind;
}

function player(seat) {
  return $(seat).value.trim() || "human";
}

function option(select, value, text = value) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = text;
  select.append(element);
}

let variants = [];

function fillSizes() {
  const variant = variants.find((v) => v.name === $("variant").value);
  const size = $("size");
  const previous = size.value;
  size.replaceChildren();
  for (const side of variant.sizes) option(size, String(side), `${side}x${side}`);
  size.value = variant.sizes.includes(Number(previous)) ? previous : String(variant.default_size);
}

async function init() {
  variants = await call("/api/variants");
  for (const variant of variants) option($("variant"), variant.name, `${variant.name}: ${variant.description}`);
  $("variant").value = "othello";
  fillSizes();
  $("size").value = "6";
  const models = await call("/api/models");
  const agents = ["human", "random", "greedy", "perfect", "engine:depth=1", "engine:depth=2",
    "engine:depth=4", "engine:depth=8", "engine:time=1", "mcts:simulations=200"];
  for (const model of models) agents.push(`mcts:checkpoint=${model},simulations=200`);
  for (const agent of agents) option($("agents"), agent);
  for (const model of models) option($("network"), model);
  $("show-network").disabled = models.length === 0;

  $("variant").addEventListener("change", () => { fillSizes(); newGame(); });
  $("size").addEventListener("change", newGame);
  $("new").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("pause").addEventListener("click", togglePause);
  $("save").addEventListener("click", save);
  $("load").addEventListener("change", loadFile);
  $("games").addEventListener("change", () => loadLine(loadedLines[Number($("games").value)]));
  for (const seat of ["black", "white"]) $(seat).addEventListener("change", advance);
  for (const id of ["show-engine", "show-network", "depth", "network"]) $(id).addEventListener("change", analyse);
  $("cursor").addEventListener("input", () => show(Number($("cursor").value)));
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(shownCount() - 1));
  $("forward").addEventListener("click", () => show(shownCount() + 1));
  $("last").addEventListener("click", () => show(game.decisions.length));
  $("board").addEventListener("click", (event) => {
    const cell = event.target.closest(".cell");
    if (cell) clickSquare(Number(cell.dataset.square));
  });
  await newGame();
}

function shownCount() {
  return cursor === null ? game.decisions.length : cursor;
}

// Asks the server for a state and plays on from it (agents move, analysis), unless a newer
// new game, move or load came while the answer was on its way.
async function playFrom(ask, failurePrefix) {
  const mine = ++generation;
  try {
    const next = await ask();
    if (mine !== generation) return;
    view = next;
    game = view.game;
    say("");
    render();
    await advance();
  } catch (error) {
    if (mine === generation) say(`${failurePrefix}${error.message}`, "error");
  }
}

async function newGame() {
  cursor = null;
  await playFrom(() => call("/api/start", {
    variant: $("variant").value,
    size: Number($("size").value),
    seed: Math.max(0, Math.floor(Number($("seed").value) || 0)),
  }), "");
}

// Lets agents play while an agent has the seat to move; a human seat stops the loop.
async function advance() {
  const mine = ++generation;
  while (!paused && view && !view.over && cursor === null) {
    const agent = player(view.seat);
    if (agent === "human") break;
    say(`${agent} is thinking…`, "busy");
    try {
      const moved = await call("/api/agent", { game, agent, seed: game.decisions.length });
      if (mine !== generation) return;
      game = moved.state.game;
      view = moved.state;
      render();
      say(`${agent} played ${moved.decision} (${moved.seconds.toFixed(2)} s)`);
    } catch (error) {
      if (mine === generation) say(`${agent}: ${error.message}`, "error");
      return;
    }
  }
  if (mine === generation) analyse();
}

async function play(name) {
  if (cursor !== null) {
    say("replaying: go to the end (>|) to play on", "error");
    return;
  }
  if (view.over) {
    say("the game is over", "error");
    return;
  }
  if (player(view.seat) !== "human") {
    say(`${player(view.seat)} has the move`, "error");
    return;
  }
  await playFrom(() => call("/api/state", { ...game, decisions: [...game.decisions, name] }), "not played: ");
}

function clickSquare(square) {
  const here = view.legal.filter((decision) => decision.square === square);
  if (here.length > 1) {
    // Several decisions on one square (an orientation or a colour to choose): ask which.
    say(`choose: ${here.map((d) => d.name).join(" or ")}`);
    drawDecisions(here);
    return;
  }
  // An illegal square goes to the server too, which says why it cannot be played.
  play(here.length === 1 ? here[0].name : view.square_names[square]);
}

async function undo() {
  generation++;
  if (!game || game.decisions.length === 0) {
    say("nothing to undo");
    return;
  }
  const humans = ["black", "white"].some((seat) => player(seat) === "human");
  // The server draws a chance event (the seats after equal bids) as soon as it comes:
  // its outcome goes back with the bid that led to it.
  const takeBack = (list) => list.slice(0, list.at(-1)?.startsWith("tie-") ? -2 : -1);
  let decisions = takeBack(game.decisions);
  try {
    let state = await call("/api/state", { ...game, decisions });
    // Back to the last position where a human was to decide.
    while (humans && decisions.length > 0 && player(state.seat) !== "human") {
      decisions = takeBack(decisions);
      state = await call("/api/state", { ...game, decisions });
    }
    if (!humans) paused = true;
    $("pause").textContent = paused ? "Play on" : "Pause";
    game = state.game;
    view = state;
    cursor = null;
    say("taken back");
    render();
    // Taken back to the very start with an agent to move: it moves again.
    if (!paused) await advance(); else analyse();
  } catch (error) {
    say(error.message, "error");
  }
}

function togglePause() {
  paused = !paused;
  $("pause").textContent = paused ? "Play on" : "Pause";
  if (paused) {
    generation++;
    say("paused");
  } else {
    advance();
  }
}

// Shows the position after `count` decisions; the end resumes play.
async function show(count) {
  if (!game) return;
  count = Math.max(0, Math.min(count, game.decisions.length));
  const mine = ++generation;
  try {
    const shown = await call("/api/state", { ...game, decisions: game.decisions.slice(0, count) });
    if (mine !== generation) return;
    view = shown;
    cursor = count === game.decisions.length ? null : count;
    render();
    if (cursor === null) await advance(); else analyse();
  } catch (error) {
    say(error.message, "error");
  }
}

async function save() {
  try {
    const saved = await call("/api/save", { game, black: player("black"), white: player("white") });
    const blob = new Blob([JSON.stringify(saved) + "\n"], { type: "application/x-ndjson" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `flipzero-${game.variant}.jsonl`;
    document.body.append(link);
    link.click();
    link.remove();
    // Some browsers read the blob after click() returns.
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    say(`saved (${saved.result}, ${saved.ending})`);
  } catch (error) {
    say(error.message, "error");
  }
}

async function loadFile() {
  const file = $("load").files[0];
  if (!file) return;
  loadedLines = (await file.text()).split("\n").filter((line) => line.trim() !== "");
  const games = $("games");
  games.replaceChildren();
  loadedLines.forEach((line, index) => option(games, String(index), `game ${index + 1}`));
  games.hidden = loadedLines.length < 2;
  if (loadedLines.length === 0) {
    say(`${file.name}: no games in it`, "error");
    return;
  }
  await loadLine(loadedLines[0]);
}

async function loadLine(line) {
  generation++;
  try {
    const loaded = await call("/api/load", { line });
    $("variant").value = loaded.state.game.variant;
    fillSizes();
    $("size").value = String(loaded.state.rows);
    // A replay: nobody moves until the players are set again.
    $("black").value = "human";
    $("white").value = "human";
    game = loaded.state.game;
    say(`loaded: ${loaded.black} (Black) against ${loaded.white} (White); replay with the buttons`);
    await show(0);
  } catch (error) {
    say(`not loaded: ${error.message}`, "error");
  }
}

function discClass(symbol) {
  switch (symbol) {
    case "X": case "x": return "black";
    case "O": case "o": return "white";
    case "#": return "neutral";
    default: return null;
  }
}

function render() {
  analysisToken++; // an analysis still on its way is of the position drawn before
  const board = $("board");
  board.style.setProperty("--cols", view.cols);
  document.documentElement.style.setProperty("--cols", view.cols);
  board.classList.toggle("torus", view.torus);
  const choices = new Map(); // square -> how many decisions it carries
  for (const decision of view.legal) {
    if (decision.square !== null) choices.set(decision.square, (choices.get(decision.square) || 0) + 1);
  }
  const shown = view.game.decisions;
  const last = shown.length > 0 ? view.square_names.indexOf(shown[shown.length - 1].replace(/[+xXO]$/, "")) : -1;
  board.replaceChildren();
  for (let square = 0; square < view.squares.length; square++) {
    const cell = document.createElement("button");
    cell.className = "cell";
    cell.dataset.square = String(square);
    cell.dataset.name = view.square_names[square];
    cell.title = view.square_names[square];
    cell.setAttribute("aria-label", view.square_names[square]);
    if (choices.has(square) && player(view.seat) === "human" && cursor === null) {
      cell.classList.add("legal");
      cell.dataset.choices = String(choices.get(square));
    }
    if (square === last) cell.classList.add("last");
    const symbol = view.squares[square];
    const colour = discClass(symbol);
    if (colour) {
      const disc = document.createElement("div");
      disc.className = `disc ${colour}`;
      if (view.oriented && colour !== "neutral") disc.textContent = symbol === symbol.toUpperCase() ? "+" : "×";
      cell.append(disc);
    }
    board.append(cell);
  }
  let score = `Black ${view.discs[0]} · White ${view.discs[1]}`;
  if (view.komi !== 0) score += ` · komi ${view.komi}`;
  if (view.over) {
    const winner = { black: "Black wins", white: "White wins", draw: "a draw" }[view.winner];
    score += ` · game over: ${winner}, score ${view.score > 0 ? "+" : ""}${view.score}`;
  }
  $("score").textContent = score;
  $("prompt").textContent = view.over ? "game over" : `${view.prompt} (${player(view.seat)})`;
  drawDecisions(view.legal.filter((d) => d.square === null));
  const history = $("history");
  history.replaceChildren();
  game.decisions.forEach((name, index) => {
    const item = document.createElement("li");
    item.textContent = name;
    if (index === shownCount() - 1) item.classList.add("shown");
    item.addEventListener("click", () => show(index + 1));
    history.append(item);
  });
  const range = $("cursor");
  range.max = String(game.decisions.length);
  range.value = String(shownCount());
  $("analysis").textContent = "";
}

// Decisions off the board (pass, orientations, bids), or the options of one square.
function drawDecisions(decisions) {
  const box = $("decisions");
  box.replaceChildren();
  if (view.over || cursor !== null || player(view.seat) !== "human") return;
  if (decisions.length > 16) {
    const select = document.createElement("select");
    select.id = "decision-list";
    for (const decision of decisions) option(select, decision.name);
    const button = document.createElement("button");
    button.textContent = "Play";
    button.addEventListener("click", () => play(select.value));
    box.append(select, button);
    return;
  }
  for (const decision of decisions) {
    const button = document.createElement("button");
    button.textContent = decision.name;
    button.className = "decision";
    button.addEventListener("click", () => play(decision.name));
    box.append(button);
  }
}

async function analyse() {
  const mine = ++analysisToken;
  const engine = $("show-engine").checked;
  const network = $("show-network").checked && $("network").value !== "";
  if (!view || view.over || (!engine && !network)) return;
  try {
    const analysis = await call("/api/analyze", {
      game: view.game,
      depth: engine ? Math.max(1, Math.min(16, Number($("depth").value) || 4)) : 0,
      network: network ? $("network").value : null,
    });
    if (mine !== analysisToken) return;
    drawAnalysis(analysis);
  } catch (error) {
    if (mine === analysisToken) say(`analysis: ${error.message}`, "error");
  }
}

function discs(value, exact) {
  const sign = value > 0 ? "+" : "";
  // Exact values are whole discs, or halves under a half-disc komi.
  const digits = exact && Number.isInteger(value * 2) ? (Number.isInteger(value) ? 0 : 1) : 1;
  return `${sign}${value.toFixed(digits)}${exact ? "=" : ""}`;
}

function drawAnalysis(analysis) {
  const best = Math.max(...analysis.decisions.map((d) => d.value ?? -Infinity));
  const lines = [];
  const notes = new Map(); // square -> the texts of its decisions
  for (const decision of analysis.decisions) {
    const parts = [];
    if (decision.value !== null) parts.push(discs(decision.value, decision.exact));
    if (decision.prior !== null) parts.push(`${Math.round(decision.prior * 100)}%`);
    const text = parts.join(" ");
    lines.push(`${decision.name}: ${text}`);
    const square = view.legal.find((legal) => legal.name === decision.name)?.square;
    if (square === null || square === undefined) continue;
    const entry = notes.get(square) || { texts: [], best: false };
    // A square with several decisions (an orientation, a colour) shows each with its suffix.
    entry.texts.push(view.legal.filter((legal) => legal.square === square).length > 1 ? `${decision.name.slice(-1)}${text}` : text);
    entry.best ||= decision.value === best;
    notes.set(square, entry);
  }
  for (const [square, entry] of notes) {
    const note = document.createElement("span");
    note.className = entry.best ? "note best" : "note";
    note.textContent = entry.texts.join(" ");
    $("board").children[square].append(note);
  }
  let summary = "";
  if (analysis.network_value !== null) {
    summary = `network: value ${analysis.network_value.toFixed(2)}, margin ${analysis.network_margin > 0 ? "+" : ""}${analysis.network_margin.toFixed(1)} · `;
  }
  $("analysis").textContent = `${summary}${lines.join(" · ")} (${analysis.seconds.toFixed(2)} s)`;
}

init().catch((error) => say(`the page could not start: ${error.message}`, "error"));
