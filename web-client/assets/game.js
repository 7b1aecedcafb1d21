// The game: the board with the players around it, whose turn it is and the clocks, points and
// lost pieces, the move list, the actions (resign, draw, takeback, claim), offers to answer, the
// result, rematch and the game file.

import { h, s, fill, rerender } from "./dom.js";
import { Board } from "./board.js";
import { seatArmy, pieceArmy, parseMove, OUT_COLOR } from "./armies.js";
import { pieceGroup } from "./pieces.js";
import { armyBadge, presenceBadge } from "./ui.js";
import { turnRemaining, banksNow, formatMs, serverNow } from "./clock.js";
import { soundVolume, setSoundVolume, playSound } from "./sound.js";
import { lastMoves, sinceMove, moveWords } from "./history.js";
import { Review } from "./review.js";
import { announce } from "./announce.js";
import { PremoveLine } from "./premove-line.js";
import { awaySummary } from "./away.js";

/** @typedef {import("./state.js").RoomState} RoomState */
/** @typedef {import("./protocol.js").GameView} GameData */

const CORNER_OF_SIDE = { bottom: "br", left: "bl", top: "tl", right: "tr" };
/**
 * The moves since the player's own last move (a spectator's: the last three), in words where the
 * game's history is known ("Blue's knight takes Red's bishop on f1"), else in notation.
 * @param {RoomState} state
 * @param {number} [upto] plies of the game to look at (all of them by default)
 * @returns {{seat: number, text: string, words: string, cpu: string | null}[]} `text` is `words`
 *   with `cpu`, which says who played a move nobody at the seat chose
 */
export function recentMoves(state, upto) {
  const game = state.game;
  if (!game) return [];
  const n = upto === undefined ? game.ply : upto;
  const duo = state.duo;
  /** @type {import("./history.js").Naming} */
  const naming = {
    seat: (seat) => (state.seats[seat] ? state.seats[seat].label : String(seat)),
    army: (letter) => {
      const army = pieceArmy(`${letter}K`, duo);
      return army ? army.name : letter;
    },
    checked: (seats) => [...new Set(seats.map((seat) => (duo ? seatArmy(seat, true).name : naming.seat(seat))))].join(" and "),
  };
  return sinceMove(game.move_seats, state.yourSeats, n, (i) => state.history.automatic(i)).map((i) => {
    const seat = game.move_seats[i];
    const ply = state.history.ply(i);
    const before = ply ? state.history.position(i) : null;
    const previous = i > 0 ? state.history.ply(i - 1) : undefined;
    const words = ply && before ? moveWords(before, ply, previous ? previous.checks : [], naming) : `${naming.seat(seat)}: ${game.moves[i]}`;
    const automatic = state.history.automatic(i);
    const cpu = automatic ? (state.yourSeats.includes(seat) ? "the CPU played for you" : "the CPU played for them") : null;
    return { seat, text: cpu ? `${words} (${cpu})` : words, words, cpu };
  });
}

/** A turn with less than this left is low on time (the timer turns red, and a sound says so). */
const LOW_TIME_MS = 10000;

/** @type {Record<string, number>} */
const START_COUNTS = { Q: 1, R: 2, B: 2, N: 2, P: 8 };
/** @type {Record<string, string>} */
const REASONS = {
  checkmate: "checkmate",
  king_captured: "king captured",
  resignation: "resignation",
  breakthrough: "pawn breakthrough",
  timeout: "time",
  abandonment: "abandonment",
  stalemate: "stalemate",
  agreement: "agreement",
  repetition: "threefold repetition",
  fifty_moves: "fifty-move rule",
  dead_position: "dead position",
  move_limit: "move limit",
  last_player: "last player standing",
  lead: "a decisive lead",
  claimed: "claimed win",
};

/**
 * A seat and who sits there: `Red (Ann)`.
 * @param {RoomState} state
 * @param {number} seat
 * @returns {string}
 */
export function seatTitle(state, seat) {
  const s = state.seats[seat];
  const label = s ? s.label : String(seat);
  const name = state.seatName(seat);
  return name ? `${label} (${name})` : label;
}

/**
 * Pieces each army (cross) or side (Duo) has lost, from the board: start minus what stands.
 * @param {GameData} game
 * @param {boolean} duo
 * @returns {Record<string, string[]>} piece letters by army letter
 */
export function lostPieces(game, duo) {
  const letters = duo ? ["w", "b"] : ["r", "b", "y", "g"];
  const promoted = new Set(game.promoted || []);
  /** @type {Record<string, string[]>} */
  const lost = {};
  for (const letter of letters) {
    /** @type {Record<string, number>} */
    const have = { Q: 0, R: 0, B: 0, N: 0, P: 0, K: 0 };
    for (const [sq, code] of Object.entries(game.pieces)) {
      if (code[0] !== letter) continue;
      have[promoted.has(sq) ? "P" : code[1]] += 1;
    }
    const list = [];
    if (have.K === 0 && Object.values(game.pieces).length) list.push("K");
    for (const type of ["Q", "R", "B", "N", "P"]) for (let i = have[type]; i < START_COUNTS[type]; i++) list.push(type);
    lost[letter] = list;
  }
  return lost;
}

/** @type {Record<string, string>} */
const ICONS = {
  turn: "M4 10a6 6 0 0 1 10.4-4.1M16 4v3.2h-3.2M16 10a6 6 0 0 1-10.4 4.1M4 16v-3.2h3.2",
  sound: "M3 8h3l4-3.5v11L6 12H3zM13 7.5a3.5 3.5 0 0 1 0 5M15 5.5a6.5 6.5 0 0 1 0 9",
  muted: "M3 8h3l4-3.5v11L6 12H3zM13 8l4 4M17 8l-4 4",
};

