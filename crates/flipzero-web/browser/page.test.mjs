// The page of `flipzero serve` in headless Chromium, driven by Playwright as a person would
// use it: clicks on the board, the decision buttons, the file input. Run by
// scripts/browser-test.sh: `node page.test.mjs http://127.0.0.1:PORT/`, with CHROMIUM naming
// the browser and SCREENSHOTS the folder for the README's pictures.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const base = process.argv[2];
const screenshots = process.env.SCREENSHOTS;
const scratch = mkdtempSync(join(tmpdir(), "flipzero-page-"));
if (screenshots) mkdirSync(screenshots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  // Playwright gives the browser a fresh, empty profile; these keep it off the network.
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});

let failures = 0;
async function test(name, body) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  try {
    await body(page);
    assert.deepEqual(errors, [], "the page's script threw");
    console.log(`ok: ${name}`);
  } catch (error) {
    failures++;
    console.log(`FAILED: ${name}: ${error.stack}`);
    await page.screenshot({ path: join(scratch, `${name.replace(/\W+/g, "-")}.png`) }).catch(() => {});
  } finally {
    await context.close();
  }
}

// No request in flight and a human to decide (or the game over).
async function settled(page) {
  await page.waitForFunction(() => {
    const prompt = document.getElementById("prompt").textContent;
    return document.body.dataset.pending === "0" && (prompt === "game over" || prompt.endsWith("(human)"));
  }, null, { timeout: 60_000 });
}

async function newGame(page, { variant = "othello", size = "6", black = "human", white = "human", seed = "0" } = {}) {
  await page.goto(base);
  await page.waitForFunction(() => document.querySelectorAll("#board .cell").length > 0);
  await page.fill("#black", black);
  await page.fill("#white", white);
  await page.fill("#seed", seed);
  await page.selectOption("#variant", variant);
  await page.selectOption("#size", size);
  await page.click("#new");
  await settled(page);
}

const prompt = (page) => page.textContent("#prompt");

async function snap(page, name) {
  if (screenshots) await page.screenshot({ path: join(screenshots, `web-${name}.png`) });
}

await test("a 6x6 game against engine:depth=1 played to its end by clicks", async (page) => {
  await newGame(page, { white: "engine:depth=1" });
  assert.equal(await page.locator("#board .cell").count(), 36);
  for (let turn = 0; turn < 40 && (await prompt(page)) !== "game over"; turn++) {
    const legal = page.locator("#board .cell.legal");
    if ((await legal.count()) > 0) await legal.first().click();
    else await page.click("#decisions button.decision");
    await settled(page);
  }
  assert.equal(await prompt(page), "game over");
  const score = await page.textContent("#score");
  assert.match(score, /game over: (Black wins|White wins|a draw), score [+-]?\d+/);
  const [black, white] = score.match(/\d+/g).map(Number);
  assert.ok(black + white <= 36 && black + white > 4, score);
  assert.ok((await page.locator("#history li").count()) >= 20);
  await snap(page, "6x6-game");
});

await test("an illegal click is refused with the server's reason", async (page) => {
  await newGame(page);
  await page.click('#board .cell[data-name="a1"]');
  await page.waitForSelector("#message.error");
  const message = await page.textContent("#message");
  assert.match(message, /^not played: decision 1 `a1`: /);
  // Nothing was played: still Black's first move, four discs.
  assert.equal(await page.locator("#history li").count(), 0);
  assert.equal(await page.locator("#board .disc").count(), 4);
});

await test("undo takes back to the human's last decision", async (page) => {
  await newGame(page, { white: "engine:depth=1" });
  for (let move = 0; move < 2; move++) {
    await page.locator("#board .cell.legal").first().click();
    await settled(page);
  }
  // Two moves of Black's and the engine's two replies.
  assert.equal(await page.locator("#history li").count(), 4);
  await page.click("#undo");
  await settled(page);
  // Back before Black's second move: the engine's reply to it is taken back too.
  assert.equal(await page.locator("#history li").count(), 2);
  assert.equal(await page.locator("#board .disc").count(), 6);
  assert.match(await prompt(page), /^Black to move/);
  assert.match(await page.textContent("#message"), /taken back/);
});

