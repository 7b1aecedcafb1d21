// The finish of the game's page: the host is seated on creating a room unless they watch,
// starting with nobody seated asks first, free-for-all's draw dialog says that points decide,
// each event has its own sound at a volume the device remembers, low time is readable, and a
// dark theme follows the system and can be switched (and has no contrast problem either).

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, screenshot, createRoom, waitForMyTurn, clickMove, waitForPly, axeViolations, startServer, sit } from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** The sounds the page asked for since the last call. */
async function soundsSince(page, from) {
  return page.evaluate((from) => window.fourkings.sounds.slice(from), from);
}

test("the host who plays is seated at once; one who watches is asked before starting alone", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { name: "Hana" });
  assert.match(await page.locator('.seat-card.mine[data-seat="0"] .name').innerText(), /^Hana$/);
  // The name is remembered for the next room.
  await page.goto(server.url + "/");
  assert.equal(await page.inputValue("#host-name"), "Hana");
  // Watching: no seat is taken, and Start with nobody seated asks first.
  await createRoom(page, server.url, {});
  assert.equal(await page.locator(".seat-card.mine").count(), 0);
  await page.click('[data-action="start"]');
  await page.waitForSelector('dialog.confirm h2:text("Start with nobody seated?")');
  await page.click('dialog.confirm button:text("Cancel")');
  assert.equal(await page.evaluate(() => window.fourkings.state.status), "lobby");
  await page.click('[data-action="start"]');
  await page.click("dialog.confirm [data-confirm]");
  await page.waitForSelector(".board .sq");
  assert.equal(await page.evaluate(() => window.fourkings.state.seats.every((s) => s.occupant === "cpu")), true);
  await context.close();
});

test("free-for-all's draw offer says that the game ends and points decide", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { preset: "ffa", name: "Fay" });
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  await page.click('[data-action="offer-draw"]');
  assert.match(await page.locator("dialog.confirm p").innerText(), /the game ends and the points decide/);
  await page.click('dialog.confirm button:text("Cancel")');
  await context.close();
});

test("moves, captures, checks, your turn, low time and the end each have their sound, at a remembered volume", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { name: "Sol", turnLimit: 30 });
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  let heard = await page.evaluate(() => window.fourkings.sounds.length);
  assert.deepEqual(await soundsSince(page, heard - 1), ["turn"]);
  await clickMove(page, "h2", "h4");
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  const sounds = await soundsSince(page, heard);
  // Each move is heard (the CPU's quiet openings: moves), then Red's turn.
  assert.equal(sounds.filter((s) => s === "move" || s === "capture" || s === "check").length, 4, sounds.join());
  assert.equal(sounds.at(-1), "turn");
  // A capture and a check, as the server would announce them.
  heard = await page.evaluate(() => window.fourkings.sounds.length);
  await page.evaluate(() => {
    const state = window.fourkings.state;
    const g = state.game;
    const base = { kind: "moved", points: g.points, armies: g.armies, clock: {}, to_move: 1 };
    state.applyEvent({ type: "event", v: state.v + 1, event: { ...base, seat: 0, ply: g.ply + 1, text: "Qg1xQg14", move: "g1g14", changed: { g1: null, g14: "rQ" }, checks: [] } });
    state.applyEvent({ type: "event", v: state.v + 1, event: { ...base, seat: 1, ply: g.ply + 1, text: "Ba9-c11+", move: "a9c11", changed: { a9: null, c11: "bB" }, checks: [2], checking: ["c11"] } });
  });
  assert.deepEqual(await soundsSince(page, heard), ["capture", "check"]);
  // Low time on Red's own turn: heard once, and the timer's red state is readable.
  await page.reload();
  await waitForMyTurn(page);
  heard = await page.evaluate(() => window.fourkings.sounds.length);
  await page.evaluate(() => {
    const g = window.fourkings.state.game;
    g.clock = { turn_ends_at: Date.now() + 8000, turn_remaining_ms: 8000 };
  });
  await page.waitForSelector(".plate-inner .timer.low");
  await page.waitForFunction((n) => window.fourkings.sounds.slice(n).includes("low"), heard);
  assert.deepEqual(await soundsSince(page, heard), ["low"]);
  assert.equal(await page.locator(".turn-line .timer.low").count(), 1);
  // The volume: set, remembered after a reload, and 0 is silence.
  await page.locator('[data-action="volume"]').fill("30");
  await page.reload();
  await waitForMyTurn(page);
  assert.equal(await page.inputValue('[data-action="volume"]'), "30");
  await page.click('[data-action="sound"]');
  assert.equal(await page.getAttribute('[data-action="sound"]', "aria-pressed"), "false");
  heard = await page.evaluate(() => window.fourkings.sounds.length);
  await clickMove(page, "h4", "h5");
  assert.deepEqual(await soundsSince(page, heard), []);
  await page.click('[data-action="sound"]');
  assert.equal(await page.inputValue('[data-action="volume"]'), "30");
  await context.close();
});

test("the dark theme follows the system, can be switched, is remembered, and is readable", async () => {
  const { page, context } = await person(browser, { colorScheme: "dark", bypassCSP: true });
  await page.goto(server.url + "/");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  // The switch names the theme it switches to.
  assert.equal((await page.innerText('[data-action="theme"]')).trim(), "Light theme");
  const background = () => page.evaluate(() => getComputedStyle(document.body.parentElement).getPropertyValue("--bg").trim());
  assert.equal(await background(), "#171513");
  await page.waitForSelector(".presets");
  assert.deepEqual(await axeViolations(page), [], "the home page, dark");
  await createRoom(page, server.url, { name: "Dee", turnLimit: 30 });
  assert.deepEqual(await axeViolations(page), [], "the lobby, dark");
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  await clickMove(page, "h2", "h4");
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  // Red's timer in its low state, on the plate and the turn line.
  await page.evaluate(() => {
    window.fourkings.state.game.clock = { turn_ends_at: Date.now() + 8000, turn_remaining_ms: 8000 };
  });
  await page.waitForSelector(".plate-inner .timer.low");
  await screenshot(page, "dark-theme");
  assert.deepEqual(await axeViolations(page), [], "a game, dark, low on time");
  // Switched to light, remembered over a reload though the system stays dark.
  await page.click('[data-action="theme"]');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
  await page.reload();
  await page.waitForSelector(".board .sq");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
  assert.equal((await page.innerText('[data-action="theme"]')).trim(), "Dark theme");
  await page.evaluate(() => {
    window.fourkings.state.game.clock = { turn_ends_at: Date.now() + 8000, turn_remaining_ms: 8000 };
  });
  await page.waitForSelector(".plate-inner .timer.low");
  assert.deepEqual(await axeViolations(page), [], "a game, light, low on time");
  await context.close();
});

test("the limits on names and chat are the server's, named as it sets them", async () => {
  const strict = await startServer(["--max-name-chars", "6", "--max-chat-chars", "40", "--chat-per-minute", "2"]);
  const { page, context } = await person(browser);
  try {
    await createRoom(page, strict.url, {});
    assert.equal(await page.$eval("#your-name", (input) => input.maxLength), 6);
    assert.equal(await page.$eval(".chat-input", (input) => input.maxLength), 40);
    await sit(page, 0, "Ada");
    // The third message in a minute is refused, in the server's numbers.
    for (const text of ["one", "two", "three"]) {
      await page.fill(".chat-input", text);
      await page.press(".chat-input", "Enter");
    }
    await page.waitForFunction(() => /at most 2 messages a minute/.test(document.querySelector(".chat-error").textContent));
  } finally {
    await context.close();
    await strict.stop();
  }
});
