// The premove queue in words, in a row of its own under the board's note: every queued move and
// the way to cancel them, or, when the server emptied the queue without playing it, why.

import { h, fill } from "./dom.js";

/** @typedef {import("./protocol.js").PremovesDropped} PremovesDropped */

/** Why a queue was dropped, as the end of "Your premove … was dropped: …". */
/** @type {Record<PremovesDropped, string>} */
const DROPPED_BECAUSE = {
  illegal: "the position changed",
  cpu_played: "the CPU played your turn",
  away: "you were away",
  taken_back: "a move was taken back",
  game_over: "the game is over",
};

/**
 * A move in coordinate form as the player reads it: `b7–c7`, `k13–k14q`.
 * @param {string} text
 * @returns {string}
 */
export function premoveWords(text) {
  return text.replace(/^([a-n]\d+)([a-n]\d+)(.*)$/, "$1–$2$3");
}

/**
 * The sentence for a dropped queue: `Your premove b7–c7 was dropped: the position changed.`
 * @param {{moves: string[], reason: PremovesDropped}} dropped
 * @returns {string}
 */
export function droppedText({ moves, reason }) {
  const what = moves.length === 1 ? `Your premove ${premoveWords(moves[0])} was` : `Your ${moves.length} premoves (${moves.map(premoveWords).join(", ")}) were`;
  return `${what} dropped: ${DROPPED_BECAUSE[reason] || reason}.`;
}

export class PremoveLine {
  /** @param {{cancel: () => void, dismiss: () => void}} actions */
  constructor(actions) {
    this.actions = actions;
    this.el = h("div", { class: "premove-line", dataset: { role: "premoves" }, hidden: true });
    /** @type {string | null} what is drawn, so that an unchanged line keeps its elements (and focus) */
    this.key = null;
  }

  /**
   * @param {string[]} queued the queue, first to play first
   * @param {{moves: string[], reason: PremovesDropped} | null} dropped the queue last dropped
   */
  render(queued, dropped) {
    const key = JSON.stringify([queued, dropped]);
    if (key === this.key) return;
    this.key = key;
    this.el.classList.toggle("dropped", !queued.length && !!dropped);
    if (queued.length) {
      this.el.hidden = false;
      const list = queued.map((text, i) => h("span", { class: "premove", text: `${i + 1}. ${premoveWords(text)}` }));
      fill(this.el,
        h("span", { class: "since-title", text: queued.length === 1 ? "Premove:" : "Premoves:" }),
        h("span", { class: "premove-list", title: queued.map((text, i) => `${i + 1}. ${premoveWords(text)}`).join("  ") }, list),
        h("button", { class: "btn tiny", type: "button", dataset: { action: "cancel-premoves" }, text: "Cancel (Esc)", on: { click: () => this.actions.cancel() } }));
      return;
    }
    if (dropped) {
      this.el.hidden = false;
      fill(this.el,
        h("span", { class: "premove-dropped", dataset: { role: "premove-dropped" }, text: droppedText(dropped) }),
        h("button", { class: "btn tiny", type: "button", dataset: { action: "dismiss-dropped" }, text: "Dismiss", on: { click: () => this.actions.dismiss() } }));
      return;
    }
    this.el.hidden = true;
    this.el.replaceChildren();
  }
}
