// The room as the client holds it, without a browser: every event kind of the protocol's
// document (protocol/README.md), taken from its own examples, applied to a snapshot of the same
// document gives the state that the next snapshot would show; a snapshot after a resync
// replaces what was held. A kind the document shows that no case here covers fails the test.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RoomState } from "../assets/state.js";

const DOC = readFileSync(fileURLToPath(new URL("../../protocol/README.md", import.meta.url)), "utf8");

/** Every `json server` example of the document, parsed. */
const EXAMPLES = [...DOC.matchAll(/```json server\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
const SNAPSHOTS = EXAMPLES.filter((m) => m.type === "snapshot");
const EVENTS = EXAMPLES.filter((m) => m.type === "event");
/** The lobby's snapshot and the Duo game's, as the document shows them. */
const LOBBY = SNAPSHOTS.find((m) => m.status === "lobby");
const GAME = SNAPSHOTS.find((m) => m.game);

const copy = (value) => structuredClone(value);

/**
 * A room state that took in `snapshot` with its version set just before `v`, and the changes
 * its listeners heard after that.
 */
function holding(snapshot, v, adjust = () => {}) {
  const state = new RoomState(snapshot.room);
  const base = copy(snapshot);
  base.v = v - 1;
  adjust(base);
  state.applySnapshot(base);
  const heard = [];
  state.subscribe((change) => heard.push(change.kind));
  return { state, heard };
}

/**
 * What each event kind must do to the state that held the snapshot before it, as the next
 * snapshot would show it. `base` names the snapshot it applies to (and may prepare it).
 */
const CASES = {
  seat_taken: {
    base: LOBBY,
    check(state, ev) {
      assert.deepEqual(state.seats[ev.seat], { seat: ev.seat, label: LOBBY.seats[ev.seat].label, occupant: "human", name: ev.name, presence: "online", cpu_level: undefined });
    },
  },
  seat_left: {
    base: LOBBY,
    prepare: (snap, ev) => (snap.seats[ev.seat] = { ...snap.seats[ev.seat], occupant: "human", name: "Cleo", presence: "online" }),
    check(state, ev) {
      assert.deepEqual(state.seats[ev.seat], { seat: ev.seat, label: LOBBY.seats[ev.seat].label, occupant: "empty" });
    },
  },
  player_moved: {
    base: LOBBY,
    prepare: (snap, ev) => {
      snap.seats[ev.from] = { ...snap.seats[ev.from], occupant: "human", name: "Bob", presence: "online" };
      snap.host_seat = ev.from;
    },
    check(state, ev) {
      assert.deepEqual(state.seats[ev.to], { seat: ev.to, label: LOBBY.seats[ev.to].label, occupant: "human", name: "Bob", presence: "online" });
      assert.equal(state.seats[ev.from].occupant, "empty");
      assert.equal(state.hostSeat, ev.to);
    },
  },
  cpu_seat: {
    base: LOBBY,
    check(state, ev) {
      const label = LOBBY.seats[ev.seat].label;
      assert.deepEqual(state.seats[ev.seat], ev.level ? { seat: ev.seat, label, occupant: "cpu", cpu_level: ev.level } : { seat: ev.seat, label, occupant: "empty" });
    },
  },
  settings_changed: {
    base: LOBBY,
    check(state, ev) {
      assert.deepEqual(state.settings, ev.settings);
      assert.deepEqual(state.rules, ev.rules);
    },
  },
  host_changed: {
    base: LOBBY,
    check(state, ev) {
      assert.equal(state.hostSeat, ev.seat);
    },
  },
  host_token: {
    base: LOBBY,
    check(state, ev) {
      assert.equal(state.tokens.host, ev.host_token);
      assert.equal(state.youAreHost, true);
    },
  },
  hidden: {
    base: LOBBY,
    check(state) {
      // Only the version moves on.
      const { state: untouched } = holding(LOBBY, state.v);
      assert.deepEqual({ ...state, v: 0, listeners: null, history: null }, { ...untouched, v: 0, listeners: null, history: null });
    },
  },
  started: {
    base: LOBBY,
    check(state, ev) {
      assert.equal(state.status, "playing");
      assert.deepEqual(state.game, ev.game);
      assert.deepEqual(state.history.position(0), ev.game.pieces);
      assert.equal(state.legal, null);
    },
  },
  moved: {
    base: GAME,
    // The game the move follows: the document's Duo game, with the squares the move leaves and
    // reaches as they stood before it.
    prepare(snap, ev) {
      snap.game.ply = ev.ply - 1;
      snap.game.to_move = ev.seat;
      snap.game.moves = snap.game.moves.slice(0, ev.ply - 1);
      snap.game.move_seats = snap.game.move_seats.slice(0, ev.ply - 1);
      snap.game.move_coordinates = snap.game.move_coordinates.slice(0, ev.ply - 1);
    },
    check(state, ev, before) {
      const expected = copy(before.game);
      for (const [square, piece] of Object.entries(ev.changed)) {
        if (piece) expected.pieces[square] = piece;
        else delete expected.pieces[square];
      }
      Object.assign(expected, {
        ply: ev.ply,
        moves: [...expected.moves, ev.text],
        move_seats: [...expected.move_seats, ev.seat],
        move_coordinates: [...expected.move_coordinates, ev.move],
        last_move: [ev.move.slice(0, 2), ev.move.slice(2, 4)],
        to_move: ev.result ? null : ev.to_move,
        checks: ev.checks,
        checking: ev.checking || [],
        points: ev.points,
        armies: ev.armies,
        clock: ev.clock || {},
        promoted: [],
      });
      delete expected.draw_offer;
      delete expected.resignation_request;
      if (ev.result) expected.result = ev.result;
      assert.deepEqual({ ...state.game, fen: "" }, { ...expected, fen: "" });
      assert.equal(state.legal, null);
      assert.equal(state.history.automatic(ev.ply - 1), !!ev.automatic);
      assert.deepEqual(state.history.ply(ev.ply - 1).changed, ev.changed);
    },
  },
  game_changed: {
    base: GAME,
    check(state, ev) {
      assert.deepEqual(state.game, ev.game);
      assert.equal(state.status, ev.game.result ? "finished" : "playing");
    },
  },
  presence: {
    base: GAME,
    check(state, ev) {
      assert.equal(state.seats[ev.seat].presence, ev.presence);
      assert.equal(state.seats[ev.seat].grace_ends_at, ev.grace_ends_at);
      assert.deepEqual(state.game.clock, ev.clock);
    },
  },
  chat: {
    base: GAME,
    check(state, ev) {
      const { kind, ...line } = ev;
      assert.equal(kind, "chat");
      assert.deepEqual(state.chat.at(-1), line);
      assert.equal(state.chat.length, GAME.chat.length + 1);
    },
  },
  rematch: {
    base: GAME,
    check(state, ev) {
      assert.deepEqual(state.seats, ev.seats);
      assert.deepEqual(state.game, ev.game);
      assert.equal(state.status, "playing");
      assert.equal(state.history.automatic(0), false);
    },
  },
  session: {
    base: GAME,
    check(state, ev) {
      const { kind, ...session } = ev;
      assert.equal(kind, "session");
      assert.deepEqual(state.session, session);
    },
  },
  premoves: {
    base: GAME,
    prepare: (snap, ev) => (snap.premoves = [{ seat: ev.seat, moves: ["a1a2"] }]),
    check(state, ev) {
      assert.deepEqual(state.premoves[ev.seat], ev.moves);
    },
  },
};

test("every event kind of the protocol's document has a case here", () => {
  const kinds = new Set(EVENTS.map((m) => m.event.kind));
  assert.ok(kinds.size >= 15, `only ${kinds.size} kinds in the document`);
  assert.deepEqual([...kinds].filter((kind) => !CASES[kind]), []);
});

for (const message of EVENTS) {
  const ev = message.event;
  test(`${ev.kind}${ev.what ? ` (${ev.what})` : ""} at v${message.v} gives the next state`, () => {
    const rule = CASES[ev.kind];
    const { state, heard } = holding(rule.base, message.v, (snap) => rule.prepare && rule.prepare(snap, ev));
    const before = { game: copy(state.game) };
    state.applyEvent(copy(message));
    assert.equal(state.v, message.v);
    assert.deepEqual(heard, [ev.kind]);
    rule.check(state, ev, before);
  });
}

test("a snapshot after a resync replaces everything held", () => {
  const { state } = holding(GAME, GAME.v);
  const chat = EVENTS.find((m) => m.event.kind === "chat");
  state.applyEvent({ ...copy(chat), v: GAME.v + 1 });
  state.applyLegalMoves({ type: "legal_moves", v: GAME.v + 1, seat: 3, ply: 3, moves: ["d8h4"] });
  // The server's answer to `resync`: the lobby of a new room state, at a later version.
  const later = { ...copy(LOBBY), v: GAME.v + 5 };
  state.applySnapshot(later);
  assert.equal(state.v, later.v);
  assert.equal(state.game, null);
  assert.equal(state.legal, null);
  assert.deepEqual(state.chat, []);
  assert.deepEqual(state.seats, later.seats);
  assert.deepEqual(state.limits, later.limits);
  assert.equal(state.status, "lobby");
  // And back to the game: the history follows the snapshot's game, knowing it is incomplete.
  state.applySnapshot({ ...copy(GAME), v: GAME.v + 6 });
  assert.equal(state.historyMissing, true);
  assert.deepEqual(state.game.move_coordinates, GAME.game.move_coordinates);
});

test("a stale legal_moves message is ignored", () => {
  const { state } = holding(GAME, GAME.v + 1);
  state.applyLegalMoves({ type: "legal_moves", v: GAME.v - 2, seat: 3, ply: 3, moves: ["a7a6"] });
  assert.deepEqual(state.legal, { ...GAME.legal_moves, v: GAME.v });
});
