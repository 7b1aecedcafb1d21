//! The game around the searched position: the free-for-all points, who made each standing mate,
//! and each army's material, made and unmade along with the moves. What a move means beyond the
//! board is the engine's referee's to decide ([`crate::game::referee`]), the same referee a
//! [`crate::Game`] asks, so the search sees exactly the results a game would.

use crate::army::{Army, ArmySet, ByArmy};
use crate::game::DrawReason;
use crate::game::referee::{AfterMove, Before, Decision, Referee, Unrecorded, watches_checks};
use crate::moves::Move;
use crate::piece::Role;
use crate::position::{Position, StatusSnapshot, Undo};
use crate::rules::{Format, RuleSet};

use crate::board::{at, role_bits};
use crate::square::Square;

use super::eval::{POINT, VALUE, pawn_progress};

/// The score of a won game, before the distance to it is taken off (so that quicker wins and
/// slower losses are preferred).
pub(crate) const MATE: i32 = 100_000;
/// Scores beyond this are wins or losses at a known distance.
pub(crate) const MATE_BOUND: i32 = MATE - 1_000;
/// A free-for-all finished with the bot ahead of everyone (points decide beyond this).
pub(crate) const FFA_WIN: i32 = 50_000;

/// What the game state held before a move or a turn start changed it.
#[derive(Clone, Copy)]
struct Saved {
    points: ByArmy<i32>,
    mate_made_by: ByArmy<Option<Army>>,
    last_mover: Option<Army>,
    /// The statuses before the referee's eliminations (restored only if it made some).
    statuses: StatusSnapshot,
}

/// What a move did, to take it back.
#[derive(Clone, Copy)]
pub(crate) struct Made {
    undo: Undo,
    material: [i32; 4],
    saved: Saved,
    /// The end of the game, if the move brought it.
    pub(crate) decision: Option<Decision>,
}

/// What a turn start without a legal move did, to take it back.
#[derive(Clone, Copy)]
pub(crate) struct Stuck {
    saved: Saved,
    /// The end of the game, if it came with it.
    pub(crate) decision: Option<Decision>,
}

/// The rules, the running free-for-all score, who made each mate still to be decided, the army
/// that moved last, and each army's material with its pawns' progress, kept up to date move by
/// move (computing the material afresh at every quiescence node took a fifth of the search time
/// in the profile).
pub(crate) struct GameState {
    pub(crate) rules: RuleSet,
    pub(crate) points: ByArmy<i32>,
    pub(crate) material: [i32; 4],
    mate_made_by: ByArmy<Option<Army>>,
    last_mover: Option<Army>,
    /// What the referee found right after the last move made: the next node's
    /// [`GameState::before`] reuses it (finding the armies in check and mated again was a
    /// quarter of the free-for-all search's time in the profile).
    after: Option<AfterMove>,
}

impl GameState {
    /// The state of a game at `pos`: its `points`, `mate_made_by` (see
    /// [`crate::Game::mates_made_by`]) and the army that moved last.
    pub(crate) fn new(
        rules: RuleSet,
        pos: &Position,
        points: ByArmy<i32>,
        mate_made_by: ByArmy<Option<Army>>,
        last_mover: Option<Army>,
    ) -> GameState {
        GameState {
            rules,
            points,
            material: GameState::count_material(pos, rules.promotion_rank),
            mate_made_by,
            last_mover,
            after: None,
        }
    }

    #[inline]
    pub(crate) fn ffa(&self) -> bool {
        self.rules.format == Format::FreeForAll
    }

    /// What the referee needs of `pos` before any of its moves is made (the same for every
    /// move from it).
    #[inline]
    pub(crate) fn before(&self, pos: &Position) -> Before {
        if let Some(after) = self.after.filter(|after| after.hash == pos.hash) {
            return Before::after::<Unrecorded>(&self.rules, pos, &after);
        }
        let checked = if watches_checks::<Unrecorded>(&self.rules) {
            pos.checked_armies()
        } else {
            ArmySet::EMPTY
        };
        Before::of::<Unrecorded>(&self.rules, pos, pos.turn, checked, self.last_mover)
    }

    #[inline]
    fn save(&self, pos: &Position) -> Saved {
        Saved {
            points: self.points,
            mate_made_by: self.mate_made_by,
            last_mover: self.last_mover,
            statuses: pos.status_snapshot(),
        }
    }

    #[inline]
    fn restore(&mut self, pos: &mut Position, saved: Saved) {
        if pos.statuses_changed_since(&saved.statuses) {
            pos.restore_statuses(saved.statuses);
        }
        self.points = saved.points;
        self.mate_made_by = saved.mate_made_by;
        self.last_mover = saved.last_mover;
    }

