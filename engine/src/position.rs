//! The position: pieces on a board, whose turn it is, and the rights that make two positions
//! the same for repetition. Make and unmake of moves with an incremental hash.

use std::fmt;

use thiserror::Error;

use crate::army::{Army, ArmySet, ByArmy};
use crate::board::{self, ArmyStatus, WALL, at, class_table, empty_cells};
use crate::geometry::{BoardKind, Castle, CastleSide, pawn_captures, pawn_forward, step};
use crate::moves::{Move, MoveKind};
use crate::piece::{PROMOTED, Piece, Role};
use crate::rules::{Format, MateTiming, PromotionSet, RuleSet, RuleSetError};
use crate::setup::{EnPassant, Setup};
use crate::square::Square;
use crate::square_set::SquareSet;
use crate::zobrist;

/// The part of a [`RuleSet`] that decides which moves are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveRules {
    pub(crate) format: Format,
    pub(crate) castling: bool,
    pub(crate) en_passant: bool,
    pub(crate) king_capture: bool,
    pub(crate) friendly_capture: bool,
    pub(crate) king_friendly_capture: bool,
    /// The promotion line as a 0-based own rank.
    pub(crate) promotion_rank: u8,
    pub(crate) promotion: PromotionSet,
    /// Pawn breakthrough: a pawn reaching the line stays a pawn (and wins).
    pub(crate) breakthrough: bool,
    /// When mates are decided (perft needs it to know when a game is over).
    pub(crate) mate: MateTiming,
}

impl MoveRules {
    /// The code bit a promoted piece carries: in free-for-all, where it scores 1; elsewhere a
    /// promoted piece is the piece it became, for repetitions too, and FEN4 for Teams carries no
    /// mark for it (4PC tools read no such mark).
    #[inline]
    pub(crate) fn promoted_bit(&self) -> u8 {
        if self.format == Format::FreeForAll {
            PROMOTED
        } else {
            0
        }
    }

    fn new(rules: &RuleSet) -> MoveRules {
        MoveRules {
            format: rules.format,
            castling: rules.castling,
            en_passant: rules.en_passant,
            king_capture: rules.king_capture,
            friendly_capture: rules.friendly_capture,
            king_friendly_capture: rules.king_friendly_capture,
            promotion_rank: rules.promotion_rank - 1,
            promotion: rules.promotion,
            breakthrough: rules.pawn_breakthrough,
            mate: rules.mate,
        }
    }
}

/// A legal position under a rule set.
///
/// Build one with [`Position::new`] (the start position) or [`Position::from_setup`]. Moves come
/// from [`Position::legal_moves`]; [`Position::play`] checks a move and plays it,
/// [`Position::play_unchecked`] plays one known to be legal, and [`Position::undo`] takes it back.
#[derive(Clone)]
pub struct Position {
    /// One byte per grid cell (see [`crate::board`]).
    pub(crate) cells: [u8; 256],
    pub(crate) kind: BoardKind,
    /// Each army's squares, to visit its pieces without scanning the board.
    pub(crate) occupied: [SquareSet; 4],
    /// Each army's king cell, or 0 (a wall cell) when it has none.
    pub(crate) kings: [u8; 4],
    pub(crate) turn: Army,
    /// Castling rights: bit `army * 2 + side`.
    pub(crate) castling: u8,
    /// Per army: the cells skipped and landed on by its last double step, or `[0, 0]`.
    pub(crate) en_passant: [[u8; 2]; 4],
    pub(crate) status: ByArmy<ArmyStatus>,
    pub(crate) halfmove_clock: u16,
    pub(crate) hash: u64,
    pub(crate) rules: MoveRules,
    /// For each army, what every cell code means to it (see [`crate::board::class`]).
    pub(crate) classes: [[u16; 256]; 4],
    /// Castling rights cleared by a move from or to each cell.
    castle_clear: [u8; 256],
}

/// What [`Position::play_unchecked`] changed, so that [`Position::undo`] can restore it exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    mv: Move,
    /// The code of the captured piece (0 if none).
    captured: u8,
    castling: u8,
    en_passant: [[u8; 2]; 4],
    halfmove_clock: u16,
    hash: u64,
    turn: Army,
}

impl Undo {
    /// The move this undoes.
    pub fn mv(&self) -> Move {
        self.mv
    }

    /// The piece the move captured, if any.
    pub fn captured(&self) -> Option<Piece> {
        Piece::from_code(self.captured)
    }

