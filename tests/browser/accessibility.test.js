// axe-core's WCAG 2.1 A and AA rules find nothing on the home page, the lobby, a game in play
// seen by a player and by a spectator (and with a position under review), and a finished game's
// result; an illegal keyboard move is announced with the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerAndBrowser, startServer, person, screenshot, createRoom, sit, waitForMyTurn, clickMove, waitForPly, axeViolations as violations } from "./helpers.js";

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

/**
 * In the page: every army's mark off the board (the badges by seats, names, moves and chat; the
 * lost pieces) with its contrast against what it stands on: the better of its fill's and, where
 * its edge is at least a pixel wide, its edge's (WCAG's 3:1 for graphics).
 */
function markContrasts() {
  const parse = (color) => {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(color);
    return m ? { rgb: [Number(m[1]), Number(m[2]), Number(m[3])], alpha: m[4] === undefined ? 1 : Number(m[4]) } : null;
  };
  const luminance = ([r, g, b]) => {
    const c = [r, g, b].map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const background = (el) => {
    for (let at = el; at; at = at.parentElement) {
      const color = parse(getComputedStyle(at).backgroundColor);
      if (color && color.alpha > 0.5) return color.rgb;
    }
    return parse(getComputedStyle(document.documentElement).backgroundColor).rgb;
  };
  const marks = [...document.querySelectorAll(".badge-icon .badge-mark, .mini-piece .piece-shape > :first-child")];
  return marks.filter((mark) => mark.getBoundingClientRect().width > 0).map((mark) => {
    const svg = mark.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const style = getComputedStyle(mark);
    const under = background(svg);
    const fill = parse(style.fill);
    const stroke = parse(style.stroke);
    const edgeWidth = parseFloat(style.strokeWidth) * scale;
    const ratio = Math.max(fill ? contrast(fill.rgb, under) : 0, stroke && edgeWidth >= 1 ? contrast(stroke.rgb, under) : 0);
    const where = svg.closest("[data-seat], .since-move, .turn-line, th, .chat-line, .lost-pieces, .seat-head");
    return { ratio: Math.round(ratio * 100) / 100, fill: style.fill, where: where ? where.className || where.tagName : "?" };
  });
}

test("every army's mark stands out of both themes' backgrounds at 3:1, in Teams and in Duo", async () => {
  // Four random CPUs play, so that pieces are lost quickly; Zed watches.
  const random = await startServer(["--cpu-strategy", "random"]);
  try {
    for (const preset of ["teams", "duo"]) {
      const { page, context } = await auditor();
      await createRoom(page, random.url, { preset });
      await page.click('[data-action="start"]');
      await page.click('dialog [data-confirm="yes"]');
      // Both sides (Duo) or three armies (Teams) have lost a piece, shown by the players.
      await page.waitForFunction((n) => document.querySelectorAll(".lost-pieces").length >= n, preset === "duo" ? 2 : 3, { timeout: 30000 });
      await page.waitForSelector('[data-role="since"] .since-move');
      for (const theme of ["light", "dark"]) {
        if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.click('[data-action="theme"]');
        await screenshot(page, `marks-${preset}-${theme}`);
        const marks = await page.evaluate(markContrasts);
        const colours = new Set(marks.map((m) => m.fill));
        assert.ok(colours.size >= (preset === "duo" ? 2 : 4), `${preset}, ${theme}: every army's colour is among the marks (${[...colours]})`);
        const faint = marks.filter((m) => m.ratio < 3);
        assert.deepEqual(faint, [], `${preset}, ${theme}: marks under 3:1`);
      }
      await context.close();
    }
  } finally {
    await random.stop();
  }
});
