// Every position of the game held, for review and for the words on what happened: the start and
// each move's diff, from the server's history (`GET /api/rooms/<id>/game/history`) and the
// `moved` events since. Applying diffs is all it does: the client still holds no chess rules.
// Nothing here touches the page, so that `node --test` can check it.

import { parseMove, PIECE_NAMES } from "./armies.js";

/** @typedef {import("./protocol.js").GameView} GameView */
/** @typedef {import("./protocol.js").MovedEvent} MovedEvent */
/** @typedef {import("./protocol.js").PlyRecord} PlyRecord */
/** @typedef {import("./protocol.js").GameHistory} HistoryBody */

/**
 * The pieces a move took: whatever stood on its target square (in Duo that may be a piece of the
 * mover's own colour: friendly capture), and any piece of another army the move emptied a square
 * of (en passant). Castling's rook, which moves, is not taken.
 * @param {Record<string, string>} before the pieces by square before the move
 * @param {string} move the move in coordinate form
 * @param {Record<string, string | null>} changed what the move put on each square it changed
 * @returns {string[]} the taken pieces' codes
 */
export function capturedPieces(before, move, changed) {
  const mv = parseMove(move);
  if (!mv) return [];
  const piece = before[mv.from];
  const mover = piece ? piece[0] : "";
  // A king castling onto its own rook (as some castling notations write it) takes nothing.
  const castlingOntoRook = piece && piece[1] === "K" && before[mv.to] === `${mover}R` && Object.keys(changed).length === 4;
  /** @type {string[]} */
  const taken = [];
  if (before[mv.to] && !castlingOntoRook) taken.push(before[mv.to]);
  for (const [square, after] of Object.entries(changed)) {
    if (square === mv.from || square === mv.to) continue;
    const old = before[square];
    if (old && !after && old[0] !== mover) taken.push(old);
  }
  return taken;
}

/**
 * One army's (one seat's) last move at some point of the game: its squares and the ply it was
 * (0 for the first move).
 * @typedef {{seat: number, from: string, to: string, ply: number}} SeatMove
 */

export class GameHistory {
  constructor() {
    /** @type {string | null} the game these plies belong to */
    this.id = null;
    /** @type {Record<string, string> | null} the pieces before the first move, once known */
    this.start = null;
    /** @type {(PlyRecord | undefined)[]} by ply, oldest first; a gap is a move not known yet */
    this.plies = [];
  }

  /**
   * Takes in a game view (a snapshot, a game that began or changed): what is held of another
   * game is dropped, and of this one what the view no longer lists (a move taken back).
   * @param {GameView} game
   */
  follow(game) {
    if (game.id !== this.id) {
      this.id = game.id;
      this.start = null;
      this.plies = [];
    }
    if (game.ply === 0) this.start = { ...game.pieces };
    const coordinates = game.move_coordinates || [];
    let keep = Math.min(this.plies.length, game.ply);
    for (let i = 0; i < keep; i++) {
      const ply = this.plies[i];
      if (ply && ply.move !== coordinates[i]) keep = i;
    }
    this.plies.length = keep;
  }

  /**
   * A move was played: its event is the ply's record.
   * @param {MovedEvent} ev
   */
  record(ev) {
    this.plies.length = Math.min(this.plies.length, ev.ply - 1);
    /** @type {PlyRecord} */
    const record = { seat: ev.seat, text: ev.text, move: ev.move, changed: ev.changed, checks: ev.checks, checking: ev.checking || [] };
    if (ev.automatic) record.automatic = true;
    this.plies[ev.ply - 1] = record;
  }

  /**
   * Fills what is missing from the server's history of `game` (fetched while events went on):
   * only moves that the game view lists at the same ply are taken.
   * @param {HistoryBody} body
   * @param {GameView} game
   */
  merge(body, game) {
    if (body.id !== game.id || this.id !== game.id) return;
    this.start = body.start;
    const coordinates = game.move_coordinates || [];
    for (let i = 0; i < game.ply; i++) {
      const fetched = body.plies[i];
      if (!this.plies[i] && fetched && fetched.move === coordinates[i]) this.plies[i] = fetched;
    }
  }

  /**
   * Whether every position of `game` can be shown.
   * @param {GameView} game
   */
  complete(game) {
    if (this.id !== game.id || !this.start) return false;
    for (let i = 0; i < game.ply; i++) if (!this.plies[i]) return false;
    return true;
  }

  /**
   * The pieces after the first `n` moves, or null while a move before them is not known.
   * @param {number} n
   * @returns {Record<string, string> | null}
   */
  position(n) {
    if (!this.start) return null;
    /** @type {Record<string, string>} */
    const pieces = { ...this.start };
    for (let i = 0; i < n; i++) {
      const ply = this.plies[i];
      if (!ply) return null;
      applyDiff(pieces, ply.changed);
    }
    return pieces;
  }

