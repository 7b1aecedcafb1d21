//! During the game: moves, resignations, draws, takebacks, claims, the clocks running out, and
//! the moves nobody has to choose (walking kings) or that the CPU chooses (CPU seats, players
//! whose turn limit ran out, players away past their grace period).

use std::time::Duration;

use fourkings_engine::bot::{SearchLimits, SearchRoot};
use fourkings_engine::{Format, Game, Seat};
use fourkings_protocol::{CpuLevel, Event, GameChange, PremovesDropped, SeatIndex};
use tokio::time::Instant;
use tracing::Instrument;

use super::Room;
use super::requests::Ack;
use crate::connection::ConnId;
use crate::cpu::CpuRequest;
use crate::panics::PanicSite;
use crate::room::archive;
use crate::room::command::Command;
use crate::room::driver::CpuAnswer;
use crate::room::record::{GameAction, Record};
use crate::room::refusal::Refusal;
use crate::room::seat_numbers;
use crate::room::seating::SeatSlot;
use crate::room::views::MovedBy;

/// The least of a turn's remaining time the CPU leaves unused, for its move to be played and
/// travel.
const CPU_MARGIN: Duration = Duration::from_millis(250);
/// The least time the CPU is given, even when the turn is nearly over: enough for a shallow look.
const MIN_CPU_BUDGET: Duration = Duration::from_millis(10);

