//! Bodies of the HTTP API.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::error::ErrorCode;
use crate::settings::Settings;
use crate::views::{BoardShape, GameStatus, SeatView};

/// `POST /api/rooms`: the new room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateRoomResponse {
    /// The room id.
    pub id: String,
    /// The room's link, relative to the server (`/r/<id>`).
    pub link: String,
    /// The host's secret token.
    pub host_token: String,
}

/// `GET /api/rooms/<id>`: the room's public state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoomInfo {
    /// The room id.
    pub id: String,
    /// Where the room is in its life.
    pub status: GameStatus,
    /// The settings.
    pub settings: Settings,
    /// The seats.
    pub seats: Vec<SeatView>,
    /// The host's seat, if the host sits at the table.
    pub host_seat: Option<SeatIndex>,
    /// The room's event version.
    pub v: u64,
}

/// `GET /api/rooms/<id>/game/history`: every position of the room's game, as the start and what
/// each move changed, so that a client without chess rules can show the board after any ply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GameHistory {
    /// The game's id, as in the [game view](crate::GameView).
    pub id: String,
    /// `cross` or `classic`, as in the game view.
    pub board: BoardShape,
    /// Every piece by square before the first move, written as in the game view's `pieces`.
    pub start: BTreeMap<String, String>,
    /// Every move so far, oldest first: the position after ply `n` is `start` with the
    /// `changed` of the first `n` entries applied in order.
    pub plies: Vec<PlyRecord>,
}

/// One move of a [`GameHistory`]: the same fields as the [`moved`](crate::MovedEvent) event that
/// announced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlyRecord {
    /// The seat that moved.
    pub seat: SeatIndex,
    /// The move in notation.
    pub text: String,
    /// The move in coordinate form.
    #[serde(rename = "move")]
    pub mv: String,
    /// Every square whose contents the move changed, with what stood there after it (`null`
    /// when empty).
    pub changed: BTreeMap<String, Option<String>>,
    /// Seats whose king was attacked after the move.
    pub checks: Vec<SeatIndex>,
    /// The squares of the pieces attacking those kings, in the order of the game view's
    /// `checking`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checking: Vec<String>,
    /// Present (`true`) for a move nobody at the seat chose, as its `moved` event said: the CPU
    /// played it for a person whose turn limit ran out or who was away, or a walking king moved
    /// by itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
}

/// The body of an HTTP error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub code: ErrorCode,
    /// The same in words.
    pub message: String,
}