    /// The army that made the move.
    pub fn mover(&self) -> Army {
        self.turn
    }
}

/// What [`Position::set_status`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusUndo {
    army: Army,
    status: ArmyStatus,
    turn: Army,
    en_passant: [[u8; 2]; 4],
    hash: u64,
}

/// The armies' statuses and what changing them moves (the turn, en passant rights, the hash):
/// taken before a move's eliminations, restored to take them all back at once (the bot's search
/// does not count how many a move caused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StatusSnapshot {
    status: ByArmy<ArmyStatus>,
    turn: Army,
    en_passant: [[u8; 2]; 4],
    hash: u64,
}

/// Why a [`Setup`] is not a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The rule set is inconsistent.
    #[error(transparent)]
    Rules(#[from] RuleSetError),
    /// The setup is for another board than the rules'.
    #[error("the setup is for the {setup:?} board but the rules play on the {rules:?} board")]
    WrongBoard {
        /// The setup's board.
        setup: BoardKind,
        /// The rules' board.
        rules: BoardKind,
    },
    /// A piece stands on a square the board does not have.
    #[error("a piece stands on {0}, which is not a square of this board")]
    NotASquare(Square),
    /// Two pieces on one square.
    #[error("two pieces stand on {0}")]
    Occupied(Square),
    /// A piece of an army that is not part of this game.
    #[error("{0} pieces cannot take part in this game")]
    AbsentArmy(Army),
    /// An army in play has no king, or more than one.
    #[error("{army} has {kings} kings; an army in play needs exactly one")]
    Kings {
        /// The army.
        army: Army,
        /// How many kings it has.
        kings: usize,
    },
    /// More pieces than an army starts with.
    #[error("{army} has {count} pieces; an army has at most 16")]
    TooManyPieces {
        /// The army.
        army: Army,
        /// How many pieces it has.
        count: usize,
    },
    /// A pawn on its own back rank or on or past its promotion line.
    #[error("a {army} pawn stands on {square}, where no pawn can be")]
    PawnPlacement {
        /// The pawn's army.
        army: Army,
        /// Its square.
        square: Square,
    },
    /// The army to move does not take turns.
    #[error("{0} is to move but is not in the game")]
    Turn(Army),
    /// A castling right without king and rook on their home squares.
    #[error("{army} may not castle on the {side:?} side: king or rook is not on its home square")]
    Castling {
        /// The army.
        army: Army,
        /// The side.
        side: CastleSide,
    },
    /// An en passant right that does not match the board.
    #[error("the en passant right of {0} does not match a pawn that has just double-stepped")]
    EnPassant(Army),
    /// An army's status is impossible on this board.
    #[error("the status of {0} does not fit this game")]
    Status(Army),
}

/// A move that is not legal in the position where it was tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("illegal move {0}")]
pub struct IllegalMove(pub Move);

const fn castle_bit(army: Army, side: CastleSide) -> usize {
    army as usize * 2 + side as usize
}

impl Position {
    /// The start position under `rules` (with `rules.first` to move).
    pub fn new(rules: &RuleSet) -> Result<Position, PositionError> {
        Position::from_setup(&Setup::start(rules.board(), rules.first), rules)
    }

