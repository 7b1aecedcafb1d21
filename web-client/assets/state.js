// The room as this client holds it: a snapshot plus the events after it, applied in order. It
// also keeps this device's tokens in step with the events that move them (a host moving a player,
// a switch-partners rematch). Listeners hear what changed, to redraw and to announce. What the
// rules let players do, and who played each move, are the server's word (`rules`,
// `game.move_seats`): the client derives neither.

import { roomTokens, saveRoomTokens, allSeatTokens } from "./storage.js";
import { parseMove } from "./armies.js";
import { GameHistory, capturedPieces } from "./history.js";

/** @typedef {import("./protocol.js").Snapshot} Snapshot */
/** @typedef {import("./protocol.js").GameView} GameView */
/** @typedef {import("./protocol.js").SeatView} SeatView */
/** @typedef {import("./protocol.js").Settings} Settings */
/** @typedef {import("./protocol.js").RulesView} RulesView */
/** @typedef {import("./protocol.js").ChatLine} ChatLine */
/** @typedef {import("./protocol.js").SessionView} SessionView */
/** @typedef {import("./protocol.js").RoomStatus} RoomStatus */
/** @typedef {import("./protocol.js").RoomEvent} RoomEvent */
/** @typedef {import("./protocol.js").MovedEvent} MovedEvent */
/** @typedef {import("./protocol.js").EventMessage} EventMessage */
/** @typedef {import("./protocol.js").LegalMovesMessage} LegalMovesMessage */
/** @typedef {import("./protocol.js").LegalMoves} LegalMoves */
/** @typedef {import("./protocol.js").GameHistory} HistoryBody */

/**
 * What changed, for the listeners: the kind (`snapshot`, `legal_moves`, an event's kind, or one
 * the page adds such as `hello`), the event if it was one, and the pieces a move captured.
 * @typedef {{kind: string, event?: RoomEvent, captured?: string[]}} Change
 */

/** @typedef {(change: Change, state: RoomState) => void} Listener */

export class RoomState {
  /** @param {string} roomId */
  constructor(roomId) {
    this.roomId = roomId;
    /** @type {number | null} the version held; null before the first snapshot */
    this.v = null;
    /** @type {RoomStatus | null} */
    this.status = null;
    /** @type {Settings | null} */
    this.settings = null;
    /** @type {RulesView | null} what the rules let players do, as the server last said */
    this.rules = null;
    /** @type {SeatView[]} */
    this.seats = [];
    /** @type {number | null} */
    this.hostSeat = null;
    /** @type {number[]} */
    this.yourSeats = [];
    this.youAreHost = false;
    /** @type {GameView | null} */
    this.game = null;
    /** @type {(LegalMoves & {v: number}) | null} */
    this.legal = null;
    /** @type {ChatLine[]} */
    this.chat = [];
    /** @type {SessionView | null} */
    this.session = null;
    /** @type {Record<number, string[]>} each of your seats' premove queue, first to play first */
    this.premoves = {};
    /**
     * The last queue the server emptied without playing it, and why, until the player acts
     * again (a move, a new premove) or dismisses the notice.
     * @type {{seat: number, moves: string[], reason: import("./protocol.js").PremovesDropped} | null}
     */
    this.droppedPremoves = null;
    /**
     * Whether the player has come back (the page opened, or reconnected) and not moved since:
     * the moves the CPU played for them meanwhile are summed up for them until they move.
     */
    this.comeBack = false;
    /** @type {import("./protocol.js").Limits | null} the server's limits on names and chat */
    this.limits = null;
    /** every position of the game, for review and for words on the moves */
    this.history = new GameHistory();
    this.clockAt = 0; // Date.now() when the game's clock arrived
    this.snapshots = 0; // snapshots applied (a reconnection that catches up by events adds none)
    this.tokens = roomTokens(roomId);
    /** @type {Set<Listener>} */
    this.listeners = new Set();
  }

  /**
   * @param {Listener} fn
   * @returns {() => void} unsubscribes
   */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** @param {Change} change */
  emit(change) {
    for (const fn of this.listeners) fn(change, this);
  }

  // ----- tokens -----

  saveTokens() {
    saveRoomTokens(this.roomId, this.tokens);
  }

  /** The tokens for `hello`. @returns {{seat_tokens: string[], host_token?: string}} */
  helloTokens() {
    /** @type {{seat_tokens: string[], host_token?: string}} */
    const msg = { seat_tokens: allSeatTokens(this.tokens) };
    if (this.tokens.host) msg.host_token = this.tokens.host;
    return msg;
  }

