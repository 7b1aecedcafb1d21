// Chess pieces drawn as simple SVG shapes in a 100 × 100 box (no fonts, no files), filled with
// the army's colour and, on the cross board, carrying the army's mark (● ▲ ■ ◆) so that the
// armies can be told apart without colour.

import { s } from "./dom.js";

const BASE = "M24 86 Q24 76 34 76 H66 Q76 76 76 86 Z";

/** @type {Record<string, string[]>} */
const SHAPES = {
  P: [
    "M36 76 Q38 60 44 54 Q36 50 38 42 Q40 35 50 35 Q60 35 62 42 Q64 50 56 54 Q62 60 64 76 Z",
    "circle:50,29,11",
  ],
  R: ["M32 76 L35 46 H65 L68 76 Z", "M29 46 V22 H38 V30 H45.5 V22 H54.5 V30 H62 V22 H71 V46 Z"],
  N: [
    "M32 76 Q30 62 40 52 Q44 48 44 44 Q36 50 28 52 Q20 52 20 44 Q20 38 30 30 Q36 25 40 18 L45 25 Q58 22 66 32 Q76 46 72 76 Z",
    "circle:37,34,3.2",
  ],
  B: [
    "M36 76 Q34 64 42 58 H58 Q66 64 64 76 Z",
    "M50 20 Q32 36 36 50 Q38 58 50 58 Q62 58 64 50 Q68 36 50 20 Z",
    "circle:50,16,5",
    "line:55,32,46,44",
  ],
  Q: [
    "M30 76 L20 38 L33 54 L35 28 L45 50 L50 22 L55 50 L65 28 L67 54 L80 38 L70 76 Z",
    "circle:20,36,5",
    "circle:35,26,5",
    "circle:50,19,5",
    "circle:65,26,5",
    "circle:80,36,5",
  ],
  K: [
    "M30 76 Q22 60 24 50 Q27 40 38 42 Q46 44 50 54 Q54 44 62 42 Q73 40 76 50 Q78 60 70 76 Z",
    "M46 12 H54 V22 H62 V30 H54 V46 H46 V30 H38 V22 H46 Z",
  ],
};

/**
 * Where the mark sits on each piece (its widest flat part).
 * @type {Record<string, [number, number]>}
 */
const MARK_AT = { P: [50, 64], R: [50, 60], N: [56, 62], B: [50, 67], Q: [50, 64], K: [50, 62] };

/**
 * One part of a piece: a path, or `circle:cx,cy,r`, or `line:x1,y1,x2,y2`.
 * @param {string} spec
 * @param {string} fill
 * @param {string} stroke
 * @param {number} width
 * @returns {SVGElement}
 */
function shape(spec, fill, stroke, width) {
  if (spec.startsWith("circle:")) {
    const [cx, cy, r] = spec.slice(7).split(",");
    return s("circle", { cx, cy, r, fill, stroke, "stroke-width": width });
  }
  if (spec.startsWith("line:")) {
    const [x1, y1, x2, y2] = spec.slice(5).split(",");
    return s("line", { x1, y1, x2, y2, stroke, "stroke-width": width, "stroke-linecap": "round" });
  }
  return s("path", { d: spec, fill, stroke, "stroke-width": width, "stroke-linejoin": "round" });
}

/**
 * An army's mark (● ▲ ■ ◆) centred on (cx, cy), or null for none.
 * @param {string | null} mark
 * @param {number} cx
 * @param {number} cy
 * @param {number} r
 * @param {string} fill
 * @param {string} stroke
 * @param {number} [width]
 * @returns {SVGElement | null}
 */
export function markShape(mark, cx, cy, r, fill, stroke, width = 2.5) {
  const common = { fill, stroke, "stroke-width": width, "stroke-linejoin": "round" };
  switch (mark) {
    case "circle":
      return s("circle", { cx, cy, r: r * 0.9, ...common });
    case "triangle":
      return s("path", { d: `M${cx} ${cy - r * 1.05} L${cx + r * 1.05} ${cy + r * 0.8} H${cx - r * 1.05} Z`, ...common });
    case "square":
      return s("rect", { x: cx - r * 0.8, y: cy - r * 0.8, width: r * 1.6, height: r * 1.6, ...common });
    case "diamond":
      return s("path", { d: `M${cx} ${cy - r * 1.1} L${cx + r * 1.1} ${cy} L${cx} ${cy + r * 1.1} L${cx - r * 1.1} ${cy} Z`, ...common });
    default:
      return null;
  }
}

/**
 * One piece as an SVG group in a 100 × 100 box.
 * @param {string} type  K Q R B N P
 * @param {{color: string, mark: string | null, dark: boolean}} look
 * @returns {SVGGElement}
 */
export function pieceGroup(type, look) {
  const stroke = look.dark ? "#0d0d0d" : "#22201e";
  const detail = look.dark ? "#d9d5cc" : stroke;
  const g = s("g", { class: "piece-shape" });
  g.append(shape(BASE, look.color, stroke, 3.2));
  for (const spec of SHAPES[type] || SHAPES.P) {
    const isDetail = spec.startsWith("line:") || (type === "N" && spec.startsWith("circle:"));
    const part = shape(spec, isDetail ? detail : look.color, isDetail ? detail : stroke, isDetail ? 3.5 : 3.2);
    if (isDetail) part.setAttribute("class", "pc-detail");
    g.append(part);
  }
  const [cx, cy] = MARK_AT[type] || [50, 62];
  const mark = markShape(look.mark, cx, cy, 7.5, "#ffffff", "#22201e", 2.4);
  if (mark) g.append(mark);
  return g;
}
