// Premoves: Blue queues moves by click and by drag while Red thinks, sees them on the board and
// listed, cancels them with Escape and with a right click, and a queued move is played the
// moment Blue's turn comes.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, screenshot, createRoom, sit, clickMove, waitForPly, axeViolations } from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const square = (name) => `.board [data-square="${name}"]`;

/** The premoves listed under the board, as shown. */
async function listed(page) {
  return page.locator('[data-role="premoves"] .premove').allInnerTexts();
}

test("premoves are queued while others move, cancelled, and played when the turn comes", async () => {
  const ann = (await person(browser)).page;
  const roomUrl = await createRoom(ann, server.url, { preset: "teams", name: "Ann" });
  // (The accessibility checker is injected as a script: the page's policy lets it in here.)
  const bob = (await person(browser, { bypassCSP: true })).page;
  await bob.goto(roomUrl);
  await bob.waitForSelector(".seat-card");
  await sit(bob, 1, "Bob");
  await ann.click('[data-action="start"]');
  await bob.waitForSelector(square("b7"));

  // Red thinks; Blue queues a move by click, then one by drag: both listed, both shaded.
  await bob.click(square("b7"));
  await bob.click(square("c7"));
  await bob.waitForFunction(() => document.querySelectorAll('[data-role="premoves"] .premove').length === 1);
  const from = await bob.locator(square("b8")).boundingBox();
  const to = await bob.locator(square("c8")).boundingBox();
  await bob.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await bob.mouse.down();
  await bob.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 6 });
  await bob.mouse.up();
  await bob.waitForFunction(() => document.querySelectorAll('[data-role="premoves"] .premove').length === 2);
  assert.deepEqual(await listed(bob), ["1. b7–c7", "2. b8–c8"]);
  assert.equal(await bob.locator(".board .sq.premoved-to").count(), 2);
  // The board shows the pawn where the premove puts it.
  assert.match(await bob.locator(square("c7")).getAttribute("aria-label"), /pawn.*your premove to here/);
  await screenshot(bob, "premoves");
  // Listed and shaded in a way everyone can read, in both themes.
  assert.deepEqual(await axeViolations(bob), []);
  await bob.click('button:has-text("Dark theme")');
  assert.deepEqual(await axeViolations(bob), []);

  // Escape cancels them all.
  await bob.locator(square("d7")).focus();
  await bob.keyboard.press("Escape");
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });
  assert.equal(await bob.locator(".board .sq.premoved").count(), 0);

  // Queued again, and cancelled by a right click.
  await bob.click(square("b7"));
  await bob.click(square("c7"));
  await bob.waitForSelector('[data-role="premoves"] .premove');
  await bob.click(square("h8"), { button: "right" });
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });

  // Queued once more; Red moves, and Blue's premove is played at once.
  await bob.click(square("b7"));
  await bob.click(square("c7"));
  await bob.waitForSelector('[data-role="premoves"] .premove');
  await clickMove(ann, "h2", "h4");
  await waitForPly(bob, 2);
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });
  const moves = (await bob.locator(".moves tbody td").allInnerTexts()).filter(Boolean);
  assert.equal(moves[1], "b7-c7");
  assert.deepEqual(ann.errors, []);
  assert.deepEqual(bob.errors, []);
  await ann.context().close();
  await bob.context().close();
});

/** Whether the element of `selector` is the topmost element at its own centre, inside the window. */
function uncovered(page, selector) {
  return page.evaluate((selector) => {
    const el = document.querySelector(selector);
    if (!el) return "missing";
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (r.width === 0 || x < 0 || y < 0 || x > innerWidth || y > innerHeight) return `outside the window at ${Math.round(x)},${Math.round(y)}`;
    const top = document.elementFromPoint(x, y);
    return top === el || el.contains(top) ? "ok" : `covered by ${top ? top.outerHTML.slice(0, 80) : "nothing"}`;
  }, selector);
}

