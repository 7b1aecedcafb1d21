//! A whole game under a rule set: turns, the turn-start assessment, results, free-for-all points
//! and eliminations, draws, resignations, walking kings and lifeline takebacks.
//!
//! [`Game`] wraps a [`Position`] and decides what each move means. Every change goes through a
//! method that checks it and either applies it completely or returns an error and changes
//! nothing, so a server can hand it untrusted input.

mod assess;
mod event;
mod outcome;
pub(crate) mod referee;
mod seat;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

pub use event::{Action, Consequence, Elimination, Event, Ply, ScoreReason};
pub use outcome::{DrawReason, FfaEnding, Outcome, WinReason};
pub use seat::{Seat, Team};

use crate::army::{Army, ArmySet, ByArmy};
use crate::board::ArmyStatus;
use crate::moves::{Move, MoveList};
use crate::position::{Position, PositionError};
use crate::rules::{Format, Resignation, RuleSet, RuleSetError};
use crate::setup::Setup;
use crate::square_set::SquareSet;

/// A game in progress or finished.
#[derive(Clone, Debug)]
pub struct Game {
    rules: RuleSet,
    /// The setup the game began from (PGN4's `StartFen4`, and replays).
    start: Setup,
    position: Position,
    /// Duo only: the seat to move (W1, B1, W2, B2 in turn). The cross board reads it off the
    /// army to move.
    duo_seat: Seat,
    /// Free-for-all points by army (seat `i` plays army `i` on the cross board).
    points: ByArmy<i32>,
    events: Vec<Event>,
    /// The repetition key of every position reached, the start included.
    keys: Vec<u64>,
    /// For each army now mated (in check with no legal move) whose mate is not yet decided, the
    /// player whose move made it so: in free-for-all they score the mate when it is decided.
    mate_made_by: ByArmy<Option<Army>>,
    /// Plies played.
    plies: u32,
    outcome: Option<Outcome>,
    /// Lifeline tokens left per team.
    lifelines: [u8; 2],
    /// After a takeback: the seat that must choose a different move, and the move it took back.
    forbidden: Option<(Seat, Move)>,
    /// The seats that agreed to the open draw offer, if there is one.
    draw_offer: Option<[bool; 4]>,
    /// A resignation waiting for the partner's consent.
    resignation_request: Option<Seat>,
    /// Seeds the walking kings' random moves, so a replay is deterministic.
    seed: u64,
    /// The legal moves of the position as it stands.
    kept: KeptMoves,
    /// The armies in check, as found after the last move was settled, with the hash of the
    /// position they are for: the server shows the same set right after, and it is found again
    /// only if the position has changed since (someone was mated out, for instance).
    checked: Option<(u64, ArmySet)>,
}

/// The legal moves of a position, kept for as long as it stands (after a take-back, without the
/// move taken back). After every move the game asks whether the next army can move at all; a
/// server then lists that army's moves for its player, and the game checks the move that comes
/// back against them. One generation serves all three, where each used to generate on its own
/// (what that saved: tests/perf/README.md, "What the hot path does").
#[derive(Clone, Debug, Default)]
struct KeptMoves {
    /// The hash of the position the moves are for. The hash covers everything generation reads
    /// (pieces, the army to move, castling and en passant rights, army statuses).
    hash: Option<u64>,
    moves: Vec<Move>,
}

impl KeptMoves {
    /// The legal moves of the army to move in `position`, generated unless kept.
    fn of(&mut self, position: &Position) -> &[Move] {
        if self.hash != Some(position.hash()) {
            self.moves.clear();
            position.generate(position.turn(), ArmySet::ALL, &mut self.moves);
            self.hash = Some(position.hash());
        }
        &self.moves
    }

    /// Leaves `mv` out of the kept moves.
    fn remove(&mut self, mv: Move) {
        self.moves.retain(|&m| m != mv);
    }

    /// The moves if they are kept for `position`.
    fn get(&self, position: &Position) -> Option<&[Move]> {
        (self.hash == Some(position.hash())).then_some(self.moves.as_slice())
    }
}

