//! The game driver: the game itself, its clocks, and the CPU's thinking about it. It checks and
//! applies game actions (the engine decides what a move means), times each turn, and keeps the
//! one job the CPU may be working on, so that a stale result is never played.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use fourkings_engine::notation;
use fourkings_engine::{Game, Move};
use fourkings_protocol::{Clock, GameStatus, GameView, LegalMoves, SeatIndex};
use tokio::time::Instant;

use super::clock::{BankRules, Clocks};
use super::premoves::Premoves;
use super::record::GameAction;
use super::refusal::Refusal;
use super::views::{self, MovedBy};
use super::{frames, seat_numbers};

/// Names one CPU search of a room: a result carries the id of the search that found it, so that
/// a result from an older search (before a rematch or a takeback, in a position that may look
/// the same) is told apart from the one the room waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CpuJobId(u64);

/// A CPU move being computed. Dropping it stops the computation: a room that forgets its job
/// (the result is stale, or the room itself ends) never leaves a search running for nobody.
struct CpuJob {
    /// Which search it is.
    id: CpuJobId,
    /// The ply it is for.
    ply: u32,
    /// The hash of the position it is for.
    hash: u64,
    /// Stops it.
    cancel: Arc<AtomicBool>,
}

impl Drop for CpuJob {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The room's game, from the first start on.
pub(crate) struct GameDriver {
    game: Option<Game>,
    clocks: Clocks,
    /// The seat that moves first in the current (or next) game.
    first_seat: SeatIndex,
    /// Games begun in this room (the archive numbers them).
    games_played: u32,
    /// Whether the current game, if over, is in the archive.
    archived: bool,
    /// Since when a finished game has waited for a rematch.
    finished_since: Option<Instant>,
    /// The CPU move being computed, if its result can still be played.
    cpu_job: Option<CpuJob>,
    /// The search that has not answered yet, if one runs for the current game (also after its
    /// job was dropped: a result that is still good when it comes is played).
    cpu_thinking: Option<CpuJobId>,
    /// The id the next search gets.
    next_cpu_job: u64,
    /// The moves each seat queued for its turn.
    premoves: Premoves,
    /// Until when a CPU's move waits: a person just moved, and their team may still take the
    /// move back with a lifeline.
    cpu_not_before: Option<Instant>,
    /// A CPU answer that came while it had to wait (for a takeback, or for storage).
    held_answer: Option<CpuAnswer>,
    /// By ply of the current game, whether nobody at the seat chose the move (the CPU played it
    /// for a person, or a walking king moved): the history says so, for a client that joins
    /// later. Rebuilt with the game when a room's records are replayed.
    automatic: Vec<bool>,
}

/// A CPU player's answer: the move it chose, and for which search and position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CpuAnswer {
    /// The search that chose it (the room plays only its latest search's answer).
    pub(crate) job: CpuJobId,
    /// The ply the move was chosen for.
    pub(crate) ply: u32,
    /// The hash of the position it was chosen in.
    pub(crate) hash: u64,
    /// The move.
    pub(crate) mv: Move,
}

impl GameDriver {
    /// No game yet.
    pub(crate) fn new() -> GameDriver {
        GameDriver {
            game: None,
            clocks: Clocks::new(None, None),
            first_seat: SeatIndex::ALL[0],
            games_played: 0,
            archived: false,
            finished_since: None,
            cpu_job: None,
            cpu_thinking: None,
            next_cpu_job: 0,
            premoves: Premoves::default(),
            cpu_not_before: None,
            held_answer: None,
            automatic: Vec::new(),
        }
    }

    /// Whether a CPU's move must still wait at `now` for a takeback that may come.
    pub(crate) fn cpu_held_at(&self, now: Instant) -> bool {
        self.cpu_not_before.is_some_and(|at| now < at)
    }

    /// Keeps `answer` until it may be played ([`GameDriver::due_answer`]).
    pub(crate) fn hold_answer(&mut self, answer: CpuAnswer) {
        self.held_answer = Some(answer);
    }

    /// The held answer, handed over if its wait for a takeback is over at `now`.
    pub(crate) fn due_answer(&mut self, now: Instant) -> Option<CpuAnswer> {
        if self.cpu_held_at(now) {
            return None;
        }
        self.held_answer.take()
    }

    /// When a held answer's wait for a takeback ends, if one waits for that.
    pub(crate) fn held_answer_due(&self) -> Option<Instant> {
        self.held_answer.and(self.cpu_not_before)
    }

