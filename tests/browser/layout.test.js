// The game fits the screen: at 1280×720, 1366×768, 1920×1080 and on a phone (390×844), every
// plate and clock, the turn line and the board are inside the window without scrolling, in
// Teams, free-for-all and Duo; on a phone the board and the turn line are in view after Start.
// The board holds still while the turn passes and the lines above it change, and a chat message
// that comes while the chat is out of view is counted on a button that leads to it.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launchBrowser, person, screenshot, createRoom, sit, waitForMyTurn, playSomething, waitForPly } from "./helpers.js";

let server;
let browser;

before(async () => {
  // The CPUs think a moment on each move (not up to 5 s), so that many turns pass quickly and
  // each is drawn.
  server = await startServer(["--cpu-think-seconds", "0.3"]);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const DESKTOPS = [
  [1280, 720],
  [1366, 768],
  [1920, 1080],
];

/**
 * What of the game lies outside the window at the page's scroll position: each element that
 * must be seen (the board, the turn line, every plate, timer and Duo bank) with its box.
 */
function outside(page) {
  return page.evaluate(outsideInPage);
}

/** In the page: what of the game lies outside the window (see `outside`). */
function outsideInPage() {
  {
    const must = [".board", ".turn-line", ".plate-inner", ".bank", ".turn-line .timer"];
    const out = [];
    for (const selector of must) {
      for (const el of document.querySelectorAll(selector)) {
        if (!(el instanceof Element) || el.closest("[hidden]")) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) {
          out.push(`${selector}${el instanceof HTMLElement && el.dataset.seat ? `[${el.dataset.seat}]` : ""} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)}`);
        }
      }
    }
    return out;
  }
}

/** Opens a room of `preset` with one person at seat 0 and the CPU elsewhere, and starts it. */
async function started(preset, viewport) {
  const { page, context } = await person(browser, { viewport });
  await createRoom(page, server.url, { preset, turnLimit: 30, ...(preset === "duo" ? { teamClock: 5 } : {}) });
  await sit(page, 0, "Ann");
  await page.click('[data-action="start"]');
  await page.waitForSelector(".board .sq");
  return { page, context };
}

for (const preset of ["teams", "ffa", "duo"]) {
  test(`${preset}: the board, the turn line and every plate and clock fit each desktop window`, async () => {
    const { page, context } = await started(preset, { width: 1280, height: 720 });
    // A round played: the moves since Red's are in words above the board.
    await playSomething(page);
    await waitForPly(page, 4);
    await waitForMyTurn(page);
    assert.ok((await page.locator('[data-role="since"] .since-move').count()) > 0);
    for (const [width, height] of DESKTOPS) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      assert.equal(await page.evaluate(() => scrollY), 0);
      assert.deepEqual(await outside(page), [], `${preset} at ${width}×${height}`);
      if (width === 1280) await screenshot(page, `layout-${preset}-${width}x${height}`);
    }
    await context.close();
  });
}

