// What happens in the room, told: words for screen readers (the live regions), the sounds, and
// the tab title; when the player's turn starts, the moves since theirs are said with it.

import { announce, announceNow } from "./announce.js";
import { playSound } from "./sound.js";
import { seatTitle, recentMoves } from "./game.js";
import { pieceWords } from "./armies.js";
import { droppedText } from "./premove-line.js";

/** @typedef {import("./state.js").RoomState} RoomState */
/** @typedef {import("./state.js").Change} Change */

const BASE_TITLE = "Four Kings";

export class Narrator {
  /** @param {RoomState} state */
  constructor(state) {
    this.state = state;
    /** @type {string | null} the turn last announced */
    this.lastTurnKey = null;
  }

  /** The tab's title, and the chime and words when one of the player's turns starts. */
  turn() {
    const state = this.state;
    const mine = state.mySeatToMove;
    document.title = mine !== null ? `● Your move · ${BASE_TITLE}` : state.game && state.game.result ? `Game over · ${BASE_TITLE}` : BASE_TITLE;
    const key = mine !== null && state.game ? `${state.game.ply}:${mine}` : null;
    if (mine !== null && key !== this.lastTurnKey) {
      playSound("turn");
      const since = recentMoves(state).map((m) => m.text);
      const turn = state.yourSeats.length > 1 ? `Your move, ${state.seats[mine].label}.` : "Your move.";
      announceNow(since.length ? `${turn} Since your move: ${since.join("; ")}.` : turn);
    }
    this.lastTurnKey = key;
  }

  /** The page is left: the title is the site's again. */
  leave() {
    document.title = BASE_TITLE;
  }

  /**
   * Words for what just happened, for the live region.
   * @param {Change} change
   */
  narrate(change) {
    const state = this.state;
    const ev = change.event;
    /** @param {number} seat */
    const who = (seat) => seatTitle(state, seat);
    if (!ev) return;
    switch (ev.kind) {
      case "moved": {
        const parts = [`${who(ev.seat)}${ev.automatic ? ", played by the CPU," : ""} ${ev.text}.`];
        if (change.captured && change.captured.length) parts.push(`Captured: ${change.captured.map((c) => pieceWords(c, state.duo)).join(", ")}.`);
        if (ev.checks.length) parts.push(`Check to ${ev.checks.map((s) => state.seats[s].label).join(" and ")}.`);
        if (ev.result) parts.push(`Game over: ${ev.result.text}`);
        else if (ev.to_move !== null && !state.yourSeats.includes(ev.to_move)) parts.push(`${who(ev.to_move)} to move.`);
        announce(parts.join(" "));
        if (ev.result) playSound("end");
        else if (ev.checks.length) playSound("check");
        else if (change.captured && change.captured.length) playSound("capture");
        else playSound("move");
        break;
      }
      case "started":
      case "rematch": {
        const first = ev.game.to_move;
        announce(`The game has started. ${first !== null && !state.yourSeats.includes(first) ? `${who(first)} to move.` : ""}`);
        break;
      }
      case "game_changed": {
        /** @type {Record<string, string>} */
        const words = {
          resigned: `${who(ev.seat)} resigned.`,
          resignation_requested: `${who(ev.seat)} wants to resign and asks their partner.`,
          resignation_declined: `The resignation of ${who(ev.seat)} was declined.`,
          draw_offered: `${who(ev.seat)} ${ev.game.draw_offer && ev.game.draw_offer.length > 1 ? "agrees to" : "offers"} a draw.`,
          draw_declined: `${who(ev.seat)} declined the draw.`,
          draw_agreed: "Draw agreed.",
          taken_back: `${who(ev.seat)} took back a move.`,
          win_claimed: `${who(ev.seat)} claimed the win.`,
          timed_out: `${who(ev.seat)} ran out of time.`,
        };
        announce(words[ev.what] || "");
        if (ev.game.result) {
          announceNow(`Game over: ${ev.game.result.text}`);
          playSound("end");
        }
        break;
      }
      case "presence": {
        /** @type {Record<string, string>} */
        const words = { online: "is back", away: "is away", cpu_playing: "is away: the CPU plays for them", gone: "has left" };
        announce(`${who(ev.seat)} ${words[ev.presence] || ev.presence}.`);
        break;
      }
      case "seat_taken":
        announce(`${ev.name} sat at ${state.seats[ev.seat].label}.`);
        break;
      case "seat_left":
        announce(`${state.seats[ev.seat].label} is free.`);
        break;
      case "premoves":
        if (ev.dropped && state.droppedPremoves && state.droppedPremoves.seat === ev.seat) announceNow(droppedText(state.droppedPremoves));
        break;
      case "chat":
        if (!(ev.seat !== undefined && state.yourSeats.includes(ev.seat))) announce(`${ev.name} says: ${ev.text}`);
        break;
      default:
        break;
    }
  }
}
