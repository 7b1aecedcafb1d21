// Names, colours and marks of the armies and seats, and the squares of the two boards. Facts
// of presentation only: the rules stay on the server.

/**
 * A board's squares: the cross board (14 × 14 less the 3 × 3 corners) or the ordinary one.
 * @typedef {object} Geometry
 * @property {"cross" | "classic"} kind
 * @property {number} size squares along a side
 * @property {string} files the file letters, left to right
 * @property {(f: number, r: number) => boolean} exists whether (file, rank), both from 0, is a square
 */

/**
 * How an army or a Duo side looks: its name, colour and mark (● ▲ ■ ◆ on the cross board).
 * @typedef {object} ArmyLook
 * @property {string} letter the army letter of its pieces (`r`, `b`, `y`, `g`; Duo `w`, `b`)
 * @property {string} name
 * @property {"circle" | "triangle" | "square" | "diamond" | null} mark
 * @property {string} symbol
 * @property {string} color
 */

/** @type {Geometry} */
export const CROSS = {
  kind: "cross",
  size: 14,
  files: "abcdefghijklmn",
  exists: (f, r) => !((f < 3 || f > 10) && (r < 3 || r > 10)),
};

/** @type {Geometry} */
export const CLASSIC = {
  kind: "classic",
  size: 8,
  files: "abcdefgh",
  exists: () => true,
};

/**
 * The geometry of a game's `board`.
 * @param {"cross" | "classic"} board
 * @returns {Geometry}
 */
export function geometry(board) {
  return board === "classic" ? CLASSIC : CROSS;
}

/**
 * @param {Geometry} geo
 * @param {number} f
 * @param {number} r
 * @returns {string}
 */
export function squareName(geo, f, r) {
  return geo.files[f] + (r + 1);
}

/**
 * A move in coordinate form: `{from, to, promotion}`, or null for another text.
 * @param {string | null | undefined} text
 * @returns {{from: string, to: string, promotion: string | null} | null}
 */
export function parseMove(text) {
  const m = /^([a-n]\d{1,2})([a-n]\d{1,2})([qrbn])?$/.exec(text || "");
  return m ? { from: m[1], to: m[2], promotion: m[3] || null } : null;
}

/**
 * Cross-board armies by seat: colour plus a shape, so that nobody needs to tell colours apart.
 * @type {ArmyLook[]}
 */
export const CROSS_ARMIES = [
  { letter: "r", name: "Red", mark: "circle", symbol: "●", color: "#d3433b" },
  { letter: "b", name: "Blue", mark: "triangle", symbol: "▲", color: "#3568d4" },
  { letter: "y", name: "Yellow", mark: "square", symbol: "■", color: "#e0a800" },
  { letter: "g", name: "Green", mark: "diamond", symbol: "◆", color: "#2c9a56" },
];

/** @type {Record<string, ArmyLook>} */
export const DUO_SIDES = {
  w: { letter: "w", name: "White", mark: null, symbol: "○", color: "#f7f5f0" },
  b: { letter: "b", name: "Black", mark: null, symbol: "●", color: "#2d2b29" },
};

export const OUT_COLOR = "#9ea3a8";

/** @type {Record<string, string>} */
export const PIECE_NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

/**
 * The army (cross) or colour (Duo) a seat plays.
 * @param {number} seat
 * @param {boolean} duo
 * @returns {ArmyLook}
 */
export function seatArmy(seat, duo) {
  if (duo) return seat % 2 === 0 ? DUO_SIDES.w : DUO_SIDES.b;
  return CROSS_ARMIES[seat];
}

/**
 * The army behind a piece code such as `rP` (cross) or `wK` (Duo).
 * @param {string} code
 * @param {boolean} duo
 * @returns {ArmyLook | undefined}
 */
export function pieceArmy(code, duo) {
  const letter = code[0];
  if (duo) return DUO_SIDES[letter];
  return CROSS_ARMIES.find((a) => a.letter === letter);
}

/**
 * The seats a piece belongs to: one on the cross board, two in Duo.
 * @param {string} code
 * @param {boolean} duo
 * @returns {number[]}
 */
export function pieceSeats(code, duo) {
  if (duo) return code[0] === "w" ? [0, 2] : [1, 3];
  return [CROSS_ARMIES.findIndex((a) => a.letter === code[0])];
}

/**
 * A piece in words: `red knight`.
 * @param {string} code
 * @param {boolean} duo
 * @returns {string}
 */
export function pieceWords(code, duo) {
  const army = pieceArmy(code, duo);
  return `${army ? army.name.toLowerCase() : ""} ${PIECE_NAMES[code[1]] || "piece"}`.trim();
}

/**
 * The presets a room can be created with, for the settings form: a name and a line on each.
 * What a room's rules let players do comes from the server (the rules view), not from here.
 * @typedef {{id: string, name: string, line: string}} PresetInfo
 * @type {PresetInfo[]}
 */
export const PRESETS = [
  { id: "teams", name: "Teams", line: "2 v 2 on the cross board: partners sit opposite; mate or capture an enemy king." },
  { id: "teams-house", name: "Teams · house rules", line: "The tabletop rules: no castling, no en passant, no king capture." },
  { id: "teams-classic", name: "Teams · classic", line: "Classic Teams: no en passant; resigning needs your partner's consent." },
  { id: "ffa", name: "Free-for-all", line: "Everyone for themselves: points for captures, checks and mates." },
  { id: "ffa-walking-kings", name: "Free-for-all · walking kings", line: "Free-for-all where a resigned player's king walks on by itself." },
  { id: "duo", name: "Duo", line: "2 v 2 on an ordinary board: partners share one army and take turns." },
];

/**
 * @param {string} id
 * @returns {PresetInfo}
 */
export function presetInfo(id) {
  return PRESETS.find((p) => p.id === id) || { id, name: id, line: "" };
}

/**
 * Whether a preset is one of Teams', whose twists the settings form offers (the server checks
 * the settings; this only decides which options the form shows).
 * @param {string} id
 * @returns {boolean}
 */
export function isTeamsPreset(id) {
  return id === "teams" || id === "teams-house" || id === "teams-classic";
}
