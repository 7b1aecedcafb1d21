//! Storage in a PostgreSQL database: the same tables and promises as the SQLite file, for hosts
//! who run the database they already back up, and for several nodes sharing one set of rooms.
//!
//! The [`Storage`] trait is synchronous and runs on the writer thread (group commit lives there,
//! not here), so this store owns a small runtime of its own and waits on each call to the
//! asynchronous driver. Every call is bounded by the storage timeout: a database that stopped,
//! a network that was cut or a statement that hangs is an error after that long, never a writer
//! that waits forever (the writer then retries and reports, as it does for a failing disk).

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::config::SslMode;
use tokio_postgres::types::ToSql;

use super::contents::{Contents, Portable, StoredRecord, StoredRoom};
use super::{ArchivedGame, Cause, Loaded, RoomLog, Storage, StorageError, Write};

/// The schema, one migration per version: migration `i` takes the database from version `i` to
/// `i + 1`. Never edit one that has shipped; add the next.
const MIGRATIONS: &[&str] = &[
    // 1: rooms with their event version, their records, the archive, the liveness stamp (the
    // same tables as the SQLite file's second version).
    "CREATE TABLE rooms (
         id TEXT PRIMARY KEY,
         created_at BIGINT NOT NULL,
         closed_at BIGINT,
         version BIGINT NOT NULL DEFAULT 0
     );
     CREATE TABLE records (
         id BIGSERIAL PRIMARY KEY,
         room TEXT NOT NULL REFERENCES rooms(id),
         at BIGINT NOT NULL,
         body TEXT NOT NULL,
         v BIGINT
     );
     CREATE INDEX records_by_room ON records(room, id);
     CREATE TABLE games (
         id TEXT PRIMARY KEY,
         room TEXT NOT NULL,
         finished_at BIGINT NOT NULL,
         board TEXT NOT NULL,
         players TEXT NOT NULL,
         settings TEXT NOT NULL,
         result TEXT NOT NULL,
         text TEXT NOT NULL
     );
     CREATE TABLE alive (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         at BIGINT NOT NULL
     );",
    // 2: leases, for several nodes over one database (`super::leases`): which node holds each
    // room, under which epoch, until when. Records carry the epoch they were written under, and
    // the database refuses a write whose epoch is not the room's lease's (fencing). The lease
    // row is locked for share while the write's transaction lasts, so a node taking the room
    // over waits for it, and reads the room's log with it.
    "CREATE TABLE leases (
         room TEXT PRIMARY KEY,
         node TEXT NOT NULL,
         epoch BIGINT NOT NULL,
         expires_at TIMESTAMPTZ NOT NULL
     );
     ALTER TABLE records ADD COLUMN epoch BIGINT;
     CREATE FUNCTION fourkings_fence(fenced_room TEXT, writer_epoch BIGINT) RETURNS BOOLEAN
     LANGUAGE plpgsql AS $$
     DECLARE
         held BIGINT;
     BEGIN
         SELECT epoch INTO held FROM leases WHERE room = fenced_room FOR SHARE;
         IF FOUND AND held IS DISTINCT FROM writer_epoch THEN
             RAISE EXCEPTION 'room % has moved: a write of epoch % where the lease is at %',
                 fenced_room, writer_epoch, held
                 USING ERRCODE = 'FK409', DETAIL = fenced_room;
         END IF;
         RETURN TRUE;
     END $$;
     CREATE FUNCTION fourkings_fence_record() RETURNS TRIGGER LANGUAGE plpgsql AS $$
     BEGIN
         PERFORM fourkings_fence(NEW.room, NEW.epoch);
         RETURN NEW;
     END $$;
     CREATE TRIGGER records_fenced BEFORE INSERT ON records
         FOR EACH ROW EXECUTE FUNCTION fourkings_fence_record();",
    // 3: when each lease was last renewed (the last moment its node was known to serve the
    // room: a node adopting the room stops its clocks there), and the open rooms by id, which
    // every node scans for rooms nobody serves.
    "ALTER TABLE leases ADD COLUMN renewed_at TIMESTAMPTZ NOT NULL DEFAULT now();
     CREATE INDEX rooms_open ON rooms(id) WHERE closed_at IS NULL;",
];

/// The SQLSTATE of a write refused by fencing (`fourkings_fence`).
const MOVED: &str = "FK409";