/** @param {string} name */
function icon(name) {
  return s("svg", { class: "icon", viewBox: "0 0 20 20", width: 18, height: 18, "aria-hidden": "true" },
    s("path", { d: ICONS[name], fill: "none", stroke: "currentColor", "stroke-width": 1.7, "stroke-linecap": "round", "stroke-linejoin": "round" }));
}

/**
 * `2 pawns, 1 knight`.
 * @param {string[]} types piece letters
 */
function countWords(types) {
  /** @type {Record<string, string>} */
  const names = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const t of types) counts.set(t, (counts.get(t) || 0) + 1);
  return [...counts].map(([t, n]) => `${n} ${names[t]}${n > 1 ? "s" : ""}`).join(", ");
}

/**
 * A summary of the moves made while the player was away, in words: a headline, then a line each.
 * @param {import("./away.js").AwaySummary} away
 * @param {boolean} duo
 * @returns {string[]}
 */
export function awayWords(away, duo) {
  const times = (/** @type {number} */ n) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
  const lines = [
    `While you were away: ${away.moves} ${away.moves === 1 ? "move" : "moves"}`,
    `The CPU stood in and played for you: ${away.forYou.map((m) => m.text).join(", ")}.`,
    away.lost.length ? `${duo ? "Your side" : "You"} lost ${countWords(away.lost.map((code) => code[1]))}.` : `${duo ? "Your side" : "You"} lost no piece.`,
  ];
  if (away.checks) lines.push(`You were put in check ${times(away.checks)}.`);
  return lines;
}

