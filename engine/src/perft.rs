//! Perft: counting the leaves of the legal move tree, to check move generation against known
//! numbers and to measure its speed.
//!
//! Perft follows the rules that decide who is to move and when the game is over, as far as they
//! depend on the position alone: a king capture ends Teams (counted, not expanded), puts the
//! victim out of a free-for-all; mates decided at once end the game or eliminate; in free-for-all a
//! player without a legal move at turn start is out and the turn passes on; a free-for-all with
//! one player left is over. Like every perft, it ignores draws by rule and endings that depend on
//! points or agreements.

use crate::army::{Army, ArmySet};
use crate::board::ArmyStatus;
use crate::moves::Move;
use crate::piece::Role;
use crate::position::{Position, StatusUndo};
use crate::rules::{Format, MateTiming};

/// Counts the move sequences of exactly `depth` plies from `pos` under the rules it was built
/// with. The last ply is counted in bulk.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            let moves = pos.legal_moves();
            moves.iter().map(|&mv| perft_child(pos, mv, depth)).sum()
        }
    }
}

/// The nodes under each legal move (`--divide`).
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&mv| {
            (
                mv,
                if depth <= 1 {
                    1
                } else {
                    perft_child(pos, mv, depth)
                },
            )
        })
        .collect()
}

fn perft_child(pos: &mut Position, mv: Move, depth: u32) -> u64 {
    let mover = pos.turn();
    let undo = pos.play_unchecked(mv);
    let mut eliminated: Vec<StatusUndo> = Vec::new();
    let over = settle(
        pos,
        mover,
        undo.captured()
            .filter(|p| p.role == Role::King)
            .map(|p| p.army),
        &mut eliminated,
    );
    let nodes = if over { 0 } else { perft(pos, depth - 1) };
    while let Some(status) = eliminated.pop() {
        pos.undo_status(status);
    }
    pos.undo(undo);
    nodes
}

/// Applies the eliminations a move causes; returns whether the game is over.
fn settle(
    pos: &mut Position,
    mover: Army,
    king_taken: Option<Army>,
    eliminated: &mut Vec<StatusUndo>,
) -> bool {
    let ffa = pos.rules.format == Format::FreeForAll;
    if let Some(victim) = king_taken {
        if !ffa {
            return true;
        }
        eliminated.push(pos.set_status(victim, ArmyStatus::Out));
    }
    if pos.rules.mate == MateTiming::Immediate {
        for army in Army::ALL {
            if pos.is_enemy(mover, army)
                && pos.is_check(army)
                && !pos.has_legal_move(army, ArmySet::seats_after(army, mover))
            {
                if !ffa {
                    return true;
                }
                eliminated.push(pos.set_status(army, ArmyStatus::Out));
            }
        }
    }
    if !ffa {
        return false;
    }
    loop {
        if Army::ALL
            .into_iter()
            .filter(|&a| pos.status(a) == ArmyStatus::Playing)
            .count()
            <= 1
        {
            return true;
        }
        let turn = pos.turn();
        if pos.has_legal_move(turn, ArmySet::ALL) {
            return false;
        }
        eliminated.push(pos.set_status(turn, ArmyStatus::Out));
    }
}
