//! The WebSocket close codes and reasons the server sends (protocol/README.md, "The WebSocket").
//! A client tells them apart by code and, where two share a code, by reason.

/// The server is shutting down (a restart, a deploy): every room was stored first, so reconnect
/// with backoff and `hello` with the last version held; nothing was lost.
pub const SERVER_RESTARTING: (u16, &str) = (1012, "the server is restarting");

/// The room was closed after nobody had been connected to it for the idle time.
pub const ROOM_CLOSED: (u16, &str) = (1001, "the room has closed");

/// Nothing came from the client for three heartbeat intervals.
pub const NO_HEARTBEAT: (u16, &str) = (1001, "no heartbeat");

/// The client did not read fast enough and its queue filled up.
pub const TOO_SLOW: (u16, &str) = (1008, "too slow to keep up; reconnect");
