//! The text of a played move, in the notation of its board.

use crate::game::Ply;
use crate::position::Position;
use crate::rules::{Format, RuleSet};

use super::lan::{MoveSuffix, write_move};
use super::san::write_san;

/// The move of `ply`, played in `before`, as text: long algebraic with the game's check and mate
/// marks on the cross board, SAN in Duo.
pub(crate) fn move_text(before: &Position, rules: &RuleSet, ply: &Ply) -> String {
    match rules.format {
        Format::Duo => write_san(before, ply.mv),
        _ => write_move(
            before,
            ply.mv,
            MoveSuffix {
                checks: ply.checks.len() as u8,
                mate: ply.mate,
                walking: ply.walking,
            },
        ),
    }
}
