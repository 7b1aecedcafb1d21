// Moves made for you: the CPU's move for a player whose turn limit ran out is named in the
// "since your move" line and marked in the move list; a player back after being away is told
// what happened meanwhile (how many moves, the CPU's for them, their pieces lost, the checks),
// in words on the page and to the screen reader, until they move. Game time runs five times
// faster here (--time-unit-ms 200): a 30-second turn limit is 6 seconds, time enough for Ann's
// moves on a busy machine.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launchBrowser, person, screenshot, createRoom, sit, clickMove, waitForPly, waitForMyTurn, playSomething, ply } from "./helpers.js";

let server;
let browser;

before(async () => {
  server = await startServer(["--time-unit-ms", "200", "--cpu-think-seconds", "0.3"]);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

/** Quiet moves for Red that keep its king covered. */
const QUIET = [["e1", "f3"], ["j2", "j3"], ["j1", "i3"], ["d2", "d3"], ["k2", "k3"], ["e2", "e3"], ["g2", "g3"], ["d3", "d4"], ["k3", "k4"], ["f3", "d2"]];

test("the CPU's move for you is named and marked; coming back, you are told what happened while you were away", async () => {
  const ann = (await person(browser)).page;
  const roomUrl = await createRoom(ann, server.url, { preset: "teams", name: "Ann", turnLimit: 30 });
  const bobPerson = await person(browser, { bypassCSP: true });
  let bob = bobPerson.page;
  await bob.goto(roomUrl);
  await bob.waitForSelector(".seat-card");
  await sit(bob, 1, "Bob");
  await ann.click('[data-action="start"]');
  await bob.waitForSelector(".board .sq");

  // Bob lets his first turn run out: the CPU plays it for him.
  await clickMove(ann, "e1", "f3");
  await waitForPly(ann, 4);
  await playSomething(ann, QUIET);
  await waitForMyTurn(bob);
  const mine = bob.locator('[data-role="since"] .since-move.for-you');
  assert.equal(await mine.count(), 1, "the CPU's move for Bob leads the since-line");
  assert.match(await mine.textContent(), /^Blue: .+CPU for you$/);
  assert.match(await bob.locator('[data-role="since"] .since-title').innerText(), /Since your move/);
  // In the move list at a glance: Blue's first move, in the second column, is marked.
  const cell = bob.locator('.moves td[data-ply="2"]');
  assert.match(await cell.getAttribute("class"), /\bauto\b/);
  assert.equal(await cell.evaluate((el) => getComputedStyle(el, "::after").content), '"CPU" / ""');
  assert.notEqual(await cell.evaluate((el) => getComputedStyle(el).backgroundColor), await bob.locator('.moves td[data-ply="1"]').evaluate((el) => getComputedStyle(el).backgroundColor));
  // Spoken with the turn.
  await bob.waitForFunction(() => /Your move\. Since your move: Blue: .*\(the CPU played for you\)/.test(document.querySelector("#announce-now").textContent));
  await screenshot(bob, "cpu-for-you");

  // Bob plays his own move; then his browser closes, and the CPU stands in for him.
  await playSomething(bob, [["b7", "c7"], ["b8", "c8"]]);
  const left = await ply(ann);
  const storage = await bobPerson.context.storageState();
  await bobPerson.context.close();
  await ann.waitForSelector('.player[data-seat="1"] .presence.cpu_playing');
  while ((await ply(ann)) < left + 8) await playSomething(ann, QUIET);
  await waitForPly(ann, left + 9);

  // Bob is back: the status card says what happened while he was away.
  const back = await person(browser, { storageState: storage });
  bob = back.page;
  await bob.goto(roomUrl);
  const summary = await bob.waitForSelector('[data-role="away-summary"]');
  const words = await summary.innerText();
  // What the page holds: the moves since Bob's own last one, and the CPU's for him among them.
  const held = await bob.evaluate(() => {
    const { game, history } = window.fourkings.state;
    let from = 0;
    for (let i = game.ply - 1; i >= 0; i--) {
      if (game.move_seats[i] === 1 && !history.automatic(i)) {
        from = i + 1;
        break;
      }
    }
    const forBob = [];
    for (let i = from; i < game.ply; i++) if (game.move_seats[i] === 1 && history.automatic(i)) forBob.push(game.moves[i]);
    const everyAutomatic = game.move_seats.filter((seat, i) => history.automatic(i)).length;
    return { since: game.ply - from, forBob, everyAutomatic };
  });
  assert.ok(held.forBob.length >= 2, `the CPU moved for Blue at least twice while he was away (${held.forBob})`);
  assert.match(words, new RegExp(`^While you were away: ${held.since} moves\n`));
  assert.ok(words.includes(`The CPU stood in and played for you: ${held.forBob.join(", ")}.`), words);
  assert.match(words, /You lost (no piece|\d .+)\./);
  await bob.waitForFunction(() => /While you were away/.test(document.querySelector("#announce").textContent));
  // The moves the CPU played for Bob are marked in the list, after the reload as well.
  assert.equal(await bob.locator(".moves td.auto").count(), held.everyAutomatic);
  assert.ok(held.everyAutomatic > held.forBob.length, "the first, for the turn limit, is marked too");
  await screenshot(bob, "away-summary");
  // Once Bob moves himself, it has been read.
  await waitForMyTurn(bob);
  await playSomething(bob, [["b8", "c8"], ["b6", "c6"], ["b5", "c5"]]);
  await bob.waitForSelector('[data-role="away-summary"]', { state: "detached" });
  assert.deepEqual(ann.errors, []);
  assert.deepEqual(bob.errors, []);
  await ann.context().close();
  await back.context.close();
});
