// Four people in four browser contexts play a Teams game: they create and join the room, move
// by click, drag and keyboard, chat, one reloads mid-game, one drops and the CPU stands in until
// they come back (same device: same localStorage), and the game ends with a result everyone sees.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  withServerAndBrowser, person, screenshot, createRoom, sit, clickMove, dragMove, waitForPly, waitForMyTurn, playSomething, ply, text,
  caughtUpWith,
} from "./helpers.js";

let server;
let browser;
let roomUrl;
const people = {};

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function allAtPly(n) {
  await Promise.all(Object.values(people).map(({ page }) => waitForPly(page, n)));
}

test("four people create and join a room, and the host starts", async () => {
  people.ann = await person(browser);
  const ann = people.ann.page;
  await ann.goto(server.url + "/");
  await ann.waitForSelector(".presets");
  await screenshot(ann, "home", { fullPage: true });
  roomUrl = await createRoom(ann, server.url, { preset: "teams" });
  // The host token is kept on this device, per room.
  const stored = await ann.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("fourkings.room.")));
  assert.equal(stored.length, 1);
  assert.match(await ann.inputValue(".link-input"), /\/r\/[0-9a-z]{13}$/);
  await sit(ann, 0, "Ann");
  await ann.waitForSelector('[data-action="start"]');

  // The host's controls: a CPU seat with a level, freed again.
  await ann.click('.seat-card[data-seat="3"] button:has-text("Add CPU")');
  await ann.waitForSelector('.seat-card[data-seat="3"].cpu');
  await ann.selectOption('.seat-card[data-seat="3"] select', "hard");
  await ann.waitForSelector('.seat-card[data-seat="3"] .presence.cpu:text("CPU · hard")');
  await ann.click('.seat-card[data-seat="3"] button:has-text("Free the seat")');
  await ann.waitForSelector('.seat-card[data-seat="3"].empty');

  // Bob sits at Green first; the host moves him to Blue (his token follows him).
  for (const [key, seat, name] of [["bob", 3, "Bob"], ["cleo", 2, "Cleo <b>&amp;</b>"]]) {
    people[key] = await person(browser);
    await people[key].page.goto(roomUrl);
    await people[key].page.waitForSelector(".seat-card");
    await sit(people[key].page, seat, name);
    // Not the host: no start button.
    assert.equal(await people[key].page.locator('[data-action="start"]').count(), 0);
  }
  await ann.waitForSelector('.seat-card[data-seat="3"] .name:text-is("Bob")');
  await ann.selectOption('.seat-card[data-seat="3"] select[aria-label^="Move"]', "1");
  await people.bob.page.waitForSelector('.seat-card.mine[data-seat="1"]');
  people.dev = await person(browser);
  await people.dev.page.goto(roomUrl);
  await people.dev.page.waitForSelector(".seat-card");
  await sit(people.dev.page, 3, "Dev");
  // Names are text, never markup.
  await ann.waitForSelector('.seat-card[data-seat="2"] .name:text-is("Cleo <b>&amp;</b>")');
  assert.equal(await ann.locator(".seat-card b").count(), 0);
  await screenshot(ann, "lobby", { fullPage: true });

  await ann.click('[data-action="start"]');
  for (const { page } of Object.values(people)) await page.waitForSelector(".board .sq");
  // Each person sees their own army at the bottom: their king's square is in the bottom rows.
  for (const [key, king] of [["ann", "h1"], ["bob", "a7"], ["cleo", "g14"], ["dev", "n8"]]) {
    const page = people[key].page;
    const board = await page.locator(".board").boundingBox();
    const sq = await page.locator(`.board [data-square="${king}"]`).boundingBox();
    assert.ok(sq.y > board.y + board.height * 0.85, `${key}'s king ${king} is at the bottom`);
  }
  assert.equal(await people.ann.page.getAttribute('.board [data-square="h2"]', "aria-label"), "h2, red pawn");
});

