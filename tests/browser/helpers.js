// Shared by the browser tests: the real server binary, a real headless Chromium, and small
// steps that act through the page the way a person would (clicks, drags, keys, taps).

import { before, after } from "node:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, "..", "..");
export const SHOTS = join(here, "screenshots");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
// run.sh builds it once for every file (each test file runs in its own process).
const BINARY = process.env.FOURKINGS_BINARY || join(ROOT, "target", "debug", "fourkings");
const CLUSTER = process.env.FOURKINGS_TEST_CLUSTER || join(ROOT, "target", "debug", "test-cluster");
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Starts a server and a browser before a file's tests, hands them to `use`, and stops both after
 * the last test: the set-up every browser test file shares.
 */
export function withServerAndBrowser(use) {
  let server;
  let browser;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    use(server, browser);
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
  });
}

/**
 * Starts the server binary on a free port; resolves `{url, stop, restart}`.
 * `restart()` stops it with SIGTERM (as a deployment does) and starts it again on the same port
 * and database; it resolves once the new process listens.
 */
export async function startServer(extraArgs = []) {
  if (!existsSync(BINARY)) {
    throw new Error(`no server binary at ${BINARY}: run the browser tests with tests/browser/run.sh, which builds it`);
  }
  // Each server keeps its rooms in its own SQLite file, as a real deployment does.
  const dataDir = mkdtempSync(join(tmpdir(), "fourkings-browser-"));
  // The tests' defaults, each flag given in `extraArgs` left to it (a flag may be given once).
  const defaults = [
    ["--grace-seconds", "3"],
    ["--rate-per-second", "1000"],
    ["--rate-burst", "2000"],
    ["--chat-per-minute", "1000"],
    // Every browser of a test comes from 127.0.0.1: no limits per client address.
    ["--room-creations-per-minute", "0"],
    ["--max-connections-per-address", "0"],
    ["--max-sockets-per-address", "0"],
  ].filter(([flag]) => !extraArgs.includes(flag));
  const args = (addr) => ["serve", "--addr", addr, "--database", join(dataDir, "rooms.db"), ...defaults.flat(), ...extraArgs];
  let child;
  const launch = (addr) => {
    child = spawn(BINARY, args(addr), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn" } });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
      if (stderr.length > 20000) stderr = stderr.slice(-10000);
    });
    const started = child;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start:\n${stderr}`)), 20000);
      const lines = createInterface({ input: started.stdout });
      lines.on("line", (line) => {
        const m = /listening on (http:\/\/\S+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      started.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${stderr}`)));
    });
  };
  const terminate = () =>
    new Promise((resolve) => {
      const running = child;
      if (running.exitCode !== null) return resolve();
      running.on("exit", resolve);
      running.kill("SIGTERM");
      setTimeout(() => running.kill("SIGKILL"), 5000).unref();
    });
  const url = await launch("127.0.0.1:0");
  return {
    url,
    stop: async () => {
      await terminate();
      rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async () => {
      await terminate();
      await launch(new URL(url).host);
    },
  };
}

/**
 * Starts a PostgreSQL server and `nodes` nodes of a cluster over it (tests/src/bin/test_cluster.rs,
 * with the tests' defaults); resolves `{urls, stop}`, one URL a node.
 */
export async function startCluster(nodes = 3) {
  if (!existsSync(CLUSTER)) {
    throw new Error(`no cluster starter at ${CLUSTER}: run the browser tests with tests/browser/run.sh, which builds it`);
  }
  const serve = ["--grace-seconds", "3", "--rate-per-second", "1000", "--rate-burst", "2000", "--room-creations-per-minute", "0", "--max-connections-per-address", "0", "--max-sockets-per-address", "0"];
  const child = spawn(CLUSTER, ["--server", BINARY, "--nodes", String(nodes), "--", ...serve], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 20000) stderr = stderr.slice(-10000);
  });
  const urls = await new Promise((resolve, reject) => {
    const found = [];
    const timer = setTimeout(() => reject(new Error(`the cluster did not start:\n${stderr}`)), 60000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = /^node (http:\/\/\S+)/.exec(line);
      if (m) found.push(m[1]);
      if (line === "ready") {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.on("exit", (code) => reject(new Error(`the cluster exited (${code}):\n${stderr}`)));
  });
  return {
    urls,
    // Closing its input stops the nodes and PostgreSQL.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on("exit", resolve);
        child.stdin.end();
        setTimeout(() => child.kill("SIGKILL"), 20000).unref();
      }),
  };
}

