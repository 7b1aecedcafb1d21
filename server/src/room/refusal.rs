//! Why a request was refused. A refused request changed nothing; its client is told the
//! refusal's code and message.

use fourkings_engine::game::GameError;
use fourkings_protocol::ErrorCode;

use super::rules::SettingsError;
use crate::storage::health::StorageDown;

/// A request the room refused, with what the client is told.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// A `since` past the room's version: the client knows of events the room never had.
    #[error("the room is at version {at}")]
    AheadOfRoom {
        /// The room's version.
        at: u64,
    },
    /// The token does not hold the seat it was sent for.
    #[error("this token does not hold that seat")]
    WrongSeatToken,
    /// Something only the host may do, without the host token.
    #[error("only the host may do this")]
    NotHost,
    /// Seats and settings are fixed once the game has started.
    #[error("the game has started: seats and settings are fixed")]
    AlreadyStarted,
    /// A player's name that is blank or too long.
    #[error("a name has 1 to {max} characters")]
    BadName {
        /// The most characters a name may have.
        max: usize,
    },
    /// The seat is not free for this.
    #[error("{0}")]
    SeatTaken(&'static str),
    /// Nobody sits in the seat this needs a person in.
    #[error("{0}")]
    SeatEmpty(&'static str),
    /// Settings that no game can be played with.
    #[error(transparent)]
    InvalidSettings(#[from] SettingsError),
    /// A game request before the first game.
    #[error("the game has not started")]
    NotStarted,
    /// A game request after the result.
    #[error("the game is over")]
    GameOver,
    /// A move sent for another ply than the one the game is at.
    #[error("the move is for ply {ply} but {played} plies have been played")]
    StalePly {
        /// The ply the move was sent for.
        ply: u32,
        /// The plies played.
        played: u32,
    },
    /// A move from a seat whose turn it is not.
    #[error("it is not this seat's turn")]
    NotYourTurn,
    /// A premove beyond the queue the room allows.
    #[error("a seat may queue {max} premoves in this room")]
    PremovesFull {
        /// The room's limit (0: premoves are off).
        max: u32,
    },
    /// A move after the turn limit ran out (the CPU plays the turn).
    #[error("the turn limit ran out: the CPU is playing this move")]
    TimeUp,
    /// A move text that is not a move in coordinate form on the game's board.
    #[error("{error}")]
    BadMove {
        /// The text sent.
        text: String,
        /// Why it is not one.
        error: fourkings_engine::notation::CoordinateError,
    },
    /// A move in coordinate form that is not legal in the position.
    #[error("{text} is not a legal move here")]
    IllegalMove {
        /// The text sent.
        text: String,
    },
    /// A stored walking king's move that is not the move the king has.
    #[error("{text} is not the walking king's move")]
    NotTheWalkingKingsMove {
        /// The stored text.
        text: String,
    },
    /// A Duo claim with no opponent gone past the grace period.
    #[error("no opponent has been away past the grace period")]
    NobodyAbandoned,
    /// A rematch before the result.
    #[error("a rematch starts after a result")]
    NotFinished,
    /// A chat message of no or too many characters.
    #[error("a chat message has 1 to {max} characters")]
    ChatLength {
        /// The most characters a message may have.
        max: usize,
    },
    /// A chat message in a channel its writer may not write in, or without what it needs.
    #[error("{0}")]
    BadChat(&'static str),
    /// Something the room's rules do not allow now.
    #[error("{0}")]
    NotAllowed(&'static str),
    /// More chat messages in a minute than a connection may send.
    #[error("at most {limit} chat messages a minute")]
    ChatLimited {
        /// Messages a minute.
        limit: usize,
    },
    /// The game's own refusal.
    #[error(transparent)]
    Game(#[from] GameError),
    /// Storage takes no writes now, and this request would need one.
    #[error("{0}: nothing was changed; try again in a moment")]
    StorageUnavailable(#[from] StorageDown),
}

impl Refusal {
    /// The protocol's code for the refusal.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            Refusal::AheadOfRoom { .. } => ErrorCode::BadVersion,
            Refusal::WrongSeatToken => ErrorCode::BadToken,
            Refusal::NotHost => ErrorCode::NotHost,
            Refusal::AlreadyStarted => ErrorCode::AlreadyStarted,
            Refusal::BadName { .. } => ErrorCode::BadName,
            Refusal::SeatTaken(_) => ErrorCode::SeatTaken,
            Refusal::SeatEmpty(_) => ErrorCode::SeatEmpty,
            Refusal::InvalidSettings(_) => ErrorCode::InvalidSettings,
            Refusal::NotStarted => ErrorCode::NotStarted,
            Refusal::GameOver => ErrorCode::GameOver,
            Refusal::StalePly { .. } => ErrorCode::StalePly,
            Refusal::NotYourTurn => ErrorCode::NotYourTurn,
            Refusal::TimeUp => ErrorCode::TimeUp,
            Refusal::PremovesFull { .. } => ErrorCode::PremovesFull,
            Refusal::BadMove { .. } => ErrorCode::BadMove,
            Refusal::IllegalMove { .. } | Refusal::NotTheWalkingKingsMove { .. } => {
                ErrorCode::IllegalMove
            }
            Refusal::NobodyAbandoned => ErrorCode::CannotClaim,
            Refusal::NotFinished => ErrorCode::NotFinished,
            Refusal::ChatLength { .. } | Refusal::BadChat(_) => ErrorCode::BadChat,
            Refusal::NotAllowed(_) => ErrorCode::NotAllowed,
            Refusal::ChatLimited { .. } => ErrorCode::ChatLimited,
            Refusal::StorageUnavailable(_) => ErrorCode::StorageUnavailable,
            Refusal::Game(error) => match error {
                GameError::GameOver => ErrorCode::GameOver,
                GameError::NotYourTurn { .. } => ErrorCode::NotYourTurn,
                GameError::NotInGame | GameError::WalkingKing => ErrorCode::NotInGame,
                GameError::IllegalMove(_) => ErrorCode::IllegalMove,
                GameError::TakenBack(_) => ErrorCode::TakenBack,
                GameError::NotAllowed(_) => ErrorCode::NotAllowed,
                GameError::NoLifelines => ErrorCode::NoLifelines,
                GameError::NothingToTakeBack => ErrorCode::NothingToTakeBack,
                GameError::NoAlternative => ErrorCode::NoAlternative,
                GameError::NoDrawOffer => ErrorCode::NoDrawOffer,
                GameError::NoResignationRequest => ErrorCode::NoResignationRequest,
                GameError::CannotClaim => ErrorCode::CannotClaim,
            },
        }
    }
}