await test("a rotation turn with its orientation", async (page) => {
  await newGame(page, { variant: "rotation", size: "8" });
  const idle = () => page.waitForFunction(() => document.body.dataset.pending === "0");
  // At the start every disc is `+`: each legal square takes a `+` disc only, and the disc
  // it flips is oriented next.
  const first = page.locator('#board .cell[data-name="d3"]');
  assert.equal(await first.getAttribute("data-choices"), "1");
  await first.click();
  await idle();
  assert.equal(await page.textContent('#board .cell[data-name="d3"] .disc'), "+");
  assert.match(await prompt(page), /orients the flipped disc on d4/);
  await page.click('#decisions button.decision:text-is("+")');
  await idle();
  assert.equal(await page.textContent('#board .cell[data-name="d4"] .disc'), "+");
  // Four turns (found by a search over the server's requests) after which Black's f3 takes
  // a `+` disc along a row and an `x` disc along a diagonal; the page asks which.
  for (const decision of ["c5+", "+", "d6+", "x", "e3+", "+"]) {
    if (decision === "+" || decision === "x") {
      await page.click(`#decisions button.decision:text-is("${decision}")`);
    } else {
      await page.click(`#board .cell[data-name="${decision.slice(0, -1)}"]`);
    }
    await idle();
  }
  assert.match(await prompt(page), /^Black to move/);
  const chosen = "f3";
  assert.equal(await page.getAttribute(`#board .cell[data-name="${chosen}"]`, "data-choices"), "2");
  await page.click(`#board .cell[data-name="${chosen}"]`);
  const options = await page.locator("#decisions button.decision").allTextContents();
  assert.deepEqual(options, [`${chosen}+`, `${chosen}x`]);
  await page.click(`#decisions button.decision:text-is("${chosen}x")`);
  await idle();
  assert.equal(await page.textContent(`#board .cell[data-name="${chosen}"] .disc`), "×");
  await snap(page, "rotation");
});

await test("a komi game through its bids", async (page) => {
  await newGame(page, { variant: "komi", size: "8" });
  for (const bid of ["bid+3", "bid-1"]) {
    assert.match(await prompt(page), /bids the komi/);
    if ((await page.locator("#decision-list").count()) > 0) {
      await page.selectOption("#decision-list", bid);
      await page.click("#decisions button:text-is('Play')");
    } else {
      await page.click(`#decisions button.decision:text-is("${bid}")`);
    }
    await settled(page);
  }
  assert.doesNotMatch(await prompt(page), /bids/);
  assert.match(await page.textContent("#score"), /komi/);
  assert.deepEqual(await page.locator("#history li").allTextContents(), ["bid+3", "bid-1"]);
});

await test("every preset plays its first decisions through the same page", async (page) => {
  await newGame(page);
  const variants = await page.locator("#variant option").evaluateAll((options) => options.map((o) => o.value));
  assert.equal(variants.length, 17);
  for (const variant of variants) {
    await page.selectOption("#variant", variant);
    await settled(page);
    // Eight decisions by clicks: a square (choosing its first option where it has several),
    // else a decision button (a pass, an orientation), else the first of a long list (bids).
    for (let decision = 0; decision < 8 && (await prompt(page)) !== "game over"; decision++) {
      const legal = page.locator("#board .cell.legal");
      if ((await legal.count()) > 0) {
        const several = (await legal.first().getAttribute("data-choices")) !== "1";
        await legal.first().click();
        if (several) await page.locator("#decisions button.decision").first().click();
      } else if ((await page.locator("#decision-list").count()) > 0) {
        await page.click("#decisions button:text-is('Play')");
      } else {
        await page.locator("#decisions button.decision").first().click();
      }
      await settled(page);
      assert.doesNotMatch((await page.getAttribute("#message", "class")) || "", /error/, `${variant}: ${await page.textContent("#message")}`);
    }
    // The server's own draw after equal komi bids (both bid the first of the list) is no click.
    const history = await page.locator("#history li").allTextContents();
    const drawn = history.filter((name) => /^tie-(kept|swapped)$/.test(name)).length;
    assert.equal(drawn, variant === "komi" ? 1 : 0, `${variant}: ${history.join(" ")}`);
    const played = history.length - drawn;
    assert.ok(played === 8 || (await prompt(page)) === "game over", `${variant}: ${played} decisions`);
  }
});

