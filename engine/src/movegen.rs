//! Legal move generation and attack tests.
//!
//! Legality is decided without playing moves: from the mover's king we find the enemy pieces that
//! attack it (checkers) and the mover's pieces that stand alone between the king and an enemy
//! slider (pins). A pinned piece may only move along its pin line; in single check a move must
//! capture the checker or block its line; in double check only the king moves. King steps are
//! tested square by square, with the square behind the king on a slider's line counted as
//! attacked. En passant, which removes two pieces from a line, is tested on a scratch board.
//!
//! King captures (where the rules allow them) are always legal: they are the first step of the
//! turn-start assessment, before the question of the mover's own king arises.

use crate::army::{Army, ArmySet};
use crate::board::{ArmyStatus, at, class::*, pawn_attackers_from, role_bits};
use crate::geometry::{
    CastleSide, DIAGONAL, DIRECTIONS, KNIGHT_JUMPS, ORTHOGONAL, pawn_captures, pawn_forward, step,
};
use crate::moves::{Move, MoveList};
use crate::piece::Role;
use crate::position::Position;
use crate::square::Square;
use crate::square_set::SquareSet;

/// Receives generated moves: a list collects them, a counter only counts.
pub(crate) trait MoveSink {
    fn push(&mut self, mv: Move);
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        // The capacity bound holds for every position `Position::from_setup` accepts.
        let _ = self.try_push(mv);
    }
}

impl MoveSink for Vec<Move> {
    #[inline]
    fn push(&mut self, mv: Move) {
        Vec::push(self, mv);
    }
}

/// Counts moves without storing them (perft's last ply).
pub(crate) struct Counter(pub(crate) usize);

