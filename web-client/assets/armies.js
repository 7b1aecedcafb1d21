// Names, colours and marks of the armies and seats, and the squares of the two boards. Facts
// of presentation only: the rules stay on the server.

export const CROSS = {
  kind: "cross",
  size: 14,
  files: "abcdefghijklmn",
  /** Whether (file 0–13, rank 0–13) is a square: the 3×3 corners are not. */
  exists: (f, r) => !((f < 3 || f > 10) && (r < 3 || r > 10)),
};

export const CLASSIC = {
  kind: "classic",
  size: 8,
  files: "abcdefgh",
  exists: () => true,
};

export function geometry(board) {
  return board === "classic" ? CLASSIC : CROSS;
}

export function squareName(geo, f, r) {
  return geo.files[f] + (r + 1);
}

export function parseSquare(name) {
  const m = /^([a-n])(\d{1,2})$/.exec(name);
  return m ? { f: m[1].charCodeAt(0) - 97, r: Number(m[2]) - 1 } : null;
}

/** A move in coordinate form: `{from, to, promotion}`. */
export function parseMove(text) {
  const m = /^([a-n]\d{1,2})([a-n]\d{1,2})([qrbn])?$/.exec(text || "");
  return m ? { from: m[1], to: m[2], promotion: m[3] || null } : null;
}

// Cross-board armies by seat: colour plus a shape, so that nobody needs to tell colours apart.
export const CROSS_ARMIES = [
  { letter: "r", name: "Red", mark: "circle", symbol: "●", color: "#d3433b" },
  { letter: "b", name: "Blue", mark: "triangle", symbol: "▲", color: "#3568d4" },
  { letter: "y", name: "Yellow", mark: "square", symbol: "■", color: "#e0a800" },
  { letter: "g", name: "Green", mark: "diamond", symbol: "◆", color: "#2c9a56" },
];

export const DUO_SIDES = {
  w: { letter: "w", name: "White", mark: null, symbol: "○", color: "#f7f5f0" },
  b: { letter: "b", name: "Black", mark: null, symbol: "●", color: "#2d2b29" },
};

export const OUT_COLOR = "#9ea3a8";

export const PIECE_NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

export function isDuo(settingsOrGame) {
  return settingsOrGame && (settingsOrGame.preset === "duo" || settingsOrGame.board === "classic");
}

/** The army (cross) or colour (Duo) a seat plays. */
export function seatArmy(seat, duo) {
  if (duo) return seat % 2 === 0 ? DUO_SIDES.w : DUO_SIDES.b;
  return CROSS_ARMIES[seat];
}

/** The seat labels the server uses, for when a seat list is not at hand. */
export function seatLabel(seat, duo) {
  return duo ? ["W1", "B1", "W2", "B2"][seat] : CROSS_ARMIES[seat].name;
}

/** The army behind a piece code such as `rP` (cross) or `wK` (Duo). */
export function pieceArmy(code, duo) {
  const letter = code[0];
  if (duo) return DUO_SIDES[letter];
  return CROSS_ARMIES.find((a) => a.letter === letter);
}

/** The seats a piece belongs to: one on the cross board, two in Duo. */
export function pieceSeats(code, duo) {
  if (duo) return code[0] === "w" ? [0, 2] : [1, 3];
  return [CROSS_ARMIES.findIndex((a) => a.letter === code[0])];
}

export function pieceWords(code, duo) {
  const army = pieceArmy(code, duo);
  return `${army ? army.name.toLowerCase() : ""} ${PIECE_NAMES[code[1]] || "piece"}`.trim();
}

export function teamOf(seat) {
  return seat % 2;
}

export const PRESETS = [
  { id: "teams", name: "Teams", line: "2 v 2 on the cross board: partners sit opposite; mate or capture an enemy king." },
  { id: "teams-house", name: "Teams · house rules", line: "The tabletop rules: no castling, no en passant, no king capture." },
  { id: "teams-classic", name: "Teams · classic", line: "Classic Teams: no en passant; resigning needs your partner's consent." },
  { id: "ffa", name: "Free-for-all", line: "Everyone for themselves: points for captures, checks and mates." },
  { id: "ffa-walking-kings", name: "Free-for-all · walking kings", line: "Free-for-all where a resigned player's king walks on by itself." },
  { id: "duo", name: "Duo", line: "2 v 2 on an ordinary board: partners share one army and take turns." },
];

export function presetInfo(id) {
  return PRESETS.find((p) => p.id === id) || { id, name: id, line: "" };
}

export function isTeamsPreset(id) {
  return id === "teams" || id === "teams-house" || id === "teams-classic";
}

export function isFfaPreset(id) {
  return id === "ffa" || id === "ffa-walking-kings";
}
