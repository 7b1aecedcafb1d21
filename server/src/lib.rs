//! The Four Kings game server: private rooms, seats and authoritative play over WebSockets.
//!
//! # Layout
//!
//! | module | concern |
//! |---|---|
//! | `config` | every setting, from flags or `FOURKINGS_*` environment variables |
//! | `http` | accepting TCP connections and serving them with HTTP/1.1 |
//! | `admission` | accepted sockets: a cap per client address, idle ones shed near the open-files limit |
//! | `address` | limits per client address: room creations, open WebSockets (trusted proxies' `X-Forwarded-For`) |
//! | `app` | the HTTP routes: room API, WebSocket upgrade, health, metrics |
//! | `health` | whether the server is up and ready for rooms (`/healthz`, `/readyz`) |
//! | `metrics` | what the server counts, as Prometheus text (`/metrics`) |
//! | `panics` | panics caught and survived (a CPU search, a room's task): where, and what they said |
//! | `directory` | room ids to room handles; on a node of a cluster, finding and adopting rooms |
//! | `forward` | requests and WebSockets for rooms of other nodes, sent on to them |
//! | `ownership` | the leases a node of a cluster holds on its rooms |
//! | `cluster` | a node's upkeep: leases renewed, rooms lost given up, unserved rooms adopted |
//! | `room` | one task per room that owns all of its state: seats, settings, the game, the event log |
//! | `rules_view` | what a room's rules let its players do (resigning, team chat, takebacks, claims), as clients are told |
//! | `connection` | one WebSocket: a reader that checks and parses frames, a writer with a bounded queue |
//! | `arena` | bot-against-bot matches in parallel threads, and their score table |
//! | `cpu` | the `Strategy` interface of CPU players and the blocking pool they think on |
//! | `ids` | room ids and secret tokens |
//! | `client` | `fourkings client`: a command-line client that speaks only the protocol |
//! | `cli` | the `fourkings` command line: parsing, the subcommands, and the binary's `main` |
//! | `web` | the browser client's files, embedded in the binary |
//! | `storage` | the durable log of every room and the archive of finished games (SQLite or memory) |
//!
//! Data flows one way: a connection parses a frame into a `ClientRequest` and sends it to its
//! room's inbox; the room validates it against its state and the engine, answers with an ack or an
//! error, records the events it caused (each with the next version), serialises each event once and
//! hands the same bytes to every connection's queue.

mod address;
mod admission;
mod app;
pub mod arena;
pub mod cli;
pub mod client;
mod cluster;
mod config;
mod connection;
pub mod cpu;
mod directory;
mod forward;
mod health;
mod held;
mod http;
mod ids;
mod metrics;
mod open_files;
mod ownership;
mod panics;
mod room;
mod rules_view;
pub mod storage;
pub mod uci_client;
mod web;

use std::net::SocketAddr;
use std::sync::Arc;

pub use config::{Config, CpuStrategy, Database, LogFormat, StorageSync};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::address::AddressLimits;
use crate::app::AppState;
use crate::cpu::{CpuPool, EngineBot, RandomMover, Strategy};
use crate::directory::Directory;
use crate::forward::Forwarder;
use crate::health::Health;
use crate::metrics::Metrics;
use crate::ownership::Ownership;
use crate::room::RoomContext;
use crate::storage::health::StorageHealth;
use crate::storage::leases::Leases;
use crate::storage::memory::MemoryStorage;
use crate::storage::postgres::PostgresStorage;
use crate::storage::sqlite::SqliteStorage;
use crate::storage::writer::StorageHandle;
use crate::storage::{Loaded, Storage, StorageError};

/// What each last step of a shutdown gets even when its time is up: a moment to finish what is
/// already done.
const AT_LEAST: std::time::Duration = config::SHUTDOWN_LAST_STEPS;

