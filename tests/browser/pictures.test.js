// Pictures of the client for people to look at (tests/browser/screenshots/): a Teams game seen
// from each seat, a free-for-all game with a grey army, and a Duo game. Review mode, the dark
// theme and the phone view come from review.test.js, finish.test.js and layout.test.js. Each
// picture is taken once the page shows what it is of, which the test asserts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, screenshot, createRoom, sit, waitForPly, waitForMyTurn, playSomething } from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const ARMIES = ["red", "blue", "yellow", "green"];

test("a Teams game from each seat", async () => {
  const pages = [];
  const host = await person(browser);
  const url = await createRoom(host.page, server.url, { name: "Ann" });
  pages.push(host.page);
  for (const [seat, name] of [[1, "Bob"], [2, "Cleo"], [3, "Dev"]]) {
    const { page } = await person(browser);
    await page.goto(url);
    await page.waitForSelector(".seat-card");
    await sit(page, seat, name);
    pages.push(page);
  }
  await host.page.click('[data-action="start"]');
  const openings = [[["h2", "h4"], ["i2", "i3"]], [["b7", "c7"], ["b8", "d8"]], [["g13", "g11"], ["h13", "h12"]], [["m8", "l8"], ["m7", "k7"]]];
  for (let round = 0; round < 2; round++) {
    for (let seat = 0; seat < 4; seat++) await playSomething(pages[seat], [openings[seat][round]]);
  }
  for (const [seat, page] of pages.entries()) {
    await waitForPly(page, 8);
    // Each sees their own army at the bottom, and every army's last move marked.
    assert.equal(await page.locator(".board .sq.marked-to").count(), 4);
    await screenshot(page, `teams-${ARMIES[seat]}`);
  }
  for (const page of pages) await page.context().close();
});

test("a free-for-all game with a grey army", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { preset: "ffa", name: "Fay" });
  await page.click('[data-action="start"]');
  await playSomething(page, [["h2", "h4"]]);
  await waitForMyTurn(page);
  await page.click('[data-action="resign"]');
  await page.click("dialog.confirm [data-confirm]");
  // Red is out: its pieces turn grey, and the three CPUs play on.
  await page.waitForSelector('.plate-inner.out[data-seat="0"]');
  const after = Number(await page.evaluate(() => document.body.dataset.ply));
  await waitForPly(page, after + 3);
  assert.match(await page.getAttribute('.board [data-square="h1"]', "aria-label"), /red king \(out\)/);
  await screenshot(page, "ffa-grey-army");
  await context.close();
});

test("a Duo game", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { preset: "duo", name: "Eve", teamClock: 5 });
  await page.click('[data-action="start"]');
  await playSomething(page, [["e2", "e4"]]);
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  await playSomething(page, [["g1", "f3"], ["d2", "d4"]]);
  await waitForPly(page, 8);
  await waitForMyTurn(page);
  // Four seats' last moves (squares two moves share are marked once, for the newer).
  assert.ok((await page.locator(".board .sq.marked").count()) >= 6);
  await screenshot(page, "duo");
  await context.close();
});
