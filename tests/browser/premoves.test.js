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