/// The table that holds the schema's version, and marks a database as Four Kings'.
const VERSION_TABLE: &str = "fourkings_schema";

/// Any number that is the same in every Four Kings process: the advisory lock under which
/// migrations run, so that nodes starting together migrate once.
const MIGRATION_LOCK: i64 = 0x4b_494e_4753;

/// What is wrong with a PostgreSQL database when the server starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DatabaseProblem {
    /// The URL cannot be read.
    #[error("is not a usable PostgreSQL URL")]
    BadUrl,
    /// The TLS setup the URL asks for cannot be made.
    #[error("asks for TLS, which cannot be set up")]
    Tls,
    /// No connection could be made (or the database did not answer in time).
    #[error("cannot be reached")]
    Unreachable,
    /// A newer build set the schema up.
    #[error(
        "was set up by a newer version of Four Kings (schema {found}; this build knows up to {known})"
    )]
    Newer {
        /// The database's schema version.
        found: i64,
        /// The newest this build knows.
        known: usize,
    },
    /// A migration of the schema fails.
    #[error("migration {0} failed")]
    Migration(usize),
}

/// A PostgreSQL database.
pub struct PostgresStorage {
    /// Where the driver's connections run; taken out only when the store is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    /// The URL without its password, for messages.
    target: String,
    /// The longest any call may take.
    timeout: Duration,
}

