//! Moves and move lists.

use std::fmt;

use arrayvec::ArrayVec;

use crate::geometry::CastleSide;
use crate::piece::Role;
use crate::square::Square;

/// A move of one piece, as the move generator produces it.
///
/// A move records only what cannot be read off the position it is played in: which squares,
/// and the special kind (double step, en passant, castle, promotion). The captured piece, if any,
/// is whatever stands on the target (or, for en passant, on the square the pawn landed on).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: Square,
    to: Square,
    kind: u8,
}

/// What kind of move a [`Move`] is. Promotion is orthogonal to the kind (an en passant capture
/// can land on a promotion line): see [`Move::promotion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move that is none of the below (including captures and king captures).
    Normal,
    /// A pawn's two-square first step, which opens en passant.
    DoubleStep,
    /// A pawn capturing a pawn that has just double-stepped past its capture square.
    EnPassant,
    /// A castle; `from` and `to` are the king's squares.
    Castle(CastleSide),
}

// The low three bits hold a promotion role (0 for none); the bits above hold the special kind.
const NORMAL: u8 = 0;
const DOUBLE_STEP: u8 = 1 << 3;
const EN_PASSANT: u8 = 2 << 3;
const CASTLE_KING: u8 = 3 << 3;
const CASTLE_QUEEN: u8 = 4 << 3;
const SPECIAL: u8 = !7;

impl Move {
    /// A move of the given kind, promoting to `promotion` if given. Nothing is checked here: use
    /// [`crate::Position::is_legal`] or [`crate::Position::play`] for that.
    pub const fn new(from: Square, to: Square, kind: MoveKind, promotion: Option<Role>) -> Move {
        let kind = match kind {
            MoveKind::Normal => NORMAL,
            MoveKind::DoubleStep => DOUBLE_STEP,
            MoveKind::EnPassant => EN_PASSANT,
            MoveKind::Castle(CastleSide::King) => CASTLE_KING,
            MoveKind::Castle(CastleSide::Queen) => CASTLE_QUEEN,
        };
        let role = match promotion {
            Some(role) => role as u8,
            None => 0,
        };
        Move {
            from,
            to,
            kind: kind | role,
        }
    }

    #[inline]
    pub(crate) const fn normal(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            kind: NORMAL,
        }
    }

    #[inline]
    pub(crate) const fn double_step(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            kind: DOUBLE_STEP,
        }
    }

    #[inline]
    pub(crate) const fn en_passant(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            kind: EN_PASSANT,
        }
    }

    /// The move in 24 bits (for compact tables); never 0, since a move's squares are never both
    /// cell 0.
    #[inline]
    pub(crate) const fn to_bits(self) -> u32 {
        (self.from.cell() as u32) << 16 | (self.to.cell() as u32) << 8 | self.kind as u32
    }

    /// The move [`Move::to_bits`] packed.
    #[inline]
    pub(crate) const fn from_bits(bits: u32) -> Move {
        Move {
            from: Square::from_cell((bits >> 16) as u8),
            to: Square::from_cell((bits >> 8) as u8),
            kind: bits as u8,
        }
    }

    /// The same move, promoting to `role`.
    #[inline]
    pub(crate) const fn promoting(self, role: Role) -> Move {
        Move {
            kind: (self.kind & SPECIAL) | role as u8,
            ..self
        }
    }

    #[inline]
    pub(crate) const fn castle(from: Square, to: Square, side: CastleSide) -> Move {
        Move {
            from,
            to,
            kind: match side {
                CastleSide::King => CASTLE_KING,
                CastleSide::Queen => CASTLE_QUEEN,
            },
        }
    }

    /// The square the piece leaves (the king's square for a castle).
    #[inline]
    pub const fn from(self) -> Square {
        self.from
    }

    /// The square the piece lands on (the king's target for a castle).
    #[inline]
    pub const fn to(self) -> Square {
        self.to
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.kind & SPECIAL {
            DOUBLE_STEP => MoveKind::DoubleStep,
            EN_PASSANT => MoveKind::EnPassant,
            CASTLE_KING => MoveKind::Castle(CastleSide::King),
            CASTLE_QUEEN => MoveKind::Castle(CastleSide::Queen),
            _ => MoveKind::Normal,
        }
    }

    /// The role the pawn becomes, if this move promotes.
    #[inline]
    pub const fn promotion(self) -> Option<Role> {
        Role::from_bits(self.kind & 7)
    }

    /// The castle side, if this is a castle.
    #[inline]
    pub const fn castle_side(self) -> Option<CastleSide> {
        match self.kind & SPECIAL {
            CASTLE_KING => Some(CastleSide::King),
            CASTLE_QUEEN => Some(CastleSide::Queen),
            _ => None,
        }
    }

    /// Whether this is an en passant capture.
    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.kind & SPECIAL == EN_PASSANT
    }

    /// Whether this is a pawn's double step.
    #[inline]
    pub const fn is_double_step(self) -> bool {
        self.kind & SPECIAL == DOUBLE_STEP
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Move {
    /// A bare coordinate form, `h2-h4`, `h10-h11=Q`, `h1-j1 (O-O)`: for debugging. Real notation
    /// needs the position and lives in [`crate::notation`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)?;
        if let Some(role) = self.promotion() {
            write!(f, "={}", role.upper_char())?;
        }
        match self.kind() {
            MoveKind::Castle(CastleSide::King) => f.write_str(" (O-O)"),
            MoveKind::Castle(CastleSide::Queen) => f.write_str(" (O-O-O)"),
            MoveKind::EnPassant => f.write_str(" (e.p.)"),
            _ => Ok(()),
        }
    }
}

/// The most moves any position allowed by [`crate::Position::from_setup`] can have (at most 16
/// pieces an army: even sixteen queens on the open cross board stay below this).
pub const MAX_MOVES: usize = 1024;

/// A list of moves on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