    /// A CPU's move waits until `at` (or no longer, `None`).
    pub(crate) fn hold_cpu_until(&mut self, at: Option<Instant>) {
        self.cpu_not_before = at;
    }

    /// The premove queues of the current game.
    pub(crate) fn premoves(&self) -> &Premoves {
        &self.premoves
    }

    /// The premove queues, to change (a request or a record).
    pub(crate) fn premoves_mut(&mut self) -> &mut Premoves {
        &mut self.premoves
    }

    /// The current (or last) game, once one has started.
    pub(crate) fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// The game, while one is being played.
    pub(crate) fn playing(&self) -> Option<&Game> {
        self.game.as_ref().filter(|g| !g.is_over())
    }

    /// Whether a game has started (the lobby is over).
    pub(crate) fn is_started(&self) -> bool {
        self.game.is_some()
    }

    /// Whether the current game is over.
    pub(crate) fn is_over(&self) -> bool {
        self.game.as_ref().is_some_and(Game::is_over)
    }

    /// The room's status as its game makes it.
    pub(crate) fn status(&self) -> GameStatus {
        match &self.game {
            None => GameStatus::Lobby,
            Some(game) if game.is_over() => GameStatus::Finished,
            Some(_) => GameStatus::Playing,
        }
    }

    /// The seat to move, while a game is on.
    pub(crate) fn to_move(&self) -> Option<SeatIndex> {
        let seat = self.game.as_ref()?.to_move()?;
        Some(seat_numbers::protocol_seat(seat))
    }

    /// The seat that moves first in the current (or next) game.
    pub(crate) fn first_seat(&self) -> SeatIndex {
        self.first_seat
    }

    /// The next game's first seat.
    pub(crate) fn set_first_seat(&mut self, seat: SeatIndex) {
        self.first_seat = seat;
    }

    /// Games begun in this room.
    pub(crate) fn games_played(&self) -> u32 {
        self.games_played
    }

    /// A new game begins at `now`, `first_seat` moving first, with a turn limit and banks (a game
    /// clock's or Duo's team clock), if any.
    pub(crate) fn begin(
        &mut self,
        game: Game,
        (turn_limit, banks): (Option<Duration>, Option<BankRules>),
        first_seat: SeatIndex,
        now: Instant,
    ) {
        self.clocks = Clocks::new(turn_limit, banks);
        self.premoves.reset();
        self.first_seat = first_seat;
        self.game = Some(game);
        self.automatic.clear();
        self.games_played += 1;
        self.archived = false;
        // A search for the previous game may still answer: its result is not waited for.
        self.cpu_thinking = None;
        self.cancel_cpu();
        self.follow_turn(now);
    }

    /// Checks and applies a game action at `now`; the engine decides whether it is allowed.
    pub(crate) fn act(&mut self, action: &GameAction, now: Instant) -> Result<(), Refusal> {
        let Some(game) = self.game.as_mut() else {
            return Err(Refusal::NotStarted);
        };
        let seat = seat_numbers::engine_seat;
        let result = match action {
            GameAction::Move { seat: s, mv, .. } => {
                let mv = parse_coordinate(game, mv)?;
                game.play(seat(*s), mv).map(|_| ())
            }
            GameAction::Walk { mv } => {
                let text = mv;
                let mv = find_walking_move(game, text)
                    .ok_or_else(|| Refusal::NotTheWalkingKingsMove { text: text.clone() })?;
                game.walk_king_with(mv).map(|_| ())
            }
            GameAction::Resign { seat: s } => game.resign(seat(*s)).map(|_| ()),
            GameAction::AnswerResignation { seat: s, accept } => {
                game.answer_resignation(seat(*s), *accept)
            }
            GameAction::OfferDraw { seat: s } => game.offer_draw(seat(*s)).map(|_| ()),
            GameAction::AcceptDraw { seat: s } => game.accept_draw(seat(*s)).map(|_| ()),
            GameAction::DeclineDraw { seat: s } => game.decline_draw(seat(*s)),
            GameAction::TakeBack { seat: s } => game.take_back(seat(*s)),
            GameAction::ClaimWin { seat: s } => game.claim_win(seat(*s)),
            GameAction::TimeOut { seat: s } => game.time_out(seat(*s)),
            GameAction::Abandon { seat: s } => game.abandon(seat(*s)),
        };
        result?;
        let plies = game.ply_count() as usize;
        // A takeback shortens the game; a move or a king's walk adds its ply.
        self.automatic.truncate(plies);
        let chosen_by_nobody = match action {
            GameAction::Move { automatic, .. } => Some(*automatic),
            GameAction::Walk { .. } => Some(true),
            _ => None,
        };
        if let Some(automatic) = chosen_by_nobody {
            self.automatic.resize(plies, false);
            if let Some(last) = self.automatic.last_mut() {
                *last = automatic;
            }
        }
        if let GameAction::Move {
            seat,
            premove: true,
            ..
        } = action
        {
            self.premoves.played_first(*seat);
        }
        self.follow_turn(now);
        Ok(())
    }

