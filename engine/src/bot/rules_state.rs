//! The game around the searched position: what a move means beyond the board (a king captured, a
//! pawn breaking through, free-for-all points and eliminations), made and unmade along with the
//! move so that the search sees the same results a [`crate::Game`] would.

use crate::army::Army;
use crate::board::ArmyStatus;
use crate::game::capture_value;
use crate::moves::Move;
use crate::piece::Role;
use crate::position::{Position, StatusUndo, Undo};
use crate::rules::{Format, LeadEnding, RuleSet};

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

/// What a move did besides moving pieces.
#[derive(Clone, Copy)]
pub(crate) struct Made {
    undo: Undo,
    points: [i32; 4],
    material: [i32; 4],
    eliminated: Option<StatusUndo>,
    /// Teams and Duo: the mover's team won on the spot (king captured, pawn breakthrough).
    pub(crate) won: bool,
}

/// What an army's turn start did in free-for-all when it had no move.
#[derive(Clone, Copy)]
pub(crate) struct Eliminated {
    undo: StatusUndo,
    points: [i32; 4],
}

/// The rules, the running free-for-all score, and each army's material with its pawns'
/// progress, kept up to date move by move (computing it afresh at every quiescence node took a
/// fifth of the search time in the profile).
pub(crate) struct GameState {
    pub(crate) rules: RuleSet,
    pub(crate) points: [i32; 4],
    pub(crate) material: [i32; 4],
}

impl GameState {
    #[inline]
    pub(crate) fn ffa(&self) -> bool {
        self.rules.format == Format::FreeForAll
    }

    /// Plays `mv` and settles what it means.
    #[inline]
    pub(crate) fn make(&mut self, pos: &mut Position, mv: Move) -> Made {
        let mover = pos.turn;
        let points = self.points;
        let material = self.material;
        self.update_material(pos, mv);
        let undo = pos.play_unchecked(mv);
        let mut made = Made {
            undo,
            points,
            material,
            eliminated: None,
            won: false,
        };
        if let Some(captured) = undo.captured() {
            // A grey king is taken for nothing, like any grey piece.
            if captured.role == Role::King && pos.status[captured.army].takes_turns() {
                if self.ffa() {
                    self.score(pos, mover, capture_value(captured));
                    made.eliminated = Some(pos.set_status(captured.army, ArmyStatus::Out));
                } else {
                    made.won = true;
                }
            } else if self.ffa() && pos.status[captured.army] == ArmyStatus::Playing {
                self.score(pos, mover, capture_value(captured));
            }
        }
        if self.rules.pawn_breakthrough
            && mv.promotion().is_none()
            && pos.kind.own_rank(mover, mv.to()) == self.rules.promotion_rank - 1
            && pos
                .piece_at(mv.to())
                .is_some_and(|p| p.role == Role::Pawn && p.army == mover)
        {
            made.won = true;
        }
        made
    }

    /// Takes back what [`GameState::make`] did.
    #[inline]
    pub(crate) fn unmake(&mut self, pos: &mut Position, made: Made) {
        if let Some(status) = made.eliminated {
            pos.undo_status(status);
        }
        pos.undo(made.undo);
        self.points = made.points;
        self.material = made.material;
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

    #[inline]
    fn score(&mut self, pos: &Position, army: Army, points: i32) {
        if pos.status[army] == ArmyStatus::Playing {
            self.points[army.index()] += points;
        }
    }

    /// Free-for-all: the army to move has no legal move, so it is mated (the player who moved
    /// last, whose move the search takes to have made the mate, scores 20) or stalemated (it
    /// scores 20 itself) and is out.
    pub(crate) fn eliminate_stuck(&mut self, pos: &mut Position) -> Eliminated {
        let points = self.points;
        let army = pos.turn;
        if pos.is_check(army) {
            if let Some(by) = last_mover(pos, army) {
                self.score(pos, by, 20);
            }
        } else {
            self.score(pos, army, 20);
        }
        let undo = pos.set_status(army, ArmyStatus::Out);
        Eliminated { undo, points }
    }

    /// Takes back [`GameState::eliminate_stuck`].
    pub(crate) fn restore(&mut self, pos: &mut Position, e: Eliminated) {
        pos.undo_status(e.undo);
        self.points = e.points;
    }

    /// Free-for-all: the game is over (three out, or two left with a decisive lead); returns the
    /// final value to `root`.
    pub(crate) fn ffa_finished(&self, pos: &Position, root: Army) -> Option<i32> {
        let playing = Army::ALL.map(|a| pos.status[a] == ArmyStatus::Playing);
        let count = playing.iter().filter(|&&p| p).count();
        if count <= 1 {
            let mut points = self.points;
            let walking = Army::ALL
                .iter()
                .filter(|&&a| pos.status[a] == ArmyStatus::KingWalking)
                .count() as i32;
            if let Some(last) = (0..4).find(|&a| playing[a]) {
                points[last] += 20 * walking;
            }
            return Some(standings(&points, root));
        }
        if count == 2 && self.rules.lead_ending == LeadEnding::Automatic {
            let mut two = (0..4).filter(|&a| playing[a]);
            let (a, b) = (two.next()?, two.next()?);
            let (leader, other) = if self.points[a] >= self.points[b] {
                (a, b)
            } else {
                (b, a)
            };
            let lead = self.points[leader];
            let nobody_out_ahead = (0..4)
                .filter(|&x| x != a && x != b)
                .all(|x| self.points[x] <= lead);
            if lead > self.points[other] + 20 && nobody_out_ahead {
                return Some(standings(&self.points, root));
            }
        }
        None
    }

    /// The value to `root` of a draw by rule now (Teams and Duo: nothing; free-for-all: +10 to
    /// everyone still in, then points decide).
    pub(crate) fn draw_value(&self, pos: &Position, root: Army) -> i32 {
        if !self.ffa() {
            return 0;
        }
        let mut points = self.points;
        for a in Army::ALL {
            if pos.status[a] == ArmyStatus::Playing {
                points[a.index()] += 10;
            }
        }
        standings(&points, root)
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
pub(crate) fn standings(points: &[i32; 4], root: Army) -> i32 {
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

/// The army that moved last before `army`'s turn: the nearest before it in turn order that
/// takes turns.
fn last_mover(pos: &Position, army: Army) -> Option<Army> {
    let mut a = army;
    for _ in 0..3 {
        a = Army::from_index((a.index() + 3) % 4).unwrap_or(a);
        if pos.status[a].takes_turns() {
            return Some(a);
        }
    }
    None
}
