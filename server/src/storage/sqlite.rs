//! Storage in one SQLite file, in WAL mode: opened or created at start-up, changed only through
//! numbered migrations, and never overwritten or silently replaced when something is wrong with it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::contents::{Contents, Portable, StoredRecord, StoredRoom};
use super::{ArchivedGame, Cause, FileProblem, Loaded, RoomLog, Storage, StorageError, Write};
use crate::config::StorageSync;

/// What is wrong with a file, and what reported it.
type Unusable = (FileProblem, Option<Cause>);

/// `problem`, as `cause` reported it.
fn because(problem: FileProblem, cause: impl Into<Cause>) -> Unusable {
    (problem, Some(cause.into()))
}

/// The schema, one migration per version: migration `i` takes the file from version `i` to
/// `i + 1`. Never edit one that has shipped; add the next.
const MIGRATIONS: &[&str] = &[
    // 1: rooms with their event version, their records, the archive, the liveness stamp.
    "CREATE TABLE rooms (
         id TEXT PRIMARY KEY,
         created_at INTEGER NOT NULL,
         closed_at INTEGER,
         version INTEGER NOT NULL DEFAULT 0
     );
     CREATE TABLE records (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         room TEXT NOT NULL REFERENCES rooms(id),
         at INTEGER NOT NULL,
         body TEXT NOT NULL
     );
     CREATE INDEX records_by_room ON records(room, id);
     CREATE TABLE games (
         id TEXT PRIMARY KEY,
         room TEXT NOT NULL,
         finished_at INTEGER NOT NULL,
         board TEXT NOT NULL,
         players TEXT NOT NULL,
         settings TEXT NOT NULL,
         result TEXT NOT NULL,
         text TEXT NOT NULL
     );
     CREATE TABLE alive (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         at INTEGER NOT NULL
     );",
    // 2: records are appended with no per-room index and carry the room's version, so that a
    // move costs one insert into pages the previous commit already wrote. (With the index, each
    // commit wrote an index page for every room in it: about three times the cost of the records
    // themselves.) Loading reads them in one pass; closed rooms' records are deleted in bulk now
    // and then instead of one room at a time.
    "CREATE TABLE records_2 (
         id INTEGER PRIMARY KEY,
         room TEXT NOT NULL REFERENCES rooms(id),
         at INTEGER NOT NULL,
         body TEXT NOT NULL,
         v INTEGER
     );
     INSERT INTO records_2 (id, room, at, body) SELECT id, room, at, body FROM records;
     DROP TABLE records;
     ALTER TABLE records_2 RENAME TO records;",
];

/// How long closed rooms' records may wait before they are deleted.
const PURGE_EVERY: Duration = Duration::from_secs(60);

/// One SQLite file.
pub struct SqliteStorage {
    connection: Connection,
    path: PathBuf,
    /// The opened file's device and inode, to notice the path naming another file (or none).
    identity: (u64, u64),
    /// Rooms closed since their records were last deleted.
    closed_since_purge: usize,
    last_purge: Instant,
}

