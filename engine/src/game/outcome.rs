//! How a game ends.

use crate::army::{ArmySet, ByArmy};
use crate::game::seat::{Seat, Team};
use crate::rules::Format;

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Teams or Duo: one team won.
    Win {
        /// The winning team.
        team: Team,
        /// Why.
        reason: WinReason,
    },
    /// Teams or Duo: a draw.
    Draw {
        /// Why.
        reason: DrawReason,
    },
    /// Free-for-all: final points; the highest total wins, ties share.
    Standings {
        /// Every army's final points.
        points: ByArmy<i32>,
        /// The armies with the highest total.
        winners: ArmySet,
        /// Why the game ended.
        reason: FfaEnding,
    },
}

/// Why a team won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// An opponent was checkmated.
    Checkmate {
        /// The mated seat.
        mated: Seat,
    },
    /// An opponent's king was captured.
    KingCaptured {
        /// The seat whose king was taken.
        victim: Seat,
    },
    /// An opponent resigned (with the partner's consent where the rules ask for it).
    Resignation {
        /// The seat that resigned.
        seat: Seat,
    },
    /// A pawn reached its promotion line (pawn breakthrough twist).
    Breakthrough {
        /// The seat whose pawn broke through.
        seat: Seat,
    },
    /// The opponents' time ran out.
    Timeout {
        /// The seat on whose turn the time ran out.
        seat: Seat,
    },
    /// An opponent left and the win was claimed.
    Abandonment {
        /// The seat that left.
        seat: Seat,
    },
}

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The player to move had no legal move and was not in check.
    Stalemate {
        /// The stalemated seat.
        seat: Seat,
    },
    /// Everyone still in agreed.
    Agreement,
    /// The same position for the third time.
    Repetition,
    /// The fifty-move rule.
    FiftyMoves,
    /// Nobody can mate any more (bare kings; Duo: insufficient material).
    DeadPosition,
    /// The move limit was reached.
    MoveLimit,
    /// `seat` ran out of time, but the other team has not the material to mate (chess's rule).
    TimeoutVsInsufficientMaterial {
        /// The seat whose time ran out.
        seat: Seat,
    },
}

/// Why a free-for-all ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfaEnding {
    /// Three players are out.
    LastPlayer,
    /// Two players left, the leader more than 20 ahead and nobody out ahead of the leader.
    Lead,
    /// The leader claimed the win under the same condition.
    Claimed {
        /// The claiming seat.
        seat: Seat,
    },
    /// A draw rule ended the game (everyone still in scored 10 unless the players agreed);
    /// points decide.
    Draw(DrawReason),
    /// The move limit was reached; points decide.
    MoveLimit,
}

impl Outcome {
    /// The winners as armies in a game of `format`: the armies the winning team's seats play (two
    /// on the cross board, one in Duo, where a team shares one army), or the free-for-all leaders
    /// (empty for a draw).
    pub fn winning_armies(&self, format: Format) -> ArmySet {
        match self {
            Outcome::Win { team, .. } => team.seats().iter().map(|s| s.army(format)).collect(),
            Outcome::Draw { .. } => ArmySet::EMPTY,
            Outcome::Standings { winners, .. } => *winners,
        }
    }
}