/// How a shutdown ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Everything the rooms did was stored.
    Clean,
    /// Storage did not finish in time (it hangs or keeps failing): records handed to it may not
    /// be stored. The binary exits with a failure status then.
    RecordsAbandoned,
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Storage could not be opened or read (the message names the file and the problem).
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// `--node-url` names a node of a cluster, whose rooms must be kept in PostgreSQL.
    #[error(
        "--node-url makes the server a node of a cluster, which needs a PostgreSQL database (--database postgres://…)"
    )]
    ClusterNeedsPostgres,
    /// `--node-url` is not an `http://HOST:PORT` URL.
    #[error("--node-url {0:?} is not an http://HOST:PORT URL")]
    NodeUrl(String),
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    /// Cancelled when rooms are to flush and close their connections.
    shutdown: CancellationToken,
    /// Cancelled when the HTTP listener is to stop, after everything else.
    stop_http: CancellationToken,
    task: JoinHandle<()>,
    connections: TaskTracker,
    rooms: TaskTracker,
    health: Arc<Health>,
    config: Arc<Config>,
    storage: StorageHandle,
    /// Relays WebSockets to rooms of other nodes.
    forwarder: Forwarder,
    /// On a node of a cluster: its leases, and the signal that stops their upkeep.
    cluster: Option<(Arc<Ownership>, CancellationToken)>,
}

impl Server {
    /// Opens storage (the SQLite file, or memory), brings back every stored room, binds
    /// `config.addr` (port 0 picks a free port) and starts serving, with the CPU strategy the
    /// configuration names (the engine's bot unless it says `random`).
    pub async fn start(config: Config) -> Result<Server, StartError> {
        let strategy: Arc<dyn Strategy> = match config.cpu_strategy {
            CpuStrategy::Random => Arc::new(RandomMover),
            CpuStrategy::Bot => Arc::new(EngineBot::new(config.cpu_table_mib)),
        };
        Server::start_with(config, strategy).await
    }

    /// Like [`Server::start`], with `strategy` for CPU seats.
    pub async fn start_with(
        config: Config,
        strategy: Arc<dyn Strategy>,
    ) -> Result<Server, StartError> {
        if config.node_url.is_some() && (config.in_memory || !config.database.is_postgres()) {
            return Err(StartError::ClusterNeedsPostgres);
        }
        let (store, leases): (Box<dyn Storage>, Option<Leases>) = if config.in_memory {
            (Box::new(MemoryStorage::new()), None)
        } else {
            let sync = config.storage_sync;
            let database = config.database.clone();
            let connections = config.database_connections;
            let timeout = config.storage_timeout();
            let cluster = config.node_url.is_some();
            tokio::task::spawn_blocking(move || -> Result<_, StorageError> {
                Ok(match database {
                    Database::File(path) => (
                        Box::new(SqliteStorage::open(&path, sync)?) as Box<dyn Storage>,
                        None,
                    ),
                    Database::Postgres(url) => {
                        let store = PostgresStorage::open(&url, connections, timeout)?;
                        let leases = cluster.then(|| store.leases());
                        (Box::new(store) as Box<dyn Storage>, leases)
                    }
                })
            })
            .await
            .map_err(StorageError::database)??
        };
        Server::start_serving(config, strategy, store, leases).await
    }

    /// Like [`Server::start_with`], keeping rooms in `store` (whatever `config` says about
    /// storage): for tests, and for other storage back ends. A server so started is never a
    /// node of a cluster.
    pub async fn start_with_storage(
        config: Config,
        strategy: Arc<dyn Strategy>,
        store: Box<dyn Storage>,
    ) -> Result<Server, StartError> {
        if config.node_url.is_some() {
            return Err(StartError::ClusterNeedsPostgres);
        }
        Server::start_serving(config, strategy, store, None).await
    }

