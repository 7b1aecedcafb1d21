//! Premoves: the moves a player queues while others move. The room plays the first one the
//! moment the seat's turn begins (no round trip to the player's browser), or drops the whole
//! queue, saying why, when it cannot be played: the move is not legal then, the CPU plays the
//! turn (turn limit, player away past the grace period), the player is away, a takeback changed
//! the position, or the seat is out. A queue is private to its seat's connections.

use fourkings_engine::notation;
use fourkings_protocol::{Event, PremovesDropped, SeatIndex, SeatSet};

use super::Room;
use super::requests::Ack;
use crate::connection::ConnId;
use crate::room::events::Audience;
use crate::room::record::{GameAction, Record};
use crate::room::refusal::Refusal;
use crate::room::seat_numbers;
use crate::room::views::MovedBy;

impl Room {
    /// Queues `mv` for `seat`'s turn. On the seat's turn already (it began while the request
    /// travelled), the move is played at once, as any premove.
    pub(super) fn premove(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
        mv: String,
    ) -> Result<Ack, Refusal> {
        let who = self.seat_in_game(conn, seat, token)?;
        let game = self.driver.game().expect("checked by seat_in_game");
        if !game.is_in_game(who) {
            return Err(Refusal::Game(fourkings_engine::GameError::NotInGame));
        }
        notation::parse_coordinate(&mv, game.rules().board()).map_err(|error| {
            Refusal::BadMove {
                text: mv.clone(),
                error,
            }
        })?;
        let max = self.settings.premoves;
        if self.driver.premoves().len(seat) >= max as usize {
            return Err(Refusal::PremovesFull { max });
        }
        self.commit(Record::Premove { seat, mv })?;
        self.announce_premoves(seat, None);
        self.advance();
        Ok(Ack::default())
    }

    /// Empties `seat`'s queue at its player's request.
    pub(super) fn cancel_premoves(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<Ack, Refusal> {
        self.seat_in_game(conn, seat, token)?;
        if self.driver.premoves().len(seat) > 0 {
            self.commit(Record::PremovesCleared { seat })?;
            self.announce_premoves(seat, None);
        }
        Ok(Ack::default())
    }

    /// Tells `seat`'s connections its queue as it is now (everyone else sees the version pass).
    fn announce_premoves(&mut self, seat: SeatIndex, dropped: Option<PremovesDropped>) {
        let private = Event::Premoves {
            seat,
            moves: self.driver.premoves().moves(seat),
            dropped,
        };
        let audience = Audience::Seats(SeatSet::single(seat));
        self.events.emit(Event::Hidden, Some((audience, private)));
    }

    /// Empties `seat`'s queue, if it holds any, and tells its connections why.
    pub(super) fn drop_premoves(&mut self, seat: SeatIndex, why: PremovesDropped) {
        if self.driver.premoves().len(seat) > 0
            && self.commit(Record::PremovesCleared { seat }).is_ok()
        {
            self.announce_premoves(seat, Some(why));
        }
    }

    /// Empties every queue, for `why`.
    pub(super) fn drop_all_premoves(&mut self, why: PremovesDropped) {
        let seats: Vec<SeatIndex> = self.driver.premoves().seats().collect();
        for seat in seats {
            self.drop_premoves(seat, why);
        }
    }

    /// The queues of seats no longer in the game are dropped.
    pub(super) fn drop_premoves_of_the_out(&mut self) {
        let Some(game) = self.driver.game() else {
            return;
        };
        let out: Vec<SeatIndex> = self
            .driver
            .premoves()
            .seats()
            .filter(|&s| game.is_over() || !game.is_in_game(seat_numbers::engine_seat(s)))
            .collect();
        for seat in out {
            self.drop_premoves(seat, PremovesDropped::GameOver);
        }
    }

    /// `seat`'s turn has begun: plays its first premove if it queued one and may play it now
    /// (`true`), or drops its queue, saying why, when it may not.
    pub(super) fn play_premove(&mut self, seat: SeatIndex) -> bool {
        let Some(mv) = self.driver.premoves().first(seat).map(str::to_owned) else {
            return false;
        };
        if self.cpu_drives(seat) {
            self.drop_premoves(seat, PremovesDropped::CpuPlayed);
            return false;
        }
        if self.seating.is_away(seat) {
            self.drop_premoves(seat, PremovesDropped::Away);
            return false;
        }
        let action = GameAction::Move {
            seat,
            mv,
            automatic: false,
            premove: true,
        };
        match self.commit_game(action) {
            Ok(()) => {
                self.announce_last_move(MovedBy::Premove);
                self.announce_premoves(seat, None);
                true
            }
            // Storage takes no writes: the queue waits for the turn to be looked at again.
            Err(Refusal::StorageUnavailable(_)) => false,
            Err(_) => {
                self.drop_premoves(seat, PremovesDropped::Illegal);
                false
            }
        }
    }
}
