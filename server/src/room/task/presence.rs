//! Who is here: connections proving seats, and leaving them. A seat nobody holds any more is
//! away for a grace period; after it the CPU plays for its player (in Duo the clocks stop).
//!
//! Comings and goings are records like any other. While storage takes no writes they are not
//! refused (a connection cannot be), but they wait: the room shows every seat as stored, and
//! settles them all with their connections once storage works again. Written at once, they would
//! be given up with everything else a failing disk holds, and each reconnection after that would
//! make the room go back to what is stored once more.

use fourkings_protocol::{Event, Presence, SeatIndex};
use tokio::time::Instant;

use super::Room;
use crate::connection::ConnId;
use crate::room::record::{Record, StoredAbsence};
use crate::room::refusal::Refusal;

impl Room {
    /// `conn` proved it holds `seat`: the player is here.
    pub(super) fn seat_proven(&mut self, conn: ConnId, seat: SeatIndex) {
        self.delivery.prove_seat(conn, seat);
        if self.seating.is_away(seat) {
            self.seat_came_or_went(seat, StoredAbsence::Present);
        }
    }

    /// Connections that left: every seat nobody else holds now is away.
    pub(super) fn absorb_departures(&mut self) {
        for departure in self.delivery.take_departures() {
            self.chat.forget_writer(departure.conn);
            if self.delivery.is_empty() {
                self.lifecycle.emptied(Instant::now());
            }
            let deadline = self.time.wall_now() + self.context.config.grace().as_millis() as u64;
            for seat in departure.seats.iter() {
                if !self.delivery.anyone_holds(seat) && self.seating.is_human(seat) {
                    self.seat_came_or_went(seat, StoredAbsence::Away { deadline });
                }
            }
        }
    }

    /// `seat`'s player came back (`Present`) or left (`Away`): recorded now, or, while storage
    /// takes no writes, once it does ([`Room::settle_presence`]).
    pub(super) fn seat_came_or_went(&mut self, seat: SeatIndex, absence: StoredAbsence) {
        if self.context.storage.health().is_err() {
            self.outage.presence_waits(Instant::now());
            return;
        }
        if absence == StoredAbsence::Present {
            self.context.metrics.reconnections.inc();
            tracing::info!(seat = seat.get(), "player back");
        }
        self.set_absence(seat, absence);
    }

    /// Storage takes writes again: every seat whose comings and goings waited for it is marked
    /// as its connections say now.
    pub(super) fn settle_presence(&mut self) {
        if !self.outage.take_unsettled_presence() {
            return;
        }
        let deadline = self.time.wall_now() + self.context.config.grace().as_millis() as u64;
        for seat in SeatIndex::ALL {
            if !self.seating.is_human(seat) {
                continue;
            }
            match (self.delivery.anyone_holds(seat), self.seating.is_away(seat)) {
                (true, true) => self.seat_came_or_went(seat, StoredAbsence::Present),
                (false, false) => {
                    self.seat_came_or_went(seat, StoredAbsence::Away { deadline });
                }
                _ => {}
            }
        }
    }

    /// Marks `seat`'s player away with a grace period, or back, or past the grace period, and
    /// tells everyone.
    pub(super) fn set_absence(&mut self, seat: SeatIndex, absence: StoredAbsence) {
        if self.commit(Record::Absence { seat, absence }).is_err() {
            return;
        }
        if let Some(presence) = self.presence(seat) {
            let clock = self.driver.clock_view(self.time.now());
            self.emit(Event::Presence {
                seat,
                presence,
                grace_ends_at: self.seating.grace_ends_at(seat),
                clock,
            });
        }
        if self.driver.playing().is_some() {
            self.advance();
        }
    }

    /// Whether the person in `seat` is here (`None` for empty and CPU seats).
    pub(super) fn presence(&self, seat: SeatIndex) -> Option<Presence> {
        self.seating.presence(seat, self.cpu_may_play())
    }

    /// Whether the CPU plays for a player gone past the grace period: while a game goes on,
    /// except in Duo (its clocks stop, and a claim decides).
    pub(super) fn cpu_may_play(&self) -> bool {
        self.driver.playing().is_some() && self.format() != fourkings_engine::Format::Duo
    }

    /// Checks a seat and its token, and remembers that `conn` holds the seat.
    pub(super) fn authorize(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<(), Refusal> {
        self.seating.check_token(seat, token)?;
        self.seat_proven(conn, seat);
        Ok(())
    }
}