export class GameView {
  /** @param {import("./requests.js").Actions} actions */
  constructor(actions) {
    this.actions = actions;
    this.board = new Board({
      onMove: (text) => actions.move(text),
      onNotice: (text) => actions.notice(text),
      onPremove: (text) => actions.premove(text),
      onCancelPremoves: () => actions.cancelPremoves(),
    });
    /** @type {number | null} the rotation the player chose with "Turn board" */
    this.rotationOverride = null;
    /** @type {RoomState | null} */
    this.state = null;
    /** @type {string | null} */
    this.statusKey = null;
    /** @type {string | null} */
    this.overlayKey = null;
    /** @type {Map<string, HTMLElement>} */
    this.plates = new Map();
    for (const corner of ["br", "bl", "tl", "tr"]) {
      const plate = h("div", { class: `plate corner-${corner}` });
      this.plates.set(corner, plate);
      this.board.el.append(plate);
    }
    this.overlay = h("div", { class: "board-result", hidden: true });
    this.board.el.append(this.overlay);
    /** @type {string | null} the turn whose low time was heard */
    this.lowHeard = null;
    /** @type {string | null} the result whose overlay was dismissed */
    this.dismissed = null;
    /** @type {string | null} the summary of an absence last announced */
    this.awayHeard = null;
    this.duoTop = h("div", { class: "duo-row top" });
    this.duoBottom = h("div", { class: "duo-row bottom" });
    this.turnLine = h("p", { class: "turn-line", id: "turn-line" });
    this.review = new Review(() => this.reviewChanged());
    this.sinceLine = h("p", { class: "since-line", dataset: { role: "since" } });
    this.reviewBar = h("div", { class: "review-bar", dataset: { role: "review" }, hidden: true });
    this.premoveLine = new PremoveLine({
      cancel: () => actions.cancelPremoves(),
      dismiss: () => this.state && this.state.dismissDroppedPremoves(),
    });
    this.boardNote = h("div", { class: "board-note" }, this.sinceLine, this.reviewBar, this.premoveLine.el);
    // Pressing on the board, or a key on it, while an earlier position is shown goes back to the
    // live one first, so that a move is made on the position it is for.
    for (const type of ["pointerdown", "keydown"]) {
      this.board.el.addEventListener(type, (e) => {
        if (!this.review.active) return;
        if (e instanceof KeyboardEvent && !["Enter", " "].includes(e.key)) return;
        this.review.live();
      }, { capture: true });
    }
    this.soundButton = h("button", { class: "btn small ghost", type: "button", dataset: { action: "sound" }, on: { click: () => this.toggleSound() } });
    /** the volume to go back to when the sound is turned on again */
    this.lastVolume = soundVolume() || 0.6;
    /** @type {HTMLInputElement} */
    this.volumeInput = h("input", {
      class: "volume",
      type: "range",
      min: "0",
      max: "100",
      step: "5",
      "aria-label": "Volume",
      dataset: { action: "volume" },
      on: {
        input: () => {
          setSoundVolume(Number(this.volumeInput.value) / 100);
          this.updateSoundButton();
        },
      },
    });
    this.turnButton = h("button", { class: "btn small ghost", type: "button", dataset: { action: "turn-board" }, on: { click: () => this.turnBoard() } }, icon("turn"), h("span", { class: "tool-label", text: "Turn board" }));
    this.status = h("section", { class: "card status-card", "aria-label": "Game status" });
    this.players = h("section", { class: "card players-card", "aria-labelledby": "players-title" });
    this.movesList = h("div", {
      class: "moves-scroll",
      tabindex: "0",
      role: "region",
      "aria-label": "Moves. Left and right arrows show the position before or after a move, Home the start, End the live position.",
      on: {
        click: (e) => this.moveClicked(e),
        keydown: (e) => {
          const game = this.state && this.state.game;
          if (game && this.review.key(e, game.ply)) e.preventDefault();
        },
      },
    });
    this.moves = h("section", { class: "card moves-card", "aria-labelledby": "moves-title" },
      h("div", { class: "card-head" }, h("h2", { id: "moves-title", class: "card-title", text: "Moves" }),
        h("button", { class: "btn small ghost", type: "button", dataset: { action: "download" }, text: "Download game", on: { click: () => this.download() } })),
      this.movesList);
    this.side = h("div", { class: "side-col" }, this.status, this.players, this.moves);
    this.boardCol = h("div", { class: "board-col" },
      h("div", { class: "board-bar" }, this.turnLine, h("div", { class: "board-tools" }, this.turnButton, this.soundButton, this.volumeInput)),
      this.boardNote,
      this.duoTop,
      this.board.el,
      this.duoBottom);
    this.el = h("div", { class: "game-layout" }, this.boardCol, this.side);
    this.updateSoundButton();
    // Escape cancels the premoves wherever the focus is, but in a text field or a dialog (the
    // board's own Escape, which first drops a selection, has already had its say).
    this.onDocumentKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.key !== "Escape" || e.defaultPrevented || !this.state || !this.el.isConnected) return;
      const target = e.target;
      if (target instanceof Element && target.closest("input, textarea, select, [contenteditable], dialog")) return;
      const queued = this.state.yourSeats.some((seat) => (this.state?.premoves[seat] || []).length);
      if (!queued) return;
      e.preventDefault();
      this.board.select(null);
      this.actions.cancelPremoves();
    };
    document.addEventListener("keydown", this.onDocumentKey);
  }

  /** The page is left: stop listening to the whole document. */
  destroy() {
    document.removeEventListener("keydown", this.onDocumentKey);
  }

  /**
   * Where the room's name and link go during the game (atop the side column).
   * @param {HTMLElement} barEl
   */
  attachBar(barEl) {
    this.side.prepend(barEl);
  }

  /** Scrolls the turn line and the board into view (a phone scrolled down to Start, say). */
  showBoard() {
    this.boardCol.scrollIntoView({ block: "nearest" });
  }

  /** Puts the focus on the board (its keyboard square), as the game begins. */
  focusBoard() {
    this.board.focus();
  }

  /**
   * Where the chat goes (below the side column).
   * @param {HTMLElement} chatEl
   */
  attachChat(chatEl) {
    this.side.append(chatEl);
  }

  /** Sound off, or back on at the volume it had. */
  toggleSound() {
    const now = soundVolume();
    if (now > 0) this.lastVolume = now;
    setSoundVolume(now > 0 ? 0 : this.lastVolume);
    this.updateSoundButton();
  }

  updateSoundButton() {
    const level = soundVolume();
    fill(this.soundButton, icon(level > 0 ? "sound" : "muted"), h("span", { class: "tool-label", text: "Sound" }));
    this.soundButton.setAttribute("aria-pressed", level > 0 ? "true" : "false");
    this.volumeInput.value = String(Math.round(level * 100));
    this.volumeInput.setAttribute("aria-valuetext", level > 0 ? `${Math.round(level * 100)}%` : "muted");
  }

  /**
   * The rotation that puts the player's army at the bottom.
   * @param {RoomState} state
   * @returns {number}
   */
  defaultRotation(state) {
    const mine = state.yourSeats;
    if (!mine.length) return 0;
    const seat = state.mySeatToMove !== null && mine.length > 1 ? state.mySeatToMove : mine[0];
    if (state.duo) return seat % 2 === 0 ? 0 : 2;
    return seat;
  }

  turnBoard() {
    const step = this.state && this.state.duo ? 2 : 1;
    this.rotationOverride = ((this.board.rotation + step) % 4);
    this.board.setRotation(this.rotationOverride);
    if (this.state) this.update(this.state);
  }

  /** @param {RoomState} state */
  update(state) {
    this.state = state;
    const game = state.game;
    if (!game) return;
    this.board.setRotation(this.rotationOverride !== null ? this.rotationOverride : this.defaultRotation(state));
    const shown = this.shownGame(state, game);
    const marks = lastMoves(game.move_seats, game.move_coordinates, shown.ply).map(({ seat, from, to }) => ({
      from,
      to,
      color: seatArmy(seat, state.duo).color,
      name: state.seats[seat] ? state.seats[seat].label : String(seat),
    }));
    const legal = this.review.active ? null : state.currentLegal;
    const premoveSeat = this.review.active ? null : state.premoveSeat;
    const premove = premoveSeat === null ? null : { seat: premoveSeat, queued: state.premoves[premoveSeat] || [] };
    this.board.draw({ game: shown, legal, duo: state.duo, showLegal: state.roomSettings.show_legal_moves, marks, premove });
    this.renderPremoves(state);
    this.el.classList.toggle("reviewing", this.review.active);
    this.renderNote(state, game, shown.ply);
    this.el.classList.toggle("duo", state.duo);
    this.el.classList.toggle("my-turn", state.mySeatToMove !== null);
    this.el.classList.toggle("finished", !!game.result);
    this.renderPlates(state, game);
    this.renderTurnLine(state, game);
    this.renderOverlay(state, game);
    const away = this.awaySummary(state, game);
    const g = game;
    const statusKey = JSON.stringify([away, g.result, g.draw_offer, g.resignation_request, g.to_move, g.armies, g.lifelines, g.clock && g.clock.paused, state.yourSeats, state.youAreHost, state.seats, state.session]);
    if (statusKey !== this.statusKey) {
      this.statusKey = statusKey;
      rerender(this.status, () => this.statusContent(state, game, away));
      if (away && JSON.stringify(away) !== this.awayHeard) announce(awayWords(away, state.duo).join(" "));
      this.awayHeard = away ? JSON.stringify(away) : null;
    }
    fill(this.players, this.playersContent(state, game));
    this.renderMoves(state, game);
    this.tick();
  }

  // ----- review -----

  /**
   * The game as the board shows it: the live game, or the position under review with its last
   * move and checks (as long as the game's history has it).
   * @param {RoomState} state
   * @param {GameData} game
   * @returns {GameData}
   */
  shownGame(state, game) {
    if (!this.review.active) return game;
    const n = this.review.shown(game.ply);
    const pieces = state.history.position(n);
    if (!pieces) return game;
    const ply = n > 0 ? state.history.ply(n - 1) : undefined;
    const mv = parseMove(game.move_coordinates[n - 1]);
    return {
      ...game,
      pieces,
      promoted: [],
      ply: n,
      to_move: null,
      last_move: mv ? [mv.from, mv.to] : undefined,
      checks: ply ? ply.checks : [],
      checking: ply ? ply.checking || [] : [],
    };
  }

  /** The position under review changed: redraw, keep its move in view and say which it is. */
  reviewChanged() {
    const state = this.state;
    if (!state || !state.game) return;
    this.update(state);
    const game = state.game;
    const n = this.review.shown(game.ply);
    const current = this.movesList.querySelector("td.current");
    if (current instanceof HTMLElement) current.scrollIntoView({ block: "nearest" });
    if (!this.review.active) announce("Back to the live position.");
    else if (n === 0) announce("The starting position.");
    else announce(`After move ${n}, ${state.seats[game.move_seats[n - 1]].label}: ${game.moves[n - 1]}.`);
  }

  /**
   * A click on the move list: the position after the move clicked.
   * @param {MouseEvent} e
   */
  moveClicked(e) {
    const target = e.target instanceof Element ? e.target.closest("td[data-ply]") : null;
    const game = this.state && this.state.game;
    if (!(target instanceof HTMLElement) || !game) return;
    this.review.show(Number(target.dataset.ply), game.ply);
  }

  /**
   * Above the board: the moves since yours, or while reviewing, the banner that says the board
   * is not live.
   * @param {RoomState} state
   * @param {GameData} game
   * @param {number} shown the plies in the position shown
   */
  renderNote(state, game, shown) {
    this.reviewBar.hidden = !this.review.active;
    this.sinceLine.hidden = this.review.active;
    if (this.review.active) {
      const what = shown === 0 ? "the start" : `move ${shown} of ${game.ply}`;
      fill(this.reviewBar,
        h("span", {}, h("strong", { text: "Reviewing " }), h("span", { text: `${what}: the board is not live.` })),
        h("button", { class: "btn small primary", type: "button", dataset: { action: "back-to-game" }, text: "Back to the game", on: { click: () => this.review.live() } }));
      return;
    }
    const moves = recentMoves(state);
    if (!moves.length) {
      this.sinceLine.replaceChildren();
      this.sinceLine.title = "";
      return;
    }
    // "Since your move" only when the player's own move is just before these (or the CPU's
    // for them leads them).
    const first = game.ply - moves.length;
    const before = game.move_seats[first - 1];
    const leadsMine = moves[0].cpu !== null && state.yourSeats.includes(moves[0].seat);
    const title = leadsMine || (before !== undefined && state.yourSeats.includes(before)) ? "Since your move:" : "Last moves:";
    this.sinceLine.replaceChildren(h("span", { class: "since-title", text: title }),
      ...moves.map(({ seat, words, cpu }) => h("span", { class: ["since-move", cpu && "automatic", cpu && state.yourSeats.includes(seat) && "for-you"] },
        armyBadge(seat, state.duo, { size: 12 }),
        h("span", { text: words }),
        cpu ? h("span", { class: "tag cpu", title: cpu, text: state.yourSeats.includes(seat) ? "CPU for you" : "CPU" }) : null)));
    this.sinceLine.title = `${title} ${moves.map((m) => m.text).join("; ")}`;
  }

  /**
   * Your queued premoves (whether or not the board is live) or why the server dropped them.
   * @param {RoomState} state
   */
  renderPremoves(state) {
    const queued = state.yourSeats.flatMap((seat) => state.premoves[seat] || []);
    this.premoveLine.render(queued, state.droppedPremoves);
    this.boardNote.classList.toggle("with-premoves", !this.premoveLine.el.hidden);
  }

  // ----- the players around the board -----

  /**
   * A player's plate by the board: name, presence, points, timer.
   * @param {RoomState} state
   * @param {GameData} game
   * @param {number} seat
   * @returns {HTMLElement}
   */
  plate(state, game, seat) {
    const seatView = state.seats[seat];
    const army = seatArmy(seat, state.duo);
    const out = game.armies[seat] === "out";
    const toMove = game.to_move === seat;
    const mine = state.yourSeats.includes(seat);
    const el = h("div", { class: ["plate-inner", toMove && "to-move", out && "out", mine && "mine"], dataset: { seat: String(seat) } });
    el.style.setProperty("--army", out ? OUT_COLOR : army.color);
    const name = state.seatName(seat) || seatView.label;
    el.append(
      h("div", { class: "plate-name" }, armyBadge(seat, state.duo, { out, size: 14 }), h("span", { class: "pname", text: name }), mine ? h("span", { class: "tag you", text: "you" }) : null),
      h("div", { class: "plate-info" },
        h("span", { class: "plabel", text: seatView.label }),
        seatView.occupant === "human" && seatView.presence && seatView.presence !== "online" ? presenceBadge(seatView) : null,
        seatView.presence === "away" && seatView.grace_ends_at ? h("span", { class: "grace", dataset: { grace: String(seatView.grace_ends_at) }, title: "Time left before the CPU takes over" }) : null,
        game.armies[seat] === "king_walking" ? h("span", { class: "presence gone", text: "king walks" }) : null,
        out ? h("span", { class: "presence gone", text: "out" }) : null),
      h("div", { class: "plate-bottom" },
        state.ffa ? h("span", { class: "points", text: `${game.points[seat]} pts` }) : null,
        h("span", { class: "timer", dataset: { timer: String(seat) } }),
        h("span", { class: "seat-bank", dataset: { seatBank: String(seat) }, title: "Game clock" })),
    );
    return el;
  }

  /**
   * @param {RoomState} state
   * @param {GameData} game
   */
  renderPlates(state, game) {
    if (state.duo) {
      for (const plate of this.plates.values()) plate.hidden = true;
      const bottomWhite = this.board.rotation === 0;
      /** @param {boolean} white */
      const row = (white) => {
        const seats = white ? [0, 2] : [1, 3];
        return [
          ...seats.map((seat) => this.plate(state, game, seat)),
          h("div", { class: "bank", dataset: { bank: white ? "0" : "1" } }, h("span", { class: "bank-label", text: white ? "White" : "Black" }), h("span", { class: "bank-time" })),
        ];
      };
      fill(this.duoTop, row(!bottomWhite));
      fill(this.duoBottom, row(bottomWhite));
      this.duoTop.hidden = false;
      this.duoBottom.hidden = false;
      return;
    }
    this.duoTop.hidden = true;
    this.duoBottom.hidden = true;
    for (let seat = 0; seat < 4; seat++) {
      const corner = CORNER_OF_SIDE[this.board.sideOfSeat(seat)];
      const plate = this.plates.get(corner);
      if (!plate) continue;
      plate.hidden = false;
      fill(plate, this.plate(state, game, seat));
    }
  }

  /**
   * The result over the board, until dismissed.
   * @param {RoomState} state
   * @param {GameData} game
   */
  renderOverlay(state, game) {
    const r = game.result;
    const key = r ? `${state.v}:${r.text}` : null;
    if (!r || this.dismissed === r.text + game.ply) {
      this.overlay.hidden = true;
      this.overlayKey = null;
      return;
    }
    if (this.overlayKey === key) return;
    this.overlayKey = key;
    const headline = r.winners.length ? `${r.winners.map((s) => state.seats[s].label).join(" & ")} ${r.winners.length > 1 ? "win" : "wins"}` : "Draw";
    fill(
      this.overlay,
      h("p", { class: "result-kicker", text: "Game over" }),
      h("p", { class: "board-result-headline", text: headline }),
      h("p", { class: "board-result-text", text: r.text }),
      h("button", { class: "btn small", type: "button", text: "Show the board", on: { click: () => {
        this.dismissed = r.text + game.ply;
        this.overlay.hidden = true;
      } } }),
    );
    this.overlay.hidden = false;
  }

  /**
   * @param {RoomState} state
   * @param {GameData} game
   */
  renderTurnLine(state, game) {
    this.turnLine.className = "turn-line";
    if (game.result) {
      this.turnLine.textContent = "Game over";
      return;
    }
    if (game.to_move === null || game.to_move === undefined) {
      this.turnLine.textContent = "";
      return;
    }
    const mine = state.mySeatToMove !== null;
    const words = mine ? (state.yourSeats.length > 1 ? `Your move (${state.seats[game.to_move].label})` : "Your move") : `${seatTitle(state, game.to_move)} to move`;
    this.turnLine.replaceChildren(
      armyBadge(game.to_move, state.duo, { size: 16 }),
      h("span", { class: "turn-text", text: words }),
      h("span", { class: "timer turn-timer", dataset: { timer: "turn" } }),
    );
    this.turnLine.title = words;
    this.turnLine.classList.toggle("mine", mine);
  }

  /** Counts the clocks down (called often). */
  tick() {
    const state = this.state;
    if (!state || !state.game) return;
    const game = state.game;
    /** @type {import("./protocol.js").Clock} */
    const clock = game.result ? {} : game.clock || {};
    const remaining = turnRemaining(clock);
    const text = remaining === null ? "" : formatMs(remaining);
    // Low time on a turn of the player's own: heard once a turn.
    const lowKey = remaining !== null && remaining < LOW_TIME_MS && state.mySeatToMove !== null ? `${game.id}:${game.ply}` : null;
    if (lowKey && lowKey !== this.lowHeard) {
      this.lowHeard = lowKey;
      playSound("low");
      announce(`${Math.ceil((remaining ?? 0) / 1000)} seconds left to move`);
    }
    for (const el of this.el.querySelectorAll("span[data-timer]")) {
      if (!(el instanceof HTMLElement)) continue;
      const which = el.dataset.timer;
      const show = which === "turn" || Number(which) === game.to_move;
      el.textContent = show && state.roomSettings.turn_limit ? text : "";
      el.classList.toggle("low", show && remaining !== null && remaining < LOW_TIME_MS);
    }
    // An away player's grace period, on their plate.
    for (const el of this.el.querySelectorAll("span[data-grace]")) {
      if (el instanceof HTMLElement) el.textContent = formatMs(Math.max(0, Number(el.dataset.grace) - serverNow()));
    }
    const banks = banksNow(clock.banks_ms ? clock : game.clock, game.result ? null : game.to_move);
    // A game clock: each seat's bank on its plate, the running one marked, low under 10 s.
    for (const el of this.el.querySelectorAll("span[data-seat-bank]")) {
      if (!(el instanceof HTMLElement)) continue;
      const seat = Number(el.dataset.seatBank);
      const left = banks && banks.length === 4 ? banks[seat] : null;
      el.hidden = left === null;
      el.textContent = left === null ? "" : formatMs(left);
      el.classList.toggle("running", left !== null && !game.result && game.to_move === seat);
      el.classList.toggle("low", left !== null && left < LOW_TIME_MS);
    }
    for (const el of this.el.querySelectorAll("div[data-bank]")) {
      if (!(el instanceof HTMLElement)) continue;
      const side = Number(el.dataset.bank);
      const time = el.querySelector(".bank-time");
      if (!banks || !time) {
        el.hidden = true;
        continue;
      }
      el.hidden = false;
      time.textContent = formatMs(banks[side]);
      const running = !game.result && !clock.paused && game.to_move !== null && game.to_move % 2 === side;
      el.classList.toggle("running", running);
      el.classList.toggle("paused", !!clock.paused);
      el.classList.toggle("low", banks[side] < 20000);
    }
  }

  // ----- status, offers, actions, result -----

  /**
   * The seat of mine that acts (offers, resigns): the one to move, else the first still playing.
   * @param {RoomState} state
   * @param {GameData} game
   * @returns {number | null}
   */
  actingSeat(state, game) {
    const mine = state.yourSeats.filter((s) => game.armies[s] !== "out");
    if (!mine.length) return null;
    if (game.to_move !== null && mine.includes(game.to_move)) return game.to_move;
    return mine[0];
  }

  /**
   * Who you are in this game, in a line.
   * @param {RoomState} state
   * @returns {HTMLElement}
   */
  youPlay(state) {
    const mine = state.yourSeats;
    if (!mine.length) return h("p", { class: "you-play", text: "You are watching this game." });
    /** @type {Element[]} */
    const parts = [h("span", { text: "You play" })];
    mine.forEach((seat, i) => {
      if (i) parts.push(h("span", { text: "and" }));
      parts.push(armyBadge(seat, state.duo, { size: 14 }), h("strong", { text: state.seats[seat].label }));
    });
    if (!state.ffa && mine.length === 1) {
      const partner = (mine[0] + 2) % 4;
      parts.push(h("span", { text: "· partner" }), armyBadge(partner, state.duo, { size: 14 }), h("strong", { text: seatTitle(state, partner) }));
    }
    return h("p", { class: "you-play" }, parts);
  }

  /**
   * The status card: who you are, what happened while you were away, the result or the offers
   * and your actions, the session.
   * @param {RoomState} state
   * @param {GameData} game
   * @param {import("./away.js").AwaySummary | null} away
   * @returns {HTMLElement[]}
   */
  statusContent(state, game, away) {
    const out = [this.youPlay(state)];
    if (away) out.push(this.awayBlock(state, away));
    if (game.result) {
      out.push(this.resultBlock(state, game.result));
    } else {
      if (game.clock && game.clock.paused) out.push(h("p", { class: "notice warn", text: "The clocks are stopped while a player is away." }));
      const seat = this.actingSeat(state, game);
      if (game.draw_offer && game.draw_offer.length) out.push(this.drawOfferBlock(state, game.draw_offer, seat));
      if (game.resignation_request !== undefined && game.resignation_request !== null) out.push(this.resignationBlock(state, game.resignation_request));
      if (seat !== null) out.push(this.actionsBlock(state, game, seat));
    }
    if (state.session) out.push(this.sessionBlock(state.session));
    return out;
  }

  /**
   * What happened since the player's last own move, when they have come back and the CPU stood
   * in for them meanwhile (null otherwise).
   * @param {RoomState} state
   * @param {GameData} game
   * @returns {import("./away.js").AwaySummary | null}
   */
  awaySummary(state, game) {
    if (!state.comeBack || game.result) return null;
    const letters = new Set(state.yourSeats.map((seat) => (state.duo ? (seat % 2 === 0 ? "w" : "b") : "rbyg"[seat])));
    return awaySummary(state.history, game, state.yourSeats, (code) => letters.has(code[0]));
  }

  /**
   * @param {RoomState} state
   * @param {import("./away.js").AwaySummary} away
   * @returns {HTMLElement}
   */
  awayBlock(state, away) {
    const [headline, ...lines] = awayWords(away, state.duo);
    return h("div", { class: "away-summary", role: "region", "aria-label": "While you were away", dataset: { role: "away-summary" } },
      h("h3", { text: headline }),
      h("ul", {}, lines.map((line) => h("li", { text: line }))),
      h("button", { class: "btn small", type: "button", dataset: { action: "dismiss-away" }, text: "Got it", on: { click: () => state.dismissComeBack() } }));
  }

  /**
   * @param {RoomState} state
   * @param {import("./protocol.js").GameResult} r
   * @returns {HTMLElement}
   */
  resultBlock(state, r) {
    const mine = state.yourSeats;
    let headline = "Draw";
    if (r.winners.length) {
      const names = r.winners.map((s) => seatTitle(state, s));
      headline = `${names.join(" & ")} ${r.winners.length > 1 ? "win" : "wins"}`;
    }
    let verdict = null;
    let verdictClass = "";
    if (mine.length && !r.winners.length) verdict = "A draw.";
    else if (mine.length) {
      const won = mine.some((s) => r.winners.includes(s));
      verdict = won ? "You won!" : "You lost.";
      verdictClass = won ? "won" : "lost";
    }
    const block = h("div", { class: "result", role: "status", dataset: { result: r.reason } },
      h("p", { class: "result-kicker", text: `Game over · ${REASONS[r.reason] || r.reason}` }),
      h("h2", { class: "result-headline", text: headline }),
      verdict ? h("p", { class: `result-verdict ${verdictClass}`, text: verdict }) : null,
      h("p", { class: "result-text", text: r.text }));
    if (r.points) {
      block.append(h("ol", { class: "result-points" }, r.points.map((p, seat) => h("li", {}, armyBadge(seat, false, { size: 12 }), h("span", { text: `${state.seats[seat].label} · ${state.seatName(seat) || "—"}` }), h("strong", { text: String(p) })))));
    }
    const buttons = h("div", { class: "button-row" });
    if (state.youAreHost) buttons.append(h("button", { class: "btn primary", type: "button", dataset: { key: "rematch", action: "rematch" }, text: "Rematch", on: { click: () => this.actions.rematch() } }));
    else buttons.append(h("p", { class: "muted", text: "The host may start a rematch." }));
    buttons.append(h("button", { class: "btn", type: "button", dataset: { key: "download-result" }, text: "Download game", on: { click: () => this.download() } }));
    block.append(buttons);
    return block;
  }

  /**
   * @param {RoomState} state
   * @param {number[]} agreed the seats that agreed to the draw
   * @param {number | null} seat the seat of mine that may answer
   * @returns {HTMLElement}
   */
  drawOfferBlock(state, agreed, seat) {
    const names = agreed.map((s) => state.seats[s].label).join(", ");
    const block = h("div", { class: "offer", role: "status" }, h("p", { text: `Draw offered · agreed: ${names}` }));
    if (seat !== null && !agreed.includes(seat)) {
      block.append(h("div", { class: "button-row" },
        h("button", { class: "btn primary small", type: "button", dataset: { key: "draw-accept", action: "accept-draw" }, text: "Accept draw", on: { click: () => this.actions.answerDraw(seat, true) } }),
        h("button", { class: "btn small", type: "button", dataset: { key: "draw-decline", action: "decline-draw" }, text: "Decline", on: { click: () => this.actions.answerDraw(seat, false) } })));
    }
    return block;
  }

  /**
   * @param {RoomState} state
   * @param {number} asker the seat that wants to resign
   * @returns {HTMLElement}
   */
  resignationBlock(state, asker) {
    const partner = (asker + 2) % 4;
    const block = h("div", { class: "offer", role: "status" }, h("p", { text: `${seatTitle(state, asker)} wants to resign.` }));
    if (state.yourSeats.includes(partner)) {
      block.append(h("p", { class: "muted", text: "Your team loses if you agree." }), h("div", { class: "button-row" },
        h("button", { class: "btn danger small", type: "button", dataset: { key: "resign-accept", action: "accept-resignation" }, text: "Agree to resign", on: { click: () => this.actions.answerResignation(partner, true) } }),
        h("button", { class: "btn small", type: "button", dataset: { key: "resign-refuse", action: "refuse-resignation" }, text: "Play on", on: { click: () => this.actions.answerResignation(partner, false) } })));
    } else {
      block.append(h("p", { class: "muted", text: "Waiting for their partner's answer." }));
    }
    return block;
  }

  /**
   * Resign, offer a draw, take back, claim: what the rules let the seat do (the server's
   * rules view), with the game's counts.
   * @param {RoomState} state
   * @param {GameData} game
   * @param {number} seat
   * @returns {HTMLElement}
   */
  actionsBlock(state, game, seat) {
    const rules = game.rules;
    const row = h("div", { class: "button-row actions" });
    const walking = game.armies[seat] === "king_walking";
    if (!walking) {
      row.append(
        h("button", { class: "btn danger-outline", type: "button", dataset: { key: "resign", action: "resign" }, text: "Resign", on: { click: () => this.actions.resign(seat) } }),
        h("button", { class: "btn", type: "button", dataset: { key: "draw", action: "offer-draw" }, disabled: game.draw_offer && game.draw_offer.includes(seat), text: "Offer draw", on: { click: () => this.actions.offerDraw(seat) } }),
      );
    }
    if (rules.takebacks > 0) {
      const left = game.lifelines[seat % 2];
      row.append(h("button", { class: "btn", type: "button", dataset: { key: "takeback", action: "take-back" }, disabled: left === 0, text: `Take back (${left} left)`, on: { click: () => this.actions.takeBack(seat) } }));
    }
    // Duo's claim is against an opponent away past the grace period, whose presence says `gone`.
    const opponentsGone = state.seats.some((s) => s.seat % 2 !== seat % 2 && s.occupant === "human" && s.presence === "gone");
    if (rules.claim === "lead" || (rules.claim === "abandonment" && opponentsGone)) {
      row.append(h("button", { class: "btn", type: "button", dataset: { key: "claim", action: "claim-win" }, text: "Claim the win", on: { click: () => this.actions.claimWin(seat) } }));
    }
    return row;
  }

  /**
   * @param {import("./protocol.js").SessionView} session
   * @returns {HTMLElement}
   */
  sessionBlock(session) {
    return h("div", { class: "session" },
      h("h3", { text: `Switch partners · game ${session.game} of 3${session.finished ? " · finished" : ""}` }),
      h("ol", {}, session.standings.map((p) => h("li", {}, h("span", { text: p.name }), h("span", { class: "pts", text: String(p.points) })))));
  }

  // ----- players list -----

  /**
   * @param {RoomState} state
   * @param {GameData} game
   */
  playersContent(state, game) {
    const lost = lostPieces(game, state.duo);
    const ffa = state.ffa;
    const list = h("ul", { class: "player-list" });
    for (let seat = 0; seat < 4; seat++) {
      const seatView = state.seats[seat];
      const army = seatArmy(seat, state.duo);
      const out = game.armies[seat] === "out";
      const letter = state.duo ? (seat % 2 === 0 ? "w" : "b") : "rbyg"[seat];
      const showLost = !state.duo || seat < 2;
      const li = h("li", { class: ["player", game.to_move === seat && "to-move", out && "out"], dataset: { seat: String(seat) } },
        h("div", { class: "player-main" },
          armyBadge(seat, state.duo, { out, size: 16 }),
          h("span", { class: "player-label", text: seatView.label }),
          h("span", { class: "player-name", text: state.seatName(seat) || "—" }),
          state.yourSeats.includes(seat) ? h("span", { class: "tag you", text: "you" }) : null,
          state.hostSeat === seat ? h("span", { class: "tag host", text: "host" }) : null,
          presenceBadge(seatView),
          ffa ? h("span", { class: "points", text: `${game.points[seat]}` }) : null),
        showLost && lost[letter].length
          ? h("div", { class: "lost-pieces", role: "img", "aria-label": `${state.duo ? army.name : seatView.label} lost ${countWords(lost[letter])}` }, lost[letter].map((t) => this.smallPiece(t, letter, state.duo)))
          : null,
      );
      li.style.setProperty("--army", out ? OUT_COLOR : army.color);
      list.append(li);
    }
    return [h("h2", { id: "players-title", class: "card-title", text: "Players" }), list];
  }

  /**
   * @param {string} type
   * @param {string} letter
   * @param {boolean} duo
   */
  smallPiece(type, letter, duo) {
    const army = pieceArmy(letter + type, duo) || { color: OUT_COLOR };
    const icon = s("svg", { class: "mini-piece", viewBox: "0 0 100 100", "aria-hidden": "true" });
    icon.append(pieceGroup(type, { color: army.color, mark: null, dark: duo && letter === "b" }));
    return icon;
  }

  // ----- moves -----

  /**
   * The move list, a row per round, a column per army (per side in Duo), each move under the
   * seat that played it (the server's `move_seats`).
   * @param {RoomState} state
   * @param {GameData} game
   */
  renderMoves(state, game) {
    const duo = state.duo;
    const shown = this.review.shown(game.ply);
    const table = h("table", { class: duo ? "moves duo" : "moves" });
    const head = h("tr", {}, h("th", { scope: "col", text: "#" }));
    const columns = duo ? [0, 1] : [0, 1, 2, 3];
    for (const c of columns) {
      const th = h("th", { scope: "col" }, armyBadge(duo ? c : c, duo, { size: 12 }), h("span", { text: duo ? (c === 0 ? "White" : "Black") : state.seats[c].label }));
      head.append(th);
    }
    table.append(h("thead", {}, head));
    const body = h("tbody");
    /** @type {HTMLTableRowElement | null} */
    let row = null;
    /** @type {number | null} */
    let last = null;
    let number = 0;
    const lastIndex = game.moves.length - 1;
    game.moves.forEach((text, i) => {
      const seat = state.plySeats[i];
      const column = duo ? seat % 2 : seat;
      if (row === null || last === null || column <= last) {
        number += 1;
        row = h("tr", {}, h("th", { scope: "row", text: String(number) }), columns.map(() => h("td")));
        body.append(row);
      }
      const cell = row.cells[column + 1];
      cell.textContent = text;
      cell.title = seatTitle(state, seat);
      if (state.history.automatic(i)) {
        cell.classList.add("auto");
        cell.title += ", played by the CPU";
        cell.append(h("span", { class: "sr-only", text: " (played by the CPU)" }));
      }
      cell.dataset.ply = String(i + 1);
      if (i === lastIndex) cell.classList.add("last");
      if (i === shown - 1) {
        cell.classList.add("current");
        cell.setAttribute("aria-current", "true");
      }
      last = column;
    });
    table.append(body);
    const empty = game.moves.length === 0 ? h("p", { class: "muted", text: "No moves yet." }) : null;
    const scroller = this.movesList;
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 30;
    const hadFocus = document.activeElement === scroller;
    fill(scroller, empty || table);
    if (this.review.active) {
      const current = scroller.querySelector("td.current");
      if (current instanceof HTMLElement) current.scrollIntoView({ block: "nearest" });
    } else if (atBottom || game.moves.length < 3) scroller.scrollTop = scroller.scrollHeight;
    if (hadFocus) scroller.focus();
  }

  /** Downloads the game as the server records it (PGN4, or PGN for Duo), so every player gets
   * the same file and the client needs no notation rules of its own. */
  download() {
    if (!this.state || !this.state.game) return;
    const a = document.createElement("a");
    a.href = `/api/rooms/${encodeURIComponent(this.state.roomId)}/game`;
    a.download = "";
    document.body.append(a);
    a.click();
    a.remove();
  }
}

