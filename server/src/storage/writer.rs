//! The writer thread: group commit of every room's records, and the durability each room waits
//! for before it lets anything be seen.
//!
//! A commit that fails is tried again, with a growing pause, for as long as the storage timeout
//! (`--storage-timeout-seconds`): a failure shorter than that only delays what the rooms hold.
//! Past it the writer gives the batch up: every room with writes in it hears that they are lost
//! ([`Report::Lost`]), answers what it held with `storage_unavailable` and goes back to what is
//! stored. Until such a room has read itself back ([`StorageHandle::room`]), the writer drops
//! whatever else it sent before it heard: those writes followed the lost ones, and would leave a
//! gap in its log. A commit that hangs (a disk that never answers) cannot be taken back, and
//! what it holds waits for it.
//!
//! On a node of a cluster, PostgreSQL refuses a whole batch for the writes of a room whose lease
//! another node holds now ([`StorageError::Moved`]): the writer takes that room's writes out,
//! commits the rest at once, and tells the room ([`Report::Moved`]), which stops serving; what
//! it still sends is dropped.

use std::collections::HashSet;
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

/// What the writer tells a room about the writes it handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    /// Everything up to this version is durable.
    Durable(u64),
    /// Storage failed for longer than the storage timeout and the writes were given up: the room
    /// must go back to what is stored (it reads itself back with [`StorageHandle::room`]).
    Lost,
    /// The database refused the room's writes: another node holds its lease now (fencing,
    /// [`super::leases`]). The room must stop serving at once; its later writes are dropped.
    Moved,
}

/// Where a room hears what became of its writes, and the version they bring it to.
pub(crate) type ReportTo = (mpsc::UnboundedSender<Report>, u64);

/// Where a room's log goes once read.
pub(crate) type RoomReply = oneshot::Sender<Result<Option<RoomLog>, StorageError>>;

/// What the writer thread takes.
pub(crate) enum Request {
    /// Writes for one room; what became of them is reported to `report`.
    Write {
        writes: Vec<Write>,
        report: Option<ReportTo>,
    },
    /// Reads an archived game.
    Game {
        id: String,
        reply: oneshot::Sender<Result<Option<ArchivedGame>, StorageError>>,
    },
    /// Reads one open room's log, after every write queued before it is committed or given
    /// up; the room's writes are taken again after it.
    Room { id: String, reply: RoomReply },
    /// Whether a new room's creation, queued before, is stored (`false`: it was given up).
    Created {
        room: String,
        reply: oneshot::Sender<bool>,
    },
    /// Flushes and ends the thread; answers whether the last commit stored everything.
    Stop { done: oneshot::Sender<bool> },
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