test("moves by click, drag and drop, and keyboard reach every browser", async () => {
  const { ann, bob, cleo, dev } = Object.fromEntries(Object.entries(people).map(([k, v]) => [k, v.page]));
  await waitForMyTurn(ann);
  assert.match(await ann.title(), /Your move/);
  await clickMove(ann, "h2", "h3");
  await waitForMyTurn(bob);
  await dragMove(bob, "b7", "c7");
  // Yellow plays with the keyboard. The board is turned for Yellow, so g12 is *above* g13.
  await waitForMyTurn(cleo);
  await cleo.focus('.board [data-square="g13"]');
  await cleo.keyboard.press("Enter");
  await cleo.waitForSelector('.board [data-square="g12"].target');
  await cleo.keyboard.press("ArrowUp");
  assert.equal(await cleo.evaluate(() => document.activeElement.dataset.square), "g12");
  await cleo.keyboard.press("Space");
  await waitForPly(cleo, 3);
  await waitForMyTurn(dev);
  await clickMove(dev, "m8", "l8");
  await allAtPly(4);
  // Screen readers hear the moves in words.
  await ann.waitForFunction(() => /Blue \(Bob\) b7-c7/.test(document.getElementById("announce").textContent));
  assert.equal(await ann.getAttribute("#announce", "aria-live"), "polite");
  for (const { page } of Object.values(people)) {
    const moves = await page.locator(".moves tbody td").allInnerTexts();
    assert.deepEqual(moves.filter(Boolean), ["h2-h3", "b7-c7", "g13-g12", "m8-l8"]);
  }
  // Chat is text for everyone; team chat reaches partners only.
  await ann.fill(".chat-input", "good luck <i>all</i>");
  await ann.press(".chat-input", "Enter");
  await dev.waitForSelector('.chat-text:text-is("good luck <i>all</i>")');
  await ann.selectOption(".chat-channel", "team");
  await ann.fill(".chat-input", "watch the bishop");
  await ann.press(".chat-input", "Enter");
  await cleo.waitForSelector('.chat-line.channel-team .chat-text:text-is("watch the bishop")');
  await caughtUpWith(bob, cleo);
  assert.equal(await bob.locator('.chat-text:text-is("watch the bishop")').count(), 0);
});

test("a reload mid-game returns the seat", async () => {
  const bob = people.bob.page;
  await bob.reload();
  await bob.waitForSelector(".board .sq");
  await bob.waitForFunction(() => document.body.dataset.seats === "1");
  assert.equal((await bob.locator(".moves tbody td").allInnerTexts()).filter(Boolean).length, 4);
  // A lost connection shows the banner; meanwhile Red moves; back online, the client catches
  // up by version (hello with since) without anyone doing anything.
  const snapshots = await bob.evaluate(() => window.fourkings.state.snapshots);
  await people.bob.context.setOffline(true);
  await bob.evaluate(() => window.fourkings.conn.ws.close());
  await bob.waitForSelector(".conn-banner.lost");
  await screenshot(bob, "connection-lost");
  await playSomething(people.ann.page, [["i2", "i3"]]);
  await people.bob.context.setOffline(false);
  await bob.waitForSelector(".conn-banner.lost", { state: "hidden", timeout: 20000 });
  await waitForPly(bob, 5);
  assert.equal(await bob.evaluate(() => window.fourkings.state.snapshots), snapshots, "caught up by events, not a snapshot");
  await playSomething(bob, [["b9", "c9"]]);
  await allAtPly(6);
});

test("a closed browser is replaced by the CPU, and takes its seat back", async () => {
  const { ann, bob, cleo } = { ann: people.ann.page, bob: people.bob.page, cleo: people.cleo.page };
  // Dev's device keeps its localStorage (the seat token) while the browser is closed.
  const devState = await people.dev.context.storageState();
  await people.dev.context.close();
  delete people.dev;
  await ann.waitForSelector('.player[data-seat="3"] .presence.away');
  // Dev's plate counts down what is left of the grace period (3 s in these tests: long enough
  // for the reload above to come back in time on a loaded machine).
  const grace = await ann.waitForSelector('.plate-inner[data-seat="3"] .grace');
  assert.match(await grace.innerText(), /^[0-3]\.\d$/);
  await ann.waitForSelector('.player[data-seat="3"] .presence.cpu_playing');
  assert.match(await text(ann, '.plate-inner[data-seat="3"]'), /CPU playing/);
  await playSomething(cleo, [["f13", "f12"]]);
  // Green's turn: the CPU moves for Dev.
  await waitForPly(ann, 8);
  const cells = (await ann.locator(".moves tbody td").allInnerTexts()).filter(Boolean);
  assert.equal(cells.length, 8);
  // Marked in the move list as played by the CPU.
  assert.equal(await ann.locator(".moves tbody tr:nth-child(2) td:nth-child(5).auto").count(), 1);
  await screenshot(ann, "mid-game-cpu-playing");

  // Dev comes back on the same device.
  people.dev = await person(browser, { storageState: devState });
  const dev = people.dev.page;
  await dev.goto(roomUrl);
  await dev.waitForSelector(".board .sq");
  await dev.waitForFunction(() => document.body.dataset.seats === "3");
  await ann.waitForSelector('.player[data-seat="3"] .presence.online');
  await playSomething(ann, [["e2", "e3"]]);
  await playSomething(bob, [["b6", "c6"]]);
  await playSomething(cleo, [["e13", "e12"]]);
  // Dev plays his own move again.
  await playSomething(dev, [["m9", "l9"], ["m10", "l10"]]);
  await allAtPly(12);
  const last = await ann.locator(".moves td.last").innerText();
  assert.ok(last.length > 0);
  await waitForMyTurn(ann);
  await screenshot(ann, "mid-game");
});

