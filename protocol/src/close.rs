//! The WebSocket close codes and reasons the server sends (protocol/README.md, "The WebSocket").
//! Each reason has its own code, so that a client tells them apart by the code alone; the codes
//! of 4000 and up are this protocol's own (RFC 6455, section 7.4.2).

/// The server is shutting down (a restart, a deploy): every room was stored first, so reconnect
/// with backoff and `hello` with the last version held; nothing was lost.
pub const SERVER_RESTARTING: (u16, &str) = (1012, "the server is restarting");

/// Nothing came from the client for three heartbeat intervals: reconnect.
pub const NO_HEARTBEAT: (u16, &str) = (1001, "no heartbeat");

/// The client sent more messages than the rate limit allows (a bug to fix before reconnecting).
pub const TOO_MANY: (u16, &str) = (1008, "too many messages");

/// The client sent a frame over the size limit (a bug to fix before reconnecting).
pub const TOO_LARGE: (u16, &str) = (1009, "message too large");

/// The client sent a frame that is not a well-formed WebSocket frame.
pub const MALFORMED: (u16, &str) = (1002, "malformed frame");

/// The client sent a text frame that is not UTF-8.
pub const NOT_UTF8: (u16, &str) = (1007, "text frames are UTF-8");

/// The room was closed after nobody had been connected to it for the idle time: it is gone, and
/// reconnecting gets `404`.
pub const ROOM_CLOSED: (u16, &str) = (4001, "the room has closed");

/// The client did not read fast enough and its queue filled up: reconnect and resynchronise.
pub const TOO_SLOW: (u16, &str) = (4002, "too slow to keep up; reconnect");

/// The room's task failed and the room is being rebuilt from what it had stored: reconnect with
/// backoff and `hello` with the last version held. Nothing acknowledged was lost; a request that
/// was not answered was not carried out.
pub const ROOM_RESTARTING: (u16, &str) = (4003, "the room is restarting; reconnect");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_its_own_code() {
        let all = [
            SERVER_RESTARTING,
            NO_HEARTBEAT,
            TOO_MANY,
            TOO_LARGE,
            MALFORMED,
            NOT_UTF8,
            ROOM_CLOSED,
            TOO_SLOW,
            ROOM_RESTARTING,
        ];
        let mut codes: Vec<u16> = all.iter().map(|(code, _)| *code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all.len());
    }
}
