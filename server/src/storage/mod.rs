//! Storage: every accepted room event, durable before anyone hears of it, and the archive of
//! finished games.
//!
//! Rooms hand their records to one writer thread (`writer`), which gathers the records of every
//! room that arrive together and commits them in one transaction (group commit), then tells each
//! room how far it is durable. A room's task never waits for the disk: it holds back what it would
//! send until its records are committed, and goes on taking commands meanwhile.
//!
//! [`Storage`] is the interface; [`sqlite::SqliteStorage`] keeps everything in one SQLite file
//! (WAL mode), [`postgres::PostgresStorage`] in a PostgreSQL database, [`memory::MemoryStorage`]
//! in memory (tests, and a server that needs no durability).

pub mod contents;
pub(crate) mod health;
pub mod leases;
pub mod memory;
pub mod postgres;
pub mod sqlite;
pub(crate) mod writer;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What went wrong with storage.
#[derive(Debug, Error)]
pub enum StorageError {
    /// The database file could not be opened or used: which file, what is wrong with it, and
    /// what the system or SQLite said, if it said anything.
    #[error("database {path} {problem}")]
    File {
        /// The file.
        path: String,
        /// What is wrong with it.
        problem: FileProblem,
        /// What the system or the database library reported.
        #[source]
        cause: Option<Cause>,
    },
    /// The PostgreSQL database cannot be used: which one (its URL without the password), what
    /// is wrong, and what the driver said.
    #[error("database {target} {problem}")]
    Server {
        /// The database's URL, without its password.
        target: String,
        /// What is wrong with it.
        problem: postgres::DatabaseProblem,
        /// What the driver reported.
        #[source]
        cause: Option<Cause>,
    },
    /// A database operation failed.
    #[error("database error")]
    Database(#[source] Cause),
    /// A database to be filled (`fourkings migrate --to`) already holds rooms or games.
    #[error("database {target} already holds rooms or games: it is not overwritten")]
    NotEmpty {
        /// The database (a file's path, or a URL without its password).
        target: String,
    },
    /// The storage thread has stopped (it was asked to, or it panicked).
    #[error("the storage thread has stopped")]
    Stopped,
    /// PostgreSQL refused a room's write: the epoch it was made under is not the epoch of the
    /// room's lease, which another node holds now (fencing). Nothing of the batch was written.
    #[error("room {room} has moved to another node: this node's lease on it is stale")]
    Moved {
        /// The room.
        room: String,
    },
}

/// What a storage error's source is: the system's or the database library's own error.
pub type Cause = Box<dyn std::error::Error + Send + std::marker::Sync>;

/// What is wrong with a database file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileProblem {
    /// The path names a directory or another kind of file.
    #[error("is not a file")]
    NotAFile,
    /// The file or its metadata cannot be read.
    #[error("cannot be read")]
    Unreadable,
    /// The server may not write the file.
    #[error("is read-only: the server must be able to write it")]
    ReadOnly,
    /// The file is shorter than its header says, or than a header.
    #[error("is truncated ({len} bytes, shorter than {expected})")]
    Truncated {
        /// The file's length.
        len: u64,
        /// What it should be at least: "a database header", or the length its header records.
        expected: String,
    },
    /// SQLite cannot open the file.
    #[error("cannot be opened")]
    CannotOpen,
    /// The file is not a SQLite database.
    #[error("is not a usable SQLite database")]
    NotSqlite,
    /// The database is damaged.
    #[error("is damaged")]
    Damaged,
    /// A newer build wrote the file.
    #[error(
        "was written by a newer version of Four Kings (schema {found}; this build knows up to {known})"
    )]
    Newer {
        /// The file's schema version.
        found: i64,
        /// The newest this build knows.
        known: usize,
    },
    /// A SQLite database of another program.
    #[error("is a SQLite database of something else, not Four Kings")]
    Foreign,
    /// The journal cannot be put in write-ahead mode.
    #[error("cannot use WAL mode (got {0})")]
    NoWal(String),
    /// A write to the file fails.
    #[error("cannot be written")]
    Unwritable,
    /// A migration of the schema fails.
    #[error("migration {0} failed")]
    Migration(usize),
    /// Setting the file up fails otherwise.
    #[error("cannot be set up")]
    Setup,
    /// The file was deleted (or moved away) while the server had it open: what is written goes
    /// into a file nobody can open again.
    #[error("is gone: it was deleted or moved while the server had it open")]
    Gone,
    /// Another file took its place while the server had it open.
    #[error("was replaced by another file while the server had it open")]
    Replaced,
}

impl StorageError {
    /// A failed database operation, from the library's error.
    pub fn database(cause: impl Into<Cause>) -> StorageError {
        StorageError::Database(cause.into())
    }
}

