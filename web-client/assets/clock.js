// Clocks as the server keeps them: the client only counts down to the server's deadline. The
// offset between the server's clock and ours is estimated from messages as they arrive (a
// message's `turn_ends_at - turn_remaining_ms` is the server's time when it was written), so
// that replayed events, whose clocks were written earlier, still count down correctly.

/** @typedef {import("./protocol.js").Clock} Clock */

/** @type {{at: number, offset: number}[]} */
const samples = [];
const WINDOW_MS = 120000;

/**
 * Notes a clock that just arrived.
 * @param {Clock | null | undefined} clock
 */
export function noteClock(clock) {
  if (!clock || clock.turn_ends_at === undefined || clock.turn_remaining_ms === undefined) return;
  const now = Date.now();
  samples.push({ at: now, offset: clock.turn_ends_at - clock.turn_remaining_ms - now });
  while (samples.length > 1 && (samples.length > 50 || now - samples[0].at > WINDOW_MS)) samples.shift();
}

/**
 * Notes the server's time as a message gave it (a snapshot's or a pong's `server_time`): a
 * reference even in an untimed game.
 * @param {number | undefined} serverTime
 */
export function noteServerTime(serverTime) {
  if (serverTime === undefined) return;
  const now = Date.now();
  samples.push({ at: now, offset: serverTime - now });
  while (samples.length > 1 && (samples.length > 50 || now - samples[0].at > WINDOW_MS)) samples.shift();
}

/** The server's time now, as well as we know it. */
export function serverNow() {
  if (samples.length === 0) return Date.now();
  // The freshest message gives the largest offset; older (replayed) ones give smaller ones.
  return Date.now() + Math.max(...samples.map((s) => s.offset));
}

/**
 * Milliseconds left in the current turn, or null when nothing limits it.
 * @param {Clock | null | undefined} clock
 * @returns {number | null}
 */
export function turnRemaining(clock) {
  if (!clock || clock.turn_ends_at === undefined) return null;
  return Math.max(0, clock.turn_ends_at - serverNow());
}

/**
 * Every bank now: a game clock's four (one a seat) or Duo's two (one a side). The bank of the
 * seat to move counts down once what was left of its delay has passed; the others stand still.
 * @param {Clock | null | undefined} clock
 * @param {number | null | undefined} toMove
 * @returns {number[] | null}
 */
export function banksNow(clock, toMove) {
  if (!clock || !clock.banks_ms) return null;
  const banks = clock.banks_ms.slice();
  if (!clock.paused && clock.turn_ends_at !== undefined && clock.turn_remaining_ms !== undefined && toMove !== null && toMove !== undefined) {
    const writtenAt = clock.turn_ends_at - clock.turn_remaining_ms;
    const bank = banks.length === 4 ? toMove : toMove % 2;
    const running = serverNow() - writtenAt - (clock.delay_ms ?? 0);
    banks[bank] = Math.max(0, banks[bank] - Math.max(0, running));
  }
  return banks;
}

/**
 * `4:05`, `0:59`, and tenths under ten seconds: `9.4`.
 * @param {number | null | undefined} ms
 * @returns {string}
 */
export function formatMs(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 10000) return (Math.floor(ms / 100) / 10).toFixed(1);
  const total = Math.ceil(ms / 1000);
  const m = Math.floor(total / 60);
  const sec = total % 60;
  return `${m}:${String(sec).padStart(2, "0")}`;
}
