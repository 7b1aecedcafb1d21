// The board as SVG: the cross board (14 × 14 less the corners) or Duo's 8 × 8, turned so that a
// chosen side sits at the bottom; pieces, coordinates, each army's last move, checks and who gives them, the selected piece
// and where it may go. Moves are made by click-click, drag and drop (pointer events: mouse, pen
// and touch alike) or the keyboard (arrow keys in screen direction, Enter/Space, Escape). The
// board knows no rules: what may move where comes from the server's legal moves.

import { s, h } from "./dom.js";
import { CROSS, geometry, squareName, parseMove, pieceArmy, pieceWords, pieceSeats, OUT_COLOR, PIECE_NAMES } from "./armies.js";
import { pieceGroup } from "./pieces.js";

/** @typedef {import("./armies.js").Geometry} Geometry */
/** @typedef {import("./protocol.js").GameView} GameView */

/**
 * What the board draws: the game (or an earlier position of it), the legal moves usable now (or
 * null), whether it is Duo, whether to mark where a selected piece may go, and each army's last
 * move, oldest first, in its colour.
 * @typedef {{game: GameView, legal: {seat: number, moves: string[]} | null, duo: boolean, showLegal: boolean, marks?: MoveMark[], premove?: Premove | null}} BoardView
 */

/**
 * An army's last move as the board marks it: its squares, the army's colour and name.
 * @typedef {{from: string, to: string, color: string, name: string}} MoveMark
 */

/**
 * One square's nodes and place: its group, the piece layer, file and rank, screen cell, and the
 * piece drawn there (its code, with `-out` for a grey one).
 * @typedef {{g: SVGGElement, piece: SVGGElement, f: number, r: number, x: number, y: number, code: string | null, dark: boolean}} SquareNode
 */

/** @typedef {{from: string, to: string, promotion: string | null, text: string}} LegalMove */
/**
 * Queuing moves while others move: the seat, its queue, and whether the view already shows the
 * pieces where the queue puts them.
 * @typedef {{seat: number, queued: string[], shown?: boolean}} Premove
 */

/** @typedef {{name: string, x: number, y: number, id: number, dragging: boolean, wasSelected: boolean}} Press */

const CELL = 100;
const DRAG_THRESHOLD_PX = 5;

/**
 * The square element an event happened on, if any.
 * @param {Event} e
 * @returns {SVGElement | null}
 */
function squareOf(e) {
  const target = e.target;
  const sq = target instanceof Element ? target.closest("[data-square]") : null;
  return sq instanceof SVGElement ? sq : null;
}

export class Board {
  /**
   * @param {{onMove: (text: string) => void, onNotice?: (text: string) => void, onPremove?: (text: string) => void, onCancelPremoves?: () => void}} options
   *   `onMove(text)`: play a move (coordinate form) for the seat to move;
   *   `onNotice(text)`: say something to the player (an illegal drop, say);
   *   `onPremove(text)`: queue a move for the player's next turn;
   *   `onCancelPremoves()`: empty the queue (right click, Escape, a click on an empty square).
   */
  constructor({ onMove, onNotice, onPremove, onCancelPremoves }) {
    this.onMove = onMove;
    this.onPremove = onPremove || (() => {});
    this.onCancelPremoves = onCancelPremoves || (() => {});
    /** @type {Premove | null} queuing moves for this seat while others move */
    this.premove = null;
    this.onNotice = onNotice || (() => {});
    this.el = h("div", { class: "board-wrap" });
    /** @type {Geometry} the board built (drawn only once `svg` is there) */
    this.geo = CROSS;
    /** @type {SVGSVGElement | null} */
    this.svg = null;
    /** @type {SVGGElement} */
    this.ghostLayer = s("g");
    /** @type {SVGGElement | null} the piece being dragged */
    this.ghost = null;
    this.rotation = 0;
    /** @type {Map<string, SquareNode>} */
    this.squares = new Map();
    /** @type {string | null} */
    this.selected = null;
    /** @type {string | null} */
    this.focusName = null;
    /** @type {Map<string, LegalMove[]>} */
    this.movesFrom = new Map();
    this.showTargets = true;
    /** @type {BoardView | null} what was drawn last */
    this.drawn = null;
    /** @type {number | null} the ply drawn last (the game object is updated in place) */
    this.drawnPly = null;
    /** @type {string | null} the square a piece was just dropped on (it needs no slide) */
    this.dropped = null;
    /** @type {Press | null} a pointer pressed on the board */
    this.press = null;
    /** @type {HTMLElement | null} */
    this.chooser = null;
  }