impl std::fmt::Debug for PostgresStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStorage")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Drop for PostgresStorage {
    fn drop(&mut self) {
        // Without waiting: the store may be dropped where blocking is not allowed.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Whether `text` names a PostgreSQL database rather than a SQLite file.
pub fn is_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// `url` with its password, if any, replaced by `***`, for messages and logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

impl PostgresStorage {
    /// Connects to the database at `url` with a pool of at most `connections` connections,
    /// checks that it is empty or Four Kings' and not from a newer build, and brings its schema
    /// up to date. Every call, this one's included, gives up after `timeout`.
    pub fn open(
        url: &str,
        connections: usize,
        timeout: Duration,
    ) -> Result<PostgresStorage, StorageError> {
        let target = redacted(url);
        let setup_error = |problem: DatabaseProblem, cause: Option<Cause>| StorageError::Server {
            target: target.clone(),
            problem,
            cause,
        };
        let mut config = tokio_postgres::Config::from_str(url)
            .map_err(|e| setup_error(DatabaseProblem::BadUrl, Some(e.into())))?;
        // The server cancels a statement the store has given up on, rather than let it hold
        // its locks; keepalives notice a connection whose network was cut.
        let options = format!(
            "{} -c statement_timeout={}",
            config.get_options().unwrap_or_default(),
            timeout.as_millis().max(1)
        );
        if config.get_application_name().is_none() {
            // What `pg_stat_activity` shows an operator for the server's connections.
            config.application_name("fourkings");
        }
        config
            .options(options.trim_start())
            .connect_timeout(timeout)
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("fourkings-postgres")
            .enable_all()
            .build()
            .map_err(|e| setup_error(DatabaseProblem::Unreachable, Some(e.into())))?;
        let manager_config = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        // TLS, checked against the system's roots, only where the URL requires it: `prefer` (the
        // default) connects in plain text, since libpq's `prefer` checks no certificate and a
        // stock server's is self-signed.
        let manager = if config.get_ssl_mode() == SslMode::Require {
            let tls = tls_connector().map_err(|e| setup_error(DatabaseProblem::Tls, Some(e)))?;
            Manager::from_config(config, tls, manager_config)
        } else {
            Manager::from_config(config, tokio_postgres::NoTls, manager_config)
        };
        let pool = Pool::builder(manager)
            .max_size(connections.max(1))
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(timeout))
            .create_timeout(Some(timeout))
            .recycle_timeout(Some(timeout))
            .build()
            .map_err(|e| setup_error(DatabaseProblem::Unreachable, Some(e.into())))?;
        let storage = PostgresStorage {
            runtime: Some(runtime),
            pool,
            target: target.clone(),
            timeout,
        };
        storage.run(storage.migrate()).map_err(|e| match e {
            Failure::Setup(problem, cause) => setup_error(problem, cause),
            Failure::Query(cause) => setup_error(DatabaseProblem::Unreachable, Some(cause)),
            Failure::Moved(room) => setup_error(
                DatabaseProblem::Unreachable,
                Some(format!("a write of room {room} was fenced").into()),
            ),
        })?;
        Ok(storage)
    }

    /// The rooms' leases in this database, for a node of a cluster.
    pub fn leases(&self) -> super::leases::Leases {
        super::leases::Leases::new(self.pool.clone(), self.timeout)
    }

    /// Runs `work` on the store's runtime, giving up after the timeout.
    fn run<T: Send>(
        &self,
        work: impl std::future::Future<Output = Result<T, Failure>> + Send,
    ) -> Result<T, Failure> {
        let runtime = self
            .runtime
            .as_ref()
            .expect("the runtime lives as long as the store");
        let bounded = async {
            tokio::time::timeout(self.timeout, work)
                .await
                .unwrap_or_else(|_| Err(Failure::Query(TimedOut(self.timeout).into())))
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return runtime.block_on(bounded);
        }
        // Called from asynchronous code (a test, a caller that forgot `spawn_blocking`): a
        // runtime cannot be waited on from inside another, so another thread waits.
        std::thread::scope(|scope| {
            scope
                .spawn(|| runtime.block_on(bounded))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// A connection from the pool.
    async fn client(&self) -> Result<deadpool_postgres::Object, Failure> {
        self.pool.get().await.map_err(|e| Failure::Query(e.into()))
    }

    /// Applies the migrations the database has not had, each in its own transaction, under an
    /// advisory lock so that nodes starting together do not race.
    async fn migrate(&self) -> Result<(), Failure> {
        let setup = |problem: DatabaseProblem| {
            move |e: tokio_postgres::Error| Failure::Setup(problem, Some(e.into()))
        };
        let mut client = self.client().await.map_err(|e| match e {
            Failure::Query(cause) => Failure::Setup(DatabaseProblem::Unreachable, Some(cause)),
            setup => setup,
        })?;
        let known = MIGRATIONS.len();
        for (i, migration) in MIGRATIONS.iter().enumerate() {
            let tx = client
                .transaction()
                .await
                .map_err(setup(DatabaseProblem::Unreachable))?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
                .await
                .map_err(setup(DatabaseProblem::Unreachable))?;
            tx.batch_execute(&format!(
                "CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version BIGINT NOT NULL)"
            ))
            .await
            .map_err(setup(DatabaseProblem::Migration(i + 1)))?;
            let found: i64 = tx
                .query_opt(&format!("SELECT version FROM {VERSION_TABLE}"), &[])
                .await
                .map_err(setup(DatabaseProblem::Unreachable))?
                .map_or(0, |row| row.get(0));
            if found > known as i64 {
                return Err(Failure::Setup(
                    DatabaseProblem::Newer { found, known },
                    None,
                ));
            }
            if found > i as i64 {
                continue;
            }
            tx.batch_execute(migration)
                .await
                .map_err(setup(DatabaseProblem::Migration(i + 1)))?;
            tx.batch_execute(&format!(
                "DELETE FROM {VERSION_TABLE}; INSERT INTO {VERSION_TABLE} VALUES ({})",
                i + 1
            ))
            .await
            .map_err(setup(DatabaseProblem::Migration(i + 1)))?;
            tx.commit()
                .await
                .map_err(setup(DatabaseProblem::Migration(i + 1)))?;
        }
        Ok(())
    }

    async fn load_all(&self) -> Result<Loaded, Failure> {
        let client = self.client().await?;
        let alive_at: Option<i64> = client
            .query_opt("SELECT at FROM alive WHERE id = 1", &[])
            .await
            .map_err(query)?
            .map(|row| row.get(0));
        let mut rooms: Vec<RoomLog> = client
            .query(
                "SELECT id, version FROM rooms WHERE closed_at IS NULL ORDER BY created_at, id",
                &[],
            )
            .await
            .map_err(query)?
            .into_iter()
            .map(|row| RoomLog {
                id: row.get(0),
                records: Vec::new(),
                version: row.get::<_, i64>(1) as u64,
            })
            .collect();
        let index: HashMap<String, usize> = rooms
            .iter()
            .enumerate()
            .map(|(i, room)| (room.id.clone(), i))
            .collect();
        let records = client
            .query(
                "SELECT r.room, r.at, r.body, r.v FROM records r
                 JOIN rooms ON rooms.id = r.room AND rooms.closed_at IS NULL
                 ORDER BY r.id",
                &[],
            )
            .await
            .map_err(query)?;
        for row in records {
            let room: String = row.get(0);
            if let Some(&i) = index.get(&room) {
                push_record(&mut rooms[i], row.get(1), row.get(2), row.get(3));
            }
        }
        Ok(Loaded {
            rooms,
            alive_at: alive_at.map(|a| a as u64),
        })
    }

    async fn load_room(&self, id: &str) -> Result<Option<RoomLog>, Failure> {
        let client = self.client().await?;
        let version: Option<i64> = client
            .query_opt(
                "SELECT version FROM rooms WHERE id = $1 AND closed_at IS NULL",
                &[&id],
            )
            .await
            .map_err(query)?
            .map(|row| row.get(0));
        let Some(version) = version else {
            return Ok(None);
        };
        let mut log = RoomLog {
            id: id.to_owned(),
            records: Vec::new(),
            version: version as u64,
        };
        let rows = client
            .query(
                "SELECT at, body, v FROM records WHERE room = $1 ORDER BY id",
                &[&id],
            )
            .await
            .map_err(query)?;
        for row in rows {
            push_record(&mut log, row.get(0), row.get(1), row.get(2));
        }
        Ok(Some(log))
    }

    /// Every write in one transaction, its statements sent together (tokio-postgres pipelines
    /// requests made at once) so that a group commit costs a few round trips, not one a write.
    async fn write_all(&self, writes: &[Write]) -> Result<(), Failure> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(query)?;
        let statements = Statements::prepare(&tx).await?;
        let mut pending = Vec::with_capacity(writes.len());
        for write in writes {
            let (statement, params) = statements.for_write(write);
            pending.push(tx.execute_raw(statement, params));
        }
        futures_util::future::try_join_all(pending)
            .await
            .map_err(query)?;
        tx.commit().await.map_err(query)
    }

    async fn archived(&self, id: &str) -> Result<Option<ArchivedGame>, Failure> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                "SELECT id, room, finished_at, board, players, settings, result, text
                 FROM games WHERE id = $1",
                &[&id],
            )
            .await
            .map_err(query)?;
        Ok(row.as_ref().map(archived_game))
    }
}