/// Why a game refused an action. The game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameError {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// Another seat is to move.
    #[error("it is not this seat's turn ({to_move} is to move)")]
    NotYourTurn {
        /// The seat to move.
        to_move: Seat,
    },
    /// The seat is out of the game.
    #[error("this seat is out of the game")]
    NotInGame,
    /// The seat's king walks by itself; use [`Game::walk_king`].
    #[error("a walking king moves by itself")]
    WalkingKing,
    /// The move is not legal here.
    #[error("illegal move {0}")]
    IllegalMove(Move),
    /// The move was just taken back with a lifeline: choose a different one.
    #[error("{0} was taken back: choose a different move")]
    TakenBack(Move),
    /// The rules do not allow this action.
    #[error("the rules do not allow this: {0}")]
    NotAllowed(&'static str),
    /// The team has no lifelines left.
    #[error("no lifelines left")]
    NoLifelines,
    /// There is no move of this team to take back.
    #[error("there is no move of your team to take back")]
    NothingToTakeBack,
    /// The move to take back was the only legal move; it stands and no token is spent.
    #[error("that was the only legal move; it stands")]
    NoAlternative,
    /// No draw offer is open.
    #[error("no draw offer is open")]
    NoDrawOffer,
    /// No resignation is waiting for this seat's consent.
    #[error("no resignation request is waiting for this seat")]
    NoResignationRequest,
    /// The conditions to claim the win do not hold.
    #[error("the win cannot be claimed now")]
    CannotClaim,
}

/// What a resignation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResignOutcome {
    /// The resignation took effect.
    Resigned,
    /// The partner has been asked to consent.
    PartnerAsked,
}

/// What an answer to a draw offer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawOfferState {
    /// The offer stands, waiting for others.
    Open,
    /// Everyone agreed: the game is drawn.
    Agreed,
}

impl Game {
    /// A new game from the start position.
    pub fn new(rules: RuleSet) -> Result<Game, RuleSetError> {
        Game::with_seed(rules, 0)
    }

    /// A new game whose walking kings draw their moves from `seed`.
    pub fn with_seed(rules: RuleSet, seed: u64) -> Result<Game, RuleSetError> {
        rules.validate()?;
        let setup = Setup::start(rules.board(), rules.first);
        Game::from_setup(&setup, rules, seed).map_err(|e| match e {
            PositionError::Rules(e) => e,
            other => unreachable!("the start position is valid: {other}"),
        })
    }

    /// A new game from the start position in which `first` moves first: on the cross board the
    /// seat's army moves first; in Duo the seat itself does (so W2 may open for White, or B1 for
    /// Black). `rules.first` is replaced accordingly.
    pub fn starting_at(rules: RuleSet, first: Seat, seed: u64) -> Result<Game, RuleSetError> {
        let rules = RuleSet {
            first: first.army(rules.format),
            ..rules
        };
        let mut game = Game::with_seed(rules, seed)?;
        if rules.format == Format::Duo {
            game.duo_seat = first;
        }
        Ok(game)
    }

