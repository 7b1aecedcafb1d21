// The HTTP API (protocol/README.md, "HTTP API").

async function json(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = new Error((body && body.message) || `HTTP ${response.status}`);
    error.code = body && body.code;
    error.status = response.status;
    throw error;
  }
  return body;
}

/** `POST /api/rooms` with a settings patch: `{id, link, host_token}`. */
export async function createRoom(patch) {
  const response = await fetch("/api/rooms", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(patch),
  });
  return json(response);
}

/** `GET /api/rooms/<id>`: the room's public state, or an error with `code` `room_not_found`. */
export async function roomInfo(id) {
  return json(await fetch(`/api/rooms/${encodeURIComponent(id)}`));
}
