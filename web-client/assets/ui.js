// Small shared pieces of interface: a confirmation dialog, notices, the army badge.

import { h, s, add } from "./dom.js";
import { markShape } from "./pieces.js";
import { seatArmy } from "./armies.js";

/** @typedef {import("./protocol.js").SeatView} SeatView */

/**
 * Asks a yes/no question in a modal dialog; resolves true when confirmed.
 * @param {{title: string, text?: string, confirm: string, cancel?: string, danger?: boolean}} question
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, text, confirm, cancel = "Cancel", danger = false }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" });
    /** @param {boolean} answer */
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    add(
      dialog,
      h("h2", { id: "confirm-title", text: title }),
      text ? h("p", { text }) : null,
      h(
        "div",
        { class: "dialog-buttons" },
        h("button", { type: "button", class: "btn", text: cancel, on: { click: () => done(false) } }),
        h("button", { type: "button", class: danger ? "btn danger" : "btn primary", dataset: { confirm: "yes" }, text: confirm, on: { click: () => done(true) } }),
      ),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A short message that fades away (and is also announced by the live region elsewhere).
 * @param {string} text
 * @param {"info" | "error"} [kind]
 */
export function toast(text, kind = "info") {
  let host = document.getElementById("toasts");
  if (!host) {
    host = h("div", { id: "toasts", class: "toasts" });
    document.body.append(host);
  }
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status", text });
  host.append(el);
  setTimeout(() => el.classList.add("leaving"), 3200);
  setTimeout(() => el.remove(), 3700);
}

/**
 * The army's mark as a small inline SVG (● ▲ ■ ◆ in its colour; a disc for Duo's sides).
 * @param {number} seat
 * @param {boolean} duo
 * @param {{out?: boolean, size?: number}} [options]
 * @returns {SVGSVGElement}
 */
export function armyBadge(seat, duo, { out = false, size = 16 } = {}) {
  const army = seatArmy(seat, duo);
  const color = out ? "#9ea3a8" : army.color;
  const icon = s("svg", { class: "badge-icon", viewBox: "0 0 20 20", width: size, height: size, "aria-hidden": "true" });
  // The edge follows the theme (style.css, --mark-edge), so that every colour stands out of
  // either background (Duo's black on the dark one, yellow on the light one); it is drawn at
  // least a pixel wide, however small the badge.
  const edge = Math.max(1.6, 21 / size);
  const mark = markShape(army.mark, 10, 10.5, 7, color, "#22201e", edge) || s("circle", { cx: 10, cy: 10, r: 7.5, fill: color, stroke: "#22201e", "stroke-width": edge });
  mark.setAttribute("class", "badge-mark");
  icon.append(mark);
  return icon;
}

/**
 * Words for a failed request or HTTP call, by its error code; the limits a room's server set
 * (its snapshot's `limits`) are named where known.
 * @param {{code?: string | null, message?: string}} error
 * @param {import("./protocol.js").Limits | null} [limits]
 * @returns {string}
 */
export function errorText(error, limits = null) {
  /** @type {Record<string, string>} */
  const known = {
    offline: "Not connected right now: reconnecting…",
    disconnected: "The connection dropped before the server answered.",
    seat_taken: "Someone took that seat first.",
    already_started: "The game has already started.",
    bad_name: limits ? `Names have 1 to ${limits.name_chars} characters.` : "That name is empty or too long.",
    not_your_turn: "It is not your turn.",
    stale_ply: "The position changed before your move arrived.",
    time_up: "Your time ran out: the CPU played this move.",
    illegal_move: "That move is not legal.",
    taken_back: "That move was just taken back: choose another.",
    chat_limited: limits ? `Slow down: at most ${limits.chat_per_minute} messages a minute.` : "Slow down: too many messages.",
    bad_chat: limits ? `Messages have 1 to ${limits.chat_chars} characters.` : "That message cannot be sent.",
    not_allowed: "The rules of this room do not allow that.",
    no_lifelines: "Your team has no lifeline left.",
    nothing_to_take_back: "There is no move of your team to take back.",
    no_alternative: "That was the only legal move: it stands.",
    cannot_claim: "The win cannot be claimed now.",
    not_host: "Only the host can do that.",
    rate_limited: "Too many new rooms from your address: wait a minute and try again.",
    too_many_connections: "Too many open connections from your address: close some tabs.",
    storage_unavailable: "The server cannot save right now: try again in a moment.",
  };
  return (error.code && known[error.code]) || error.message || "Something went wrong.";
}

/** @type {Record<import("./protocol.js").Presence, string>} */
const PRESENCE_WORDS = { online: "online", away: "away", cpu_playing: "CPU playing", gone: "left" };

/**
 * A person's presence (online, away, CPU playing, left) or a CPU seat's level, as a badge.
 * @param {SeatView} seat
 * @returns {HTMLSpanElement | null}
 */
export function presenceBadge(seat) {
  if (seat.occupant === "cpu") return h("span", { class: "presence cpu", text: `CPU · ${seat.cpu_level}` });
  if (seat.occupant !== "human") return null;
  const p = seat.presence || "online";
  return h("span", { class: `presence ${p}`, text: PRESENCE_WORDS[p] || p });
}

