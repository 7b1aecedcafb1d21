//! Move ordering: the move the table remembers, king captures, captures that do not lose
//! material (most valuable victim, least valuable attacker), promotions, killer moves, captures
//! that may lose material, then quiet moves by what the search has learnt of them. Alpha-beta
//! prunes the most when the best move comes first.
//!
//! What it learns of quiet moves: a history by army, origin and target (rewarded when a move
//! causes a cutoff, penalised when it was tried before the one that did), and continuation
//! histories, the same by the piece and square of the moves one, two and four plies earlier (the
//! reply to an enemy's move, to a partner's, and to the army's own last move).

use crate::army::Army;
use crate::board::{at, role_bits};
use crate::moves::{Move, MoveList};
use crate::piece::Role;
use crate::position::Position;
use crate::square::Square;

use super::eval::VALUE;

/// The deepest ply the search tracks killers for.
pub(crate) const MAX_PLY: usize = 128;

const TT_MOVE: i32 = 3_000_000;
const KING_CAPTURE: i32 = 2_000_000;
const CAPTURE: i32 = 1_000_000;
const PROMOTION: i32 = 900_000;
const KILLER: [i32; 2] = [800_000, 790_000];
const LOSING_CAPTURE: i32 = 700_000;
/// How much history makes a ply of late move reduction, either way.
const HISTORY_PER_PLY: i32 = 12_000;
/// Every history entry stays within ±this (the update below converges to it).
const HISTORY_LIMIT: i32 = 16_384;
/// The squares of the 14×14 grid, for compact tables.
const SQUARES: usize = 196;
/// A move's piece and target, as continuation histories see it: 0 for none (the root's
/// predecessors, a null move).
pub(crate) type Context = u16;
/// How many contexts there are (roles 1–6, each on every square, and none).
const CONTEXTS: usize = 7 * SQUARES;
/// The plies back whose moves the continuation histories follow.
pub(crate) const CONTINUATION_PLIES: [usize; 3] = [1, 2, 4];

/// The compact index of a square of the 14×14 grid.
#[inline]
fn square_index(sq: Square) -> usize {
    usize::from(sq.rank()) * 14 + usize::from(sq.file())
}

/// The context of a move of a piece of `role` (its code's role bits) to `to`.
#[inline]
pub(crate) fn context(role: u8, to: Square) -> Context {
    (usize::from(role) * SQUARES + square_index(to)) as Context
}

/// What the search learns about quiet moves as it goes.
pub(crate) struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    /// Indexed by army, origin and target.
    history: Vec<i16>,
    /// Indexed by the context of an earlier move, then by the context of the reply.
    continuation: Vec<i16>,
}

/// Moves an entry towards ±[`HISTORY_LIMIT`] by `bonus`, less the closer it already is, so
/// that what was learnt long ago fades without a sweep over the table.
#[inline]
fn nudge(entry: &mut i16, bonus: i32) {
    let e = i32::from(*entry);
    *entry = (e + bonus - e * bonus.abs() / HISTORY_LIMIT) as i16;
}

