//! The room's task: the one owner of a room's parts. It takes one command at a time from its
//! inbox and routes it to its handler (in the modules below), which asks the parts and commits
//! the records that result: each record is applied to the part that owns what it changes and
//! appended to the journal ([`Room::commit`]). At the end of each turn, the task sends what the
//! turn published (held back by delivery until durable) and hands the journal to the writer.

mod apply;
mod chat;
mod lobby;
mod play;
mod presence;
mod rematch;
mod requests;
mod snapshot;

use fourkings_engine::Preset;
use fourkings_protocol::{Event, SeatIndex, ServerMessage, Settings};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::chat::Chat;
use super::command::{Command, RoomContext, RoomHandle};
use super::delivery::Delivery;
use super::driver::GameDriver;
use super::events::{EventLog, encode};
use super::journal::Journal;
use super::observe::{Reported, record_kind, request_span};
use super::record::{Record, StoredAbsence};
use super::refusal::Refusal;
use super::rules;
use super::seating::Seating;
use super::session::Session;
use super::timebase::Timebase;
use crate::connection::ConnId;
use crate::ids::new_token;
use crate::storage::RoomLog;
use crate::storage::writer::{Written, now_ms};

/// Why a stored room could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RestoreError {
    /// A record is not JSON of a record.
    #[error("room {room}: a record that cannot be read")]
    Unreadable {
        /// The room.
        room: String,
        /// What the JSON reader said.
        #[source]
        source: serde_json::Error,
    },
    /// A record the room refuses to apply. The message names it by kind only: a record may
    /// hold tokens.
    #[error("room {room}: a {kind} record was refused")]
    Refused {
        /// The room.
        room: String,
        /// The record's kind.
        kind: &'static str,
        /// Why the room refused it.
        #[source]
        source: Refusal,
    },
}

/// A room: its parts, owned by its task.
pub(crate) struct Room {
    id: String,
    context: RoomContext,
    /// The room's own inbox, weakly, for CPU results (a strong sender would keep the room alive).
    inbox: mpsc::WeakSender<Command>,
    /// The room's settings (fixed once a game has started).
    settings: Settings,
    seating: Seating,
    driver: GameDriver,
    /// The switch-partners session, if one is being played.
    session: Option<Session>,
    chat: Chat,
    events: EventLog,
    journal: Journal,
    delivery: Delivery,
    time: Timebase,
    /// Since when nobody has been connected.
    empty_since: Option<Instant>,
    /// Set when the room should end.
    closing: bool,
    /// What this room last added to the server's gauges.
    reported: Reported,
}

/// The span every line a room logs is in: its id (the room link's id, not a secret; the tokens
/// that are secrets never appear in a log line).
fn room_span(id: &str) -> tracing::Span {
    tracing::info_span!("room", room = %id)
}

/// Starts a new room's task and returns its handle and host token. The room's creation is stored
/// before anything else the writer commits after it.
pub(crate) fn spawn(id: String, settings: Settings, context: RoomContext) -> (RoomHandle, String) {
    let (tx, rx) = mpsc::channel(1024);
    let handle = RoomHandle::new(tx.clone());
    let span = room_span(&id);
    let tasks = context.tasks.clone();
    let mut room = span.in_scope(|| Room::new(id, settings, context, &tx));
    room.persist();
    let host_token = room.seating.host_token().to_owned();
    tasks.spawn(room.run(rx).instrument(span));
    (handle, host_token)
}

/// Rebuilds a room from storage and starts its task. `stopped_at` is when the previous run was
/// last alive (ms since the epoch).
pub(crate) fn restore(
    log: &RoomLog,
    context: RoomContext,
    stopped_at: u64,
) -> Result<RoomHandle, RestoreError> {
    let (tx, rx) = mpsc::channel(1024);
    let handle = RoomHandle::new(tx.clone());
    let span = room_span(&log.id);
    let tasks = context.tasks.clone();
    let mut room = span.in_scope(|| Room::restore(log, context, &tx, stopped_at))?;
    span.in_scope(|| room.resume());
    tasks.spawn(room.run(rx).instrument(span));
    Ok(handle)
}

