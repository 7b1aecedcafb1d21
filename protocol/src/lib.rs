//! The Four Kings wire protocol: the messages a client and the server exchange over a room's
//! WebSocket, and the bodies of the HTTP API. Plain data with serde; every message is a JSON text
//! frame tagged by `"type"`. `protocol/README.md` documents each message with an example.
//!
//! - [`ClientRequest`]: what a client sends: a [`ClientMessage`] and a `req` id that the server
//!   answers with an [`ServerMessage::Ack`] or an [`ServerMessage::Error`] carrying the same id.
//! - [`ServerMessage`]: what the server sends: snapshots, room events with their version `v`,
//!   acks and errors.
//! - [`Settings`] and [`SettingsPatch`]: a room's settings, whole or in part.
//! - [`ErrorCode`]: the stable codes of every error.
//! - [`schema`]: the whole protocol as one JSON Schema document, generated from these types.
//! - [`close`]: the WebSocket close codes the server sends, such as [`close::SERVER_RESTARTING`].

mod client;
pub mod close;
mod error;
mod http;
pub mod schema;
mod seat;
mod server;
mod settings;
mod views;

pub use client::{ClientMessage, ClientRequest};
pub use error::ErrorCode;
pub use http::{CreateRoomResponse, ErrorBody, GameHistory, PlyRecord, RoomInfo};
pub use seat::{NotASeat, SeatIndex, SeatSet};
pub use server::{Event, GameChange, ServerMessage};
pub use settings::{
    CpuLevel, DEFAULT_PREMOVES, GameClock, PromotionChoice, Settings, SettingsPatch,
};
pub use views::{
    ArmyState, BoardShape, ChatChannel, ChatLine, ClaimRule, Clock, GameFormat, GameResult,
    GameStatus, GameView, LegalMoves, Limits, MovedEvent, Occupant, PremoveQueue, PremovesDropped,
    Presence, ResignationRule, RulesView, SeatView, SessionPoints, SessionView, Snapshot,
};

/// The protocol version a client and the server must agree on.
pub const PROTOCOL_VERSION: u32 = 1;