    /// Plays `mv` and has the referee settle what it means (`before` from
    /// [`GameState::before`]).
    #[inline]
    pub(crate) fn make(&mut self, pos: &mut Position, mv: Move, before: &Before) -> Made {
        let mover = pos.turn;
        let material = self.material;
        let piece = pos
            .piece_at(mv.from())
            .expect("a generated move starts on a piece");
        self.update_material(pos, mv);
        let undo = pos.play_unchecked(mv);
        let saved = self.save(pos);
        let settled = Referee::new(
            &self.rules,
            pos,
            &mut self.points,
            &mut self.mate_made_by,
            &mut Unrecorded,
        )
        .settle_move(mover, mv, piece, undo.captured(), before);
        self.last_mover = Some(mover);
        self.after = settled.after;
        Made {
            undo,
            material,
            saved,
            decision: settled.decision,
        }
    }

    /// Takes back what [`GameState::make`] did.
    #[inline]
    pub(crate) fn unmake(&mut self, pos: &mut Position, made: Made) {
        self.restore(pos, made.saved);
        pos.undo(made.undo);
        self.material = made.material;
    }

    /// The army to move has no legal move: the referee decides what that means (mated or
    /// stalemated; in free-for-all the army is out and the turn passes on).
    pub(crate) fn no_legal_move(&mut self, pos: &mut Position) -> Stuck {
        let saved = self.save(pos);
        let decision = Referee::new(
            &self.rules,
            pos,
            &mut self.points,
            &mut self.mate_made_by,
            &mut Unrecorded,
        )
        .no_legal_move();
        Stuck { saved, decision }
    }

    /// Takes back [`GameState::no_legal_move`].
    pub(crate) fn unstick(&mut self, pos: &mut Position, stuck: Stuck) {
        self.restore(pos, stuck.saved);
    }

    /// The value to `root` of a draw by rule (`reason`) now: nothing in Teams and Duo; in
    /// free-for-all the points the referee gives for it decide.
    pub(crate) fn draw_value(&mut self, pos: &mut Position, root: Army, reason: DrawReason) -> i32 {
        if !self.ffa() {
            return 0;
        }
        let points = self.points;
        Referee::new(
            &self.rules,
            pos,
            &mut self.points,
            &mut self.mate_made_by,
            &mut Unrecorded,
        )
        .draw(reason);
        let value = standings(&self.points, root);
        self.points = points;
        value
    }

    /// Each army's material and pawn progress in `pos`, from scratch.
    pub(crate) fn count_material(pos: &Position, promotion_rank: u8) -> [i32; 4] {
        Army::ALL.map(|army| {
            pos.occupied[army.index()]
                .iter()
                .map(|sq| piece_value(pos, sq, at(&pos.cells, sq), promotion_rank))
                .sum()
        })
    }

    /// Changes the material for `mv`, about to be played in `pos`.
    #[inline]
    fn update_material(&mut self, pos: &Position, mv: Move) {
        if mv.castle_side().is_some() {
            return;
        }
        let rank = self.rules.promotion_rank;
        let mover = pos.turn.index();
        let code = at(&pos.cells, mv.from());
        let landed = match mv.promotion() {
            Some(role) => role as u8 | (mover as u8) << 3 | pos.rules.promoted_bit(),
            None => code,
        };
        self.material[mover] +=
            piece_value(pos, mv.to(), landed, rank) - piece_value(pos, mv.from(), code, rank);
        let victim_sq = if mv.is_en_passant() {
            pos.en_passant
                .iter()
                .find(|ep| ep[0] == mv.to().cell())
                .map_or(mv.to(), |ep| Square::from_cell(ep[1]))
        } else {
            mv.to()
        };
        let victim = at(&pos.cells, victim_sq);
        if victim != 0 {
            self.material[usize::from((victim >> 3) & 3)] -=
                piece_value(pos, victim_sq, victim, rank);
        }
    }
}

/// What a piece adds to its army's material: its value, and for a pawn its progress.
#[inline]
fn piece_value(pos: &Position, sq: Square, code: u8, promotion_rank: u8) -> i32 {
    let role = role_bits(code);
    let army = Army::ALL[usize::from((code >> 3) & 3)];
    VALUE[role as usize]
        + if role == Role::Pawn as u8 {
            pawn_progress(pos, army, sq, promotion_rank)
        } else {
            0
        }
}

/// The value to `root` of a finished free-for-all with these points.
pub(crate) fn standings(points: &ByArmy<i32>, root: Army) -> i32 {
    let points = &points.0;
    let r = root.index();
    let best_other = (0..4)
        .filter(|&a| a != r)
        .map(|a| points[a])
        .max()
        .unwrap_or(0);
    let margin = (points[r] - best_other) * POINT;
    match points[r].cmp(&best_other) {
        std::cmp::Ordering::Greater => FFA_WIN + margin,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Less => -FFA_WIN + margin,
    }
}

#[cfg(test)]
mod tests;
