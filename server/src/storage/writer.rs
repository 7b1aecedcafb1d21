//! The writer thread: group commit of every room's records, and the durability each room waits
//! for before it lets anything be seen.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::health::{StorageDown, StorageHealth};
use super::{ArchivedGame, Chain, RoomLog, Storage, StorageError, Write};
use crate::metrics::Metrics;

/// How often the writer stamps the database with "alive", even with nothing else to write.
const ALIVE_EVERY: Duration = Duration::from_secs(1);
/// The most requests gathered into one transaction.
const MAX_BATCH: usize = 512;

/// What the writer thread takes.
pub(crate) enum Request {
    /// Writes for one room; when committed, `upto` is sent to `durable`.
    Write {
        writes: Vec<Write>,
        durable: Option<(mpsc::UnboundedSender<u64>, u64)>,
    },
    /// Reads an archived game.
    Game {
        id: String,
        reply: oneshot::Sender<Result<Option<ArchivedGame>, StorageError>>,
    },
    /// Reads one open room's log, after every write queued before it is committed.
    Room {
        id: String,
        reply: oneshot::Sender<Result<Option<RoomLog>, StorageError>>,
    },
    /// Answered once every write queued before it is committed.
    Barrier { reply: oneshot::Sender<()> },
    /// Flushes and ends the thread.
    Stop { done: oneshot::Sender<()> },
}

/// A cheap handle on the writer thread, or on a store written in place.
#[derive(Clone)]
pub(crate) enum StorageHandle {
    /// Storage that waits (a disk): written by the writer thread, in group commits.
    Thread {
        /// The thread's inbox.
        tx: std_mpsc::Sender<Request>,
        /// Set when the thread has ended (asked to, or by a panic).
        finished: Arc<AtomicBool>,
        /// Where the writes waiting for the thread are counted.
        metrics: Arc<Metrics>,
        /// Whether the thread takes writes now.
        health: Arc<StorageHealth>,
    },
    /// Storage that never waits ([`Storage::is_immediate`]): written by the caller, which
    /// saves a thread hop and two wake-ups per move. The lock is held for a few map
    /// insertions, never across an `.await`.
    Immediate {
        /// The store.
        storage: Arc<Mutex<Box<dyn Storage>>>,
        /// Where its writes are counted.
        metrics: Arc<Metrics>,
    },
}

/// Whether a write is durable yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    /// Already: whatever waited for it may go out now.
    Now,
    /// Later: the writer reports the version to the room's channel once it has committed.
    Later,
}

