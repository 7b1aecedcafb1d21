// A room's page: keeps the room's state in step with the server over the connection, shows the
// lobby or the game, the chat, the link to share and the connection banner, and turns what
// happens into words (screen readers), a chime and the tab title.

import { h, fill } from "./dom.js";
import { RoomState } from "./state.js";
import { Connection } from "./connection.js";
import { Lobby } from "./lobby.js";
import { GameView, seatTitle, recentMoves } from "./game.js";
import { Chat } from "./chat.js";
import { noteClock } from "./clock.js";
import { announce, announceNow } from "./announce.js";
import { playSound, played } from "./sound.js";
import { confirmDialog, toast, errorText } from "./ui.js";
import { presetInfo, pieceWords } from "./armies.js";
import { gameHistory } from "./api.js";
import { takeSeatOnArrival } from "./storage.js";

/** @typedef {import("./protocol.js").Request} Request */
/** @typedef {import("./protocol.js").Ack} Ack */
/** @typedef {import("./protocol.js").SettingsPatch} SettingsPatch */
/** @typedef {import("./protocol.js").CpuLevel} CpuLevel */
/** @typedef {import("./protocol.js").RulesView} RulesView */
/** @typedef {import("./state.js").Change} Change */
/** @typedef {import("./connection.js").Status} Status */

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
 * @property {(text: string) => void} notice
 * @property {(seat: number) => Promise<void>} resign
 * @property {(seat: number) => Promise<void>} offerDraw
 * @property {(seat: number, accept: boolean) => Promise<unknown>} answerDraw
 * @property {(seat: number, accept: boolean) => Promise<void>} answerResignation
 * @property {(seat: number) => Promise<void>} takeBack
 * @property {(seat: number) => Promise<void>} claimWin
 */

/**
 * A room's page: its element, what to do when leaving it, and handles for the browser tests.
 * @typedef {{el: HTMLElement, destroy: () => void, debug: {state: RoomState, conn: Connection, sounds: string[]}}} RoomPage
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

const BASE_TITLE = "Four Kings";

/**
 * @param {string} roomId
 * @param {{navigate: import("./home.js").Navigate}} page
 * @returns {RoomPage}
 */
