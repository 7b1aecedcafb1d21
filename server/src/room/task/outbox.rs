//! What the room sends: events recorded for everyone, messages for one connection, the
//! events of a turn fanned out with the legal moves of the seat to move, and a replay of what
//! a reconnecting client missed. Delivery holds each until what it shows is durable.

use fourkings_protocol::{Event, ServerMessage};

use super::Room;
use crate::connection::ConnId;
use crate::room::frames::encode;

impl Room {
    /// Records an event for everyone; it is sent after the current request's answer.
    pub(super) fn emit(&mut self, event: Event) {
        self.events.emit(event, None);
    }

    /// Sends `message` to `conn` once everything published so far is durable.
    pub(super) fn send_to(&mut self, conn: ConnId, message: &ServerMessage) {
        let needs = self.events.version();
        self.delivery.send(conn, encode(message), needs);
    }

    /// Sends the events published since the last flush, then the legal moves of the seat to
    /// move.
    pub(super) fn flush(&mut self) {
        self.flush_except(None);
    }

    /// Like [`Room::flush`], skipping `except` (its snapshot or replay already covered all this).
    pub(super) fn flush_except(&mut self, except: Option<ConnId>) {
        let Some(first) = self.events.take_unsent() else {
            return;
        };
        let needs = self.events.version();
        self.delivery.fan_out(&self.events, first, except, needs);
        self.send_legal_moves(|id| Some(id) != except);
    }

    /// Sends `conn` the events after `since`, or a snapshot if the log no longer holds them all.
    pub(super) fn replay(&mut self, conn: ConnId, since: u64) {
        if !self.events.holds_after(since) {
            self.send_snapshot(conn);
            return;
        }
        let seats = self.delivery.seats_of(conn);
        let frames: Vec<_> = self
            .events
            .from(since + 1)
            .map(|logged| logged.frame_for(seats).clone())
            .collect();
        let needs = self.events.version();
        for frame in frames {
            self.delivery.send(conn, frame, needs);
        }
        self.send_legal_moves(|id| id == conn);
    }

    /// Sends the legal moves of the seat to move to the connections `to` picks that hold that
    /// seat, if a person holds it. The moves are encoded once, and only when someone is to
    /// receive them: doing it for every connection of the room was a tenth of the server's CPU
    /// time under fan-out load.
    pub(super) fn send_legal_moves(&mut self, to: impl Fn(ConnId) -> bool) {
        let Some(seat) = self.driver.seat_choosing() else {
            return;
        };
        if !self.seating.is_human(seat) {
            return;
        }
        let holders = self.delivery.holders(seat, to);
        if holders.is_empty() {
            return;
        }
        let needs = self.events.version();
        let Some((_, frame)) = self.driver.legal_moves_frame(needs) else {
            return;
        };
        for id in holders {
            self.delivery.send(id, frame.clone(), needs);
        }
    }
}
