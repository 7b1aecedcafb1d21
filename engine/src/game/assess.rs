//! What a move or an elimination means for the game: points, eliminations, mates, draws and the
//! end of the game. Section 5 of the rules ("Assessing the player whose turn begins") lives here.

use crate::army::{Army, ArmySet};
use crate::board::ArmyStatus;
use crate::game::event::{Consequence, Elimination, Ply, ScoreReason};
use crate::game::outcome::{DrawReason, FfaEnding, Outcome, WinReason};
use crate::game::{Game, capture_value};
use crate::piece::Role;
use crate::rules::{Format, MateTiming};

impl Game {
    /// Settles what the move in `ply` (already played on the position) caused, up to and
    /// including the assessment of the next player's turn start.
    pub(super) fn settle_move(&mut self, ply: &mut Ply) {
        let mover = ply.army;
        let ffa = self.rules.format == Format::FreeForAll;
        if let Some(captured) = ply.captured {
            if captured.role == Role::King {
                if !ffa {
                    let victim = self.seat_of(captured.army);
                    self.outcome = Some(Outcome::Win {
                        team: ply.seat.team(),
                        reason: WinReason::KingCaptured { victim },
                    });
                    return;
                }
                self.score(
                    mover,
                    capture_value(captured),
                    ScoreReason::KingCapture,
                    &mut ply.consequences,
                );
                self.eliminate(
                    captured.army,
                    Elimination::KingCaptured,
                    false,
                    &mut ply.consequences,
                );
            } else if ffa && self.position.status(captured.army) == ArmyStatus::Playing {
                self.score(
                    mover,
                    capture_value(captured),
                    ScoreReason::Capture(captured),
                    &mut ply.consequences,
                );
            }
        }
        if self.rules.pawn_breakthrough
            && ply.piece.role == Role::Pawn
            && self.position.board().own_rank(mover, ply.mv.to()) == self.rules.promotion_rank - 1
        {
            self.outcome = Some(Outcome::Win {
                team: ply.seat.team(),
                reason: WinReason::Breakthrough { seat: ply.seat },
            });
            return;
        }
        // The armies in check, found once: the mover's checks are among them, and the ply's
        // `kings_in_check` reuses them unless what follows changes the position.
        let checked = self.position.checked_armies();
        self.checked = Some((self.position.hash(), checked));
        ply.checks = self.kings_checked_by(mover, checked);
        if ffa {
            let with_queen = ply.mv.promotion().unwrap_or(ply.piece.role) == Role::Queen;
            let bonus = match (ply.checks.len(), with_queen) {
                (2, false) => Some((5, ScoreReason::DoubleCheck)),
                (2, true) => Some((1, ScoreReason::DoubleCheck)),
                (3, false) => Some((20, ScoreReason::TripleCheck)),
                (3, true) => Some((5, ScoreReason::TripleCheck)),
                _ => None,
            };
            if let Some((points, reason)) = bonus {
                self.score(mover, points, reason, &mut ply.consequences);
            }
        }
        if self.rules.mate == MateTiming::Immediate {
            for army in Army::ALL {
                if self.outcome.is_some() {
                    return;
                }
                if !self.position.is_enemy(mover, army) || !self.position.is_check(army) {
                    continue;
                }
                // Only the en passant rights of those who moved after `army` last did are its to use.
                if self
                    .position
                    .has_legal_move(army, ArmySet::seats_after(army, mover))
                {
                    continue;
                }
                ply.mate |= self.mated(army, &mut ply.consequences) == Some(mover);
            }
        }
        if ffa {
            self.check_free_for_all_end(&mut ply.consequences);
        }
        let mated = self.assess_turn_start(&mut ply.consequences);
        ply.mate |= mated.contains(mover);
    }

    /// Assesses the player whose turn begins (rules section 5): with a legal move they play on;
    /// without one they are mated or stalemated. In free-for-all this repeats for the next player
    /// after each elimination. Returns the armies credited with a mate.
    pub(super) fn assess_turn_start(&mut self, consequences: &mut Vec<Consequence>) -> ArmySet {
        let mut credited = ArmySet::EMPTY;
        while self.outcome.is_none() {
            let army = self.position.turn();
            // The whole list rather than a search for any one move: the server asks for the
            // list next (see `KeptMoves`).
            if !self.kept.of(&self.position).is_empty() {
                break;
            }
            if self.position.is_check(army) {
                if let Some(by) = self.mated(army, consequences) {
                    credited = credited.with(by);
                }
            } else if self.rules.format == Format::FreeForAll {
                if self.position.status(army) == ArmyStatus::Playing {
                    self.score(army, 20, ScoreReason::Stalemate, consequences);
                }
                self.eliminate(army, Elimination::Stalemate, false, consequences);
            } else {
                self.outcome = Some(Outcome::Draw {
                    reason: DrawReason::Stalemate {
                        seat: self.seat_of(army),
                    },
                });
            }
            if self.rules.format == Format::FreeForAll {
                self.check_free_for_all_end(consequences);
            }
        }
        credited
    }

    /// `army` is checkmated: the game ends for its team, or in free-for-all it is out and the
    /// attacker who moved last scores 20. Returns that attacker.
    fn mated(&mut self, army: Army, consequences: &mut Vec<Consequence>) -> Option<Army> {
        let by = self.attacker_who_moved_last(army);
        if self.rules.format == Format::FreeForAll {
            if let Some(by) = by {
                self.score(by, 20, ScoreReason::Checkmate, consequences);
            }
            self.eliminate(army, Elimination::Checkmate, false, consequences);
        } else {
            let mated = self.seat_of(army);
            self.outcome = Some(Outcome::Win {
                team: mated.team().other(),
                reason: WinReason::Checkmate { mated },
            });
        }
        by
    }

