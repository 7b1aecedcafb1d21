// Words for screen readers: a polite live region for moves and turns, an assertive one for
// what needs attention now (your turn, a result, an error).

import { h } from "./dom.js";

let polite = null;
let assertive = null;

export function announcer() {
  polite = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "false", id: "announce" });
  assertive = h("div", { class: "sr-only", "aria-live": "assertive", "aria-atomic": "true", id: "announce-now" });
  return [polite, assertive];
}

function say(region, text) {
  if (!region || !text) return;
  // Keep the last few lines so that quick successions are not lost.
  region.append(h("p", { text }));
  while (region.childElementCount > 5) region.firstElementChild.remove();
}

export function announce(text) {
  say(polite, text);
}

export function announceNow(text) {
  say(assertive, text);
}
