//! Storage in one SQLite file, in WAL mode: opened or created at start-up, changed only through
//! numbered migrations, and never overwritten or silently replaced when something is wrong with it.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::{ArchivedGame, Loaded, RoomLog, Storage, StorageError, Write};

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
];

/// How carefully commits reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// Every commit is on the disk before it returns (survives a power cut).
    Full,
    /// Commits survive the process being killed, not a power cut (WAL `synchronous=NORMAL`).
    Normal,
}

/// One SQLite file.
pub struct SqliteStorage {
    connection: Connection,
    path: PathBuf,
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
    pub fn open(path: &Path, sync: Sync) -> Result<SqliteStorage, StorageError> {
        let name = path.display().to_string();
        let file_error = |problem: String| StorageError::File {
            path: name.clone(),
            problem,
        };
        let exists = path.exists();
        if exists {
            let meta = std::fs::metadata(path).map_err(|e| file_error(e.to_string()))?;
            if !meta.is_file() {
                return Err(file_error("is not a file".into()));
            }
            if meta.permissions().readonly()
                || std::fs::OpenOptions::new().write(true).open(path).is_err()
            {
                return Err(file_error(
                    "is read-only: the server must be able to write it".into(),
                ));
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection =
            Connection::open_with_flags(path, flags).map_err(|e| file_error(e.to_string()))?;
        let storage = SqliteStorage {
            connection,
            path: path.to_owned(),
        };
        storage.check(exists).map_err(file_error)?;
        storage.configure(sync).map_err(file_error)?;
        storage.migrate().map_err(file_error)?;
        Ok(storage)
    }

    /// Refuses a file that is not a database, is damaged, or comes from a newer build.
    fn check(&self, existed: bool) -> Result<(), String> {
        let version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseCorrupt) => format!("is damaged ({e})"),
                _ => format!("is not a usable SQLite database ({e})"),
            })?;
        if version > MIGRATIONS.len() as i64 {
            return Err(format!(
                "was written by a newer version of Four Kings (schema {version}; this build knows up to {})",
                MIGRATIONS.len()
            ));
        }
        if existed {
            let verdict: String = self
                .connection
                .query_row("PRAGMA quick_check", [], |row| row.get(0))
                .map_err(|e| format!("is damaged ({e})"))?;
            if verdict != "ok" {
                return Err(format!("is damaged ({verdict})"));
            }
            if version == 0 && self.has_tables()? {
                return Err("is a SQLite database of something else, not Four Kings".into());
            }
        }
        Ok(())
    }

    fn has_tables(&self) -> Result<bool, String> {
        self.connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| n > 0)
            .map_err(|e| e.to_string())
    }

    fn configure(&self, sync: Sync) -> Result<(), String> {
        let mode: String = self
            .connection
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|e| e.to_string())?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("cannot use WAL mode (got {mode})"));
        }
        let synchronous = match sync {
            Sync::Full => "FULL",
            Sync::Normal => "NORMAL",
        };
        self.connection
            .execute_batch(&format!(
                "PRAGMA synchronous = {synchronous}; PRAGMA foreign_keys = ON;"
            ))
            .map_err(|e| e.to_string())?;
        // A write proves the file and its directory (for the WAL) are writable.
        self.connection
            .execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
            .map_err(|e| format!("cannot be written ({e})"))
    }

    /// Applies the migrations the file has not had, each in its own transaction.
    fn migrate(&self) -> Result<(), String> {
        let version: usize = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))
            .map_err(|e| e.to_string())? as usize;
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            let sql = format!(
                "BEGIN; {migration}; PRAGMA user_version = {}; COMMIT;",
                i + 1
            );
            self.connection
                .execute_batch(&sql)
                .map_err(|e| format!("migration {} failed: {e}", i + 1))?;
        }
        Ok(())
    }

    // Taken by value so that it reads `map_err(Self::db)`.
    #[allow(clippy::needless_pass_by_value)]
    fn db(e: rusqlite::Error) -> StorageError {
        StorageError::Database(e.to_string())
    }
}

