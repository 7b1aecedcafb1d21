// The move list of a long game at 1280 × 720: all four columns without clipping, reached and
// scrolled by the keyboard, the move under review kept in view, during the game and after it.
// The CPUs play random moves here (--cpu-strategy random), so that a long game is quick.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launchBrowser, person, createRoom } from "./helpers.js";

let server;
let browser;
let page;

before(async () => {
  server = await startServer(["--cpu-strategy", "random"]);
  browser = await launchBrowser();
  ({ page } = await person(browser, { viewport: { width: 1280, height: 720 } }));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

/** Whether the move under review is inside the move list's visible part. */
function currentInView() {
  return page.evaluate(() => {
    const cell = document.querySelector(".moves td.current");
    const list = document.querySelector(".moves-scroll");
    if (!cell || !list) return false;
    const c = cell.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    return c.top >= l.top - 1 && c.bottom <= l.bottom + 1;
  });
}

test("a long game's move list shows four columns, is reached and scrolled by keys, and keeps the reviewed move in view", async () => {
  // Random players now and then mate early: such a game is too short, and a new room is made,
  // a few times at most.
  for (let attempt = 1; ; attempt++) {
    await createRoom(page, server.url, {});
    await page.click('[data-action="start"]');
    await page.click("dialog.confirm [data-confirm]");
    await page.waitForFunction(
      () => Number(document.body.dataset.ply || "0") >= 60 || document.body.dataset.status === "finished",
      null,
      { timeout: 60000 },
    );
    if (Number(await page.evaluate(() => document.body.dataset.ply || "0")) >= 60) break;
    assert.ok(attempt < 5, "five random games in a row ended before ply 60");
  }
  // Four columns, none cut off.
  const fit = await page.$eval(".moves-scroll", (list) => ({ scroll: list.scrollWidth, client: list.clientWidth, columns: list.querySelectorAll("thead th").length }));
  assert.equal(fit.columns, 5);
  assert.ok(fit.scroll <= fit.client + 1, `the list is ${fit.scroll}px wide in ${fit.client}px`);

  // The keyboard reaches the list (Tab from the board's tools) and scrolls it.
  await page.focus('[data-action="turn-board"]');
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.classList.contains("moves-scroll"));
  }
  assert.ok(reached, "Tab reaches the move list");
  await page.$eval(".moves-scroll", (list) => (list.scrollTop = 0));
  await page.keyboard.press("PageDown");
  // Chromium scrolls by keys smoothly: wait until the list has moved and come to rest.
  await page.evaluate(() => new Promise((resolve) => {
    const list = document.querySelector(".moves-scroll");
    let last = -1;
    const step = () => {
      if (list.scrollTop > 0 && list.scrollTop === last) resolve();
      else {
        last = list.scrollTop;
        requestAnimationFrame(step);
      }
    };
    requestAnimationFrame(step);
  }));

  // Home and the right arrow: the first move, in view; End: live again.
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector('.moves td.current[data-ply="1"]');
  assert.ok(await currentInView(), "the first move is in view");
  await page.keyboard.press("End");
  await page.waitForSelector('[data-role="review"]', { state: "hidden" });
  // A move in the middle, clicked, stays in view while the game goes on below it.
  await page.$eval(".moves-scroll", (list) => (list.scrollTop = list.scrollHeight / 2));
  const middle = await page.$eval(".moves-scroll", (list) => {
    const r = list.getBoundingClientRect();
    const cell = document.elementFromPoint(r.left + r.width * 0.4, r.top + r.height / 2)?.closest("td[data-ply]");
    return cell ? cell.getAttribute("data-ply") : null;
  });
  assert.ok(middle, "a move in the middle of the list");
  await page.click(`.moves td[data-ply="${middle}"]`);
  await page.waitForSelector(`.moves td.current[data-ply="${middle}"]`);
  const ply = await page.evaluate(() => window.fourkings.state.game.ply);
  // Drawn (the page's ply moves on once the new move is drawn), or the game ended meanwhile.
  await page.waitForFunction((n) => Number(document.body.dataset.ply) > n || !!window.fourkings.state.game.result, ply);
  assert.ok(await currentInView(), "the reviewed move stays in view");
  assert.deepEqual(page.errors, []);
});
