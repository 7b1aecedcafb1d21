// The game's history without a browser: positions rebuilt from diffs, what a snapshot, a
// takeback and the server's copy do to it, each army's last move, and moves in words.

import { test } from "node:test";
import assert from "node:assert/strict";
import { GameHistory, lastMoves, sinceMove, moveWords, capturedPieces } from "../assets/history.js";

const START = { e2: "wP", e7: "bP", d8: "bQ", f2: "wP", g2: "wP", e1: "wK", d1: "wQ" };

/** A game view at `ply` with these moves (coordinate form) by seats 0, 1, 2, 3, 0, … */
function game(coordinates, id = "room-1") {
  return {
    id,
    ply: coordinates.length,
    pieces: {},
    move_coordinates: coordinates,
    move_seats: coordinates.map((_, i) => i % 4),
  };
}

/** A `moved` event. */
function moved(ply, move, changed, checks = [], checking = []) {
  return { kind: "moved", seat: (ply - 1) % 4, ply, text: move, move, changed, checks, checking };
}

const FOOL = [
  moved(1, "f2f3", { f2: null, f3: "wP" }),
  moved(2, "e7e5", { e7: null, e5: "bP" }),
  moved(3, "g2g4", { g2: null, g4: "wP" }),
  moved(4, "d8h4", { d8: null, h4: "bQ" }, [0, 2], ["h4"]),
];

test("positions are the start with the diffs applied in order", () => {
  const history = new GameHistory();
  history.follow({ ...game([]), pieces: START });
  for (const ev of FOOL) history.record(ev);
  assert.ok(history.complete(game(FOOL.map((e) => e.move))));
  assert.deepEqual(history.position(0), START);
  assert.deepEqual(history.position(2), { e2: "wP", e5: "bP", d8: "bQ", f3: "wP", g2: "wP", e1: "wK", d1: "wQ" });
  assert.equal(history.position(4).h4, "bQ");
  assert.equal(history.position(4).d8, undefined);
  assert.deepEqual(history.ply(3).checking, ["h4"]);
});

test("a snapshot of a game under way needs the server's copy, and takes only the moves it lists", () => {
  const history = new GameHistory();
  const view = game(["f2f3", "e7e5", "g2g4"]);
  history.follow(view);
  assert.equal(history.complete(view), false);
  assert.equal(history.position(1), null);
  // A move arrives before the server's copy: it is kept.
  history.record(FOOL[3]);
  const now = game(FOOL.map((e) => e.move));
  assert.equal(history.complete(now), false);
  // The copy was read before a takeback elsewhere: a move the view does not list is left out.
  const copy = { id: "room-1", board: "classic", start: START, plies: [FOOL[0], FOOL[1], { ...FOOL[2], move: "g2g3" }] };
  history.merge(copy, now);
  assert.equal(history.complete(now), false);
  history.merge({ ...copy, plies: FOOL.slice(0, 3) }, now);
  assert.ok(history.complete(now));
  assert.equal(history.position(4).h4, "bQ");
  // Another game's copy changes nothing.
  const fresh = new GameHistory();
  fresh.follow(view);
  fresh.merge({ ...copy, id: "room-2" }, view);
  assert.equal(fresh.complete(view), false);
});

test("a takeback drops the move taken back, and a new game starts afresh", () => {
  const history = new GameHistory();
  history.follow({ ...game([]), pieces: START });
  for (const ev of FOOL) history.record(ev);
  history.follow(game(["f2f3", "e7e5", "g2g4"]));
  assert.equal(history.plies.length, 3);
  history.follow({ ...game([], "room-2"), pieces: { e1: "wK" } });
  assert.deepEqual(history.position(0), { e1: "wK" });
  assert.equal(history.plies.length, 0);
});

