//! What happened in a game: plies and the consequences they had.

use crate::army::{Army, ArmySet};
use crate::game::seat::Seat;
use crate::moves::Move;
use crate::piece::Piece;
use crate::position::Undo;
use crate::square::Square;

/// Why an army left a free-for-all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elimination {
    /// Checkmated (PGN4 token `#`).
    Checkmate,
    /// Stalemated (`S`).
    Stalemate,
    /// Resigned (`R`).
    Resigned,
    /// Timed out (`T`).
    TimedOut,
    /// Its king was captured.
    KingCaptured,
}

impl Elimination {
    /// The PGN4 quarter-move token for this elimination.
    pub const fn token(self) -> &'static str {
        match self {
            Elimination::Checkmate | Elimination::KingCaptured => "#",
            Elimination::Stalemate => "S",
            Elimination::Resigned => "R",
            Elimination::TimedOut => "T",
        }
    }
}

/// Why points were scored in free-for-all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScoreReason {
    /// A piece was captured (its value; promoted pieces 1).
    Capture(Piece),
    /// A king was captured (20).
    KingCapture,
    /// A checkmate (20, to the attacker who moved last).
    Checkmate,
    /// One move checked two kings (5, or 1 with a queen).
    DoubleCheck,
    /// One move checked three kings (20, or 5 with a queen).
    TripleCheck,
    /// The player was stalemated (20, to the stalemated player).
    Stalemate,
    /// A walking king was stalemated: its 20 are shared by the players still in (10 each for
    /// two, 7 each for three).
    WalkingKingStalemate,
    /// A draw: 10 to every player still in.
    DrawBonus,
    /// The last player in scores 20 for every king still walking.
    WalkingKingBonus,
}

/// Something a ply or an action caused besides moving pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Consequence {
    /// An army left the game (its pieces turned grey, or its king walks on).
    Eliminated {
        /// The army.
        army: Army,
        /// Why.
        reason: Elimination,
        /// Whether its king walks on by itself.
        king_walks: bool,
        /// Whether it left on its own turn (it resigned then, or was found mated or stalemated
        /// when its turn began): PGN4 writes a token in its place in the round. A mate a move
        /// gives at once is marked on that move instead, and a captured king not at all.
        on_turn: bool,
    },
    /// Free-for-all points.
    Scored {
        /// Who scored.
        army: Army,
        /// How many.
        points: i32,
        /// Why.
        reason: ScoreReason,
    },
}

/// One move in a game, with what it caused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The seat that moved (the walking king's seat for a walking move).
    pub seat: Seat,
    /// The army that moved.
    pub army: Army,
    /// The move.
    pub mv: Move,
    /// The move in notation: long algebraic on the cross board, SAN in Duo.
    pub text: String,
    /// The piece that moved (before any promotion).
    pub piece: Piece,
    /// The piece it captured, if any.
    pub captured: Option<Piece>,
    /// The kings the move put in check (`+`, `++`, `+++`): those that a piece attacks after it
    /// that did not before, the moved piece or one whose line it opened, whoever's it is.
    pub checks: ArmySet,
    /// Every king attacked after the move was settled, by anyone.
    pub kings_in_check: ArmySet,
    /// The squares of the pieces attacking those kings (`kings_in_check`) after the move, rank by
    /// rank, so that a board can mark who gives each check, a discovered one included, without
    /// rules of its own. Kept in place (a `SquareSet` made every ply a third larger): more than
    /// eight such pieces have never been seen in play; any beyond eight are left out.
    pub checkers: arrayvec::ArrayVec<Square, 8>,
    /// How many players the move mated (`#` each): those mated at once by it, and in Teams the
    /// one whose turn it led to, found mated then.
    pub mates: u8,
    /// Whether a walking king made it by itself.
    pub walking: bool,
    /// Whether it ended a draw offer that was open (a move answers an offer with no).
    pub ended_draw_offer: bool,
    /// Eliminations and points it caused, in order.
    pub consequences: Vec<Consequence>,
    /// The squares whose contents changed (rook squares of a castle and the square of a pawn
    /// taken en passant included): at most four, kept in place rather than allocated for
    /// every move.
    pub changed: arrayvec::ArrayVec<Square, 4>,
    /// Restores the position before the move.
    pub(crate) undo: Undo,
}

/// An entry of a game's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A move.
    Ply(Ply),
    /// Something done outside a move: a resignation, a timeout, a draw, a claim.
    Action {
        /// Who acted.
        seat: Seat,
        /// What they did.
        action: Action,
        /// What it caused.
        consequences: Vec<Consequence>,
    },
}

/// An action outside a move that changes the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The seat resigned (or its resignation was accepted by the partner).
    Resigned,
    /// The seat ran out of time.
    TimedOut,
    /// Everyone agreed to a draw.
    DrawAgreed,
    /// The seat claimed the win in free-for-all.
    ClaimedWin,
    /// The seat left and the other team claimed the win.
    Abandoned,
    /// The position the game started from was assessed (a mate or stalemate already there).
    Start,
}
