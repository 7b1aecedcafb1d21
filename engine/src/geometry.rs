//! Board shapes and the fixed geometry of moves: directions, pawn directions, castling paths,
//! start positions.

use crate::army::{Army, ArmySet};
use crate::piece::{Piece, Role};
use crate::square::Square;

/// Which board a game is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// The 14×14 cross with its 3×3 corners removed: 160 squares, four armies.
    Cross,
    /// The ordinary 8×8 board of Duo: 64 squares, White (`Army::Red`) and Black (`Army::Yellow`).
    Classic,
}

impl BoardKind {
    /// Files (and ranks) along one side: 14 or 8.
    #[inline]
    pub const fn size(self) -> u8 {
        match self {
            BoardKind::Cross => 14,
            BoardKind::Classic => 8,
        }
    }

    /// Whether `sq` is a real square of this board.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        let (f, r) = (sq.file(), sq.rank());
        match self {
            BoardKind::Cross => !((f < 3 || f > 10) && (r < 3 || r > 10)),
            BoardKind::Classic => f < 8 && r < 8,
        }
    }

    /// Every square of the board, rank 1 first, file a first within a rank.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let size = self.size();
        (0..size)
            .flat_map(move |r| (0..size).filter_map(move |f| Square::new(f, r)))
            .filter(move |&sq| self.contains(sq))
    }

    /// The number of squares: 160 or 64.
    pub const fn square_count(self) -> usize {
        match self {
            BoardKind::Cross => 160,
            BoardKind::Classic => 64,
        }
    }

    /// The armies that play on this board.
    pub const fn armies(self) -> ArmySet {
        match self {
            BoardKind::Cross => ArmySet::ALL,
            BoardKind::Classic => ArmySet::single(Army::WHITE).with(Army::BLACK),
        }
    }

    /// The square at `x` along `army`'s back rank (from its own left) and `y` ranks forward from it,
    /// in that army's own frame. Both are 0-based grid coordinates (0–13 on the cross board).
    pub(crate) const fn own_square(self, army: Army, x: u8, y: u8) -> Square {
        let n = self.size() - 1;
        let (file, rank) = match (self, army) {
            (_, Army::Red) => (x, y),
            (BoardKind::Cross, Army::Blue) => (y, n - x),
            (BoardKind::Cross, Army::Yellow) => (n - x, n - y),
            (BoardKind::Cross, Army::Green) => (n - y, x),
            // Chess is mirrored, not rotated: both queens stand on the d-file.
            (BoardKind::Classic, _) => (x, n - y),
        };
        match Square::new(file, rank) {
            Some(sq) => sq,
            None => panic!("own_square outside the grid"),
        }
    }

    /// How many ranks `sq` lies forward of `army`'s back rank (0 on the back rank).
    #[inline]
    pub(crate) const fn own_rank(self, army: Army, sq: Square) -> u8 {
        let n = self.size() - 1;
        match army {
            Army::Red => sq.rank(),
            Army::Blue => sq.file(),
            Army::Yellow => n - sq.rank(),
            Army::Green => n - sq.file(),
        }
    }

    /// The back-rank layout from each army's own left: where the first piece stands and the order.
    const fn back_rank(self) -> (u8, [Role; 8]) {
        use Role::*;
        match self {
            BoardKind::Cross => (3, [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook]),
            BoardKind::Classic => (0, [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook]),
        }
    }

    /// The pieces of the standard start position.
    pub fn start_pieces(self) -> Vec<(Square, Piece)> {
        let (x0, order) = self.back_rank();
        let mut pieces = Vec::with_capacity(64);
        for army in self.armies().iter() {
            for (i, role) in order.iter().enumerate() {
                let x = x0 + i as u8;
                pieces.push((self.own_square(army, x, 0), Piece::new(army, *role)));
                pieces.push((self.own_square(army, x, 1), Piece::new(army, Role::Pawn)));
            }
        }
        pieces
    }

    /// The castling geometry of `army` on `side`.
    pub(crate) const fn castle(self, army: Army, side: CastleSide) -> Castle {
        // In the army's own frame: king at x = x0 + 4, rooks at x0 and x0 + 7.
        let (x0, _) = self.back_rank();
        let king = x0 + 4;
        let (rook, king_to, rook_to) = match side {
            CastleSide::King => (x0 + 7, king + 2, king + 1),
            CastleSide::Queen => (x0, king - 2, king - 1),
        };
        let mut between = [Square::from_cell(0); 3];
        let mut n = 0;
        let (lo, hi) = if rook < king {
            (rook + 1, king)
        } else {
            (king + 1, rook)
        };
        let mut x = lo;
        while x < hi {
            between[n] = self.own_square(army, x, 0);
            n += 1;
            x += 1;
        }
        Castle {
            king_from: self.own_square(army, king, 0),
            king_to: self.own_square(army, king_to, 0),
            rook_from: self.own_square(army, rook, 0),
            rook_to: self.own_square(army, rook_to, 0),
            between,
            between_len: n as u8,
        }
    }
}

