//! During the game: moves, resignations, draws, takebacks, claims, the clocks running out, and
//! the moves nobody has to choose (walking kings) or that the CPU chooses (CPU seats, players
//! whose turn limit ran out, players away past their grace period).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fourkings_engine::bot::SearchRoot;
use fourkings_engine::game::GameError;
use fourkings_engine::{Format, Game, Move, Seat, Square};
use fourkings_protocol::{ErrorCode, Event, SeatIndex};
use tokio::time::Instant;

use tracing::Instrument;

use super::record::{GameAction, Record};
use super::state::{Ack, Reject, Room, SeatSlot, reject};
use super::{Command, views};
use crate::connection::ConnId;
use crate::cpu::CpuRequest;
use crate::storage::Write;

/// The least of a turn's remaining time the CPU leaves unused, for its move to be played and
/// travel.
const CPU_MARGIN: Duration = Duration::from_millis(250);
/// The least time the CPU is given, even when the turn is nearly over: enough for a shallow look.
const MIN_CPU_BUDGET: Duration = Duration::from_millis(10);

/// A CPU move being computed. Dropping it stops the computation: a room that forgets its job
/// (the result is stale, or the room itself ends) never leaves a search running for nobody.
pub(super) struct CpuJob {
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

/// The engine's refusal as a protocol error.
// Taken by value so that it reads `map_err(refused)`.
#[allow(clippy::needless_pass_by_value)]
pub(super) fn refused(error: GameError) -> Reject {
    let message = error.to_string();
    let code = match error {
        GameError::GameOver => ErrorCode::GameOver,
        GameError::NotYourTurn { .. } => ErrorCode::NotYourTurn,
        GameError::NotInGame | GameError::WalkingKing => ErrorCode::NotInGame,
        GameError::IllegalMove(_) => ErrorCode::IllegalMove,
        GameError::TakenBack(_) => ErrorCode::TakenBack,
        GameError::NotAllowed(_) => ErrorCode::NotAllowed,
        GameError::NoLifelines => ErrorCode::NoLifelines,
        GameError::NothingToTakeBack => ErrorCode::NothingToTakeBack,
        GameError::NoAlternative => ErrorCode::NoAlternative,
        GameError::NoDrawOffer => ErrorCode::NoDrawOffer,
        GameError::NoResignationRequest => ErrorCode::NoResignationRequest,
        GameError::CannotClaim => ErrorCode::CannotClaim,
    };
    (code, message)
}

impl Room {
    /// The seat as the engine knows it, after checking the token and that a game is running.
    fn seat_in_game(&mut self, conn: ConnId, seat: SeatIndex, token: &str) -> Result<Seat, Reject> {
        self.authorize(conn, seat, token)?;
        match &self.game {
            None => reject(ErrorCode::NotStarted, "the game has not started"),
            Some(game) if game.is_over() => reject(ErrorCode::GameOver, "the game is over"),
            Some(_) => Ok(Seat::ALL[usize::from(seat)]),
        }
    }

    /// Announces a change to the game that was not a move.
    fn game_changed(&mut self, what: &str, seat: SeatIndex) {
        let game = self.game_view().expect("a game is running");
        self.emit(Event::GameChanged {
            what: what.to_owned(),
            seat,
            game,
        });
    }

    pub(super) fn play_move(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        ply: u32,
        text: &str,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        let game = self.game.as_ref().expect("checked by seat_in_game");
        if ply != game.ply_count() {
            return reject(
                ErrorCode::StalePly,
                format!(
                    "the move is for ply {ply} but {} plies have been played",
                    game.ply_count()
                ),
            );
        }
        if game.to_move() != Some(who) {
            return reject(ErrorCode::NotYourTurn, "it is not this seat's turn");
        }
        if self.clocks.expired {
            return reject(
                ErrorCode::TimeUp,
                "the turn limit ran out: the CPU is playing this move",
            );
        }
        // `commit` applies the move (which parses and checks it) before it records it, so only
        // legal moves reach the log; checking it here as well would generate the legal moves
        // once more for every move.
        self.commit_game(GameAction::Move {
            seat,
            mv: text.to_ascii_lowercase(),
            automatic: false,
        })?;
        self.announce_last_move(false);
        self.advance();
        Ok(Ack::default())
    }

    /// Emits the diff of the last ply.
    fn announce_last_move(&mut self, automatic: bool) {
        let clock = self.clocks.view(self.now());
        let game = self.game.as_ref().expect("a game is running");
        let ply = game.last_ply().expect("a move was just played");
        let v = self.version + 1;
        let frame = views::moved_frame(v, game, ply, automatic, &clock);
        self.emit_written(v, frame);
    }

