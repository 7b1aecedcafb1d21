// Looking back at an earlier position while the game goes on (or after it): which position the
// board shows, moved by a click on the move list or by its keys (left and right a move, Home the
// start, End the live position; up and down still scroll the list). The game itself is never
// touched: moves played meanwhile are applied as usual, and the live position is one key away.

export class Review {
  /** @param {() => void} onChange called when the position shown changes */
  constructor(onChange) {
    /** @type {number | null} the plies played in the position shown; null for the live one */
    this.ply = null;
    this.onChange = onChange;
  }

  /** Whether an earlier position is shown. */
  get active() {
    return this.ply !== null;
  }

  /**
   * The plies played in the position shown, in a game of `total` plies so far.
   * @param {number} total
   * @returns {number}
   */
  shown(total) {
    return this.ply === null ? total : Math.min(this.ply, total);
  }

  /**
   * Shows the position after `ply` plies; the last one is the live position.
   * @param {number} ply
   * @param {number} total the plies played so far
   */
  show(ply, total) {
    const next = ply >= total ? null : Math.max(0, ply);
    if (next === this.ply) return;
    this.ply = next;
    this.onChange();
  }

  /** Back to the live position. */
  live() {
    if (this.ply === null) return;
    this.ply = null;
    this.onChange();
  }

  /**
   * What the move list's keys do; true if the key was one of them.
   * @param {KeyboardEvent} e
   * @param {number} total the plies played so far
   * @returns {boolean}
   */
  key(e, total) {
    const shown = this.shown(total);
    switch (e.key) {
      case "ArrowLeft":
        this.show(shown - 1, total);
        return true;
      case "ArrowRight":
        this.show(shown + 1, total);
        return true;
      case "Home":
        this.show(0, total);
        return true;
      case "End":
        this.live();
        return true;
      default:
        return false;
    }
  }
}