for (const preset of ["teams", "duo"]) {
  test(`${preset} on a phone: after Start the board and the turn line are in view`, async () => {
    const { page, context } = await started(preset, { width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.waitForFunction(() => document.querySelector(".turn-line")?.textContent !== "");
    const inView = await page.evaluate(() => ["board", "turn-line"].map((name) => {
      const r = document.querySelector(`.${name}`).getBoundingClientRect();
      return { name, top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    }));
    for (const box of inView) {
      assert.ok(box.top >= -0.5 && box.bottom <= 844.5 && box.left >= -0.5 && box.right <= 390.5, `${preset}: ${JSON.stringify(box)}`);
    }
    await screenshot(page, `layout-${preset}-phone`);
    await context.close();
  });
}

const SIZES = [...DESKTOPS, [390, 844]];

/**
 * Quiet moves for Red (White in Duo) that keep its king covered, so that eight moves of play
 * without a thought do not lose the game to the CPUs first.
 */
const QUIET = {
  cross: [["e1", "f3"], ["j2", "j3"], ["j1", "i3"], ["d2", "d3"], ["k2", "k3"], ["e2", "e3"], ["g2", "g3"], ["d3", "d4"], ["k3", "k4"], ["f3", "d2"]],
  classic: [["g1", "f3"], ["b1", "c3"], ["e2", "e3"], ["d2", "d3"], ["b2", "b3"], ["g2", "g3"], ["a2", "a3"], ["h2", "h3"], ["c1", "d2"], ["f1", "e2"]],
};

/**
 * In the page: records, every frame until `stop()`, the board's top and whatever of the game
 * lies outside the window, with the turn line's text.
 */
function record() {
  const frames = [];
  let running = true;
  const outside = new Function(`return (${window.outsideSource})()`);
  const step = () => {
    if (!running) return;
    const board = document.querySelector(".board");
    if (board) frames.push({ top: board.getBoundingClientRect().top, turn: document.querySelector(".turn-line")?.textContent || "", out: outside() });
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
  window.stopRecording = () => {
    running = false;
    return frames;
  };
}

for (const preset of ["teams", "ffa", "duo"]) {
  test(`${preset}: the board holds still over eight turn changes at every size, everything in the window`, async () => {
    // A game for each size: eight moves of play without a thought may lose a game to the CPUs
    // before all four sizes are seen.
    for (const [width, height] of SIZES) {
      const { page, context } = await started(preset, { width, height });
      await page.evaluate((source) => (window.outsideSource = source), outsideInPage.toString());
      await waitForMyTurn(page);
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      // On a phone the page scrolls: it is left where Start put it, the board in view.
      const scroll = await page.evaluate(() => scrollY);
      await page.evaluate(record);
      // Eight turn changes: two of Red's moves, and the three others' after each.
      const quiet = QUIET[preset === "duo" ? "classic" : "cross"];
      await playSomething(page, quiet);
      await waitForMyTurn(page);
      await playSomething(page, quiet);
      await waitForPly(page, 8);
      await waitForMyTurn(page);
      const frames = await page.evaluate(() => window.stopRecording());
      assert.equal(await page.evaluate(() => scrollY), scroll, `${preset} at ${width}×${height}: the page did not scroll`);
      const tops = frames.map((f) => f.top);
      const turns = new Set(frames.map((f) => f.turn));
      assert.ok(turns.size >= 3, `${preset} at ${width}×${height}: the turn line changed (${[...turns].join(" | ")})`);
      assert.ok(Math.max(...tops) - Math.min(...tops) <= 2, `${preset} at ${width}×${height}: the board's top moved from ${Math.min(...tops)} to ${Math.max(...tops)}`);
      const out = frames.find((f) => f.out.length);
      assert.equal(out, undefined, `${preset} at ${width}×${height}: ${out ? out.out.join("; ") : ""} (the turn line said "${out ? out.turn : ""}")`);
      if (width === 390) await screenshot(page, `still-${preset}-phone`);
      await context.close();
    }
  });
}

test("a chat message while the chat is out of view is counted on a button that leads to it", async () => {
  const ann = await person(browser, { viewport: { width: 1280, height: 720 } });
  const roomUrl = await createRoom(ann.page, server.url, { preset: "teams", name: "Ann" });
  const bob = await person(browser);
  await bob.page.goto(roomUrl);
  await bob.page.waitForSelector(".seat-card");
  await sit(bob.page, 1, "Bob");
  await ann.page.click('[data-action="start"]');
  await ann.page.waitForSelector(".board .sq");
  await bob.page.waitForSelector(".board .sq");
  // Ann's chat is below the fold at 1280×720.
  const chatTop = await ann.page.evaluate(() => document.querySelector(".chat-list").getBoundingClientRect().top);
  assert.ok(chatTop > 720, `the chat is out of view (${chatTop})`);
  for (const [i, words] of ["hello", "good luck"].entries()) {
    await bob.page.fill(".chat-input", words);
    await bob.page.press(".chat-input", "Enter");
    await ann.page.waitForFunction((n) => document.querySelector('[data-action="unread-chat"]')?.textContent.startsWith(`${n} new chat`), i + 1);
  }
  const button = ann.page.locator('[data-action="unread-chat"]');
  assert.equal(await button.innerText(), "2 new chat messages ↓");
  const box = await button.boundingBox();
  assert.ok(box.y >= 0 && box.y + box.height <= 720, "the count is in view");
  await screenshot(ann.page, "chat-unread");
  await button.click();
  await ann.page.waitForSelector('[data-action="unread-chat"]', { state: "hidden" });
  await ann.page.waitForFunction(() => {
    const r = document.querySelector(".chat-list").getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  });
  assert.equal(await ann.page.evaluate(() => document.activeElement?.classList.contains("chat-input")), true);
  assert.ok(await ann.page.locator('.chat-text:text-is("good luck")').isVisible());
  // A message that comes while the chat is in view is not counted.
  await bob.page.fill(".chat-input", "gg");
  await bob.page.press(".chat-input", "Enter");
  await ann.page.waitForSelector('.chat-text:text-is("gg")');
  assert.equal(await button.isHidden(), true);
  assert.deepEqual(ann.page.errors, []);
  await ann.context.close();
  await bob.context.close();
});