    pub(super) fn resign(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        self.commit_game(GameAction::Resign { seat })?;
        let partner = who.partner();
        let asked = self.game.as_ref().and_then(Game::resignation_request) == Some(who);
        let what = if !asked {
            "resigned"
        } else if matches!(self.seats[partner.index()], SeatSlot::Cpu { .. }) {
            // A CPU partner agrees at once: it stands in for a person who would be asked. The
            // request was just made, so the answer cannot be refused.
            let partner = partner.index() as SeatIndex;
            let _ = self.commit_game(GameAction::AnswerResignation {
                seat: partner,
                accept: true,
            });
            "resigned"
        } else {
            "resignation_requested"
        };
        self.game_changed(what, seat);
        self.advance();
        Ok(Ack::default())
    }

    pub(super) fn answer_resignation(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        accept: bool,
    ) -> Result<Ack, Reject> {
        self.seat_in_game(conn, seat, token)?;
        let requester = self.game.as_ref().and_then(Game::resignation_request);
        self.commit_game(GameAction::AnswerResignation { seat, accept })?;
        let requester = requester.map_or(seat, |s| s.index() as SeatIndex);
        self.game_changed(
            if accept {
                "resigned"
            } else {
                "resignation_declined"
            },
            requester,
        );
        self.advance();
        Ok(Ack::default())
    }