    /// Queues `writes`, leaving the vector empty; what becomes of them is sent to `report`,
    /// unless they were committed at once ([`Written::Now`]: nothing is sent then). Never
    /// blocks on a disk.
    pub(crate) fn write(&self, writes: &mut Vec<Write>, report: Option<ReportTo>) -> Written {
        match self {
            StorageHandle::Thread {
                tx,
                metrics,
                health,
                ..
            } => {
                let writes = std::mem::take(writes);
                metrics.storage.queued_writes.inc_by(writes.len() as i64);
                health.queued(writes.len());
                let _ = tx.send(Request::Write { writes, report });
                Written::Later
            }
            StorageHandle::Immediate { storage, metrics } => {
                let began = Instant::now();
                let mut storage = storage.lock().unwrap_or_else(PoisonError::into_inner);
                // A store that never waits has nothing to retry: a failure is a bug, and is
                // logged rather than allowed to hold the room back forever.
                if let Err(error) = storage.write(writes) {
                    metrics.storage.errors.inc();
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

    /// Everything stored about the open room `id`, once what was queued before is committed (or
    /// given up). A room whose writes were lost reads itself back this way, and its writes are
    /// taken again from then on.
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

    /// Whether the creation of `room`, queued before the call, is stored: `true` once it is
    /// committed (at once for a store written in place), `false` if storage gave it up; an error
    /// if the writer has stopped.
    pub(crate) async fn created(&self, room: &str) -> Result<bool, StorageError> {
        let StorageHandle::Thread { tx, .. } = self else {
            return Ok(true);
        };
        let (reply, answer) = oneshot::channel();
        let room = room.to_owned();
        if tx.send(Request::Created { room, reply }).is_err() {
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

    /// Commits what is queued and stops the thread: `true` once it has, `false` if that last
    /// commit was given up (storage failing), or the thread had ended already (it panicked):
    /// then what it held is lost.
    pub(crate) async fn stop(&self) -> bool {
        let StorageHandle::Thread { tx, .. } = self else {
            return true;
        };
        let (done, finished) = oneshot::channel();
        tx.send(Request::Stop { done }).is_ok() && finished.await == Ok(true)
    }
}

/// The first pause before a failed commit is tried again; it doubles up to [`RETRY_MOST`].
const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest pause between two tries of a failed commit.
const RETRY_MOST: Duration = Duration::from_secs(5);

/// A failure of storage, from its first failed commit to the next one that succeeds.
struct Failure {
    since: Instant,
    /// The pause before the next try.
    pause: Duration,
}

/// The writer thread's state.
struct Writer<'a> {
    storage: Box<dyn Storage>,
    metrics: &'a Metrics,
    health: &'a StorageHealth,
    /// How long a failing commit is tried before it is given up.
    give_up_after: Duration,
    failure: Option<Failure>,
    /// Rooms whose writes were given up and which have not read themselves back since: what
    /// they sent before they heard is dropped.
    fenced: HashSet<String>,
    /// Rooms another node took over (the database refused their writes): whatever they still
    /// send is dropped.
    moved: HashSet<String>,
    /// New rooms whose creation was given up, until the creator asks.
    lost_creations: HashSet<String>,
}

/// What became of a commit.
enum Committed {
    /// Stored.
    Stored,
    /// Storage failed for longer than the storage timeout: the batch is given up.
    GivenUp,
    /// The database refused the batch, whole, for this room's writes (fencing): it goes on
    /// without them.
    Moved(String),
}

impl Writer<'_> {
    /// Commits `writes` (of which `queued` are the rooms'), trying a failed commit again with a
    /// growing pause: stored, given up if storage has been failing for longer than
    /// [`Writer::give_up_after`] and the batch was tried at least once, or refused for a room
    /// that moved to another node. A failure is logged once, when it begins, and once more when
    /// it ends; each failed try is counted.
    fn commit(&mut self, writes: &[Write], queued: usize) -> Committed {
        let began = Instant::now();
        let mut tried = false;
        loop {
            if let Some(failure) = &mut self.failure {
                let failing_for = failure.since.elapsed();
                let past = failing_for >= self.give_up_after;
                if past && tried {
                    return Committed::GivenUp;
                }
                // Within the bound, the last try falls on it, so that nothing is given up later
                // than it must be.
                let pause = match past {
                    true => failure.pause,
                    false => failure.pause.min(self.give_up_after - failing_for),
                };
                std::thread::sleep(pause);
                failure.pause = (failure.pause * 2).min(RETRY_MOST);
            }
            tried = true;
            self.health.commit_begins();
            let result = self.storage.write(writes);
            if let Err(StorageError::Moved { room }) = &result {
                if writes.iter().any(|w| w.room() == Some(room.as_str())) {
                    // The database answered: storage works, and nothing of the batch is in.
                    self.health.commit_ended(Some(0));
                    return Committed::Moved(room.clone());
                }
            }
            self.health.commit_ended(result.is_ok().then_some(queued));
            let Err(error) = result else {
                break;
            };
            self.metrics.storage.errors.inc();
            if self.failure.is_none() {
                self.failure = Some(Failure {
                    since: Instant::now(),
                    pause: RETRY_FIRST,
                });
                self.metrics.storage.failures.inc();
                tracing::error!(
                    error = %Chain(&error),
                    held = self.health.held(),
                    give_up_after_seconds = self.give_up_after.as_secs_f64(),
                    "storage failed: rooms take no new writes; what they hold is retried, and given up if storage still fails after the storage timeout"
                );
            }
        }
        if let Some(failure) = self.failure.take() {
            tracing::info!(
                after_seconds = failure.since.elapsed().as_secs_f64(),
                writes = writes.len(),
                "storage works again: what was held is stored and delivered"
            );
        }
        self.metrics.storage_commit(writes.len(), began.elapsed());
        self.metrics.storage.queued_writes.dec_by(queued as i64);
        Committed::Stored
    }

    /// Takes `room`'s writes out of the batch (the database refused them: another node holds the
    /// room now), tells the room, and drops whatever it sends from now on.
    fn move_out(&mut self, batch: &mut Batch, room: &str) {
        let before = batch.writes.len();
        batch.writes.retain(|w| w.room() != Some(room));
        let removed = before - batch.writes.len();
        batch.queued -= removed;
        self.dropped(removed);
        batch.reports.retain(|(of, to)| {
            let moved = of.as_deref() == Some(room);
            if moved {
                let _ = to.0.send(Report::Moved);
            }
            !moved
        });
        self.moved.insert(room.to_owned());
        tracing::warn!(
            room,
            writes = removed,
            "the database refused this room's writes: another node holds its lease now; it stops serving here"
        );
    }

    /// The batch `writes` (of which `queued` are the rooms') was given up: its rooms are fenced
    /// until they read themselves back, and each hears so.
    fn give_up(&mut self, writes: &[Write], queued: usize, reports: Vec<Waiting>) {
        let before = self.fenced.len();
        for write in writes {
            if let Write::CreateRoom { room, .. } = write {
                self.lost_creations.insert(room.clone());
            }
            if let Some(room) = write.room() {
                self.fenced.insert(room.to_owned());
            }
        }
        tracing::warn!(
            writes = queued,
            rooms = self.fenced.len() - before,
            "storage still fails after the storage timeout: these writes are given up, and their rooms go back to what is stored"
        );
        self.dropped(queued);
        for (_, (room, _)) in reports {
            let _ = room.send(Report::Lost);
        }
    }

    /// `count` of the rooms' writes will never be committed.
    fn dropped(&self, count: usize) {
        self.health.given_up(count);
        self.metrics.storage.queued_writes.dec_by(count as i64);
    }

    /// What is to become of `writes` (one request's writes are all one room's) from a room
    /// whose earlier writes were given up, or that moved to another node: dropped, with the
    /// room told so again.
    fn refusal(&self, writes: &[Write]) -> Option<Report> {
        let room = writes.iter().find_map(Write::room)?;
        if self.moved.contains(room) {
            Some(Report::Moved)
        } else {
            self.fenced.contains(room).then_some(Report::Lost)
        }
    }
}

/// A room waiting to hear what became of its writes: the room (if its writes name it), and
/// where it hears.
type Waiting = (Option<String>, ReportTo);

/// What one round of the writer gathered: every request waiting, up to [`MAX_BATCH`].
#[derive(Default)]
struct Batch {
    /// Everything to commit, in one transaction.
    writes: Vec<Write>,
    /// How many of the writes are the rooms' (not the writer's own stamp).
    queued: usize,
    /// The rooms to tell what became of their writes.
    reports: Vec<Waiting>,
    /// Room reads, answered after this batch's commit: the log must hold every write queued
    /// before them.
    room_reads: Vec<(String, RoomReply)>,
    /// Questions whether a creation was stored, answered after the commit too.
    creations: Vec<(String, oneshot::Sender<bool>)>,
    /// Set when the writer is to stop after this batch.
    stop: Option<oneshot::Sender<bool>>,
}

impl Writer<'_> {
    /// Gathers `first` and whatever else waits into one batch. Game reads are answered at once;
    /// a fenced room's writes are dropped, and it hears so.
    fn gather(&mut self, first: Request, rx: &std_mpsc::Receiver<Request>) -> Batch {
        let mut batch = Batch::default();
        let mut next = Some(first);
        let mut gathered = 0;
        while let Some(request) = next.take() {
            match request {
                Request::Write { writes, report } => match self.refusal(&writes) {
                    Some(refusal) => {
                        self.dropped(writes.len());
                        if let Some((room, _)) = report {
                            let _ = room.send(refusal);
                        }
                    }
                    None => {
                        let room = writes.iter().find_map(Write::room).map(str::to_owned);
                        batch.queued += writes.len();
                        batch.writes.extend(writes);
                        batch.reports.extend(report.map(|to| (room, to)));
                    }
                },
                Request::Game { id, reply } => {
                    let _ = reply.send(self.storage.game(&id));
                }
                Request::Room { id, reply } => batch.room_reads.push((id, reply)),
                Request::Created { room, reply } => batch.creations.push((room, reply)),
                Request::Stop { done } => {
                    batch.stop = Some(done);
                    break;
                }
            }
            gathered += 1;
            if gathered < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        batch
    }

    /// Commits the batch's writes and tells each room what became of its own; then answers the
    /// reads that waited for the commit. Whether everything was stored.
    fn settle(&mut self, batch: &mut Batch) -> bool {
        let stored = loop {
            if batch.writes.is_empty() {
                break true;
            }
            match self.commit(&batch.writes, batch.queued) {
                Committed::Stored => break true,
                Committed::GivenUp => break false,
                Committed::Moved(room) => self.move_out(batch, &room),
            }
        };
        let reports = std::mem::take(&mut batch.reports);
        if stored {
            for (_, (room, upto)) in reports {
                let _ = room.send(Report::Durable(upto));
            }
        } else {
            self.give_up(&batch.writes, batch.queued, reports);
        }
        for (id, reply) in batch.room_reads.drain(..) {
            self.fenced.remove(&id);
            let _ = reply.send(self.storage.room(&id));
        }
        for (room, reply) in batch.creations.drain(..) {
            let _ = reply.send(!self.lost_creations.remove(&room));
        }
        stored
    }
}

fn run(
    storage: Box<dyn Storage>,
    rx: &std_mpsc::Receiver<Request>,
    metrics: &Metrics,
    health: &StorageHealth,
) {
    let mut writer = Writer {
        storage,
        metrics,
        health,
        give_up_after: health.timeout(),
        failure: None,
        fenced: HashSet::new(),
        moved: HashSet::new(),
        lost_creations: HashSet::new(),
    };
    let mut last_alive = Instant::now() - ALIVE_EVERY;
    let mut last_maintained = Instant::now();
    loop {
        let mut batch = match rx.recv_timeout(ALIVE_EVERY) {
            Ok(request) => writer.gather(request, rx),
            Err(std_mpsc::RecvTimeoutError::Timeout) => Batch::default(),
            Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
        };
        // A stop stamps the moment too: the next start counts the time the server was down
        // from the very end of this run.
        if last_alive.elapsed() >= ALIVE_EVERY || batch.stop.is_some() {
            batch.writes.push(Write::Alive { at: now_ms() });
            last_alive = Instant::now();
        }
        let stored = writer.settle(&mut batch);
        // After the rooms heard back, so that housekeeping never delays what they hold.
        if last_maintained.elapsed() >= ALIVE_EVERY && writer.failure.is_none() {
            last_maintained = Instant::now();
            if let Err(error) = writer.storage.maintain() {
                tracing::warn!(error = %Chain(&error), "storage housekeeping failed; will try again");
            }
        }
        if let Some(done) = batch.stop {
            // Closed before the answer, so that a process that exits right after finds its file
            // whole and checkpointed (SQLite folds the WAL back into it on close).
            drop(writer);
            let _ = done.send(stored);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A store that fails while told to, refuses the writes of a room that moved as PostgreSQL's
    /// fencing does (the whole batch), and remembers the records it committed.
    #[derive(Clone, Default)]
    struct Flaky {
        failing: Arc<AtomicBool>,
        moved: Arc<Mutex<Option<String>>>,
        committed: Arc<Mutex<Vec<String>>>,
    }

    impl Storage for Flaky {
        fn load(&mut self) -> Result<super::super::Loaded, StorageError> {
            Ok(super::super::Loaded::default())
        }
        fn room(&mut self, _: &str) -> Result<Option<RoomLog>, StorageError> {
            Ok(None)
        }
        fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
            if self.failing.load(Ordering::Relaxed) {
                return Err(StorageError::database(std::io::Error::other("disk full")));
            }
            if let Some(room) = self.moved.lock().unwrap().clone() {
                if writes.iter().any(|w| w.room() == Some(room.as_str())) {
                    return Err(StorageError::Moved { room });
                }
            }
            let mut committed = self.committed.lock().unwrap();
            for write in writes {
                if let Write::Record { body, .. } = write {
                    committed.push(body.clone());
                }
            }
            Ok(())
        }
        fn game(&mut self, _: &str) -> Result<Option<ArchivedGame>, StorageError> {
            Ok(None)
        }
    }

    fn record(room: &str, body: &str) -> Vec<Write> {
        vec![Write::Record {
            room: room.into(),
            at: 0,
            body: body.into(),
            v: None,
            epoch: None,
        }]
    }

    #[tokio::test]
    async fn a_given_up_room_takes_no_writes_until_it_has_read_itself_back() {
        let flaky = Flaky::default();
        let health = StorageHealth::new(100, Duration::from_millis(50));
        let handle =
            StorageHandle::start(Box::new(flaky.clone()), Arc::new(Metrics::new()), health);
        let (tx, mut reports) = mpsc::unbounded_channel();
        flaky.failing.store(true, Ordering::Relaxed);
        handle.write(&mut record("a", "1"), Some((tx.clone(), 1)));
        handle.write(
            &mut vec![Write::CreateRoom {
                room: "b".into(),
                at: 0,
            }],
            None,
        );
        assert_eq!(reports.recv().await, Some(Report::Lost), "given up");
        assert!(!handle.created("b").await.unwrap(), "never stored");

        // Storage works again, but what the room sent before it read itself back followed
        // what was lost: it is dropped.
        flaky.failing.store(false, Ordering::Relaxed);
        handle.write(&mut record("a", "2"), Some((tx.clone(), 2)));
        assert_eq!(reports.recv().await, Some(Report::Lost));
        handle.room("a").await.unwrap();
        handle.write(&mut record("a", "3"), Some((tx.clone(), 3)));
        handle.write(&mut record("c", "4"), None);
        assert_eq!(reports.recv().await, Some(Report::Durable(3)));
        assert!(handle.stop().await, "the last commit stored everything");
        assert_eq!(*flaky.committed.lock().unwrap(), ["3", "4"]);
    }

    #[tokio::test]
    async fn a_room_that_moved_hears_so_and_the_rest_of_its_batch_is_stored() {
        let flaky = Flaky::default();
        let health = StorageHealth::new(100, Duration::from_secs(5));
        let handle =
            StorageHandle::start(Box::new(flaky.clone()), Arc::new(Metrics::new()), health);
        *flaky.moved.lock().unwrap() = Some("a".into());
        let (to_a, mut a_hears) = mpsc::unbounded_channel();
        let (to_b, mut b_hears) = mpsc::unbounded_channel();
        handle.write(&mut record("a", "a1"), Some((to_a.clone(), 1)));
        handle.write(&mut record("b", "b1"), Some((to_b.clone(), 1)));
        assert_eq!(a_hears.recv().await, Some(Report::Moved));
        assert_eq!(b_hears.recv().await, Some(Report::Durable(1)));
        // What the room still sends is dropped, and it hears so again; storage works.
        handle.write(&mut record("a", "a2"), Some((to_a, 2)));
        assert_eq!(a_hears.recv().await, Some(Report::Moved));
        assert_eq!(handle.health(), Ok(()));
        assert!(handle.stop().await);
        assert_eq!(*flaky.committed.lock().unwrap(), ["b1"]);
    }
}