    /// By ply of the current game, whether nobody at the seat chose the move.
    pub(crate) fn automatic_plies(&self) -> &[bool] {
        &self.automatic
    }

    /// Times the turn the game is at now (a new one starts when the ply or the seat changed).
    fn follow_turn(&mut self, now: Instant) {
        let Some(game) = &self.game else { return };
        if game.is_over() {
            self.clocks.stop(now);
        } else {
            let to_move = game.to_move().map(seat_numbers::protocol_seat);
            self.clocks.follow(game.ply_count(), to_move, now);
        }
    }

    /// The current turn's limit ran out: the CPU plays this move.
    pub(crate) fn expire_turn(&mut self) {
        self.clocks.expire();
    }

    /// Whether the current turn's limit has run out.
    pub(crate) fn turn_expired(&self) -> bool {
        self.clocks.expired()
    }

    /// Duo stops its clocks while anyone is away during a game.
    pub(crate) fn follow_presence(&mut self, anyone_away: bool, now: Instant) {
        let duo_running = self
            .playing()
            .is_some_and(|g| g.rules().format == fourkings_engine::Format::Duo);
        if duo_running {
            if anyone_away {
                self.clocks.pause(now);
            } else {
                self.clocks.resume(now);
            }
        }
    }

    /// The clocks as clients see them.
    pub(crate) fn clock_view(&self, now: Instant) -> Clock {
        self.clocks.view(now)
    }

    /// When the current turn's limit runs out, if it runs.
    pub(crate) fn turn_deadline(&self) -> Option<Instant> {
        self.clocks.turn_deadline()
    }

    /// When the bank of the seat to move runs out, if it runs.
    pub(crate) fn bank_deadline(&self) -> Option<Instant> {
        self.clocks.bank_deadline()
    }

    /// What is left in the bank of the seat to move at `now`, if banks run.
    pub(crate) fn bank_left(&self, now: Instant) -> Option<Duration> {
        self.clocks.bank_left(now)
    }

    /// What a move earns its mover's bank, if banks run.
    pub(crate) fn bank_increment(&self) -> Option<Duration> {
        self.clocks.increment()
    }

    /// Whether the bank of the seat to move is empty at `now`.
    pub(crate) fn bank_empty(&self, now: Instant) -> bool {
        self.clocks.bank_empty(now)
    }