test("the queue stays in view beside the moves since yours, at every size; Escape from anywhere; a dropped premove says why", async () => {
  const ann = (await person(browser)).page;
  const roomUrl = await createRoom(ann, server.url, { preset: "teams", name: "Ann" });
  const bob = (await person(browser)).page;
  await bob.goto(roomUrl);
  await bob.waitForSelector(".seat-card");
  await sit(bob, 1, "Bob");
  await ann.click('[data-action="start"]');
  await bob.waitForSelector(square("b7"));
  // A round: Red, Blue, then the CPUs; on Red's next turn Blue's note lists the moves since
  // Blue's, and Blue queues a move.
  await clickMove(ann, "h2", "h4");
  await clickMove(bob, "b7", "c7");
  await waitForPly(ann, 4);
  await bob.waitForSelector('[data-role="since"] .since-move');
  await bob.click(square("b8"));
  await bob.click(square("c8"));
  await bob.waitForSelector('[data-role="premoves"] .premove');
  for (const [width, height] of [[1280, 720], [1366, 768], [1920, 1080], [390, 844]]) {
    await bob.setViewportSize({ width, height });
    await bob.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await bob.evaluate(() => document.querySelector(".board-col").scrollIntoView({ block: "start" }));
    assert.ok(await bob.locator('[data-role="since"] .since-move').first().isVisible(), `the moves since Blue's at ${width}×${height}`);
    assert.equal(await uncovered(bob, '[data-action="cancel-premoves"]'), "ok", `the cancel button at ${width}×${height}`);
    assert.equal(await uncovered(bob, '[data-role="premoves"] .premove'), "ok", `the queued move at ${width}×${height}`);
  }
  await bob.setViewportSize({ width: 1280, height: 720 });
  await screenshot(bob, "premoves-with-since-line");
  // Reviewing an earlier position, the queue is still listed with its cancel button, and a
  // right click on the board cancels it.
  await bob.click('.moves td[data-ply="1"]');
  await bob.waitForSelector('[data-role="review"]:not([hidden])');
  assert.equal(await uncovered(bob, '[data-action="cancel-premoves"]'), "ok", "the cancel button under review");
  assert.equal(await uncovered(bob, '[data-action="back-to-game"]'), "ok", "the way back to the game under review");
  await bob.click(square("h8"), { button: "right" });
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });
  await bob.click(square("b8"));
  await bob.click(square("c8"));
  await bob.waitForSelector('[data-role="premoves"] .premove');

  // Escape with the focus on the page's body (a mouse player who clicked elsewhere) cancels.
  await bob.click(".players-card");
  await bob.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  assert.equal(await bob.evaluate(() => document.activeElement === document.body), true);
  await bob.keyboard.press("Escape");
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });
  // Escape in a text field is the field's: the queue stays.
  await bob.click(square("b8"));
  await bob.click(square("c8"));
  await bob.waitForSelector('[data-role="premoves"] .premove');
  await bob.focus(".chat-input");
  await bob.keyboard.press("Escape");
  await bob.waitForTimeout(300);
  assert.equal(await bob.locator('[data-role="premoves"] .premove').count(), 1);
  await bob.click('[data-action="cancel-premoves"]');
  await bob.waitForSelector('[data-role="premoves"]', { state: "hidden" });

  // A move that is not legal when Blue's turn comes (a pawn three squares on) is dropped, and
  // Blue is told why, where the queue was, and by the screen reader.
  await bob.click(square("b9"));
  await bob.click(square("e9"));
  await bob.waitForSelector('[data-role="premoves"] .premove');
  await clickMove(ann, "h4", "h5");
  const dropped = await bob.waitForSelector('[data-role="premove-dropped"]');
  assert.equal(await dropped.innerText(), "Your premove b9–e9 was dropped: the position changed.");
  await bob.waitForFunction(() => /Your premove b9–e9 was dropped: the position changed\./.test(document.querySelector("#announce-now").textContent));
  assert.equal(await uncovered(bob, '[data-action="dismiss-dropped"]'), "ok");
  await screenshot(bob, "premove-dropped");
  // It stays until Blue moves (or dismisses it).
  await clickMove(bob, "b9", "c9");
  await bob.waitForSelector('[data-role="premove-dropped"]', { state: "detached" });
  assert.deepEqual(ann.errors, []);
  assert.deepEqual(bob.errors, []);
  await ann.context().close();
  await bob.context().close();
});

test("Duo: the queue stays in view beside the moves since yours, at every size", async () => {
  const ann = (await person(browser)).page;
  const roomUrl = await createRoom(ann, server.url, { preset: "duo", name: "Ann", teamClock: 5 });
  const bob = (await person(browser)).page;
  await bob.goto(roomUrl);
  await bob.waitForSelector(".seat-card");
  // W1 Ann, B1 the CPU, W2 the CPU, B2 Bob: while Bob thinks, Ann's note lists B1's and W2's moves.
  await sit(bob, 3, "Bob");
  await ann.click('[data-action="start"]');
  await clickMove(ann, "g1", "f3");
  await waitForPly(ann, 3);
  await ann.waitForSelector('[data-role="since"] .since-move');
  // A pawn of White's still at home (W2 shares the pieces and may have moved one).
  const pieces = await ann.evaluate(() => window.fourkings.state.game.pieces);
  const file = ["h", "a", "b", "g", "c", "f"].find((f) => pieces[`${f}2`] === "wP" && !pieces[`${f}3`]);
  await ann.click(square(`${file}2`));
  await ann.click(square(`${file}3`));
  await ann.waitForSelector('[data-role="premoves"] .premove');
  for (const [width, height] of [[1280, 720], [1366, 768], [1920, 1080], [390, 844]]) {
    await ann.setViewportSize({ width, height });
    await ann.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await ann.evaluate(() => document.querySelector(".board-col").scrollIntoView({ block: "start" }));
    assert.ok(await ann.locator('[data-role="since"] .since-move').first().isVisible(), `the moves since Ann's at ${width}×${height}`);
    assert.equal(await uncovered(ann, '[data-action="cancel-premoves"]'), "ok", `the cancel button at ${width}×${height}`);
  }
  assert.deepEqual(ann.errors, []);
  await ann.context().close();
  await bob.context().close();
});