impl PostgresStorage {
    async fn read_contents(&self) -> Result<Contents, Failure> {
        let client = self.client().await?;
        let rooms = client
            .query(
                "SELECT id, created_at, closed_at, version FROM rooms ORDER BY created_at, id",
                &[],
            )
            .await
            .map_err(query)?
            .into_iter()
            .map(|row| StoredRoom {
                id: row.get(0),
                created_at: row.get::<_, i64>(1) as u64,
                closed_at: row.get::<_, Option<i64>>(2).map(|at| at as u64),
                version: row.get::<_, i64>(3) as u64,
            })
            .collect();
        let records = client
            .query("SELECT room, at, body, v FROM records ORDER BY id", &[])
            .await
            .map_err(query)?
            .into_iter()
            .map(|row| StoredRecord {
                room: row.get(0),
                at: row.get::<_, i64>(1) as u64,
                body: row.get(2),
                v: row.get::<_, Option<i64>>(3).map(|v| v as u64),
            })
            .collect();
        let games = client
            .query(
                "SELECT id, room, finished_at, board, players, settings, result, text
                 FROM games ORDER BY finished_at, id",
                &[],
            )
            .await
            .map_err(query)?
            .iter()
            .map(archived_game)
            .collect();
        let alive_at: Option<i64> = client
            .query_opt("SELECT at FROM alive WHERE id = 1", &[])
            .await
            .map_err(query)?
            .map(|row| row.get(0));
        Ok(Contents::as_read(rooms, records, games, alive_at))
    }