impl Room {
    /// The seat as the engine knows it, after checking the token and that a game is running.
    pub(super) fn seat_in_game(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Seat, Refusal> {
        self.authorize(conn, seat, token)?;
        match self.driver.game() {
            None => Err(Refusal::NotStarted),
            Some(game) if game.is_over() => Err(Refusal::GameOver),
            Some(_) => Ok(seat_numbers::engine_seat(seat)),
        }
    }

    /// Announces a change to the game made by `seat`'s request, and goes on to what follows it;
    /// the request's answer.
    fn changed_and_on(&mut self, what: GameChange, seat: SeatIndex) -> Ack {
        self.game_changed(what, seat);
        self.advance();
        Ack::default()
    }

    /// Announces a change to the game that was not a move.
    fn game_changed(&mut self, what: GameChange, seat: SeatIndex) {
        let game = self.game_view().expect("a game is running");
        self.emit(Event::GameChanged { what, seat, game });
    }

    pub(super) fn play_move(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        ply: u32,
        text: &str,
    ) -> Result<Ack, Refusal> {
        let who = self.seat_in_game(conn, seat, token)?;
        let game = self.driver.game().expect("checked by seat_in_game");
        let played = game.ply_count();
        if ply != played {
            return Err(Refusal::StalePly { ply, played });
        }
        if game.to_move() != Some(who) {
            return Err(Refusal::NotYourTurn);
        }
        if self.driver.turn_expired() {
            return Err(Refusal::TimeUp);
        }
        // `commit` applies the move (which parses and checks it) before it records it, so only
        // legal moves reach the log; checking it here as well would look it up twice.
        self.commit_game(GameAction::Move {
            seat,
            mv: text.to_owned(),
            automatic: false,
            premove: false,
        })?;
        self.announce_last_move(MovedBy::Player);
        self.advance();
        Ok(Ack::default())
    }

    /// Publishes the diff of the last ply.
    pub(super) fn announce_last_move(&mut self, by: MovedBy) {
        self.hold_cpu_for_a_takeback(by);
        let v = self.events.next_version();
        let frame = self
            .driver
            .moved_frame(v, by, self.time.now())
            .expect("a move was just played");
        self.events.emit_written(v, frame);
    }

    /// After a person's own move (not one the CPU played for them) that their team could still
    /// take back with a lifeline, a CPU that moves next waits a moment before playing, so that
    /// the takeback can arrive first; any other move lifts the wait.
    fn hold_cpu_for_a_takeback(&mut self, by: MovedBy) {
        let until = (|| {
            let game = self.driver.playing()?;
            let mover = game.last_ply()?.seat;
            let person = self.seating.is_human(seat_numbers::protocol_seat(mover));
            let next_is_cpu = self.driver.to_move().is_some_and(|s| self.cpu_drives(s));
            let can_take_back = game.lifelines(mover.team()) > 0;
            (by != MovedBy::Cpu && person && next_is_cpu && can_take_back)
                .then(|| self.time.now() + self.context.config.cpu_takeback_wait())
        })();
        self.driver.hold_cpu_until(until);
    }

    pub(super) fn resign(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Refusal> {
        let who = self.seat_in_game(conn, seat, token)?;
        self.commit_game(GameAction::Resign { seat })?;
        let partner = who.partner();
        let asked = self.driver.game().and_then(Game::resignation_request) == Some(who);
        let partner_seat = seat_numbers::protocol_seat(partner);
        let what = if !asked {
            GameChange::Resigned
        } else if matches!(self.seating.slot(partner_seat), SeatSlot::Cpu { .. }) {
            // A CPU partner agrees at once: it stands in for a person who would be asked. The
            // request was just made, so the answer cannot be refused.
            let _ = self.commit_game(GameAction::AnswerResignation {
                seat: partner_seat,
                accept: true,
            });
            GameChange::Resigned
        } else {
            GameChange::ResignationRequested
        };
        Ok(self.changed_and_on(what, seat))
    }

    pub(super) fn answer_resignation(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        accept: bool,
    ) -> Result<Ack, Refusal> {
        self.seat_in_game(conn, seat, token)?;
        let requester = self.driver.game().and_then(Game::resignation_request);
        self.commit_game(GameAction::AnswerResignation { seat, accept })?;
        let requester = requester.map_or(seat, seat_numbers::protocol_seat);
        let what = if accept {
            GameChange::Resigned
        } else {
            GameChange::ResignationDeclined
        };
        Ok(self.changed_and_on(what, requester))
    }

    pub(super) fn offer_draw(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Refusal> {
        self.seat_in_game(conn, seat, token)?;
        self.commit_game(GameAction::OfferDraw { seat })?;
        self.after_draw_answer(seat);
        Ok(Ack::default())
    }

    pub(super) fn answer_draw(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        accept: bool,
    ) -> Result<Ack, Refusal> {
        self.seat_in_game(conn, seat, token)?;
        if !accept {
            self.commit_game(GameAction::DeclineDraw { seat })?;
            self.game_changed(GameChange::DrawDeclined, seat);
            return Ok(Ack::default());
        }
        self.commit_game(GameAction::AcceptDraw { seat })?;
        self.after_draw_answer(seat);
        Ok(Ack::default())
    }

    /// After a seat agreed to a draw: CPU seats still in the game answer as their strategy
    /// judges the position (the engine's bot agrees when a draw is as good as what it expects);
    /// the draw is announced as offered, agreed or declined.
    fn after_draw_answer(&mut self, seat: SeatIndex) {
        let mut declined = None;
        for (cpu, level) in self.seating.cpu_seats() {
            let Some(game) = self.driver.game() else {
                break;
            };
            let open = !game.is_over() && game.draw_offer().is_some();
            let who = seat_numbers::engine_seat(cpu);
            if !open || !game.is_in_game(who) {
                continue;
            }
            let accepts = self.context.cpu.strategy.accepts_draw(game, who, level);
            // The offer is open and the seat is in the game: answering cannot fail.
            if accepts {
                let _ = self.commit_game(GameAction::AcceptDraw { seat: cpu });
            } else {
                let _ = self.commit_game(GameAction::DeclineDraw { seat: cpu });
                declined = Some(cpu);
                break;
            }
        }
        if let Some(cpu) = declined {
            // The offer was announced (or agreed to) before the CPU said no.
            self.game_changed(GameChange::DrawOffered, seat);
            self.game_changed(GameChange::DrawDeclined, cpu);
        } else {
            let what = if self.driver.is_over() {
                GameChange::DrawAgreed
            } else {
                GameChange::DrawOffered
            };
            self.game_changed(what, seat);
        }
        self.advance();
    }

    pub(super) fn take_back(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Refusal> {
        self.seat_in_game(conn, seat, token)?;
        self.commit_game(GameAction::TakeBack { seat })?;
        self.drop_all_premoves(PremovesDropped::TakenBack);
        // A CPU's result for the ply just undone is stale now; a new one will be asked for.
        Ok(self.changed_and_on(GameChange::TakenBack, seat))
    }

    /// Claims the win: in free-for-all, the leader's claim; in Duo, against a player who left and
    /// did not come back within the grace period.
    pub(super) fn claim_win(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Refusal> {
        let who = self.seat_in_game(conn, seat, token)?;
        if self.format() == Format::Duo {
            let gone = SeatIndex::ALL.into_iter().find(|&s| {
                seat_numbers::engine_seat(s).team() != who.team() && self.seating.grace_over(s)
            });
            let Some(gone) = gone else {
                return Err(Refusal::NobodyAbandoned);
            };
            self.commit_game(GameAction::Abandon { seat: gone })?;
        } else {
            self.commit_game(GameAction::ClaimWin { seat })?;
        }
        Ok(self.changed_and_on(GameChange::WinClaimed, seat))
    }

    /// The clocks at `now`: a team's bank running out loses the game; a turn limit running out
    /// makes the CPU play the move.
    pub(super) fn clock_timers(&mut self, now: Instant) {
        if self.driver.playing().is_none() {
            return;
        }
        let Some(seat) = self.driver.to_move() else {
            return;
        };
        if self.driver.bank_empty(now) {
            if self.commit_game(GameAction::TimeOut { seat }).is_ok() {
                self.game_changed(GameChange::TimedOut, seat);
                self.advance();
            }
        } else if self.driver.turn_deadline().is_some_and(|d| d <= now)
            && self.commit(Record::TurnExpired).is_ok()
        {
            self.advance();
        }
    }

    /// Whether the CPU chooses `seat`'s move now.
    pub(super) fn cpu_drives(&self, seat: SeatIndex) -> bool {
        match self.seating.slot(seat) {
            SeatSlot::Cpu { .. } => true,
            SeatSlot::Human { .. } => {
                // Duo has no CPU for players who left: the clocks stop and a claim decides.
                (self.seating.grace_over(seat) && self.format() != Format::Duo)
                    || (self.driver.turn_expired() && self.driver.to_move() == Some(seat))
            }
            SeatSlot::Empty => false,
        }
    }

    /// Plays the moves nobody chooses (walking kings), asks the CPU for the moves it chooses, and
    /// settles a finished game (the archive; the room leaves memory if no rematch comes).
    pub(super) fn advance(&mut self) {
        self.cancel_stale_cpu();
        self.drop_premoves_of_the_out();
        loop {
            let Some(game) = self.driver.game() else {
                return;
            };
            if game.is_over() {
                self.drop_premoves_of_the_out();
                self.game_over();
                return;
            }
            if game.walking_king_to_move() {
                let Some(mv) = game.walking_king_move() else {
                    return;
                };
                let walk = GameAction::Walk {
                    mv: fourkings_engine::notation::write_coordinate(mv),
                };
                if self.commit_game(walk).is_err() {
                    return;
                }
                self.announce_last_move(MovedBy::Cpu);
                continue;
            }
            let Some(seat) = self.driver.to_move() else {
                return;
            };
            if self.play_premove(seat) {
                continue;
            }
            if self.cpu_drives(seat) && !self.driver.cpu_thinking() {
                self.ask_cpu();
            }
            return;
        }
    }

    /// A game just ended: count it in the session, archive it, and start the time after which a
    /// room nobody rematches leaves memory.
    fn game_over(&mut self) {
        self.count_session_game();
        let game_id = self.game_id();
        let at = self.time.wall_now();
        let table = archive::Table {
            room: &self.id,
            game_id,
            names: self.seating.player_names(),
            settings: &self.settings,
        };
        if let Some(game) = self.driver.take_unarchived() {
            self.journal.archive(archive::archived(table, game, at));
        }
        self.driver.note_finished(self.time.now());
    }

    /// The level the CPU plays at for `seat`: a CPU seat's own, else the room's.
    fn cpu_level(&self, seat: Option<SeatIndex>) -> CpuLevel {
        match seat.map(|s| self.seating.slot(s)) {
            Some(SeatSlot::Cpu { level }) => *level,
            _ => self.settings.cpu_level,
        }
    }

    /// Stops the CPU's thinking if its result can no longer be played: the game moved on or
    /// ended, or the CPU no longer chooses this seat's move (the player came back).
    fn cancel_stale_cpu(&mut self) {
        let Some(job) = self.driver.cpu_job() else {
            return;
        };
        let current = self.driver.position_key() == Some(job);
        let still_driven = current && self.driver.to_move().is_some_and(|s| self.cpu_drives(s));
        if !still_driven {
            self.driver.cancel_cpu();
        }
    }

    /// How long the CPU may think now, and what it should aim for: the server's limit, within
    /// the turn limit with a margin for the move to travel and be played, and with a game or
    /// team clock, its bank spent as the engine spends a clock (`SearchLimits::for_clock`: what
    /// is left of the turn's delay, a share of the bank and the increment, more in a sharp
    /// position, never the bank's last second).
    fn cpu_budget(&self) -> (Duration, Option<Duration>) {
        let now = self.time.now();
        let mut budget = self.context.config.cpu_think_limit();
        let mut target = None;
        if let Some(deadline) = self.driver.turn_deadline() {
            let left = deadline.saturating_duration_since(now);
            budget = budget.min(left.saturating_sub(CPU_MARGIN.max(left / 5)));
        }
        if let (Some(deadline), Some(bank)) =
            (self.driver.bank_deadline(), self.driver.bank_left(now))
        {
            let delay_left = deadline.saturating_duration_since(now).saturating_sub(bank);
            let increment = self.driver.bank_increment().unwrap_or_default();
            let clock = SearchLimits::for_clock(bank, increment, delay_left);
            budget = budget.min(clock.time.unwrap_or(budget));
            target = clock.target;
        }
        (budget.max(MIN_CPU_BUDGET), target)
    }

    fn ask_cpu(&mut self) {
        let Some(game) = self.driver.game() else {
            return;
        };
        let Some(inbox) = self.inbox.upgrade() else {
            return;
        };
        let ply = game.ply_count();
        let hash = game.position().hash();
        let seed = game.seed() ^ u64::from(ply);
        let Ok(root) = SearchRoot::from_game(game) else {
            return;
        };
        let (budget, target) = self.cpu_budget();
        let level = self.cpu_level(self.driver.to_move());
        // Replacing a job cancels it.
        let (job, cancel) = self.driver.start_cpu(ply, hash);
        let request = CpuRequest {
            root,
            budget,
            target,
            level,
            seed,
            cancel,
        };
        let pool = self.context.cpu.clone();
        let metrics = self.context.metrics.clone();
        tokio::spawn(
            async move {
                let Some(thought) = pool.think(request).await else {
                    return;
                };
                if let Some(failure) = &thought.failure {
                    metrics.panics(PanicSite::Cpu);
                    tracing::error!(error = %failure, "the CPU plays a random legal move instead");
                }
                metrics.cpu_turn(level, thought.took);
                let answer = CpuAnswer {
                    job,
                    ply,
                    hash,
                    mv: thought.mv,
                };
                let _ = inbox.send(Command::CpuMoved(answer)).await;
            }
            .in_current_span(),
        );
    }

    /// A CPU result arrived: play it if it is the latest search's, still for the current
    /// position, and the CPU still chooses this seat's move (the player may have come back);
    /// else drop it. An older search's late result changes nothing at all.
    pub(super) fn cpu_moved(&mut self, answer: CpuAnswer) {
        let CpuAnswer { job, ply, hash, mv } = answer;
        if !self.driver.cpu_answered(job) {
            return;
        }
        let current = self.driver.position_key() == Some((ply, hash));
        if let (true, Some(seat)) = (current, self.driver.to_move()) {
            let for_player = self.seating.is_human(seat);
            let action = GameAction::Move {
                seat,
                mv: fourkings_engine::notation::write_coordinate(mv),
                automatic: for_player,
                premove: false,
            };
            if self.cpu_drives(seat) && self.commit_game(action).is_ok() {
                let by = if for_player {
                    MovedBy::Cpu
                } else {
                    MovedBy::Player
                };
                self.announce_last_move(by);
            }
        }
        self.advance();
    }
}
