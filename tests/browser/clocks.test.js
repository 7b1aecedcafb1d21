// Game clocks: chosen on the home page (an offered control or a custom one), each seat's bank on
// its plate counting down only on its turns, the increment earned by moving, and a bank running
// out losing the game for the team.

import { test } from "node:test";
import assert from "node:assert/strict";
import { person, screenshot, createRoom, waitForMyTurn, waitForPly, playSomething, startServer, launchBrowser } from "./helpers.js";

/** The four plates' banks, by seat, as shown. */
async function banks(page) {
  return page.evaluate(() => [0, 1, 2, 3].map((s) => document.querySelector(`span[data-seat-bank="${s}"]`)?.textContent ?? null));
}

test("a game clock chosen on the home page runs on every plate, and a move earns the increment", async () => {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const { page } = await person(browser);
    await createRoom(page, server.url, { preset: "ffa", gameClock: "1 | 7", name: "Ann" });
    await page.waitForSelector(".settings-form");
    await page.click('[data-action="start"]');
    await waitForMyTurn(page);
    await page.waitForSelector('span[data-seat-bank="0"].running');
    const before = await banks(page);
    assert.deepEqual(before.slice(1), ["1:00", "1:00", "1:00"], `${before}`);
    // Red's bank counts down while Red thinks.
    await page.waitForFunction(() => document.querySelector('span[data-seat-bank="0"]')?.textContent === "0:59");
    await playSomething(page, [["h2", "h3"], ["g2", "g3"], ["i2", "i3"]]);
    await waitForPly(page, 1);
    // 60 s less what Red thought, plus 7: more than a minute.
    await page.waitForFunction(() => /^1:0[1-7]$/.test(document.querySelector('span[data-seat-bank="0"]')?.textContent ?? ""));
    await screenshot(page, "game-clock");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("a custom game clock is read as it is typed, and refused when out of range", async () => {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const { page } = await person(browser);
    await page.goto(server.url + "/");
    await page.click('.preset[data-preset="teams"]');
    await page.click('.not-duo .segment:has(input[value="custom"])');
    const custom = page.locator(".custom-clock");
    await custom.fill("90 | 5");
    await custom.press("Tab");
    assert.equal(await custom.getAttribute("aria-invalid"), "true");
    await custom.fill("3 | 2");
    await custom.press("Tab");
    assert.equal(await custom.getAttribute("aria-invalid"), "false");
    assert.equal(await page.locator(".clock-help").innerText(), "3 minutes each, 2 s added a move");
    await page.fill("#host-name", "Ann");
    await page.click('button:has-text("Create room")');
    await page.waitForURL(/\/r\/[0-9a-z]{13}$/);
    const id = page.url().split("/r/")[1];
    const info = await (await fetch(`${server.url}/api/rooms/${id}`)).json();
    assert.deepEqual(info.settings.game_clock, { minutes: 3, increment: 2, delay: 0 });
    // Duo keeps its team clock: no game clock offered there.
    await page.goto(server.url + "/");
    await page.click('.preset[data-preset="duo"]');
    assert.equal(await page.locator(".not-duo").first().isVisible(), false);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("in Teams a bank running out loses the game on time", async () => {
  // One game second is 20 ms: a one-minute bank runs out in 1.2 s.
  const server = await startServer(["--time-unit-ms", "20"]);
  const browser = await launchBrowser();
  try {
    const { page } = await person(browser);
    await createRoom(page, server.url, { preset: "teams", gameClock: "1 | 7", name: "Ann" });
    await page.click('[data-action="start"]');
    // Red (a person) does not move.
    await page.waitForSelector(".board-result:not([hidden])", { timeout: 15000 });
    assert.match(await page.locator(".board-result-text").innerText(), /Red lost on time/);
    await screenshot(page, "lost-on-time");
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await browser.close();
    await server.stop();
  }
});
