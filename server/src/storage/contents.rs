//! Everything a database holds, read out whole and written into another: what `fourkings migrate`
//! moves from a SQLite file into PostgreSQL and back.

use super::{ArchivedGame, StorageError, Write};

/// A room's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    /// Its id.
    pub id: String,
    /// When it was created (ms since the epoch).
    pub created_at: u64,
    /// When it left memory for good, if it has.
    pub closed_at: Option<u64>,
    /// Its event version as last written on its row.
    pub version: u64,
}

/// A record, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRecord {
    /// Its room.
    pub room: String,
    /// When it was written (ms since the epoch).
    pub at: u64,
    /// The record, as JSON.
    pub body: String,
    /// The room's event version after it, when it carried one.
    pub v: Option<u64>,
}

/// Everything a database holds: every room, open or closed, the records of the open ones in the
/// order written, the archive, and when its server was last alive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// The rooms, in the order they were created.
    pub rooms: Vec<StoredRoom>,
    /// The open rooms' records, in the order they were written.
    pub records: Vec<StoredRecord>,
    /// The finished games.
    pub games: Vec<ArchivedGame>,
    /// The last moment the server was known alive.
    pub alive_at: Option<u64>,
}

impl Contents {
    /// Whether it holds neither a room nor a game.
    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty() && self.games.is_empty()
    }

    /// What fills a store once its rooms are in: the records in order, the games, the stamp.
    pub(crate) fn writes_after_rooms(&self) -> Vec<Write> {
        let records = self.records.iter().map(|record| Write::Record {
            room: record.room.clone(),
            at: record.at,
            body: record.body.clone(),
            v: record.v,
            epoch: None,
        });
        let games = self.games.iter().cloned().map(Write::Archive);
        let alive = self.alive_at.map(|at| Write::Alive { at });
        records.chain(games).chain(alive).collect()
    }

    /// What a store read: its rooms, records and games, and its liveness stamp as stored (ms),
    /// without the records of closed rooms.
    pub(crate) fn as_read(
        rooms: Vec<StoredRoom>,
        records: Vec<StoredRecord>,
        games: Vec<ArchivedGame>,
        alive_at: Option<i64>,
    ) -> Contents {
        Contents {
            rooms,
            records,
            games,
            alive_at: alive_at.map(|at| at as u64),
        }
        .without_closed_rooms_records()
    }

    /// Drops the records of closed rooms, which no server reads again (SQLite deletes them in
    /// bulk now and then, so a file may still hold some).
    fn without_closed_rooms_records(mut self) -> Contents {
        let open: std::collections::HashSet<&str> = self
            .rooms
            .iter()
            .filter(|room| room.closed_at.is_none())
            .map(|room| room.id.as_str())
            .collect();
        let records = std::mem::take(&mut self.records)
            .into_iter()
            .filter(|record| open.contains(record.room.as_str()))
            .collect();
        Contents { records, ..self }
    }
}

/// A store whose whole contents can be read and written: the databases a server keeps its rooms
/// in.
pub trait Portable {
    /// Reads everything.
    fn contents(&mut self) -> Result<Contents, StorageError>;

    /// Writes `contents` into this store in one transaction; refuses ([`StorageError::NotEmpty`])
    /// a store that already holds a room or a game, so that nothing is overwritten or mixed.
    fn fill(&mut self, contents: &Contents) -> Result<(), StorageError>;
}
