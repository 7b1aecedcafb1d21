//! How a room's task starts, for a new room and for one rebuilt from storage, and how it is
//! supervised: a task that panics, or whose latest writes storage gave up, is rebuilt from what
//! it had stored, with the same inbox.

use std::panic::AssertUnwindSafe;

use fourkings_engine::Preset;
use fourkings_protocol::{SeatIndex, Settings};
use futures_util::FutureExt;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::{Ended, Room};
use crate::ids::new_token;
use crate::panics::PanicSite;
use crate::room::chat::Chat;
use crate::room::command::{Command, RoomContext, RoomHandle};
use crate::room::delivery::Delivery;
use crate::room::driver::GameDriver;
use crate::room::durable_views::DurableViews;
use crate::room::events::EventLog;
use crate::room::journal::Journal;
use crate::room::lifecycle::Lifecycle;
use crate::room::observe::{Reported, record_kind};
use crate::room::outage::StorageOutage;
use crate::room::record::{InvalidRecord, Record, StoredAbsence};
use crate::room::refusal::Refusal;
use crate::room::rules;
use crate::room::seating::Seating;
use crate::room::timebase::Timebase;
use crate::storage::writer::now_ms;
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

/// The span every line a room logs is in: its id (the room link's id, not a secret; the tokens
/// that are secrets never appear in a log line).
fn room_span(id: &str) -> tracing::Span {
    tracing::info_span!("room", room = %id)
}

/// Starts a new room's task and returns its handle and host token. The room's creation is stored
/// before anything else the writer commits after it. Its writes carry `epoch`, its lease's on a
/// node of a cluster.
pub(crate) fn spawn(
    id: String,
    settings: Settings,
    context: RoomContext,
    epoch: Option<u64>,
) -> (RoomHandle, String) {
    let Ok(started) = start(&id.clone(), &context.clone(), |inbox| {
        let mut room = Room::new(id, settings, context, inbox, epoch);
        room.persist();
        let host_token = room.seating.host_token().to_owned();
        Ok::<_, std::convert::Infallible>((room, host_token))
    });
    started
}

/// Rebuilds a room from storage and starts its task. `stopped_at` is when the previous run was
/// last alive (ms since the epoch); the room's writes carry `epoch`, as for [`spawn`].
pub(crate) fn restore(
    log: &RoomLog,
    context: RoomContext,
    stopped_at: u64,
    epoch: Option<u64>,
) -> Result<RoomHandle, RestoreError> {
    let (handle, ()) = start(&log.id, &context.clone(), |inbox| {
        Ok((Room::rebuild(log, context, inbox, stopped_at, epoch)?, ()))
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
    let epoch = room.journal.epoch();
    let set_aside = |why: &str| {
        context.metrics.rooms_set_aside.inc();
        tracing::error!("{why}: the room is set aside (not served, kept in storage)");
        let _ = context.closed.send(id.clone());
    };
    let mut rebuilds = 0;
    loop {
        let lost = match AssertUnwindSafe(room.run(&mut inbox)).catch_unwind().await {
            Ok(Ended::Closed) => return,
            // Served elsewhere now: this node forgets it.
            Ok(Ended::Moved) => {
                let _ = context.closed.send(id.clone());
                return;
            }
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
        room = match Room::rebuild(&log, context.clone(), weak.clone(), now_ms(), epoch) {
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

impl Room {
    fn new(
        id: String,
        settings: Settings,
        context: RoomContext,
        inbox: mpsc::WeakSender<Command>,
        epoch: Option<u64>,
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
            journal: Journal::new(id.clone(), context.storage.clone(), epoch),
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
        epoch: Option<u64>,
    ) -> Result<Room, RestoreError> {
        let defaults = rules::defaults(Preset::Teams);
        let mut room = Room::new(log.id.clone(), defaults, context, inbox, epoch);
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
        epoch: Option<u64>,
    ) -> Result<Room, RestoreError> {
        let mut room = Room::restore(log, context, inbox, stopped_at, epoch)?;
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
}