  /**
   * @param {number} seat
   * @returns {string | null}
   */
  tokenFor(seat) {
    return this.tokens.seats[seat] || null;
  }

  /**
   * @param {number} seat
   * @param {string} token
   */
  setSeatToken(seat, token) {
    this.tokens.seats[seat] = token;
    this.tokens.extra = this.tokens.extra.filter((t) => t !== token);
    this.saveTokens();
  }

  /** @param {string} token */
  setHostToken(token) {
    this.tokens.host = token;
    this.saveTokens();
  }

  /**
   * The seats the server says the device's tokens hold (the ack of `hello`).
   * @param {number[]} seats
   */
  reconcileSeats(seats) {
    const held = new Set(seats.map(String));
    const orphans = [];
    for (const [seat, token] of Object.entries(this.tokens.seats)) {
      if (!held.has(seat)) {
        orphans.push(token);
        delete this.tokens.seats[seat];
      }
    }
    const unmatched = seats.filter((s) => !this.tokens.seats[s]);
    const loose = [...orphans, ...this.tokens.extra];
    // One token we cannot place and one seat it must hold: they belong together.
    if (unmatched.length === 1 && loose.length === 1) {
      this.tokens.seats[unmatched[0]] = loose[0];
      this.tokens.extra = [];
    } else {
      this.tokens.extra = [...new Set(loose)];
    }
    this.saveTokens();
  }

  /** @param {(seat: number) => number} moves where each seat's token goes */
  remapTokens(moves) {
    /** @type {Record<string, string>} */
    const next = {};
    for (const [seat, token] of Object.entries(this.tokens.seats)) next[moves(Number(seat))] = token;
    this.tokens.seats = next;
    this.saveTokens();
  }

  // ----- what the server said, read for the views -----

  /** Duo: the ordinary board, partners sharing one colour. */
  get duo() {
    return !!this.rules && this.rules.format === "duo";
  }

  /** Free-for-all: no teams, points by seat. */
  get ffa() {
    return !!this.rules && this.rules.format === "free_for_all";
  }

  get playing() {
    return this.status === "playing" && !!this.game && !this.game.result;
  }

  /**
   * The seat of yours that may queue premoves now: in a game going on, while none of yours is
   * to move, the first of yours still playing (`null` when the room allows none).
   * @returns {number | null}
   */
  get premoveSeat() {
    const g = this.game;
    if (!g || g.result || !this.settings || !this.settings.premoves || this.mySeatToMove !== null) return null;
    const playing = this.yourSeats.filter((s) => g.armies[s] === "playing");
    return playing.length ? playing[0] : null;
  }

  /** The seat of mine that is to move, if any. @returns {number | null} */
  get mySeatToMove() {
    const g = this.game;
    if (!g || g.result || g.to_move === null || g.to_move === undefined) return null;
    return this.yourSeats.includes(g.to_move) ? g.to_move : null;
  }

  /** Legal moves usable now: for the current ply and a seat of mine. */
  get currentLegal() {
    const l = this.legal;
    const g = this.game;
    if (!l || !g || g.result || l.ply !== g.ply || g.to_move !== l.seat || !this.yourSeats.includes(l.seat)) return null;
    if (!this.tokenFor(l.seat)) return null;
    return l;
  }

  /**
   * The seat that played each of the game's moves (the server's `move_seats`).
   * @returns {number[]}
   */
  get plySeats() {
    return this.game ? this.game.move_seats : [];
  }

  /**
   * A seat's occupant in a word: the person's name, `CPU`, or nothing for an empty seat.
   * @param {number} seat
   * @returns {string}
   */
  seatName(seat) {
    const s = this.seats[seat];
    if (!s) return `Seat ${seat}`;
    if (s.occupant === "human") return s.name || "";
    if (s.occupant === "cpu") return "CPU";
    return "";
  }

  /** The settings, which every view (drawn only once a snapshot came) may count on. */
  get roomSettings() {
    if (!this.settings) throw new Error("no snapshot yet");
    return this.settings;
  }

  /** The page (re)connected to the room. */
  connected() {
    this.comeBack = true;
  }

  /** The player read what happened while they were away. */
  dismissComeBack() {
    this.comeBack = false;
    this.emit({ kind: "dismissed" });
  }