test("a spectator watches and chats with the other spectators only", async () => {
  const zed = await person(browser);
  await zed.page.goto(roomUrl);
  await zed.page.waitForSelector(".board .sq");
  assert.equal(await zed.page.locator(".game-layout.my-turn").count(), 0);
  await zed.page.waitForSelector('.chat-text:text-is("good luck <i>all</i>")');
  assert.equal(await zed.page.locator('.chat-text:text-is("watch the bishop")').count(), 0, "no team chat for spectators");
  await zed.page.fill(".chat-input", "Blue should castle");
  await zed.page.press(".chat-input", "Enter");
  await zed.page.waitForSelector('.chat-line.channel-spectators .chat-text:text-is("Blue should castle")');
  await caughtUpWith(people.ann.page, zed.page);
  assert.equal(await people.ann.page.locator('.chat-text:text-is("Blue should castle")').count(), 0);
  assert.deepEqual(zed.page.errors, []);
  await zed.context.close();
});

test("a draw offer is answered", async () => {
  const { ann, bob } = { ann: people.ann.page, bob: people.bob.page };
  await bob.click('[data-action="offer-draw"]');
  await bob.click('dialog [data-confirm="yes"]');
  await ann.waitForSelector('.offer:has-text("Draw offered")');
  await ann.click('[data-action="decline-draw"]');
  await ann.waitForSelector(".offer", { state: "detached" });
  await bob.waitForSelector(".offer", { state: "detached" });
});

test("a resignation ends the game with the result shown in every browser", async () => {
  const ann = people.ann.page;
  await ann.click('[data-action="resign"]');
  await ann.click('dialog [data-confirm="yes"]');
  for (const [key, { page }] of Object.entries(people)) {
    await page.waitForSelector(".result");
    const result = await page.locator(".result").innerText();
    assert.match(result, /Red resigned/, key);
    assert.match(result, /Blue.*&.*Green.*win/s, key);
  }
  assert.match(await people.bob.page.locator(".result-verdict").innerText(), /You won/);
  assert.match(await ann.locator(".result-verdict").innerText(), /You lost/);
  // The game as PGN4, as the server records it.
  const [download] = await Promise.all([ann.waitForEvent("download"), ann.click('.result [data-key="download-result"]')]);
  assert.match(download.suggestedFilename(), /^fourkings-.+\.pgn4$/);
  const path = await download.path();
  const { readFile } = await import("node:fs/promises");
  const pgn4 = await readFile(path, "utf8");
  assert.match(pgn4, /^\[Variant "Teams"\]\n\[RuleVariants "[^"]*EnPassant[^"]*"\]\n\[StartFen4 "4PC"\]\n/);
  assert.match(pgn4, /\[Red "Ann"\]/);
  assert.match(pgn4, /\[Result "0-1"\]/);
  assert.match(pgn4, /\n\n1\. h2-h3 \.\. b7-c7 \.\. g13-g12 \.\. m8-l8\n2\. i2-i3 \.\. b9-c9 \.\. /);
  await screenshot(ann, "result", { animations: "disabled" });
  // The host may start a rematch.
  await ann.click('[data-action="rematch"]');
  await people.bob.page.waitForSelector(".result", { state: "detached" });
  assert.equal(await ply(people.bob.page), 0);
  for (const { page } of Object.values(people)) assert.deepEqual(page.errors, []);
});
