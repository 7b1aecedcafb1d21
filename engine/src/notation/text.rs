//! The text of a played move, in the notation of its board.

use crate::game::Ply;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::{Format, RuleSet};

use super::lan::{MoveSuffix, write_move_body};
use super::san::write_san;

/// The text of a move being played: long algebraic with the game's check and mate marks on the
/// cross board, SAN in Duo. It is begun on the position before the move and finished once the
/// move is settled, so that playing a move needs no copy of the position before it (kilobytes,
/// copied for every move a server plays).
pub(crate) enum MoveText {
    /// Long algebraic, waiting for its marks, which depend on how the game settles the move.
    Unmarked(String),
    /// SAN, whose marks are the plain chess ones and known from the position alone.
    Complete(String),
}

impl MoveText {
    /// Begins the text of `mv`, about to be played in `before`.
    pub(crate) fn begin(before: &Position, rules: &RuleSet, mv: Move) -> MoveText {
        match rules.format {
            Format::Duo => MoveText::Complete(write_san(before, mv)),
            _ => MoveText::Unmarked(write_move_body(before, mv)),
        }
    }

    /// The whole text, with the marks of the settled `ply`.
    pub(crate) fn finish(self, ply: &Ply) -> String {
        match self {
            MoveText::Complete(text) => text,
            MoveText::Unmarked(mut text) => {
                // The mark of a player who left before their king's first walk is the PGN4
                // writer's: the game's own text of the move does not carry it.
                let suffix = MoveSuffix {
                    checks: ply.checks.len() as u8,
                    mates: ply.mates,
                    left: None,
                };
                let _ = suffix.write_to(&mut text);
                text
            }
        }
    }
}