impl Room {
    fn new(
        id: String,
        settings: Settings,
        context: RoomContext,
        inbox: &mpsc::Sender<Command>,
    ) -> Room {
        let host_token = new_token();
        let config = &context.config;
        let mut room = Room {
            settings: settings.clone(),
            seating: Seating::new(host_token.clone()),
            driver: GameDriver::new(),
            session: None,
            chat: Chat::new(config.chat_history, config.chat_per_minute as usize),
            events: EventLog::new(config.event_history),
            journal: Journal::new(id.clone(), context.storage.clone()),
            delivery: Delivery::new(context.metrics.clone()),
            time: Timebase::live(),
            empty_since: Some(Instant::now()),
            closing: false,
            reported: Reported::default(),
            inbox: inbox.downgrade(),
            context,
            id,
        };
        room.journal.create_room(now_ms());
        // A new room's first record cannot be refused.
        let _ = room.commit(Record::Created {
            settings,
            host_token,
        });
        room
    }

    /// Rebuilds a room from what storage kept: its records applied in order.
    fn restore(
        log: &RoomLog,
        context: RoomContext,
        inbox: &mpsc::Sender<Command>,
        stopped_at: u64,
    ) -> Result<Room, RestoreError> {
        let defaults = rules::defaults(Preset::Teams);
        let mut room = Room::new(log.id.clone(), defaults, context, inbox);
        room.time = Timebase::replaying(stopped_at);
        for (at, body) in &log.records {
            let record: Record =
                serde_json::from_str(body).map_err(|source| RestoreError::Unreadable {
                    room: log.id.clone(),
                    source,
                })?;
            room.time.record_at(*at);
            room.apply(&record)
                .map_err(|source| RestoreError::Refused {
                    room: log.id.clone(),
                    kind: record_kind(&record),
                    source,
                })?;
        }
        // Published events are not stored: a client behind this version gets a snapshot.
        room.events.resume_at(log.version);
        room.journal.resume_at(log.version);
        room.delivery.durable_upto(log.version);
        room.driver.restored();
        room.time.go_live();
        Ok(room)
    }

    /// After a restore: nobody is connected yet, so everyone is away (a player who already was
    /// keeps what was left of their grace period), and the game goes on where it stood.
    fn resume(&mut self) {
        let grace = self.context.config.grace().as_millis() as u64;
        let deadline = now_ms() + grace;
        for seat in SeatIndex::ALL {
            if self.seating.is_human(seat) && !self.seating.is_away(seat) {
                self.set_absence(seat, StoredAbsence::Away { deadline });
            }
        }
        self.advance();
        // Nobody is connected yet: the events above reach clients through snapshots and replays
        // only. Left unsent, the next flush would send them again to connections whose
        // snapshot or replay already had them.
        self.flush();
        self.persist();
    }

