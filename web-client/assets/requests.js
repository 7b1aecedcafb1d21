// What the room's views may ask the server to do: each action sends its request over the
// connection, asks first where a choice cannot be undone, and shows a refusal in words (with the
// server's limits where they matter).

import { announceNow } from "./announce.js";
import { confirmDialog, toast, errorText } from "./ui.js";

/** @typedef {import("./protocol.js").Request} Request */
/** @typedef {import("./protocol.js").Ack} Ack */
/** @typedef {import("./protocol.js").SettingsPatch} SettingsPatch */
/** @typedef {import("./protocol.js").CpuLevel} CpuLevel */
/** @typedef {import("./protocol.js").RulesView} RulesView */
/** @typedef {import("./state.js").RoomState} RoomState */

/**
 * What the views may ask the room to do; each sends its request and shows a refusal.
 * @typedef {object} Actions
 * @property {(seat: number, name: string) => Promise<void>} takeSeat
 * @property {(seat: number) => Promise<unknown>} leaveSeat
 * @property {(seat: number, level: CpuLevel | null) => Promise<unknown>} setCpu
 * @property {(from: number, to: number) => Promise<unknown>} movePlayer
 * @property {(seat: number) => Promise<void>} removePlayer
 * @property {(patch: SettingsPatch) => Promise<unknown>} updateSettings
 * @property {() => Promise<unknown>} start
 * @property {() => Promise<unknown>} rematch
 * @property {(text: string) => void} move a move in coordinate form, for the seat to move
 * @property {(text: string) => void} premove a move in coordinate form, queued for your next turn
 * @property {() => void} cancelPremoves empties your queue
 * @property {(text: string) => void} notice
 * @property {(seat: number) => Promise<void>} resign
 * @property {(seat: number) => Promise<void>} offerDraw
 * @property {(seat: number, accept: boolean) => Promise<unknown>} answerDraw
 * @property {(seat: number, accept: boolean) => Promise<void>} answerResignation
 * @property {(seat: number) => Promise<void>} takeBack
 * @property {(seat: number) => Promise<void>} claimWin
 * @property {(channel: import("./protocol.js").ChatChannel, text: string) => Promise<Ack>} chat a refusal is the caller's to show
 */

/**
 * What resigning does, in the confirmation: the server's rule (`rules.resignation`).
 * @type {Record<RulesView["resignation"], string>}
 */
const RESIGNING = {
  team_loses: "Your team loses the game.",
  partner_consent: "Your partner is asked to agree; then your team loses.",
  out: "You leave the game.",
  out_king_walks: "You leave the game; your king walks on by itself.",
};

/**
 * The room's actions.
 * @param {object} room
 * @param {RoomState} room.state
 * @param {(msg: Request) => Promise<Ack>} room.send sends a request and resolves with its ack
 * @param {(seat: number) => void} room.seated a seat was taken (its token is kept)
 * @param {() => void} room.settingsRefused the host's settings change was refused
 * @returns {Actions}
 */
