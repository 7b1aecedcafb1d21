//! The room's task: the one owner of a room's parts. It takes one command at a time from its
//! inbox and routes it to its handler (in the modules below), which asks the parts and commits
//! the records that result: each record is applied to the part that owns what it changes and
//! appended to the journal ([`Room::commit`]). At the end of each turn, the task sends what the
//! turn published (held back by delivery until durable) and hands the journal to the writer.

mod apply;
mod chat;
mod durability;
mod lobby;
mod outbox;
mod play;
mod premoves;
mod presence;
mod rematch;
mod requests;
mod snapshot;
mod start;

pub(crate) use start::{restore, spawn};

use fourkings_protocol::Settings;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::chat::Chat;
use super::command::{Command, RoomContext};
use super::delivery::Delivery;
use super::driver::GameDriver;
use super::durable_views::DurableViews;
use super::events::EventLog;
use super::journal::Journal;
use super::lifecycle::Lifecycle;
use super::observe::{Reported, request_span};
use super::outage::StorageOutage;
use super::record::StoredAbsence;
use super::seating::Seating;
use super::session::Session;
use super::timebase::Timebase;
use crate::connection::ConnId;
use crate::storage::writer::{Report, now_ms};

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

/// How a run of a room's task ended (besides panicking).
enum Ended {
    /// The room is closed, or the server stopped.
    Closed,
    /// Storage gave up the room's latest writes: it is rebuilt from what is stored.
    Lost,
    /// Another node holds the room's lease now, or is given it: this node no longer serves it.
    Moved,
}

impl Room {
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
            let mut covered = None;
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(Command::LeaseLost) => {
                        self.moved_away();
                        return Ended::Moved;
                    }
                    Some(Command::HandOver { reply }) => {
                        if self.delivery.is_empty() && !self.lifecycle.is_closing() {
                            self.shut_down().await;
                            tracing::info!("handed over to another node");
                            let _ = reply.send(true);
                            return Ended::Moved;
                        }
                        let _ = reply.send(false);
                    }
                    Some(command) => covered = self.handle(command),
                    None => break,
                },
                Some(report) = self.journal.report() => match report {
                    Report::Durable(upto) => self.durable_upto(upto),
                    Report::Lost => {
                        self.storage_lost();
                        return Ended::Lost;
                    }
                    Report::Moved => {
                        // Found by the database before a renewal found it.
                        self.context.metrics.cluster.leases_lost.inc();
                        self.moved_away();
                        return Ended::Moved;
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
            self.end_turn(covered);
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

    /// Routes a command to its handler; returns the connection a request's snapshot or replay
    /// already brought up to date (see [`Room::request`]).
    fn handle(&mut self, command: Command) -> Option<ConnId> {
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
                return span.in_scope(|| self.request(conn, request, received));
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
            // Taken by the task's loop, which ends the run.
            Command::LeaseLost | Command::HandOver { .. } => {}
        }
        None
    }

    /// The end of a turn of the task: connections that left are marked away, what the turn
    /// published goes out (once durable), the journal goes to the writer, and the sockets are
    /// written. Sending may find more connections gone, whose absence is recorded in the same
    /// turn.
    fn end_turn(&mut self, covered: Option<ConnId>) {
        // First what the turn's command published, skipping the connection it brought up to
        // date; what absorbing departures publishes goes to everyone.
        self.flush_except(covered);
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
}