    /// Checks a setup and makes it a position under `rules`.
    pub fn from_setup(setup: &Setup, rules: &RuleSet) -> Result<Position, PositionError> {
        rules.validate()?;
        let kind = rules.board();
        if setup.board != kind {
            return Err(PositionError::WrongBoard {
                setup: setup.board,
                rules: kind,
            });
        }
        let move_rules = MoveRules::new(rules);
        for army in Army::ALL {
            let status = setup.status[army];
            if (status == ArmyStatus::Absent) == kind.armies().contains(army) {
                return Err(PositionError::Status(army));
            }
            if status == ArmyStatus::KingWalking && rules.format != Format::FreeForAll {
                return Err(PositionError::Status(army));
            }
        }
        let mut pos = Position {
            cells: empty_cells(kind),
            kind,
            occupied: [SquareSet::EMPTY; 4],
            kings: [0; 4],
            turn: setup.turn,
            castling: 0,
            en_passant: [[0; 2]; 4],
            status: setup.status,
            halfmove_clock: setup.halfmove_clock,
            hash: 0,
            rules: move_rules,
            classes: [[0; 256]; 4],
            castle_clear: [0; 256],
        };
        let mut kings = [0usize; 4];
        for &(sq, piece) in &setup.pieces {
            if !kind.contains(sq) {
                return Err(PositionError::NotASquare(sq));
            }
            if at(&pos.cells, sq) != 0 {
                return Err(PositionError::Occupied(sq));
            }
            if setup.status[piece.army] == ArmyStatus::Absent {
                return Err(PositionError::AbsentArmy(piece.army));
            }
            if piece.role == Role::Pawn {
                let own_rank = kind.own_rank(piece.army, sq);
                if own_rank == 0
                    || (own_rank >= move_rules.promotion_rank && !move_rules.breakthrough)
                {
                    return Err(PositionError::PawnPlacement {
                        army: piece.army,
                        square: sq,
                    });
                }
            }
            if piece.role == Role::King {
                kings[piece.army.index()] += 1;
                pos.kings[piece.army.index()] = sq.cell();
            }
            let piece = Piece {
                promoted: piece.promoted && move_rules.promoted_bit() != 0,
                ..piece
            };
            pos.put(sq, piece.code());
        }
        for army in Army::ALL {
            let count = pos.occupied[army.index()].len();
            if count > 16 {
                return Err(PositionError::TooManyPieces { army, count });
            }
            let needs_king = pos.status[army].takes_turns();
            let k = kings[army.index()];
            if k > 1 || (needs_king && k != 1) {
                return Err(PositionError::Kings { army, kings: k });
            }
        }
        if !pos.status[pos.turn].takes_turns() {
            return Err(PositionError::Turn(pos.turn));
        }
        for army in kind.armies().iter() {
            for side in CastleSide::ALL {
                if !setup.castling[army][side as usize] {
                    continue;
                }
                let c = kind.castle(army, side);
                let king = Piece::new(army, Role::King).code();
                let rook = Piece::new(army, Role::Rook).code();
                if at(&pos.cells, c.king_from) != king || at(&pos.cells, c.rook_from) != rook {
                    return Err(PositionError::Castling { army, side });
                }
                pos.castling |= 1 << castle_bit(army, side);
            }
            if let Some(ep) = setup.en_passant[army] {
                let pawn = Piece::new(army, Role::Pawn).code();
                let fwd = pawn_forward(army);
                let ok = army != pos.turn
                    && at(&pos.cells, ep.landed) & !PROMOTED == pawn
                    && step(ep.skipped, fwd) == ep.landed
                    && kind.own_rank(army, ep.skipped) == 2
                    && at(&pos.cells, ep.skipped) == 0;
                if !ok {
                    return Err(PositionError::EnPassant(army));
                }
                pos.en_passant[army.index()] = [ep.skipped.cell(), ep.landed.cell()];
            }
        }
        for army in kind.armies().iter() {
            for side in CastleSide::ALL {
                let c = kind.castle(army, side);
                let bit = 1 << castle_bit(army, side);
                pos.castle_clear[c.king_from.cell() as usize] |= bit;
                pos.castle_clear[c.rook_from.cell() as usize] |= bit;
            }
        }
        pos.refresh_classes();
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The position as an unvalidated [`Setup`] (with zero points).
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.kind,
            pieces: self.pieces().collect(),
            turn: self.turn,
            castling: ByArmy::from_fn(|a| CastleSide::ALL.map(|side| self.can_castle(a, side))),
            en_passant: ByArmy::from_fn(|a| self.en_passant(a)),
            status: self.status,
            points: ByArmy::default(),
            halfmove_clock: self.halfmove_clock,
        }
    }

    /// The board.
    #[inline]
    pub fn board(&self) -> BoardKind {
        self.kind
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(at(&self.cells, sq))
    }

    /// Every piece with its square, in grid order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.kind
            .squares()
            .filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// The squares of `army`'s pieces.
    #[inline]
    pub fn squares_of(&self, army: Army) -> SquareSet {
        self.occupied[army.index()]
    }

    /// `army`'s king square, if it has a king.
    #[inline]
    pub fn king(&self, army: Army) -> Option<Square> {
        match self.kings[army.index()] {
            0 => None,
            cell => Some(Square::from_cell(cell)),
        }
    }

    /// The army to move.
    #[inline]
    pub fn turn(&self) -> Army {
        self.turn
    }

    /// Whether `army` still has the right to castle on `side`.
    #[inline]
    pub fn can_castle(&self, army: Army, side: CastleSide) -> bool {
        self.castling >> castle_bit(army, side) & 1 != 0
    }

    /// The en passant right opened by `army`'s last double step, while it lasts.
    #[inline]
    pub fn en_passant(&self, army: Army) -> Option<EnPassant> {
        match self.en_passant[army.index()] {
            [0, _] => None,
            [skipped, landed] => Some(EnPassant {
                skipped: Square::from_cell(skipped),
                landed: Square::from_cell(landed),
            }),
        }
    }

    /// What `army` is doing in the game.
    #[inline]
    pub fn status(&self, army: Army) -> ArmyStatus {
        self.status[army]
    }

    /// The armies that take turns (playing, or with a walking king).
    pub fn armies_taking_turns(&self) -> ArmySet {
        Army::ALL
            .into_iter()
            .filter(|&a| self.status[a].takes_turns())
            .collect()
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    /// The position's hash: pieces, army to move, castling and en passant rights, army statuses.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Whether `a` and `b` are partners under these rules (Teams, opposite seats).
    #[inline]
    pub fn are_partners(&self, a: Army, b: Army) -> bool {
        board::partners(self.rules.format, a, b)
    }

    /// Whether `b` is an enemy of `a`: a different army that is not its partner and that takes
    /// turns.
    #[inline]
    pub fn is_enemy(&self, a: Army, b: Army) -> bool {
        a != b && !self.are_partners(a, b) && self.status[b].takes_turns()
    }

    /// The hash that decides repetitions: [`Position::hash`], except that an en passant right
    /// counts only while a pawn of an army that may still use it attacks the skipped square (the
    /// same legal possibilities, as the rules say; a pin on that pawn is not looked at).
    pub fn repetition_hash(&self) -> u64 {
        let mut hash = self.hash;
        for owner in Army::ALL {
            let Some(ep) = self.en_passant(owner) else {
                continue;
            };
            // The armies still to move before the owner moves again may use the right.
            let mut army = self.turn;
            let mut usable = false;
            while army != owner && !usable {
                usable = self.is_enemy(army, owner)
                    && self.status[army] == ArmyStatus::Playing
                    && pawn_captures(army).iter().any(|&c| {
                        at(&self.cells, step(ep.skipped, -c)) == Piece::new(army, Role::Pawn).code()
                    });
                army = army.next();
            }
            if !usable {
                hash ^= zobrist::en_passant(ep.skipped);
            }
        }
        hash
    }

    /// The hash computed from scratch; equal to [`Position::hash`] at all times.
    pub fn compute_hash(&self) -> u64 {
        let mut h = zobrist::turn(self.turn) ^ zobrist::castling_set(self.castling);
        for (sq, piece) in self.pieces() {
            h ^= zobrist::piece(piece.code(), sq);
        }
        for army in Army::ALL {
            if let Some(ep) = self.en_passant(army) {
                h ^= zobrist::en_passant(ep.skipped);
            }
            h ^= zobrist::status(army, self.status[army] as usize);
        }
        h
    }

    pub(crate) fn castle(&self, army: Army, side: CastleSide) -> Castle {
        self.kind.castle(army, side)
    }

    fn refresh_classes(&mut self) {
        for army in Army::ALL {
            self.classes[army.index()] = class_table(
                army,
                self.rules.format,
                &self.status,
                self.rules.king_capture,
                self.rules.friendly_capture,
            );
        }
    }

    /// Puts a piece code on an empty square (board, army set, hash).
    #[inline]
    fn put(&mut self, sq: Square, code: u8) {
        self.cells[sq.cell() as usize] = code;
        self.occupied[((code >> 3) & 3) as usize].insert(sq);
        self.hash ^= zobrist::piece(code, sq);
    }

    /// Removes the piece code standing on `sq`.
    #[inline]
    fn remove(&mut self, sq: Square, code: u8) {
        self.cells[sq.cell() as usize] = 0;
        self.occupied[((code >> 3) & 3) as usize].remove(sq);
        self.hash ^= zobrist::piece(code, sq);
    }

    /// The next army after `army` in seat order that takes turns.
    fn next_to_move(&self, army: Army) -> Army {
        let mut a = army.next();
        for _ in 0..4 {
            if self.status[a].takes_turns() {
                return a;
            }
            a = a.next();
        }
        army
    }

    /// Passes the turn to the next army that takes turns. The en passant right of every army whose
    /// seat the turn reaches or passes lapses: everyone else has moved since that double step.
    pub(crate) fn pass_turn(&mut self) {
        let next = self.next_to_move(self.turn);
        let mut a = self.turn;
        loop {
            a = a.next();
            let ep = &mut self.en_passant[a.index()];
            if ep[0] != 0 {
                self.hash ^= zobrist::en_passant(Square::from_cell(ep[0]));
                *ep = [0, 0];
            }
            if a == next {
                break;
            }
        }
        self.hash ^= zobrist::turn(self.turn) ^ zobrist::turn(next);
        self.turn = next;
    }

    /// Whether `mv` is legal for the army to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.has_legal(mv)
    }

    /// Plays `mv` if it is legal; otherwise leaves the position unchanged and says so.
    pub fn play(&mut self, mv: Move) -> Result<Undo, IllegalMove> {
        if self.is_legal(mv) {
            Ok(self.play_unchecked(mv))
        } else {
            Err(IllegalMove(mv))
        }
    }

    /// Plays `mv` without checking it.
    ///
    /// `mv` must be one of [`Position::legal_moves`]; anything else leaves the position in an
    /// unspecified (but memory-safe) state. The turn passes to the next army that takes turns;
    /// what the move means for the game (a king captured, a mate) is for [`crate::Game`] to decide.
    pub fn play_unchecked(&mut self, mv: Move) -> Undo {
        let us = self.turn;
        let (from, to) = (mv.from(), mv.to());
        let piece = at(&self.cells, from);
        let mut undo = Undo {
            mv,
            captured: 0,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove_clock: self.halfmove_clock,
            hash: self.hash,
            turn: us,
        };
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        match mv.kind() {
            MoveKind::Castle(side) => {
                let c = self.castle(us, side);
                let rook = at(&self.cells, c.rook_from);
                self.remove(from, piece);
                self.remove(c.rook_from, rook);
                self.put(to, piece);
                self.put(c.rook_to, rook);
                self.kings[us.index()] = to.cell();
            }
            kind => {
                let victim_sq = if kind == MoveKind::EnPassant {
                    self.en_passant_victim(to)
                } else {
                    to
                };
                let captured = at(&self.cells, victim_sq);
                if captured != 0 {
                    self.remove(victim_sq, captured);
                    if board::role_bits(captured) == Role::King as u8 {
                        self.kings[((captured >> 3) & 3) as usize] = 0;
                    }
                    undo.captured = captured;
                    self.halfmove_clock = 0;
                }
                self.remove(from, piece);
                let landed = match mv.promotion() {
                    Some(role) => role as u8 | (us as u8) << 3 | self.rules.promoted_bit(),
                    None => piece,
                };
                self.put(to, landed);
                match board::role_bits(piece) {
                    r if r == Role::Pawn as u8 => {
                        self.halfmove_clock = 0;
                        // With en passant off a double step opens no right (and repetitions
                        // must not see one).
                        if kind == MoveKind::DoubleStep && self.rules.en_passant {
                            let skipped = step(from, pawn_forward(us));
                            self.en_passant[us.index()] = [skipped.cell(), to.cell()];
                            self.hash ^= zobrist::en_passant(skipped);
                        }
                    }
                    r if r == Role::King as u8 => self.kings[us.index()] = to.cell(),
                    _ => {}
                }
            }
        }
        // Another army's right whose skipped square is now taken, or whose pawn was just
        // captured, is gone.
        for (army, ep) in self.en_passant.iter_mut().enumerate() {
            if army != us.index() && ep[0] != 0 && (ep[0] == to.cell() || ep[1] == to.cell()) {
                self.hash ^= zobrist::en_passant(Square::from_cell(ep[0]));
                *ep = [0, 0];
            }
        }
        let cleared = self.castling
            & (self.castle_clear[from.cell() as usize] | self.castle_clear[to.cell() as usize]);
        if cleared != 0 {
            self.castling &= !cleared;
            self.hash ^= zobrist::castling_set(cleared);
        }
        self.pass_turn();
        undo
    }

    /// Takes back the move that returned `undo`. Moves must be undone in reverse order.
    pub fn undo(&mut self, undo: Undo) {
        let mv = undo.mv;
        let us = undo.turn;
        let (from, to) = (mv.from(), mv.to());
        let landed = at(&self.cells, to);
        match mv.kind() {
            MoveKind::Castle(side) => {
                let c = self.castle(us, side);
                let rook = at(&self.cells, c.rook_to);
                self.remove(to, landed);
                self.remove(c.rook_to, rook);
                self.put(from, landed);
                self.put(c.rook_from, rook);
                self.kings[us.index()] = from.cell();
            }
            kind => {
                self.remove(to, landed);
                let piece = if mv.promotion().is_some() {
                    Role::Pawn as u8 | (us as u8) << 3
                } else {
                    landed
                };
                self.put(from, piece);
                if board::role_bits(piece) == Role::King as u8 {
                    self.kings[us.index()] = from.cell();
                }
                if undo.captured != 0 {
                    let victim_sq = if kind == MoveKind::EnPassant {
                        let owner = (undo.captured >> 3) & 3;
                        Square::from_cell(undo.en_passant[owner as usize][1])
                    } else {
                        to
                    };
                    self.put(victim_sq, undo.captured);
                    if board::role_bits(undo.captured) == Role::King as u8 {
                        self.kings[((undo.captured >> 3) & 3) as usize] = victim_sq.cell();
                    }
                }
            }
        }
        self.castling = undo.castling;
        self.en_passant = undo.en_passant;
        self.halfmove_clock = undo.halfmove_clock;
        self.turn = undo.turn;
        self.hash = undo.hash;
    }

    /// The square of the pawn an en passant capture onto `to` takes.
    fn en_passant_victim(&self, to: Square) -> Square {
        self.en_passant
            .iter()
            .find(|ep| ep[0] == to.cell())
            .map(|ep| Square::from_cell(ep[1]))
            .unwrap_or(to)
    }

    /// Changes what `army` is doing (an elimination, or a king starting to walk). Its pieces stay
    /// where they are. If `army` was to move and no longer takes turns, the turn passes on.
    pub fn set_status(&mut self, army: Army, status: ArmyStatus) -> StatusUndo {
        let undo = StatusUndo {
            army,
            status: self.status[army],
            turn: self.turn,
            en_passant: self.en_passant,
            hash: self.hash,
        };
        self.hash ^= zobrist::status(army, self.status[army] as usize)
            ^ zobrist::status(army, status as usize);
        self.status[army] = status;
        self.refresh_classes();
        if self.turn == army && !status.takes_turns() {
            self.pass_turn();
        }
        undo
    }

    /// Takes back a [`Position::set_status`].
    pub fn undo_status(&mut self, undo: StatusUndo) {
        self.status[undo.army] = undo.status;
        self.turn = undo.turn;
        self.en_passant = undo.en_passant;
        self.hash = undo.hash;
        self.refresh_classes();
    }

    /// The statuses as they are, to restore with [`Position::restore_statuses`].
    #[inline]
    pub(crate) fn status_snapshot(&self) -> StatusSnapshot {
        StatusSnapshot {
            status: self.status,
            turn: self.turn,
            en_passant: self.en_passant,
            hash: self.hash,
        }
    }

    /// Whether any army's status has changed since `snapshot`.
    #[inline]
    pub(crate) fn statuses_changed_since(&self, snapshot: &StatusSnapshot) -> bool {
        self.status != snapshot.status
    }

    /// Takes back every [`Position::set_status`] since `snapshot` was taken (and nothing else
    /// may have changed the position since).
    pub(crate) fn restore_statuses(&mut self, snapshot: StatusSnapshot) {
        self.status = snapshot.status;
        self.turn = snapshot.turn;
        self.en_passant = snapshot.en_passant;
        self.hash = snapshot.hash;
        self.refresh_classes();
    }

    /// Hands the turn to `army` without a move (used when setting up games that begin with
    /// another seat, and by tests). The en passant rights that lapse on the way lapse.
    pub fn pass_turn_to(&mut self, army: Army) {
        if !self.status[army].takes_turns() {
            return;
        }
        while self.turn != army {
            self.pass_turn();
        }
    }

    /// Whether the cell code stands on a wall (used by debug checks).
    #[allow(dead_code)]
    pub(crate) fn is_wall(&self, sq: Square) -> bool {
        at(&self.cells, sq) == WALL
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.kind.size();
        writeln!(f, "{:?} to move (hash {:016x})", self.turn, self.hash)?;
        for r in (0..size).rev() {
            for file in 0..size {
                let sq = Square::new(file, r).expect("inside the grid");
                let cell = if !self.kind.contains(sq) {
                    "  ".to_owned()
                } else {
                    self.piece_at(sq).map_or(" .".to_owned(), |p| p.to_string())
                };
                write!(f, "{cell} ")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.cells == other.cells
            && self.kind == other.kind
            && self.turn == other.turn
            && self.castling == other.castling
            && self.en_passant == other.en_passant
            && self.status == other.status
            && self.halfmove_clock == other.halfmove_clock
            && self.hash == other.hash
            && self.kings == other.kings
            && self.occupied == other.occupied
            && self.rules == other.rules
    }
}

impl Eq for Position {}