    pub(super) fn offer_draw(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
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
    ) -> Result<Ack, Reject> {
        self.seat_in_game(conn, seat, token)?;
        if !accept {
            self.commit_game(GameAction::DeclineDraw { seat })?;
            self.game_changed("draw_declined", seat);
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
        let cpus: Vec<(u8, fourkings_protocol::CpuLevel)> = (0..4u8)
            .filter_map(|s| match self.seats[usize::from(s)] {
                SeatSlot::Cpu { level } => Some((s, level)),
                _ => None,
            })
            .collect();
        let mut declined = None;
        for (cpu, level) in cpus {
            let Some(game) = self.game.as_ref() else {
                break;
            };
            let open = !game.is_over() && game.draw_offer().is_some();
            let who = Seat::ALL[usize::from(cpu)];
            if !open || !game.is_in_game(who) {
                continue;
            }
            // The offer is open and the seat is in the game: answering cannot fail.
            if self.context.cpu.strategy.accepts_draw(game, who, level) {
                let _ = self.commit_game(GameAction::AcceptDraw { seat: cpu });
            } else {
                let _ = self.commit_game(GameAction::DeclineDraw { seat: cpu });
                declined = Some(cpu);
                break;
            }
        }
        if let Some(cpu) = declined {
            // The offer was announced (or agreed to) before the CPU said no.
            self.game_changed("draw_offered", seat);
            self.game_changed("draw_declined", cpu);
        } else {
            let agreed = self.game.as_ref().is_some_and(Game::is_over);
            self.game_changed(
                if agreed {
                    "draw_agreed"
                } else {
                    "draw_offered"
                },
                seat,
            );
        }
        self.advance();
    }

    pub(super) fn take_back(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
        self.seat_in_game(conn, seat, token)?;
        self.commit_game(GameAction::TakeBack { seat })?;
        // A CPU's result for the ply just undone is stale now; a new one will be asked for.
        self.game_changed("taken_back", seat);
        self.advance();
        Ok(Ack::default())
    }

    /// Claims the win: in free-for-all, the leader's claim; in Duo, against a player who left and
    /// did not come back within the grace period.
    pub(super) fn claim_win(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        if self.format() == Format::Duo {
            let gone = (0..4u8)
                .find(|&s| Seat::ALL[usize::from(s)].team() != who.team() && self.grace_over(s));
            let Some(gone) = gone else {
                return reject(
                    ErrorCode::CannotClaim,
                    "no opponent has been away past the grace period",
                );
            };
            self.commit_game(GameAction::Abandon { seat: gone })?;
        } else {
            self.commit_game(GameAction::ClaimWin { seat })?;
        }
        self.game_changed("win_claimed", seat);
        self.advance();
        Ok(Ack::default())
    }

    /// The clocks at `now`: a team's bank running out loses the game; a turn limit running out
    /// makes the CPU play the move.
    pub(super) fn clock_timers(&mut self, now: Instant) {
        let Some(game) = &self.game else { return };
        if game.is_over() {
            return;
        }
        let Some(seat) = game.to_move() else { return };
        let seat = seat.index() as SeatIndex;
        if self.clocks.bank_empty(now) {
            if self.commit_game(GameAction::TimeOut { seat }).is_ok() {
                self.game_changed("timed_out", seat);
                self.advance();
            }
        } else if self.clocks.turn_deadline().is_some_and(|d| d <= now)
            && self.commit(Record::TurnExpired).is_ok()
        {
            self.advance();
        }
    }

    /// Whether the CPU chooses `seat`'s move now.
    fn cpu_drives(&self, seat: SeatIndex) -> bool {
        match self.seats[usize::from(seat)] {
            SeatSlot::Cpu { .. } => true,
            SeatSlot::Human { .. } => {
                let to_move = self
                    .game
                    .as_ref()
                    .and_then(Game::to_move)
                    .map(|s| s.index() as SeatIndex);
                // Duo has no CPU for players who left: the clocks stop and a claim decides.
                (self.grace_over(seat) && self.format() != Format::Duo)
                    || (self.clocks.expired && to_move == Some(seat))
            }
            SeatSlot::Empty => false,
        }
    }

    /// Plays the moves nobody chooses (walking kings), asks the CPU for the moves it chooses, and
    /// settles a finished game (the archive; the room leaves memory if no rematch comes).
    pub(super) fn advance(&mut self) {
        self.cancel_stale_cpu();
        loop {
            let Some(game) = self.game.as_ref() else {
                return;
            };
            if game.is_over() {
                self.game_over();
                return;
            }
            if game.walking_king_to_move() {
                let Some(mv) = game.walking_king_move() else {
                    return;
                };
                if self
                    .commit_game(GameAction::Walk {
                        mv: views::coordinate(mv),
                    })
                    .is_err()
                {
                    return;
                }
                self.announce_last_move(true);
                continue;
            }
            let Some(seat) = game.to_move() else { return };
            if self.cpu_drives(seat.index() as SeatIndex) && !self.cpu_thinking {
                self.ask_cpu();
            }
            return;
        }
    }

    /// A game just ended: count it in the session, archive it, and start the time after which a
    /// room nobody rematches leaves memory.
    fn game_over(&mut self) {
        self.count_session_game();
        if !self.archived {
            self.archived = true;
            if let Some(game) = self.archive() {
                self.writes.push(Write::Archive(game));
            }
        }
        if self.finished_since.is_none() {
            self.finished_since = Some(self.now());
        }
    }

    /// The level the CPU plays at for `seat`: a CPU seat's own, else the room's.
    fn cpu_level(&self, seat: Option<Seat>) -> fourkings_protocol::CpuLevel {
        match seat.map(|s| &self.seats[s.index()]) {
            Some(SeatSlot::Cpu { level }) => *level,
            _ => self.settings.cpu_level,
        }
    }

    /// Stops the CPU's thinking if its result can no longer be played: the game moved on or
    /// ended, or the CPU no longer chooses this seat's move (the player came back).
    fn cancel_stale_cpu(&mut self) {
        let Some(job) = &self.cpu_job else { return };
        let current = self.game.as_ref().is_some_and(|g| {
            !g.is_over() && g.ply_count() == job.ply && g.position().hash() == job.hash
        });
        let still_driven = current
            && self
                .game
                .as_ref()
                .and_then(Game::to_move)
                .is_some_and(|s| self.cpu_drives(s.index() as SeatIndex));
        if !still_driven {
            self.cancel_cpu();
        }
    }

    /// Stops the CPU's thinking, if it thinks.
    pub(super) fn cancel_cpu(&mut self) {
        self.cpu_job = None;
    }

    /// How long the CPU may think now: the server's limit, and within the turn limit (or the
    /// team clock) with a margin for the move to travel and be played.
    fn cpu_budget(&self) -> Duration {
        let now = self.now();
        let mut budget = self.context.config.cpu_think_limit();
        if let Some(deadline) = self.clocks.turn_deadline() {
            let left = deadline.saturating_duration_since(now);
            budget = budget.min(left.saturating_sub(CPU_MARGIN.max(left / 5)));
        }
        if let Some(deadline) = self.clocks.bank_deadline() {
            // A team clock is shared by many moves: spend a small part of what is left.
            budget = budget.min(deadline.saturating_duration_since(now) / 30);
        }
        budget.max(MIN_CPU_BUDGET)
    }

    fn ask_cpu(&mut self) {
        let Some(game) = self.game.as_ref() else {
            return;
        };
        let seat = game.to_move();
        let Some(inbox) = self.inbox.upgrade() else {
            return;
        };
        let ply = game.ply_count();
        let hash = game.position().hash();
        let Ok(root) = SearchRoot::from_game(game) else {
            return;
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let request = CpuRequest {
            root,
            budget: self.cpu_budget(),
            level: self.cpu_level(seat),
            seed: game.seed() ^ u64::from(ply),
            cancel: cancel.clone(),
        };
        // Replacing a job cancels it.
        self.cpu_job = Some(CpuJob { ply, hash, cancel });
        self.cpu_thinking = true;
        let pool = self.context.cpu.clone();
        let metrics = self.context.metrics.clone();
        let level = request.level;
        tokio::spawn(
            async move {
                if let Some((mv, took)) = pool.think(request).await {
                    metrics.cpu_turn(level, took);
                    let _ = inbox.send(Command::CpuMoved { ply, hash, mv }).await;
                }
            }
            .in_current_span(),
        );
    }

    /// A CPU result arrived: play it if it is still for the current position and the CPU still
    /// chooses this seat's move (the player may have come back); else drop it.
    pub(super) fn cpu_moved(&mut self, ply: u32, hash: u64, mv: Move) {
        self.cpu_thinking = false;
        if self
            .cpu_job
            .as_ref()
            .is_some_and(|j| j.ply == ply && j.hash == hash)
        {
            self.cpu_job = None;
        }
        let Some(game) = self.game.as_ref() else {
            return;
        };
        let current = !game.is_over() && game.ply_count() == ply && game.position().hash() == hash;
        if let (true, Some(seat)) = (current, game.to_move()) {
            let index = seat.index() as SeatIndex;
            let action = GameAction::Move {
                seat: index,
                mv: views::coordinate(mv),
                automatic: self.is_human(index),
            };
            if self.cpu_drives(index) && self.commit_game(action).is_ok() {
                let for_player = self.is_human(index);
                self.announce_last_move(for_player);
            }
        }
        self.advance();
    }
}

/// The legal move `text` names in coordinate form (`h2h4`, `h10h11q`).
pub(super) fn parse_coordinate(
    game: &Game,
    legal: &mut views::LegalMoveCache,
    text: &str,
) -> Result<Move, Reject> {
    let lower = views::lowercase(text);
    if !is_coordinate(&lower) {
        return reject(
            ErrorCode::BadMove,
            format!("{text:?} is not a move like h2h4 or h10h11q"),
        );
    }
    views::find_move(game, legal, text)
        // The move just taken back is left out of the legal moves: name it anyway, so that the
        // game refuses it as `taken_back` rather than as illegal.
        .or_else(|| {
            game.forbidden_move()
                .filter(|&mv| views::coordinate(mv) == lower)
        })
        // Lazily: the message is written only for a move that is refused.
        .ok_or_else(|| {
            (
                ErrorCode::IllegalMove,
                format!("{text} is not a legal move here"),
            )
        })
}

/// Whether `text` has the shape of a move in coordinate form: two square names (a file `a`–`n`
/// and a rank `1`–`14`) and an optional promotion letter. Whether the squares are on the board
/// and the move is legal is the game's to say (`illegal_move`); anything else is `bad_move`.
fn is_coordinate(text: &str) -> bool {
    /// What follows a leading square name.
    fn after_square(text: &str) -> Option<&str> {
        let digits = text
            .get(1..)?
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let (name, rest) = text.split_at_checked(1 + digits)?;
        name.parse::<Square>().ok().map(|_| rest)
    }
    after_square(text)
        .and_then(after_square)
        .is_some_and(|rest| matches!(rest, "" | "q" | "r" | "b" | "n"))
}

#[cfg(test)]
mod tests {
    use super::is_coordinate;

    #[test]
    fn coordinate_shapes() {
        for text in ["h2h4", "h10h11q", "a11c11", "n14n13", "a1a2", "e7e8n"] {
            assert!(is_coordinate(text), "{text}");
        }
        for text in [
            "",
            "h2",
            "h2-h4",
            "h2h4 ",
            "xyzzy",
            "z9z9",
            "h0h1",
            "h15h16",
            "h2h4h6",
            "h2h4qq",
            "h2h4k",
            "nh2h4",
            "h2h4\u{1f642}",
            "\u{e9}2h4",
        ] {
            assert!(!is_coordinate(text), "{text}");
        }
    }
}