  // ----- geometry and orientation -----

  /**
   * (file, rank) → screen cell, for the current rotation (quarter turns, counter-clockwise).
   * @param {number} f
   * @param {number} r
   * @returns {{x: number, y: number}}
   */
  toScreen(f, r) {
    const n = this.geo.size;
    let x = f;
    let y = n - 1 - r;
    for (let i = 0; i < this.rotation; i++) [x, y] = [y, n - 1 - x];
    return { x, y };
  }

  /**
   * @param {number} x
   * @param {number} y
   * @returns {{f: number, r: number}}
   */
  fromScreen(x, y) {
    const n = this.geo.size;
    for (let i = 0; i < this.rotation; i++) [x, y] = [n - 1 - y, x];
    return { f: x, r: n - 1 - y };
  }

  /**
   * The side of the screen where a seat's army starts: bottom, left, top, right.
   * @param {number} seat
   * @returns {"bottom" | "left" | "top" | "right"}
   */
  sideOfSeat(seat) {
    /** @type {["bottom", "left", "top", "right"]} */
    const sides = ["bottom", "left", "top", "right"];
    if (this.geo.kind === "classic") {
      const white = seat % 2 === 0;
      return (white ? 0 : 2) === this.rotation ? "bottom" : "top";
    }
    return sides[(seat - this.rotation + 4) % 4];
  }

  /** @param {number} rotation quarter turns */
  setRotation(rotation) {
    rotation = ((rotation % 4) + 4) % 4;
    if (rotation === this.rotation && this.svg) return;
    this.rotation = rotation;
    if (this.svg) this.build(this.geo);
  }

  // ----- building -----

  /** @param {Geometry} geo */
  build(geo) {
    this.geo = geo;
    const n = geo.size;
    const svg = s("svg", {
      class: `board board-${geo.kind}`,
      viewBox: `0 0 ${n * CELL} ${n * CELL}`,
      role: "group",
      "aria-label": "Board. Arrow keys move between squares, Enter or Space selects and moves, Escape cancels.",
    });
    const squaresLayer = s("g", { class: "squares" });
    this.ghostLayer = s("g", { class: "ghost-layer", "pointer-events": "none" });
    this.squares.clear();
    /** @typedef {{x: number, y: number, f: number, r: number, dark: boolean}} Edge */
    /** @type {Map<number, Edge>} */
    const columnBottom = new Map();
    /** @type {Map<number, Edge>} */
    const rowLeft = new Map();
    for (let f = 0; f < n; f++) {
      for (let r = 0; r < n; r++) {
        if (!geo.exists(f, r)) continue;
        const name = squareName(geo, f, r);
        const { x, y } = this.toScreen(f, r);
        const dark = (f + r) % 2 === 0;
        const g = s("g", {
          class: "sq",
          transform: `translate(${x * CELL} ${y * CELL})`,
          tabindex: "-1",
          role: "button",
          dataset: { square: name },
        });
        const bg = s("rect", { class: dark ? "bg dark" : "bg light", width: CELL, height: CELL });
        const hl = s("rect", { class: "hl", width: CELL, height: CELL });
        // An army's last move: a band in its colour, edged in black so that light colours
        // (Yellow, Duo's White) show on the light squares too.
        const markEdge = s("rect", { class: "mark-edge", x: 2, y: 2, width: CELL - 4, height: CELL - 4 });
        const mark = s("rect", { class: "mark", x: 6, y: 6, width: CELL - 12, height: CELL - 12 });
        const piece = s("g", { class: "pc", transform: "translate(5 5) scale(0.9)" });
        const target = s("circle", { class: "dot", cx: CELL / 2, cy: CELL / 2, r: 15 });
        const ring = s("circle", { class: "ring", cx: CELL / 2, cy: CELL / 2, r: 44 });
        const focus = s("rect", { class: "focus-ring", x: 4, y: 4, width: CELL - 8, height: CELL - 8, rx: 6 });
        g.append(bg, hl, markEdge, mark, target, piece, ring, focus);
        squaresLayer.append(g);
        this.squares.set(name, { g, piece, f, r, x, y, code: null, dark });
        const bottom = columnBottom.get(x);
        if (!bottom || bottom.y < y) columnBottom.set(x, { x, y, f, r, dark });
        const left = rowLeft.get(y);
        if (!left || left.x > x) rowLeft.set(y, { x, y, f, r, dark });
      }
    }
    // The coordinates are a layer of their own, hidden from screen readers: each square's name
    // already says them, and a square's name must contain whatever text it shows.
    const coords = s("g", { class: "coords", "aria-hidden": "true" });
    const even = this.rotation % 2 === 0;
    for (const { x, y, f, r, dark } of columnBottom.values()) {
      const label = even ? geo.files[f] : String(r + 1);
      coords.append(s("text", { class: `coord ${dark ? "on-dark" : "on-light"}`, x: (x + 1) * CELL - 8, y: (y + 1) * CELL - 8, "text-anchor": "end", text: label }));
    }
    for (const { x, y, f, r, dark } of rowLeft.values()) {
      const label = even ? String(r + 1) : geo.files[f];
      coords.append(s("text", { class: `coord ${dark ? "on-dark" : "on-light"}`, x: x * CELL + 8, y: y * CELL + 26, text: label }));
    }
    svg.append(squaresLayer, coords, this.ghostLayer);
    svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    svg.addEventListener("pointercancel", () => this.cancelDrag());
    // A right click cancels the premoves (and opens no menu while there are some).
    svg.addEventListener("contextmenu", (e) => {
      if (!this.premove || !this.premove.queued.length) return;
      e.preventDefault();
      this.select(null);
      this.onCancelPremoves();
    });
    svg.addEventListener("keydown", (e) => this.keyDown(e));
    svg.addEventListener("focusin", (e) => {
      const sq = squareOf(e);
      if (sq && sq.dataset.square) this.setFocus(sq.dataset.square, false);
    });
    if (this.svg) this.svg.replaceWith(svg);
    else this.el.prepend(svg);
    this.svg = svg;
    this.el.classList.toggle("classic", geo.kind === "classic");
    this.el.classList.toggle("cross", geo.kind === "cross");
    const keepFocus = this.focusName && this.squares.has(this.focusName) ? this.focusName : null;
    this.focusName = null;
    this.setFocus(keepFocus || this.defaultFocus(), false);
    if (this.drawn) this.draw(this.drawn, true);
  }

