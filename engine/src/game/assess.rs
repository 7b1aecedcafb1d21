//! How a game takes the referee's decisions (see [`super::referee`]): a move settled, each turn
//! start assessed (rules section 5), the draws by rule that need the game's history, and a
//! decision turned into an [`Outcome`] that names seats.

use crate::game::event::{Consequence, Ply};
use crate::game::outcome::{DrawReason, FfaEnding, Outcome, WinReason};
use crate::game::referee::{Before, Decision, Referee, is_dead_position};
use crate::game::{Game, Seat};
use crate::rules::Format;

impl Game {
    /// The referee of the game's position, writing to `record`.
    pub(super) fn referee<'a>(
        &'a mut self,
        record: &'a mut Vec<Consequence>,
    ) -> Referee<'a, Vec<Consequence>> {
        Referee::new(
            &self.rules,
            &mut self.position,
            &mut self.points,
            &mut self.mate_made_by,
            record,
        )
    }

    /// Settles what the move in `ply` (already played on the position) caused, up to and
    /// including the assessment of the next player's turn start.
    pub(super) fn settle_move(&mut self, ply: &mut Ply, before: &Before) {
        let (army, mv, piece, captured) = (ply.army, ply.mv, ply.piece, ply.captured);
        let settled = self
            .referee(&mut ply.consequences)
            .settle_move(army, mv, piece, captured, before);
        ply.checks = settled.checks;
        ply.mates = settled.mates;
        // The ply's `kings_in_check` reuses these unless what follows changes the position.
        if let Some(after) = settled.after {
            self.checked = Some((after.hash, after.checked));
        }
        if let Some(decision) = settled.decision {
            self.decide(decision, Some(ply.seat));
            return;
        }
        // A mate found when the next turn begins is that player's own token, not this move's
        // mark.
        self.assess_turn_start(&mut ply.consequences);
    }

    /// Assesses the player whose turn begins (rules section 5): with a legal move they play on;
    /// without one they are mated or stalemated. In free-for-all this repeats for the next player
    /// after each elimination.
    pub(super) fn assess_turn_start(&mut self, consequences: &mut Vec<Consequence>) {
        while self.outcome.is_none() {
            // The whole list rather than a search for any one move: the server asks for the
            // list next (see `KeptMoves`).
            if !self.kept.of(&self.position).is_empty() {
                break;
            }
            if let Some(decision) = self.referee(consequences).no_legal_move() {
                self.decide(decision, None);
            }
        }
    }

    /// Draws by rule after a move: threefold repetition, the fifty-move rule, a dead position, the
    /// move limit.
    pub(super) fn assess_draws(&mut self, consequences: &mut Vec<Consequence>) {
        let reason = if self.is_threefold_repetition() {
            Some(DrawReason::Repetition)
        } else if self
            .rules
            .fifty_move_limit(self.position.armies_taking_turns().len())
            .is_some_and(|n| self.position.halfmove_clock() >= n)
        {
            Some(DrawReason::FiftyMoves)
        } else if is_dead_position(&self.position, self.rules.format) {
            Some(DrawReason::DeadPosition)
        } else {
            None
        };
        if let Some(reason) = reason {
            let decision = self.referee(consequences).draw(reason);
            self.decide(decision, None);
        } else if self
            .rules
            .move_limit
            .is_some_and(|limit| self.plies >= limit)
        {
            self.outcome = Some(if self.rules.format == Format::FreeForAll {
                self.standings(FfaEnding::MoveLimit)
            } else {
                Outcome::Draw {
                    reason: DrawReason::MoveLimit,
                }
            });
        }
    }

    /// Ends the game as the referee decided. `mover` is the seat whose move brought the decision,
    /// if a move did (in Duo the army alone does not tell which partner moved).
    pub(super) fn decide(&mut self, decision: Decision, mover: Option<Seat>) {
        let seat_of_mover = |game: &Game, by| mover.unwrap_or_else(|| game.seat_of(by));
        self.outcome = Some(match decision {
            Decision::KingCaptured { by, victim } => Outcome::Win {
                team: seat_of_mover(self, by).team(),
                reason: WinReason::KingCaptured {
                    victim: self.seat_of(victim),
                },
            },
            Decision::Breakthrough { by } => {
                let seat = seat_of_mover(self, by);
                Outcome::Win {
                    team: seat.team(),
                    reason: WinReason::Breakthrough { seat },
                }
            }
            Decision::Checkmated { army } => {
                let mated = self.seat_of(army);
                Outcome::Win {
                    team: mated.team().other(),
                    reason: WinReason::Checkmate { mated },
                }
            }
            Decision::Stalemated { army } => Outcome::Draw {
                reason: DrawReason::Stalemate {
                    seat: self.seat_of(army),
                },
            },
            Decision::Drawn(reason) => Outcome::Draw { reason },
            Decision::Standings(ending) => self.standings(ending),
        });
    }

    /// Whether the current position has occurred three times. Only positions since the last
    /// capture or pawn move can repeat it.
    fn is_threefold_repetition(&self) -> bool {
        let Some((&current, earlier)) = self.keys.split_last() else {
            return false;
        };
        let window = usize::from(self.position.halfmove_clock());
        earlier
            .iter()
            .rev()
            .take(window)
            .filter(|&&k| k == current)
            .count()
            >= 2
    }
}