/**
 * Starts Chromium. A Chromium that dies while starting, before any test has used it, is started
 * once more, saying so: with both cores busy, one launch in about fifty ended in a segmentation
 * fault inside Chromium (2026-12-07), which no test of ours could have caused.
 */
export async function launchBrowser() {
  try {
    return await launchOnce();
  } catch (e) {
    if (!/Target page, context or browser has been closed|process did exit/.test(e.message)) throw e;
    console.error(`Chromium died while starting (${/signal=(\w+)/.exec(e.message)?.[1] ?? "no signal"}); starting it once more`);
    return launchOnce();
  }
}

function launchOnce() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  // Playwright gives every launch a fresh, temporary profile (its own --user-data-dir).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A person: a browser context of their own (their own localStorage) and one page. */
export async function person(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  context.setDefaultTimeout(15000);
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && !/WebSocket|Failed to load resource/.test(m.text())) page.errors.push(m.text());
  });
  return { context, page };
}

/** Waits until no animation runs on the page but endless ones (a piece sliding, a fade). */
export async function settled(page) {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity));
}

export async function screenshot(page, name, options = {}) {
  await settled(page);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), ...options });
}

export async function ply(page) {
  return Number(await page.evaluate(() => document.body.dataset.ply || "0"));
}

/**
 * What the page holds, for a wait's failure: the room's status and version, the ply, whose move,
 * the page's seats, the armies, the result, the connection, the premoves and the moves' times, so
 * that a wait that fails on a busy machine says what it saw instead of only that it waited.
 */
export async function pageState(page) {
  return page
    .evaluate(() => {
      const s = window.fourkings?.state;
      if (!s) return { page: location.pathname, state: "no room state" };
      const g = s.game;
      return {
        page: location.pathname,
        status: s.status,
        v: s.v,
        ply: g?.ply,
        toMove: g?.to_move,
        yourSeats: s.yourSeats,
        armies: g?.armies,
        result: g?.result ?? null,
        clock: g?.clock,
        legal: s.legal ? { seat: s.legal.seat, ply: s.legal.ply, moves: s.legal.moves?.length } : null,
        premoves: s.premoves,
        connection: document.querySelector(".conn-banner:not([hidden])")?.textContent ?? "connected",
        layout: document.querySelector(".game-layout")?.className ?? "no game layout",
        now: new Date().toISOString(),
      };
    })
    .catch((e) => ({ state: `unreadable: ${e.message}` }));
}

/** Runs `wait`; when it fails, the error says `what` was awaited and what the page held then. */
async function explained(page, what, wait) {
  try {
    return await wait();
  } catch (e) {
    e.message = `${e.message}\nwaited for ${what}; the page held ${JSON.stringify(await pageState(page))}`;
    throw e;
  }
}

/** Waits until the page has seen at least `n` plies. */
export async function waitForPly(page, n, timeout = 15000) {
  await explained(page, `ply ${n}`, () => page.waitForFunction((n) => Number(document.body.dataset.ply || "0") >= n, n, { timeout }));
}

/**
 * Waits until `page` holds at least the version `other` holds: it has taken in every event that
 * `other` had (each shaped for its own seats: another team's chat, or the spectators', comes to
 * it as a hidden event with its version), so that what it was not sent can be asserted absent.
 */
export async function caughtUpWith(page, other) {
  const v = await other.evaluate(() => window.fourkings.state.v);
  await page.waitForFunction((v) => window.fourkings.state.v >= v, v);
}

/** Waits until it is this page's move: its legal moves are on the board. */
export async function waitForMyTurn(page, timeout = 15000) {
  await explained(page, "this page's turn", () => page.waitForSelector(".game-layout.my-turn .board .sq.movable", { timeout }));
}

const sq = (name) => `.board [data-square="${name}"]`;

