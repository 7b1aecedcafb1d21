//! The mailbox: one byte per grid cell, and the per-army "class" tables that let move generation
//! decide what a cell means for a given army with one lookup.
//!
//! A cell holds 0 (empty), [`WALL`] (not a square), or a piece code: role in bits 0–2, army in
//! bits 3–4, [`crate::piece::PROMOTED`] in bit 5.

use crate::army::{Army, ByArmy};
use crate::geometry::BoardKind;
use crate::piece::{Piece, Role};
use crate::rules::Format;
use crate::square::Square;

/// The code of a cell that is not a square of the board.
pub(crate) const WALL: u8 = 0x80;

/// Class bits of a cell, seen from one army (the "perspective"). A cell can have several.
pub(crate) mod class {
    /// Nothing stands there.
    pub(crate) const EMPTY: u16 = 1;
    /// A piece the perspective army may capture: an enemy's that is not its king, any grey piece
    /// (a grey king included), or with friendly capture one of its own but its king. A king
    /// takes one of its own only where [`OWN`] allows it (see the king's moves).
    pub(crate) const CAPTURE: u16 = 1 << 1;
    /// An enemy king the perspective army may capture (king capture on).
    pub(crate) const KING_CAPTURE: u16 = 1 << 2;
    /// A piece of the perspective army itself.
    pub(crate) const OWN: u16 = 1 << 3;
    /// A live enemy rook or queen.
    pub(crate) const ENEMY_ORTHOGONAL: u16 = 1 << 4;
    /// A live enemy bishop or queen.
    pub(crate) const ENEMY_DIAGONAL: u16 = 1 << 5;
    /// A live enemy knight.
    pub(crate) const ENEMY_KNIGHT: u16 = 1 << 6;
    /// A live enemy king.
    pub(crate) const ENEMY_KING: u16 = 1 << 7;
    /// A live enemy pawn of army `a` has bit `ENEMY_PAWN << a`.
    pub(crate) const ENEMY_PAWN: u16 = 1 << 8;
}

/// What an army's pieces are doing in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ArmyStatus {
    /// In the game: it moves, attacks and can be attacked.
    Playing = 0,
    /// Out of the game, but its king walks on by itself (free-for-all with walking kings): the
    /// king moves and attacks, the other pieces are grey.
    KingWalking = 1,
    /// Out of the game: every piece is grey (never moves, never attacks, capturable for nothing).
    Out = 2,
    /// Not part of this game at all (Blue and Green in Duo).
    Absent = 3,
}

impl ArmyStatus {
    /// Whether the army takes turns (it is playing, or its king walks).
    #[inline]
    pub const fn takes_turns(self) -> bool {
        matches!(self, ArmyStatus::Playing | ArmyStatus::KingWalking)
    }

    /// Whether the army's `role` pieces move and attack.
    #[inline]
    pub const fn is_live(self, role: Role) -> bool {
        match self {
            ArmyStatus::Playing => true,
            ArmyStatus::KingWalking => matches!(role, Role::King),
            _ => false,
        }
    }
}

/// Whether `a` and `b` are partners (never capture or attack each other).
#[inline]
pub(crate) const fn partners(format: Format, a: Army, b: Army) -> bool {
    matches!(format, Format::Teams) && a as u8 == b.opposite() as u8
}

/// Builds the class table of `perspective`.
pub(crate) fn class_table(
    perspective: Army,
    format: Format,
    status: &ByArmy<ArmyStatus>,
    king_capture: bool,
    friendly_capture: bool,
) -> [u16; 256] {
    use class::*;
    let mut table = [0u16; 256];
    table[0] = EMPTY;
    // A walking king may take the grey pieces of its own army, like anyone else's.
    let takes_own = friendly_capture || status[perspective] == ArmyStatus::KingWalking;
    for (code, entry) in table.iter_mut().enumerate() {
        let Some(piece) = Piece::from_code(code as u8) else {
            continue;
        };
        let is_king = piece.role == Role::King;
        *entry = if piece.army == perspective {
            OWN | if takes_own && !is_king { CAPTURE } else { 0 }
        } else if partners(format, perspective, piece.army) {
            0
        } else if status[piece.army].is_live(piece.role) {
            let attack = match piece.role {
                Role::Pawn => ENEMY_PAWN << piece.army as u16,
                Role::Knight => ENEMY_KNIGHT,
                Role::Bishop => ENEMY_DIAGONAL,
                Role::Rook => ENEMY_ORTHOGONAL,
                Role::Queen => ENEMY_DIAGONAL | ENEMY_ORTHOGONAL,
                Role::King => ENEMY_KING,
            };
            let take = if !is_king {
                CAPTURE
            } else if king_capture {
                KING_CAPTURE
            } else {
                0
            };
            attack | take
        } else {
            // A grey piece, the grey king included: anyone may take it, for nothing.
            CAPTURE
        };
    }
    table
}

/// The empty board: 0 on every square, [`WALL`] everywhere else.
pub(crate) fn empty_cells(kind: BoardKind) -> [u8; 256] {
    let mut cells = [WALL; 256];
    for sq in kind.squares() {
        cells[sq.cell() as usize] = 0;
    }
    cells
}

/// Whether the cell code is a piece of `army` (any role).
#[inline]
pub(crate) const fn is_army(code: u8, army: Army) -> bool {
    code != 0 && code & WALL == 0 && (code >> 3) & 3 == army as u8
}

/// The role bits of a cell code.
#[inline]
pub(crate) const fn role_bits(code: u8) -> u8 {
    code & 7
}

/// Which army's pawns attack a square from the neighbour in diagonal direction `i` (4–7).
pub(crate) const fn pawn_attackers_from(i: usize) -> u16 {
    use class::ENEMY_PAWN;
    // The pawn stands at square + DIRECTIONS[i] and captures with the opposite offset.
    let armies: [Army; 2] = match i {
        4 => [Army::Yellow, Army::Green], // +17: pawn up-right, capturing down-left
        5 => [Army::Blue, Army::Yellow],  // +15: pawn up-left, capturing down-right
        6 => [Army::Red, Army::Green],    // -15: pawn down-right, capturing up-left
        _ => [Army::Red, Army::Blue],     // -17: pawn down-left, capturing up-right
    };
    ENEMY_PAWN << armies[0] as u16 | ENEMY_PAWN << armies[1] as u16
}

/// `sq`'s cell in a board array.
#[inline]
pub(crate) fn at(cells: &[u8; 256], sq: Square) -> u8 {
    cells[sq.cell() as usize]
}