    /// Of the armies whose pieces attack `army`'s king, the one that moved most recently.
    fn attacker_who_moved_last(&self, army: Army) -> Option<Army> {
        let king = self.position.king(army)?;
        self.position
            .attackers(king, army)
            .iter()
            .filter_map(|sq| self.position.piece_at(sq))
            .map(|p| p.army)
            .max_by_key(|&a| self.last_moved[a])
    }

    /// The enemy kings that `army`'s own pieces attack, of the armies in check (`checked`: an
    /// enemy takes turns, so a king of an enemy that `army` attacks is in check).
    fn kings_checked_by(&self, army: Army, checked: ArmySet) -> ArmySet {
        checked
            .iter()
            .filter(|&other| self.position.is_enemy(army, other))
            .filter(|&other| {
                self.position.king(other).is_some_and(|king| {
                    self.position
                        .attackers(king, other)
                        .iter()
                        .any(|sq| self.position.piece_at(sq).is_some_and(|p| p.army == army))
                })
            })
            .collect()
    }

    /// Puts `army` out of a free-for-all: its pieces turn grey, or its king walks on.
    pub(super) fn eliminate(
        &mut self,
        army: Army,
        reason: Elimination,
        king_walks: bool,
        consequences: &mut Vec<Consequence>,
    ) {
        let king_walks = king_walks && self.position.king(army).is_some();
        let status = if king_walks {
            ArmyStatus::KingWalking
        } else {
            ArmyStatus::Out
        };
        let on_turn = self.position.turn() == army;
        self.position.set_status(army, status);
        consequences.push(Consequence::Eliminated {
            army,
            reason,
            king_walks,
            on_turn,
        });
    }

    /// Adds free-for-all points. A player who is out scores nothing more, even when their walking
    /// king captures or mates.
    pub(super) fn score(
        &mut self,
        army: Army,
        points: i32,
        reason: ScoreReason,
        consequences: &mut Vec<Consequence>,
    ) {
        if self.position.status(army) != ArmyStatus::Playing {
            return;
        }
        self.points[army] += points;
        consequences.push(Consequence::Scored {
            army,
            points,
            reason,
        });
    }

    /// Ends a free-for-all when three players are out (the last scores 20 per walking king) or
    /// when the last two are more than 20 apart with nobody out ahead of the leader.
    pub(super) fn check_free_for_all_end(&mut self, consequences: &mut Vec<Consequence>) {
        if self.outcome.is_some() {
            return;
        }
        let playing: Vec<Army> = Army::ALL
            .into_iter()
            .filter(|&a| self.position.status(a) == ArmyStatus::Playing)
            .collect();
        if playing.len() <= 1 {
            let walking = Army::ALL
                .into_iter()
                .filter(|&a| self.position.status(a) == ArmyStatus::KingWalking)
                .count();
            if let (Some(&last), true) = (playing.first(), walking > 0) {
                self.score(
                    last,
                    20 * walking as i32,
                    ScoreReason::WalkingKingBonus,
                    consequences,
                );
            }
            self.outcome = Some(self.standings(FfaEnding::LastPlayer));
        } else if self.lead_ends_automatically() && self.lead_leader().is_some() {
            self.outcome = Some(self.standings(FfaEnding::Lead));
        }
    }

    /// Draws by rule after a move: threefold repetition, the fifty-move rule, a dead position, the
    /// move limit.
    pub(super) fn assess_draws(&mut self, consequences: &mut Vec<Consequence>) {
        let reason = if self.is_threefold_repetition() {
            Some(DrawReason::Repetition)
        } else if self
            .rules
            .fifty_move_plies
            .is_some_and(|n| self.position.halfmove_clock() >= n)
        {
            Some(DrawReason::FiftyMoves)
        } else if self.is_dead_position() {
            Some(DrawReason::DeadPosition)
        } else {
            None
        };
        let ffa = self.rules.format == Format::FreeForAll;
        if let Some(reason) = reason {
            if ffa {
                for army in Army::ALL {
                    if self.position.status(army) == ArmyStatus::Playing {
                        self.score(army, 10, ScoreReason::DrawBonus, consequences);
                    }
                }
                self.outcome = Some(self.standings(FfaEnding::Draw(reason)));
            } else {
                self.outcome = Some(Outcome::Draw { reason });
            }
        } else if self
            .rules
            .move_limit
            .is_some_and(|limit| self.plies >= limit)
        {
            self.outcome = Some(if ffa {
                self.standings(FfaEnding::MoveLimit)
            } else {
                Outcome::Draw {
                    reason: DrawReason::MoveLimit,
                }
            });
        }
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

    /// Whether nobody can mate any more: every army in play has a bare king; in Duo, chess's
    /// insufficient material (no pawn, rook or queen, and at most one minor piece, or only
    /// bishops all on squares of one colour).
    fn is_dead_position(&self) -> bool {
        let pos = &self.position;
        if self.rules.format == Format::Duo {
            let mut minors = 0;
            let mut bishop_colours = [false; 2];
            let mut knights = 0;
            for (sq, piece) in pos.pieces() {
                match piece.role {
                    Role::King => {}
                    Role::Pawn | Role::Rook | Role::Queen => return false,
                    Role::Knight => {
                        minors += 1;
                        knights += 1;
                    }
                    Role::Bishop => {
                        minors += 1;
                        bishop_colours[usize::from((sq.file() + sq.rank()) & 1)] = true;
                    }
                }
            }
            return minors <= 1 || (knights == 0 && !(bishop_colours[0] && bishop_colours[1]));
        }
        Army::ALL
            .into_iter()
            .filter(|&a| pos.status(a) == ArmyStatus::Playing)
            .all(|a| pos.squares_of(a).len() == 1)
    }
}
