// Words for screen readers: a polite live region for moves and turns, an assertive one for
// what needs attention now (your turn, a result, an error).

import { h } from "./dom.js";

/** @type {HTMLElement | null} */
let polite = null;
/** @type {HTMLElement | null} */
let assertive = null;

/** The two live regions, to put on the page once. */
export function announcer() {
  polite = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "false", id: "announce" });
  assertive = h("div", { class: "sr-only", "aria-live": "assertive", "aria-atomic": "true", id: "announce-now" });
  return [polite, assertive];
}

/**
 * @param {HTMLElement | null} region
 * @param {string} text
 */
function say(region, text) {
  if (!region || !text) return;
  // Keep the last few lines so that quick successions are not lost.
  region.append(h("p", { text }));
  while (region.childElementCount > 5) region.firstElementChild?.remove();
}

/** Says `text` when the screen reader is ready. @param {string} text */
export function announce(text) {
  say(polite, text);
}

/** Says `text` at once. @param {string} text */
export function announceNow(text) {
  say(assertive, text);
}
