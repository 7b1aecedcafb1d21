//! The writer thread: group commit of every room's records, and the durability each room waits
//! for before it lets anything be seen.

use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{mpsc, oneshot};

use super::{ArchivedGame, Storage, StorageError, Write};
use crate::metrics::Metrics;

/// How often the writer stamps the database with "alive", even with nothing else to write.
const ALIVE_EVERY: Duration = Duration::from_secs(1);
/// The most requests gathered into one transaction.
const MAX_BATCH: usize = 512;

/// What the writer thread takes.
enum Request {
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

/// A cheap handle on the writer thread.
#[derive(Clone)]
pub(crate) struct StorageHandle {
    tx: std_mpsc::Sender<Request>,
    /// Set when the thread has ended (asked to, or by a panic).
    finished: Arc<AtomicBool>,
}

/// Sets its flag when dropped: when the writer thread ends, however it ends.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl StorageHandle {
    /// Starts the writer thread over `storage`; it counts its commits in `metrics`.
    pub(crate) fn start(storage: Box<dyn Storage>, metrics: Arc<Metrics>) -> StorageHandle {
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
        StorageHandle { tx, finished }
    }

    /// Queues `writes`; once they are committed, `upto` is sent to `durable`. Never blocks.
    pub(crate) fn write(
        &self,
        writes: Vec<Write>,
        durable: Option<(mpsc::UnboundedSender<u64>, u64)>,
    ) {
        let _ = self.tx.send(Request::Write { writes, durable });
    }

    /// Reads an archived game.
    pub(crate) async fn game(&self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        let (reply, answer) = oneshot::channel();
        if self
            .tx
            .send(Request::Game {
                id: id.to_owned(),
                reply,
            })
            .is_err()
        {
            return Err(StorageError::Database(
                "the storage thread has stopped".into(),
            ));
        }
        answer
            .await
            .map_err(|_| StorageError::Database("the storage thread has stopped".into()))?
    }

    /// Whether the writer thread still takes writes (it stops only when asked, or if it
    /// panicked).
    pub(crate) fn is_running(&self) -> bool {
        !self.finished.load(Ordering::Relaxed)
    }

    /// Commits what is queued and stops the thread.
    pub(crate) async fn stop(&self) {
        let (done, finished) = oneshot::channel();
        if self.tx.send(Request::Stop { done }).is_ok() {
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
                tracing::error!(%error, "storage write failed; retrying");
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
                tracing::warn!(%error, "storage housekeeping failed; will try again");
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