impl Storage for SqliteStorage {
    fn load(&mut self) -> Result<Loaded, StorageError> {
        let c = &self.connection;
        let alive_at: Option<i64> =
            c.query_row("SELECT at FROM alive WHERE id = 1", [], |row| row.get(0)).optional().map_err(Self::db)?;
        let mut rooms_query = c
            .prepare("SELECT id, version FROM rooms WHERE closed_at IS NULL ORDER BY created_at, id")
            .map_err(Self::db)?;
        let ids: Vec<(String, i64)> = rooms_query
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(Self::db)?
            .collect::<Result<_, _>>()
            .map_err(Self::db)?;
        let mut records_query = c.prepare("SELECT at, body FROM records WHERE room = ?1 ORDER BY id").map_err(Self::db)?;
        let mut rooms = Vec::with_capacity(ids.len());
        for (id, version) in ids {
            let records = records_query
                .query_map([&id], |row| Ok((row.get::<_, i64>(0)? as u64, row.get::<_, String>(1)?)))
                .map_err(Self::db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(Self::db)?;
            rooms.push(RoomLog { id, records, version: version as u64 });
        }
        Ok(Loaded { rooms, alive_at: alive_at.map(|a| a as u64) })
    }

    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
        let tx = self.connection.transaction().map_err(Self::db)?;
        {
            let mut record = tx.prepare_cached("INSERT INTO records (room, at, body) VALUES (?1, ?2, ?3)").map_err(Self::db)?;
            let mut version = tx.prepare_cached("UPDATE rooms SET version = ?2 WHERE id = ?1").map_err(Self::db)?;
            for write in writes {
                match write {
                    Write::CreateRoom { room, at } => {
                        tx.execute("INSERT INTO rooms (id, created_at) VALUES (?1, ?2)", params![room, *at as i64])
                            .map_err(Self::db)?;
                    }
                    Write::Record { room, at, body } => {
                        record.execute(params![room, *at as i64, body]).map_err(Self::db)?;
                    }
                    Write::Version { room, v } => {
                        version.execute(params![room, *v as i64]).map_err(Self::db)?;
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
                        .map_err(Self::db)?;
                    }
                    Write::CloseRoom { room, at } => {
                        tx.execute("UPDATE rooms SET closed_at = ?2 WHERE id = ?1", params![room, *at as i64])
                            .map_err(Self::db)?;
                        // What a closed room needed to come back is no longer needed; its games stay.
                        tx.execute("DELETE FROM records WHERE room = ?1", [room]).map_err(Self::db)?;
                    }
                    Write::Alive { at } => {
                        tx.execute("INSERT OR REPLACE INTO alive (id, at) VALUES (1, ?1)", [*at as i64])
                            .map_err(Self::db)?;
                    }
                }
            }
        }
        tx.commit().map_err(Self::db)
    }

    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        self.connection
            .query_row(
                "SELECT id, room, finished_at, board, players, settings, result, text FROM games WHERE id = ?1",
                [id],
                |row| {
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
                },
            )
            .optional()
            .map_err(Self::db)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fourkings-sqlite-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("rooms.db")
    }

    #[test]
    fn writes_survive_reopening() {
        let path = temp("reopen");
        let mut db = SqliteStorage::open(&path, Sync::Normal).unwrap();
        db.write(&[
            Write::CreateRoom { room: "r1".into(), at: 1 },
            Write::Record { room: "r1".into(), at: 2, body: "{\"a\":1}".into() },
            Write::Version { room: "r1".into(), v: 7 },
            Write::Alive { at: 9 },
        ])
        .unwrap();
        drop(db);
        let mut db = SqliteStorage::open(&path, Sync::Normal).unwrap();
        let loaded = db.load().unwrap();
        assert_eq!(loaded.alive_at, Some(9));
        assert_eq!(loaded.rooms.len(), 1);
        assert_eq!(loaded.rooms[0].records, vec![(2, "{\"a\":1}".to_owned())]);
        assert_eq!(loaded.rooms[0].version, 7);
        db.write(&[Write::CloseRoom { room: "r1".into(), at: 10 }]).unwrap();
        assert!(db.load().unwrap().rooms.is_empty());
    }

    #[test]
    fn a_failed_batch_writes_nothing() {
        let path = temp("atomic");
        let mut db = SqliteStorage::open(&path, Sync::Normal).unwrap();
        db.write(&[Write::CreateRoom {
            room: "r1".into(),
            at: 1,
        }])
        .unwrap();
        // The second room id repeats the first: the whole batch fails.
        let result = db.write(&[
            Write::Record {
                room: "r1".into(),
                at: 2,
                body: "x".into(),
            },
            Write::CreateRoom {
                room: "r1".into(),
                at: 3,
            },
        ]);
        assert!(result.is_err());
        assert!(db.load().unwrap().rooms[0].records.is_empty());
    }
}
