// What happened since your move, and looking back: every army's last move marked in its colour,
// the "since your move" line in words (spoken when your turn starts), review of any earlier
// position from the move list by click and by keys, a move played meanwhile not lost, and all of
// it again after a reload, from the server's history of the game.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, person, screenshot, createRoom, sit, clickMove, waitForPly, waitForMyTurn } from "./helpers.js";

let server;
let browser;
let page;

const COLORS = { 0: "#d3433b", 1: "#3568d4", 2: "#e0a800", 3: "#2c9a56" };

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** The game's moves in coordinate form and the seats that played them, as the page holds them. */
function moves() {
  return page.evaluate(() => ({ coordinates: window.fourkings.state.game.move_coordinates, seats: window.fourkings.state.game.move_seats }));
}

/** The squares marked as an army's last move, by the colour each is marked in. */
function marksShown() {
  return page.$$eval(".board .sq.marked-to", (squares) => squares.map((g) => ({ square: g.dataset.square, color: g.style.getPropertyValue("--mark") })));
}

/** What the board says of a square (its accessible name). */
function square(name) {
  return page.getAttribute(`.board [data-square="${name}"]`, "aria-label");
}

/** Every army's last move among `coordinates`, by seat: its to-square. Where two armies' last
 * moves end on one square (a capture of the piece that had just moved there), the later move's
 * colour is the one shown. */
function expectedMarks({ coordinates, seats }) {
  const last = new Map();
  coordinates.forEach((mv, i) => last.set(seats[i], /^[a-n]\d+([a-n]\d+)/.exec(mv)[1]));
  const bySquare = new Map();
  coordinates.forEach((mv, i) => {
    const to = /^[a-n]\d+([a-n]\d+)/.exec(mv)[1];
    if (last.get(seats[i]) === to) bySquare.set(to, COLORS[seats[i]]);
  });
  return [...bySquare].map(([square, color]) => ({ square, color })).sort((a, b) => a.square.localeCompare(b.square));
}

const sorted = (marks) => marks.slice().sort((a, b) => a.square.localeCompare(b.square));

test("every army's last move is marked in its colour, and the moves since yours are told in words", async () => {
  ({ page } = await person(browser));
  await createRoom(page, server.url, { preset: "teams" });
  await sit(page, 0, "Ann");
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  await clickMove(page, "h2", "h4");
  // Blue, Yellow and Green are CPUs: three moves, and Red's turn again.
  await waitForPly(page, 4);
  await waitForMyTurn(page);
  const played = await moves();
  assert.equal(played.coordinates.length, 4);
  assert.deepEqual(sorted(await marksShown()), expectedMarks(played));
  // The since line names the three other moves, in words and in order.
  const since = await page.locator('[data-role="since"] .since-move').allInnerTexts();
  assert.equal(since.length, 3);
  ["Blue", "Yellow", "Green"].forEach((army, i) => assert.match(since[i], new RegExp(`^${army}(: (pawn|knight|bishop|rook|queen|king) to [a-n]\\d+|'s \\w+ takes .+ on [a-n]\\d+)`)));
  assert.match(await page.locator('[data-role="since"]').innerText(), /^Since your move:/);
  // A screen reader hears them when the turn starts.
  await page.waitForFunction(() => /Your move\. Since your move: Blue.*; Yellow.*; Green/.test(document.querySelector("#announce-now").textContent));
});

test("any earlier position is shown from the move list, by click and by keys", async () => {
  const played = await moves();
  const blueTo = /^[a-n]\d+([a-n]\d+)/.exec(played.coordinates[1])[1];
  await page.click('.moves td[data-ply="1"]');
  await page.waitForSelector('[data-role="review"]:not([hidden])');
  assert.match(await page.locator('[data-role="review"]').innerText(), /Reviewing move 1 of 4: the board is not live/);
  assert.equal(await square("h4"), "h4, red pawn, Red's last move to here");
  assert.match(await square("h2"), /^h2, empty, Red's last move from here/);
  assert.match(await square(blueTo), new RegExp(`^${blueTo}, empty`));
  assert.deepEqual(await marksShown(), [{ square: "h4", color: COLORS[0] }]);
  assert.equal(await page.locator(".moves td.current").getAttribute("data-ply"), "1");
  // Nothing can be moved on a position under review.
  assert.equal(await page.locator(".board .sq.movable").count(), 0);

  // The keys of the move list: left to the start, right a move on, End the live position.
  await page.focus(".moves-scroll");
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction(() => /Reviewing the start/.test(document.querySelector('[data-role="review"]').innerText));
  assert.equal(await square("h2"), "h2, red pawn");
  assert.equal(await page.locator(".board .sq.marked").count(), 0);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => /Reviewing move 2 of 4/.test(document.querySelector('[data-role="review"]').innerText));
  assert.match(await square(blueTo), /blue \w+, Blue's last move to here/);
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains("moves-scroll")), true);
  await screenshot(page, "review");
  await page.keyboard.press("End");
  await page.waitForSelector('[data-role="review"]', { state: "hidden" });
  assert.deepEqual(sorted(await marksShown()), expectedMarks(played));
  await page.keyboard.press("Home");
  await page.waitForFunction(() => /Reviewing the start/.test(document.querySelector('[data-role="review"]').innerText));
  await page.click('[data-action="back-to-game"]');
  await page.waitForSelector('[data-role="review"]', { state: "hidden" });
  assert.ok(await page.locator(".board .sq.movable").count() > 0, "live again: Red's pieces can move");
});

test("reviewing while the others move loses nothing, and a move on the board goes back to live", async () => {
  await page.click('.moves td[data-ply="2"]');
  await page.waitForSelector('[data-role="review"]:not([hidden])');
  // Pressing on the board returns to the live position, where the move is made.
  await clickMove(page, "h4", "h5");
  assert.equal(await page.locator('[data-role="review"]').isHidden(), true);
  await page.click('.moves td[data-ply="1"]');
  // The CPUs answer while Red looks at the first move: the board stays where Red put it.
  await waitForPly(page, 8);
  await page.waitForFunction(() => window.fourkings.state.mySeatToMove === 0);
  assert.match(await page.locator('[data-role="review"]').innerText(), /Reviewing move 1 of 8/);
  assert.deepEqual(await marksShown(), [{ square: "h4", color: COLORS[0] }]);
  await page.click('[data-action="back-to-game"]');
  await waitForMyTurn(page);
  assert.deepEqual(sorted(await marksShown()), expectedMarks(await moves()));
});

test("after a reload, the marks, the words and review come back from the server", async () => {
  const before = await moves();
  await page.reload();
  await waitForMyTurn(page);
  assert.deepEqual(sorted(await marksShown()), expectedMarks(before));
  // The words need the positions before each move: the history, fetched after the snapshot.
  await page.waitForFunction(() => {
    const items = [...document.querySelectorAll('[data-role="since"] .since-move')].map((e) => e.textContent);
    return items.length === 3 && items.every((t) => /(: \w+ to |'s \w+ takes )/.test(t));
  });
  await page.click('.moves td[data-ply="5"]');
  await page.waitForSelector('[data-role="review"]:not([hidden])');
  assert.equal(await square("h5"), "h5, red pawn, Red's last move to here");
  assert.match(await square("h4"), /^h4, empty, Red's last move from here/);
  await page.keyboard.press("End");
  assert.deepEqual(page.errors, []);
});