impl std::fmt::Debug for SqliteStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStorage")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteStorage {
    /// Opens `path`, creating it if it does not exist, checking that it is a sound Four Kings
    /// database this build understands, and bringing its schema up to date.
    pub fn open(path: &Path, sync: StorageSync) -> Result<SqliteStorage, StorageError> {
        let name = path.display().to_string();
        let file_error = |(problem, cause): Unusable| StorageError::File {
            path: name.clone(),
            problem,
            cause,
        };
        let exists = path.exists();
        if exists {
            let meta = std::fs::metadata(path)
                .map_err(|e| file_error((FileProblem::Unreadable, Some(e.into()))))?;
            if !meta.is_file() {
                return Err(file_error((FileProblem::NotAFile, None)));
            }
            check_length(path, meta.len()).map_err(file_error)?;
            if meta.len() == 0 {
                // SQLite takes an empty file for an empty database. It may be a new file someone
                // made for the server, or a database that was lost: either way, an operator must
                // be able to tell from the log.
                tracing::warn!(
                    path = %name,
                    "the database file is empty (0 bytes): starting a new, empty database in it"
                );
            }
            if meta.permissions().readonly()
                || std::fs::OpenOptions::new().write(true).open(path).is_err()
            {
                return Err(file_error((FileProblem::ReadOnly, None)));
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags)
            .map_err(|e| file_error(because(FileProblem::CannotOpen, e)))?;
        let identity = std::fs::metadata(path)
            .map(|meta| file_identity(&meta))
            .map_err(|e| file_error((FileProblem::Unreadable, Some(e.into()))))?;
        let mut storage = SqliteStorage {
            connection,
            identity,
            path: path.to_owned(),
            closed_since_purge: 0,
            last_purge: Instant::now(),
        };
        storage.check(exists).map_err(file_error)?;
        storage.configure(sync).map_err(file_error)?;
        storage.migrate().map_err(file_error)?;
        storage.purge_closed().map_err(|e| StorageError::File {
            path: name.clone(),
            problem: FileProblem::Setup,
            cause: Some(e.into()),
        })?;
        Ok(storage)
    }

    /// Refuses a file that is not a database, is damaged, or comes from a newer build.
    fn check(&self, existed: bool) -> Result<(), Unusable> {
        let version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseCorrupt) => because(FileProblem::Damaged, e),
                _ => because(FileProblem::NotSqlite, e),
            })?;
        if version > MIGRATIONS.len() as i64 {
            let known = MIGRATIONS.len();
            return Err((
                FileProblem::Newer {
                    found: version,
                    known,
                },
                None,
            ));
        }
        if existed {
            let verdict: String = self
                .connection
                .query_row("PRAGMA quick_check", [], |row| row.get(0))
                .map_err(|e| because(FileProblem::Damaged, e))?;
            if verdict != "ok" {
                return Err((FileProblem::Damaged, Some(verdict.into())));
            }
            if version == 0 && self.has_tables()? {
                return Err((FileProblem::Foreign, None));
            }
        }
        Ok(())
    }

    fn has_tables(&self) -> Result<bool, Unusable> {
        self.connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| n > 0)
            .map_err(|e| because(FileProblem::NotSqlite, e))
    }

    fn configure(&self, sync: StorageSync) -> Result<(), Unusable> {
        let mode: String = self
            .connection
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|e| because(FileProblem::Setup, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err((FileProblem::NoWal(mode), None));
        }
        let synchronous = match sync {
            StorageSync::Full => "FULL",
            StorageSync::Normal => "NORMAL",
        };
        self.connection
            .execute_batch(&format!(
                "PRAGMA synchronous = {synchronous}; PRAGMA foreign_keys = ON;"
            ))
            .map_err(|e| because(FileProblem::Setup, e))?;
        // A write proves the file and its directory (for the WAL) are writable.
        self.connection
            .execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
            .map_err(|e| because(FileProblem::Unwritable, e))
    }

    /// Applies the migrations the file has not had, each in its own transaction.
    fn migrate(&self) -> Result<(), Unusable> {
        let version: usize = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))
            .map_err(|e| because(FileProblem::Setup, e))? as usize;
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            let sql = format!(
                "BEGIN; {migration}; PRAGMA user_version = {}; COMMIT;",
                i + 1
            );
            self.connection
                .execute_batch(&sql)
                .map_err(|e| because(FileProblem::Migration(i + 1), e))?;
        }
        Ok(())
    }

    /// Deletes the records of closed rooms (their games stay in the archive); returns how many.
    pub fn purge_closed(&mut self) -> Result<usize, StorageError> {
        let deleted = self
            .connection
            .execute(
                "DELETE FROM records WHERE room IN (SELECT id FROM rooms WHERE closed_at IS NOT NULL)",
                [],
            )
            .map_err(Self::db)?;
        self.closed_since_purge = 0;
        self.last_purge = Instant::now();
        Ok(deleted)
    }

    /// Whether the path still names the file opened (same device and inode).
    fn check_identity(&self) -> Result<(), StorageError> {
        let problem = match std::fs::metadata(&self.path) {
            Err(_) => FileProblem::Gone,
            Ok(meta) if file_identity(&meta) != self.identity => FileProblem::Replaced,
            Ok(_) => return Ok(()),
        };
        Err(StorageError::File {
            path: self.path.display().to_string(),
            problem,
            cause: None,
        })
    }

    // Taken by value so that it reads `map_err(Self::db)`.
    #[allow(clippy::needless_pass_by_value)]
    fn db(e: rusqlite::Error) -> StorageError {
        StorageError::database(e)
    }
}

