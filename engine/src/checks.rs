//! Which kings a move puts in check: the checks PGN4 marks (`+`, `++`, `+++`) and free-for-all
//! scores.
//!
//! A move puts a king in check when, after it, some piece attacks that king that did not attack
//! it before: the piece that moved, or one whose line the move opened, whoever it belongs to. A
//! king that stays attacked only by the pieces that attacked it already is not put in check
//! again (a quiet move while two rooks of yours already stand on two kings gives no check). This
//! is chess.com's marking: it agrees with every mark of the real games in `tests/data/chesscom`.

use arrayvec::ArrayVec;

use crate::army::{Army, ArmySet};
use crate::piece::Role;
use crate::position::Position;
use crate::square::Square;
use crate::square_set::SquareSet;

/// The pieces attacking each king that is in check, taken before a move (few kings are, so the
/// attackers are looked for only where there are some).
#[derive(Clone, Debug, Default)]
pub(crate) struct KingAttackers(ArrayVec<(Army, SquareSet), 4>);

impl KingAttackers {
    /// The attackers of the kings of `checked` (the armies in check) in `pos`.
    pub(crate) fn of(pos: &Position, checked: ArmySet) -> KingAttackers {
        let mut attackers = KingAttackers::default();
        for army in checked.iter() {
            if let Some(king) = pos.king(army) {
                attackers.0.push((army, pos.attackers(king, army)));
            }
        }
        attackers
    }

    fn get(&self, army: Army) -> Option<SquareSet> {
        self.0.iter().find(|(a, _)| *a == army).map(|(_, set)| *set)
    }
}

/// The kings a move put in check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChecksGiven {
    /// Every king put in check, by anyone's piece (what `+` marks).
    pub(crate) kings: ArmySet,
    /// Those put in check by a piece of the mover's own.
    pub(crate) by_mover: ArmySet,
    /// Whether a queen of the mover's is among the pieces giving those checks (free-for-all
    /// then scores a double or triple check at the queen's lower rate).
    pub(crate) by_queen: bool,
}

/// The kings that the move of `mover`, which landed on `moved_to`, put in check: `after` is the
/// position right after it, `checked` its armies in check, `before` the attackers of the kings
/// that were in check before it.
pub(crate) fn checks_given(
    after: &Position,
    mover: Army,
    moved_to: Square,
    checked: ArmySet,
    before: &KingAttackers,
) -> ChecksGiven {
    let mut given = ChecksGiven::default();
    for army in checked.iter().filter(|&a| a != mover) {
        let Some(king) = after.king(army) else {
            continue;
        };
        let old = before.get(army).unwrap_or_default();
        let fresh = |sq: Square| sq == moved_to || !old.contains(sq);
        let attackers = after.attackers(king, army);
        let mut new = attackers.iter().filter(|&sq| fresh(sq)).peekable();
        if new.peek().is_none() {
            continue;
        }
        given.kings = given.kings.with(army);
        for piece in new.filter_map(|sq| after.piece_at(sq)) {
            if piece.army == mover {
                given.by_mover = given.by_mover.with(army);
                given.by_queen |= piece.role == Role::Queen;
            }
        }
    }
    given
}
