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

/** Says `text` when the screen reader is ready. @param {string} text */
export function announce(text) {
  if (!polite || !text) return;
  // Lines are added (the region is not atomic: only what is added is read), and the last few
  // kept, so that quick successions are not lost.
  polite.append(h("p", { text }));
  while (polite.childElementCount > 5) polite.firstElementChild?.remove();
}

/** Says `text` at once. @param {string} text */
export function announceNow(text) {
  if (!assertive || !text) return;
  // The region is atomic (read whole whenever it changes), so it holds only the newest line:
  // a line kept from before would be read again with every new one.
  assertive.replaceChildren(h("p", { text }));
}
