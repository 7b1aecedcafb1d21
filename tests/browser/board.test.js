// The board on its own, fed a position and legal moves as the server would send them: the
// promotion chooser, keyboard selection and cancelling, turning, and the words for each square.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launchBrowser, person, screenshot } from "./helpers.js";

let server;
let browser;
let page;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  ({ page } = await person(browser, { viewport: { width: 900, height: 900 } }));
  await page.goto(server.url + "/");
  await page.waitForSelector(".presets");
  // Replace the page with a bare board driven by this test.
  await page.evaluate(async () => {
    const { Board } = await import("/assets/board.js");
    const played = [];
    const notices = [];
    const board = new Board({ onMove: (m) => played.push(m), onNotice: (n) => notices.push(n) });
    document.body.replaceChildren(board.el);
    board.el.style.width = "700px";
    window.testBoard = { board, played, notices };
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

function draw(view) {
  return page.evaluate((view) => window.testBoard.board.draw(view), view);
}

test("several moves from and to the same squares open the promotion chooser", async () => {
  await draw({
    duo: false,
    showLegal: true,
    game: {
      board: "cross",
      pieces: { h10: "rP", h1: "rK", g14: "yK", a7: "bK", n8: "gK", i11: "bN" },
      checks: [2],
      armies: ["playing", "playing", "playing", "out"],
      last_move: ["j12", "i11"],
      checking: ["i11"],
      ply: 40,
    },
    marks: [
      { from: "h9", to: "h10", color: "#d3433b", name: "Red" },
      { from: "j12", to: "i11", color: "#3568d4", name: "Blue" },
    ],
    legal: { seat: 0, ply: 40, moves: ["h10h11q", "h10h11r", "h10h11b", "h10h11n", "h10i11q", "h10i11r", "h10i11b", "h10i11n", "h1h2"] },
  });
  assert.equal(await page.getAttribute('[data-square="g14"]', "aria-label"), "g14, yellow king, in check");
  assert.equal(await page.getAttribute('[data-square="n8"]', "aria-label"), "n8, green king (out)");
  assert.equal(await page.getAttribute('[data-square="i11"]', "aria-label"), "i11, blue knight, giving check, Blue's last move to here");
  assert.equal(await page.getAttribute('[data-square="j12"]', "aria-label"), "j12, empty, Blue's last move from here");
  assert.equal(await page.getAttribute('[data-square="h10"]', "aria-label"), "h10, red pawn, Red's last move to here");
  // Each army's move in its own colour, the square it went to marked more strongly.
  const look = (name) => page.$eval(`[data-square="${name}"]`, (g) => {
    const mark = getComputedStyle(g.querySelector(".mark"));
    return { classes: [...g.classList].filter((c) => c.startsWith("marked") || c === "checking"), stroke: mark.stroke, opacity: Number(mark.fillOpacity) };
  });
  const [i11, j12, h10] = [await look("i11"), await look("j12"), await look("h10")];
  assert.deepEqual(i11.classes, ["marked", "marked-to", "checking"]);
  assert.deepEqual(j12.classes, ["marked"]);
  assert.equal(i11.stroke, "rgb(53, 104, 212)");
  assert.equal(h10.stroke, "rgb(211, 67, 59)");
  assert.ok(i11.opacity > j12.opacity, "the square moved to is marked more strongly");
  await page.click('[data-square="h10"]');
  await page.waitForSelector('[data-square="i11"].target.capture');
  await page.click('[data-square="i11"]');
  await page.waitForSelector(".chooser");
  assert.deepEqual(await page.locator(".chooser-btn").evaluateAll((bs) => bs.map((b) => b.dataset.promotion)), ["q", "r", "b", "n"]);
  await screenshot(page, "promotion-chooser");
  await page.click('.chooser-btn[data-promotion="n"]');
  assert.deepEqual(await page.evaluate(() => window.testBoard.played), ["h10i11n"]);
});

test("the keyboard selects, cancels and moves; Escape closes the chooser", async () => {
  await page.focus('[data-square="h10"]');
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-square="h10"].selected');
  await page.keyboard.press("Escape");
  await page.waitForSelector('[data-square="h10"].selected', { state: "detached" });
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), "h11");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".chooser");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.promotion), "q");
  await page.keyboard.press("Escape");
  await page.waitForSelector(".chooser", { state: "detached" });
  // Arrow keys skip the missing corners: right from c4 goes on to d4, down from d4 to d3.
  await page.focus('[data-square="a4"]');
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), "a4");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), "d3");
  // Moving the king with the keyboard: h1, up to h2, Enter.
  await page.focus('[data-square="h1"]');
  await page.keyboard.press("Space");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Space");
  assert.deepEqual(await page.evaluate(() => window.testBoard.played), ["h10i11n", "h1h2"]);
});

test("turned for Blue, the arrow keys still follow the screen", async () => {
  await page.evaluate(() => window.testBoard.board.setRotation(1));
  const board = await page.locator(".board").boundingBox();
  const a7 = await page.locator('[data-square="a7"]').boundingBox();
  assert.ok(a7.y > board.y + board.height * 0.9, "Blue's king at the bottom");
  await page.focus('[data-square="a7"]');
  await page.keyboard.press("ArrowUp");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), "b7");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), "b6");
});
