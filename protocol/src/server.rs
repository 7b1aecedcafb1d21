//! Messages from the server to a client.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::error::ErrorCode;
use crate::settings::{CpuLevel, Settings};
use crate::views::{
    ChatLine, Clock, GameView, LegalMoves, MovedEvent, PremovesDropped, Presence, RulesView,
    SeatView, SessionView, Snapshot,
};

/// What changed a game, other than a move (in JSON, its name in snake case: `resigned`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameChange {
    /// The seat resigned (or its partner agreed to its request): its team lost, or in
    /// free-for-all the player is out.
    Resigned,
    /// The seat asked its partner to agree to resign.
    ResignationRequested,
    /// The partner refused the request (`seat` is the one who asked).
    ResignationDeclined,
    /// The seat offered a draw (or agreed to one not yet agreed by all).
    DrawOffered,
    /// The seat declined the draw offer.
    DrawDeclined,
    /// Everyone agreed: the game is drawn.
    DrawAgreed,
    /// The seat took its team's last move back.
    TakenBack,
    /// The seat claimed the win, and the game is won.
    WinClaimed,
    /// The seat's team ran out of time.
    TimedOut,
}

/// A message from the server.
// Messages are built, serialised and dropped at once; their size on the stack does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ServerMessage {
    /// Everything about the room at version `v`.
    Snapshot(Box<Snapshot>),
    /// One room event; `v` is the room's version after it (each event adds 1).
    Event {
        /// The room's version after this event.
        v: u64,
        /// What happened.
        event: Event,
    },
    /// The legal moves of the seat to move, for that seat's connections only. Not a room event:
    /// it carries the version it belongs to but does not advance it.
    LegalMoves {
        /// The room version the moves belong to.
        v: u64,
        /// The moves.
        #[serde(flatten)]
        moves: LegalMoves,
    },
    /// A request succeeded.
    Ack {
        /// The request id.
        req: u64,
        /// `take_seat`: the secret token of the seat taken (keep it on this device).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat_token: Option<String>,
        /// `hello`: the seats the presented tokens hold.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<Vec<SeatIndex>>,
        /// `hello`: for each presented seat token, in the order presented, the seat it holds
        /// (`null` for a token that holds none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token_seats: Option<Vec<Option<SeatIndex>>>,
        /// `hello`: whether the presented host token is the host's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<bool>,
    },
    /// A request failed; nothing changed.
    Error {
        /// The request id, if the message had one.
        req: Option<u64>,
        /// What went wrong.
        code: ErrorCode,
        /// The same in words.
        message: String,
    },
    /// The answer to `ping`.
    Pong {
        /// The request id.
        req: u64,
        /// The server's time when it answered, in milliseconds since the Unix epoch: a clock
        /// reference for clients even in an untimed game (older servers sent none: 0).
        #[serde(default)]
        server_time: u64,
    },
}

/// Something that happened in a room.
#[allow(clippy::large_enum_variant)]
#[derive(
    Clone,
    Debug,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Event {
    /// A player took a seat.
    SeatTaken {
        /// The seat.
        seat: SeatIndex,
        /// The player's display name.
        name: String,
    },
    /// A player left a seat, or the host removed them.
    SeatLeft {
        /// The seat.
        seat: SeatIndex,
    },
    /// The host moved a player to another seat.
    PlayerMoved {
        /// The seat they left.
        from: SeatIndex,
        /// The seat they sit in now.
        to: SeatIndex,
    },
    /// A seat became a CPU seat, or an empty one again (`level` null).
    CpuSeat {
        /// The seat.
        seat: SeatIndex,
        /// The CPU's level, or null.
        level: Option<CpuLevel>,
    },
    /// The settings changed.
    SettingsChanged {
        /// The settings now.
        settings: Settings,
        /// What they let players do (the preset may have changed, and with it the format).
        #[serde(default)]
        rules: RulesView,
    },
    /// The host role moved to another seat.
    HostChanged {
        /// The new host's seat.
        seat: SeatIndex,
    },
    /// For the new host's connections only: the new host token. Everyone else receives
    /// [`Event::Hidden`] with the same version.
    HostToken {
        /// The new host token.
        host_token: String,
    },
    /// An event meant for other seats; it only advances the version.
    Hidden,
    /// The game started (empty seats became CPU seats).
    Started {
        /// The game at its start.
        game: GameView,
    },
    /// A move was played.
    Moved(MovedEvent),
    /// Something other than a move changed the game: a resignation, an agreed draw, a timeout, a
    /// takeback, a claimed win, a draw offer or a resignation request and their answers.
    GameChanged {
        /// What happened.
        what: GameChange,
        /// The seat that acted.
        seat: SeatIndex,
        /// The game after it.
        game: GameView,
    },
    /// A player's presence changed: they dropped (`away`), the grace period ran out
    /// (`cpu_playing`), or they came back (`online`).
    Presence {
        /// The seat.
        seat: SeatIndex,
        /// Whether they are here.
        presence: Presence,
        /// For `away`: when the grace period ends (ms since the epoch, server clock).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grace_ends_at: Option<u64>,
        /// The clocks now (Duo pauses them while a player is away).
        clock: Clock,
    },
    /// A chat message. Team and spectator messages reach only their readers; everyone else
    /// receives [`Event::Hidden`] with the same version.
    Chat(ChatLine),
    /// A new game in the same room, after a result: same seats, perhaps another first seat (and,
    /// in a switch-partners session, new partners; in Duo with `rotate_first_seat`, the people
    /// one seat on, since White always moves first).
    Rematch {
        /// The seats for the new game.
        seats: Vec<SeatView>,
        /// The new game.
        game: GameView,
        /// Where each seat's player sits now, when people moved (a switch-partners session, a
        /// rotated Duo rematch): the token that held seat `s` holds seat `seat_moves[s]`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat_moves: Option<[SeatIndex; 4]>,
    },
    /// The switch-partners session's standings changed (a game ended).
    Session(SessionView),
    /// Private, to the seat's connections only (everyone else gets `hidden`): the seat's premove
    /// queue as it is now, after a `premove` or `cancel_premoves`, a premove played, or the
    /// server emptying it (`dropped` says why).
    Premoves {
        /// The seat.
        seat: SeatIndex,
        /// The queue, first to play first (empty when it was emptied).
        moves: Vec<String>,
        /// Why the server emptied the queue, if it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dropped: Option<PremovesDropped>,
    },
}

impl ServerMessage {
    /// The message's `type`, as on the wire (`"legal_moves"`).
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// The `type` of every server message, in the order of the variants.
    pub fn kinds() -> &'static [&'static str] {
        <Self as strum::VariantNames>::VARIANTS
    }
}

impl Event {
    /// The event's `kind`, as on the wire (`"seat_taken"`).
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// The `kind` of every event, in the order of the variants.
    pub fn kinds() -> &'static [&'static str] {
        <Self as strum::VariantNames>::VARIANTS
    }
}