    /// Whether the database held anything, and if not, `contents` written into it.
    async fn fill_empty(&self, contents: &Contents) -> Result<bool, Failure> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(query)?;
        // Nothing else writes while the copy is made.
        tx.batch_execute("LOCK TABLE rooms, games IN EXCLUSIVE MODE")
            .await
            .map_err(query)?;
        let held: i64 = tx
            .query_one(
                "SELECT (SELECT count(*) FROM rooms) + (SELECT count(*) FROM games)",
                &[],
            )
            .await
            .map_err(query)?
            .get(0);
        if held > 0 {
            return Ok(false);
        }
        let room = tx
            .prepare(
                "INSERT INTO rooms (id, created_at, closed_at, version) VALUES ($1, $2, $3, $4)",
            )
            .await
            .map_err(query)?;
        let inserts = contents.rooms.iter().map(|r| {
            let params: Vec<Box<dyn ToSql + Sync + Send>> = vec![
                Box::new(r.id.clone()),
                Box::new(r.created_at as i64),
                Box::new(r.closed_at.map(|at| at as i64)),
                Box::new(r.version as i64),
            ];
            tx.execute_raw(&room, params)
        });
        futures_util::future::try_join_all(inserts)
            .await
            .map_err(query)?;
        let statements = Statements::prepare(&tx).await?;
        let writes = contents.writes_after_rooms();
        let pending = writes.iter().map(|write| {
            let (statement, params) = statements.for_write(write);
            tx.execute_raw(statement, params)
        });
        futures_util::future::try_join_all(pending)
            .await
            .map_err(query)?;
        tx.commit().await.map_err(query)?;
        Ok(true)
    }
}

impl Portable for PostgresStorage {
    fn contents(&mut self) -> Result<Contents, StorageError> {
        self.run(self.read_contents()).map_err(Failure::into_error)
    }

    fn fill(&mut self, contents: &Contents) -> Result<(), StorageError> {
        if self
            .run(self.fill_empty(contents))
            .map_err(Failure::into_error)?
        {
            Ok(())
        } else {
            Err(StorageError::NotEmpty {
                target: self.target.clone(),
            })
        }
    }
}

/// A game read from `SELECT id, room, finished_at, board, players, settings, result, text`.
fn archived_game(row: &tokio_postgres::Row) -> ArchivedGame {
    ArchivedGame {
        id: row.get(0),
        room: row.get(1),
        finished_at: row.get::<_, i64>(2) as u64,
        board: row.get(3),
        players: row.get(4),
        settings: row.get(5),
        result: row.get(6),
        text: row.get(7),
    }
}

/// A record read back, added to its room's log.
fn push_record(log: &mut RoomLog, at: i64, body: String, v: Option<i64>) {
    log.records.push((at as u64, body));
    if let Some(v) = v {
        log.version = log.version.max(v as u64);
    }
}

/// The prepared statement of each kind of write.
struct Statements {
    create: tokio_postgres::Statement,
    record: tokio_postgres::Statement,
    version: tokio_postgres::Statement,
    archive: tokio_postgres::Statement,
    close: tokio_postgres::Statement,
    alive: tokio_postgres::Statement,
}

