// axe-core's WCAG 2.1 A and AA rules find nothing on the home page, the lobby, a game in play
// seen by a player and by a spectator (and with a position under review), and a finished game's
// result; an illegal keyboard move is announced with the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, createRoom, sit, waitForMyTurn, clickMove, waitForPly, axeViolations as violations } from "./helpers.js";

let server;
let browser;
let player;
let roomUrl;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** A person whose pages may take axe's script (the server's policy allows no other script). */
function auditor(options = {}) {
  return person(browser, { bypassCSP: true, ...options });
}

/** What axe found, by the page seen; every test asserts it found nothing. */
let found = {};

/** Asserts that nothing was found since the last check. */
function assertNoneFound() {
  const all = Object.entries(found).filter(([, list]) => list.length);
  found = {};
  assert.deepEqual(all, []);
}


test("the home page and the lobby", async () => {
  ({ page: player } = await auditor());
  await player.goto(server.url + "/");
  await player.waitForSelector(".presets");
  found["home page"] = await violations(player);
  roomUrl = await createRoom(player, server.url, { preset: "teams" });
  found["lobby, nobody seated"] = await violations(player);
  await sit(player, 0, "Ann");
  found["lobby, seated as host"] = await violations(player);
  assertNoneFound();
});

test("a game in play, seen by a player, under review and by a spectator", async () => {
  await player.click('[data-action="start"]');
  await waitForMyTurn(player);
  await clickMove(player, "h2", "h4");
  await waitForPly(player, 4);
  await waitForMyTurn(player);
  found["a player's game"] = await violations(player);
  await player.click('.moves td[data-ply="2"]');
  await player.waitForSelector('[data-role="review"]:not([hidden])');
  found["a position under review"] = await violations(player);
  await player.click('[data-action="back-to-game"]');
  const { page: spectator } = await auditor();
  await spectator.goto(roomUrl);
  await spectator.waitForSelector(".board .sq");
  await waitForPly(spectator, 4);
  found["a spectator's game"] = await violations(spectator);
  await spectator.context().close();
  assertNoneFound();
});

test("an illegal keyboard move is announced with the reason", async () => {
  await waitForMyTurn(player);
  await player.focus('.board [data-square="h4"]');
  await player.keyboard.press("Enter");
  await player.waitForSelector('.board [data-square="h4"].selected');
  // Left of h4 is g4: a pawn does not move sideways.
  await player.keyboard.press("ArrowLeft");
  await player.keyboard.press("Enter");
  await player.waitForFunction(() => /g4 is not a legal move for the red pawn on h4/.test(document.querySelector("#announce-now").textContent));
});

test("a finished game's result", async () => {
  player.once("dialog", () => {});
  await player.click('[data-action="resign"]');
  await player.click('dialog.confirm button:has-text("Resign")');
  await player.waitForSelector(".result");
  found["the result"] = await violations(player);
  assertNoneFound();
});

test("a game clock's banks on the plates, running and low, in the light and the dark theme", async () => {
  const { page, context } = await auditor();
  await createRoom(page, server.url, { preset: "ffa", name: "Eve", gameClock: "1 | 7" });
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  // Red to move with 8 s left, Blue low too, as the server would send them.
  const lowOnTime = () => page.evaluate(() => {
    window.fourkings.state.game.clock = { turn_ends_at: Date.now() + 8000, turn_remaining_ms: 8000, banks_ms: [8000, 5000, 60000, 60000] };
  });
  for (const theme of ["light", "dark"]) {
    if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.click('[data-action="theme"]');
    await lowOnTime();
    await page.waitForSelector('span[data-seat-bank="0"].low.running');
    await page.waitForSelector('span[data-seat-bank="1"].low:not(.running)');
    found[`game clock, low on time, ${theme}`] = await violations(page);
  }
  await context.close();
  assertNoneFound();
});

test("Duo's plates and banks low on time, in the light and the dark theme", async () => {
  const { page, context } = await auditor();
  await createRoom(page, server.url, { preset: "duo", name: "Eve", teamClock: 5 });
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  // White's bank and W1's turn both low, as the server would send them.
  const lowOnTime = () => page.evaluate(() => {
    window.fourkings.state.game.clock = { turn_ends_at: Date.now() + 8000, turn_remaining_ms: 8000, banks_ms: [8000, 250000] };
  });
  for (const theme of ["light", "dark"]) {
    if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.click('[data-action="theme"]');
    await lowOnTime();
    await page.waitForSelector(".bank.low.running");
    found[`Duo, low on time, ${theme}`] = await violations(page);
  }
  await context.close();
  assertNoneFound();
});