  /** @returns {string | null} */
  defaultFocus() {
    const n = this.geo.size;
    const { f, r } = this.fromScreen(Math.floor((n - 1) / 2), n - 2);
    const name = squareName(this.geo, f, r);
    return this.squares.has(name) ? name : this.squares.keys().next().value || null;
  }

  // ----- drawing -----

  /**
   * Draws a game.
   * @param {BoardView} view
   * @param {boolean} [force] redraw every piece
   */
  draw(view, force = false) {
    if (view.premove && !view.premove.shown) view = premoveView(view, view.premove);
    const game = view.game;
    this.premove = view.premove || null;
    const geo = geometry(game.board);
    if (!this.svg || this.geo.kind !== geo.kind) this.build(geo);
    const previous = this.drawn;
    this.drawn = view;
    this.showTargets = view.showLegal !== false;
    this.movesFrom = new Map();
    if (this.premove) {
      // Any piece of the seat may be queued to any square: the server decides when it plays.
      const seats = [this.premove.seat];
      for (const [sq, code] of Object.entries(game.pieces)) if (pieceSeats(code, view.duo).some((s) => seats.includes(s))) this.movesFrom.set(sq, []);
    } else if (view.legal) {
      for (const text of view.legal.moves) {
        const mv = parseMove(text);
        if (!mv) continue;
        const from = this.movesFrom.get(mv.from);
        if (from) from.push({ ...mv, text });
        else this.movesFrom.set(mv.from, [{ ...mv, text }]);
      }
    }
    if (this.selected && (!this.movesFrom.has(this.selected) || this.drawnPly !== game.ply)) {
      this.selected = null;
      this.closeChooser();
    }
    const checkKings = new Set();
    for (const [sq, code] of Object.entries(game.pieces)) {
      if (code[1] === "K" && pieceSeats(code, view.duo).some((seat) => game.checks.includes(seat))) checkKings.add(sq);
    }
    /** @type {string[]} */
    const last = game.last_move || [];
    const checking = new Set(game.checking || []);
    /** @type {Map<string, boolean>} squares of queued moves: `true` for where one lands */
    const queued = new Map();
    for (const text of (view.premove && view.premove.queued) || []) {
      const mv = parseMove(text);
      if (!mv) continue;
      if (!queued.has(mv.from)) queued.set(mv.from, false);
      queued.set(mv.to, true);
    }
    /** @type {Map<string, {mark: MoveMark, to: boolean}>} the newest mark of each square */
    const marked = new Map();
    for (const mark of view.marks || []) {
      marked.set(mark.from, { mark, to: false });
      marked.set(mark.to, { mark, to: true });
    }
    const targets = this.targetsOf(this.selected);
    // (The game object is updated in place, so the ply drawn last is kept apart.)
    const slide = !force && previous && this.drawnPly !== null && this.drawnPly + 1 === game.ply && last.length === 2 && this.dropped !== last[1] ? last : null;
    this.dropped = null;
    this.drawnPly = game.ply;
    for (const [name, sq] of this.squares) {
      const code = game.pieces[name] || null;
      const out = code ? this.isOut(code, game, view.duo) : false;
      const key = code ? code + (out ? "-out" : "") : null;
      if (force || key !== sq.code) {
        sq.code = key;
        sq.piece.replaceChildren();
        if (code) {
          const drawn = pieceGroup(code[1], this.look(code, out, view.duo));
          sq.piece.append(drawn);
          if (slide && slide[1] === name) this.slideIn(drawn, slide[0], name);
        }
      }
      const cls = sq.g.classList;
      cls.toggle("last", last.includes(name));
      const mark = marked.get(name);
      cls.toggle("marked", !!mark);
      cls.toggle("marked-to", !!mark && mark.to);
      if (mark) sq.g.style.setProperty("--mark", mark.mark.color);
      cls.toggle("check", checkKings.has(name));
      cls.toggle("checking", checking.has(name));
      cls.toggle("selected", this.selected === name);
      cls.toggle("premoved", queued.has(name));
      cls.toggle("premoved-to", queued.get(name) === true);
      cls.toggle("movable", this.movesFrom.has(name));
      cls.toggle("target", this.showTargets && targets.has(name));
      cls.toggle("capture", this.showTargets && targets.has(name) && !!code);
      sq.g.setAttribute("aria-label", this.describe(name, code, out, view, { mark, checking, checkKings, targets, premoved: queued.get(name) }));
    }
  }

