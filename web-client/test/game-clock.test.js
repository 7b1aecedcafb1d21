// Game clocks in chess.com's notation, read and written as the lobby offers them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { CONTROLS, controlName, controlWords, parseControl } from "../assets/game-clock.js";

test("the offered controls read back from their names", () => {
  assert.deepEqual(CONTROLS.map(controlName), ["1 | 15D", "2 | 10", "1 | 7", "5 | 4", "8 | 2", "8 | 3"]);
  for (const clock of CONTROLS) assert.deepEqual(parseControl(controlName(clock)), clock);
});

test("a custom control is read within the server's ranges", () => {
  assert.deepEqual(parseControl("3|0"), { minutes: 3, increment: 0, delay: 0 });
  assert.deepEqual(parseControl(" 30 | 25 "), { minutes: 30, increment: 25, delay: 0 });
  assert.deepEqual(parseControl("1 | 15d"), { minutes: 1, increment: 0, delay: 15 });
  assert.deepEqual(parseControl("10"), { minutes: 10, increment: 0, delay: 0 });
  for (const bad of ["", "0 | 5", "61 | 0", "5 | 61", "5 | -1", "5 | 2.5", "five", "5 | 2 | 1", "5 | D"]) {
    assert.equal(parseControl(bad), null, bad);
  }
});

test("a control in words", () => {
  assert.equal(controlWords({ minutes: 1, increment: 0, delay: 15 }), "1 minute each, 15 s delay");
  assert.equal(controlWords({ minutes: 5, increment: 4, delay: 0 }), "5 minutes each, 4 s added a move");
});