/// The side of a castle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastleSide {
    /// Toward the rook nearer the king (`O-O`).
    King,
    /// Toward the rook on the queen's side (`O-O-O`).
    Queen,
}

impl CastleSide {
    /// Both sides, king side first.
    pub const ALL: [CastleSide; 2] = [CastleSide::King, CastleSide::Queen];
}

/// Where king and rook stand before and after one castle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Castle {
    pub(crate) king_from: Square,
    pub(crate) king_to: Square,
    pub(crate) rook_from: Square,
    pub(crate) rook_to: Square,
    /// Squares strictly between king and rook, which must be empty.
    between: [Square; 3],
    between_len: u8,
}

impl Castle {
    pub(crate) fn between(&self) -> &[Square] {
        &self.between[..self.between_len as usize]
    }

    /// The square the king crosses (where the rook lands).
    #[inline]
    pub(crate) fn crossed(&self) -> Square {
        self.rook_to
    }
}

/// Grid offsets of the eight line directions: four orthogonal, then four diagonal.
pub(crate) const DIRECTIONS: [i8; 8] = [16, -16, 1, -1, 17, 15, -15, -17];
/// Index range of orthogonal directions in [`DIRECTIONS`].
pub(crate) const ORTHOGONAL: std::ops::Range<usize> = 0..4;
/// Index range of diagonal directions in [`DIRECTIONS`].
pub(crate) const DIAGONAL: std::ops::Range<usize> = 4..8;
/// Grid offsets of the eight knight jumps.
pub(crate) const KNIGHT_JUMPS: [i8; 8] = [33, 31, 18, 14, -14, -18, -31, -33];

/// The grid offset of a pawn's step forward.
#[inline]
pub(crate) const fn pawn_forward(army: Army) -> i8 {
    match army {
        Army::Red => 16,
        Army::Blue => 1,
        Army::Yellow => -16,
        Army::Green => -1,
    }
}

/// The grid offsets of a pawn's two captures.
#[inline]
pub(crate) const fn pawn_captures(army: Army) -> [i8; 2] {
    match army {
        Army::Red => [15, 17],
        Army::Blue => [17, -15],
        Army::Yellow => [-15, -17],
        Army::Green => [15, -17],
    }
}

/// Steps from `sq` by a grid offset. The result may be a wall cell, never out of the grid.
#[inline]
pub(crate) const fn step(sq: Square, offset: i8) -> Square {
    Square::from_cell(sq.cell().wrapping_add(offset as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn the_cross_board_has_160_squares_and_the_classic_64() {
        assert_eq!(BoardKind::Cross.squares().count(), 160);
        assert_eq!(BoardKind::Classic.squares().count(), 64);
        assert!(!BoardKind::Cross.contains(sq("c3")));
        assert!(BoardKind::Cross.contains(sq("d1")) && BoardKind::Cross.contains(sq("a4")));
        assert!(!BoardKind::Cross.contains(sq("l12")) && BoardKind::Cross.contains(sq("k14")));
    }

    #[test]
    fn start_squares_match_the_table_of_rules() {
        let pieces = BoardKind::Cross.start_pieces();
        let at = |name: &str| {
            pieces
                .iter()
                .find(|(s, _)| *s == sq(name))
                .map(|(_, p)| *p)
                .unwrap()
        };
        assert_eq!(at("h1"), Piece::new(Army::Red, Role::King));
        assert_eq!(at("g1"), Piece::new(Army::Red, Role::Queen));
        assert_eq!(at("a7"), Piece::new(Army::Blue, Role::King));
        assert_eq!(at("a8"), Piece::new(Army::Blue, Role::Queen));
        assert_eq!(at("a11"), Piece::new(Army::Blue, Role::Rook));
        assert_eq!(at("g14"), Piece::new(Army::Yellow, Role::King));
        assert_eq!(at("h14"), Piece::new(Army::Yellow, Role::Queen));
        assert_eq!(at("n8"), Piece::new(Army::Green, Role::King));
        assert_eq!(at("n7"), Piece::new(Army::Green, Role::Queen));
        assert_eq!(at("m4"), Piece::new(Army::Green, Role::Pawn));
        assert_eq!(pieces.len(), 64);
    }

    #[test]
    fn castling_paths() {
        let c = BoardKind::Cross.castle(Army::Blue, CastleSide::King);
        assert_eq!(
            (c.king_from, c.king_to, c.rook_from, c.rook_to),
            (sq("a7"), sq("a5"), sq("a4"), sq("a6"))
        );
        let c = BoardKind::Cross.castle(Army::Green, CastleSide::Queen);
        assert_eq!(
            (c.king_to, c.rook_from, c.rook_to),
            (sq("n6"), sq("n4"), sq("n7"))
        );
        assert_eq!(c.between(), &[sq("n5"), sq("n6"), sq("n7")]);
        let c = BoardKind::Classic.castle(Army::BLACK, CastleSide::Queen);
        assert_eq!(
            (c.king_from, c.king_to, c.rook_from, c.rook_to),
            (sq("e8"), sq("c8"), sq("a8"), sq("d8"))
        );
    }
}