  /**
   * The record of move `i` (0 for the first), if known.
   * @param {number} i
   * @returns {PlyRecord | undefined}
   */
  ply(i) {
    return this.plies[i];
  }

  /**
   * Whether nobody at the seat chose move `i` (from 0): the CPU played it for a person, or a
   * walking king moved. False while the move is not known.
   * @param {number} i
   * @returns {boolean}
   */
  automatic(i) {
    const ply = this.plies[i];
    return !!ply && !!ply.automatic;
  }
}

/**
 * Applies a move's diff to a position, in place.
 * @param {Record<string, string>} pieces
 * @param {Record<string, string | null>} changed
 */
export function applyDiff(pieces, changed) {
  for (const [square, piece] of Object.entries(changed)) {
    if (piece) pieces[square] = piece;
    else delete pieces[square];
  }
}

/**
 * Each seat's last move among the first `n` moves, oldest first: what the board marks in each
 * army's colour, until that army moves again.
 * @param {number[]} seats the seat of each move (`move_seats`)
 * @param {string[]} coordinates each move in coordinate form (`move_coordinates`)
 * @param {number} n
 * @returns {SeatMove[]}
 */
export function lastMoves(seats, coordinates, n) {
  /** @type {Map<number, SeatMove>} */
  const last = new Map();
  for (let i = 0; i < Math.min(n, seats.length, coordinates.length); i++) {
    const mv = parseMove(coordinates[i]);
    if (mv) last.set(seats[i], { seat: seats[i], from: mv.from, to: mv.to, ply: i });
  }
  return [...last.values()].sort((a, b) => a.ply - b.ply);
}

/**
 * The moves since a player's own last move, by the others: the plies after the last one that
 * `mine` played, up to `n`, and at most the last three (one round of the others; all a
 * spectator, a player yet to move or one out of the game sees). When the player's last move was
 * not theirs but the CPU's (their turn ran out, or they were away), it leads the list.
 * @param {number[]} seats the seat of each move
 * @param {number[]} mine the player's seats
 * @param {number} n
 * @param {(i: number) => boolean} [automatic] whether nobody at the seat chose move `i`
 * @returns {number[]} ply indexes, oldest first
 */
export function sinceMove(seats, mine, n, automatic = () => false) {
  let from = Math.max(0, n - 3);
  for (let i = n - 1; i >= from; i--) {
    if (mine.includes(seats[i])) {
      from = i + 1;
      break;
    }
  }
  if (from > 0 && mine.includes(seats[from - 1]) && automatic(from - 1)) from -= 1;
  const plies = [];
  for (let i = from; i < n; i++) plies.push(i);
  return plies;
}

/**
 * How the board names armies and seats in words.
 * @typedef {object} Naming
 * @property {(seat: number) => string} seat a seat's label (`Blue`, `W1`)
 * @property {(letter: string) => string} army the army of a piece's letter (`Red`, `Black`)
 * @property {(seats: number[]) => string} checked seats in check (`Green`, `White`)
 */

/**
 * A move in words, from the position before it and its record: "Blue's knight takes Red's
 * bishop on f1", "Yellow: pawn to e12, check to Green", "Red castles".
 * @param {Record<string, string>} before the pieces before the move
 * @param {PlyRecord} ply
 * @param {number[]} checkedBefore the seats in check before the move (their check is not news)
 * @param {Naming} naming
 * @returns {string}
 */
export function moveWords(before, ply, checkedBefore, naming) {
  const mv = parseMove(ply.move);
  const who = naming.seat(ply.seat);
  if (!mv) return `${who}: ${ply.text}`;
  const piece = before[mv.from];
  const role = piece ? PIECE_NAMES[piece[1]] || "piece" : "piece";
  const taken = capturedPieces(before, ply.move, ply.changed);
  const castles = !taken.length && Object.keys(ply.changed).length === 4;
  let text;
  if (castles) text = `${who} castles`;
  else if (taken.length) {
    const victims = taken.map((code) => `${naming.army(code[0])}'s ${PIECE_NAMES[code[1]] || "piece"}`).join(" and ");
    text = `${who}'s ${role} takes ${victims} on ${mv.to}`;
  } else text = `${who}: ${role} to ${mv.to}`;
  const became = ply.changed[mv.to];
  if (mv.promotion && became) text += `, becomes a ${PIECE_NAMES[became[1]] || "piece"}`;
  const checked = ply.checks.filter((seat) => !checkedBefore.includes(seat));
  if (checked.length) text += `, check to ${naming.checked(checked)}`;
  return text;
}
