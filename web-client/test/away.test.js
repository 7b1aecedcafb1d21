// What a player who was away is told when they come back, without a browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { GameHistory } from "../assets/history.js";
import { awaySummary } from "../assets/away.js";

const START = { h2: "rP", j1: "rN", b7: "bP", g13: "yP", m8: "gP", m9: "gN", k2: "rP" };

/** A `moved` event of seat `(ply - 1) % 4`. */
function moved(ply, move, changed, { checks = [], automatic = false } = {}) {
  const ev = { kind: "moved", seat: (ply - 1) % 4, ply, text: move, move, changed, checks, checking: [] };
  return automatic ? { ...ev, automatic: true } : ev;
}

/** The history and game view after `events`. */
function played(events) {
  const history = new GameHistory();
  history.follow({ id: "g", ply: 0, pieces: START, move_coordinates: [] });
  for (const ev of events) history.record(ev);
  const game = { ply: events.length, moves: events.map((e) => e.text), move_seats: events.map((e) => e.seat) };
  return { history, game };
}

const isRed = (code) => code[0] === "r";

test("the moves since Red's own last one, with the CPU's for Red, Red's pieces taken and the checks", () => {
  const { history, game } = played([
    moved(1, "h2h3", { h2: null, h3: "rP" }),
    moved(2, "b7c7", { b7: null, c7: "bP" }),
    moved(3, "g13g12", { g13: null, g12: "yP" }),
    moved(4, "m9k10", { m9: null, k10: "gN" }),
    // Red is away: the CPU plays for Red twice; Green takes Red's pawn and checks Red.
    moved(5, "j1i3", { j1: null, i3: "rN" }, { automatic: true }),
    moved(6, "c7d7", { c7: null, d7: "bP" }),
    moved(7, "g12g11", { g12: null, g11: "yP" }),
    moved(8, "k10k2", { k10: null, k2: "gN" }, { checks: [0] }),
    moved(9, "i3k2", { i3: null, k2: "rN" }, { automatic: true }),
    moved(10, "d7e7", { d7: null, e7: "bP" }),
  ]);
  const summary = awaySummary(history, game, [0], isRed);
  assert.deepEqual(summary, {
    moves: 9,
    forYou: [
      { ply: 5, text: "j1i3" },
      { ply: 9, text: "i3k2" },
    ],
    lost: ["rP"],
    checks: 1,
  });
  // Blue, who chose each of its moves, has nothing to be told.
  assert.equal(awaySummary(history, game, [1], (code) => code[0] === "b"), null);
  // Nor has a spectator.
  assert.equal(awaySummary(history, game, [], isRed), null);
});

test("a player whose own move is the newest has nothing to be told", () => {
  const { history, game } = played([
    moved(1, "h2h3", { h2: null, h3: "rP" }, { automatic: true }),
    moved(2, "b7c7", { b7: null, c7: "bP" }),
    moved(3, "g13g12", { g13: null, g12: "yP" }),
    moved(4, "m9k10", { m9: null, k10: "gN" }),
    moved(5, "j1i3", { j1: null, i3: "rN" }),
  ]);
  assert.equal(awaySummary(history, game, [0], isRed), null);
});

test("no summary while a move of the span is not known (the server's copy is on its way)", () => {
  const history = new GameHistory();
  const view = { id: "g", ply: 2, pieces: START, move_coordinates: ["h2h3", "b7c7"] };
  history.follow(view);
  const game = { ply: 2, moves: ["h2h3", "b7c7"], move_seats: [0, 1] };
  assert.equal(awaySummary(history, game, [0], isRed), null);
});
