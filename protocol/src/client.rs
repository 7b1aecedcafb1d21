//! Messages from a client to the server.

use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::settings::{CpuLevel, SettingsPatch};
use crate::views::ChatChannel;

/// A message from a client. Every one carries a `req` id, chosen by the client, that the server's
/// answer repeats. Seat actions carry the seat's secret token; host actions the host token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Presents the tokens this device holds (its seats, and the host role if it created the
    /// room) and, after a reconnection, the last event version it holds. The server acks with the
    /// seats it recognised, then sends the events missed since `since` or a snapshot.
    Hello {
        /// Request id.
        req: u64,
        /// Seat tokens this device holds.
        #[serde(default)]
        seat_tokens: Vec<String>,
        /// The host token, if this device holds it.
        #[serde(default)]
        host_token: Option<String>,
        /// The last event version this client holds.
        #[serde(default)]
        since: Option<u64>,
    },
    /// Takes a free seat under a display name (before the start). The ack holds the seat's token.
    TakeSeat {
        /// Request id.
        req: u64,
        /// The seat, 0–3.
        seat: SeatIndex,
        /// The display name (stored as given; clients render it as text).
        name: String,
    },
    /// Leaves a seat before the start.
    LeaveSeat {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Host: changes settings before the start.
    UpdateSettings {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
        /// The fields to change.
        settings: SettingsPatch,
    },
    /// Host: makes an empty seat a CPU seat of `level`, or a CPU seat empty again (`null`).
    SetCpu {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
        /// The seat.
        seat: SeatIndex,
        /// The CPU's level, or `null` to empty the seat.
        level: Option<CpuLevel>,
    },
    /// Host: moves whoever sits in `from` to the empty seat `to` (their token stays valid).
    MovePlayer {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
        /// The occupied seat.
        from: SeatIndex,
        /// The empty seat.
        to: SeatIndex,
    },
    /// Host: removes the player from a seat (their token stops working).
    RemovePlayer {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
        /// The seat.
        seat: SeatIndex,
    },
    /// Host: hands the host role to the player in `seat`, who receives a new host token; the old
    /// one stops working.
    TransferHost {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
        /// The seat of the new host.
        seat: SeatIndex,
    },
    /// Host: starts the game. Every empty seat becomes a CPU seat.
    Start {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
    },
    /// Plays a move for `seat` at ply `ply` (the number of plies played so far). A resend of a
    /// move already played is answered `stale_ply` and changes nothing.
    Move {
        /// Request id.
        req: u64,
        /// The seat to move.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
        /// The ply the move is for.
        ply: u32,
        /// The move in coordinate form: from-square, to-square and a promotion letter if any
        /// (`h2h4`, `h10h11q`, `e7e8n`); castling is the king's move (`h1j1`).
        #[serde(rename = "move")]
        mv: String,
    },
    /// Resigns (or, where the rules ask for it, asks the partner to agree).
    Resign {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// The partner's answer to a resignation request.
    AnswerResignation {
        /// Request id.
        req: u64,
        /// The partner's seat.
        seat: SeatIndex,
        /// The partner's token.
        token: String,
        /// Agree (the team loses) or refuse.
        accept: bool,
    },
    /// Offers a draw, or agrees to the open offer.
    OfferDraw {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Answers the open draw offer.
    AnswerDraw {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
        /// Agree or decline (which ends the offer).
        accept: bool,
    },
    /// Spends a team lifeline to take back the team's move just played.
    TakeBack {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Free-for-all: claims the win (two players left, a lead of more than 20).
    ClaimWin {
        /// Request id.
        req: u64,
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Writes a chat message: players in `room` or `team` chat (with their seat and token),
    /// spectators in `spectators` chat (without).
    Chat {
        /// Request id.
        req: u64,
        /// Where it goes.
        channel: ChatChannel,
        /// The message (stored as given; readers render it as text).
        text: String,
        /// The writer's seat (players).
        #[serde(default)]
        seat: Option<SeatIndex>,
        /// The seat's token (players).
        #[serde(default)]
        token: Option<String>,
    },
    /// Host: after a result, starts a new game with the same seats (the first seat moves one place
    /// when `rotate_first_seat` is on; a switch-partners session seats the next pairing).
    Rematch {
        /// Request id.
        req: u64,
        /// The host token.
        host_token: String,
    },
    /// Asks for the events after version `since` (or a snapshot if they are too old).
    Resync {
        /// Request id.
        req: u64,
        /// The last version the client holds.
        since: u64,
    },
    /// Keeps the connection alive; answered with `pong`.
    Ping {
        /// Request id.
        req: u64,
    },
}

impl ClientMessage {
    /// The `type` of every client message.
    pub const TYPES: &[&str] = &[
        "hello",
        "take_seat",
        "leave_seat",
        "update_settings",
        "set_cpu",
        "move_player",
        "remove_player",
        "transfer_host",
        "start",
        "move",
        "resign",
        "answer_resignation",
        "offer_draw",
        "answer_draw",
        "take_back",
        "claim_win",
        "chat",
        "rematch",
        "resync",
        "ping",
    ];

    /// The request id.
    pub fn req(&self) -> u64 {
        match self {
            ClientMessage::Hello { req, .. }
            | ClientMessage::TakeSeat { req, .. }
            | ClientMessage::LeaveSeat { req, .. }
            | ClientMessage::UpdateSettings { req, .. }
            | ClientMessage::SetCpu { req, .. }
            | ClientMessage::MovePlayer { req, .. }
            | ClientMessage::RemovePlayer { req, .. }
            | ClientMessage::TransferHost { req, .. }
            | ClientMessage::Start { req, .. }
            | ClientMessage::Move { req, .. }
            | ClientMessage::Resign { req, .. }
            | ClientMessage::AnswerResignation { req, .. }
            | ClientMessage::OfferDraw { req, .. }
            | ClientMessage::AnswerDraw { req, .. }
            | ClientMessage::TakeBack { req, .. }
            | ClientMessage::ClaimWin { req, .. }
            | ClientMessage::Chat { req, .. }
            | ClientMessage::Rematch { req, .. }
            | ClientMessage::Resync { req, .. }
            | ClientMessage::Ping { req } => *req,
        }
    }
}

/// Just the request id of a message, read when the rest of it does not parse, so that the error
/// can still name the request.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Request {
    /// The request id, if the message had one.
    pub req: Option<u64>,
}
