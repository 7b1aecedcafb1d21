// A small decorative cross board for the home page: the four armies at their start, drawn
// with the same pieces as the game (purely decorative, hidden from screen readers).

import { s } from "./dom.js";
import { CROSS, CROSS_ARMIES } from "./armies.js";
import { pieceGroup } from "./pieces.js";

const BACK = "RNBQKBNR";

/** The decorative board, as an SVG hidden from screen readers. */
export function heroBoard() {
  const svg = s("svg", { class: "hero-board", viewBox: "0 0 1400 1400", "aria-hidden": "true", focusable: "false" });
  for (let f = 0; f < 14; f++) {
    for (let r = 0; r < 14; r++) {
      if (!CROSS.exists(f, r)) continue;
      svg.append(s("rect", { x: f * 100, y: (13 - r) * 100, width: 100, height: 100, class: (f + r) % 2 === 0 ? "bg dark" : "bg light" }));
    }
  }
  /**
   * @param {import("./armies.js").ArmyLook} army
   * @param {string} type
   * @param {number} f
   * @param {number} r
   */
  const place = (army, type, f, r) => {
    const g = s("g", { transform: `translate(${f * 100 + 5} ${(13 - r) * 100 + 5}) scale(0.9)` });
    g.append(pieceGroup(type, { color: army.color, mark: army.mark, dark: false }));
    svg.append(g);
  };
  const [red, blue, yellow, green] = CROSS_ARMIES;
  for (let i = 0; i < 8; i++) {
    place(red, BACK[i], 3 + i, 0);
    place(red, "P", 3 + i, 1);
    place(yellow, "RNBKQBNR"[i], 3 + i, 13);
    place(yellow, "P", 3 + i, 12);
    place(blue, "RNBKQBNR"[i], 0, 3 + i);
    place(blue, "P", 1, 3 + i);
    place(green, "RNBQKBNR"[i], 13, 3 + i);
    place(green, "P", 12, 3 + i);
  }
  return svg;
}
