//! Piece kinds and pieces.

use std::fmt;

use crate::army::Army;

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Role {
    /// Moves forward in its army's direction, captures diagonally forward.
    Pawn = 1,
    /// Jumps two squares one way and one at right angles.
    Knight = 2,
    /// Slides diagonally.
    Bishop = 3,
    /// Slides along files and ranks.
    Rook = 4,
    /// Slides like a rook or a bishop.
    Queen = 5,
    /// Steps one square in any direction.
    King = 6,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    #[inline]
    pub(crate) const fn from_bits(bits: u8) -> Option<Role> {
        match bits {
            1 => Some(Role::Pawn),
            2 => Some(Role::Knight),
            3 => Some(Role::Bishop),
            4 => Some(Role::Rook),
            5 => Some(Role::Queen),
            6 => Some(Role::King),
            _ => None,
        }
    }

    /// The upper-case letter of the role (`P N B R Q K`).
    pub const fn upper_char(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// Parses a role letter in either case (`D`, a promoted queen in PGN4, is not a role).
    pub fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_uppercase() {
            'P' => Some(Role::Pawn),
            'N' => Some(Role::Knight),
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            'K' => Some(Role::King),
            _ => None,
        }
    }
}

/// A piece on the board: its army, its role, and whether it came from a promotion (a promoted
/// piece scores 1 when captured in free-for-all, whatever its role).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The army it belongs to.
    pub army: Army,
    /// What kind of piece it is.
    pub role: Role,
    /// Whether it was promoted from a pawn.
    pub promoted: bool,
}

impl Piece {
    /// An unpromoted piece.
    pub const fn new(army: Army, role: Role) -> Piece {
        Piece {
            army,
            role,
            promoted: false,
        }
    }

    /// The one-byte cell code used by the board (see [`crate::board`]).
    #[inline]
    pub(crate) const fn code(self) -> u8 {
        self.role as u8 | (self.army as u8) << 3 | (self.promoted as u8) << 5
    }

    /// Decodes a cell code; `None` for an empty or missing square.
    #[inline]
    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 || code & crate::board::WALL != 0 {
            return None;
        }
        match Role::from_bits(code & 7) {
            Some(role) => Some(Piece {
                army: Army::from_bits(code >> 3),
                role,
                promoted: code & PROMOTED != 0,
            }),
            None => None,
        }
    }
}

/// The cell-code bit that marks a promoted piece.
pub(crate) const PROMOTED: u8 = 1 << 5;

impl fmt::Display for Piece {
    /// FEN4 style: army letter and role letter, e.g. `rK`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.army.letter(), self.role.upper_char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_codes_round_trip() {
        for army in Army::ALL {
            for role in Role::ALL {
                for promoted in [false, true] {
                    let piece = Piece {
                        army,
                        role,
                        promoted,
                    };
                    assert_eq!(Piece::from_code(piece.code()), Some(piece));
                }
            }
        }
        assert_eq!(Piece::from_code(0), None);
    }
}
