//! During the game: moves, resignations, draws, takebacks, claims, the clocks running out, and
//! the moves nobody has to choose (walking kings) or that the CPU chooses (CPU seats, players
//! whose turn limit ran out, players away past their grace period).

use std::time::Duration;

use fourkings_engine::game::{DrawOfferState, GameError, ResignOutcome};
use fourkings_engine::{Format, Game, Move, Seat, Square};
use fourkings_protocol::{ErrorCode, Event, SeatIndex};
use tokio::time::Instant;

use super::state::{Ack, Reject, Room, SeatSlot, reject};
use super::{Command, views};
use crate::connection::ConnId;
use crate::cpu::CpuRequest;

/// The engine's refusal as a protocol error.
// Taken by value so that it reads `map_err(refused)`.
#[allow(clippy::needless_pass_by_value)]
fn refused(error: GameError) -> Reject {
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

    fn game_mut(&mut self) -> &mut Game {
        self.game.as_mut().expect("checked by seat_in_game")
    }

    /// Times the turn the game is at now (a new one starts when the ply or the seat changed).
    fn follow_turn(&mut self) {
        let Some(game) = &self.game else { return };
        let to_move = game.to_move().map(|s| s.index() as SeatIndex);
        let ply = game.ply_count();
        self.clocks.follow(ply, to_move, Instant::now());
    }

    /// Announces a change to the game that was not a move.
    fn game_changed(&mut self, what: &str, seat: SeatIndex) {
        self.follow_turn();
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
        let expired = self.clocks.expired;
        let game = self.game_mut();
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
        if expired {
            return reject(
                ErrorCode::TimeUp,
                "the turn limit ran out: the CPU is playing this move",
            );
        }
        let mv = parse_coordinate(game, text)?;
        game.play(who, mv).map_err(refused)?;
        self.announce_last_move(false);
        self.advance();
        Ok(Ack::default())
    }

    /// Emits the diff of the last ply.
    fn announce_last_move(&mut self, automatic: bool) {
        self.follow_turn();
        let clock = self.clocks.view(Instant::now());
        let game = self.game.as_ref().expect("a game is running");
        let ply = game.plies().last().expect("a move was just played");
        let event = views::moved_event(game, ply, automatic, clock);
        self.emit(Event::Moved(event));
    }

    pub(super) fn resign(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        let outcome = self.game_mut().resign(who).map_err(refused)?;
        let partner = who.partner();
        let what = match outcome {
            ResignOutcome::Resigned => "resigned",
            // A CPU partner agrees at once: it stands in for a person who would be asked. The
            // request was just made by the partner's partner, so the answer cannot be refused.
            ResignOutcome::PartnerAsked
                if matches!(self.seats[partner.index()], SeatSlot::Cpu { .. }) =>
            {
                let _ = self.game_mut().answer_resignation(partner, true);
                "resigned"
            }
            ResignOutcome::PartnerAsked => "resignation_requested",
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
        let who = self.seat_in_game(conn, seat, token)?;
        let requester = self.game.as_ref().and_then(Game::resignation_request);
        self.game_mut()
            .answer_resignation(who, accept)
            .map_err(refused)?;
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
        let who = self.seat_in_game(conn, seat, token)?;
        let state = self.game_mut().offer_draw(who).map_err(refused)?;
        self.after_draw_answer(seat, state);
        Ok(Ack::default())
    }

    pub(super) fn answer_draw(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        accept: bool,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        if !accept {
            self.game_mut().decline_draw(who).map_err(refused)?;
            self.game_changed("draw_declined", seat);
            return Ok(Ack::default());
        }
        let state = self.game_mut().accept_draw(who).map_err(refused)?;
        self.after_draw_answer(seat, state);
        Ok(Ack::default())
    }

    /// After a seat agreed to a draw: CPU seats still in the game agree too (they stand in for
    /// people who would be asked); the draw is announced as offered or agreed.
    fn after_draw_answer(&mut self, seat: SeatIndex, mut state: DrawOfferState) {
        if state == DrawOfferState::Open {
            let cpus: Vec<u8> = (0..4u8)
                .filter(|&s| matches!(self.seats[usize::from(s)], SeatSlot::Cpu { .. }))
                .collect();
            for cpu in cpus {
                let cpu_seat = Seat::ALL[usize::from(cpu)];
                if self.game.as_ref().is_some_and(|g| g.is_in_game(cpu_seat)) {
                    // The offer is open and the seat is in the game: agreeing cannot fail.
                    if let Ok(next) = self.game_mut().accept_draw(cpu_seat) {
                        state = next;
                    }
                }
            }
        }
        let what = if state == DrawOfferState::Agreed {
            "draw_agreed"
        } else {
            "draw_offered"
        };
        self.game_changed(what, seat);
        self.advance();
    }

    pub(super) fn take_back(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Reject> {
        let who = self.seat_in_game(conn, seat, token)?;
        self.game_mut().take_back(who).map_err(refused)?;
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
            self.game_mut()
                .abandon(Seat::ALL[usize::from(gone)])
                .map_err(refused)?;
        } else {
            self.game_mut().claim_win(who).map_err(refused)?;
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
        if self.clocks.bank_empty(now) {
            if self.game_mut().time_out(seat).is_ok() {
                self.game_changed("timed_out", seat.index() as SeatIndex);
                self.advance();
            }
        } else if self.clocks.turn_deadline().is_some_and(|d| d <= now) {
            self.clocks.expired = true;
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
    /// settles a finished game.
    pub(super) fn advance(&mut self) {
        loop {
            self.follow_turn();
            let Some(game) = self.game.as_mut() else {
                return;
            };
            if game.is_over() {
                self.clocks.stop(Instant::now());
                self.count_session_game();
                return;
            }
            if game.walking_king_to_move() {
                if game.walk_king().is_err() {
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

    /// The level the CPU plays at for `seat`: a CPU seat's own, else the room's.
    fn cpu_level(&self, seat: Option<Seat>) -> fourkings_protocol::CpuLevel {
        match seat.map(|s| &self.seats[s.index()]) {
            Some(SeatSlot::Cpu { level }) => *level,
            _ => self.settings.cpu_level,
        }
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
        let request = CpuRequest {
            position: game.position().clone(),
            rules: *game.rules(),
            moves: game.legal_moves(),
            budget: Duration::from_millis(500),
            level: self.cpu_level(seat),
            seed: game.seed() ^ u64::from(ply),
        };
        if request.moves.is_empty() {
            return;
        }
        self.cpu_thinking = true;
        let pool = self.context.cpu.clone();
        tokio::spawn(async move {
            if let Some(mv) = pool.think(request).await {
                let _ = inbox.send(Command::CpuMoved { ply, hash, mv }).await;
            }
        });
    }

    /// A CPU result arrived: play it if it is still for the current position and the CPU still
    /// chooses this seat's move (the player may have come back); else drop it.
    pub(super) fn cpu_moved(&mut self, ply: u32, hash: u64, mv: Move) {
        self.cpu_thinking = false;
        let Some(game) = self.game.as_ref() else {
            return;
        };
        let current = !game.is_over() && game.ply_count() == ply && game.position().hash() == hash;
        let seat = game.to_move();
        if let (true, Some(seat)) = (current, seat) {
            let index = seat.index() as SeatIndex;
            if self.cpu_drives(index) && self.game_mut().play(seat, mv).is_ok() {
                let for_player = self.is_human(index);
                self.announce_last_move(for_player);
            }
        }
        self.advance();
    }
}

/// The legal move `text` names in coordinate form (`h2h4`, `h10h11q`).
fn parse_coordinate(game: &Game, text: &str) -> Result<Move, Reject> {
    if !is_coordinate(&text.to_ascii_lowercase()) {
        return reject(
            ErrorCode::BadMove,
            format!("{text:?} is not a move like h2h4 or h10h11q"),
        );
    }
    views::find_move(game, text)
        // The move just taken back is left out of the legal moves: name it anyway, so that the
        // game refuses it as `taken_back` rather than as illegal.
        .or_else(|| {
            game.forbidden_move()
                .filter(|&mv| views::coordinate(mv) == text.to_ascii_lowercase())
        })
        .ok_or((
            ErrorCode::IllegalMove,
            format!("{text} is not a legal move here"),
        ))
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
