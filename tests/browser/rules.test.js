// The page offers what the server's rules view allows and lists moves under the seats the server
// names: team chat that silent partners close at the start, free-for-all's resignation, and a
// move list that a newcomer builds from the server's seats after the turn order skipped an army.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, createRoom, sit, waitForMyTurn, waitForPly, playSomething } from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** The chat channels the page offers. */
function channels(page) {
  return page.$$eval(".chat-channel option", (options) => options.map((o) => o.value));
}

test("silent partners: team chat is offered in the lobby and closed once the game starts", async () => {
  const { page } = await person(browser);
  await page.goto(server.url + "/");
  await page.click('.preset[data-preset="teams"]');
  await page.check('.twist input[name^="silent_partners-"]');
  await page.fill("#host-name", "Sam");
  await page.click('button:has-text("Create room")');
  await page.waitForURL(/\/r\/[0-9a-z]{13}$/);
  // The host plays: seated at Red as the room opens.
  await page.waitForSelector('.seat-card.mine[data-seat="0"]');
  await page.waitForFunction(() => [...document.querySelectorAll(".chat-channel option")].some((o) => o.value === "team"));
  assert.deepEqual(await channels(page), ["room", "team"]);
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  assert.deepEqual(await channels(page), ["room"]);
  assert.equal(await page.locator(".chat-channel").isHidden(), true);
  // No lifelines: no takeback to offer.
  assert.equal(await page.locator('[data-action="take-back"]').count(), 0);
  assert.deepEqual(page.errors, []);
});

test("free-for-all: no team chat, resigning leaves the game, and a newcomer's move list names the right seats", async () => {
  const red = await person(browser);
  await createRoom(red.page, server.url, { preset: "ffa" });
  const url = red.page.url();
  await red.page.click('.segmented .segment:has(input[value="easy"])');
  await sit(red.page, 0, "Rita");
  await red.page.waitForSelector('.seat-card[data-seat="1"] .seat-team:text-is("On their own")');
  assert.deepEqual(await channels(red.page), ["room"]);
  await red.page.click('[data-action="start"]');
  // Two rounds with Red in, then Red resigns on its turn: from then on the turn skips Red. The
  // knight on f3 and the pawn on j3 close the two diagonals that Blue's and Green's queens open
  // towards Red's king (moving the king's pawn let two random CPUs mate Red here, one run in 25),
  // so that nothing can check Red before its third turn.
  await playSomething(red.page, [["e1", "f3"]]);
  await playSomething(red.page, [["j2", "j3"]]);
  await waitForMyTurn(red.page);
  await red.page.click('[data-action="resign"]');
  assert.match(await red.page.locator("dialog").innerText(), /leave the game/);
  await red.page.click('dialog [data-confirm="yes"]');
  await waitForPly(red.page, 12);

  const newcomer = await person(browser);
  await newcomer.page.goto(url);
  await waitForPly(newcomer.page, 12);
  const cells = await newcomer.page.$$eval(".moves tbody td", (tds) => tds.filter((td) => td.textContent).map((td) => ({ column: td.cellIndex, title: td.title })));
  const labels = ["Red", "Blue", "Yellow", "Green"];
  assert.ok(cells.length >= 12, `${cells.length} moves`);
  for (const { column, title } of cells) assert.ok(title.startsWith(labels[column - 1]), `column ${column}: ${title}`);
  assert.equal(cells.filter((c) => c.column === 1).length, 2, "Red played two moves");
  for (const { page } of [red, newcomer]) assert.deepEqual(page.errors, []);
});
