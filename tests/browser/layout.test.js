// The game fits the screen: at 1280×720, 1366×768, 1920×1080 and on a phone (390×844), every
// plate and clock, the turn line and the board are inside the window without scrolling, in
// Teams, free-for-all and Duo; on a phone the board and the turn line are in view after Start.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, screenshot, createRoom, sit, waitForMyTurn, playSomething, waitForPly } from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
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
  return page.evaluate(() => {
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
  });
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
