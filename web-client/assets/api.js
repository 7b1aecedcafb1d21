// The HTTP API (protocol/README.md, "HTTP API").

/** @typedef {import("./protocol.js").CreateRoomResponse} CreateRoomResponse */
/** @typedef {import("./protocol.js").SettingsPatch} SettingsPatch */
/** @typedef {import("./protocol.js").GameHistory} GameHistory */

/** An answer of the HTTP API that is not a success, with the error body's `code`. */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {string | null} code
   * @param {number} status
   */
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/**
 * The body of a response, or an `ApiError` for a failure.
 * @param {Response} response
 * @returns {Promise<any>}
 */
async function json(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    throw new ApiError((body && body.message) || `HTTP ${response.status}`, (body && body.code) || null, response.status);
  }
  return body;
}

/**
 * `POST /api/rooms` with a settings patch.
 * @param {SettingsPatch} patch
 * @returns {Promise<CreateRoomResponse>}
 */
export async function createRoom(patch) {
  const response = await fetch("/api/rooms", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(patch),
  });
  return json(response);
}

/**
 * `GET /api/rooms/<id>`: the room's public state, or an `ApiError` with `code` `room_not_found`.
 * @param {string} id
 * @returns {Promise<unknown>}
 */
export async function roomInfo(id) {
  return json(await fetch(`/api/rooms/${encodeURIComponent(id)}`));
}

/**
 * `GET /api/rooms/<id>/game/history`: every position of the room's game, as the start and each
 * move's diff.
 * @param {string} id
 * @returns {Promise<GameHistory>}
 */
export async function gameHistory(id) {
  return json(await fetch(`/api/rooms/${encodeURIComponent(id)}/game/history`));
}