impl Storage for SqliteStorage {
    fn load(&mut self) -> Result<Loaded, StorageError> {
        let c = &self.connection;
        let alive_at: Option<i64> = c
            .query_row("SELECT at FROM alive WHERE id = 1", [], |row| row.get(0))
            .optional()
            .map_err(Self::db)?;
        let mut rooms_query = c
            .prepare(
                "SELECT id, version FROM rooms WHERE closed_at IS NULL ORDER BY created_at, id",
            )
            .map_err(Self::db)?;
        let mut rooms: Vec<RoomLog> = rooms_query
            .query_map([], |row| {
                Ok(RoomLog {
                    id: row.get(0)?,
                    records: Vec::new(),
                    version: row.get::<_, i64>(1)? as u64,
                })
            })
            .map_err(Self::db)?
            .collect::<Result<_, _>>()
            .map_err(Self::db)?;
        let index: HashMap<String, usize> = rooms
            .iter()
            .enumerate()
            .map(|(i, room)| (room.id.clone(), i))
            .collect();
        // One pass over every record, in the order written.
        let mut records_query = c
            .prepare("SELECT room, at, body, v FROM records ORDER BY id")
            .map_err(Self::db)?;
        let mut rows = records_query.query([]).map_err(Self::db)?;
        while let Some(row) = rows.next().map_err(Self::db)? {
            let room: String = row.get(0).map_err(Self::db)?;
            let Some(&i) = index.get(&room) else {
                // A closed room's, not yet deleted.
                continue;
            };
            let log = &mut rooms[i];
            log.records.push((
                row.get::<_, i64>(1).map_err(Self::db)? as u64,
                row.get(2).map_err(Self::db)?,
            ));
            if let Some(v) = row.get::<_, Option<i64>>(3).map_err(Self::db)? {
                log.version = log.version.max(v as u64);
            }
        }
        Ok(Loaded {
            rooms,
            alive_at: alive_at.map(|a| a as u64),
        })
    }

    fn room(&mut self, id: &str) -> Result<Option<RoomLog>, StorageError> {
        let c = &self.connection;
        let version: Option<i64> = c
            .query_row(
                "SELECT version FROM rooms WHERE id = ?1 AND closed_at IS NULL",
                [id],
                |row| row.get(0),
            )
            .optional()
            .map_err(Self::db)?;
        let Some(version) = version else {
            return Ok(None);
        };
        let mut log = RoomLog {
            id: id.to_owned(),
            records: Vec::new(),
            version: version as u64,
        };
        // Records have no index by room (see the schema): this reads them all, which is fine for
        // a room rebuilt after its task failed, and keeps every move's insert cheap.
        let mut query = c
            .prepare_cached("SELECT at, body, v FROM records WHERE room = ?1 ORDER BY id")
            .map_err(Self::db)?;
        let mut rows = query.query([id]).map_err(Self::db)?;
        while let Some(row) = rows.next().map_err(Self::db)? {
            log.records.push((
                row.get::<_, i64>(0).map_err(Self::db)? as u64,
                row.get(1).map_err(Self::db)?,
            ));
            if let Some(v) = row.get::<_, Option<i64>>(2).map_err(Self::db)? {
                log.version = log.version.max(v as u64);
            }
        }
        Ok(Some(log))
    }

    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
        // A commit into a file that was deleted or replaced would be lost at the next start:
        // refused, so that storage counts as failing (and the writes stay held) until the file
        // is put back.
        self.check_identity()?;
        let tx = self.connection.transaction().map_err(Self::db)?;
        let closed = write_in(&tx, writes)?;
        tx.commit().map_err(Self::db)?;
        self.closed_since_purge += closed;
        Ok(())
    }

    fn maintain(&mut self) -> Result<(), StorageError> {
        // A bulk delete scans every record, so it waits until rooms have closed and a while has
        // passed; a closed room's records are skipped on load meanwhile.
        if self.closed_since_purge > 0 && self.last_purge.elapsed() >= PURGE_EVERY {
            self.purge_closed()?;
        }
        Ok(())
    }

    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        self.connection
            .query_row(
                "SELECT id, room, finished_at, board, players, settings, result, text FROM games WHERE id = ?1",
                [id],
                archived_game,
            )
            .optional()
            .map_err(Self::db)
    }
}

