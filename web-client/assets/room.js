// A room's page: wires the room's state, the connection, the views (lobby, game, chat) and the
// parts with one job each: the requests (requests.js), the connection's banner (banner.js), the
// words and sounds for what happens (narration.js) and review (review.js, in the game view).
// Drawing is batched to one a frame; the game's history is fetched when events do not cover it.

import { h, fill } from "./dom.js";
import { RoomState } from "./state.js";
import { Connection } from "./connection.js";
import { Lobby } from "./lobby.js";
import { GameView } from "./game.js";
import { Chat } from "./chat.js";
import { noteClock, noteServerTime } from "./clock.js";
import { announceNow } from "./announce.js";
import { played } from "./sound.js";
import { presetInfo } from "./armies.js";
import { gameHistory } from "./api.js";
import { takeSeatOnArrival, hasRoomTokens } from "./storage.js";
import { roomActions } from "./requests.js";
import { ConnectionBanner } from "./banner.js";
import { Narrator } from "./narration.js";

/** @typedef {import("./state.js").Change} Change */

/**
 * A room's page: its element, what to do when leaving it, and handles for the browser tests.
 * @typedef {{el: HTMLElement, destroy: () => void, debug: {state: RoomState, conn: Connection, sounds: string[]}}} RoomPage
 */

/**
 * @param {string} roomId
 * @param {{navigate: import("./home.js").Navigate}} page
 * @returns {RoomPage}
 */
export function roomPage(roomId, { navigate }) {
  const state = new RoomState(roomId);
  const narrator = new Narrator(state);
  const banner = new ConnectionBanner({ retryNow: () => conn.retryNow(), isOpen: () => conn.state === "open" });

  const actions = roomActions({
    state,
    send: (msg) => conn.request(msg),
    seated: () => render({ kind: "seat_ack" }),
    // Refused: the form shows the settings as they are.
    settingsRefused: () => {
      if (lobby.form && state.settings) lobby.form.update(state.settings);
    },
  });

  // ----- the page -----

  /** @type {HTMLInputElement} */
  const linkInput = h("input", { class: "link-input", type: "text", readonly: true, value: `${location.origin}/r/${roomId}`, "aria-label": "Room link", on: { focus: () => linkInput.select() } });
  const copyButton = h("button", { class: "btn primary small", type: "button", dataset: { action: "copy-link" }, text: "Copy link", on: { click: () => copyLink() } });
  const invite = h("div", { class: "invite" }, h("span", { class: "invite-label", text: "Invite" }), linkInput, copyButton);
  const lobby = new Lobby(actions);
  const game = new GameView(actions);
  const chat = new Chat({ send: ({ channel, text }) => actions.chat(channel, text) });
  const roomName = h("div", { class: "room-name" });
  const content = h("div", { class: "room-content" }, h("p", { class: "loading", text: "Joining the room…" }));
  const roomBar = h("div", { class: "room-bar" }, roomName, invite);
  const el = h("div", { class: "room" }, banner.el, roomBar, content);
  /** @type {"game" | "lobby" | null} */
  let mode = null;

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
    if (change) narrator.narrate(change);
    narrator.turn();
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
      const started = mode === "lobby";
      mode = next;
      // In a game the room's name and link go to the side column, so that the board may use
      // the window's height; after Start, the board and the turn line are brought into view,
      // and the focus, which was on the lobby's controls, goes to the board.
      if (inGame) {
        const focusLost = !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected || lobby.el.contains(document.activeElement);
        fill(content, game.el);
        game.attachBar(roomBar);
        game.attachChat(chat.el);
        requestAnimationFrame(() => {
          game.showBoard();
          if (started && (focusLost || document.activeElement === document.body)) game.focusBoard();
        });
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

  /** The host asked to play when creating the room: the first free seat is theirs. */
  function sitIfAsked() {
    const name = takeSeatOnArrival(roomId);
    if (!name || state.status !== "lobby" || state.yourSeats.length) return;
    const free = state.seats.find((s) => s.occupant === "empty");
    if (free) actions.takeSeat(free.seat, name);
  }

  // ----- connection -----

  /**
   * The server has no such room. One this device was in (connected, or holding its tokens) has
   * closed; any other id may never have existed (a mistyped link, say).
   * @param {boolean} known
   */
  function gone(known) {
    const closed = known || hasRoomTokens(roomId);
    fill(content, h("div", { class: "card room-gone", dataset: { gone: closed ? "closed" : "unknown" } },
      h("h1", { text: closed ? "This room is closed" : "No such room" }),
      h("p", { text: closed ? "It closed after a long time with nobody in it, and the server has forgotten it." : `No room has the id ${roomId}: check the link you were sent.` }),
      h("button", { class: "btn primary", type: "button", text: closed ? "Open a new room" : "Go to the home page", on: { click: () => navigate("/") } })));
    invite.hidden = true;
    banner.hide();
    const heading = content.querySelector("h1");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }

  const conn = new Connection(roomId, {
    hello: () => state.helloTokens(),
    version: () => state.v,
    onHello: (ack) => {
      state.connected();
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
      noteServerTime(msg.server_time);
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
    onStatus: (status) => banner.show(status),
    onGone: gone,
  });
  state.subscribe((change) => render(change));

  const ticker = setInterval(() => {
    if (mode === "game") game.tick();
    banner.tick();
  }, 100);

  conn.start();

  return {
    el,
    destroy() {
      clearInterval(ticker);
      conn.stop();
      game.destroy();
      narrator.leave();
    },
    // For the browser tests and for debugging from the console.
    debug: { state, conn, sounds: played },
  };
}
