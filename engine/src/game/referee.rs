//! The rules applied to a position, in one place: what a move means beyond the board (points,
//! eliminations, mates, a king captured, a pawn breaking through), what a turn that begins
//! without a legal move means, how a draw and a player's leaving are scored, and when a
//! free-for-all is over.
//!
//! [`Game`](crate::Game) and the bot's search both ask this referee: the game with a
//! [`Record`] that keeps every consequence for the game's record, the search with one that keeps
//! nothing ([`Unrecorded`]), so that the search sees exactly the results a game would and no
//! rule is written twice. The referee borrows what it judges (the position, the points, who made
//! each standing mate) and decides; what follows from a decision (an [`Outcome`](crate::Outcome)
//! with seats, or a search score) is the caller's.

use crate::army::{Army, ArmySet, ByArmy};
use crate::board::ArmyStatus;
use crate::checks::{KingAttackers, checks_given};
use crate::game::event::{Consequence, Elimination, ScoreReason};
use crate::game::outcome::{DrawReason, FfaEnding};
use crate::moves::Move;
use crate::piece::{Piece, Role};
use crate::position::Position;
use crate::rules::{FfaScoring, Format, LeadEnding, MateTiming, RuleSet};

/// Where the consequences the referee decides go.
pub(crate) trait Record {
    /// Whether the checks a move gives are wanted even where the rules do not score them: a
    /// game's record marks them (`+`), a search has no use for them.
    const MARKS_CHECKS: bool;

    /// `army` scored `points`.
    fn scored(&mut self, army: Army, points: i32, reason: ScoreReason);

    /// `army` left the game.
    fn eliminated(&mut self, army: Army, reason: Elimination, leaving: Leaving);
}

impl Record for Vec<Consequence> {
    const MARKS_CHECKS: bool = true;

    fn scored(&mut self, army: Army, points: i32, reason: ScoreReason) {
        self.push(Consequence::Scored {
            army,
            points,
            reason,
        });
    }

    fn eliminated(&mut self, army: Army, reason: Elimination, leaving: Leaving) {
        self.push(Consequence::Eliminated {
            army,
            reason,
            king_walks: leaving.king_walks,
            on_turn: leaving.on_turn,
        });
    }
}

/// A record that keeps nothing: the search needs the decisions, not their story.
pub(crate) struct Unrecorded;

impl Record for Unrecorded {
    const MARKS_CHECKS: bool = false;

    #[inline]
    fn scored(&mut self, _: Army, _: i32, _: ScoreReason) {}

    #[inline]
    fn eliminated(&mut self, _: Army, _: Elimination, _: Leaving) {}
}

/// How the game ended, as the referee decided it. The caller turns it into an
/// [`Outcome`](crate::Outcome) (naming seats) or a score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Teams and Duo: `by` captured the king of `victim`; `by`'s team wins.
    KingCaptured {
        /// The army whose piece took the king.
        by: Army,
        /// The army whose king was taken.
        victim: Army,
    },
    /// Teams and Duo: a pawn of `by` broke through; `by`'s team wins.
    Breakthrough {
        /// The army whose pawn broke through.
        by: Army,
    },
    /// Teams and Duo: `army` is checkmated; the other team wins.
    Checkmated {
        /// The mated army.
        army: Army,
    },
    /// Teams and Duo: `army` has no legal move and is not in check; drawn.
    Stalemated {
        /// The stalemated army.
        army: Army,
    },
    /// Teams and Duo: drawn by rule.
    Drawn(DrawReason),
    /// A free-for-all is over; the points decide.
    Standings(FfaEnding),
}

/// What a move caused, as far as the referee is concerned.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Settled {
    /// The kings the move put in check (found where the rules score them or the record marks
    /// them).
    pub(crate) checks: ArmySet,
    /// The position right after the move as the referee found it, when it looked at checks.
    pub(crate) after: Option<AfterMove>,
    /// How many players the move mated at once.
    pub(crate) mates: u8,
    /// The end of the game, if the move brought it.
    pub(crate) decision: Option<Decision>,
}

/// The position right after a move, before anything the move caused (an elimination) changed
/// it: what the referee found there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AfterMove {
    /// The position's hash then: what is found here holds while the hash is the same.
    pub(crate) hash: u64,
    /// The armies in check.
    pub(crate) checked: ArmySet,
    /// Those of them that are mated (no way out), with the en passant rights that follow the
    /// move.
    pub(crate) mated: ArmySet,
}