impl MoveSink for Counter {
    #[inline]
    fn push(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// Stops at the first move (for "has any legal move").
struct Any(bool);

impl MoveSink for Any {
    #[inline]
    fn push(&mut self, _mv: Move) {
        self.0 = true;
    }
}

/// Looks for one move (for "is this move legal").
struct Find {
    mv: Move,
    found: bool,
}

impl MoveSink for Find {
    #[inline]
    fn push(&mut self, mv: Move) {
        self.found |= mv == self.mv;
    }
}

/// Where a piece may land: anywhere, or only inside a mask (check and pin restrictions).
#[derive(Clone, Copy)]
enum Targets {
    All,
    Only(SquareSet),
}

impl Targets {
    #[inline]
    fn allows(self, sq: Square) -> bool {
        match self {
            Targets::All => true,
            Targets::Only(mask) => mask.contains(sq),
        }
    }

    #[inline]
    fn and(self, other: SquareSet) -> Targets {
        match self {
            Targets::All => Targets::Only(other),
            Targets::Only(mask) => Targets::Only(mask.intersection(other)),
        }
    }
}

/// The line flag that attacks along direction index `i`.
#[inline]
const fn slider_flag(i: usize) -> u16 {
    if i < 4 {
        ENEMY_ORTHOGONAL
    } else {
        ENEMY_DIAGONAL
    }
}

/// What attacks along direction `i` from one step away, besides sliders.
#[inline]
const fn near_flag(i: usize) -> u16 {
    if i < 4 {
        ENEMY_KING
    } else {
        ENEMY_KING | pawn_attackers_from(i)
    }
}

/// What a piece may capture subject to its king's safety, and what it may capture whatever its
/// king faces: a king capture is the second kind, unless only moves that keep the king safe are
/// wanted (`SAFE`).
#[inline(always)]
const fn takes<const SAFE: bool>() -> (u16, u16) {
    if SAFE {
        (CAPTURE | KING_CAPTURE, 0)
    } else {
        (CAPTURE, KING_CAPTURE)
    }
}

const NEAR_FLAGS: [u16; 8] = [
    near_flag(0),
    near_flag(1),
    near_flag(2),
    near_flag(3),
    near_flag(4),
    near_flag(5),
    near_flag(6),
    near_flag(7),
];

/// Whether `sq` on `cells` is attacked by a piece that `cls` marks as a live enemy.
#[inline]
pub(crate) fn attacked_on(cells: &[u8; 256], cls: &[u16; 256], sq: Square) -> bool {
    for (i, &d) in DIRECTIONS.iter().enumerate() {
        let mut s = step(sq, d);
        let mut c = at(cells, s);
        if c != 0 {
            if cls[c as usize] & (slider_flag(i) | NEAR_FLAGS[i]) != 0 {
                return true;
            }
            continue;
        }
        loop {
            s = step(s, d);
            c = at(cells, s);
            if c != 0 {
                break;
            }
        }
        if cls[c as usize] & slider_flag(i) != 0 {
            return true;
        }
    }
    KNIGHT_JUMPS
        .iter()
        .any(|&j| cls[at(cells, step(sq, j)) as usize] & ENEMY_KNIGHT != 0)
}

/// The squares from `from` (exclusive) along direction `d` up to and including `to`.
fn line(from: Square, d: i8, to: Square) -> SquareSet {
    let mut set = SquareSet::EMPTY;
    let mut s = from;
    loop {
        s = step(s, d);
        set.insert(s);
        if s == to {
            return set;
        }
    }
}

/// The army whose moves are being generated, with what every piece generator needs to know.
struct Mover<'a> {
    army: Army,
    king: Square,
    /// What each cell code means to this army.
    cls: &'a [u16; 256],
    /// The armies whose open en passant rights this army may use (empty when none is open).
    en_passant_from: ArmySet,
}

/// Checkers of and pins against one king.
struct KingSafety {
    checkers: u32,
    /// Squares that resolve the (single) check: the checker and the line to it.
    check_mask: SquareSet,
    /// Squares behind the king on a checking slider's line: attacked once the king steps there.
    xray: SquareSet,
    pinned: SquareSet,
    /// For each pinned piece, its pin line (from the king to the pinner, inclusive).
    pins: [(Square, SquareSet); 8],
    pin_count: usize,
}

impl KingSafety {
    fn pin_line(&self, sq: Square) -> SquareSet {
        self.pins[..self.pin_count]
            .iter()
            .find(|(p, _)| *p == sq)
            .map(|(_, l)| *l)
            .unwrap_or_default()
    }
}

impl Position {
    /// Every legal move of the army to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(self.turn, ArmySet::ALL, &mut list);
        list
    }

    /// The number of legal moves of the army to move (faster than listing them).
    pub fn count_legal_moves(&self) -> usize {
        let mut counter = Counter(0);
        self.generate(self.turn, ArmySet::ALL, &mut counter);
        counter.0
    }

    /// Whether `army` would have any legal move if it were its turn now.
    pub(crate) fn has_legal_move(&self, army: Army, en_passant_from: ArmySet) -> bool {
        let mut any = Any(false);
        self.generate(army, en_passant_from, &mut any);
        any.0
    }

    /// Whether `army` has a way out of check if it were its turn now: a legal move after which
    /// its own king is not attacked. A king capture that leaves it attacked is no way out (it
    /// is legal at a turn start, but a mate decided at once is decided before that).
    pub(crate) fn has_escape(&self, army: Army, en_passant_from: ArmySet) -> bool {
        let mut any = Any(false);
        self.generate_from::<_, true>(army, en_passant_from, None, &mut any);
        any.0
    }

    /// Whether `sq` is attacked by an enemy of `army` (a piece of a live enemy army that could
    /// capture there by its capture pattern, pinned or not).
    #[inline]
    pub fn is_attacked(&self, sq: Square, army: Army) -> bool {
        attacked_on(&self.cells, &self.classes[army.index()], sq)
    }

    /// Whether `army`'s king is attacked by an enemy.
    pub fn is_check(&self, army: Army) -> bool {
        self.status[army].takes_turns()
            && self.king(army).is_some_and(|k| self.is_attacked(k, army))
    }

