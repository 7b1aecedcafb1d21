// What this device remembers: per room, the seat tokens and the host token (the only proof of
// identity: there are no accounts), and the name last used.

const PREFIX = "fourkings.room.";

function read(key, fallback) {
  try {
    const text = localStorage.getItem(key);
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode or a full store: the room still works, only a reload loses the seat.
  }
}

/** The tokens this device holds for a room: `{host, seats: {seat: token}, extra: [token]}`. */
export function roomTokens(roomId) {
  const stored = read(PREFIX + roomId, {});
  return { host: stored.host || null, seats: stored.seats || {}, extra: stored.extra || [] };
}

export function saveRoomTokens(roomId, tokens) {
  write(PREFIX + roomId, tokens);
}

export function updateRoomTokens(roomId, change) {
  const tokens = roomTokens(roomId);
  change(tokens);
  saveRoomTokens(roomId, tokens);
  return tokens;
}

export function allSeatTokens(tokens) {
  return [...new Set([...Object.values(tokens.seats), ...tokens.extra])];
}

export function lastName() {
  return read("fourkings.name", "");
}

export function saveName(name) {
  write("fourkings.name", name);
}

export function preference(name, fallback) {
  return read("fourkings.pref." + name, fallback);
}

export function savePreference(name, value) {
  write("fourkings.pref." + name, value);
}