    /// When the clocks next need the room, while a game is on.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.playing()?;
        [self.turn_deadline(), self.bank_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The game, if it is over and not yet archived; it counts as archived from now on.
    pub(crate) fn take_unarchived(&mut self) -> Option<&Game> {
        if self.archived || !self.is_over() {
            return None;
        }
        self.archived = true;
        self.game.as_ref()
    }

    /// A restored room: a game that was over then was archived then.
    pub(crate) fn restored(&mut self) {
        self.archived = self.is_over();
    }

    /// Since when a finished game has waited for a rematch.
    pub(crate) fn finished_since(&self) -> Option<Instant> {
        self.finished_since
    }

    /// The game is over and waits for a rematch, since `now` unless it already did.
    pub(crate) fn note_finished(&mut self, now: Instant) {
        self.finished_since.get_or_insert(now);
    }

    /// A rematch: nothing waits any more.
    pub(crate) fn clear_finished(&mut self) {
        self.finished_since = None;
    }

    /// The game as clients see it, with the clocks at `now`; `id` names it, and
    /// `silent_partners` is the room's setting (for what its rules view says of team chat).
    pub(crate) fn view(&self, id: String, now: Instant, silent_partners: bool) -> Option<GameView> {
        let game = self.game.as_ref()?;
        Some(views::game_view(
            game,
            id,
            self.clock_view(now),
            self.first_seat,
            silent_partners,
        ))
    }

    /// The seat whose legal moves a client would be sent (the seat to move, unless its king
    /// walks by itself or its turn limit ran out).
    pub(crate) fn seat_choosing(&self) -> Option<SeatIndex> {
        if self.clocks.expired() {
            return None;
        }
        self.game.as_ref().and_then(views::seat_with_legal_moves)
    }

    /// The legal moves of the seat to move.
    pub(crate) fn legal_moves(&self) -> Option<LegalMoves> {
        self.game.as_ref().and_then(views::legal_moves)
    }

    /// The `legal_moves` message of the seat to move, at event version `v`.
    pub(crate) fn legal_moves_frame(&self, v: u64) -> Option<(SeatIndex, Utf8Bytes)> {
        let game = self.game.as_ref()?;
        let seat = views::seat_with_legal_moves(game)?;
        let frame = frames::legal_moves_frame(v, seat, game.ply_count(), game.legal_move_slice());
        Some((seat, frame))
    }

    /// The `moved` event of the last ply, at event version `v`.
    pub(crate) fn moved_frame(&self, v: u64, by: MovedBy, now: Instant) -> Option<Utf8Bytes> {
        let game = self.game.as_ref()?;
        let ply = game.last_ply()?;
        Some(frames::moved_frame(v, game, ply, by, &self.clock_view(now)))
    }

    /// The ply and position hash the CPU is asked about now, while a game is on.
    pub(crate) fn position_key(&self) -> Option<(u32, u64)> {
        let game = self.playing()?;
        Some((game.ply_count(), game.position().hash()))
    }

    /// The ply and hash the CPU job is for, if one runs.
    pub(crate) fn cpu_job(&self) -> Option<(u32, u64)> {
        self.cpu_job.as_ref().map(|job| (job.ply, job.hash))
    }

    /// Whether a CPU search runs for the current game and has not answered yet.
    pub(crate) fn cpu_thinking(&self) -> bool {
        self.cpu_thinking.is_some()
    }

    /// The CPU starts a search of the position `(ply, hash)`: its id, and the flag that stops
    /// it. Replacing a job stops the old one.
    pub(crate) fn start_cpu(&mut self, ply: u32, hash: u64) -> (CpuJobId, Arc<AtomicBool>) {
        let id = CpuJobId(self.next_cpu_job);
        self.next_cpu_job += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        self.cpu_job = Some(CpuJob {
            id,
            ply,
            hash,
            cancel: cancel.clone(),
        });
        self.cpu_thinking = Some(id);
        (id, cancel)
    }

    /// Stops the CPU's thinking, if it thinks.
    pub(crate) fn cancel_cpu(&mut self) {
        self.cpu_job = None;
    }

    /// The search `job` answered. `true` if it is the one the room waits for (it thinks no
    /// more, its job is done); `false` for an older search's late answer, which changes
    /// nothing: the state of the newer search stays as it is.
    pub(crate) fn cpu_answered(&mut self, job: CpuJobId) -> bool {
        if self.cpu_thinking != Some(job) {
            return false;
        }
        self.cpu_thinking = None;
        if self.cpu_job.as_ref().is_some_and(|j| j.id == job) {
            self.cpu_job = None;
        }
        true
    }
}

/// The walking king's move that `text` names in coordinate form.
pub(crate) fn find_walking_move(game: &Game, text: &str) -> Option<Move> {
    let named = notation::parse_coordinate(text, game.rules().board()).ok()?;
    named.find_in(&game.position().legal_moves())
}

/// The legal move `text` names in coordinate form (`h2h4`, `h10h11q`): `bad_move` for a text
/// that is not a move in coordinate form on this board, `illegal_move` for one that cannot be
/// played now.
fn parse_coordinate(game: &Game, text: &str) -> Result<Move, Refusal> {
    let named = notation::parse_coordinate(text, game.rules().board()).map_err(|error| {
        Refusal::BadMove {
            text: text.to_owned(),
            error,
        }
    })?;
    named
        .find_in(game.legal_move_slice())
        // The move just taken back is left out of the legal moves: name it anyway, so that the
        // game refuses it as `taken_back` rather than as illegal.
        .or_else(|| game.forbidden_move().filter(|&mv| named.names(mv)))
        // Lazily: the message is written only for a move that is refused.
        .ok_or_else(|| Refusal::IllegalMove {
            text: text.to_owned(),
        })
}
