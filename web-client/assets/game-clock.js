// Game clocks as players name them, chess.com's way: `1 | 7` is one minute and 7 seconds'
// increment, `1 | 15D` one minute and a 15-second delay. The controls chess.com offers for 4PC,
// and a custom one read from the same notation. No DOM: unit tested with `node --test`.

/** @typedef {import("./protocol.js").GameClock} GameClock */

/** The controls the lobby offers, as chess.com's games and forums show them. */
export const CONTROLS = [
  { minutes: 1, increment: 0, delay: 15 },
  { minutes: 2, increment: 10, delay: 0 },
  { minutes: 1, increment: 7, delay: 0 },
  { minutes: 5, increment: 4, delay: 0 },
  { minutes: 8, increment: 2, delay: 0 },
  { minutes: 8, increment: 3, delay: 0 },
];

/**
 * A clock in chess.com's notation: `1 | 15D`, `2 | 10`, `3 | 0`.
 * @param {GameClock} clock
 * @returns {string}
 */
export function controlName(clock) {
  return clock.delay > 0 ? `${clock.minutes} | ${clock.delay}D` : `${clock.minutes} | ${clock.increment}`;
}

/**
 * A clock in words, for those who cannot read the notation.
 * @param {GameClock} clock
 * @returns {string}
 */
export function controlWords(clock) {
  const minutes = `${clock.minutes} minute${clock.minutes === 1 ? "" : "s"} each`;
  if (clock.delay > 0) return `${minutes}, ${clock.delay} s delay`;
  if (clock.increment > 0) return `${minutes}, ${clock.increment} s added a move`;
  return minutes;
}

/**
 * Reads `M | S` (increment) or `M | SD` (delay), 1–60 minutes and 0–60 seconds, as the server
 * takes them; `null` when the text is not one.
 * @param {string} text
 * @returns {GameClock | null}
 */
export function parseControl(text) {
  const match = /^\s*(\d{1,2})\s*(?:\|\s*(\d{1,2})\s*([dD])?)?\s*$/.exec(text);
  if (!match) return null;
  const minutes = Number(match[1]);
  const seconds = match[2] === undefined ? 0 : Number(match[2]);
  if (minutes < 1 || minutes > 60 || seconds > 60) return null;
  return match[3] ? { minutes, increment: 0, delay: seconds } : { minutes, increment: seconds, delay: 0 };
}
