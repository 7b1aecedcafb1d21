//! The error of the move-text readers ([`super::parse_move`] and [`super::parse_san`]).

use thiserror::Error;

/// Why a move text does not name exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseMoveError {
    /// The text does not read as move notation at all.
    #[error("malformed move {text:?}: {reason}")]
    Malformed {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text reads as a move, but no legal move of the army to move matches it.
    #[error("no legal move matches {0:?}")]
    NoSuchMove(String),
    /// More than one legal move matches the text.
    #[error("{0:?} matches more than one legal move")]
    Ambiguous(String),
    /// The move is a promotion, but the text does not say what the pawn becomes.
    #[error("{0:?} is a promotion: say what the pawn becomes, like =Q")]
    MissingPromotion(String),
}

impl ParseMoveError {
    /// A short stable code for the error, for protocols and logs: `malformed`, `no-such-move`,
    /// `ambiguous` or `missing-promotion`.
    pub const fn code(&self) -> &'static str {
        match self {
            ParseMoveError::Malformed { .. } => "malformed",
            ParseMoveError::NoSuchMove(_) => "no-such-move",
            ParseMoveError::Ambiguous(_) => "ambiguous",
            ParseMoveError::MissingPromotion(_) => "missing-promotion",
        }
    }

    pub(crate) fn malformed(text: &str, reason: &'static str) -> ParseMoveError {
        ParseMoveError::Malformed {
            text: text.to_owned(),
            reason,
        }
    }
}