  /** The player read the notice of a dropped premove queue. */
  dismissDroppedPremoves() {
    this.droppedPremoves = null;
    this.emit({ kind: "dismissed" });
  }

  // ----- applying what the server sends -----

  /** @param {Snapshot} msg */
  applySnapshot(msg) {
    this.snapshots += 1;
    this.v = msg.v;
    this.status = msg.status;
    this.settings = msg.settings;
    this.rules = msg.rules;
    this.seats = msg.seats;
    this.hostSeat = msg.host_seat;
    this.yourSeats = msg.your_seats || [];
    this.youAreHost = !!msg.you_are_host;
    if (msg.host_token) this.setHostToken(msg.host_token);
    this.setGame(msg.game);
    this.legal = msg.legal_moves ? { ...msg.legal_moves, v: msg.v } : null;
    this.chat = msg.chat || [];
    this.session = msg.session || null;
    this.premoves = Object.fromEntries((msg.premoves || []).map((q) => [q.seat, q.moves]));
    this.limits = msg.limits || null;
    this.emit({ kind: "snapshot" });
  }

  /** @param {GameView | null} game */
  setGame(game) {
    this.game = game;
    if (!game) return;
    if (!game.move_coordinates) game.move_coordinates = [];
    this.history.follow(game);
    this.rules = game.rules;
    this.clockAt = Date.now();
  }

  /** Whether the game's history has a gap that only the server's copy can fill. */
  get historyMissing() {
    return !!this.game && !this.history.complete(this.game);
  }

  /**
   * The server's history of the game arrived (`GET /api/rooms/<id>/game/history`).
   * @param {HistoryBody} body
   */
  applyHistory(body) {
    if (!this.game) return;
    this.history.merge(body, this.game);
    this.emit({ kind: "history" });
  }

  /** @param {LegalMovesMessage} msg */
  applyLegalMoves(msg) {
    if (this.v !== null && msg.v < this.v) return; // stale
    this.legal = { seat: msg.seat, ply: msg.ply, moves: msg.moves, v: msg.v };
    this.emit({ kind: "legal_moves" });
  }

  /** @param {EventMessage} msg */
  applyEvent(msg) {
    this.v = msg.v;
    const ev = msg.event;
    /** @type {{captured?: string[]} | undefined} */
    let extra = undefined;
    switch (ev.kind) {
      case "seat_taken":
        this.seats[ev.seat] = { ...this.seats[ev.seat], occupant: "human", name: ev.name, presence: "online", cpu_level: undefined };
        break;
      case "seat_left":
        this.onSeatLeft(ev.seat);
        break;
      case "player_moved":
        this.onPlayerMoved(ev.from, ev.to);
        break;
      case "cpu_seat": {
        const label = this.seats[ev.seat].label;
        this.seats[ev.seat] = ev.level ? { seat: ev.seat, label, occupant: "cpu", cpu_level: ev.level } : { seat: ev.seat, label, occupant: "empty" };
        break;
      }
      case "settings_changed":
        this.settings = ev.settings;
        this.rules = ev.rules;
        break;
      case "host_changed":
        this.hostSeat = ev.seat;
        if (this.yourSeats.includes(ev.seat)) this.youAreHost = true;
        break;
      case "host_token":
        this.setHostToken(ev.host_token);
        this.youAreHost = true;
        break;
      case "started":
        this.status = "playing";
        this.legal = null;
        this.premoves = {};
        this.droppedPremoves = null;
        this.setGame(ev.game);
        break;
      case "moved":
        extra = this.onMoved(ev);
        break;
      case "game_changed":
        this.setGame(ev.game);
        if (ev.game.result) this.status = "finished";
        if (ev.what === "taken_back") this.legal = null;
        break;
      case "presence":
        if (this.seats[ev.seat]) this.seats[ev.seat] = { ...this.seats[ev.seat], presence: ev.presence, grace_ends_at: ev.grace_ends_at };
        if (this.game && ev.clock) {
          this.game.clock = ev.clock;
          this.clockAt = Date.now();
        }
        break;
      case "chat": {
        const { kind, ...line } = ev;
        this.chat.push(line);
        if (this.chat.length > 200) this.chat.splice(0, this.chat.length - 200);
        break;
      }
      case "rematch":
        this.onRematch(ev.seats, ev.game, ev.seat_moves);
        break;
      case "session": {
        const { kind, ...session } = ev;
        this.session = session;
        break;
      }
      case "premoves": {
        const before = this.premoves[ev.seat] || [];
        // A game's end says why by itself.
        if (ev.dropped && ev.dropped !== "game_over" && before.length) this.droppedPremoves = { seat: ev.seat, moves: before, reason: ev.dropped };
        else if (ev.moves.length) this.droppedPremoves = null;
        this.premoves = { ...this.premoves, [ev.seat]: ev.moves };
        break;
      }
      case "hidden":
        break;
    }
    this.emit({ kind: ev.kind, event: ev, ...(extra || {}) });
  }