export function roomPage(roomId, { navigate }) {
  const state = new RoomState(roomId);
  /** @type {string | null} */
  let lastTurnKey = null;
  let wasDisconnected = false;

  // ----- requests -----

  /**
   * Sends a request; a refusal is shown (unless `quiet`) and passed on.
   * @param {Request} msg
   * @param {{quiet?: boolean}} [options]
   * @returns {Promise<Ack>}
   */
  async function act(msg, { quiet = false } = {}) {
    try {
      return await conn.request(msg);
    } catch (error) {
      if (!quiet) {
        const text = errorText(error instanceof Error ? error : {});
        toast(text, "error");
        announceNow(text);
      }
      throw error;
    }
  }

  /**
   * @param {string} type
   * @param {number} seat
   * @param {Record<string, unknown>} [extra]
   * @returns {Request}
   */
  const seatMsg = (type, seat, extra = {}) => ({ type, seat, token: state.tokenFor(seat), ...extra });
  /**
   * @param {string} type
   * @param {Record<string, unknown>} [extra]
   * @returns {Request}
   */
  const hostMsg = (type, extra = {}) => ({ type, host_token: state.tokens.host, ...extra });
  const ignore = () => {};

  /** @type {Actions} */
  const actions = {
    async takeSeat(seat, name) {
      const ack = await act({ type: "take_seat", seat, name }).catch(() => null);
      if (!ack || !ack.seat_token) return;
      state.setSeatToken(seat, ack.seat_token);
      if (!state.yourSeats.includes(seat)) state.yourSeats = [...state.yourSeats, seat];
      render({ kind: "seat_ack" });
    },
    leaveSeat: (seat) => act(seatMsg("leave_seat", seat)).catch(ignore),
    setCpu: (seat, level) => act(hostMsg("set_cpu", { seat, level })).catch(ignore),
    movePlayer: (from, to) => act(hostMsg("move_player", { from, to })).catch(ignore),
    removePlayer: async (seat) => {
      const name = state.seatName(seat);
      if (await confirmDialog({ title: `Remove ${name}?`, text: "Their seat becomes free again.", confirm: "Remove", danger: true })) {
        act(hostMsg("remove_player", { seat })).catch(ignore);
      }
    },
    updateSettings: (patch) =>
      act(hostMsg("update_settings", { settings: patch })).catch(() => {
        // Refused: show the settings as they are.
        if (lobby.form && state.settings) lobby.form.update(state.settings);
      }),
    async start() {
      const people = state.seats.filter((s) => s.occupant === "human").length;
      if (!people && !(await confirmDialog({ title: "Start with nobody seated?", text: "The CPU plays all four seats, and you watch.", confirm: "Start" }))) return;
      await act(hostMsg("start")).catch(ignore);
    },
    rematch: () => act(hostMsg("rematch")).catch(ignore),
    move: (text) => {
      const seat = state.legal && state.legal.seat;
      if (seat === null || seat === undefined || !state.game) return;
      act(seatMsg("move", seat, { ply: state.game.ply, move: text })).catch(ignore);
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
      if (ok) act(seatMsg("resign", seat)).catch(ignore);
    },
    async offerDraw(seat) {
      const text = state.ffa
        ? "If everyone still playing agrees, the game ends and the points decide the standings."
        : "The game is drawn when everyone still playing agrees.";
      if (await confirmDialog({ title: "Offer a draw?", text, confirm: "Offer draw" })) {
        act(seatMsg("offer_draw", seat)).catch(ignore);
      }
    },
    answerDraw: (seat, accept) => act(seatMsg("answer_draw", seat, { accept })).catch(ignore),
    answerResignation: async (seat, accept) => {
      if (accept && !(await confirmDialog({ title: "Agree to resign?", text: "Your team loses the game.", confirm: "Resign", danger: true }))) return;
      act(seatMsg("answer_resignation", seat, { accept })).catch(ignore);
    },
    async takeBack(seat) {
      const left = state.game ? state.game.lifelines[seat % 2] : 0;
      if (await confirmDialog({ title: "Take back your team's move?", text: `This spends one of your team's lifelines (${left} left).`, confirm: "Take back" })) {
        act(seatMsg("take_back", seat)).catch(ignore);
      }
    },
    async claimWin(seat) {
      if (await confirmDialog({ title: "Claim the win?", text: "The game ends with your win.", confirm: "Claim" })) {
        act(seatMsg("claim_win", seat)).catch(ignore);
      }
    },
  };

  // ----- the page -----

  const banner = h("div", { class: "conn-banner", role: "status", hidden: true });
  /** @type {HTMLInputElement} */
  const linkInput = h("input", { class: "link-input", type: "text", readonly: true, value: `${location.origin}/r/${roomId}`, "aria-label": "Room link", on: { focus: () => linkInput.select() } });
  const copyButton = h("button", { class: "btn primary small", type: "button", dataset: { action: "copy-link" }, text: "Copy link", on: { click: () => copyLink() } });
  const invite = h("div", { class: "invite" }, h("span", { class: "invite-label", text: "Invite" }), linkInput, copyButton);
  const lobby = new Lobby(actions);
  const game = new GameView(actions);
  const chat = new Chat({ send: ({ channel, text }) => act(channel === "spectators" ? { type: "chat", channel, text } : { ...seatMsg("chat", chatSeat()), channel, text }, { quiet: true }) });
  const roomName = h("div", { class: "room-name" });
  const content = h("div", { class: "room-content" }, h("p", { class: "loading", text: "Joining the room…" }));
  const roomBar = h("div", { class: "room-bar" }, roomName, invite);
  const el = h("div", { class: "room" }, banner, roomBar, content);
  /** @type {"game" | "lobby" | null} */
  let mode = null;

  function chatSeat() {
    return state.yourSeats[0];
  }

  async function copyLink() {
    const text = linkInput.value;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      linkInput.select();
      // The old way, for browsers that keep the clipboard API from plain http pages.
      document.execCommand("copy");
    }
    copyButton.textContent = "Copied ✓";
    announceNow("The room link is copied.");
    setTimeout(() => (copyButton.textContent = "Copy link"), 1800);
  }

  // State changes are applied at once; drawing is batched to one per frame, so that a burst of
  // events (a replay after a reconnection, CPUs moving fast) costs one redraw.
  let renderPending = false;
  /** @param {Change} [change] */
  function render(change) {
    if (state.v === null) return;
    // What happened is told (and heard) before whose turn it is now.
    if (change) narrate(change);
    updateTitle();
    if (renderPending) return;
    renderPending = true;
    const run = () => {
      if (!renderPending) return;
      renderPending = false;
      draw();
    };
    requestAnimationFrame(run);
    setTimeout(run, 60);
  }

  // The game's history (every position, for review and for words on the moves) is fetched when
  // the events held do not cover the game: after a snapshot of a game under way. One request at
  // a time; a failed one is tried again with the next change.
  let historyLoading = false;
  function keepHistory() {
    if (historyLoading || !state.historyMissing) return;
    historyLoading = true;
    gameHistory(roomId)
      .then((body) => state.applyHistory(body))
      .catch(() => {})
      .finally(() => {
        historyLoading = false;
      });
  }

  function draw() {
    keepHistory();
    const inGame = !!state.game;
    const next = inGame ? "game" : "lobby";
    if (mode !== next) {
      mode = next;
      // In a game the room's name and link go to the side column, so that the board may use
      // the window's height; after Start, the board and the turn line are brought into view.
      if (inGame) {
        fill(content, game.el);
        game.attachBar(roomBar);
        game.attachChat(chat.el);
        requestAnimationFrame(() => game.showBoard());
      } else {
        fill(content, lobby.el);
        el.insertBefore(roomBar, content);
        lobby.attachChat(chat.el);
      }
    }
    const preset = presetInfo(state.roomSettings.preset);
    fill(roomName, h("span", { class: "room-preset", text: preset.name }), h("span", { class: "room-state", text: state.game ? (state.game.result ? "finished" : "playing") : "waiting to start" }));
    invite.classList.toggle("compact", inGame);
    el.classList.toggle("in-game", inGame);
    if (inGame) game.update(state);
    else lobby.update(state);
    chat.update(state);
    document.body.dataset.status = state.status || "";
    document.body.dataset.v = String(state.v);
    document.body.dataset.ply = state.game ? String(state.game.ply) : "";
    document.body.dataset.seats = state.yourSeats.join(",");
  }

  function updateTitle() {
    const mine = state.mySeatToMove;
    document.title = mine !== null ? `● Your move · ${BASE_TITLE}` : state.game && state.game.result ? `Game over · ${BASE_TITLE}` : BASE_TITLE;
    const key = mine !== null && state.game ? `${state.game.ply}:${mine}` : null;
    if (mine !== null && key !== lastTurnKey) {
      playSound("turn");
      const since = recentMoves(state).map((m) => m.text);
      const turn = state.yourSeats.length > 1 ? `Your move, ${state.seats[mine].label}.` : "Your move.";
      announceNow(since.length ? `${turn} Since your move: ${since.join("; ")}.` : turn);
    }
    lastTurnKey = key;
  }

  /**
   * Words for what just happened, for the live region.
   * @param {Change} change
   */
  function narrate(change) {
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
      case "chat":
        if (!(ev.seat !== undefined && state.yourSeats.includes(ev.seat))) announce(`${ev.name} says: ${ev.text}`);
        break;
      default:
        break;
    }
  }

  /** The host asked to play when creating the room: the first free seat is theirs. */
  function sitIfAsked() {
    const name = takeSeatOnArrival(roomId);
    if (!name || state.status !== "lobby" || state.yourSeats.length) return;
    const free = state.seats.find((s) => s.occupant === "empty");
    if (free) actions.takeSeat(free.seat, name);
  }

  // ----- connection -----

  /** @param {Status} status */
  function showBanner(status) {
    if (status.state === "open") {
      if (wasDisconnected) {
        banner.hidden = false;
        banner.className = "conn-banner ok";
        fill(banner, h("span", { text: "Reconnected." }));
        announce("Reconnected.");
        setTimeout(() => {
          if (conn && conn.state === "open") banner.hidden = true;
        }, 1500);
      } else banner.hidden = true;
      wasDisconnected = false;
      return;
    }
    if (status.state === "connecting") return;
    // A restart is announced by the server: nothing is wrong on this side, and nothing was lost.
    const lost = status.restarting ? "The server is restarting." : "Connection lost.";
    if (!wasDisconnected || (status.restarting && !banner.classList.contains("restarting"))) announceNow(`${lost} Reconnecting…`);
    wasDisconnected = true;
    banner.hidden = false;
    banner.className = status.restarting ? "conn-banner lost restarting" : "conn-banner lost";
    const countdown = h("span", { class: "conn-countdown" });
    fill(
      banner,
      h("strong", { text: lost }),
      status.state === "waiting" ? h("span", {}, " Reconnecting in ", countdown, "…") : h("span", { text: " Reconnecting…" }),
      status.state === "waiting" ? h("button", { class: "btn small", type: "button", text: "Retry now", on: { click: () => conn.retryNow() } }) : null,
    );
    banner.dataset.retryAt = status.retryAt ? String(status.retryAt) : "";
    tickBanner();
  }

  function tickBanner() {
    const at = Number(banner.dataset.retryAt || 0);
    const span = banner.querySelector(".conn-countdown");
    if (span && at) span.textContent = `${Math.max(0, Math.ceil((at - Date.now()) / 1000))} s`;
  }

  function gone() {
    fill(content, h("div", { class: "card room-gone" },
      h("h1", { text: "This room is closed" }),
      h("p", { text: "No room has this link: it may have closed after a long time with nobody in it." }),
      h("button", { class: "btn primary", type: "button", text: "Open a new room", on: { click: () => navigate("/") } })));
    invite.hidden = true;
    banner.hidden = true;
  }

  const conn = new Connection(roomId, {
    hello: () => state.helloTokens(),
    version: () => state.v,
    onHello: (ack) => {
      const seats = ack.seats || [];
      state.reconcileSeats(seats);
      if (state.v !== null) {
        // Catching up by events: no snapshot will say which seats this connection holds.
        state.yourSeats = seats.slice().sort((a, b) => a - b);
        state.youAreHost = !!ack.host || (state.hostSeat !== null && seats.includes(state.hostSeat));
        render({ kind: "hello" });
      }
    },
    onSnapshot: (msg) => {
      if (msg.game) noteClock(msg.game.clock);
      state.applySnapshot(msg);
      sitIfAsked();
    },
    onEvent: (msg) => {
      const ev = msg.event;
      if ("clock" in ev) noteClock(ev.clock);
      if ("game" in ev && typeof ev.game === "object") noteClock(ev.game.clock);
      state.applyEvent(msg);
    },
    onLegalMoves: (msg) => state.applyLegalMoves(msg),
    onStatus: showBanner,
    onGone: gone,
  });
  state.subscribe((change) => render(change));

  const ticker = setInterval(() => {
    if (mode === "game") game.tick();
    tickBanner();
  }, 100);

  conn.start();

  return {
    el,
    destroy() {
      clearInterval(ticker);
      conn.stop();
      document.title = BASE_TITLE;
    },
    // For the browser tests and for debugging from the console.
    debug: { state, conn, sounds: played },
  };
}