    /// The armies taking turns whose kings are attacked.
    pub fn checked_armies(&self) -> ArmySet {
        Army::ALL
            .into_iter()
            .filter(|&a| self.is_check(a))
            .collect()
    }

    /// The pieces of live enemies of `army` that attack `sq`.
    pub fn attackers(&self, sq: Square, army: Army) -> SquareSet {
        let cls = &self.classes[army.index()];
        let mut set = SquareSet::EMPTY;
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let mut s = step(sq, d);
            let mut dist = 1;
            while at(&self.cells, s) == 0 {
                s = step(s, d);
                dist += 1;
            }
            let f = cls[at(&self.cells, s) as usize];
            if f & slider_flag(i) != 0 || (dist == 1 && f & NEAR_FLAGS[i] != 0) {
                set.insert(s);
            }
        }
        for &j in &KNIGHT_JUMPS {
            let s = step(sq, j);
            if cls[at(&self.cells, s) as usize] & ENEMY_KNIGHT != 0 {
                set.insert(s);
            }
        }
        set
    }

    fn king_safety(&self, king: Square, cls: &[u16; 256]) -> KingSafety {
        let mut safety = KingSafety {
            checkers: 0,
            check_mask: SquareSet::EMPTY,
            xray: SquareSet::EMPTY,
            pinned: SquareSet::EMPTY,
            pins: [(king, SquareSet::EMPTY); 8],
            pin_count: 0,
        };
        for (i, &d) in DIRECTIONS.iter().enumerate() {
            let mut s = step(king, d);
            let mut c = at(&self.cells, s);
            let near = c != 0;
            while c == 0 {
                s = step(s, d);
                c = at(&self.cells, s);
            }
            let f = cls[c as usize];
            if f & slider_flag(i) != 0 || (near && f & NEAR_FLAGS[i] != 0) {
                safety.check_mask = safety.check_mask.union(line(king, d, s));
                if f & slider_flag(i) != 0 {
                    safety.xray.insert(step(king, -d));
                }
                safety.checkers += 1;
            } else if f & OWN != 0 {
                let blocker = s;
                let mut t = step(s, d);
                while at(&self.cells, t) == 0 {
                    t = step(t, d);
                }
                if cls[at(&self.cells, t) as usize] & slider_flag(i) != 0 {
                    safety.pinned.insert(blocker);
                    safety.pins[safety.pin_count] = (blocker, line(king, d, t));
                    safety.pin_count += 1;
                }
            }
        }
        for &j in &KNIGHT_JUMPS {
            let s = step(king, j);
            if cls[at(&self.cells, s) as usize] & ENEMY_KNIGHT != 0 {
                safety.checkers += 1;
                safety.check_mask.insert(s);
            }
        }
        safety
    }

    /// Generates `us`'s legal moves into `sink`.
    #[inline]
    pub(crate) fn generate<S: MoveSink>(&self, us: Army, en_passant_from: ArmySet, sink: &mut S) {
        self.generate_from::<_, false>(us, en_passant_from, None, sink);
    }

    /// Whether `mv` is among the legal moves of the army to move. Only the moves of the piece
    /// on `mv`'s starting square are generated: the server checks every move played, and a
    /// whole generation for one move was most of what playing it cost.
    pub(crate) fn has_legal(&self, mv: Move) -> bool {
        let mut find = Find { mv, found: false };
        self.generate_from::<_, false>(self.turn, ArmySet::ALL, Some(mv.from()), &mut find);
        find.found
    }

    /// Generates `us`'s legal moves into `sink`: all of them, or only those of the piece on
    /// `only` (none if `us` has no piece there). With `SAFE`, only those after which `us`'s own
    /// king is not attacked: a king capture must then be safe like any other capture.
    fn generate_from<S: MoveSink, const SAFE: bool>(
        &self,
        us: Army,
        en_passant_from: ArmySet,
        only: Option<Square>,
        sink: &mut S,
    ) {
        let status = self.status[us];
        if !status.takes_turns() {
            return;
        }
        let Some(king) = self.king(us) else { return };
        let cls = &self.classes[us.index()];
        let safety = self.king_safety(king, cls);
        // Most positions have no open en passant right: skip the per-pawn search then.
        let en_passant_from = if self.rules.en_passant && self.en_passant.iter().any(|e| e[0] != 0)
        {
            en_passant_from
        } else {
            ArmySet::EMPTY
        };
        let mover = Mover {
            army: us,
            king,
            cls,
            en_passant_from,
        };

        if status == ArmyStatus::Playing {
            let base = match safety.checkers {
                0 => Targets::All,
                1 => Targets::Only(safety.check_mask),
                // Double check: no other piece can help, but king captures remain possible.
                _ => Targets::Only(SquareSet::EMPTY),
            };
            let skip_pieces = safety.checkers >= 2 && (SAFE || !self.rules.king_capture);
            if !skip_pieces {
                let pieces = match only {
                    Some(sq) if self.occupied[us.index()].contains(sq) => {
                        let mut one = SquareSet::EMPTY;
                        one.insert(sq);
                        one
                    }
                    Some(_) => SquareSet::EMPTY,
                    None => self.occupied[us.index()],
                };
                for sq in pieces {
                    if sq == king {
                        continue;
                    }
                    let targets = if safety.pinned.contains(sq) {
                        base.and(safety.pin_line(sq))
                    } else {
                        base
                    };
                    self.piece_moves::<S, SAFE>(&mover, sq, targets, sink);
                }
            }
        }
        if only.is_none_or(|sq| sq == king) {
            self.king_moves::<S, SAFE>(&mover, &safety, status, sink);
        }
    }

    #[inline]
    fn piece_moves<S: MoveSink, const SAFE: bool>(
        &self,
        mover: &Mover<'_>,
        from: Square,
        targets: Targets,
        sink: &mut S,
    ) {
        let cls = mover.cls;
        let code = at(&self.cells, from);
        let (take, free) = takes::<SAFE>();
        match role_bits(code) {
            r if r == Role::Pawn as u8 => self.pawn_moves::<S, SAFE>(mover, from, targets, sink),
            r if r == Role::Knight as u8 => {
                for &j in &KNIGHT_JUMPS {
                    let to = step(from, j);
                    let f = cls[at(&self.cells, to) as usize];
                    if f & (EMPTY | take) != 0 && targets.allows(to) || f & free != 0 {
                        sink.push(Move::normal(from, to));
                    }
                }
            }
            r => {
                let dirs = match r {
                    r if r == Role::Bishop as u8 => DIAGONAL,
                    r if r == Role::Rook as u8 => ORTHOGONAL,
                    _ => 0..8,
                };
                for &d in &DIRECTIONS[dirs] {
                    let mut to = from;
                    loop {
                        to = step(to, d);
                        let f = cls[at(&self.cells, to) as usize];
                        if f & EMPTY != 0 {
                            if targets.allows(to) {
                                sink.push(Move::normal(from, to));
                            }
                            continue;
                        }
                        if f & take != 0 && targets.allows(to) || f & free != 0 {
                            sink.push(Move::normal(from, to));
                        }
                        break;
                    }
                }
            }
        }
    }

    #[inline]
    fn pawn_moves<S: MoveSink, const SAFE: bool>(
        &self,
        mover: &Mover<'_>,
        from: Square,
        targets: Targets,
        sink: &mut S,
    ) {
        let (us, cls) = (mover.army, mover.cls);
        let fwd = pawn_forward(us);
        let to = step(from, fwd);
        if at(&self.cells, to) == 0 {
            if targets.allows(to) {
                self.push_pawn_move(us, Move::normal(from, to), sink);
            }
            if self.kind.own_rank(us, from) == 1 {
                let two = step(to, fwd);
                if at(&self.cells, two) == 0 && targets.allows(two) {
                    sink.push(Move::double_step(from, two));
                }
            }
        }
        let (take, free) = takes::<SAFE>();
        for &c in &pawn_captures(us) {
            let to = step(from, c);
            let f = cls[at(&self.cells, to) as usize];
            if f & take != 0 && targets.allows(to) || f & free != 0 {
                self.push_pawn_move(us, Move::normal(from, to), sink);
            }
        }
        if !mover.en_passant_from.is_empty() {
            self.en_passant_moves(mover, from, sink);
        }
    }

    /// Pushes a pawn move, once per promotion role if it lands on the promotion line.
    #[inline]
    fn push_pawn_move<S: MoveSink>(&self, us: Army, mv: Move, sink: &mut S) {
        if self.kind.own_rank(us, mv.to()) == self.rules.promotion_rank && !self.rules.breakthrough
        {
            for &role in self.rules.promotion.roles() {
                sink.push(mv.promoting(role));
            }
        } else {
            sink.push(mv);
        }
    }

    #[cold]
    fn en_passant_moves<S: MoveSink>(&self, mover: &Mover<'_>, from: Square, sink: &mut S) {
        let (us, king, cls) = (mover.army, mover.king, mover.cls);
        for owner in mover.en_passant_from.iter() {
            let [skipped, landed] = self.en_passant[owner.index()];
            if skipped == 0 || owner == us {
                continue;
            }
            let (skipped, landed) = (Square::from_cell(skipped), Square::from_cell(landed));
            if !pawn_captures(us).iter().any(|&c| step(from, c) == skipped) {
                continue;
            }
            let victim = at(&self.cells, landed);
            let is_owners_pawn =
                crate::board::is_army(victim, owner) && role_bits(victim) == Role::Pawn as u8;
            if !is_owners_pawn
                || cls[victim as usize] & CAPTURE == 0
                || at(&self.cells, skipped) != 0
            {
                continue;
            }
            // Two squares empty out at once: play it on a scratch board and look at the king.
            let mut cells = self.cells;
            cells[skipped.cell() as usize] = cells[from.cell() as usize];
            cells[from.cell() as usize] = 0;
            cells[landed.cell() as usize] = 0;
            if !attacked_on(&cells, cls, king) {
                self.push_pawn_move(us, Move::en_passant(from, skipped), sink);
            }
        }
    }

    fn king_moves<S: MoveSink, const SAFE: bool>(
        &self,
        mover: &Mover<'_>,
        safety: &KingSafety,
        status: ArmyStatus,
        sink: &mut S,
    ) {
        let (us, king, cls) = (mover.army, mover.king, mover.cls);
        // The king takes its own pieces only where the rules let it: a walking king its grey
        // ones, and in Duo only when the room turns king friendly captures on.
        let takes_own = status == ArmyStatus::KingWalking || self.rules.king_friendly_capture;
        let (take, free) = takes::<SAFE>();
        for &d in &DIRECTIONS {
            let to = step(king, d);
            let f = cls[at(&self.cells, to) as usize];
            let may_land = f & EMPTY != 0 || f & take != 0 && (f & OWN == 0 || takes_own);
            // A king capture needs no safety test; any other step must not land on an attack.
            let safe_step =
                || may_land && !safety.xray.contains(to) && !attacked_on(&self.cells, cls, to);
            if f & free != 0 || safe_step() {
                sink.push(Move::normal(king, to));
            }
        }
        if self.rules.castling && status == ArmyStatus::Playing && safety.checkers == 0 {
            for side in CastleSide::ALL {
                if !self.can_castle(us, side) {
                    continue;
                }
                let c = self.castle(us, side);
                if c.between().iter().all(|&sq| at(&self.cells, sq) == 0)
                    && !attacked_on(&self.cells, cls, c.crossed())
                    && !attacked_on(&self.cells, cls, c.king_to)
                {
                    sink.push(Move::castle(king, c.king_to, side));
                }
            }
        }
    }
}
