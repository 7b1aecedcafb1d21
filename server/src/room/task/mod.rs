//! The room's task: the one owner of a room's parts. It takes one command at a time from its
//! inbox and routes it to its handler (in the modules below), which asks the parts and commits
//! the records that result: each record is applied to the part that owns what it changes and
//! appended to the journal ([`Room::commit`]). At the end of each turn, the task sends what the
//! turn published (held back by delivery until durable) and hands the journal to the writer.

mod apply;
mod chat;
mod lobby;
mod play;
mod premoves;
mod presence;
mod rematch;
mod requests;
mod snapshot;

use std::panic::AssertUnwindSafe;

use fourkings_engine::Preset;
use fourkings_protocol::{Event, SeatIndex, ServerMessage, Settings};
use futures_util::FutureExt;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::chat::Chat;
use super::command::{Command, RoomContext, RoomHandle};
use super::delivery::Delivery;
use super::driver::GameDriver;
use super::durable_views::DurableViews;
use super::events::EventLog;
use super::frames::encode;
use super::journal::Journal;
use super::lifecycle::Lifecycle;
use super::observe::{Reported, record_kind, request_span};
use super::outage::StorageOutage;
use super::record::{InvalidRecord, Record, StoredAbsence};
use super::refusal::Refusal;
use super::rules;
use super::seating::Seating;
use super::session::Session;
use super::timebase::Timebase;
use crate::connection::ConnId;
use crate::ids::new_token;
use crate::panics::PanicSite;
use crate::storage::health::StorageDown;
use crate::storage::writer::{Report, Written, now_ms};
use crate::storage::{Chain, RoomLog};

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
    /// A record that holds what the server never writes (changed on disk). The message names
    /// it by kind only: a record may hold tokens.
    #[error("room {room}: a {kind} record is invalid")]
    Invalid {
        /// The room.
        room: String,
        /// The record's kind.
        kind: &'static str,
        /// What is wrong with it.
        #[source]
        source: InvalidRecord,
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
    /// What HTTP readers see: the room as of its durable version.
    views: DurableViews,
    time: Timebase,
    lifecycle: Lifecycle,
    outage: StorageOutage,
    /// What this room last added to the server's gauges.
    reported: Reported,
}

impl Drop for Room {
    /// However the room ends (closed, or its task panicked), it no longer counts in the gauges.
    fn drop(&mut self) {
        self.reported.update(&self.context.metrics, None, 0, 0);
    }
}

/// The span every line a room logs is in: its id (the room link's id, not a secret; the tokens
/// that are secrets never appear in a log line).
fn room_span(id: &str) -> tracing::Span {
    tracing::info_span!("room", room = %id)
}

/// Starts a new room's task and returns its handle and host token. The room's creation is stored
/// before anything else the writer commits after it.
pub(crate) fn spawn(id: String, settings: Settings, context: RoomContext) -> (RoomHandle, String) {
    let Ok(started) = start(&id.clone(), &context.clone(), |inbox| {
        let mut room = Room::new(id, settings, context, inbox);
        room.persist();
        let host_token = room.seating.host_token().to_owned();
        Ok::<_, std::convert::Infallible>((room, host_token))
    });
    started
}

/// Rebuilds a room from storage and starts its task. `stopped_at` is when the previous run was
/// last alive (ms since the epoch).
pub(crate) fn restore(
    log: &RoomLog,
    context: RoomContext,
    stopped_at: u64,
) -> Result<RoomHandle, RestoreError> {
    let (handle, ()) = start(&log.id, &context.clone(), |inbox| {
        Ok((Room::rebuild(log, context, inbox, stopped_at)?, ()))
    })?;
    Ok(handle)
}

