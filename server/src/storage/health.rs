//! Whether storage takes writes now: what rooms ask before they change anything, and what
//! `/readyz` reports. The writer thread keeps it. A commit that fails makes storage failing until
//! one succeeds; a commit that has taken longer than the storage timeout makes it stalled while it
//! lasts (a disk that hangs never fails); writes queued up to the cap make it full. While it is
//! any of these, rooms refuse what would need a write (`storage_unavailable`), so that what they
//! hold for storage stays bounded, and nothing is ever shown that is not stored.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Why storage takes no writes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StorageDown {
    /// The last commit failed (disk full, an I/O error, the file gone): it is being retried.
    #[error("storage is failing; what it holds is retried")]
    Failing,
    /// A commit has been running for longer than the storage timeout.
    #[error("storage is not answering")]
    Stalled,
    /// As many writes wait for storage as may.
    #[error("storage is behind: as many writes wait for it as may")]
    Full,
    /// Not a state [`StorageHealth::check`] reports, but what a room tells the requests whose
    /// writes storage gave up after failing for longer than the storage timeout.
    #[error("storage failed for longer than it may, and this was not stored")]
    GaveUp,
}

/// Storage's state, shared by the writer thread and every room.
#[derive(Debug)]
pub(crate) struct StorageHealth {
    /// Set by a failed commit, cleared by the next one that succeeds.
    failing: AtomicBool,
    /// When the commit in progress began, in milliseconds since `base`, plus one (0: none).
    commit_began: AtomicU64,
    /// Writes handed over and not yet committed.
    queued: AtomicUsize,
    /// The most writes that may wait.
    max_queued: usize,
    /// How long a commit may take before storage counts as stalled.
    timeout: Duration,
    base: Instant,
}

impl StorageHealth {
    /// Storage that works, holds nothing yet, and may hold `max_queued` writes; a commit longer
    /// than `timeout` stalls it.
    pub(crate) fn new(max_queued: usize, timeout: Duration) -> StorageHealth {
        StorageHealth {
            failing: AtomicBool::new(false),
            commit_began: AtomicU64::new(0),
            queued: AtomicUsize::new(0),
            max_queued,
            timeout,
            base: Instant::now(),
        }
    }

    /// Whether storage takes writes now, or why not.
    pub(crate) fn check(&self) -> Result<(), StorageDown> {
        self.check_at(self.now_ms())
    }

    /// [`StorageHealth::check`] at `now` (milliseconds since `base`).
    fn check_at(&self, now: u64) -> Result<(), StorageDown> {
        if self.failing.load(Ordering::Relaxed) {
            return Err(StorageDown::Failing);
        }
        let began = self.commit_began.load(Ordering::Relaxed);
        if began != 0 && now.saturating_sub(began - 1) > self.timeout.as_millis() as u64 {
            return Err(StorageDown::Stalled);
        }
        if self.queued.load(Ordering::Relaxed) >= self.max_queued {
            return Err(StorageDown::Full);
        }
        Ok(())
    }

    /// How many writes wait for storage.
    pub(crate) fn held(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    /// `count` writes were handed to the writer.
    pub(crate) fn queued(&self, count: usize) {
        self.queued.fetch_add(count, Ordering::Relaxed);
    }

    /// `count` of the writes handed over were given up: they will never be committed.
    pub(crate) fn given_up(&self, count: usize) {
        self.queued.fetch_sub(count, Ordering::Relaxed);
    }

    /// How long a commit may take before storage counts as stalled, and how long a failing one
    /// is tried before it is given up.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The writer begins a commit.
    pub(crate) fn commit_begins(&self) {
        self.commit_began
            .store(self.now_ms() + 1, Ordering::Relaxed);
    }

    /// The commit ended: it failed, or it committed `count` of the writes handed over.
    pub(crate) fn commit_ended(&self, committed: Option<usize>) {
        self.commit_began.store(0, Ordering::Relaxed);
        match committed {
            Some(count) => {
                self.failing.store(false, Ordering::Relaxed);
                self.queued.fetch_sub(count, Ordering::Relaxed);
            }
            None => self.failing.store(true, Ordering::Relaxed),
        }
    }

    fn now_ms(&self) -> u64 {
        self.base.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_stalled_and_full_each_stop_writes_until_they_end() {
        let health = StorageHealth::new(3, Duration::from_secs(2));
        assert_eq!(health.check(), Ok(()));
        health.queued(3);
        assert_eq!(health.check(), Err(StorageDown::Full));
        health.commit_begins();
        let began = health.now_ms();
        assert_eq!(
            health.check_at(began + 2_000),
            Err(StorageDown::Full),
            "within the timeout"
        );
        assert_eq!(
            health.check_at(began + 2_001),
            Err(StorageDown::Stalled),
            "a commit over the timeout"
        );
        health.commit_ended(None);
        assert_eq!(health.check(), Err(StorageDown::Failing));
        health.commit_begins();
        health.commit_ended(Some(3));
        assert_eq!(health.check(), Ok(()), "a commit that succeeds ends it all");
    }
}
