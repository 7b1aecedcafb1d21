//! Records: every change to a room's state that must survive a restart, as stored. A room writes
//! one record for each change it makes, and a restarted server applies the records in order to
//! rebuild the room exactly. Published events are not stored, only the room's event version: a
//! client that comes back after a restart with an older version gets a snapshot.

use fourkings_protocol::{ChatLine, CpuLevel, SeatIndex, SeatSet, Settings};
use serde::{Deserialize, Serialize};

use super::events::Audience;
use super::seating::SeatSlot;
use super::session::Session;

/// A seat's occupant, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum StoredSlot {
    Empty,
    Human { name: String, token: String },
    Cpu { level: CpuLevel },
}

impl From<&SeatSlot> for StoredSlot {
    fn from(slot: &SeatSlot) -> StoredSlot {
        match slot {
            SeatSlot::Empty => StoredSlot::Empty,
            SeatSlot::Human { name, token } => StoredSlot::Human {
                name: name.clone(),
                token: token.clone(),
            },
            SeatSlot::Cpu { level } => StoredSlot::Cpu { level: *level },
        }
    }
}

impl From<&StoredSlot> for SeatSlot {
    fn from(slot: &StoredSlot) -> SeatSlot {
        match slot {
            StoredSlot::Empty => SeatSlot::Empty,
            StoredSlot::Human { name, token } => SeatSlot::Human {
                name: name.clone(),
                token: token.clone(),
            },
            StoredSlot::Cpu { level } => SeatSlot::Cpu { level: *level },
        }
    }
}

/// A player's absence, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum StoredAbsence {
    /// Here.
    Present,
    /// Away until the grace period ends at `deadline` (ms since the epoch).
    Away { deadline: u64 },
    /// Away past the grace period.
    GraceOver,
}

/// What a game did, replayed through the engine in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum GameAction {
    Move {
        seat: SeatIndex,
        mv: String,
        automatic: bool,
        /// The seat's first premove, played as its turn began (it leaves the queue).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        premove: bool,
    },
    Walk {
        mv: String,
    },
    Resign {
        seat: SeatIndex,
    },
    AnswerResignation {
        seat: SeatIndex,
        accept: bool,
    },
    OfferDraw {
        seat: SeatIndex,
    },
    AcceptDraw {
        seat: SeatIndex,
    },
    DeclineDraw {
        seat: SeatIndex,
    },
    TakeBack {
        seat: SeatIndex,
    },
    ClaimWin {
        seat: SeatIndex,
    },
    TimeOut {
        seat: SeatIndex,
    },
    Abandon {
        seat: SeatIndex,
    },
}

/// One change to a room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub(crate) enum Record {
    /// The room was created.
    Created {
        settings: Settings,
        host_token: String,
    },
    /// A seat's occupant changed.
    Seat { seat: SeatIndex, slot: StoredSlot },
    /// Everyone moved: the occupant of seat `s` now sits in `to[s]`.
    Permute { to: [SeatIndex; 4] },
    /// The settings changed.
    Settings { settings: Settings },
    /// The host role moved (a new token).
    Host {
        token: String,
        seat: Option<SeatIndex>,
    },
    /// The host sat down in a seat, or left it.
    HostSeat { seat: Option<SeatIndex> },
    /// A game began (the rules come from the settings at this point).
    GameStarted { seed: u64, first_seat: SeatIndex },
    /// The game did something.
    Game { action: GameAction },
    /// The current turn's limit ran out: the CPU plays this move.
    TurnExpired,
    /// A seat queued a move for its turn.
    Premove { seat: SeatIndex, mv: String },
    /// A seat's premove queue was emptied (by its player, or by the room).
    PremovesCleared { seat: SeatIndex },
    /// A player left or came back.
    Absence {
        seat: SeatIndex,
        absence: StoredAbsence,
    },
    /// A chat line with its readers.
    Chat {
        audience: StoredAudience,
        line: ChatLine,
    },
    /// The first seat of the next game.
    FirstSeat { seat: SeatIndex },
    /// The switch-partners session as it is now.
    Session { session: Option<Session> },
}

/// An audience, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum StoredAudience {
    Everyone,
    Spectators,
    Seats { mask: u8 },
}

impl From<Audience> for StoredAudience {
    fn from(audience: Audience) -> StoredAudience {
        match audience {
            Audience::Everyone => StoredAudience::Everyone,
            Audience::Spectators => StoredAudience::Spectators,
            Audience::Seats(seats) => StoredAudience::Seats { mask: seats.bits() },
        }
    }
}

impl From<StoredAudience> for Audience {
    fn from(audience: StoredAudience) -> Audience {
        match audience {
            StoredAudience::Everyone => Audience::Everyone,
            StoredAudience::Spectators => Audience::Spectators,
            StoredAudience::Seats { mask } => Audience::Seats(SeatSet::from_bits(mask)),
        }
    }
}

/// Why a stored record cannot be applied, whatever the room's state: it holds something the
/// server never writes (someone or something changed it on disk).
#[derive(Debug, thiserror::Error)]
pub(crate) enum InvalidRecord {
    /// Its settings are not settings a room can have.
    #[error("its settings are invalid")]
    Settings(#[source] super::rules::SettingsError),
    /// A token that is not shaped like the server's tokens.
    #[error("it holds a token of the wrong shape")]
    Token,
    /// A player's name that is empty.
    #[error("it names a player with an empty name")]
    EmptyName,
}

impl Record {
    /// Checks what a stored record holds on its own, before it is applied (which checks it
    /// against the room's state): the settings, tokens and names a record read back from disk
    /// carries must be ones the server could have written.
    pub(crate) fn check_stored(&self) -> Result<(), InvalidRecord> {
        use crate::ids::is_token;
        match self {
            Record::Created {
                settings,
                host_token,
            } => {
                super::rules::validate(settings).map_err(InvalidRecord::Settings)?;
                is_token(host_token)
                    .then_some(())
                    .ok_or(InvalidRecord::Token)
            }
            Record::Settings { settings } => {
                super::rules::validate(settings).map_err(InvalidRecord::Settings)
            }
            Record::Host { token, .. } => is_token(token).then_some(()).ok_or(InvalidRecord::Token),
            Record::Seat {
                slot: StoredSlot::Human { name, token },
                ..
            } => {
                if name.trim().is_empty() {
                    return Err(InvalidRecord::EmptyName);
                }
                is_token(token).then_some(()).ok_or(InvalidRecord::Token)
            }
            _ => Ok(()),
        }
    }
}