  /** @param {number} seat */
  onSeatLeft(seat) {
    this.seats[seat] = { seat, label: this.seats[seat].label, occupant: "empty" };
    if (this.yourSeats.includes(seat)) {
      this.yourSeats = this.yourSeats.filter((s) => s !== seat);
      delete this.tokens.seats[seat];
      this.saveTokens();
    }
    if (this.hostSeat === seat) this.hostSeat = null;
  }

  /**
   * @param {number} from
   * @param {number} to
   */
  onPlayerMoved(from, to) {
    const person = this.seats[from];
    this.seats[to] = { ...person, seat: to, label: this.seats[to].label };
    this.seats[from] = { seat: from, label: person.label, occupant: "empty" };
    if (this.hostSeat === from) this.hostSeat = to;
    if (this.yourSeats.includes(from)) {
      this.yourSeats = this.yourSeats.map((s) => (s === from ? to : s));
    }
    if (this.tokens.seats[from]) this.remapTokens((s) => (s === from ? to : s));
  }

  /**
   * Applies a move's diff to the game held.
   * @param {MovedEvent} ev
   * @returns {{captured: string[]} | undefined} the pieces it captured
   */
  onMoved(ev) {
    const g = this.game;
    if (!g) return undefined;
    const captured = capturedPieces(g.pieces, ev.move, ev.changed);
    const mv = parseMove(ev.move);
    for (const [square, piece] of Object.entries(ev.changed)) {
      if (piece) g.pieces[square] = piece;
      else delete g.pieces[square];
    }
    if (mv) {
      let promoted = (g.promoted || []).filter((sq) => sq !== mv.to);
      if (promoted.includes(mv.from)) promoted = promoted.map((sq) => (sq === mv.from ? mv.to : sq));
      // Only free-for-all marks a promoted piece (it scores 1); elsewhere it is what it became,
      // as the server's game views have it.
      if (mv.promotion && this.ffa) promoted.push(mv.to);
      g.promoted = promoted;
      g.last_move = [mv.from, mv.to];
    }
    g.ply = ev.ply;
    g.moves = g.moves.slice(0, ev.ply - 1).concat([ev.text]);
    g.move_seats = g.move_seats.slice(0, ev.ply - 1).concat([ev.seat]);
    g.move_coordinates = g.move_coordinates.slice(0, ev.ply - 1).concat([ev.move]);
    this.history.record(ev);
    if (!ev.automatic && this.droppedPremoves && this.droppedPremoves.seat === ev.seat) this.droppedPremoves = null;
    if (!ev.automatic && this.yourSeats.includes(ev.seat)) this.comeBack = false;
    g.to_move = ev.to_move;
    g.checks = ev.checks;
    g.checking = ev.checking || [];
    g.points = ev.points;
    g.armies = ev.armies;
    g.clock = ev.clock || {};
    this.clockAt = Date.now();
    delete g.draw_offer;
    delete g.resignation_request;
    if (ev.result) {
      g.result = ev.result;
      g.to_move = null;
      this.status = "finished";
    }
    this.legal = null;
    return { captured };
  }

  /**
   * @param {SeatView[]} seats
   * @param {GameView} game
   * @param {number[] | undefined} seatMoves where each seat's person went
   */
  onRematch(seats, game, seatMoves) {
    this.premoves = {};
    this.droppedPremoves = null;
    if (seatMoves) {
      const moves = seatMoves;
      this.remapTokens((s) => moves[s]);
      this.yourSeats = this.yourSeats.map((s) => moves[s]);
      if (this.hostSeat !== null && this.hostSeat !== undefined) this.hostSeat = moves[this.hostSeat];
    }
    this.seats = seats;
    this.status = "playing";
    this.legal = null;
    this.setGame(game);
  }
}
