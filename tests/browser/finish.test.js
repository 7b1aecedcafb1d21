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

/**
 * In the page: what the screen reader is given from now on, as it reads it: the whole of an
 * atomic live region whenever it changes, the lines added to any other.
 */
function recordAnnouncements() {
  window.heard = [];
  for (const region of document.querySelectorAll("[aria-live]")) {
    new MutationObserver((changes) => {
      if (region.getAttribute("aria-live") === "off") return;
      if (region.getAttribute("aria-atomic") === "true") window.heard.push(region.textContent);
      else for (const change of changes) for (const node of change.addedNodes) window.heard.push(node.textContent);
    }).observe(region, { childList: true, subtree: true, characterData: true });
  }
}

test("after Start the focus is on the board, and each turn is announced once", async () => {
  const { page, context } = await person(browser);
  await createRoom(page, server.url, { name: "Ike" });
  await page.evaluate(recordAnnouncements);
  // Started by the keyboard: the focus does not fall to the page's body.
  await page.focus('[data-action="start"]');
  await page.keyboard.press("Enter");
  await waitForMyTurn(page);
  await page.waitForFunction(() => document.activeElement && document.activeElement.matches(".board .sq"));
  assert.equal(await page.evaluate(() => scrollY), 0, "the focus did not scroll the page");
  await page.keyboard.press("ArrowUp");
  assert.ok(await page.evaluate(() => document.activeElement.matches(".board .sq")), "the keys move on the board");
  await clickMove(page, "h2", "h4");
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  await page.waitForFunction(() => window.heard.some((text) => /Since your move/.test(text)));
  const heard = await page.evaluate(() => window.heard);
  const yourMove = heard.join("\n").match(/Your move/g) || [];
  assert.equal(yourMove.length, 2, `two turns, each announced once:\n${heard.join("\n")}`);
  await context.close();
});

test("a room id that never existed says so, with a way home; a room this device was in says it closed", async () => {
  // Rooms close a second after the last person leaves.
  const quick = await startServer(["--idle-room-seconds", "1"]);
  try {
    const { page, context } = await person(browser);
    await page.goto(`${quick.url}/r/zzzzzzzzzzzzz`);
    await page.waitForSelector('.room-gone[data-gone="unknown"]');
    assert.equal(await page.locator(".room-gone h1").innerText(), "No such room");
    assert.match(await page.locator(".room-gone p").innerText(), /zzzzzzzzzzzzz/);
    await page.click('.room-gone button:text("Go to the home page")');
    await page.waitForSelector(".presets");
    // The Open field takes a whole link or a whole id, and refuses one letter too many rather
    // than cutting it off.
    const roomUrl = await createRoom(page, quick.url, { name: "Jo" });
    const id = roomUrl.split("/r/")[1];
    await page.goto(quick.url + "/");
    await page.fill('input[aria-label="Room link or id"]', `x${id}`);
    await page.click('button:text-is("Open")');
    assert.equal(page.url(), quick.url + "/");
    assert.match(await page.evaluate(() => document.querySelector('input[aria-label="Room link or id"]').validationMessage), /not a room link/);
    await page.fill('input[aria-label="Room link or id"]', id.toUpperCase());
    await page.click('button:text-is("Open")');
    await page.waitForURL(`${quick.url}/r/${id}`);
    await page.waitForSelector('.seat-card.mine[data-seat="0"]');
    // Jo leaves; the room closes; Jo's link now says that it closed.
    await page.goto(quick.url + "/");
    await page.waitForSelector(".presets");
    for (let waited = 0; (await fetch(`${quick.url}/api/rooms/${id}`)).status !== 404; waited += 100) {
      assert.ok(waited < 15000, "the room closes once nobody is in it");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await page.goto(roomUrl);
    await page.waitForSelector('.room-gone[data-gone="closed"]');
    assert.equal(await page.locator(".room-gone h1").innerText(), "This room is closed");
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    await quick.stop();
  }
});

test("in Duo a capture of a piece of your own colour is told as a capture", async () => {
  const { page, context } = await person(browser);
  const roomUrl = await createRoom(page, server.url, { preset: "duo", name: "Kim", teamClock: 5 });
  // Zed watches, and keeps every "last moves" line his page shows.
  const zed = await person(browser);
  await zed.page.goto(roomUrl);
  await zed.page.waitForSelector(".seat-card");
  await page.click('[data-action="start"]');
  await zed.page.waitForSelector(".board .sq");
  await zed.page.evaluate(() => {
    window.lines = [];
    new MutationObserver(() => window.lines.push(document.querySelector('[data-role="since"]').textContent)).observe(document.querySelector('[data-role="since"]'), { childList: true, subtree: true });
  });
  await waitForMyTurn(page);
  await page.evaluate(recordAnnouncements);
  // W1's knight takes White's own pawn on e2 (Duo's friendly capture): heard as a capture.
  await clickMove(page, "g1", "e2");
  await page.waitForFunction(() => window.heard.some((text) => /Captured: white pawn/.test(text)));
  // And worded as one.
  await zed.page.waitForFunction(() => window.lines.some((line) => /W1's knight takes White's pawn on e2/.test(line)));
  assert.deepEqual(zed.page.errors, []);
  await zed.context.close();
  await context.close();
});