await test("a saved game loads back and replays move by move", async (page) => {
  await newGame(page);
  for (let move = 0; move < 3; move++) {
    await page.locator("#board .cell.legal").first().click();
    await settled(page);
  }
  const played = await page.locator("#history li").allTextContents();
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#save")]);
  const file = join(scratch, "saved.jsonl");
  await download.saveAs(file);
  const saved = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(saved.decisions, played.join(" "));
  assert.equal(saved.result, "*");
  await newGame(page, { variant: "anti" });
  await page.setInputFiles("#load", file);
  await page.waitForFunction(() => /loaded/.test(document.getElementById("message").textContent));
  await page.waitForFunction(() => document.body.dataset.pending === "0");
  assert.equal(await page.inputValue("#variant"), "othello");
  assert.deepEqual(await page.locator("#history li").allTextContents(), played);
  assert.equal(await page.locator("#board .disc").count(), 4, "the replay starts at the opening");
  await page.click("#forward");
  await page.waitForFunction(() => document.body.dataset.pending === "0");
  assert.equal(await page.locator("#board .disc").count(), 5);
  await page.click("#last");
  await settled(page);
  assert.equal(await page.locator("#board .disc").count(), 7);
});

await test("the engine's values are drawn on the legal squares", async (page) => {
  await newGame(page);
  await page.check("#show-engine");
  await page.waitForFunction(() => document.querySelectorAll("#board .note").length > 0);
  const legal = await page.locator("#board .cell.legal").count();
  assert.equal(await page.locator("#board .note").count(), legal);
  assert.match(await page.textContent("#analysis"), /: [+-]?\d/);
  await snap(page, "analysis");
});

const model = process.env.MODEL;

await test("a checkpoint's policy is drawn and its MCTS agent plays", async (page) => {
  assert.ok(model, "MODEL names the served checkpoint");
  await newGame(page, { white: `mcts:checkpoint=${model},simulations=16` });
  await page.selectOption("#network", model);
  await page.check("#show-network");
  await page.waitForFunction(() => /network: value/.test(document.getElementById("analysis").textContent));
  const notes = await page.locator("#board .note").allTextContents();
  assert.equal(notes.length, 4);
  const priors = notes.map((note) => Number(note.match(/(\d+)%/)[1]));
  assert.ok(Math.abs(priors.reduce((a, b) => a + b, 0) - 100) <= 4, `priors ${priors}`);
  await page.locator("#board .cell.legal").first().click();
  await settled(page);
  assert.equal(await page.locator("#history li").count(), 2, "Black's move and the network's reply");
  assert.match(await page.textContent("#message"), /^mcts:checkpoint=.* played [a-f][1-6] /);
});

// The exported static page, served as plain files (no flipzero server).
async function serveFiles(directory) {
  const { createServer } = await import("node:http");
  const { readFile } = await import("node:fs/promises");
  const { extname, normalize } = await import("node:path");
  const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".onnx": "application/octet-stream" };
  const server = createServer(async (request, response) => {
    const asked = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const path = asked === "/" ? "/index.html" : asked;
    try {
      const body = await readFile(join(directory, path));
      response.writeHead(200, { "content-type": types[extname(path)] || "application/octet-stream" });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

if (process.env.EXPORT_DIR) {
  const files = await serveFiles(process.env.EXPORT_DIR);
  const site = `http://127.0.0.1:${files.address().port}/`;
  await test("the exported page matches test-vectors.json in onnxruntime-web", async (page) => {
    await page.goto(`${site}index.html?check`);
    await page.waitForFunction(() => document.body.dataset.check, null, { timeout: 60_000 });
    assert.equal(await page.getAttribute("body", "data-check"), "done", await page.textContent("#message"));
    const result = JSON.parse(await page.textContent("#check"));
    console.log(`  exported page against test-vectors.json: ${JSON.stringify(result)}`);
    assert.ok(result.vectors >= 16);
    assert.equal(result.planes, 0, "the page's encoder writes flipzero's planes");
    assert.equal(result.legal_mismatches, 0, "the page's move generator finds flipzero's legal moves");
    for (const output of ["policy", "wdl", "score"]) assert.ok(result[output] < 1e-4, `${output}: ${result[output]}`);
  });
  await test("the exported page plays a game against its network", async (page) => {
    await page.goto(site);
    await page.waitForSelector("#board .cell.legal");
    assert.match(await page.textContent("#status"), /Black to move; the network gives the mover \d+% win/);
    await page.locator("#board .cell.legal").first().click();
    // The network answers as White: Black has a move again and the board has 6 discs.
    await page.waitForFunction(() => document.querySelectorAll("#board .disc").length === 6);
    await page.waitForSelector("#board .cell.legal");
    await snap(page, "exported");
  });
  files.close();
}

await browser.close();
if (failures > 0) {
  console.log(`${failures} failed; their screenshots are in ${scratch}`);
  process.exit(1);
}
