// The Four Kings mark: four small crowns in the armies' colours around a square.

import { s } from "./dom.js";
import { CROSS_ARMIES } from "./armies.js";

/** The mark, as a small SVG for the header. */
export function crownIcon() {
  const svg = s("svg", { class: "brand-icon", viewBox: "0 0 40 40", width: 30, height: 30, "aria-hidden": "true" });
  const spots = [
    [20, 31, 0],
    [9, 20, 90],
    [20, 9, 180],
    [31, 20, 270],
  ];
  svg.append(s("rect", { x: 13, y: 13, width: 14, height: 14, rx: 2.5, fill: "#2a2723" }));
  spots.forEach(([x, y, angle], i) => {
    svg.append(
      s("path", {
        d: "M-6 3 L-7 -4 L-3 -1 L0 -6 L3 -1 L7 -4 L6 3 Z",
        fill: CROSS_ARMIES[i].color,
        stroke: "#2a2723",
        "stroke-width": 1.2,
        "stroke-linejoin": "round",
        transform: `translate(${x} ${y}) rotate(${angle})`,
      }),
    );
  });
  return svg;
}
