//! What a move or an elimination means for the game: points, eliminations, mates, draws and the
//! end of the game. Section 5 of the rules ("Assessing the player whose turn begins") lives here.

use crate::army::{Army, ArmySet};
use crate::board::ArmyStatus;
use crate::checks::{KingAttackers, checks_given};
use crate::game::event::{Consequence, Elimination, Ply, ScoreReason};
use crate::game::outcome::{DrawReason, FfaEnding, Outcome, WinReason};
use crate::game::{Game, capture_value};
use crate::piece::Role;
use crate::rules::{FfaScoring, Format, MateTiming};

impl Game {
    /// Settles what the move in `ply` (already played on the position) caused, up to and
    /// including the assessment of the next player's turn start.
    pub(super) fn settle_move(
        &mut self,
        ply: &mut Ply,
        attacked_before: &KingAttackers,
        mated_before: ArmySet,
    ) {
        let mover = ply.army;
        let ffa = self.rules.format == Format::FreeForAll;
        if let Some(captured) = ply.captured {
            // A grey king (its army out) is a grey piece like any other: taken for nothing.
            let live_king =
                captured.role == Role::King && self.position.status(captured.army).takes_turns();
            if live_king {
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
                    Leaving::GREY,
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
        let given = checks_given(&self.position, mover, ply.mv.to(), checked, attacked_before);
        ply.checks = given.kings;
        if ffa {
            // Only the kings of players still in count: a walking king is out.
            let scored = given
                .by_mover
                .iter()
                .filter(|&army| self.position.status(army) == ArmyStatus::Playing)
                .count();
            // chess.com scores every multiple check at the queen's rate.
            let queen_rate = given.by_queen || self.rules.ffa_scoring == FfaScoring::ChessCom;
            let bonus = match (scored, queen_rate) {
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
        let stuck = self.armies_mated_now(mover, checked);
        // A mate that stood before the move (a resignation left a king so) is not this move's.
        let made = stuck
            .iter()
            .filter(|&a| !mated_before.contains(a))
            .collect();
        self.note_mates_made(stuck, made, mover);
        if self.rules.mate == MateTiming::Immediate {
            // Every enemy the move mated is mated, as the position stood right after it (an
            // elimination turns pieces grey, but does not undo a mate the move gave).
            let enemies = made
                .iter()
                .filter(|&army| self.position.is_enemy(mover, army));
            for army in enemies.collect::<ArmySet>().iter() {
                if self.outcome.is_some() {
                    return;
                }
                if self.mated(army, false, &mut ply.consequences) == Some(mover) {
                    ply.mates += 1;
                }
            }
        }
        if ffa {
            self.check_free_for_all_end(&mut ply.consequences);
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
            let army = self.position.turn();
            // The whole list rather than a search for any one move: the server asks for the
            // list next (see `KeptMoves`).
            if !self.kept.of(&self.position).is_empty() {
                break;
            }
            if self.position.is_check(army) {
                self.mated(army, true, consequences);
            } else if self.rules.format == Format::FreeForAll {
                if self.position.status(army) == ArmyStatus::Playing {
                    self.score(army, 20, ScoreReason::Stalemate, consequences);
                } else {
                    self.share_walking_king_stalemate(consequences);
                }
                self.eliminate(
                    army,
                    Elimination::Stalemate,
                    Leaving::GREY.on_turn(),
                    consequences,
                );
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
    }

    /// The armies that `mover`'s move, just played, left in check with no legal move: mated at
    /// once where mates are decided at once (an enemy's), and otherwise when their turn begins,
    /// unless someone helps first. `checked` holds the armies in check.
    fn armies_mated_now(&self, mover: Army, checked: ArmySet) -> ArmySet {
        // Teams decides mates at the turn start, and credits them to nobody: no search needed.
        if self.rules.format != Format::FreeForAll && self.rules.mate != MateTiming::Immediate {
            return ArmySet::EMPTY;
        }
        checked
            .iter()
            .filter(|&army| army != mover && !self.can_escape(mover, army))
            .collect()
    }

    /// Whether `army` has a way out of check right after `mover`'s move (a move that leaves its
    /// king safe: a king capture that does not is none), with the en passant rights of those who
    /// moved after it last did (the only ones it may use).
    fn can_escape(&self, mover: Army, army: Army) -> bool {
        self.position
            .has_escape(army, ArmySet::seats_after(army, mover))
    }

    /// Remembers who made each mate: an army that `mover`'s move mated (`made`) was mated by
    /// `mover`; one that was mated already before the move and still is (`mated`) keeps whoever
    /// made it so, if anyone did (a resignation that leaves a king mated is nobody's mate); an
    /// army that is not mated now has no mate to its name.
    fn note_mates_made(&mut self, mated: ArmySet, made: ArmySet, mover: Army) {
        for army in Army::ALL {
            if made.contains(army) {
                self.mate_made_by[army] = Some(mover);
            } else if !mated.contains(army) {
                self.mate_made_by[army] = None;
            }
        }
    }

    /// Of the armies in check before `mover`'s move (`checked`), those that were mated then
    /// already. Only free-for-all and mates decided at once need to know; a check is rare, so
    /// the search for a way out is too.
    pub(super) fn armies_mated_before(&self, mover: Army, checked: ArmySet) -> ArmySet {
        if self.rules.format != Format::FreeForAll && self.rules.mate != MateTiming::Immediate {
            return ArmySet::EMPTY;
        }
        let last = self.last_ply().map(|ply| ply.army);
        checked
            .iter()
            .filter(|&army| army != mover)
            .filter(|&army| {
                let en_passant = last.map_or(ArmySet::ALL, |last| ArmySet::seats_after(army, last));
                !self.position.has_escape(army, en_passant)
            })
            .collect()
    }

    /// `army` is checkmated, at its turn start or (`at_turn_start` false) at once by a move:
    /// the game ends for its team, or in free-for-all it is out and the player whose move made
    /// the position mate scores 20. Returns that player (none for a mate no move made: a
    /// position that was mate from the start, or that a resignation left so).
    fn mated(
        &mut self,
        army: Army,
        at_turn_start: bool,
        consequences: &mut Vec<Consequence>,
    ) -> Option<Army> {
        let by = self.mate_made_by[army].take();
        if self.rules.format == Format::FreeForAll {
            if let Some(by) = by {
                self.score(by, 20, ScoreReason::Checkmate, consequences);
            }
            let leaving = if at_turn_start {
                Leaving::GREY.on_turn()
            } else {
                Leaving::GREY
            };
            self.eliminate(army, Elimination::Checkmate, leaving, consequences);
        } else {
            let mated = self.seat_of(army);
            self.outcome = Some(Outcome::Win {
                team: mated.team().other(),
                reason: WinReason::Checkmate { mated },
            });
        }
        by
    }

    /// A walking king is stalemated: its player is out already, so the stalemate's 20 points
    /// are shared by the players still in, rounded to the nearest point (10 each for two, 7 each
    /// for three), as chess.com scores it.
    fn share_walking_king_stalemate(&mut self, consequences: &mut Vec<Consequence>) {
        let still_in = self.armies_with(ArmyStatus::Playing);
        let Some(share) = shared(20, still_in.len()) else {
            return;
        };
        for army in still_in.iter() {
            self.score(army, share, ScoreReason::WalkingKingStalemate, consequences);
        }
    }

    /// Puts `army` out of a free-for-all: its pieces turn grey, or its king walks on.
    pub(super) fn eliminate(
        &mut self,
        army: Army,
        reason: Elimination,
        leaving: Leaving,
        consequences: &mut Vec<Consequence>,
    ) {
        let king_walks = leaving.king_walks && self.position.king(army).is_some();
        let status = if king_walks {
            ArmyStatus::KingWalking
        } else {
            ArmyStatus::Out
        };
        self.position.set_status(army, status);
        consequences.push(Consequence::Eliminated {
            army,
            reason,
            king_walks,
            on_turn: leaving.on_turn,
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
        let playing = self.armies_with(ArmyStatus::Playing);
        if playing.len() <= 1 {
            self.award_walking_kings(ArmySet::EMPTY, consequences);
            self.outcome = Some(self.standings(FfaEnding::LastPlayer));
        } else if self.lead_ends_automatically() && self.lead_leader().is_some() {
            self.outcome = Some(self.standings(FfaEnding::Lead));
        }
    }

    /// chess.com's scoring, when `leaver` has just resigned or timed out: if that leaves one
    /// player, who cannot mate (a bare king, or a king and one bishop or knight), the game is
    /// drawn by insufficient material. The last player and `leaver` score the draw's 10; the
    /// kings that walked before are worth 20 to the last player. Returns whether it ended so.
    pub(super) fn end_by_insufficient_material_on_leaving(
        &mut self,
        leaver: Army,
        consequences: &mut Vec<Consequence>,
    ) -> bool {
        let playing = self.armies_with(ArmyStatus::Playing);
        let [last] = playing.iter().collect::<Vec<_>>()[..] else {
            return false;
        };
        if self.rules.ffa_scoring != FfaScoring::ChessCom || self.can_mate(last) {
            return false;
        }
        self.points[leaver] += 10;
        consequences.push(Consequence::Scored {
            army: leaver,
            points: 10,
            reason: ScoreReason::DrawBonus,
        });
        self.score(last, 10, ScoreReason::DrawBonus, consequences);
        self.award_walking_kings(ArmySet::single(leaver), consequences);
        self.outcome = Some(self.standings(FfaEnding::Draw(DrawReason::DeadPosition)));
        true
    }

    /// Whether `army` has the material to mate on its own: more than a bare king, or a king and
    /// one bishop or knight.
    fn can_mate(&self, army: Army) -> bool {
        let mut minors = 0;
        for sq in self.position.squares_of(army) {
            match self.position.piece_at(sq).map(|p| p.role) {
                Some(Role::King) | None => {}
                Some(Role::Bishop | Role::Knight) => minors += 1,
                Some(_) => return true,
            }
        }
        minors > 1
    }

    /// The game is ending: every king still walking (but those of `except`) is worth 20 to the
    /// players still in, shared. With the specification's scoring only the last player, when
    /// three are out, scores them; with chess.com's any ending does.
    fn award_walking_kings(&mut self, except: ArmySet, consequences: &mut Vec<Consequence>) {
        let playing = self.armies_with(ArmyStatus::Playing);
        let walking = self
            .armies_with(ArmyStatus::KingWalking)
            .iter()
            .filter(|&a| !except.contains(a))
            .count() as i32;
        let Some(share) = shared(20, playing.len()) else {
            return;
        };
        if walking == 0 {
            return;
        }
        for army in playing.iter() {
            self.score(
                army,
                share * walking,
                ScoreReason::WalkingKingBonus,
                consequences,
            );
        }
    }

    /// The armies whose status is `status`.
    fn armies_with(&self, status: ArmyStatus) -> ArmySet {
        Army::ALL
            .into_iter()
            .filter(|&a| self.position.status(a) == status)
            .collect()
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
                if self.rules.ffa_scoring == FfaScoring::ChessCom {
                    self.award_walking_kings(ArmySet::EMPTY, consequences);
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

/// `points` shared by `players`, rounded to the nearest point; `None` for nobody.
fn shared(points: i32, players: usize) -> Option<i32> {
    let players = i32::try_from(players).ok().filter(|&n| n > 0)?;
    Some((points + players / 2) / players)
}

/// How an army leaves a free-for-all.
#[derive(Clone, Copy, Debug)]
pub(super) struct Leaving {
    /// Its king walks on (resignation or timeout with walking kings).
    pub(super) king_walks: bool,
    /// It leaves on its own turn (see [`Consequence::Eliminated`]).
    pub(super) on_turn: bool,
}

impl Leaving {
    /// Every piece turns grey, off its turn.
    pub(super) const GREY: Leaving = Leaving {
        king_walks: false,
        on_turn: false,
    };

    /// The same, on its own turn.
    pub(super) const fn on_turn(self) -> Leaving {
        Leaving {
            on_turn: true,
            ..self
        }
    }
}