    /// The room's task: commands and timers one at a time, until the room is closed (nobody
    /// connected for the idle time), every handle is gone, or the server stops.
    async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        let shutdown = self.context.shutdown.clone();
        // The stop signal and the timer are made once and re-armed only when the deadline
        // changes: making them afresh for every command (a waiter registered and dropped, a
        // timer entry inserted and removed) was a visible share of a busy room's time.
        let stopping = shutdown.cancelled();
        tokio::pin!(stopping);
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed: Option<Instant> = None;
        self.report();
        loop {
            let wake = self.next_deadline();
            if wake != armed {
                if let Some(at) = wake {
                    timer.as_mut().reset(at);
                }
                armed = wake;
            }
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.handle(command),
                    None => break,
                },
                Some(upto) = self.journal.committed() => self.delivery.durable_upto(upto),
                () = &mut timer, if armed.is_some() => {
                    // Fired: whatever deadline comes next is armed anew, even an equal one.
                    armed = None;
                    self.on_timer(Instant::now());
                }
                () = &mut stopping => {
                    self.shut_down().await;
                    break;
                }
            }
            self.end_turn();
            if self.closing {
                tracing::info!("closing the room");
                self.delivery
                    .close_all(fourkings_protocol::close::ROOM_CLOSED);
                self.journal.close_room(now_ms());
                break;
            }
        }
        self.reported.update(&self.context.metrics, None, 0, 0);
        let _ = self.context.closed.send(self.id.clone());
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Connect { conn, outbox } => {
                self.delivery.connect(conn, outbox);
                self.empty_since = None;
                self.send_snapshot(conn);
            }
            Command::Disconnect { conn } => self.delivery.disconnect(conn),
            Command::Message {
                conn,
                msg,
                received,
            } => {
                let span = request_span(&msg);
                span.in_scope(|| self.request(conn, msg, received));
            }
            Command::Info { reply } => {
                let _ = reply.send(self.info());
            }
            Command::GameFile { reply } => {
                let _ = reply.send(self.game_file());
            }
            Command::CpuMoved { ply, hash, mv } => self.cpu_moved(ply, hash, mv),
        }
    }

    /// The end of a turn of the task: connections that left are marked away, what the turn
    /// published goes out (once durable), the journal goes to the writer, and the sockets are
    /// written. Sending may find more connections gone, whose absence is recorded in the same
    /// turn.
    fn end_turn(&mut self) {
        loop {
            self.absorb_departures();
            self.flush();
            self.persist();
            if !self.delivery.has_departures() {
                break;
            }
        }
        self.delivery.write_out();
        self.report();
    }

    /// Hands the journal to the writer; what waited for it goes out now if it is durable at
    /// once.
    fn persist(&mut self) {
        let version = self.events.version();
        if self.journal.hand_over(version) == Written::Now {
            self.delivery.durable_upto(version);
        }
    }

    /// The server is stopping: everything this room did is handed to the writer, and what waited
    /// for it to be durable (acks, events) is delivered once it is; then every connection is told
    /// the server is restarting, so that its client reconnects with backoff. Requests that come
    /// in meanwhile are not handled: the client sends them again after reconnecting. The server
    /// bounds how long this may take.
    async fn shut_down(&mut self) {
        self.driver.cancel_cpu();
        self.persist();
        while self.delivery.durable() < self.journal.stored_version() {
            match self.journal.committed().await {
                Some(upto) => self.delivery.durable_upto(upto),
                None => break,
            }
        }
        self.delivery
            .close_all(fourkings_protocol::close::SERVER_RESTARTING);
        tracing::debug!(
            connections = self.delivery.len(),
            "room flushed for shutdown"
        );
    }

    /// The earliest moment a timer needs the room: a turn or bank running out, a grace period
    /// ending, the room having been empty for too long.
    fn next_deadline(&self) -> Option<Instant> {
        let config = &self.context.config;
        let idle = self.empty_since.map(|since| since + config.idle_room());
        let finished = self
            .driver
            .finished_since()
            .map(|since| since + config.finished_room());
        self.driver
            .next_deadline()
            .into_iter()
            .chain(self.seating.grace_deadlines())
            .chain(idle)
            .chain(finished)
            .min()
    }

    /// Whatever timers are due at `now`.
    fn on_timer(&mut self, now: Instant) {
        for seat in self.seating.graces_due(now) {
            self.set_absence(seat, StoredAbsence::GraceOver);
        }
        self.clock_timers(now);
        let config = &self.context.config;
        let idle = self
            .empty_since
            .is_some_and(|since| now >= since + config.idle_room());
        let unwanted = self
            .driver
            .finished_since()
            .is_some_and(|since| now >= since + config.finished_room());
        if idle || unwanted {
            self.closing = true;
        }
    }

    /// Brings the server's gauges up to date with this room. Called after each command: it
    /// compares a few numbers and touches the shared gauges only when one changed.
    fn report(&mut self) {
        let (players, spectators) = self.delivery.players_and_spectators();
        let status = self.driver.status();
        self.reported
            .update(&self.context.metrics, Some(status), players, spectators);
    }

    /// Records an event for everyone; it is sent after the current request's answer.
    fn emit(&mut self, event: Event) {
        self.events.emit(event, None);
    }

    /// Sends `message` to `conn` once everything published so far is durable.
    fn send_to(&mut self, conn: ConnId, message: &ServerMessage) {
        let needs = self.events.version();
        self.delivery.send(conn, encode(message), needs);
    }

    /// Sends the events published since the last flush, then the legal moves of the seat to
    /// move.
    fn flush(&mut self) {
        self.flush_except(None);
    }

    /// Like [`Room::flush`], skipping `except` (its snapshot or replay already covered all this).
    fn flush_except(&mut self, except: Option<ConnId>) {
        let Some(first) = self.events.take_unsent() else {
            return;
        };
        let needs = self.events.version();
        self.delivery.fan_out(&self.events, first, except, needs);
        self.send_legal_moves(|id| Some(id) != except);
    }

    /// Sends `conn` the events after `since`, or a snapshot if the log no longer holds them all.
    fn replay(&mut self, conn: ConnId, since: u64) {
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
    fn send_legal_moves(&mut self, to: impl Fn(ConnId) -> bool) {
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
