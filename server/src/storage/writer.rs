//! The writer thread: group commit of every room's records, and the durability each room waits
//! for before it lets anything be seen.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::{ArchivedGame, Chain, Storage, StorageError, Write};
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
    pub(crate) fn start(storage: Box<dyn Storage>, metrics: Arc<Metrics>) -> StorageHandle {
        if storage.is_immediate() {
            return StorageHandle::Immediate {
                storage: Arc::new(Mutex::new(storage)),
                metrics,
            };
        }
        let (tx, rx) = std_mpsc::channel::<Request>();
        let finished = Arc::new(AtomicBool::new(false));
        std::thread::Builder::new()
            .name("fourkings-storage".into())
            .spawn({
                let finished = SetOnDrop(finished.clone());
                move || {
                    let _finished = finished;
                    run(storage, &rx, &metrics);
                }
            })
            .expect("the storage thread starts");
        StorageHandle::Thread { tx, finished }
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
            StorageHandle::Thread { tx, .. } => {
                let writes = std::mem::take(writes);
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
        let tx = match self {
            StorageHandle::Thread { tx, .. } => tx,
            StorageHandle::Immediate { storage, .. } => {
                return storage
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .game(id);
            }
        };
        let (reply, answer) = oneshot::channel();
        if tx
            .send(Request::Game {
                id: id.to_owned(),
                reply,
            })
            .is_err()
        {
            return Err(StorageError::Stopped);
        }
        answer.await.map_err(|_| StorageError::Stopped)?
    }

    /// Whether the storage still takes writes (a writer thread stops only when asked, or if it
    /// panicked; a store written in place always does).
    pub(crate) fn is_running(&self) -> bool {
        match self {
            StorageHandle::Thread { finished, .. } => !finished.load(Ordering::Relaxed),
            StorageHandle::Immediate { .. } => true,
        }
    }

    /// Commits what is queued and stops the thread.
    pub(crate) async fn stop(&self) {
        let StorageHandle::Thread { tx, .. } = self else {
            return;
        };
        let (done, finished) = oneshot::channel();
        if tx.send(Request::Stop { done }).is_ok() {
            let _ = finished.await;
        }
    }
}

fn run(mut storage: Box<dyn Storage>, rx: &std_mpsc::Receiver<Request>, metrics: &Metrics) {
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
        let mut next = first;
        let mut gathered = 0;
        // Everything that is waiting goes into one transaction.
        while let Some(request) = next.take() {
            match request {
                Request::Write { writes: w, durable } => {
                    writes.extend(w);
                    notify.extend(durable);
                }
                Request::Game { id, reply } => {
                    let _ = reply.send(storage.game(&id));
                }
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
            // A failed commit is retried: what the rooms hold back stays held until it succeeds,
            // so nothing is ever shown that is not stored.
            let began = Instant::now();
            while let Err(error) = storage.write(&writes) {
                metrics.storage_errors.inc();
                tracing::error!(error = %Chain(&error), "storage write failed; retrying");
                std::thread::sleep(Duration::from_millis(500));
            }
            metrics.storage_commit(writes.len(), began.elapsed());
        }
        for (room, upto) in notify {
            let _ = room.send(upto);
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
