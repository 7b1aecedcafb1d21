//! The journal: what the room hands to storage. Every change is a record, appended here and
//! handed to the writer in one batch per turn of the room's task; the writer reports back the
//! version it made durable, which is what lets [`super::delivery`] show what depends on it.

use tokio::sync::mpsc;

use crate::storage::writer::{Report, StorageHandle, Written};
use crate::storage::{ArchivedGame, Write};

/// A room's writes on their way to storage.
pub(crate) struct Journal {
    /// The room the writes are for.
    room: String,
    /// On a node of a cluster, the epoch of the room's lease, which every write carries.
    epoch: Option<u64>,
    storage: StorageHandle,
    /// Writes made since the last hand-over to the writer.
    writes: Vec<Write>,
    /// The version last handed to the writer: a restart resumes numbering from it, so that no
    /// client ever holds a version the restored room has not reached.
    stored_version: u64,
    /// The writer reports here what became of the writes.
    reports: mpsc::UnboundedReceiver<Report>,
    reports_tx: mpsc::UnboundedSender<Report>,
}

impl Journal {
    /// An empty journal for `room`, whose writes carry `epoch` (a lease's, on a node of a
    /// cluster).
    pub(crate) fn new(room: String, storage: StorageHandle, epoch: Option<u64>) -> Journal {
        let (reports_tx, reports) = mpsc::unbounded_channel();
        Journal {
            room,
            epoch,
            storage,
            writes: Vec::new(),
            stored_version: 0,
            reports,
            reports_tx,
        }
    }

    /// The room is new: its row comes before anything else about it.
    pub(crate) fn create_room(&mut self, at: u64) {
        self.writes.push(Write::CreateRoom {
            room: self.room.clone(),
            at,
        });
    }

    /// Appends a record (its JSON) made at `at` (ms since the epoch).
    pub(crate) fn append(&mut self, body: String, at: u64) {
        self.writes.push(Write::Record {
            room: self.room.clone(),
            at,
            body,
            v: None,
            epoch: self.epoch,
        });
    }

    /// Appends a finished game to the archive.
    pub(crate) fn archive(&mut self, game: ArchivedGame) {
        self.writes.push(Write::Archive(game));
    }

    /// A restored room: storage already holds everything up to `version`.
    pub(crate) fn resume_at(&mut self, version: u64) {
        self.writes.clear();
        self.stored_version = version;
    }

    /// The epoch the room's writes carry.
    pub(crate) fn epoch(&self) -> Option<u64> {
        self.epoch
    }

    /// The version last handed to the writer.
    pub(crate) fn stored_version(&self) -> u64 {
        self.stored_version
    }

    /// Hands the writes made so far, and the room's `version`, to the writer: [`Written::Now`]
    /// if they are durable already, else the writer reports `version` once they are, or that
    /// they were lost ([`Written::Later`], also when there was nothing to write).
    pub(crate) fn hand_over(&mut self, version: u64) -> Written {
        if self.writes.is_empty() && self.stored_version == version {
            return Written::Later;
        }
        if self.stored_version != version {
            // The version rides on the last record (no write of its own) when there is one.
            let last_record = self.writes.iter_mut().rev().find_map(|w| match w {
                Write::Record { v, .. } => Some(v),
                _ => None,
            });
            match last_record {
                Some(v) => *v = Some(version),
                None => self.writes.push(Write::Version {
                    room: self.room.clone(),
                    v: version,
                    epoch: self.epoch,
                }),
            }
            self.stored_version = version;
        }
        self.storage
            .write(&mut self.writes, Some((self.reports_tx.clone(), version)))
    }

    /// The writer's next report: a version made durable, or writes lost.
    pub(crate) async fn report(&mut self) -> Option<Report> {
        self.reports.recv().await
    }

    /// The room ends: storage forgets it (what it wrote before stays, in order).
    pub(crate) fn close_room(&mut self, at: u64) {
        let close = Write::CloseRoom {
            room: self.room.clone(),
            at,
            epoch: self.epoch,
        };
        self.storage.write(&mut vec![close], None);
    }
}
