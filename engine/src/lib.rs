//! The rules of four-player chess.
#![doc = include_str!("../README.md")]

mod army;
mod board;
pub mod bot;
mod checks;
pub mod game;
mod geometry;
mod movegen;
mod moves;
pub mod notation;
mod perft;
mod piece;
mod position;
mod rules;
mod setup;
mod square;
mod square_set;
mod zobrist;

pub use army::{Army, ArmySet, ByArmy};
pub use board::ArmyStatus;
pub use game::{DrawReason, FfaEnding, Game, GameError, Outcome, Seat, Team, WinReason};
pub use geometry::{BoardKind, CastleSide};
pub use moves::{MAX_MOVES, Move, MoveKind, MoveList};
pub use perft::{divide, perft};
pub use piece::{Piece, Role};
pub use position::{IllegalMove, Position, PositionError, StatusUndo, Undo};
pub use rules::{
    FfaScoring, Format, LeadEnding, MateTiming, ParsePresetError, Preset, PromotionSet,
    Resignation, RuleSet, RuleSetError,
};
pub use setup::{EnPassant, Setup};
pub use square::{ParseSquareError, Square};
pub use square_set::{SquareSet, SquareSetIter};