export function roomActions({ state, send, seated, settingsRefused }) {
  /**
   * Sends a request; a refusal is shown (unless `quiet`) and passed on.
   * @param {Request} msg
   * @param {{quiet?: boolean}} [options]
   * @returns {Promise<Ack>}
   */
  async function act(msg, { quiet = false } = {}) {
    try {
      return await send(msg);
    } catch (error) {
      if (!quiet) {
        const text = errorText(error instanceof Error ? error : {}, state.limits);
        toast(text, "error");
        announceNow(text);
      }
      throw error;
    }
  }

  // Without a token the server answers `bad_token`, which is shown like any refusal.
  /** The seat and its token, for a seat's request. @param {number} seat */
  const asSeat = (seat) => ({ seat, token: state.tokenFor(seat) ?? "" });
  /** The host token, for a host's request. */
  const asHost = () => ({ host_token: state.tokens.host ?? "" });
  const ignore = () => {};

  /** @type {Actions} */
  return {
    async takeSeat(seat, name) {
      const ack = await act({ type: "take_seat", seat, name }).catch(() => null);
      if (!ack || !ack.seat_token) return;
      state.setSeatToken(seat, ack.seat_token);
      if (!state.yourSeats.includes(seat)) state.yourSeats = [...state.yourSeats, seat];
      seated(seat);
    },
    leaveSeat: (seat) => act({ type: "leave_seat", ...asSeat(seat) }).catch(ignore),
    setCpu: (seat, level) => act({ type: "set_cpu", ...asHost(), seat, level }).catch(ignore),
    movePlayer: (from, to) => act({ type: "move_player", ...asHost(), from, to }).catch(ignore),
    removePlayer: async (seat) => {
      const name = state.seatName(seat);
      if (await confirmDialog({ title: `Remove ${name}?`, text: "Their seat becomes free again.", confirm: "Remove", danger: true })) {
        act({ type: "remove_player", ...asHost(), seat }).catch(ignore);
      }
    },
    updateSettings: (patch) =>
      act({ type: "update_settings", ...asHost(), settings: patch }).catch(settingsRefused),
    async start() {
      const people = state.seats.filter((s) => s.occupant === "human").length;
      if (!people && !(await confirmDialog({ title: "Start with nobody seated?", text: "The CPU plays all four seats, and you watch.", confirm: "Start" }))) return;
      await act({ type: "start", ...asHost() }).catch(ignore);
    },
    rematch: () => act({ type: "rematch", ...asHost() }).catch(ignore),
    move: (text) => {
      const seat = state.legal && state.legal.seat;
      if (seat === null || seat === undefined || !state.game) return;
      act({ type: "move", ...asSeat(seat), ply: state.game.ply, move: text }).catch(ignore);
    },
    premove: (text) => {
      const seat = state.premoveSeat;
      if (seat === null) return;
      act({ type: "premove", ...asSeat(seat), move: text }).catch(ignore);
    },
    cancelPremoves: () => {
      for (const [seat, queue] of Object.entries(state.premoves)) {
        if (queue.length) act({ type: "cancel_premoves", ...asSeat(Number(seat)) }).catch(ignore);
      }
    },
    notice: (text) => {
      toast(text);
      announceNow(text);
    },
    async resign(seat) {
      const ok = await confirmDialog({
        title: "Resign?",
        text: RESIGNING[state.rules ? state.rules.resignation : "team_loses"],
        confirm: "Resign",
        danger: true,
      });
      if (ok) act({ type: "resign", ...asSeat(seat) }).catch(ignore);
    },
    async offerDraw(seat) {
      const text = state.ffa
        ? "If everyone still playing agrees, the game ends and the points decide the standings."
        : "The game is drawn when everyone still playing agrees.";
      if (await confirmDialog({ title: "Offer a draw?", text, confirm: "Offer draw" })) {
        act({ type: "offer_draw", ...asSeat(seat) }).catch(ignore);
      }
    },
    answerDraw: (seat, accept) => act({ type: "answer_draw", ...asSeat(seat), accept }).catch(ignore),
    answerResignation: async (seat, accept) => {
      if (accept && !(await confirmDialog({ title: "Agree to resign?", text: "Your team loses the game.", confirm: "Resign", danger: true }))) return;
      act({ type: "answer_resignation", ...asSeat(seat), accept }).catch(ignore);
    },
    async takeBack(seat) {
      const left = state.game ? state.game.lifelines[seat % 2] : 0;
      if (await confirmDialog({ title: "Take back your team's move?", text: `This spends one of your team's lifelines (${left} left).`, confirm: "Take back" })) {
        act({ type: "take_back", ...asSeat(seat) }).catch(ignore);
      }
    },
    async claimWin(seat) {
      if (await confirmDialog({ title: "Claim the win?", text: "The game ends with your win.", confirm: "Claim" })) {
        act({ type: "claim_win", ...asSeat(seat) }).catch(ignore);
      }
    },
    // Players write as their first seat; spectators in their own channel.
    chat: (channel, text) => act(channel === "spectators" ? { type: "chat", channel, text } : { type: "chat", ...asSeat(state.yourSeats[0]), channel, text }, { quiet: true }),
  };
}
