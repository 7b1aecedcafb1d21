//! The event log: every event the room published, numbered by version, each kept as the frames
//! that go out (a public one, and a private one for its audience), for the clients that resync.
//!
//! The log only numbers and keeps; [`super::delivery`] sends. Events a request emits are sent
//! after its answer, so the log remembers where the unsent ones begin.

use std::collections::VecDeque;

use axum::extract::ws::Utf8Bytes;
use fourkings_protocol::{ChatChannel, Event, SeatIndex, SeatSet, ServerMessage};

use super::frames::encode;

/// Who receives an event's private form (everyone else gets its public form, `hidden`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Audience {
    /// Every connection.
    Everyone,
    /// The connections holding any of these seats.
    Seats(SeatSet),
    /// The connections holding no seat.
    Spectators,
}

impl Audience {
    /// Whether a connection holding `seats` is in the audience.
    pub(crate) fn includes(self, seats: SeatSet) -> bool {
        match self {
            Audience::Everyone => true,
            Audience::Seats(audience) => seats.meets(audience),
            Audience::Spectators => seats.is_empty(),
        }
    }

    /// A chat channel's readers: the room's, the writer's team, or the spectators.
    pub(crate) fn of_chat(channel: ChatChannel, writer: Option<SeatIndex>) -> Audience {
        match (channel, writer) {
            (ChatChannel::Room, _) => Audience::Everyone,
            (ChatChannel::Team, Some(seat)) => Audience::Seats(SeatSet::team_of(seat)),
            _ => Audience::Spectators,
        }
    }
}

/// One logged event: what everyone receives, and what its private audience receives instead.
pub(crate) struct Logged {
    v: u64,
    public: Utf8Bytes,
    private: Option<(Audience, Utf8Bytes)>,
}

impl Logged {
    /// The frame a connection holding `seats` receives.
    pub(crate) fn frame_for(&self, seats: SeatSet) -> &Utf8Bytes {
        match &self.private {
            Some((audience, private)) if audience.includes(seats) => private,
            _ => &self.public,
        }
    }
}

/// The room's events, by version.
pub(crate) struct EventLog {
    /// The version of the last event.
    version: u64,
    /// The latest events, oldest first, at most `capacity`.
    history: VecDeque<Logged>,
    capacity: usize,
    /// The version of the first event not yet sent, if any is waiting.
    unsent_from: Option<u64>,
}

impl EventLog {
    /// An empty log keeping the latest `capacity` events.
    pub(crate) fn new(capacity: usize) -> EventLog {
        EventLog {
            version: 0,
            history: VecDeque::new(),
            capacity,
            unsent_from: None,
        }
    }

    /// The version of the last event.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// A restored room goes on from the version it had stored: its events are not kept across
    /// a restart (a client behind this version gets a snapshot).
    pub(crate) fn resume_at(&mut self, version: u64) {
        self.version = version;
        self.history.clear();
        self.unsent_from = None;
    }

    /// Records an event; the connections in the audience of `private` receive its event instead.
    pub(crate) fn emit(&mut self, event: Event, private: Option<(Audience, Event)>) {
        let v = self.version + 1;
        let public = encode(&ServerMessage::Event { v, event });
        let private =
            private.map(|(audience, event)| (audience, encode(&ServerMessage::Event { v, event })));
        self.push(Logged { v, public, private });
    }

    /// The version the next event gets.
    pub(crate) fn next_version(&self) -> u64 {
        self.version + 1
    }

    /// Records an event for everyone, already written as its frame for version `v`, which must
    /// be [`EventLog::next_version`].
    pub(crate) fn emit_written(&mut self, v: u64, public: Utf8Bytes) {
        assert_eq!(
            v,
            self.next_version(),
            "an event is written for the next version"
        );
        self.push(Logged {
            v,
            public,
            private: None,
        });
    }

    fn push(&mut self, logged: Logged) {
        self.version = logged.v;
        self.unsent_from.get_or_insert(logged.v);
        self.history.push_back(logged);
        while self.history.len() > self.capacity {
            self.history.pop_front();
        }
    }

    /// The version of the first event not sent yet, which from now on counts as sent.
    pub(crate) fn take_unsent(&mut self) -> Option<u64> {
        self.unsent_from.take()
    }

    /// Whether the log still holds every event after version `since`.
    pub(crate) fn holds_after(&self, since: u64) -> bool {
        let oldest = self.history.front().map_or(self.version + 1, |l| l.v);
        since + 1 >= oldest || since >= self.version
    }

    /// The logged events from version `v` on. The log is in the order of versions, and those
    /// wanted are usually the last one or two: a scan from the front went through the whole
    /// log (up to `event_history` events) for every move.
    pub(crate) fn from(&self, v: u64) -> impl Iterator<Item = &Logged> {
        let start = self.history.partition_point(|l| l.v < v);
        self.history.range(start..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_numbers_keeps_and_forgets_the_oldest() {
        let mut log = EventLog::new(2);
        assert_eq!(log.take_unsent(), None);
        for _ in 0..3 {
            log.emit(Event::Hidden, None);
        }
        assert_eq!(log.version(), 3);
        assert_eq!(log.take_unsent(), Some(1));
        assert_eq!(log.take_unsent(), None);
        assert!(log.holds_after(1) && log.holds_after(3) && !log.holds_after(0));
        assert_eq!(log.from(2).count(), 2);
        assert_eq!(log.from(3).count(), 1);
    }

    #[test]
    fn private_forms_reach_their_audience_only() {
        let mut log = EventLog::new(4);
        let seat = SeatIndex::ALL;
        let team = Audience::Seats(SeatSet::team_of(seat[1]));
        log.emit(
            Event::Hidden,
            Some((team, Event::SeatLeft { seat: seat[1] })),
        );
        let logged = log.from(1).next().unwrap();
        assert!(
            logged
                .frame_for(SeatSet::single(seat[3]))
                .contains("seat_left")
        );
        assert!(
            !logged
                .frame_for(SeatSet::single(seat[0]))
                .contains("seat_left")
        );
        assert!(!logged.frame_for(SeatSet::EMPTY).contains("seat_left"));
        assert!(Audience::Spectators.includes(SeatSet::EMPTY));
    }
}
