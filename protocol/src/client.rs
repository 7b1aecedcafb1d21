//! Messages from a client to the server.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::settings::{CpuLevel, SettingsPatch};
use crate::views::ChatChannel;

/// A request from a client: the id the server's answer repeats, and the message. On the wire it is
/// one JSON object, `{"type": …, "req": …, …}`: the message's fields beside `req`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRequest {
    /// The request id, chosen by the client; the server's `ack`, `error` or `pong` repeats it.
    pub req: u64,
    /// What the client asks for.
    #[serde(flatten)]
    pub message: ClientMessage,
}

/// What a client asks for, tagged by `"type"` (its name in snake case, [`ClientMessage::kind`]).
/// Seat actions carry the seat's secret token; host actions the host token.
#[derive(
    Clone,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClientMessage {
    /// Presents the tokens this device holds (its seats, and the host role if it created the
    /// room) and, after a reconnection, the last event version it holds. The server acks with the
    /// seats it recognised, then sends the events missed since `since` or a snapshot.
    Hello {
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
        /// The seat, 0–3.
        seat: SeatIndex,
        /// The display name (stored as given; clients render it as text).
        name: String,
    },
    /// Leaves a seat before the start.
    LeaveSeat {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Host: changes settings before the start.
    UpdateSettings {
        /// The host token.
        host_token: String,
        /// The fields to change.
        settings: SettingsPatch,
    },
    /// Host: makes an empty seat a CPU seat of `level`, or a CPU seat empty again (`null`).
    SetCpu {
        /// The host token.
        host_token: String,
        /// The seat.
        seat: SeatIndex,
        /// The CPU's level, or `null` to empty the seat.
        level: Option<CpuLevel>,
    },
    /// Host: moves whoever sits in `from` to the empty seat `to` (their token stays valid).
    MovePlayer {
        /// The host token.
        host_token: String,
        /// The occupied seat.
        from: SeatIndex,
        /// The empty seat.
        to: SeatIndex,
    },
    /// Host: removes the player from a seat (their token stops working).
    RemovePlayer {
        /// The host token.
        host_token: String,
        /// The seat.
        seat: SeatIndex,
    },
    /// Host: hands the host role to the player in `seat`, who receives a new host token; the old
    /// one stops working.
    TransferHost {
        /// The host token.
        host_token: String,
        /// The seat of the new host.
        seat: SeatIndex,
    },
    /// Host: starts the game. Every empty seat becomes a CPU seat.
    Start {
        /// The host token.
        host_token: String,
    },
    /// Plays a move for `seat` at ply `ply` (the number of plies played so far). A resend of a
    /// move already played is answered `stale_ply` and changes nothing.
    Move {
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
    /// Queues a move to play when the seat's turn comes (a premove), after those already queued,
    /// while it is not the seat's turn (if it is, the move is played at once). When the turn
    /// starts the server plays the first queued move if it is legal then, or drops the queue.
    Premove {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
        /// The move in coordinate form, as for `move`.
        #[serde(rename = "move")]
        mv: String,
    },
    /// Empties the seat's premove queue.
    CancelPremoves {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Resigns (or, where the rules ask for it, asks the partner to agree).
    Resign {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// The partner's answer to a resignation request.
    AnswerResignation {
        /// The partner's seat.
        seat: SeatIndex,
        /// The partner's token.
        token: String,
        /// Agree (the team loses) or refuse.
        accept: bool,
    },
    /// Offers a draw, or agrees to the open offer.
    OfferDraw {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Answers the open draw offer.
    AnswerDraw {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
        /// Agree or decline (which ends the offer).
        accept: bool,
    },
    /// Spends a team lifeline to take back the team's move just played.
    TakeBack {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Free-for-all: claims the win (two players left, a lead of more than 20).
    ClaimWin {
        /// The seat.
        seat: SeatIndex,
        /// The seat's token.
        token: String,
    },
    /// Writes a chat message: players in `room` or `team` chat (with their seat and token),
    /// spectators in `spectators` chat (without).
    Chat {
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
        /// The host token.
        host_token: String,
    },
    /// Asks for the events after version `since` (or a snapshot if they are too old).
    Resync {
        /// The last version the client holds.
        since: u64,
    },
    /// Keeps the connection alive; answered with `pong`.
    Ping,
}

/// In the schema, `req` beside a reference to `ClientMessage`, where the derive would copy every
/// message into the request.
impl JsonSchema for ClientRequest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ClientRequest".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let message = generator.subschema_for::<ClientMessage>();
        schemars::json_schema!({
            "description": "What a client sends: a ClientMessage and, beside its fields, the request id that the server's ack, error or pong repeats.",
            "type": "object",
            "properties": {
                "req": { "type": "integer", "minimum": 0, "format": "uint64" }
            },
            "required": ["req"],
            "allOf": [message]
        })
    }
}

impl ClientRequest {
    /// A request with id `req`.
    pub fn new(req: u64, message: ClientMessage) -> Self {
        ClientRequest { req, message }
    }
}

impl ClientMessage {
    /// The message's `type`, as on the wire (`"take_seat"`).
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// The `type` of every client message, in the order of the variants.
    pub fn kinds() -> &'static [&'static str] {
        <Self as strum::VariantNames>::VARIANTS
    }

    /// Whether the server may have to write to storage to answer the message. Only `hello`,
    /// `resync` and `ping` read alone: they are answered while storage takes no writes, where
    /// every other message is refused with `storage_unavailable`. A new message writes unless it
    /// is added here, the safe side.
    pub fn may_write(&self) -> bool {
        !matches!(
            self,
            ClientMessage::Hello { .. } | ClientMessage::Resync { .. } | ClientMessage::Ping
        )
    }

    /// The seat the message acts for, if any (for logs; a token is never logged).
    pub fn seat(&self) -> Option<SeatIndex> {
        match self {
            ClientMessage::TakeSeat { seat, .. }
            | ClientMessage::LeaveSeat { seat, .. }
            | ClientMessage::SetCpu { seat, .. }
            | ClientMessage::RemovePlayer { seat, .. }
            | ClientMessage::TransferHost { seat, .. }
            | ClientMessage::Move { seat, .. }
            | ClientMessage::Premove { seat, .. }
            | ClientMessage::CancelPremoves { seat, .. }
            | ClientMessage::Resign { seat, .. }
            | ClientMessage::AnswerResignation { seat, .. }
            | ClientMessage::OfferDraw { seat, .. }
            | ClientMessage::AnswerDraw { seat, .. }
            | ClientMessage::TakeBack { seat, .. }
            | ClientMessage::ClaimWin { seat, .. } => Some(*seat),
            ClientMessage::MovePlayer { from, .. } => Some(*from),
            ClientMessage::Chat { seat, .. } => *seat,
            ClientMessage::Hello { .. }
            | ClientMessage::UpdateSettings { .. }
            | ClientMessage::Start { .. }
            | ClientMessage::Rematch { .. }
            | ClientMessage::Resync { .. }
            | ClientMessage::Ping => None,
        }
    }
}