/** Click-click: the piece, then the square. Resolves when the move is on this page's board. */
export async function clickMove(page, from, to) {
  const before = await ply(page);
  await page.click(sq(from));
  await page.waitForSelector(`${sq(to)}.target`);
  await page.click(sq(to));
  await waitForPly(page, before + 1);
}

/** Drag and drop with the mouse (pointer events). */
export async function dragMove(page, from, to) {
  const before = await ply(page);
  const a = await page.locator(sq(from)).boundingBox();
  const b = await page.locator(sq(to)).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 8, a.y + a.height / 2 + 8, { steps: 2 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 6 });
  await page.mouse.up();
  await waitForPly(page, before + 1);
}

/** Touch: tap the piece, tap the square. */
export async function tapMove(page, from, to) {
  const before = await ply(page);
  await page.tap(sq(from));
  await page.waitForSelector(`${sq(to)}.target`);
  await page.tap(sq(to));
  await waitForPly(page, before + 1);
}

/**
 * Plays the first of `candidates` ([from, to] pairs) that is legal now, or else any legal move,
 * choosing through the board as a person would (select a piece, see its targets).
 */
export async function playSomething(page, candidates = []) {
  await waitForMyTurn(page);
  for (const [from, to] of candidates) {
    const movable = await page.locator(`${sq(from)}.movable`).count();
    if (!movable) continue;
    await page.click(sq(from));
    if (await page.locator(`${sq(to)}.target`).count()) {
      const before = await ply(page);
      await page.click(sq(to));
      await waitForPly(page, before + 1);
      return [from, to];
    }
    await page.keyboard.press("Escape");
  }
  const from = await page.locator(".board .sq.movable").first().getAttribute("data-square");
  await page.click(sq(from));
  const to = await page.locator(".board .sq.target").first().getAttribute("data-square");
  const before = await ply(page);
  await page.click(sq(to));
  const chooser = page.locator(".chooser-btn");
  if (await chooser.count()) await chooser.first().click();
  await waitForPly(page, before + 1);
  return [from, to];
}

/** Takes a seat in the lobby under a name. */
export async function sit(page, seat, name) {
  await page.fill("#your-name", name);
  await page.click(`.seat-card[data-seat="${seat}"] [data-action="sit"]`);
  await page.waitForSelector(`.seat-card.mine[data-seat="${seat}"]`);
}

/**
 * Creates a room through the home page; returns the room's URL. With `name` the host plays and
 * is seated at Red when the room opens; without it the host chooses to watch (and may `sit`).
 * `gameClock` names one of the offered controls (`"1 | 7"`).
 */
export async function createRoom(page, baseUrl, { preset = "teams", teamClock = null, gameClock = null, turnLimit = null, name = null } = {}) {
  await page.goto(baseUrl + "/");
  await page.click(`.preset[data-preset="${preset}"]`);
  if (teamClock !== null) await page.click(`.duo-only .segment:has(input[value="${teamClock}"])`);
  if (gameClock !== null) await page.click(`.not-duo .segment:has(input[value="${gameClock}"])`);
  if (turnLimit !== null) await page.click(`.segmented .segment:has(input[value="${turnLimit}"]) >> nth=0`);
  if (name === null) await page.click('.host-role .segment:has(input[value="watch"])');
  else await page.fill("#host-name", name);
  await page.click('button:has-text("Create room")');
  await page.waitForURL(/\/r\/[0-9a-z]{13}$/);
  await page.waitForSelector(".seat-card");
  if (name !== null) await page.waitForSelector('.seat-card.mine[data-seat="0"]');
  return page.url();
}

export function text(page, selector) {
  return page.locator(selector).innerText();
}

/**
 * What axe-core's WCAG 2.1 A and AA rules find on the page, in words (rule, impact, the first
 * elements). The page's context must bypass the content security policy (`person(browser,
 * {bypassCSP: true})`), which allows no script but the server's own.
 */
export async function axeViolations(page, rules = null) {
  // Colours are judged as they settle, not halfway through a fade.
  await settled(page);
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async (rules) => {
    const only = rules ? { type: "rule", values: rules } : { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] };
    const result = await window.axe.run(document, { runOnly: only });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")} ${n.failureSummary.split("\n").slice(1, 2).join("")}`).join(" | ")}`);
  }, rules);
}