/// The one way a room's task starts, for new and restored rooms alike: `build` makes the room
/// (in the room's span, given the room's own inbox), and its task runs under the supervisor.
fn start<T, E>(
    id: &str,
    context: &RoomContext,
    build: impl FnOnce(mpsc::WeakSender<Command>) -> Result<(Room, T), E>,
) -> Result<(RoomHandle, T), E> {
    let (tx, rx) = mpsc::channel(1024);
    let span = room_span(id);
    let (room, made) = span.in_scope(|| build(tx.downgrade()))?;
    context
        .tasks
        .spawn(supervise(Box::new(room), rx, tx.downgrade()).instrument(span));
    Ok((RoomHandle::new(tx), made))
}

/// How many times a room whose task panicked is rebuilt before it is set aside.
const MOST_REBUILDS: u32 = 3;

/// Runs a room's task, and rebuilds the room from storage if the task panics: the panic is
/// logged and counted, the room's connections are told to reconnect (they resume from their
/// version), and the room goes on from what it had made durable, with the same inbox, so its
/// handles stay good. Nothing that was not durable had been shown to anyone. A room that keeps
/// panicking, or cannot be read back, is set aside: it leaves the directory and stays on disk.
async fn supervise(
    mut room: Box<Room>,
    mut inbox: mpsc::Receiver<Command>,
    weak: mpsc::WeakSender<Command>,
) {
    let id = room.id.clone();
    let context = room.context.clone();
    let set_aside = |why: &str| {
        context.metrics.rooms_set_aside.inc();
        tracing::error!("{why}: the room is set aside (not served, kept in storage)");
        let _ = context.closed.send(id.clone());
    };
    let mut rebuilds = 0;
    loop {
        let lost = match AssertUnwindSafe(room.run(&mut inbox)).catch_unwind().await {
            Ok(Ended::Closed) => return,
            // Not the room's fault, and storage is to blame if it keeps happening: not counted.
            Ok(Ended::Lost) => true,
            Err(panic) => {
                context.metrics.panics(PanicSite::Room);
                let message = crate::panics::message(panic.as_ref());
                tracing::error!(panic = %message, "the room's task panicked");
                if rebuilds == MOST_REBUILDS {
                    return set_aside("it kept panicking, rebuilt as often as it may be");
                }
                rebuilds += 1;
                false
            }
        };
        let log = match context.storage.room(&id).await {
            Ok(Some(log)) => log,
            Ok(None) if lost => {
                // Its creation was given up: nobody ever heard of it.
                tracing::info!("the room's creation was never stored: it is dropped");
                let _ = context.closed.send(id.clone());
                return;
            }
            Ok(None) => return set_aside("it is not in storage"),
            Err(error) => {
                tracing::error!(error = %Chain(&error), "reading the room back");
                return set_aside("it cannot be read back");
            }
        };
        room = match Room::rebuild(&log, context.clone(), weak.clone(), now_ms()) {
            Ok(rebuilt) => {
                tracing::info!(rebuilds, "the room was rebuilt from storage");
                Box::new(rebuilt)
            }
            Err(error) => {
                tracing::error!(error = %Chain(&error), "rebuilding the room");
                return set_aside("it cannot be rebuilt");
            }
        };
    }
}

/// How a run of a room's task ended (besides panicking).
enum Ended {
    /// The room is closed, or the server stopped.
    Closed,
    /// Storage gave up the room's latest writes: it is rebuilt from what is stored.
    Lost,
}