impl Portable for SqliteStorage {
    fn contents(&mut self) -> Result<Contents, StorageError> {
        let c = &self.connection;
        let mut rooms = c
            .prepare("SELECT id, created_at, closed_at, version FROM rooms ORDER BY rowid")
            .map_err(Self::db)?;
        let rooms = rooms
            .query_map([], |row| {
                Ok(StoredRoom {
                    id: row.get(0)?,
                    created_at: row.get::<_, i64>(1)? as u64,
                    closed_at: row.get::<_, Option<i64>>(2)?.map(|at| at as u64),
                    version: row.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(Self::db)?
            .collect::<Result<_, _>>()
            .map_err(Self::db)?;
        let mut records = c
            .prepare("SELECT room, at, body, v FROM records ORDER BY id")
            .map_err(Self::db)?;
        let records = records
            .query_map([], |row| {
                Ok(StoredRecord {
                    room: row.get(0)?,
                    at: row.get::<_, i64>(1)? as u64,
                    body: row.get(2)?,
                    v: row.get::<_, Option<i64>>(3)?.map(|v| v as u64),
                })
            })
            .map_err(Self::db)?
            .collect::<Result<_, _>>()
            .map_err(Self::db)?;
        let mut games = c
            .prepare(
                "SELECT id, room, finished_at, board, players, settings, result, text
                 FROM games ORDER BY finished_at, id",
            )
            .map_err(Self::db)?;
        let games = games
            .query_map([], archived_game)
            .map_err(Self::db)?
            .collect::<Result<_, _>>()
            .map_err(Self::db)?;
        let alive_at: Option<i64> = c
            .query_row("SELECT at FROM alive WHERE id = 1", [], |row| row.get(0))
            .optional()
            .map_err(Self::db)?;
        Ok(Contents::as_read(rooms, records, games, alive_at))
    }

    fn fill(&mut self, contents: &Contents) -> Result<(), StorageError> {
        let tx = self.connection.transaction().map_err(Self::db)?;
        let held: i64 = tx
            .query_row(
                "SELECT (SELECT count(*) FROM rooms) + (SELECT count(*) FROM games)",
                [],
                |row| row.get(0),
            )
            .map_err(Self::db)?;
        if held > 0 {
            return Err(StorageError::NotEmpty {
                target: self.path.display().to_string(),
            });
        }
        for room in &contents.rooms {
            tx.execute(
                "INSERT INTO rooms (id, created_at, closed_at, version) VALUES (?1, ?2, ?3, ?4)",
                params![
                    room.id,
                    room.created_at as i64,
                    room.closed_at.map(|at| at as i64),
                    room.version as i64
                ],
            )
            .map_err(Self::db)?;
        }
        write_in(&tx, &contents.writes_after_rooms())?;
        tx.commit().map_err(Self::db)
    }
}

/// A game read from `SELECT id, room, finished_at, board, players, settings, result, text`.
fn archived_game(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArchivedGame> {
    Ok(ArchivedGame {
        id: row.get(0)?,
        room: row.get(1)?,
        finished_at: row.get::<_, i64>(2)? as u64,
        board: row.get(3)?,
        players: row.get(4)?,
        settings: row.get(5)?,
        result: row.get(6)?,
        text: row.get(7)?,
    })
}

/// Makes `writes` in `tx`; returns how many rooms they closed.
fn write_in(tx: &rusqlite::Transaction<'_>, writes: &[Write]) -> Result<usize, StorageError> {
    let mut closed = 0;
    let mut record = tx
        .prepare_cached("INSERT INTO records (room, at, body, v) VALUES (?1, ?2, ?3, ?4)")
        .map_err(SqliteStorage::db)?;
    let mut version = tx
        .prepare_cached("UPDATE rooms SET version = ?2 WHERE id = ?1")
        .map_err(SqliteStorage::db)?;
    for write in writes {
        match write {
            Write::CreateRoom { room, at } => {
                tx.execute(
                    "INSERT INTO rooms (id, created_at) VALUES (?1, ?2)",
                    params![room, *at as i64],
                )
                .map_err(SqliteStorage::db)?;
            }
            Write::Record {
                room, at, body, v, ..
            } => {
                record
                    .execute(params![room, *at as i64, body, v.map(|v| v as i64)])
                    .map_err(SqliteStorage::db)?;
            }
            Write::Version { room, v, .. } => {
                version
                    .execute(params![room, *v as i64])
                    .map_err(SqliteStorage::db)?;
            }
            Write::Archive(game) => {
                tx.execute(
                        "INSERT OR REPLACE INTO games (id, room, finished_at, board, players, settings, result, text)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        params![
                            game.id,
                            game.room,
                            game.finished_at as i64,
                            game.board,
                            game.players,
                            game.settings,
                            game.result,
                            game.text
                        ],
                    )
                    .map_err(SqliteStorage::db)?;
            }
            Write::CloseRoom { room, at, .. } => {
                tx.execute(
                    "UPDATE rooms SET closed_at = ?2 WHERE id = ?1",
                    params![room, *at as i64],
                )
                .map_err(SqliteStorage::db)?;
                // Its records go in the next purge (see `maintain`); its games stay.
                closed += 1;
            }
            Write::Alive { at } => {
                tx.execute(
                    "INSERT OR REPLACE INTO alive (id, at) VALUES (1, ?1)",
                    [*at as i64],
                )
                .map_err(SqliteStorage::db)?;
            }
        }
    }
    Ok(closed)
}

/// A file's device and inode: what stays the same while a path names the same file.
#[cfg(unix)]
fn file_identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// Elsewhere there is no inode to compare: only a file that is gone is noticed.
#[cfg(not(unix))]
fn file_identity(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Refuses a database file cut short, which SQLite itself may take for an empty database (and
/// then write a fresh schema over). The header's page count is trusted only when SQLite marks it
/// valid, and only when no write-ahead log holds pages still to be copied into the file.
fn check_length(path: &Path, len: u64) -> Result<(), Unusable> {
    const MAGIC: &[u8] = b"SQLite format 3\0";
    let mut header = [0u8; 100];
    let read = {
        use std::io::Read;
        let mut file =
            std::fs::File::open(path).map_err(|e| because(FileProblem::Unreadable, e))?;
        let mut read = 0;
        while read < header.len() {
            match file
                .read(&mut header[read..])
                .map_err(|e| because(FileProblem::Unreadable, e))?
            {
                0 => break,
                n => read += n,
            }
        }
        read
    };
    if read == 0 || !header[..read.min(MAGIC.len())].starts_with(&MAGIC[..read.min(MAGIC.len())]) {
        // Empty (a new database), or not SQLite at all: SQLite says which.
        return Ok(());
    }
    if read < header.len() {
        let expected = "a database header".to_owned();
        return Err((FileProblem::Truncated { len, expected }, None));
    }
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return Ok(());
    }
    let word = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => u64::from(n),
    };
    let pages = u64::from(word(28));
    let valid = pages > 0 && word(24) == word(92);
    if valid && len < pages * page_size {
        let expected = format!("the {} bytes its header records", pages * page_size);
        return Err((FileProblem::Truncated { len, expected }, None));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database path in a new directory that is removed with the returned guard.
    fn temp(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("fourkings-sqlite-{name}-"))
            .tempdir()
            .unwrap();
        let path = dir.path().join("rooms.db");
        (dir, path)
    }

    fn record(room: &str, at: u64, body: &str, v: Option<u64>) -> Write {
        Write::Record {
            room: room.into(),
            at,
            body: body.into(),
            v,
            epoch: None,
        }
    }

    fn create(room: &str) -> Write {
        Write::CreateRoom {
            room: room.into(),
            at: 1,
        }
    }

    fn record_count(db: &SqliteStorage) -> i64 {
        db.connection
            .query_row("SELECT count(*) FROM records", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn writes_survive_reopening() {
        let (_dir, path) = temp("reopen");
        let mut db = SqliteStorage::open(&path, StorageSync::Normal).unwrap();
        db.write(&[
            create("r1"),
            create("r2"),
            record("r1", 2, "{\"a\":1}", None),
            record("r2", 3, "{\"b\":1}", Some(4)),
            record("r1", 4, "{\"a\":2}", Some(7)),
            Write::Version {
                room: "r2".into(),
                v: 5,
                epoch: None,
            },
            Write::Alive { at: 9 },
        ])
        .unwrap();
        drop(db);
        let mut db = SqliteStorage::open(&path, StorageSync::Normal).unwrap();
        let loaded = db.load().unwrap();
        assert_eq!(loaded.alive_at, Some(9));
        assert_eq!(loaded.rooms.len(), 2);
        let r1 = &loaded.rooms[0];
        assert_eq!(r1.id, "r1");
        assert_eq!(
            r1.records,
            vec![(2, "{\"a\":1}".to_owned()), (4, "{\"a\":2}".to_owned())]
        );
        assert_eq!(r1.version, 7, "the version rides on the last record");
        assert_eq!(loaded.rooms[1].version, 5, "a version written on its own");
        db.write(&[Write::CloseRoom {
            room: "r1".into(),
            at: 10,
            epoch: None,
        }])
        .unwrap();
        let rooms = db.load().unwrap().rooms;
        assert_eq!(rooms.len(), 1, "a closed room is not loaded");
        assert_eq!(rooms[0].records, vec![(3, "{\"b\":1}".to_owned())]);
    }

    #[test]
    fn closed_rooms_records_are_purged_in_bulk_and_only_theirs() {
        let (_dir, path) = temp("purge");
        let mut db = SqliteStorage::open(&path, StorageSync::Normal).unwrap();
        db.write(&[
            create("r1"),
            create("r2"),
            record("r1", 2, "x", None),
            record("r2", 2, "y", None),
            record("r1", 3, "z", Some(2)),
        ])
        .unwrap();
        db.write(&[Write::CloseRoom {
            room: "r1".into(),
            at: 4,
            epoch: None,
        }])
        .unwrap();
        db.maintain().unwrap();
        assert_eq!(record_count(&db), 3, "not due yet: a purge waits a while");
        assert_eq!(db.purge_closed().unwrap(), 2);
        assert_eq!(record_count(&db), 1);
        assert_eq!(
            db.load().unwrap().rooms[0].records,
            vec![(2, "y".to_owned())]
        );
    }

    #[test]
    fn a_version_1_file_is_migrated_with_its_rooms() {
        let (_dir, path) = temp("migrate");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(&format!(
                "BEGIN; {}; PRAGMA user_version = 1; COMMIT;",
                MIGRATIONS[0]
            ))
            .unwrap();
            c.execute_batch(
                "INSERT INTO rooms (id, created_at, version) VALUES ('r1', 1, 3);
                 INSERT INTO records (room, at, body) VALUES ('r1', 2, 'a'), ('r1', 3, 'b');",
            )
            .unwrap();
        }
        let mut db = SqliteStorage::open(&path, StorageSync::Normal).unwrap();
        let version: i64 = db
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        let rooms = db.load().unwrap().rooms;
        assert_eq!(
            rooms[0].records,
            vec![(2, "a".to_owned()), (3, "b".to_owned())]
        );
        assert_eq!(rooms[0].version, 3);
        db.write(&[record("r1", 4, "c", Some(4))]).unwrap();
        assert_eq!(db.load().unwrap().rooms[0].version, 4);
    }

    #[test]
    fn a_failed_batch_writes_nothing() {
        let (_dir, path) = temp("atomic");
        let mut db = SqliteStorage::open(&path, StorageSync::Normal).unwrap();
        db.write(&[create("r1")]).unwrap();
        // The second room id repeats the first: the whole batch fails.
        let result = db.write(&[record("r1", 2, "x", None), create("r1")]);
        assert!(result.is_err());
        assert!(db.load().unwrap().rooms[0].records.is_empty());
    }
}