/// What the referee needs to know of the position before a move: the attackers of the kings in
/// check then (a move gives check only to a king it attacks anew) and the armies mated already
/// (a mate that stood before the move is not the move's).
#[derive(Clone, Debug, Default)]
pub(crate) struct Before {
    attacked: KingAttackers,
    mated: ArmySet,
}

impl Before {
    /// What [`Referee::settle_move`] needs of `position` before `mover`'s move, for a referee
    /// writing to an `R`: `checked` are the armies in check now (needed only where
    /// [`watches_checks`]), `last_mover` the army that made the move before (whose turn decides
    /// which en passant rights each army still has).
    pub(crate) fn of<R: Record>(
        rules: &RuleSet,
        position: &Position,
        mover: Army,
        checked: ArmySet,
        last_mover: Option<Army>,
    ) -> Before {
        if !watches_checks::<R>(rules) {
            return Before::default();
        }
        Before {
            attacked: KingAttackers::of(position, checked),
            mated: armies_mated_before(rules, position, mover, checked, last_mover),
        }
    }

    /// The same, for the position a move just reached, from what the referee found when it
    /// settled that move (`after`, whose hash must still be the position's): the armies mated
    /// then are the armies mated before the next move, and need no search for a way out again.
    pub(crate) fn after<R: Record>(
        rules: &RuleSet,
        position: &Position,
        after: &AfterMove,
    ) -> Before {
        debug_assert_eq!(after.hash, position.hash());
        if !watches_checks::<R>(rules) {
            return Before::default();
        }
        Before {
            attacked: KingAttackers::of(position, after.checked),
            mated: after.mated,
        }
    }
}

/// Whether a referee writing to an `R` looks at checks: to score them, to decide mates at once,
/// or to mark them. Where it does not, [`Before::of`] needs no armies in check.
///
/// Duo's mates are decided at once, but a record that marks nothing need not look for them: the
/// only army a move can mate there is the one to move next, whose turn start finds the same mate
/// (and the search's score is the same). Looking after every move cost the search a fifth of its
/// speed in Duo (callgrind, 100,000 nodes).
#[inline]
pub(crate) fn watches_checks<R: Record>(rules: &RuleSet) -> bool {
    R::MARKS_CHECKS
        || rules.format == Format::FreeForAll
        || (rules.mate == MateTiming::Immediate && rules.format != Format::Duo)
}

/// Of the armies in check before `mover`'s move (`checked`), those that were mated then already.
/// Only free-for-all and mates decided at once need to know; a check is rare, so the search for
/// a way out is too.
fn armies_mated_before(
    rules: &RuleSet,
    position: &Position,
    mover: Army,
    checked: ArmySet,
    last_mover: Option<Army>,
) -> ArmySet {
    if rules.format != Format::FreeForAll && rules.mate != MateTiming::Immediate {
        return ArmySet::EMPTY;
    }
    checked
        .iter()
        .filter(|&army| army != mover)
        .filter(|&army| {
            let en_passant =
                last_mover.map_or(ArmySet::ALL, |last| ArmySet::seats_after(army, last));
            !position.has_escape(army, en_passant)
        })
        .collect()
}

/// How an army leaves a free-for-all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaving {
    /// Its king walks on (resignation or timeout with walking kings).
    pub(crate) king_walks: bool,
    /// It leaves on its own turn (see [`Consequence::Eliminated`]).
    pub(crate) on_turn: bool,
}

impl Leaving {
    /// Every piece turns grey, off its turn.
    pub(crate) const GREY: Leaving = Leaving {
        king_walks: false,
        on_turn: false,
    };

    /// The same, on its own turn.
    pub(crate) const fn on_turn(self) -> Leaving {
        Leaving {
            on_turn: true,
            ..self
        }
    }
}

/// Whether `armies` together have the material to mate: more than their kings and one bishop or
/// knight between them (chess's rule for a flag fall against a bare king).
pub(crate) fn can_mate(position: &Position, armies: impl IntoIterator<Item = Army>) -> bool {
    let mut minors = 0;
    for army in armies {
        for sq in position.squares_of(army) {
            match position.piece_at(sq).map(|p| p.role) {
                Some(Role::King) | None => {}
                Some(Role::Bishop | Role::Knight) => minors += 1,
                Some(_) => return true,
            }
        }
    }
    minors > 1
}

/// The rules applied to one position and its free-for-all points.
pub(crate) struct Referee<'a, R: Record> {
    rules: &'a RuleSet,
    position: &'a mut Position,
    points: &'a mut ByArmy<i32>,
    /// For each army now mated whose mate is not yet decided, the player whose move made it so.
    mate_made_by: &'a mut ByArmy<Option<Army>>,
    record: &'a mut R,
}