/// Sets its flag when dropped: when the writer thread ends, however it ends.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl StorageHandle {
    /// Starts the writer thread over `storage`, or keeps it in place if it never waits; writes
    /// are counted in `metrics`.
    pub(crate) fn start(
        storage: Box<dyn Storage>,
        metrics: Arc<Metrics>,
        health: StorageHealth,
    ) -> StorageHandle {
        if storage.is_immediate() {
            return StorageHandle::Immediate {
                storage: Arc::new(Mutex::new(storage)),
                metrics,
            };
        }
        let (tx, rx) = std_mpsc::channel::<Request>();
        let finished = Arc::new(AtomicBool::new(false));
        let health = Arc::new(health);
        std::thread::Builder::new()
            .name("fourkings-storage".into())
            .spawn({
                let finished = SetOnDrop(finished.clone());
                let metrics = metrics.clone();
                let health = health.clone();
                move || {
                    let _finished = finished;
                    run(storage, &rx, &metrics, &health);
                }
            })
            .expect("the storage thread starts");
        StorageHandle::Thread {
            tx,
            finished,
            metrics,
            health,
        }
    }

    /// Queues `writes`, leaving the vector empty; once they are committed, `upto` is sent to
    /// `durable`, unless they were committed at once ([`Written::Now`]: nothing is sent then).
    /// Never blocks on a disk.
    pub(crate) fn write(
        &self,
        writes: &mut Vec<Write>,
        durable: Option<(mpsc::UnboundedSender<u64>, u64)>,
    ) -> Written {
        match self {
            StorageHandle::Thread {
                tx,
                metrics,
                health,
                ..
            } => {
                let writes = std::mem::take(writes);
                metrics.storage_queued_writes.inc_by(writes.len() as i64);
                health.queued(writes.len());
                let _ = tx.send(Request::Write { writes, durable });
                Written::Later
            }
            StorageHandle::Immediate { storage, metrics } => {
                let began = Instant::now();
                let mut storage = storage.lock().unwrap_or_else(PoisonError::into_inner);
                // A store that never waits has nothing to retry: a failure is a bug, and is
                // logged rather than allowed to hold the room back forever.
                if let Err(error) = storage.write(writes) {
                    metrics.storage_errors.inc();
                    tracing::error!(error = %Chain(&error), "storage write failed");
                }
                metrics.storage_commit(writes.len(), began.elapsed());
                // The vector stays with its room for the next writes: a room writes for every
                // move.
                writes.clear();
                Written::Now
            }
        }
    }

    /// Reads an archived game.
    pub(crate) async fn game(&self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        let id = id.to_owned();
        self.read(
            |storage| storage.game(&id),
            |reply| Request::Game {
                id: id.clone(),
                reply,
            },
        )
        .await
    }

    /// Everything stored about the open room `id`, once what was queued before is committed.
    pub(crate) async fn room(&self, id: &str) -> Result<Option<RoomLog>, StorageError> {
        let id = id.to_owned();
        self.read(
            |storage| storage.room(&id),
            |reply| Request::Room {
                id: id.clone(),
                reply,
            },
        )
        .await
    }

    /// A read: done in place on a store written in place, else asked of the writer thread with
    /// the request `ask` makes around the reply's sender.
    async fn read<T>(
        &self,
        in_place: impl FnOnce(&mut dyn Storage) -> Result<T, StorageError>,
        ask: impl FnOnce(oneshot::Sender<Result<T, StorageError>>) -> Request,
    ) -> Result<T, StorageError> {
        let tx = match self {
            StorageHandle::Thread { tx, .. } => tx,
            StorageHandle::Immediate { storage, .. } => {
                let mut storage = storage.lock().unwrap_or_else(PoisonError::into_inner);
                return in_place(storage.as_mut());
            }
        };
        let (reply, answer) = oneshot::channel();
        if tx.send(ask(reply)).is_err() {
            return Err(StorageError::Stopped);
        }
        answer.await.map_err(|_| StorageError::Stopped)?
    }

    /// Returns once every write queued before the call is committed (at once for a store
    /// written in place); an error if the writer has stopped.
    pub(crate) async fn barrier(&self) -> Result<(), StorageError> {
        let StorageHandle::Thread { tx, .. } = self else {
            return Ok(());
        };
        let (reply, answer) = oneshot::channel();
        if tx.send(Request::Barrier { reply }).is_err() {
            return Err(StorageError::Stopped);
        }
        answer.await.map_err(|_| StorageError::Stopped)
    }

    /// Whether storage takes writes now, or why not (a store written in place always does).
    pub(crate) fn health(&self) -> Result<(), StorageDown> {
        match self {
            StorageHandle::Thread { health, .. } => health.check(),
            StorageHandle::Immediate { .. } => Ok(()),
        }
    }

    /// Whether the storage still takes writes (a writer thread stops only when asked, or if it
    /// panicked; a store written in place always does).
    pub(crate) fn is_running(&self) -> bool {
        match self {
            StorageHandle::Thread { finished, .. } => !finished.load(Ordering::Relaxed),
            StorageHandle::Immediate { .. } => true,
        }
    }

    /// Commits what is queued and stops the thread: `true` once it has, `false` if the thread
    /// had ended already (it panicked, and what it held is lost).
    pub(crate) async fn stop(&self) -> bool {
        let StorageHandle::Thread { tx, .. } = self else {
            return true;
        };
        let (done, finished) = oneshot::channel();
        tx.send(Request::Stop { done }).is_ok() && finished.await.is_ok()
    }
}

/// The first wait before a failed commit is tried again; it doubles up to [`RETRY_MOST`].
const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two tries of a failed commit.
const RETRY_MOST: Duration = Duration::from_secs(5);