test("each army's last move, and the moves since a player's own", () => {
  const seats = [0, 1, 2, 3, 0, 1];
  const coordinates = ["h2h4", "b7c7", "g13g11", "m8l8", "h4h5", "c7d7"];
  assert.deepEqual(lastMoves(seats, coordinates, 6), [
    { seat: 2, from: "g13", to: "g11", ply: 2 },
    { seat: 3, from: "m8", to: "l8", ply: 3 },
    { seat: 0, from: "h4", to: "h5", ply: 4 },
    { seat: 1, from: "c7", to: "d7", ply: 5 },
  ]);
  assert.deepEqual(lastMoves(seats, coordinates, 1), [{ seat: 0, from: "h2", to: "h4", ply: 0 }]);
  assert.deepEqual(sinceMove(seats, [2], 6), [3, 4, 5]);
  assert.deepEqual(sinceMove(seats, [0], 6), [5]);
  // Before a player's first move, and for a spectator: the last three.
  assert.deepEqual(sinceMove(seats, [3], 3), [0, 1, 2]);
  assert.deepEqual(sinceMove(seats, [], 6), [3, 4, 5]);
  // A player whose last move is long ago (out of the game, say): the last three, no more.
  assert.deepEqual(sinceMove([0, 1, 2, 3, 1, 2, 3, 1, 2, 3], [0], 10), [7, 8, 9]);
});

test("moves in words: captures, quiet moves, checks, castling and promotion", () => {
  const naming = {
    seat: (seat) => ["Red", "Blue", "Yellow", "Green"][seat],
    army: (letter) => ({ r: "Red", b: "Blue", y: "Yellow", g: "Green" })[letter],
    checked: (seats) => seats.map((seat) => ["Red", "Blue", "Yellow", "Green"][seat]).join(" and "),
  };
  const before = { g3: "bN", f1: "rB", e12: "yP", k1: "rK", h1: "rK" };
  const take = { seat: 1, text: "Ng3xf1", move: "g3f1", changed: { g3: null, f1: "bN" }, checks: [] };
  assert.equal(moveWords(before, take, [], naming), "Blue's knight takes Red's bishop on f1");
  const push = { seat: 2, text: "e13-e12+", move: "e13e12", changed: { e13: null, e12: "yP" }, checks: [3] };
  assert.equal(moveWords({ e13: "yP" }, push, [], naming), "Yellow: pawn to e12, check to Green");
  // A check that stood before the move is not news.
  assert.equal(moveWords({ e13: "yP" }, push, [3], naming), "Yellow: pawn to e12");
  const castle = { seat: 0, text: "O-O", move: "h1j1", changed: { h1: null, j1: "rK", k1: null, i1: "rR" }, checks: [] };
  assert.equal(moveWords({ h1: "rK", k1: "rR" }, castle, [], naming), "Red castles");
  const promote = { seat: 0, text: "h13-h14=Q", move: "h13h14q", changed: { h13: null, h14: "rQ" }, checks: [] };
  assert.equal(moveWords({ h13: "rP" }, promote, [], naming), "Red: pawn to h14, becomes a queen");
});

test("a capture of a piece of the mover's own colour (Duo's friendly capture) is worded as a capture", () => {
  const naming = {
    seat: (seat) => ["W1", "B1", "W2", "B2"][seat],
    army: (letter) => ({ w: "White", b: "Black" })[letter],
    checked: (seats) => seats.map((seat) => ["W1", "B1", "W2", "B2"][seat]).join(" and "),
  };
  const take = { seat: 1, text: "Rxg8", move: "h8g8", changed: { h8: null, g8: "bR" }, checks: [] };
  assert.equal(moveWords({ h8: "bR", g8: "bN" }, take, [], naming), "B1's rook takes Black's knight on g8");
  assert.deepEqual(capturedPieces({ h8: "bR", g8: "bN" }, take.move, take.changed), ["bN"]);
  // En passant empties a square that is not the target; castling takes nothing.
  assert.deepEqual(capturedPieces({ e5: "wP", d5: "bP" }, "e5d6", { e5: null, d6: "wP", d5: null }), ["bP"]);
  assert.deepEqual(capturedPieces({ e1: "wK", h1: "wR" }, "e1g1", { e1: null, g1: "wK", h1: null, f1: "wR" }), []);
  assert.deepEqual(capturedPieces({ e1: "wK", h1: "wR" }, "e1h1", { e1: null, g1: "wK", h1: null, f1: "wR" }), []);
});