impl<'a, R: Record> Referee<'a, R> {
    /// A referee of `position` under `rules`, writing to `record`.
    #[inline]
    pub(crate) fn new(
        rules: &'a RuleSet,
        position: &'a mut Position,
        points: &'a mut ByArmy<i32>,
        mate_made_by: &'a mut ByArmy<Option<Army>>,
        record: &'a mut R,
    ) -> Referee<'a, R> {
        Referee {
            rules,
            position,
            points,
            mate_made_by,
            record,
        }
    }

    fn ffa(&self) -> bool {
        self.rules.format == Format::FreeForAll
    }

    /// Settles what the move `mv` of `mover` (its `piece`, taking `captured`), just played on the
    /// position, caused, up to but not including the assessment of the next turn's start
    /// ([`Referee::no_legal_move`], once the caller has found the next army without a move).
    pub(crate) fn settle_move(
        &mut self,
        mover: Army,
        mv: Move,
        piece: Piece,
        captured: Option<Piece>,
        before: &Before,
    ) -> Settled {
        let mut settled = Settled::default();
        let ffa = self.ffa();
        if let Some(captured) = captured {
            // A grey king (its army out) is a grey piece like any other: taken for nothing.
            let live_king =
                captured.role == Role::King && self.position.status(captured.army).takes_turns();
            if live_king {
                if !ffa {
                    settled.decision = Some(Decision::KingCaptured {
                        by: mover,
                        victim: captured.army,
                    });
                    return settled;
                }
                self.score(mover, capture_value(captured), ScoreReason::KingCapture);
                self.eliminate(captured.army, Elimination::KingCaptured, Leaving::GREY);
            } else if ffa && self.position.status(captured.army) == ArmyStatus::Playing {
                self.score(
                    mover,
                    capture_value(captured),
                    ScoreReason::Capture(captured),
                );
            }
        }
        if self.rules.pawn_breakthrough
            && piece.role == Role::Pawn
            && self.position.board().own_rank(mover, mv.to()) == self.rules.promotion_rank - 1
        {
            settled.decision = Some(Decision::Breakthrough { by: mover });
            return settled;
        }
        if !watches_checks::<R>(self.rules) {
            return settled;
        }
        let hash = self.position.hash();
        let checked = self.position.checked_armies();
        let given = checks_given(self.position, mover, mv.to(), checked, &before.attacked);
        settled.checks = given.kings;
        if ffa {
            // Only the kings of players still in count: a walking king is out.
            let scored = given
                .by_mover
                .iter()
                .filter(|&army| self.position.status(army) == ArmyStatus::Playing)
                .count();
            if let Some((points, reason)) = self.check_bonus(scored, given.by_queen) {
                self.score(mover, points, reason);
            }
        }
        let stuck = self.armies_mated_now(mover, checked);
        settled.after = Some(AfterMove {
            hash,
            checked,
            mated: stuck,
        });
        // A mate that stood before the move (a resignation left a king so) is not this move's.
        let made = stuck
            .iter()
            .filter(|&a| !before.mated.contains(a))
            .collect();
        self.note_mates_made(stuck, made, mover);
        if self.rules.mate == MateTiming::Immediate {
            // Every enemy the move mated is mated, as the position stood right after it (an
            // elimination turns pieces grey, but does not undo a mate the move gave).
            let enemies: ArmySet = made
                .iter()
                .filter(|&army| self.position.is_enemy(mover, army))
                .collect();
            for army in enemies.iter() {
                let (by, decision) = self.mated(army, false);
                if by == Some(mover) {
                    settled.mates += 1;
                }
                if decision.is_some() {
                    settled.decision = decision;
                    return settled;
                }
            }
        }
        if ffa {
            settled.decision = self.free_for_all_end();
        }
        settled
    }

    /// The points a move that checked `kings` kings of players still in scores: a double check
    /// 5 and a triple 20, or 1 and 5 when a queen gives them; chess.com scores every multiple
    /// check at the queen's rate.
    fn check_bonus(&self, kings: usize, by_queen: bool) -> Option<(i32, ScoreReason)> {
        let queen_rate = by_queen || self.rules.ffa_scoring == FfaScoring::ChessCom;
        match (kings, queen_rate) {
            (2, false) => Some((5, ScoreReason::DoubleCheck)),
            (2, true) => Some((1, ScoreReason::DoubleCheck)),
            (3, false) => Some((20, ScoreReason::TripleCheck)),
            (3, true) => Some((5, ScoreReason::TripleCheck)),
            _ => None,
        }
    }

    /// The armies that `mover`'s move, just played, left in check with no legal move: mated at
    /// once where mates are decided at once (an enemy's), and otherwise when their turn begins,
    /// unless someone helps first. `checked` holds the armies in check.
    fn armies_mated_now(&self, mover: Army, checked: ArmySet) -> ArmySet {
        // Teams decides mates at the turn start, and credits them to nobody: no search needed.
        if !self.ffa() && self.rules.mate != MateTiming::Immediate {
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

    /// The army to move has no legal move (the caller has found none): it is mated or
    /// stalemated (rules section 5). In Teams and Duo that ends the game; in free-for-all the
    /// army is out, which may end the game too. Otherwise the turn has passed to the next army,
    /// which the caller assesses in turn.
    pub(crate) fn no_legal_move(&mut self) -> Option<Decision> {
        let army = self.position.turn();
        if self.position.is_check(army) {
            if let (_, Some(decision)) = self.mated(army, true) {
                return Some(decision);
            }
        } else if self.ffa() {
            if self.position.status(army) == ArmyStatus::Playing {
                self.score(army, 20, ScoreReason::Stalemate);
            } else {
                self.share_walking_king_stalemate();
            }
            self.eliminate(army, Elimination::Stalemate, Leaving::GREY.on_turn());
        } else {
            return Some(Decision::Stalemated { army });
        }
        self.free_for_all_end()
    }

    /// `army` is checkmated, at its turn start or (`at_turn_start` false) at once by a move: the
    /// game ends for its team, or in free-for-all it is out and the player whose move made the
    /// position mate scores 20. Returns that player (none for a mate no move made: a position
    /// that was mate from the start, or that a resignation left so), and the end of a game of
    /// teams.
    fn mated(&mut self, army: Army, at_turn_start: bool) -> (Option<Army>, Option<Decision>) {
        let by = self.mate_made_by[army].take();
        if !self.ffa() {
            return (by, Some(Decision::Checkmated { army }));
        }
        if let Some(by) = by {
            self.score(by, 20, ScoreReason::Checkmate);
        }
        let leaving = if at_turn_start {
            Leaving::GREY.on_turn()
        } else {
            Leaving::GREY
        };
        self.eliminate(army, Elimination::Checkmate, leaving);
        (by, None)
    }

    /// A walking king is stalemated: its player is out already, so the stalemate's 20 points
    /// are shared by the players still in, rounded to the nearest point (10 each for two, 7 each
    /// for three), as chess.com scores it.
    fn share_walking_king_stalemate(&mut self) {
        let still_in = self.armies_with(ArmyStatus::Playing);
        let Some(share) = shared(20, still_in.len()) else {
            return;
        };
        for army in still_in.iter() {
            self.score(army, share, ScoreReason::WalkingKingStalemate);
        }
    }

    /// Puts `army` out of a free-for-all: its pieces turn grey, or its king walks on.
    pub(crate) fn eliminate(&mut self, army: Army, reason: Elimination, leaving: Leaving) {
        let leaving = Leaving {
            king_walks: leaving.king_walks && self.position.king(army).is_some(),
            ..leaving
        };
        let status = if leaving.king_walks {
            ArmyStatus::KingWalking
        } else {
            ArmyStatus::Out
        };
        self.position.set_status(army, status);
        self.record.eliminated(army, reason, leaving);
    }

    /// Adds free-for-all points. A player who is out scores nothing more, even when their walking
    /// king captures or mates.
    fn score(&mut self, army: Army, points: i32, reason: ScoreReason) {
        if self.position.status(army) != ArmyStatus::Playing {
            return;
        }
        self.points[army] += points;
        self.record.scored(army, points, reason);
    }

    /// A free-for-all is over when three players are out (the last scores 20 per walking king),
    /// or, where a lead ends the game by itself, when the last two are more than 20 apart with
    /// nobody out ahead of the leader.
    pub(crate) fn free_for_all_end(&mut self) -> Option<Decision> {
        let playing = self.armies_with(ArmyStatus::Playing);
        if playing.len() <= 1 {
            self.award_walking_kings(ArmySet::EMPTY);
            Some(Decision::Standings(FfaEnding::LastPlayer))
        } else if self.rules.lead_ending == LeadEnding::Automatic
            && lead_leader(self.position, self.points).is_some()
        {
            Some(Decision::Standings(FfaEnding::Lead))
        } else {
            None
        }
    }

    /// chess.com's scoring, when `leaver` has just resigned or timed out: if that leaves one
    /// player, who cannot mate (a bare king, or a king and one bishop or knight), the game is
    /// drawn by insufficient material. The last player and `leaver` score the draw's 10; the
    /// kings that walked before are worth 20 to the last player.
    pub(crate) fn end_by_insufficient_material_on_leaving(
        &mut self,
        leaver: Army,
    ) -> Option<Decision> {
        let playing = self.armies_with(ArmyStatus::Playing);
        let mut armies = playing.iter();
        let (Some(last), None) = (armies.next(), armies.next()) else {
            return None;
        };
        if self.rules.ffa_scoring != FfaScoring::ChessCom || self.can_mate(last) {
            return None;
        }
        // The leaver is out, yet scores the draw's bonus: `score` would refuse it.
        self.points[leaver] += 10;
        self.record.scored(leaver, 10, ScoreReason::DrawBonus);
        self.score(last, 10, ScoreReason::DrawBonus);
        self.award_walking_kings(ArmySet::single(leaver));
        Some(Decision::Standings(FfaEnding::Draw(
            DrawReason::DeadPosition,
        )))
    }

    /// Whether `army` has the material to mate on its own: more than a bare king, or a king and
    /// one bishop or knight.
    fn can_mate(&self, army: Army) -> bool {
        can_mate(self.position, [army])
    }

    /// The game is ending: every king still walking (but those of `except`) is worth 20 to the
    /// players still in, shared. With the specification's scoring only the last player, when
    /// three are out, scores them; with chess.com's any ending does.
    fn award_walking_kings(&mut self, except: ArmySet) {
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
            self.score(army, share * walking, ScoreReason::WalkingKingBonus);
        }
    }

    /// The game is drawn by rule (`reason`): in free-for-all every player still in scores 10
    /// (and with chess.com's scoring the walking kings are shared out), then points decide.
    pub(crate) fn draw(&mut self, reason: DrawReason) -> Decision {
        if !self.ffa() {
            return Decision::Drawn(reason);
        }
        for army in self.armies_with(ArmyStatus::Playing).iter() {
            self.score(army, 10, ScoreReason::DrawBonus);
        }
        if self.rules.ffa_scoring == FfaScoring::ChessCom {
            self.award_walking_kings(ArmySet::EMPTY);
        }
        Decision::Standings(FfaEnding::Draw(reason))
    }

    /// The armies whose status is `status`.
    fn armies_with(&self, status: ArmyStatus) -> ArmySet {
        armies_with(self.position, status)
    }
}

