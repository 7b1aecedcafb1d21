//! An unvalidated description of a position, as a parser produces it.

use crate::army::{Army, ByArmy};
use crate::board::ArmyStatus;
use crate::geometry::{BoardKind, CastleSide};
use crate::piece::{Piece, Role};
use crate::square::Square;

/// The en passant right an army's last double step opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnPassant {
    /// The square the pawn skipped (where an enemy pawn captures).
    pub skipped: Square,
    /// The square the pawn landed on (where it is taken from).
    pub landed: Square,
}

/// Everything that describes a position, unchecked. [`crate::Position::from_setup`] turns it into
/// a [`crate::Position`] or says what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The board.
    pub board: BoardKind,
    /// The pieces and their squares.
    pub pieces: Vec<(Square, Piece)>,
    /// The army to move.
    pub turn: Army,
    /// Castling rights per army: `[king side, queen side]`.
    pub castling: ByArmy<[bool; 2]>,
    /// Open en passant rights per army (the army whose pawn double-stepped).
    pub en_passant: ByArmy<Option<EnPassant>>,
    /// Which armies are in play, walking or out.
    pub status: ByArmy<ArmyStatus>,
    /// Free-for-all points (FEN4 carries them; the position itself does not use them).
    pub points: ByArmy<i32>,
    /// Plies since the last capture or pawn move.
    pub halfmove_clock: u16,
}

impl Setup {
    /// The standard start position of `board` with `first` to move.
    pub fn start(board: BoardKind, first: Army) -> Setup {
        let armies = board.armies();
        Setup {
            castling: ByArmy::from_fn(|a| [armies.contains(a); 2]),
            ..Setup::with_pieces(board, board.start_pieces(), first)
        }
    }

    /// `pieces` on `board` with `turn` to move: every army of the board playing, none with a
    /// castling or en passant right, no points, no plies since a capture.
    pub fn with_pieces(board: BoardKind, pieces: Vec<(Square, Piece)>, turn: Army) -> Setup {
        let armies = board.armies();
        Setup {
            board,
            pieces,
            turn,
            castling: ByArmy::default(),
            en_passant: ByArmy::default(),
            status: ByArmy::from_fn(|a| {
                if armies.contains(a) {
                    ArmyStatus::Playing
                } else {
                    ArmyStatus::Absent
                }
            }),
            points: ByArmy::default(),
            halfmove_clock: 0,
        }
    }

    /// The castling right of `army` on `side`.
    pub fn can_castle(&self, army: Army, side: CastleSide) -> bool {
        self.castling[army][side as usize]
    }

    /// Drops the castling rights that can no longer apply: those whose king or rook is not on
    /// its home square. Readers do this, as python-chess and shakmaty's lenient mode do for FEN,
    /// because real engines' test positions carry such rights; [`crate::Position::from_setup`]
    /// refuses them. Returns the rights dropped, by army and side.
    pub fn drop_lost_castling_rights(&mut self) -> Vec<(Army, CastleSide)> {
        let mut dropped = Vec::new();
        for army in self.board.armies().iter() {
            for side in CastleSide::ALL {
                if !self.can_castle(army, side) {
                    continue;
                }
                let castle = self.board.castle(army, side);
                let stands = |sq: Square, role: Role| {
                    self.pieces
                        .iter()
                        .any(|&(at, p)| at == sq && p.army == army && p.role == role)
                };
                if !(stands(castle.king_from, Role::King) && stands(castle.rook_from, Role::Rook)) {
                    self.castling[army][side as usize] = false;
                    dropped.push((army, side));
                }
            }
        }
        dropped
    }
}
