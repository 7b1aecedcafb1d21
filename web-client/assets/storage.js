// What this device remembers: per room, the seat tokens and the host token (the only proof of
// identity: there are no accounts), and the name last used.

const PREFIX = "fourkings.room.";

/**
 * The tokens this device holds for a room: the host token, seat tokens by seat, and tokens it
 * cannot place yet (`extra`).
 * @typedef {{host: string | null, seats: Record<string, string>, extra: string[]}} RoomTokens
 */

/**
 * @template T
 * @param {string} key
 * @param {T} fallback
 * @returns {T}
 */
function read(key, fallback) {
  try {
    const text = localStorage.getItem(key);
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

/**
 * @param {string} key
 * @param {unknown} value
 */
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode or a full store: the room still works, only a reload loses the seat.
  }
}

/**
 * @param {string} roomId
 * @returns {RoomTokens}
 */
export function roomTokens(roomId) {
  /** @type {Partial<RoomTokens>} */
  const stored = read(PREFIX + roomId, {});
  return { host: stored.host || null, seats: stored.seats || {}, extra: stored.extra || [] };
}

/**
 * Whether this device holds any token of a room (it was seated or hosted there).
 * @param {string} roomId
 * @returns {boolean}
 */
export function hasRoomTokens(roomId) {
  const tokens = roomTokens(roomId);
  return !!tokens.host || Object.keys(tokens.seats).length > 0 || tokens.extra.length > 0;
}

/**
 * @param {string} roomId
 * @param {RoomTokens} tokens
 */
export function saveRoomTokens(roomId, tokens) {
  write(PREFIX + roomId, tokens);
}

/**
 * @param {string} roomId
 * @param {(tokens: RoomTokens) => void} change
 * @returns {RoomTokens}
 */
export function updateRoomTokens(roomId, change) {
  const tokens = roomTokens(roomId);
  change(tokens);
  saveRoomTokens(roomId, tokens);
  return tokens;
}

/**
 * Every seat token held, placed or not.
 * @param {RoomTokens} tokens
 * @returns {string[]}
 */
export function allSeatTokens(tokens) {
  return [...new Set([...Object.values(tokens.seats), ...tokens.extra])];
}

/** @returns {string} */
export function lastName() {
  return read("fourkings.name", "");
}

/** @param {string} name */
export function saveName(name) {
  write("fourkings.name", name);
}

/**
 * @template T
 * @param {string} name
 * @param {T} fallback
 * @returns {T}
 */
export function preference(name, fallback) {
  return read("fourkings.pref." + name, fallback);
}

/**
 * @param {string} name
 * @param {unknown} value
 */
export function savePreference(name, value) {
  write("fourkings.pref." + name, value);
}

/**
 * The name to sit down with when the room just created opens (the host plays unless they chose
 * to watch); kept for this tab only, and taken once.
 * @param {string} roomId
 * @param {string} name
 */
export function sitOnArrival(roomId, name) {
  try {
    sessionStorage.setItem(`fourkings.sit.${roomId}`, name);
  } catch {
    // Without session storage the host takes a seat by hand.
  }
}

/**
 * The name to sit down with in this room, if the host asked to play when creating it; asked
 * once.
 * @param {string} roomId
 * @returns {string | null}
 */
export function takeSeatOnArrival(roomId) {
  try {
    const key = `fourkings.sit.${roomId}`;
    const name = sessionStorage.getItem(key);
    sessionStorage.removeItem(key);
    return name;
  } catch {
    return null;
  }
}
