// Duo on the 8 × 8 board with team clocks, and a phone in portrait playing a move by touch.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  withServerAndBrowser, person, screenshot, createRoom, sit, dragMove, waitForPly, waitForMyTurn, playSomething, tapMove, ply,
} from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

test("a Duo game with team clocks makes moves", async () => {
  const { page } = await person(browser);
  await createRoom(page, server.url, { preset: "duo", teamClock: 5 });
  assert.match(await page.locator(".settings-summary, .settings-form").first().innerText(), /.+/);
  await sit(page, 0, "Eve");
  await page.click('[data-action="start"]');
  await page.waitForSelector(".board-wrap.classic .board .sq");
  assert.equal(await page.locator(".board .sq").count(), 64);
  // White at the bottom for W1.
  const board = await page.locator(".board").boundingBox();
  const e1 = await page.locator('.board [data-square="e1"]').boundingBox();
  assert.ok(e1.y > board.y + board.height * 0.8);
  await waitForMyTurn(page);
  await dragMove(page, "e2", "e4");
  // B1, W2 and B2 are CPUs: they answer, and it is W1's move again.
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  // The clock of the side to move counts down.
  const bank = page.locator('.bank.running .bank-time');
  const first = await bank.innerText();
  await page.waitForFunction(
    (first) => document.querySelector(".bank.running .bank-time")?.innerText !== first,
    first,
  );
  assert.match(first, /^[45]:\d\d$/);
  await playSomething(page, [["d2", "d4"], ["g1", "f3"], ["b1", "c3"]]);
  await waitForPly(page, 5);
  const moves = (await page.locator(".moves tbody td").allInnerTexts()).filter(Boolean);
  assert.ok(moves.length >= 5);
  assert.equal(moves[0], "e4");
  await screenshot(page, "duo");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a phone in portrait can play a move by touch", async () => {
  const { page, context } = await person(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await page.goto(server.url + "/");
  await page.waitForSelector(".presets");
  await screenshot(page, "phone-home");
  await createRoom(page, server.url, { preset: "teams", turnLimit: 30 });
  await screenshot(page, "phone-lobby", { fullPage: true });
  await sit(page, 0, "Pia");
  await page.tap('[data-action="start"]');
  await page.waitForSelector(".board .sq");
  const board = await page.locator(".board").boundingBox();
  assert.ok(board.width <= 390 && board.width >= 340, `the board fits the width (${board.width})`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `nothing sticks out sideways (${width})`);
  await waitForMyTurn(page);
  // The turn limit counts down from the server's deadline.
  const timer = page.locator(".turn-timer");
  assert.match(await timer.innerText(), /^0:(30|29|28)$/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await tapMove(page, "h2", "h4");
  assert.equal((await page.locator(".moves tbody td").allInnerTexts())[0], "h2-h4");
  await waitForPly(page, 4);
  assert.ok((await ply(page)) >= 4);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, "phone-game");
  assert.deepEqual(page.errors, []);
  await context.close();
});
