//! Who is here: a player who drops keeps the seat for a grace period; after it the CPU plays for
//! them until they come back (in Duo the clocks stop instead, and then the other team may claim
//! the win).

use fourkings_engine::Format;
use fourkings_protocol::{Presence, SeatIndex};
use tokio::time::Instant;

use super::record::StoredAbsence;
use super::state::{Room, SeatSlot};
use crate::connection::ConnId;

/// A player who dropped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Absence {
    /// When the grace period ends.
    pub(super) deadline: Instant,
    /// Whether it has ended.
    pub(super) grace_over: bool,
}

impl Room {
    /// `conn` proved it holds `seat`: the player is here.
    pub(super) fn seat_proven(&mut self, conn: ConnId, seat: SeatIndex) {
        if let Some(c) = self.conns.get_mut(&conn) {
            c.seats |= 1 << seat;
        }
        if self.absence[usize::from(seat)].is_some() {
            self.context.metrics.reconnections.inc();
            tracing::info!(seat, "player back");
            self.set_absence(seat, StoredAbsence::Present);
        }
    }

    /// A connection closed: every seat nobody else holds now is away.
    pub(super) fn conn_gone(&mut self, conn: ConnId) {
        let Some(gone) = self.conns.remove(&conn) else {
            return;
        };
        if self.conns.is_empty() {
            self.empty_since = Some(Instant::now());
        }
        let deadline = self.wall_now() + self.context.config.grace().as_millis() as u64;
        for seat in 0..4u8 {
            let still_held = self.conns.values().any(|c| c.seats >> seat & 1 != 0);
            if gone.seats >> seat & 1 != 0 && !still_held && self.is_human(seat) {
                self.set_absence(seat, StoredAbsence::Away { deadline });
            }
        }
    }

    /// Whether the person in `seat` is here (`None` for empty and CPU seats).
    pub(super) fn presence(&self, seat: SeatIndex) -> Option<Presence> {
        if !matches!(self.seats[usize::from(seat)], SeatSlot::Human { .. }) {
            return None;
        }
        let cpu_may_play =
            self.game.as_ref().is_some_and(|g| !g.is_over()) && self.format() != Format::Duo;
        Some(match self.absence[usize::from(seat)] {
            None => Presence::Online,
            Some(Absence {
                grace_over: false, ..
            }) => Presence::Away,
            Some(Absence {
                grace_over: true, ..
            }) if cpu_may_play => Presence::CpuPlaying,
            Some(Absence {
                grace_over: true, ..
            }) => Presence::Gone,
        })
    }

    /// Whether a player's grace period is over and they are still away.
    pub(super) fn grace_over(&self, seat: SeatIndex) -> bool {
        self.absence[usize::from(seat)].is_some_and(|a| a.grace_over)
    }

    /// Ends the grace periods that are due.
    pub(super) fn grace_timers(&mut self, now: Instant) {
        for seat in 0..4u8 {
            let due =
                self.absence[usize::from(seat)].is_some_and(|a| !a.grace_over && a.deadline <= now);
            if due {
                self.set_absence(seat, StoredAbsence::GraceOver);
            }
        }
    }
}
