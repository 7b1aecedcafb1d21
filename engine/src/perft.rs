//! Perft: counting the leaves of the legal move tree, to check move generation against known
//! numbers and to measure its speed.

use crate::moves::Move;
use crate::piece::Role;
use crate::position::Position;
use crate::rules::Format;

/// Counts the move sequences of exactly `depth` plies from `pos`. The last ply is counted in bulk.
///
/// A king capture is a legal move; in Teams it ends the game, so it is counted but not expanded.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            let moves = pos.legal_moves();
            let mut nodes = 0;
            for &mv in &moves {
                nodes += perft_child(pos, mv, depth);
            }
            nodes
        }
    }
}

/// The nodes under each legal move (`--divide`).
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves.iter().map(|&mv| (mv, if depth <= 1 { 1 } else { perft_child(pos, mv, depth) })).collect()
}

fn perft_child(pos: &mut Position, mv: Move, depth: u32) -> u64 {
    let undo = pos.play_unchecked(mv);
    let ends_game = match undo.captured() {
        Some(p) if p.role == Role::King => pos.rules.format != Format::FreeForAll,
        _ => false,
    };
    let nodes = if ends_game { 0 } else { perft(pos, depth - 1) };
    pos.undo(undo);
    nodes
}
