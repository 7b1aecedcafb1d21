//! Bodies of the HTTP API.

use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::error::ErrorCode;
use crate::settings::Settings;
use crate::views::{GameStatus, SeatView};

/// `POST /api/rooms`: the new room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRoomResponse {
    /// The room id.
    pub id: String,
    /// The room's link, relative to the server (`/r/<id>`).
    pub link: String,
    /// The host's secret token.
    pub host_token: String,
}

/// `GET /api/rooms/<id>`: the room's public state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// The body of an HTTP error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub code: ErrorCode,
    /// The same in words.
    pub message: String,
}