    /// A game from any position (its points are taken from the setup).
    pub fn from_setup(setup: &Setup, rules: RuleSet, seed: u64) -> Result<Game, PositionError> {
        let position = Position::from_setup(setup, &rules)?;
        let duo_seat = if position.turn() == Army::BLACK && rules.format == Format::Duo {
            Seat::ALL[1]
        } else {
            Seat::ALL[0]
        };
        let mut game = Game {
            rules,
            start: setup.clone(),
            position,
            duo_seat,
            points: setup.points,
            events: Vec::new(),
            keys: Vec::new(),
            mate_made_by: ByArmy::default(),
            plies: 0,
            outcome: None,
            lifelines: [rules.lifelines; 2],
            forbidden: None,
            draw_offer: None,
            resignation_request: None,
            seed,
            kept: KeptMoves::default(),
            checked: None,
        };
        game.keys.push(game.repetition_key());
        let mut consequences = Vec::new();
        game.assess_turn_start(&mut consequences);
        if !consequences.is_empty() || game.outcome.is_some() {
            game.events.push(Event::Action {
                seat: game.seat_of(game.position.turn()),
                action: Action::Start,
                consequences,
            });
        }
        Ok(game)
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The setup the game started from.
    pub fn start(&self) -> &Setup {
        &self.start
    }

    /// The seed of the walking kings' moves.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The result, once the game has ended.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Everything that happened, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The moves played, in order.
    pub fn plies(&self) -> impl Iterator<Item = &Ply> {
        self.events.iter().filter_map(|e| match e {
            Event::Ply(ply) => Some(ply),
            Event::Action { .. } => None,
        })
    }

    /// The last move played: found from the end of the record, where `plies().last()` would
    /// walk the whole game (a server asks after every move).
    pub fn last_ply(&self) -> Option<&Ply> {
        self.events.iter().rev().find_map(|e| match e {
            Event::Ply(ply) => Some(ply),
            Event::Action { .. } => None,
        })
    }

    /// The number of plies played.
    pub fn ply_count(&self) -> u32 {
        self.plies
    }

    /// Free-for-all points of every army.
    pub fn points(&self) -> ByArmy<i32> {
        self.points
    }

    /// For each army now mated (in check with no legal move) whose mate is not yet decided, the
    /// player whose move made it so (who scores it in free-for-all).
    pub fn mates_made_by(&self) -> ByArmy<Option<Army>> {
        self.mate_made_by
    }

    /// Lifeline tokens left for `team`.
    pub fn lifelines(&self, team: Team) -> u8 {
        self.lifelines[team as usize]
    }

    /// The seats that have agreed to the open draw offer, if there is one.
    pub fn draw_offer(&self) -> Option<Vec<Seat>> {
        self.draw_offer.map(|agreed| {
            Seat::ALL
                .into_iter()
                .filter(|s| agreed[s.index()])
                .collect()
        })
    }

    /// The seat whose resignation waits for its partner's consent.
    pub fn resignation_request(&self) -> Option<Seat> {
        self.resignation_request
    }

    /// The move the seat to move may not play again after a takeback.
    pub fn forbidden_move(&self) -> Option<Move> {
        self.forbidden
            .filter(|(seat, _)| Some(*seat) == self.to_move())
            .map(|(_, mv)| mv)
    }

    /// The army `seat` plays.
    pub fn army_of(&self, seat: Seat) -> Army {
        seat.army(self.rules.format)
    }

    /// The seat that plays `army` now (in Duo: the seat of that colour whose turn is next).
    pub fn seat_of(&self, army: Army) -> Seat {
        match self.rules.format {
            Format::Duo => {
                if self.army_of(self.duo_seat) == army {
                    self.duo_seat
                } else {
                    self.duo_seat.next()
                }
            }
            _ => Seat::of_army(army),
        }
    }

    /// The seat to move, or `None` when the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        if self.is_over() {
            return None;
        }
        Some(match self.rules.format {
            Format::Duo => self.duo_seat,
            _ => Seat::of_army(self.position.turn()),
        })
    }

    /// Whether a walking king is to move (see [`Game::walk_king`]).
    pub fn walking_king_to_move(&self) -> bool {
        !self.is_over() && self.position.status(self.position.turn()) == ArmyStatus::KingWalking
    }

    /// Whether `seat` is still in the game (not out, not walking).
    pub fn is_in_game(&self, seat: Seat) -> bool {
        self.position.status(self.army_of(seat)) == ArmyStatus::Playing
    }

    /// The seats still in the game.
    pub fn seats_in_game(&self) -> Vec<Seat> {
        Seat::ALL
            .into_iter()
            .filter(|&s| self.is_in_game(s))
            .collect()
    }

    /// The armies taking turns whose kings are attacked, as
    /// [`Position::checked_armies`](crate::Position::checked_armies) finds them, without
    /// finding them again right after a move.
    pub fn checked_armies(&self) -> ArmySet {
        match self.checked {
            Some((hash, armies)) if hash == self.position.hash() => armies,
            _ => self.position.checked_armies(),
        }
    }

    /// Walks the game back from its current position, for a record of every position: `visit`
    /// sees each ply of the first `events` events (the plies after them are undone unseen), the
    /// last first, with the position right after it; the position before the first move is
    /// returned. Only the pieces of those positions are as they stood: who was still in the game
    /// is left as it is now.
    pub fn walk_back(&self, events: usize, mut visit: impl FnMut(&Ply, &Position)) -> Position {
        let mut position = self.position.clone();
        for (index, event) in self.events.iter().enumerate().rev() {
            if let Event::Ply(ply) = event {
                if index < events {
                    visit(ply, &position);
                }
                position.undo(ply.undo);
            }
        }
        position
    }

    /// The pieces attacking the kings of [`Game::checked_armies`]: who gives each check.
    pub fn checkers(&self) -> SquareSet {
        self.checked_armies()
            .iter()
            .filter_map(|army| Some(self.position.attackers(self.position.king(army)?, army)))
            .fold(SquareSet::EMPTY, SquareSet::union)
    }

    /// The legal moves of the seat to move (none once the game is over, and none for a walking
    /// king, whose move [`Game::walk_king`] chooses). A move just taken back is left out.
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        moves.extend(self.legal_move_slice().iter().copied());
        moves
    }

    /// Appends [`Game::legal_moves`] to `out`.
    pub fn extend_legal_moves(&self, out: &mut impl Extend<Move>) {
        out.extend(self.legal_move_slice().iter().copied());
    }

    /// [`Game::legal_moves`] as the game keeps them, without a copy: the one list of the
    /// position's moves that the game checks a move against and that a server lists for the
    /// player and looks the player's answer up in (a server that kept a copy of its own spent a
    /// copy of the list per move for nothing).
    pub fn legal_move_slice(&self) -> &[Move] {
        if self.is_over() || self.walking_king_to_move() {
            return &[];
        }
        let kept = self.kept.get(&self.position);
        // Every change of the position while the game goes on assesses the turn that begins,
        // which keeps its moves.
        debug_assert!(kept.is_some(), "the moves of the position are kept");
        kept.unwrap_or_default()
    }

    /// Plays `mv` for `seat`.
    pub fn play(&mut self, seat: Seat, mv: Move) -> Result<&Ply, GameError> {
        self.check_turn(seat)?;
        if self.walking_king_to_move() {
            return Err(GameError::WalkingKing);
        }
        if self.forbidden_move() == Some(mv) {
            return Err(GameError::TakenBack(mv));
        }
        if !self.legal_move_slice().contains(&mv) {
            return Err(GameError::IllegalMove(mv));
        }
        Ok(self.apply(mv, false))
    }

    /// The move the walking king to move will make: a random legal king move drawn from the
    /// game's seed and the ply number, so a replay makes the same moves.
    pub fn walking_king_move(&self) -> Option<Move> {
        if !self.walking_king_to_move() {
            return None;
        }
        let moves = self.position.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(
            self.seed ^ u64::from(self.plies).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        Some(moves[rng.random_range(0..moves.len())])
    }

    /// Makes the walking king to move take its move.
    pub fn walk_king(&mut self) -> Result<&Ply, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let mv = self
            .walking_king_move()
            .ok_or(GameError::NotAllowed("no walking king is to move"))?;
        Ok(self.apply(mv, true))
    }

    /// Makes the walking king to move play `mv`, a legal move of its own: for replaying a record
    /// whose walking moves were made elsewhere.
    pub fn walk_king_with(&mut self, mv: Move) -> Result<&Ply, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        if !self.walking_king_to_move() {
            return Err(GameError::NotAllowed("no walking king is to move"));
        }
        if !self.position.is_legal(mv) {
            return Err(GameError::IllegalMove(mv));
        }
        Ok(self.apply(mv, true))
    }

    fn check_turn(&self, seat: Seat) -> Result<(), GameError> {
        let to_move = self.to_move().ok_or(GameError::GameOver)?;
        if seat != to_move {
            return Err(GameError::NotYourTurn { to_move });
        }
        Ok(())
    }

    fn check_in_game(&self, seat: Seat) -> Result<(), GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        if !self.is_in_game(seat) {
            return Err(GameError::NotInGame);
        }
        Ok(())
    }

    /// Resigns for `seat`. Depending on the rules this ends the game for the team, asks the
    /// partner first, or puts the seat out of a free-for-all (perhaps leaving its king to walk).
    pub fn resign(&mut self, seat: Seat) -> Result<ResignOutcome, GameError> {
        self.check_in_game(seat)?;
        match self.rules.resignation {
            Resignation::PartnerConsent => {
                self.resignation_request = Some(seat);
                Ok(ResignOutcome::PartnerAsked)
            }
            Resignation::TeamLoses => {
                self.finish_by_action(
                    seat,
                    Action::Resigned,
                    Outcome::Win {
                        team: seat.team().other(),
                        reason: WinReason::Resignation { seat },
                    },
                );
                Ok(ResignOutcome::Resigned)
            }
            Resignation::Out | Resignation::OutKingWalks => {
                self.leave_free_for_all(seat, Elimination::Resigned, Action::Resigned, false);
                Ok(ResignOutcome::Resigned)
            }
        }
    }

    /// The partner's answer to a resignation request.
    pub fn answer_resignation(&mut self, seat: Seat, accept: bool) -> Result<(), GameError> {
        self.check_in_game(seat)?;
        let requester = self
            .resignation_request
            .filter(|r| r.partner() == seat)
            .ok_or(GameError::NoResignationRequest)?;
        self.resignation_request = None;
        if accept {
            self.finish_by_action(
                requester,
                Action::Resigned,
                Outcome::Win {
                    team: requester.team().other(),
                    reason: WinReason::Resignation { seat: requester },
                },
            );
        }
        Ok(())
    }

    /// `seat` ran out of time: its team loses (Teams, Duo's team clock) unless the other team
    /// has not the material to mate (then, as in chess, a draw), or it is out of a free-for-all
    /// as if it had resigned.
    pub fn time_out(&mut self, seat: Seat) -> Result<(), GameError> {
        self.check_in_game(seat)?;
        if self.rules.has_teams() {
            let winners = seat.team().other();
            let armies = winners.seats().map(|s| self.army_of(s));
            let outcome = if referee::can_mate(&self.position, armies) {
                Outcome::Win {
                    team: winners,
                    reason: WinReason::Timeout { seat },
                }
            } else {
                Outcome::Draw {
                    reason: DrawReason::TimeoutVsInsufficientMaterial { seat },
                }
            };
            self.finish_by_action(seat, Action::TimedOut, outcome);
        } else {
            self.leave_free_for_all(seat, Elimination::TimedOut, Action::TimedOut, false);
        }
        Ok(())
    }

    /// Free-for-all with walking kings: the player to move had left the game before their turn
    /// (resigned, or timed out), which a record learns only now. They are out, and their king,
    /// which walks on, makes this turn's move. chess.com records a resignation or timeout
    /// outside the player's turn so: as `R` or `T` on the king's first move by itself.
    pub fn left_before_turn(&mut self, reason: Elimination) -> Result<(), GameError> {
        let seat = self.to_move().ok_or(GameError::GameOver)?;
        self.check_in_game(seat)?;
        if self.rules.resignation != Resignation::OutKingWalks {
            return Err(GameError::NotAllowed("no king walks on in these rules"));
        }
        let action = match reason {
            Elimination::Resigned => Action::Resigned,
            Elimination::TimedOut => Action::TimedOut,
            _ => {
                return Err(GameError::NotAllowed(
                    "a player leaves by resigning or timing out",
                ));
            }
        };
        self.leave_free_for_all(seat, reason, action, true);
        Ok(())
    }

    /// `seat` left and did not come back; its opponents claimed the win (Duo's absence rule).
    pub fn abandon(&mut self, seat: Seat) -> Result<(), GameError> {
        self.check_in_game(seat)?;
        if !self.rules.has_teams() {
            self.leave_free_for_all(seat, Elimination::Resigned, Action::Abandoned, false);
            return Ok(());
        }
        self.finish_by_action(
            seat,
            Action::Abandoned,
            Outcome::Win {
                team: seat.team().other(),
                reason: WinReason::Abandonment { seat },
            },
        );
        Ok(())
    }

    /// Offers a draw (or agrees to the open offer). The game is drawn when every seat still in
    /// has agreed; the offer lapses after the next move.
    pub fn offer_draw(&mut self, seat: Seat) -> Result<DrawOfferState, GameError> {
        self.check_in_game(seat)?;
        let agreed = self.draw_offer.get_or_insert([false; 4]);
        agreed[seat.index()] = true;
        let agreed = *agreed;
        if self.seats_in_game().iter().all(|s| agreed[s.index()]) {
            self.draw_offer = None;
            let outcome = if self.rules.has_teams() {
                Outcome::Draw {
                    reason: DrawReason::Agreement,
                }
            } else {
                self.standings(FfaEnding::Draw(DrawReason::Agreement))
            };
            self.finish_by_action(seat, Action::DrawAgreed, outcome);
            return Ok(DrawOfferState::Agreed);
        }
        Ok(DrawOfferState::Open)
    }

    /// Agrees to the open draw offer.
    pub fn accept_draw(&mut self, seat: Seat) -> Result<DrawOfferState, GameError> {
        self.check_in_game(seat)?;
        if self.draw_offer.is_none() {
            return Err(GameError::NoDrawOffer);
        }
        self.offer_draw(seat)
    }

    /// Declines the open draw offer, which ends it.
    pub fn decline_draw(&mut self, seat: Seat) -> Result<(), GameError> {
        self.check_in_game(seat)?;
        self.draw_offer
            .take()
            .map(|_| ())
            .ok_or(GameError::NoDrawOffer)
    }

    /// Claims the win in free-for-all when two players are left, the claimant leads by more than
    /// 20 and nobody who is out has more points.
    pub fn claim_win(&mut self, seat: Seat) -> Result<(), GameError> {
        self.check_in_game(seat)?;
        if self.rules.format != Format::FreeForAll {
            return Err(GameError::NotAllowed("only free-for-all has a claim win"));
        }
        if self.lead_leader() != Some(self.army_of(seat)) {
            return Err(GameError::CannotClaim);
        }
        let outcome = self.standings(FfaEnding::Claimed { seat });
        self.finish_by_action(seat, Action::ClaimedWin, outcome);
        Ok(())
    }

    /// Spends one of the team's lifelines to take back its partner's or its own move that was
    /// just played (before anyone else moved and before a result). The same seat must then choose
    /// a different move. If the move was the only legal one, it stands and no token is spent.
    pub fn take_back(&mut self, seat: Seat) -> Result<(), GameError> {
        if self.rules.lifelines == 0 {
            return Err(GameError::NotAllowed("lifelines are off"));
        }
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let team = seat.team();
        if self.lifelines[team as usize] == 0 {
            return Err(GameError::NoLifelines);
        }
        let Some(Event::Ply(ply)) = self.events.last() else {
            return Err(GameError::NothingToTakeBack);
        };
        if ply.seat.team() != team || ply.walking {
            return Err(GameError::NothingToTakeBack);
        }
        let (mover, undo, mv) = (ply.seat, ply.undo, ply.mv);
        let mut before = self.position.clone();
        before.undo(undo);
        if before.count_legal_moves() < 2 {
            return Err(GameError::NoAlternative);
        }
        self.events.pop();
        self.position = before;
        self.keys.pop();
        self.plies -= 1;
        if self.rules.format == Format::Duo {
            self.duo_seat = mover;
        }
        self.lifelines[team as usize] -= 1;
        self.forbidden = Some((mover, mv));
        // The kept moves are those the seat may play: not the one taken back.
        self.kept.of(&self.position);
        self.kept.remove(mv);
        Ok(())
    }

    /// Plays a legal move and settles everything it causes.
    fn apply(&mut self, mv: Move, walking: bool) -> &Ply {
        let seat = self
            .to_move()
            .expect("apply is only called while the game goes on");
        let mover = self.position.turn();
        let piece = self
            .position
            .piece_at(mv.from())
            .expect("a legal move starts on a piece");
        // What the move's record reads in the position before it is read now, rather than from
        // a copy of that position.
        let changed = changed_squares(&self.position, mv);
        let text = crate::notation::MoveText::begin(&self.position, &self.rules, mv);
        // The kings in check before the move, with their attackers: a move gives check only to
        // a king it attacks anew.
        let last_mover = self.last_ply().map(|ply| ply.army);
        let before = referee::Before::of::<Vec<Consequence>>(
            &self.rules,
            &self.position,
            mover,
            self.checked_armies(),
            last_mover,
        );
        let undo = self.position.play_unchecked(mv);
        self.plies += 1;
        if self.rules.format == Format::Duo {
            self.duo_seat = seat.next();
        }
        // A move answers an open draw offer with no.
        let ended_draw_offer = self.draw_offer.take().is_some();
        self.forbidden = None;
        self.resignation_request = None;
        let mut ply = Ply {
            seat,
            army: mover,
            mv,
            text: String::new(),
            piece,
            captured: undo.captured(),
            checks: ArmySet::EMPTY,
            kings_in_check: ArmySet::EMPTY,
            checkers: arrayvec::ArrayVec::new(),
            mates: 0,
            walking,
            ended_draw_offer,
            consequences: Vec::new(),
            changed,
            undo,
        };
        self.settle_move(&mut ply, &before);
        self.keys.push(self.repetition_key());
        if self.outcome.is_none() {
            self.assess_draws(&mut ply.consequences);
        }
        // Found when the move was settled, unless an elimination or a mate changed the position
        // since.
        ply.kings_in_check = self.checked_armies();
        self.checked = Some((self.position.hash(), ply.kings_in_check));
        // The kings in check were just cached: their attackers are found without looking for
        // the kings again.
        ply.checkers = self.checkers().iter().take(8).collect();
        ply.text = text.finish(&ply);
        self.events.push(Event::Ply(ply));
        match self.events.last() {
            Some(Event::Ply(ply)) => ply,
            _ => unreachable!("a ply was just pushed"),
        }
    }

    /// Ends the game by an action outside a move.
    fn finish_by_action(&mut self, seat: Seat, action: Action, outcome: Outcome) {
        self.outcome = Some(outcome);
        self.draw_offer = None;
        self.resignation_request = None;
        self.events.push(Event::Action {
            seat,
            action,
            consequences: Vec::new(),
        });
    }

    /// Puts `seat` out of a free-for-all (resignation or timeout), then settles what follows. A
    /// player who leaves on their turn gives it up, as chess.com has it: a king that walks on
    /// makes its first move on its next turn, unless `walks_now` (the player left before this
    /// turn: see [`Game::left_before_turn`]).
    fn leave_free_for_all(
        &mut self,
        seat: Seat,
        reason: Elimination,
        action: Action,
        walks_now: bool,
    ) {
        let army = self.army_of(seat);
        let on_turn = self.position.turn() == army && !walks_now;
        let leaving = referee::Leaving {
            king_walks: self.rules.resignation == Resignation::OutKingWalks,
            on_turn,
        };
        let mut consequences = Vec::new();
        self.referee(&mut consequences)
            .eliminate(army, reason, leaving);
        if on_turn && self.position.turn() == army {
            self.position.pass_turn();
        }
        if self
            .draw_offer
            .is_some_and(|agreed| self.seats_in_game().iter().all(|s| agreed[s.index()]))
        {
            self.draw_offer = None;
            self.outcome = Some(self.standings(FfaEnding::Draw(DrawReason::Agreement)));
        }
        if self.outcome.is_none() {
            let mut referee = self.referee(&mut consequences);
            let decision = referee
                .end_by_insufficient_material_on_leaving(army)
                .or_else(|| referee.free_for_all_end());
            if let Some(decision) = decision {
                self.decide(decision, None);
            }
        }
        // The position changed (grey pieces, perhaps the army to move): it counts for repetition.
        self.keys.push(self.repetition_key());
        if self.outcome.is_none() {
            // The player who left may have had the last pieces besides the kings: a dead position.
            self.assess_draws(&mut consequences);
        }
        if self.outcome.is_none() {
            self.assess_turn_start(&mut consequences);
        }
        self.events.push(Event::Action {
            seat,
            action,
            consequences,
        });
    }

    /// The key that decides repetitions: the position's hash, and in Duo the seat to move (the
    /// same player must be to move).
    fn repetition_key(&self) -> u64 {
        repetition_key(&self.position, self.rules.format, self.duo_seat)
    }

    /// The repetition key of every position reached so far, the current one last: what the bot
    /// needs to see repetitions coming.
    pub fn repetition_keys(&self) -> &[u64] {
        &self.keys
    }

    /// Final free-for-all standings.
    fn standings(&self, reason: FfaEnding) -> Outcome {
        let best = self.points.0.iter().copied().max().unwrap_or(0);
        let winners = Army::ALL
            .into_iter()
            .filter(|&a| self.points[a] == best)
            .collect();
        Outcome::Standings {
            points: self.points,
            winners,
            reason,
        }
    }

    /// In free-for-all with two players left: the one who may claim the win.
    fn lead_leader(&self) -> Option<Army> {
        referee::lead_leader(&self.position, &self.points)
    }
}

/// The key that decides repetitions of `pos` with `duo_seat` to move (the seat matters in Duo only).
pub(crate) fn repetition_key(pos: &Position, format: Format, duo_seat: Seat) -> u64 {
    let hash = pos.repetition_hash();
    match format {
        Format::Duo => hash ^ (duo_seat.index() as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d),
        _ => hash,
    }
}

/// The squares whose contents `mv` changes in `pos`.
fn changed_squares(pos: &Position, mv: Move) -> arrayvec::ArrayVec<crate::square::Square, 4> {
    let mut squares = arrayvec::ArrayVec::new();
    squares.extend([mv.from(), mv.to()]);
    if let Some(side) = mv.castle_side() {
        let castle = pos.castle(pos.turn(), side);
        squares.extend([castle.rook_from, castle.rook_to]);
    }
    if mv.is_en_passant() {
        if let Some(ep) = Army::ALL
            .into_iter()
            .filter_map(|a| pos.en_passant(a))
            .find(|ep| ep.skipped == mv.to())
        {
            squares.push(ep.landed);
        }
    }
    squares
}
