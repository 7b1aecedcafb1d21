// The room as this client holds it: a snapshot plus the events after it, applied in order. It
// also keeps this device's tokens in step with the events that move them (a host moving a player,
// a switch-partners rematch). Listeners hear what changed, to redraw and to announce.

import { roomTokens, saveRoomTokens, allSeatTokens } from "./storage.js";
import { parseMove } from "./armies.js";

const PLY_CACHE = "fourkings.plies.";

export class RoomState {
  constructor(roomId) {
    this.roomId = roomId;
    this.v = null;
    this.status = null;
    this.settings = null;
    this.seats = [];
    this.hostSeat = null;
    this.yourSeats = [];
    this.youAreHost = false;
    this.game = null;
    this.legal = null;
    this.chat = [];
    this.session = null;
    this.plySeats = []; // the seat of each ply of the game (for the move list and PGN)
    this.plyAuto = []; // plies the CPU played for a person (seen live)
    this.eliminations = []; // [{ply, seat, token}] seen live, for PGN4
    this.clockAt = 0; // Date.now() when the game's clock arrived
    this.snapshots = 0; // snapshots applied (a reconnection that catches up by events adds none)
    this.tokens = roomTokens(roomId);
    this.listeners = new Set();
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(change) {
    for (const fn of this.listeners) fn(change, this);
  }

  // ----- tokens -----

  saveTokens() {
    saveRoomTokens(this.roomId, this.tokens);
  }

  helloTokens() {
    const msg = { seat_tokens: allSeatTokens(this.tokens) };
    if (this.tokens.host) msg.host_token = this.tokens.host;
    return msg;
  }

  tokenFor(seat) {
    return this.tokens.seats[seat] || null;
  }

  setSeatToken(seat, token) {
    this.tokens.seats[seat] = token;
    this.tokens.extra = this.tokens.extra.filter((t) => t !== token);
    this.saveTokens();
  }

  setHostToken(token) {
    this.tokens.host = token;
    this.saveTokens();
  }

  /** The seats the server says the device's tokens hold (the ack of `hello`). */
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

  remapTokens(moves) {
    const next = {};
    for (const [seat, token] of Object.entries(this.tokens.seats)) next[moves(Number(seat))] = token;
    this.tokens.seats = next;
    this.saveTokens();
  }

  // ----- derived -----

  get duo() {
    return this.settings && this.settings.preset === "duo";
  }

  get playing() {
    return this.status === "playing" && this.game && !this.game.result;
  }

  /** The seat of mine that is to move, if any. */
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

  seatName(seat) {
    const s = this.seats[seat];
    if (!s) return `Seat ${seat}`;
    if (s.occupant === "human") return s.name;
    if (s.occupant === "cpu") return "CPU";
    return "";
  }

  // ----- applying what the server sends -----

  applySnapshot(msg) {
    this.snapshots += 1;
    this.v = msg.v;
    this.status = msg.status;
    this.settings = msg.settings;
    this.seats = msg.seats;
    this.hostSeat = msg.host_seat;
    this.yourSeats = msg.your_seats || [];
    this.youAreHost = !!msg.you_are_host;
    if (msg.host_token) this.setHostToken(msg.host_token);
    this.setGame(msg.game, true);
    this.legal = msg.legal_moves ? { ...msg.legal_moves, v: msg.v } : null;
    this.chat = msg.chat || [];
    this.session = msg.session || null;
    this.emit({ kind: "snapshot" });
  }

  setGame(game, fromSnapshot) {
    this.game = game;
    if (!game) {
      this.plySeats = [];
      this.eliminations = [];
      return;
    }
    this.clockAt = Date.now();
    if (fromSnapshot) {
      this.eliminations = [];
      this.plySeats = this.cachedPlySeats(game);
    } else {
      this.plySeats = this.plySeats.slice(0, game.moves.length);
      this.eliminations = this.eliminations.filter((e) => e.ply <= game.moves.length);
    }
    this.inferPlySeats();
  }

  cachedPlySeats(game) {
    try {
      const cached = JSON.parse(localStorage.getItem(PLY_CACHE + this.roomId) || "null");
      if (!cached || cached.first !== game.first_seat) return [];
      const n = Math.min(cached.moves.length, game.moves.length);
      for (let i = 0; i < n; i++) if (cached.moves[i] !== game.moves[i]) return cached.seats.slice(0, i);
      if (cached.eliminations) this.eliminations = cached.eliminations.filter((e) => e.ply <= n);
      return cached.seats.slice(0, n);
    } catch {
      return [];
    }
  }

  savePlySeats() {
    const g = this.game;
    if (!g) return;
    try {
      localStorage.setItem(
        PLY_CACHE + this.roomId,
        JSON.stringify({ first: g.first_seat, moves: g.moves, seats: this.plySeats, eliminations: this.eliminations }),
      );
    } catch {
      // not needed to play
    }
  }

  /** Seats of plies we did not see played: the turn order from the first seat, skipping armies out. */
  inferPlySeats() {
    const g = this.game;
    const out = (s) => g.armies[s] === "out";
    let seat = this.plySeats.length ? this.plySeats[this.plySeats.length - 1] : null;
    while (this.plySeats.length < g.moves.length) {
      if (seat === null) seat = g.first_seat;
      else {
        let next = seat;
        for (let i = 0; i < 4; i++) {
          next = (next + 1) % 4;
          if (!out(next)) break;
        }
        seat = next;
      }
      this.plySeats.push(seat);
    }
  }

  applyLegalMoves(msg) {
    if (this.v !== null && msg.v < this.v) return; // stale
    this.legal = { seat: msg.seat, ply: msg.ply, moves: msg.moves, v: msg.v };
    this.emit({ kind: "legal_moves" });
  }

  applyEvent(msg) {
    this.v = msg.v;
    const ev = msg.event;
    const handler = this["on_" + ev.kind];
    const extra = handler ? handler.call(this, ev) : null;
    this.emit({ kind: ev.kind, event: ev, ...(extra || {}) });
  }

  on_seat_taken(ev) {
    this.seats[ev.seat] = { ...this.seats[ev.seat], occupant: "human", name: ev.name, presence: "online", cpu_level: undefined };
  }

  on_seat_left(ev) {
    this.seats[ev.seat] = { seat: ev.seat, label: this.seats[ev.seat].label, occupant: "empty" };
    if (this.yourSeats.includes(ev.seat)) {
      this.yourSeats = this.yourSeats.filter((s) => s !== ev.seat);
      delete this.tokens.seats[ev.seat];
      this.saveTokens();
    }
    if (this.hostSeat === ev.seat) this.hostSeat = null;
  }

  on_player_moved(ev) {
    const { from, to } = ev;
    const person = this.seats[from];
    this.seats[to] = { ...person, seat: to, label: this.seats[to].label };
    this.seats[from] = { seat: from, label: person.label, occupant: "empty" };
    if (this.hostSeat === from) this.hostSeat = to;
    if (this.yourSeats.includes(from)) {
      this.yourSeats = this.yourSeats.map((s) => (s === from ? to : s));
    }
    if (this.tokens.seats[from]) this.remapTokens((s) => (s === from ? to : s));
  }

  on_cpu_seat(ev) {
    const label = this.seats[ev.seat].label;
    this.seats[ev.seat] = ev.level
      ? { seat: ev.seat, label, occupant: "cpu", cpu_level: ev.level }
      : { seat: ev.seat, label, occupant: "empty" };
  }

  on_settings_changed(ev) {
    this.settings = ev.settings;
  }

  on_host_changed(ev) {
    this.hostSeat = ev.seat;
    if (this.yourSeats.includes(ev.seat)) this.youAreHost = true;
  }

  on_host_token(ev) {
    this.setHostToken(ev.host_token);
    this.youAreHost = true;
  }

  on_started(ev) {
    this.status = "playing";
    this.plySeats = [];
    this.eliminations = [];
    this.legal = null;
    this.setGame(ev.game, false);
    this.savePlySeats();
  }

  on_moved(ev) {
    const g = this.game;
    if (!g) return null;
    const before = g.armies.slice();
    const captured = [];
    const mover = (g.pieces[(parseMove(ev.move) || {}).from] || " ")[0];
    for (const [square, piece] of Object.entries(ev.changed)) {
      const old = g.pieces[square];
      if (old && (!piece || piece[0] !== old[0]) && old[0] !== mover) captured.push(old);
      if (piece) g.pieces[square] = piece;
      else delete g.pieces[square];
    }
    const mv = parseMove(ev.move);
    if (mv) {
      let promoted = (g.promoted || []).filter((sq) => sq !== mv.to);
      if (promoted.includes(mv.from)) promoted = promoted.map((sq) => (sq === mv.from ? mv.to : sq));
      // Only free-for-all marks a promoted piece (it scores 1); elsewhere it is what it became,
      // as the server's snapshots have it.
      if (mv.promotion && this.settings && this.settings.preset.startsWith("ffa")) promoted.push(mv.to);
      g.promoted = promoted;
      g.last_move = [mv.from, mv.to];
    }
    g.ply = ev.ply;
    g.moves = g.moves.slice(0, ev.ply - 1).concat([ev.text]);
    this.plySeats = this.plySeats.slice(0, ev.ply - 1).concat([ev.seat]);
    this.plyAuto = this.plyAuto.slice(0, ev.ply - 1);
    this.plyAuto[ev.ply - 1] = !!ev.automatic;
    g.to_move = ev.to_move;
    g.checks = ev.checks;
    g.points = ev.points;
    g.armies = ev.armies;
    g.clock = ev.clock || {};
    this.clockAt = Date.now();
    delete g.draw_offer;
    delete g.resignation_request;
    for (let s = 0; s < 4; s++) {
      if (before[s] !== "out" && ev.armies[s] === "out" && before[s] !== "king_walking") {
        this.eliminations.push({ ply: ev.ply, seat: s, token: ev.checks.includes(s) || !kingOnBoard(g, s) ? "#" : "S" });
      }
    }
    if (ev.result) {
      g.result = ev.result;
      g.to_move = null;
      this.status = "finished";
    }
    this.legal = null;
    this.savePlySeats();
    return { captured };
  }

  on_game_changed(ev) {
    const before = this.game;
    if (ev.what === "resigned" && before && this.settings && this.settings.preset.startsWith("ffa")) {
      const onTurn = before.to_move === ev.seat;
      this.eliminations.push({ ply: before.ply, seat: ev.seat, token: "R", onTurn });
    }
    this.setGame(ev.game, false);
    if (ev.game.result) this.status = "finished";
    if (ev.what === "taken_back") this.legal = null;
    this.savePlySeats();
  }

  on_presence(ev) {
    if (this.seats[ev.seat]) this.seats[ev.seat] = { ...this.seats[ev.seat], presence: ev.presence };
    if (this.game && ev.clock) {
      this.game.clock = ev.clock;
      this.clockAt = Date.now();
    }
  }

  on_chat(ev) {
    const { kind, ...line } = ev;
    this.chat.push(line);
    if (this.chat.length > 200) this.chat.splice(0, this.chat.length - 200);
  }

  on_rematch(ev) {
    if (ev.seat_moves) {
      const moves = ev.seat_moves;
      this.remapTokens((s) => moves[s]);
      this.yourSeats = this.yourSeats.map((s) => moves[s]);
      if (this.hostSeat !== null && this.hostSeat !== undefined) this.hostSeat = moves[this.hostSeat];
    }
    this.seats = ev.seats;
    this.status = "playing";
    this.plySeats = [];
    this.eliminations = [];
    this.legal = null;
    this.setGame(ev.game, false);
    this.savePlySeats();
  }

  on_session(ev) {
    const { kind, ...session } = ev;
    this.session = session;
  }
}

function kingOnBoard(game, seat) {
  const letter = "rbyg"[seat];
  return Object.values(game.pieces).includes(letter + "K");
}