impl Room {
    fn new(
        id: String,
        settings: Settings,
        context: RoomContext,
        inbox: mpsc::WeakSender<Command>,
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
            views: DurableViews::new(),
            time: Timebase::live(),
            lifecycle: Lifecycle::new(Instant::now()),
            outage: StorageOutage::default(),
            reported: Reported::default(),
            inbox,
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
        inbox: mpsc::WeakSender<Command>,
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
            record
                .check_stored()
                .map_err(|source| RestoreError::Invalid {
                    room: log.id.clone(),
                    kind: record_kind(&record),
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
        // Everything read back is durable: readers see the room as it stands.
        room.durable_upto(log.version);
        room.driver.restored();
        room.time.go_live();
        let joined =
            room.driver.is_started() || SeatIndex::ALL.iter().any(|&s| room.seating.is_human(s));
        room.lifecycle.restored(joined);
        Ok(room)
    }

    /// A room rebuilt from storage and going on where it stood.
    fn rebuild(
        log: &RoomLog,
        context: RoomContext,
        inbox: mpsc::WeakSender<Command>,
        stopped_at: u64,
    ) -> Result<Room, RestoreError> {
        let mut room = Room::restore(log, context, inbox, stopped_at)?;
        room.resume();
        Ok(room)
    }

    /// After a restore: nobody is connected yet, so everyone is away (a player who already was
    /// keeps what was left of their grace period), and the game goes on where it stood.
    fn resume(&mut self) {
        let grace = self.context.config.grace().as_millis() as u64;
        let deadline = now_ms() + grace;
        for seat in SeatIndex::ALL {
            if self.seating.is_human(seat) && !self.seating.is_away(seat) {
                self.seat_came_or_went(seat, StoredAbsence::Away { deadline });
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
    // Boxed: the supervisor keeps its room between runs, and inline the room would take its
    // size twice, there and in the run's future.
    async fn run(mut self: Box<Self>, inbox: &mut mpsc::Receiver<Command>) -> Ended {
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
                Some(report) = self.journal.report() => match report {
                    Report::Durable(upto) => self.durable_upto(upto),
                    Report::Lost => {
                        self.storage_lost();
                        return Ended::Lost;
                    }
                },
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
            if self.lifecycle.is_closing() {
                tracing::info!("closing the room");
                self.delivery
                    .close_all(fourkings_protocol::close::ROOM_CLOSED);
                self.journal.close_room(now_ms());
                break;
            }
        }
        let _ = self.context.closed.send(self.id.clone());
        Ended::Closed
    }

    /// Storage gave up what the room handed it: every request whose answer waited for it is
    /// refused, and nothing else that waited goes out. The room's connections are closed when
    /// it is dropped (they reconnect to the room rebuilt from what is stored).
    fn storage_lost(&mut self) {
        tracing::warn!(
            durable = self.delivery.durable(),
            handed_over = self.journal.stored_version(),
            "storage gave up this room's latest writes: its requests are refused, and it goes back to what is stored"
        );
        self.delivery
            .refuse_held(&Refusal::StorageUnavailable(StorageDown::GaveUp));
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Connect { conn, outbox } => {
                self.delivery.connect(conn, outbox);
                self.lifecycle.connected();
                self.send_snapshot(conn);
            }
            Command::Disconnect { conn } => self.delivery.disconnect(conn),
            Command::Flooded { conn } => {
                let needs = self.events.version();
                self.delivery
                    .send(conn, crate::connection::rate_limited(), needs);
                self.delivery
                    .close(conn, fourkings_protocol::close::TOO_MANY, needs);
            }
            // Sent before its connection was closed (by a room that was rebuilt since): there is
            // nobody to answer, and the client sends it again if it still wants it.
            Command::Message { conn, .. } if !self.delivery.is_connected(conn) => {}
            Command::Message {
                conn,
                request,
                received,
            } => {
                let span = request_span(&request);
                span.in_scope(|| self.request(conn, request, received));
            }
            Command::Info { reply } => {
                let info = match self.views.pending_info() {
                    Some(durable) => durable.clone(),
                    None => self.info(),
                };
                let _ = reply.send(info);
            }
            Command::GameFile { document, reply } => {
                let (needs, durable) = (self.events.version(), self.delivery.durable());
                match self.views.pending_game() {
                    // The same game as stood when all was durable: as far as it had got then.
                    Some(at) if at.games_played == self.driver.games_played() => {
                        let _ = reply.send(self.game_file_upto(document, at.events));
                    }
                    _ => {
                        let file = self.game_file(document);
                        self.views.send_game_file(reply, file, needs, durable);
                    }
                }
            }
            Command::CpuMoved(answer) => {
                if self.driver.cpu_held_at(self.time.now()) {
                    // Its move waits for a takeback that may come; the timer plays it then.
                    self.driver.hold_answer(answer);
                } else if self.context.storage.health().is_err() {
                    // Its move waits for storage, and the search stays the one waited for.
                    self.driver.hold_answer(answer);
                    self.outage.wait(Instant::now());
                } else {
                    self.cpu_moved(answer);
                }
            }
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
            self.durable_upto(version);
        }
    }

    /// Storage made everything up to `upto` durable: what waited for it goes out, to clients and
    /// to HTTP readers.
    fn durable_upto(&mut self, upto: u64) {
        self.delivery.durable_upto(upto);
        let durable = self.delivery.durable();
        self.views
            .durable_upto(durable, durable >= self.events.version());
    }

    /// Whether everything the room published is durable (nothing on its way to the disk).
    fn all_durable(&self) -> bool {
        self.delivery.durable() >= self.events.version()
    }

    /// The server is stopping: everything this room did is handed to the writer, and what waited
    /// for it to be durable (acks, events) is delivered once it is; then every connection is told
    /// the server is restarting, so that its client reconnects with backoff. Requests that come
    /// in meanwhile are not handled: the client sends them again after reconnecting. The server
    /// bounds how long this may take.
    async fn shut_down(&mut self) {
        self.driver.cancel_cpu();
        self.persist();
        let limit = Instant::now() + self.context.config.room_flush_limit();
        while self.delivery.durable() < self.journal.stored_version() {
            match tokio::time::timeout_at(limit, self.journal.report()).await {
                Ok(Some(Report::Durable(upto))) => self.durable_upto(upto),
                Ok(Some(Report::Lost)) => {
                    self.storage_lost();
                    break;
                }
                Ok(None) => break,
                Err(_) => {
                    // What waits for storage is never sent: it may not be stored.
                    tracing::warn!(
                        durable = self.delivery.durable(),
                        handed_over = self.journal.stored_version(),
                        "storage did not make this room's records durable in time; closing its connections anyway"
                    );
                    break;
                }
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
        if let Some(recheck) = self.outage.recheck_at() {
            return Some(recheck);
        }
        let config = &self.context.config;
        let idle = self.idle_deadline();
        let finished = self
            .driver
            .finished_since()
            .map(|since| since + config.finished_room());
        let held_cpu = self.driver.held_answer_due();
        self.driver
            .next_deadline()
            .into_iter()
            .chain(held_cpu)
            .chain(self.seating.grace_deadlines())
            .chain(idle)
            .chain(finished)
            .min()
    }

    /// When the room closes for want of anyone connected: the idle time after the last one
    /// left, or sooner (the unjoined time) if nobody ever came.
    fn idle_deadline(&self) -> Option<Instant> {
        let config = &self.context.config;
        self.lifecycle
            .idle_deadline(config.idle_room(), config.unjoined_room())
    }

    /// Whatever timers are due at `now`.
    fn on_timer(&mut self, now: Instant) {
        self.outage.looked();
        if self.context.storage.health().is_err() {
            // Timers change the room (a turn runs out, a grace period ends, the room closes):
            // while storage takes no writes they wait, and what they would hold stays bounded.
            self.outage.wait(now);
            return;
        }
        self.settle_presence();
        if let Some(answer) = self.driver.due_answer(now) {
            self.cpu_moved(answer);
        }
        for seat in self.seating.graces_due(now) {
            self.set_absence(seat, StoredAbsence::GraceOver);
        }
        self.clock_timers(now);
        let config = &self.context.config;
        let idle = self.idle_deadline().is_some_and(|at| now >= at);
        let unwanted = self
            .driver
            .finished_since()
            .is_some_and(|since| now >= since + config.finished_room());
        if idle || unwanted {
            self.lifecycle.close();
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