/// Commits `writes` (of which `queued` are the rooms'), retrying a failed commit until it
/// succeeds: what the rooms hold back stays held until then, so nothing is ever shown that is
/// not stored, and when storage works again everything held is written and delivered. A failure
/// is logged once, when it begins, and once more when it ends; each failed try is counted.
fn commit(
    storage: &mut dyn Storage,
    writes: &[Write],
    queued: usize,
    metrics: &Metrics,
    health: &StorageHealth,
) {
    let began = Instant::now();
    let mut wait = RETRY_FIRST;
    let mut failing_since = None;
    loop {
        health.commit_begins();
        let result = storage.write(writes);
        health.commit_ended(result.is_ok().then_some(queued));
        match result {
            Ok(()) => break,
            Err(error) => {
                metrics.storage_errors.inc();
                if failing_since.is_none() {
                    failing_since = Some(Instant::now());
                    metrics.storage_failures.inc();
                    tracing::error!(
                        error = %Chain(&error),
                        held = health.held(),
                        "storage failed: rooms take no new writes, and what they hold is retried until it is stored"
                    );
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(RETRY_MOST);
            }
        }
    }
    if let Some(since) = failing_since {
        tracing::info!(
            after_seconds = since.elapsed().as_secs_f64(),
            writes = writes.len(),
            "storage works again: what was held is stored and delivered"
        );
    }
    metrics.storage_commit(writes.len(), began.elapsed());
    metrics.storage_queued_writes.dec_by(queued as i64);
}

fn run(
    mut storage: Box<dyn Storage>,
    rx: &std_mpsc::Receiver<Request>,
    metrics: &Metrics,
    health: &StorageHealth,
) {
    let mut last_alive = Instant::now() - ALIVE_EVERY;
    let mut last_maintained = Instant::now();
    loop {
        let first = match rx.recv_timeout(ALIVE_EVERY) {
            Ok(request) => Some(request),
            Err(std_mpsc::RecvTimeoutError::Timeout) => None,
            Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
        };
        let mut writes = Vec::new();
        let mut notify = Vec::new();
        let mut stop = None;
        let mut room_reads = Vec::new();
        // The rooms' writes in this batch (not the writer's own stamp).
        let mut queued = 0;
        let mut barriers = Vec::new();
        let mut next = first;
        let mut gathered = 0;
        // Everything that is waiting goes into one transaction.
        while let Some(request) = next.take() {
            match request {
                Request::Write { writes: w, durable } => {
                    queued += w.len();
                    writes.extend(w);
                    notify.extend(durable);
                }
                Request::Game { id, reply } => {
                    let _ = reply.send(storage.game(&id));
                }
                // After this batch's commit: the log must hold every write queued before it.
                Request::Room { id, reply } => room_reads.push((id, reply)),
                Request::Barrier { reply } => barriers.push(reply),
                Request::Stop { done } => {
                    stop = Some(done);
                    break;
                }
            }
            gathered += 1;
            if gathered < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        // A stop stamps the moment too: the next start counts the time the server was down
        // from the very end of this run.
        if last_alive.elapsed() >= ALIVE_EVERY || stop.is_some() {
            writes.push(Write::Alive { at: now_ms() });
            last_alive = Instant::now();
        }
        if !writes.is_empty() {
            commit(storage.as_mut(), &writes, queued, metrics, health);
        }
        for (room, upto) in notify {
            let _ = room.send(upto);
        }
        for (id, reply) in room_reads {
            let _ = reply.send(storage.room(&id));
        }
        for reply in barriers {
            let _ = reply.send(());
        }
        // After the rooms heard back, so that housekeeping never delays what they hold.
        if last_maintained.elapsed() >= ALIVE_EVERY {
            last_maintained = Instant::now();
            if let Err(error) = storage.maintain() {
                tracing::warn!(error = %Chain(&error), "storage housekeeping failed; will try again");
            }
        }
        if let Some(done) = stop {
            // Closed before the answer, so that a process that exits right after finds its file
            // whole and checkpointed (SQLite folds the WAL back into it on close).
            drop(storage);
            let _ = done.send(());
            return;
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