  /**
   * Slides a piece that just moved from where it came from (unless motion is unwelcome).
   * @param {SVGGElement} el
   * @param {string} from
   * @param {string} to
   */
  slideIn(el, from, to) {
    if (!el.animate || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const a = this.squares.get(from);
    const b = this.squares.get(to);
    if (!a || !b) return;
    // The piece layer is scaled by 0.9: move by whole squares in its own units.
    const dx = ((a.x - b.x) * CELL) / 0.9;
    const dy = ((a.y - b.y) * CELL) / 0.9;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }], { duration: 200, easing: "cubic-bezier(.2,.7,.3,1)" });
  }

  /**
   * Whether a piece's army is out of the game (its pieces are grey).
   * @param {string} code
   * @param {GameView} game
   * @param {boolean} duo
   */
  isOut(code, game, duo) {
    if (duo) return false;
    const seat = pieceSeats(code, duo)[0];
    return game.armies[seat] === "out";
  }

  /**
   * @param {string} code
   * @param {boolean} out
   * @param {boolean} duo
   * @returns {{color: string, mark: string | null, dark: boolean}}
   */
  look(code, out, duo) {
    const army = pieceArmy(code, duo);
    if (!army) return { color: OUT_COLOR, mark: null, dark: false };
    return { color: out ? OUT_COLOR : army.color, mark: army.mark, dark: duo && code[0] === "b" };
  }

  /**
   * A square in words, for screen readers.
   * @param {string} name
   * @param {string | null} code
   * @param {boolean} out
   * @param {BoardView} view
   * @param {{mark: {mark: MoveMark, to: boolean} | undefined, checking: Set<string>, checkKings: Set<string>, targets: Set<string>, premoved?: boolean}} marks
   * @returns {string}
   */
  describe(name, code, out, view, { mark, checking, checkKings, targets, premoved }) {
    let text = `${name}, ${code ? pieceWords(code, view.duo) + (out ? " (out)" : "") : "empty"}`;
    if (checkKings.has(name)) text += ", in check";
    if (checking.has(name)) text += ", giving check";
    if (this.selected === name) text += ", selected";
    if (targets.has(name)) text += ", can move here";
    if (mark) text += `, ${mark.mark.name}'s last move ${mark.to ? "to" : "from"} here`;
    if (premoved !== undefined) text += premoved ? ", your premove to here" : ", your premove from here";
    return text;
  }

  /**
   * Where the piece on `from` may go.
   * @param {string | null} from
   * @returns {Set<string>}
   */
  targetsOf(from) {
    const set = new Set();
    if (this.premove && from && this.movesFrom.has(from)) {
      // A premove may go to any square but one of the seat's own pieces.
      for (const name of this.squares.keys()) if (name !== from && !this.movesFrom.has(name)) set.add(name);
      return set;
    }
    for (const mv of (from && this.movesFrom.get(from)) || []) set.add(mv.to);
    return set;
  }

  redraw() {
    if (this.drawn) this.draw(this.drawn);
  }

  // ----- selecting and moving -----

  /** @param {string | null} name */
  select(name) {
    this.selected = name;
    this.redraw();
  }

  /**
   * What a click, tap or Enter on a square does. Returns true if it handled it.
   * @param {string} name
   * @returns {boolean}
   */
  activate(name, spoken = false) {
    this.closeChooser();
    if (this.selected && this.selected !== name && this.targetsOf(this.selected).has(name)) {
      this.tryMove(this.selected, name);
      return true;
    }
    if (this.movesFrom.has(name)) {
      this.select(this.selected === name ? null : name);
      return true;
    }
    if (this.premove && !this.selected && this.premove.queued.length) {
      // A click on an empty square (or another's piece) with nothing selected cancels them.
      this.onCancelPremoves();
      return true;
    }
    if (this.selected) {
      // The keyboard's user cannot see the targets: they are told why (so is everyone when
      // targets are not shown).
      if (spoken || !this.showTargets) this.onNotice(this.whyNot(this.selected, name));
      this.select(null);
      return true;
    }
    return false;
  }

  /**
   * Why the selected piece on `from` cannot go to `to`, as far as the board can tell without
   * rules: a piece of the player's own is there, their king is in check, and where it may go.
   * @param {string} from
   * @param {string} to
   * @returns {string}
   */
  whyNot(from, to) {
    const view = this.drawn;
    const code = view ? view.game.pieces[from] : undefined;
    const there = view ? view.game.pieces[to] : undefined;
    const what = `${to} is not a legal move for the ${code && view ? pieceWords(code, view.duo) : "piece"} on ${from}.`;
    const reasons = [];
    if (code && there && there[0] === code[0]) reasons.push(`Your own ${PIECE_NAMES[there[1]] || "piece"} stands there.`);
    if (view && view.legal && view.game.checks.includes(view.legal.seat)) reasons.push("Your king is in check.");
    const targets = [...this.targetsOf(from)];
    reasons.push(targets.length ? `It can go to ${targets.join(", ")}.` : "It cannot move now.");
    return [what, ...reasons].join(" ");
  }

  /**
   * @param {string} from
   * @param {string} to
   */
  tryMove(from, to) {
    if (this.premove) {
      this.selected = null;
      this.redraw();
      this.onPremove(from + to);
      return;
    }
    const options = (this.movesFrom.get(from) || []).filter((mv) => mv.to === to);
    if (options.length === 0) {
      this.onNotice(`${from} to ${to} is not a legal move.`);
      this.select(null);
      return;
    }
    if (options.length === 1) {
      this.finishMove(options[0].text);
      return;
    }
    this.openChooser(from, to, options);
  }

  /** @param {string} text */
  finishMove(text) {
    this.selected = null;
    this.closeChooser();
    this.redraw();
    this.onMove(text);
  }

  /**
   * Asks which piece a pawn promotes to.
   * @param {string} from
   * @param {string} to
   * @param {LegalMove[]} options
   */
  openChooser(from, to, options) {
    this.closeChooser();
    const drawn = this.drawn;
    const sq = this.squares.get(to);
    if (!drawn || !sq) return;
    const look = this.look(drawn.game.pieces[from], false, drawn.duo);
    const order = "qrbn";
    options = options.slice().sort((a, b) => order.indexOf(a.promotion || "q") - order.indexOf(b.promotion || "q"));
    const box = h("div", { class: "chooser", role: "dialog", "aria-label": "Promote to" });
    box.append(h("div", { class: "chooser-title", text: "Promote to" }));
    const row = h("div", { class: "chooser-row" });
    for (const mv of options) {
      const letter = (mv.promotion || "q").toUpperCase();
      const icon = s("svg", { viewBox: "0 0 100 100", class: "chooser-icon", "aria-hidden": "true" }, pieceGroup(letter, look));
      row.append(
        h("button", {
          class: "chooser-btn",
          type: "button",
          "aria-label": PIECE_NAMES[letter],
          dataset: { promotion: mv.promotion || "" },
          on: { click: () => this.finishMove(mv.text) },
        }, icon, h("span", { text: PIECE_NAMES[letter] })),
      );
    }
    box.append(row, h("button", { class: "chooser-cancel", type: "button", text: "Cancel", on: { click: () => this.cancelChooser() } }));
    box.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        this.cancelChooser();
      }
    });
    // Place it over the target square, kept inside the board.
    const n = this.geo.size;
    box.style.left = `${Math.min(Math.max((sq.x + 0.5) / n, 0.2), 0.8) * 100}%`;
    box.style.top = `${Math.min(Math.max((sq.y + 0.5) / n, 0.2), 0.8) * 100}%`;
    this.el.append(box);
    this.chooser = box;
    row.querySelector("button")?.focus();
  }

  cancelChooser() {
    this.closeChooser();
    this.select(null);
    this.focusSquare(this.focusName);
  }

  closeChooser() {
    if (this.chooser) {
      this.chooser.remove();
      this.chooser = null;
    }
  }

  // ----- pointer: click-click and drag and drop -----

  /**
   * The square under a point of the screen, if any.
   * @param {number} clientX
   * @param {number} clientY
   * @returns {string | null}
   */
  squareAt(clientX, clientY) {
    if (!this.svg) return null;
    const rect = this.svg.getBoundingClientRect();
    const n = this.geo.size;
    const x = Math.floor(((clientX - rect.left) / rect.width) * n);
    const y = Math.floor(((clientY - rect.top) / rect.height) * n);
    if (x < 0 || y < 0 || x >= n || y >= n) return null;
    const { f, r } = this.fromScreen(x, y);
    if (!this.geo.exists(f, r)) return null;
    return squareName(this.geo, f, r);
  }

  /** @param {PointerEvent} e */
  pointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const name = this.squareAt(e.clientX, e.clientY);
    if (!name) return;
    this.closeChooser();
    this.setFocus(name, false);
    if (this.selected && this.selected !== name && this.targetsOf(this.selected).has(name)) {
      e.preventDefault();
      this.tryMove(this.selected, name);
      return;
    }
    if (this.movesFrom.has(name)) {
      e.preventDefault();
      const wasSelected = this.selected === name;
      if (!wasSelected) this.select(name);
      this.press = { name, x: e.clientX, y: e.clientY, id: e.pointerId, dragging: false, wasSelected };
      try {
        this.svg?.setPointerCapture(e.pointerId);
      } catch {
        // capture is a nicety
      }
      return;
    }
    this.activate(name);
  }

  /** @param {PointerEvent} e */
  pointerMove(e) {
    const p = this.press;
    if (!p || e.pointerId !== p.id) return;
    if (!p.dragging) {
      if (Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_THRESHOLD_PX) return;
      p.dragging = true;
      this.startGhost(p.name);
    }
    e.preventDefault();
    this.moveGhost(e.clientX, e.clientY);
    const over = this.squareAt(e.clientX, e.clientY);
    for (const [name, sq] of this.squares) sq.g.classList.toggle("hover", name === over && this.targetsOf(p.name).has(name));
  }

  /** @param {PointerEvent} e */
  pointerUp(e) {
    const p = this.press;
    if (!p || e.pointerId !== p.id) return;
    this.press = null;
    if (p.dragging) {
      const over = this.squareAt(e.clientX, e.clientY);
      this.endGhost();
      if (over && over !== p.name) {
        this.dropped = over;
        this.tryMove(p.name, over);
      }
      return;
    }
    if (p.wasSelected) this.select(null);
  }

  cancelDrag() {
    if (this.press && this.press.dragging) this.endGhost();
    this.press = null;
  }

  /** @param {string} name the square the piece is lifted from */
  startGhost(name) {
    const sq = this.squares.get(name);
    const drawn = this.drawn;
    const code = drawn && drawn.game.pieces[name];
    if (!sq || !drawn || !code) return;
    sq.g.classList.add("lifted");
    this.ghost = s("g", { class: "ghost" }, s("g", { transform: "translate(-55 -62) scale(1.1)" }, pieceGroup(code[1], this.look(code, false, drawn.duo))));
    this.ghostLayer.append(this.ghost);
  }

  /**
   * @param {number} clientX
   * @param {number} clientY
   */
  moveGhost(clientX, clientY) {
    if (!this.svg || !this.ghost) return;
    const rect = this.svg.getBoundingClientRect();
    const n = this.geo.size;
    const x = ((clientX - rect.left) / rect.width) * n * CELL;
    const y = ((clientY - rect.top) / rect.height) * n * CELL;
    this.ghost.setAttribute("transform", `translate(${x} ${y})`);
  }

  endGhost() {
    if (this.ghost) this.ghost.remove();
    this.ghost = null;
    for (const sq of this.squares.values()) sq.g.classList.remove("lifted", "hover");
  }

  // ----- keyboard -----

  /**
   * Makes `name` the square that takes the focus (the only one in the tab order).
   * @param {string | null} name
   * @param {boolean} [move] move the focus there now
   */
  setFocus(name, move = true) {
    const sq = name ? this.squares.get(name) : undefined;
    if (!name || !sq) return;
    const before = this.focusName ? this.squares.get(this.focusName) : undefined;
    if (before) before.g.setAttribute("tabindex", "-1");
    this.focusName = name;
    sq.g.setAttribute("tabindex", "0");
    if (move) sq.g.focus();
  }

  /**
   * Moves the focus to the board: the square that takes it (the last one, else the middle),
   * leaving the page's scroll as it is.
   */
  focus() {
    const name = this.focusName || this.defaultFocus();
    this.setFocus(name, false);
    const sq = name ? this.squares.get(name) : undefined;
    if (sq) sq.g.focus({ preventScroll: true });
  }

  /** @param {string | null} name */
  focusSquare(name) {
    this.setFocus(name, true);
  }

  /** @param {KeyboardEvent} e */
  keyDown(e) {
    /** @type {Record<string, [number, number]>} */
    const steps = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const step = steps[e.key];
    if (step) {
      e.preventDefault();
      const [dx, dy] = step;
      const here = this.focusName ? this.squares.get(this.focusName) : undefined;
      if (!here) return;
      const n = this.geo.size;
      let { x, y } = here;
      for (;;) {
        x += dx;
        y += dy;
        if (x < 0 || y < 0 || x >= n || y >= n) return;
        const { f, r } = this.fromScreen(x, y);
        if (this.geo.exists(f, r)) {
          this.focusSquare(squareName(this.geo, f, r));
          return;
        }
      }
    }
    if (e.key === "Enter" || e.key === " ") {
      const sq = squareOf(e);
      if (!sq || !sq.dataset.square) return;
      e.preventDefault();
      this.activate(sq.dataset.square, true);
      return;
    }
    if (e.key === "Escape") {
      if (this.selected || this.chooser) {
        e.preventDefault();
        this.closeChooser();
        this.select(null);
      } else if (this.premove && this.premove.queued.length) {
        e.preventDefault();
        this.onCancelPremoves();
      }
    }
  }
}

/**
 * The view while the player queues premoves: the pieces stand where the queued moves put them,
 * as chess.com shows them (the board moves the pieces, it knows no rules), and no legal moves.
 * @param {BoardView} view
 * @param {Premove} premove
 * @returns {BoardView}
 */
export function premoveView(view, premove) {
  const pieces = { ...view.game.pieces };
  for (const text of premove.queued) {
    const mv = parseMove(text);
    if (!mv || !pieces[mv.from]) continue;
    pieces[mv.to] = pieces[mv.from];
    delete pieces[mv.from];
  }
  return { ...view, legal: null, game: { ...view.game, pieces }, premove: { ...premove, shown: true } };
}
