//! Error codes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Defines [`ErrorCode`] with its wire names in one place.
macro_rules! error_codes {
    ($($(#[doc = $doc:expr])* $name:ident = $wire:literal,)*) => {
        /// The stable code of every error the server reports. Clients switch on the code; the
        /// message next to it is for people.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* #[serde(rename = $wire)] $name,)*
        }

        impl ErrorCode {
            /// Every error code.
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The code as it appears on the wire (`not_your_turn`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $wire,)*
                }
            }
        }
    };
}

error_codes! {
    /// The frame is not JSON, or not a JSON object.
    BadJson = "bad_json",
    /// The `type` is missing or names no message.
    UnknownType = "unknown_type",
    /// A field is missing or has the wrong type or value.
    InvalidMessage = "invalid_message",
    /// The frame is larger than the server's limit (the connection is closed).
    TooLarge = "too_large",
    /// A text frame that is not UTF-8 (the connection is closed).
    NotUtf8 = "not_utf8",
    /// A frame that is not a well-formed WebSocket frame (the connection is closed).
    BadFrame = "bad_frame",
    /// More messages than the per-connection rate allows (the connection is closed).
    RateLimited = "rate_limited",
    /// No room has this id.
    RoomNotFound = "room_not_found",
    /// No such game: no archived game has this id, or the room has not started one yet.
    GameNotFound = "game_not_found",
    /// The server holds as many rooms as it is configured to.
    TooManyRooms = "too_many_rooms",
    /// Storage did not answer in time (it is failing, or slow): nothing was changed.
    StorageUnavailable = "storage_unavailable",
    /// This client address holds as many WebSockets open as one address may.
    TooManyConnections = "too_many_connections",
    /// The seat index is not 0–3.
    BadSeat = "bad_seat",
    /// The seat is already taken.
    SeatTaken = "seat_taken",
    /// The seat has nobody in it.
    SeatEmpty = "seat_empty",
    /// The display name is empty or longer than the limit.
    BadName = "bad_name",
    /// The token does not hold this seat (or the host role).
    BadToken = "bad_token",
    /// Only the host may do this.
    NotHost = "not_host",
    /// The settings are not valid (an unknown preset, a turn limit other than 0, 30 or 60...).
    InvalidSettings = "invalid_settings",
    /// The game has not started yet.
    NotStarted = "not_started",
    /// The game has already started: seats and settings are fixed.
    AlreadyStarted = "already_started",
    /// The game is over.
    GameOver = "game_over",
    /// Another seat is to move.
    NotYourTurn = "not_your_turn",
    /// The move names a ply other than the current one (an old resend, or a stale client).
    StalePly = "stale_ply",
    /// The move text is not a move.
    BadMove = "bad_move",
    /// The move is not legal in the position.
    IllegalMove = "illegal_move",
    /// The move was just taken back with a lifeline: choose another.
    TakenBack = "taken_back",
    /// The seat is out of the game.
    NotInGame = "not_in_game",
    /// The rules of this room do not allow it.
    NotAllowed = "not_allowed",
    /// No lifelines left.
    NoLifelines = "no_lifelines",
    /// No move of your team to take back.
    NothingToTakeBack = "nothing_to_take_back",
    /// The move to take back was the only legal one; it stands.
    NoAlternative = "no_alternative",
    /// No draw offer is open.
    NoDrawOffer = "no_draw_offer",
    /// No resignation waits for your answer.
    NoResignationRequest = "no_resignation_request",
    /// The seat has queued as many premoves as the room allows (or the room allows none).
    PremovesFull = "premoves_full",
    /// The win cannot be claimed now.
    CannotClaim = "cannot_claim",
    /// The turn limit ran out: the CPU is playing this move for the player.
    TimeUp = "time_up",
    /// An empty chat message, one over the length limit, or a channel that is not this writer's
    /// (players write in room and team chat, spectators in theirs). A channel the rules switch
    /// off (team chat in free-for-all or under silent partners) is `not_allowed`.
    BadChat = "bad_chat",
    /// More chat messages than the per-minute limit.
    ChatLimited = "chat_limited",
    /// The game is not over yet (a rematch waits for a result).
    NotFinished = "not_finished",
    /// The version asked for is newer than the room's.
    BadVersion = "bad_version",
    /// The WebSocket's Origin is not allowed.
    ForbiddenOrigin = "forbidden_origin",
    /// A request to a WebSocket address that is not a WebSocket upgrade: HTTP 400 (426, with the
    /// version spoken, for a WebSocket version other than 13).
    NotWebSocket = "not_websocket",
    /// The server is shutting down: HTTP 503 for a new room or WebSocket while it drains.
    ShuttingDown = "shutting_down",
    /// Something went wrong in the server.
    Internal = "internal",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for &code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::String(code.as_str().to_owned()));
            assert_eq!(serde_json::from_value::<ErrorCode>(json).unwrap(), code);
        }
    }
}