/// An error with its sources, one after the other (`error: source: its source`), for log lines
/// (which show an error's own message only).
pub(crate) struct Chain<'a>(pub(crate) &'a dyn std::error::Error);

impl std::fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(error) = source {
            write!(f, ": {error}")?;
            source = error.source();
        }
        Ok(())
    }
}

/// A finished game in the archive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedGame {
    /// The game's id (`<room>-<n>`).
    pub id: String,
    /// The room it was played in.
    pub room: String,
    /// When it ended, in milliseconds since the Unix epoch.
    pub finished_at: u64,
    /// `cross` (PGN4) or `classic` (PGN, Duo).
    pub board: String,
    /// The players' names by seat, as JSON.
    pub players: String,
    /// The room's settings, as JSON.
    pub settings: String,
    /// The result in words.
    pub result: String,
    /// The whole game as PGN4 (cross board) or PGN (Duo).
    pub text: String,
}

/// Everything stored about one open room.
#[derive(Clone, Debug, Default)]
pub struct RoomLog {
    /// The room id.
    pub id: String,
    /// Its records in order, each with the moment it was written (ms since the epoch).
    pub records: Vec<(u64, String)>,
    /// Its event version when its last records were written.
    pub version: u64,
}

/// Everything a starting server needs back.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The rooms still open.
    pub rooms: Vec<RoomLog>,
    /// The last moment the previous run was known to be alive (ms since the epoch).
    pub alive_at: Option<u64>,
}

/// One change to storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// A new room.
    CreateRoom {
        /// Its id.
        room: String,
        /// When (ms).
        at: u64,
    },
    /// A record of a room's state change.
    Record {
        /// The room.
        room: String,
        /// When (ms).
        at: u64,
        /// The record, as JSON.
        body: String,
        /// On the last record a room hands over at once: the room's event version after it, so
        /// that a restart numbers on from there. Published events themselves are not stored: a
        /// client that reconnects after a restart with an older version gets a snapshot.
        v: Option<u64>,
        /// The epoch of the room's lease the write is made under, on a node of a cluster
        /// ([`leases`]): PostgreSQL refuses it if the lease has moved on. `None` on a server alone.
        epoch: Option<u64>,
    },
    /// The room's event version, when it changed with no record to carry it.
    Version {
        /// The room.
        room: String,
        /// The version.
        v: u64,
        /// The epoch of the room's lease, as for [`Write::Record`].
        epoch: Option<u64>,
    },
    /// A finished game for the archive.
    Archive(ArchivedGame),
    /// A room that left memory: it is not loaded again (its games stay in the archive).
    CloseRoom {
        /// The room.
        room: String,
        /// When (ms).
        at: u64,
        /// The epoch of the room's lease, as for [`Write::Record`].
        epoch: Option<u64>,
    },
    /// The server is alive at this moment (ms), so that a restart knows when the last run stopped.
    Alive {
        /// When (ms).
        at: u64,
    },
}

impl Write {
    /// The room this write is about (`None` for the server's own `Alive` stamp).
    pub fn room(&self) -> Option<&str> {
        match self {
            Write::CreateRoom { room, .. }
            | Write::Record { room, .. }
            | Write::Version { room, .. }
            | Write::CloseRoom { room, .. } => Some(room),
            Write::Archive(game) => Some(&game.room),
            Write::Alive { .. } => None,
        }
    }
}

/// Where rooms and games are kept.
pub trait Storage: Send + 'static {
    /// Everything about the rooms still open, and when the last run was last alive.
    fn load(&mut self) -> Result<Loaded, StorageError>;
    /// Everything stored about one open room (`None` if it is not stored, or closed): what a
    /// room whose task failed is rebuilt from. Rare, so it may be slow.
    fn room(&mut self, id: &str) -> Result<Option<RoomLog>, StorageError>;
    /// Applies `writes` atomically: all of them or none.
    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError>;
    /// An archived game.
    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError>;
    /// Housekeeping, such as deleting what closed rooms no longer need. The writer calls it
    /// between commits, about once a second; an implementation decides whether anything is due.
    fn maintain(&mut self) -> Result<(), StorageError> {
        Ok(())
    }
    /// Whether a write only touches this process's memory and never waits (no disk, no
    /// network). Such a store is written on the room's own thread, under a lock, instead of on
    /// the writer thread: a hand-over to that thread and the answer back cost two thread
    /// wake-ups a move, which profiling showed to be a third of the game server's work under
    /// fan-out load. Nothing of it survives the process, so it needs no `Alive` stamps either.
    fn is_immediate(&self) -> bool {
        false
    }
}