impl Statements {
    async fn prepare(tx: &deadpool_postgres::Transaction<'_>) -> Result<Statements, Failure> {
        let prepare = |sql: &'static str| tx.prepare_cached(sql);
        let (create, record, version, archive, close, alive) = tokio::try_join!(
            prepare("INSERT INTO rooms (id, created_at) VALUES ($1, $2)"),
            prepare("INSERT INTO records (room, at, body, v, epoch) VALUES ($1, $2, $3, $4, $5)"),
            prepare("UPDATE rooms SET version = $2 WHERE id = $1 AND fourkings_fence($1, $3)"),
            prepare(
                "INSERT INTO games (id, room, finished_at, board, players, settings, result, text)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (id) DO UPDATE SET room = EXCLUDED.room,
                     finished_at = EXCLUDED.finished_at, board = EXCLUDED.board,
                     players = EXCLUDED.players, settings = EXCLUDED.settings,
                     result = EXCLUDED.result, text = EXCLUDED.text"
            ),
            // A closed room's records go with it (its games stay in the archive): the index by
            // room makes that cheap here, where SQLite deletes them in bulk now and then.
            prepare(
                "WITH closed AS (UPDATE rooms SET closed_at = $2
                     WHERE id = $1 AND fourkings_fence($1, $3) RETURNING id)
                 DELETE FROM records WHERE room IN (SELECT id FROM closed)"
            ),
            prepare(
                "INSERT INTO alive (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at"
            ),
        )
        .map_err(query)?;
        Ok(Statements {
            create,
            record,
            version,
            archive,
            close,
            alive,
        })
    }

    /// The statement that makes `write`, and its parameters.
    fn for_write<'a>(
        &'a self,
        write: &'a Write,
    ) -> (
        &'a tokio_postgres::Statement,
        Vec<Box<dyn ToSql + Sync + Send + 'a>>,
    ) {
        type Param<'a> = Box<dyn ToSql + Sync + Send + 'a>;
        let ms = |at: &u64| -> Param<'a> { Box::new(*at as i64) };
        let lease = |epoch: &Option<u64>| -> Param<'a> { Box::new(epoch.map(|e| e as i64)) };
        match write {
            Write::CreateRoom { room, at } => (&self.create, vec![Box::new(room), ms(at)]),
            Write::Record {
                room,
                at,
                body,
                v,
                epoch,
            } => (
                &self.record,
                vec![
                    Box::new(room),
                    ms(at),
                    Box::new(body),
                    Box::new(v.map(|v| v as i64)),
                    lease(epoch),
                ],
            ),
            Write::Version { room, v, epoch } => {
                (&self.version, vec![Box::new(room), ms(v), lease(epoch)])
            }
            Write::Archive(game) => (
                &self.archive,
                vec![
                    Box::new(&game.id),
                    Box::new(&game.room),
                    ms(&game.finished_at),
                    Box::new(&game.board),
                    Box::new(&game.players),
                    Box::new(&game.settings),
                    Box::new(&game.result),
                    Box::new(&game.text),
                ],
            ),
            Write::CloseRoom { room, at, epoch } => {
                (&self.close, vec![Box::new(room), ms(at), lease(epoch)])
            }
            Write::Alive { at } => (&self.alive, vec![ms(at)]),
        }
    }
}

/// How a call failed: while setting the database up, or in a query.
enum Failure {
    Setup(DatabaseProblem, Option<Cause>),
    Query(Cause),
    /// Fencing refused a write of this room (its lease has moved on).
    Moved(String),
}

impl Failure {
    fn into_error(self) -> StorageError {
        match self {
            Failure::Setup(problem, cause) => StorageError::database(match cause {
                Some(cause) => cause,
                None => problem.to_string().into(),
            }),
            Failure::Query(cause) => StorageError::Database(cause),
            Failure::Moved(room) => StorageError::Moved { room },
        }
    }
}

// Taken by value so that it reads `map_err(query)`.
#[allow(clippy::needless_pass_by_value)]
fn query(e: tokio_postgres::Error) -> Failure {
    match e.as_db_error() {
        Some(db) if db.code().code() == MOVED => {
            Failure::Moved(db.detail().unwrap_or_default().to_owned())
        }
        _ => Failure::Query(e.into()),
    }
}

/// A call that took longer than the storage timeout.
#[derive(Debug, thiserror::Error)]
#[error("no answer from PostgreSQL within {0:?}")]
struct TimedOut(Duration);

/// The TLS connector for a URL that asks for TLS: the system's trusted roots, as `libpq` uses.
fn tls_connector() -> Result<tokio_postgres_rustls::MakeRustlsConnect, Cause> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for certificate in found.certs {
        // A certificate the store cannot take is skipped, as other clients skip it.
        let _ = roots.add(certificate);
    }
    if roots.is_empty() {
        return Err("no trusted root certificates were found on this system".into());
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

impl Storage for PostgresStorage {
    fn load(&mut self) -> Result<Loaded, StorageError> {
        self.run(self.load_all()).map_err(Failure::into_error)
    }

    fn room(&mut self, id: &str) -> Result<Option<RoomLog>, StorageError> {
        self.run(self.load_room(id)).map_err(Failure::into_error)
    }

    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
        self.run(self.write_all(writes))
            .map_err(Failure::into_error)
    }

    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        self.run(self.archived(id)).map_err(Failure::into_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(
            redacted("postgres://ann:secret@db.example:5432/fk?sslmode=require"),
            "postgres://ann:***@db.example:5432/fk?sslmode=require"
        );
        assert_eq!(
            redacted("postgresql://ann@localhost/fk"),
            "postgresql://ann@localhost/fk"
        );
        assert_eq!(redacted("postgres://localhost"), "postgres://localhost");
        assert!(is_url("postgres://x") && is_url("postgresql://x"));
        assert!(!is_url("fourkings.db") && !is_url("/var/lib/postgres://x"));
    }
}