    /// Starts serving with `store`; a node of a cluster with `leases`, whose rooms are adopted
    /// as no node serves them rather than all loaded at start.
    // One piece: every part of the server made and wired together, in the order each needs.
    async fn start_serving(
        mut config: Config,
        strategy: Arc<dyn Strategy>,
        store: Box<dyn Storage>,
        leases: Option<Leases>,
    ) -> Result<Server, StartError> {
        let clustered = leases.is_some();
        // Off the runtime: a large file takes a while, and a database's driver waits on a
        // runtime of its own.
        let (store, loaded) = tokio::task::spawn_blocking(move || {
            let mut store = store;
            let loaded = if clustered {
                Ok(Loaded::default())
            } else {
                store.load()
            };
            (store, loaded)
        })
        .await
        .map_err(StorageError::database)?;
        let loaded = loaded?;
        let backlog = config.listen_backlog();
        let (listener, addr) = bind(config.addr, backlog).await?;
        if let Some(url) = &config.node_url {
            config.node_url = Some(node_url(url, addr.port())?);
        }
        let metrics = Arc::new(Metrics::new());
        let health = StorageHealth::new(config.max_held_writes, config.storage_timeout());
        let storage = StorageHandle::start(store, metrics.clone(), health);
        let config = Arc::new(config);
        let shutdown = CancellationToken::new();
        let rooms = TaskTracker::new();
        let threads = config
            .cpu_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
        let (closed, mut closed_rooms) = tokio::sync::mpsc::unbounded_channel();
        let context = RoomContext {
            config: config.clone(),
            cpu: CpuPool::new(threads, strategy),
            shutdown: shutdown.clone(),
            closed,
            storage: storage.clone(),
            metrics: metrics.clone(),
            tasks: rooms.clone(),
        };
        let ownership = match (leases, &config.node_url) {
            (Some(leases), Some(node)) => Some(Arc::new(Ownership::new(
                node.clone(),
                leases,
                config.lease(),
            ))),
            _ => None,
        };
        let directory = Arc::new(Directory::new(context.clone(), ownership.clone()));
        restore_rooms(loaded, &context, &directory);
        // Rooms that end (idle for too long, or finished and not rematched) leave the directory.
        let reaper = directory.clone();
        tokio::spawn(async move {
            while let Some(id) = closed_rooms.recv().await {
                reaper.ended(&id).await;
            }
        });
        let connections = TaskTracker::new();
        let health = Arc::new(Health::new());
        let forwarder = Forwarder::new(config.storage_timeout(), shutdown.clone());
        // Every socket is an open file: the limit, less what the server keeps open itself.
        let capacity = open_files::limit().map_or(usize::MAX, |limit| {
            usize::try_from(limit.saturating_sub(open_files::RESERVED)).unwrap_or(usize::MAX)
        });
        // Connections held over their address's cap take descriptors from a budget of their own.
        let held = Arc::new(held::HeldSockets::new(
            config.max_held_sockets.min(capacity / 4),
            config.hold_over_cap(),
        ));
        tracing::info!(
            backlog,
            held = held.budget(),
            hold_seconds = held.hold_for().as_secs_f64(),
            "accept queue, and connections over an address's cap held"
        );
        let admission = Arc::new(admission::Admission::new(
            config.max_sockets_per_address,
            config.trusted_proxies.clone(),
            capacity - held.budget(),
            config.socket_reserve,
        ));
        let cluster = ownership.map(|ownership| {
            let stop = CancellationToken::new();
            tracing::info!(node = ownership.node(), lease = ?ownership.term(), "a node of a cluster");
            tokio::spawn(cluster::renew_leases(
                directory.clone(),
                ownership.clone(),
                metrics.clone(),
                health.clone(),
                stop.clone(),
            ));
            tokio::spawn(cluster::adopt_unserved(
                directory.clone(),
                ownership.clone(),
                metrics.clone(),
                health.clone(),
                stop.clone(),
            ));
            (ownership, stop)
        });
        let state = AppState {
            directory,
            config: config.clone(),
            connections: connections.clone(),
            storage: storage.clone(),
            metrics: metrics.clone(),
            health: health.clone(),
            limits: Arc::new(AddressLimits::new(&config)),
            forwarder: forwarder.clone(),
            admission: admission.clone(),
        };
        let app = app::router(state);
        let stop_http = CancellationToken::new();
        let stop = stop_http.clone();
        let serving = http::Serving {
            admission,
            held,
            request_head: config.request_head(),
            metrics,
        };
        let task = tokio::spawn(async move { http::serve(listener, app, stop, serving).await });
        tracing::info!(%addr, "listening");
        Ok(Server {
            addr,
            shutdown,
            stop_http,
            task,
            connections,
            rooms,
            health,
            config,
            storage,
            forwarder,
            cluster,
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Starts draining: `/readyz` answers 503 and new rooms and WebSockets are refused
    /// (`shutting_down`), while the rooms and connections already there carry on. [`Server::stop`]
    /// drains first; a host calls this earlier to let a load balancer notice.
    pub fn drain(&self) {
        self.health.drain();
    }

    /// Shuts down: drains (for the configured drain time), then every room hands what it did to
    /// storage, waits until it is durable, delivers what waited for it and tells its clients the
    /// server is restarting (close 1012), and storage commits and closes. Past the configured
    /// shutdown time, whatever is left is abandoned; what rooms handed to storage is still
    /// committed.
    pub async fn stop(self) -> Stopped {
        self.drain();
        tokio::time::sleep(self.config.drain()).await;
        let deadline = tokio::time::Instant::now() + self.config.shutdown_timeout();
        self.shutdown.cancel();
        self.rooms.close();
        self.connections.close();
        let wait = async {
            self.rooms.wait().await;
            self.connections.wait().await;
            self.forwarder.wait().await;
        };
        if tokio::time::timeout_at(deadline, wait).await.is_err() {
            tracing::warn!("shutdown timed out; closing what is left");
        }
        // Whatever the rooms handed to the writer is committed before the process ends, unless
        // storage fails for longer than the storage timeout (the writer gives it up) or hangs
        // past the time: then the last transaction is lost whole (never half: SQLite's
        // journal), as it would be by a kill.
        let left = || deadline.max(tokio::time::Instant::now() + AT_LEAST);
        let stored = tokio::time::timeout_at(left(), self.storage.stop()).await;
        let stopped = match stored {
            Ok(true) => Stopped::Clean,
            _ => {
                tracing::error!(
                    "storage did not store its last writes (it failed, or did not finish in time): they may be lost"
                );
                Stopped::RecordsAbandoned
            }
        };
        if let Some((ownership, upkeep)) = &self.cluster {
            // Every room stored what it did: other nodes may adopt them at once.
            upkeep.cancel();
            match tokio::time::timeout_at(left(), ownership.release_all()).await {
                Ok(Ok(released)) => tracing::info!(rooms = released, "leases released"),
                _ => tracing::warn!("leases could not be released: they run out within a term"),
            }
        }
        self.stop_http.cancel();
        // Plain HTTP requests in flight get what is left of the time.
        let _ = tokio::time::timeout_at(left(), self.task).await;
        tracing::info!("stopped");
        stopped
    }
}

/// Binds `addr` (port 0 picks a free port) and says which address it got.
async fn bind(addr: SocketAddr, backlog: u32) -> Result<(TcpListener, SocketAddr), StartError> {
    let listen = |source| StartError::Listen { addr, source };
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    }
    .map_err(listen)?;
    // As `TcpListener::bind` does: a restarted server may bind while old connections linger.
    socket.set_reuseaddr(true).map_err(listen)?;
    socket.bind(addr).map_err(listen)?;
    // A burst of handshakes waits here to be accepted; past it the kernel drops them.
    let listener = socket.listen(backlog).map_err(listen)?;
    let bound = listener.local_addr().map_err(listen)?;
    Ok((listener, bound))
}

/// `url` with port 0 (if it names it) replaced by `port`, checked to be an `http://HOST:PORT` URL.
fn node_url(url: &str, port: u16) -> Result<String, StartError> {
    let bad = || StartError::NodeUrl(url.to_owned());
    let uri: axum::http::Uri = url.parse().map_err(|_| bad())?;
    let (Some("http"), Some(host)) = (uri.scheme_str(), uri.host()) else {
        return Err(bad());
    };
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(bad());
    }
    let port = match uri.port_u16() {
        Some(0) => port,
        Some(given) => given,
        None => 80,
    };
    Ok(format!("http://{host}:{port}"))
}

/// Brings every stored room back where it stood, into `directory`; time stood still while the
/// server was down. One bad room must not keep the others from being served, nor be served with
/// state it never had: it stays on disk, for someone to look at, and is set aside at every
/// start until then.
fn restore_rooms(loaded: Loaded, context: &RoomContext, directory: &Directory) {
    let stopped_at = loaded
        .rooms
        .iter()
        .flat_map(|r| r.records.iter().map(|(at, _)| *at))
        .chain(loaded.alive_at)
        .max()
        .unwrap_or(0);
    let mut restored = 0;
    for log in loaded.rooms {
        let id = log.id.clone();
        match room::restore(&log, context.clone(), stopped_at, None) {
            Ok(handle) => {
                directory.insert(id, handle);
                restored += 1;
            }
            Err(error) => {
                context.metrics.rooms_set_aside.inc();
                tracing::error!(
                    room = %id,
                    error = %storage::Chain(&error),
                    "a stored room cannot be rebuilt: it is set aside (not served, kept in storage)"
                );
            }
        }
    }
    if restored > 0 {
        tracing::info!(rooms = restored, "rooms restored from storage");
    }
}
