//! Move ordering: the move the table remembers, king captures, captures by most valuable victim
//! and least valuable attacker, promotions, killer moves, then quiet moves by their history.
//! Alpha-beta prunes the most when the best move comes first.

use crate::army::Army;
use crate::board::{at, role_bits};
use crate::moves::{Move, MoveList};
use crate::piece::Role;
use crate::position::Position;

use super::eval::VALUE;

/// The deepest ply the search tracks killers for.
pub(crate) const MAX_PLY: usize = 128;

const TT_MOVE: i32 = 3_000_000;
const KING_CAPTURE: i32 = 2_000_000;
const CAPTURE: i32 = 1_000_000;
const PROMOTION: i32 = 900_000;
const KILLER: [i32; 2] = [800_000, 790_000];
/// History scores stay below this, under the killers.
const HISTORY_CAP: i32 = 500_000;

/// What the search learns about quiet moves as it goes.
pub(crate) struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    /// Indexed by army, role of the moving piece and target cell.
    history: Vec<i32>,
}

impl Heuristics {
    pub(crate) fn new() -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 4 * 8 * 256],
        }
    }

    #[inline]
    fn history_index(army: Army, role: u8, mv: Move) -> usize {
        (army.index() * 8 + role as usize) * 256 + mv.to().cell() as usize
    }

    /// A quiet move caused a cutoff at `ply` after a search of `depth`.
    pub(crate) fn reward(&mut self, pos: &Position, mv: Move, ply: usize, depth: i32) {
        let killers = &mut self.killers[ply.min(MAX_PLY)];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let role = role_bits(at(&pos.cells, mv.from()));
        let h = &mut self.history[Self::history_index(pos.turn, role, mv)];
        *h += depth * depth;
        if *h > HISTORY_CAP {
            // Age every entry so that recent experience counts more.
            for v in &mut self.history {
                *v /= 2;
            }
        }
    }
}

/// The victim of `mv` in `pos`, if it captures anything (the code of the piece taken).
#[inline]
pub(crate) fn victim(pos: &Position, mv: Move) -> u8 {
    if mv.is_en_passant() {
        // The pawn taken stands elsewhere; any pawn will do for ordering.
        return Role::Pawn as u8;
    }
    if mv.castle_side().is_some() {
        return 0;
    }
    at(&pos.cells, mv.to())
}

/// Whether `mv` takes a piece of an army that is still playing against the mover (not a grey
/// piece, not its own piece in Duo).
#[inline]
pub(crate) fn is_live_capture(pos: &Position, mv: Move) -> bool {
    let code = victim(pos, mv);
    if code == 0 {
        return false;
    }
    if mv.is_en_passant() {
        return true;
    }
    let army = Army::ALL[((code >> 3) & 3) as usize];
    pos.is_enemy(pos.turn, army) && pos.status[army] == crate::board::ArmyStatus::Playing
}

/// Whether `mv` captures a king.
#[inline]
pub(crate) fn is_king_capture(pos: &Position, mv: Move) -> bool {
    let code = victim(pos, mv);
    code != 0 && role_bits(code) == Role::King as u8 && !mv.is_en_passant()
}

/// Ordering scores, one per move (filled as needed, never zeroed in bulk).
pub(crate) type Scores = arrayvec::ArrayVec<i32, { crate::moves::MAX_MOVES }>;

/// Scores every move of `moves` for ordering, best first.
pub(crate) fn score_moves(
    pos: &Position,
    moves: &MoveList,
    tt_move: Option<Move>,
    heuristics: &Heuristics,
    ply: usize,
    scores: &mut Scores,
) {
    let killers = heuristics.killers[ply.min(MAX_PLY)];
    scores.clear();
    for mv in moves.iter() {
        let score = if Some(*mv) == tt_move {
            TT_MOVE
        } else if is_king_capture(pos, *mv) {
            KING_CAPTURE
        } else if is_live_capture(pos, *mv) {
            let victim = VALUE[role_bits(victim(pos, *mv)) as usize];
            let attacker = VALUE[role_bits(at(&pos.cells, mv.from())) as usize];
            CAPTURE + victim * 16 - attacker / 16
        } else if let Some(role) = mv.promotion() {
            PROMOTION + VALUE[role as usize]
        } else if killers[0] == Some(*mv) {
            KILLER[0]
        } else if killers[1] == Some(*mv) {
            KILLER[1]
        } else {
            let role = role_bits(at(&pos.cells, mv.from()));
            heuristics.history[Heuristics::history_index(pos.turn, role, *mv)]
        };
        scores.push(score);
    }
}

/// Swaps the best-scored move among `moves[i..]` into place `i` (a selection sort done lazily:
/// after a cutoff the rest never needs sorting).
#[inline]
pub(crate) fn pick(moves: &mut MoveList, scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}

/// Whether a move counts as quiet (neither capture nor promotion): only quiet moves are reduced
/// and remembered as killers.
#[inline]
pub(crate) fn is_quiet(pos: &Position, mv: Move) -> bool {
    victim(pos, mv) == 0 && mv.promotion().is_none()
}