/// The armies of `position` whose status is `status`.
fn armies_with(position: &Position, status: ArmyStatus) -> ArmySet {
    Army::ALL
        .into_iter()
        .filter(|&a| position.status(a) == status)
        .collect()
}

/// In free-for-all with two players left: the one leading by more than 20 over the other with
/// nobody out ahead of them (who may claim the win, or wins at once where a lead ends the game
/// by itself).
pub(crate) fn lead_leader(position: &Position, points: &ByArmy<i32>) -> Option<Army> {
    let playing = armies_with(position, ArmyStatus::Playing);
    let mut two = playing.iter();
    let (Some(a), Some(b), None) = (two.next(), two.next(), two.next()) else {
        return None;
    };
    let (leader, other) = if points[a] >= points[b] {
        (a, b)
    } else {
        (b, a)
    };
    let lead = points[leader];
    let nobody_out_ahead = Army::ALL
        .into_iter()
        .filter(|&x| x != a && x != b)
        .all(|x| points[x] <= lead);
    (lead > points[other] + 20 && nobody_out_ahead).then_some(leader)
}

/// Whether nobody can mate any more in `position` (played as `format`): every army in play has a
/// bare king; in Duo, chess's insufficient material (no pawn, rook or queen, and at most one
/// minor piece, or only bishops all on squares of one colour).
pub(crate) fn is_dead_position(position: &Position, format: Format) -> bool {
    if format == Format::Duo {
        let mut minors = 0;
        let mut bishop_colours = [false; 2];
        let mut knights = 0;
        for (sq, piece) in position.pieces() {
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
    armies_with(position, ArmyStatus::Playing)
        .iter()
        .all(|a| position.squares_of(a).len() == 1)
}

/// `points` shared by `players`, rounded to the nearest point; `None` for nobody.
fn shared(points: i32, players: usize) -> Option<i32> {
    let players = i32::try_from(players).ok().filter(|&n| n > 0)?;
    Some((points + players / 2) / players)
}

/// The free-for-all value of capturing `piece`.
pub(crate) const fn capture_value(piece: Piece) -> i32 {
    use crate::piece::Role::*;
    if piece.promoted {
        return 1;
    }
    match piece.role {
        Pawn => 1,
        Knight => 3,
        Bishop | Rook => 5,
        Queen => 9,
        King => 20,
    }
}