impl Heuristics {
    pub(crate) fn new() -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 4 * SQUARES * SQUARES],
            continuation: vec![0; CONTEXTS * CONTEXTS],
        }
    }

    /// A placeholder with nothing allocated, never searched with.
    pub(crate) fn empty() -> Heuristics {
        Heuristics {
            killers: Vec::new(),
            history: Vec::new(),
            continuation: Vec::new(),
        }
    }

    /// Readies the heuristics for a new search: the killers are of the last search's plies,
    /// so they go; the histories stay, as what they learnt of moves still holds.
    pub(crate) fn begin_search(&mut self) {
        if self.history.is_empty() {
            *self = Heuristics::new();
        }
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    #[inline]
    fn history_index(army: Army, mv: Move) -> usize {
        (army.index() * SQUARES + square_index(mv.from())) * SQUARES + square_index(mv.to())
    }

    /// What the histories say of quiet move `mv` by a piece of `role` after the moves whose
    /// contexts are `earlier` (one per [`CONTINUATION_PLIES`]).
    #[inline]
    pub(crate) fn quiet_score(
        &self,
        army: Army,
        role: u8,
        mv: Move,
        earlier: &[Context; 3],
    ) -> i32 {
        let reply = usize::from(context(role, mv.to()));
        let mut score = i32::from(self.history[Self::history_index(army, mv)]);
        for &c in earlier {
            if c != 0 {
                score += i32::from(self.continuation[usize::from(c) * CONTEXTS + reply]);
            }
        }
        score
    }

    /// Nudges every history of quiet move `mv` by `bonus`.
    fn learn(&mut self, pos: &Position, mv: Move, earlier: &[Context; 3], bonus: i32) {
        let role = role_bits(at(&pos.cells, mv.from()));
        nudge(&mut self.history[Self::history_index(pos.turn, mv)], bonus);
        let reply = usize::from(context(role, mv.to()));
        for &c in earlier {
            if c != 0 {
                nudge(
                    &mut self.continuation[usize::from(c) * CONTEXTS + reply],
                    bonus,
                );
            }
        }
    }

    /// Quiet move `mv` caused a cutoff at `ply` after a search of `depth`, where the quiet
    /// moves `tried` had been searched before it without one.
    pub(crate) fn reward(
        &mut self,
        pos: &Position,
        mv: Move,
        tried: &[Move],
        earlier: &[Context; 3],
        ply: usize,
        depth: i32,
    ) {
        let killers = &mut self.killers[ply.min(MAX_PLY)];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (200 * depth - 100).clamp(0, 1_600);
        self.learn(pos, mv, earlier, bonus);
        for &other in tried {
            self.learn(pos, other, earlier, -bonus);
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
    earlier: &[Context; 3],
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
            let base = if victim < attacker && pos.is_attacked(mv.to(), pos.turn) {
                LOSING_CAPTURE
            } else {
                CAPTURE
            };
            base + victim * 16 - attacker / 16
        } else if let Some(role) = mv.promotion() {
            PROMOTION + VALUE[role as usize]
        } else if killers[0] == Some(*mv) {
            KILLER[0]
        } else if killers[1] == Some(*mv) {
            KILLER[1]
        } else {
            let role = role_bits(at(&pos.cells, mv.from()));
            heuristics.quiet_score(pos.turn, role, *mv, earlier)
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

/// How many plies less (negative: more) late move reductions take off a quiet move whose
/// ordering score is `score`: one for the table's move or a killer, otherwise up to two either
/// way by its histories.
#[inline]
pub(crate) fn reduction_relief(score: i32) -> i32 {
    if score >= KILLER[1] {
        1
    } else {
        (score / HISTORY_PER_PLY).clamp(-2, 2)
    }
}

/// Whether a move counts as quiet (neither capture nor promotion): only quiet moves are reduced
/// and remembered as killers.
#[inline]
pub(crate) fn is_quiet(pos: &Position, mv: Move) -> bool {
    victim(pos, mv) == 0 && mv.promotion().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen4;
    use crate::rules::Preset;

    /// Red's queen on e5 can take an undefended knight (e8) or a pawn the knight defends (g7).
    fn queen_and_two_captures() -> Position {
        let fen4 = "R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-\
            6,yK,7/14/14/14/14/14/4,bN,8,gK/bK,5,bP,7/14/4,rQ,9/14/14/14/7,rK,6";
        Position::from_setup(&parse_fen4(fen4).unwrap(), &Preset::Teams.rules()).unwrap()
    }

    fn find(moves: &MoveList, from: &str, to: &str) -> Move {
        let (from, to): (Square, Square) = (from.parse().unwrap(), to.parse().unwrap());
        *moves
            .iter()
            .find(|m| m.from() == from && m.to() == to)
            .unwrap()
    }

    fn score_of(pos: &Position, moves: &MoveList, h: &Heuristics, mv: Move) -> i32 {
        let mut scores = Scores::new();
        score_moves(pos, moves, None, h, 3, &[0; 3], &mut scores);
        scores[moves.iter().position(|&m| m == mv).unwrap()]
    }

    #[test]
    fn a_capture_that_may_lose_material_comes_after_the_killers() {
        let pos = queen_and_two_captures();
        let moves = pos.legal_moves();
        let winning = find(&moves, "e5", "e8");
        let losing = find(&moves, "e5", "g7");
        let killer = find(&moves, "e5", "e6");
        let quiet = find(&moves, "e5", "d5");
        let mut h = Heuristics::new();
        h.reward(&pos, killer, &[], &[0; 3], 3, 4);
        let s = |mv| score_of(&pos, &moves, &h, mv);
        assert!(s(winning) > s(killer), "an undefended knight first");
        assert!(s(killer) > s(losing), "then the killer");
        assert!(s(losing) > s(quiet), "then the pawn the knight defends");
    }

    #[test]
    fn a_cutoff_raises_the_move_and_lowers_the_quiet_moves_tried_before_it() {
        let pos = queen_and_two_captures();
        let moves = pos.legal_moves();
        let cut = find(&moves, "e5", "f5");
        let tried = [find(&moves, "e5", "d5"), find(&moves, "e5", "e4")];
        let untouched = find(&moves, "e5", "c5");
        let earlier = [context(Role::Knight as u8, "e8".parse().unwrap()), 0, 0];
        let mut h = Heuristics::new();
        h.reward(&pos, cut, &tried, &earlier, 3, 5);
        let score = |h: &Heuristics, mv| h.quiet_score(pos.turn, Role::Queen as u8, mv, &earlier);
        assert!(score(&h, cut) > 0);
        assert!(tried.iter().all(|&mv| score(&h, mv) < 0));
        assert_eq!(score(&h, untouched), 0);
        // The continuation history alone remembers the reply to the knight's move.
        let after_nothing = h.quiet_score(pos.turn, Role::Queen as u8, cut, &[0; 3]);
        assert!(score(&h, cut) > after_nothing && after_nothing > 0);
    }

    #[test]
    fn reductions_ease_for_a_killer_and_follow_the_histories_of_other_quiet_moves() {
        let pos = queen_and_two_captures();
        let moves = pos.legal_moves();
        let killer = find(&moves, "e5", "e6");
        let good = find(&moves, "e5", "f5");
        let bad = find(&moves, "e5", "d5");
        let untouched = find(&moves, "e5", "c5");
        let mut h = Heuristics::new();
        h.reward(&pos, killer, &[], &[0; 3], 3, 4);
        let earlier = [context(Role::Knight as u8, "e8".parse().unwrap()), 0, 0];
        for _ in 0..20 {
            h.reward(&pos, good, &[bad], &earlier, 5, 8);
        }
        let mut scores = Scores::new();
        score_moves(&pos, &moves, None, &h, 3, &earlier, &mut scores);
        let relief = |mv| reduction_relief(scores[moves.iter().position(|&m| m == mv).unwrap()]);
        assert_eq!(relief(killer), 1);
        assert_eq!(relief(good), 2, "a ply less for each 12,000, two at most");
        assert_eq!(relief(bad), -2);
        assert_eq!(relief(untouched), 0);
    }

    #[test]
    fn histories_stay_within_their_limit_however_often_they_are_nudged() {
        let mut entry = 0i16;
        for _ in 0..10_000 {
            nudge(&mut entry, 1_600);
            assert!(i32::from(entry) <= HISTORY_LIMIT);
        }
        assert!(i32::from(entry) > HISTORY_LIMIT * 9 / 10);
        for _ in 0..10_000 {
            nudge(&mut entry, -1_600);
            assert!(i32::from(entry) >= -HISTORY_LIMIT);
        }
        assert!(i32::from(entry) < -HISTORY_LIMIT * 9 / 10);
    }
}
