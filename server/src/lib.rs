//! The Four Kings game server: private rooms, seats and authoritative play over WebSockets.
//!
//! # Layout
//!
//! | module | concern |
//! |---|---|
//! | `config` | every setting, from flags or `FOURKINGS_*` environment variables |
//! | `app` | the HTTP routes: room API, WebSocket upgrade, health |
//! | `directory` | room ids to room handles |
//! | `room` | one task per room that owns all of its state: seats, settings, the game, the event log |
//! | `connection` | one WebSocket: a reader that checks and parses frames, a writer with a bounded queue |
//! | `arena` | bot-against-bot matches in parallel threads, and their score table |
//! | `cpu` | the `Strategy` interface of CPU players and the blocking pool they think on |
//! | `ids` | room ids and secret tokens |
//! | `client` | `fourkings client`: a command-line client that speaks only the protocol |
//! | `web` | the browser client's files, embedded in the binary |
//! | `storage` | the durable log of every room and the archive of finished games (SQLite or memory) |
//!
//! Data flows one way: a connection parses a frame into a `ClientMessage` and sends it to its
//! room's inbox; the room validates it against its state and the engine, answers with an ack or an
//! error, records the events it caused (each with the next version), serialises each event once and
//! hands the same bytes to every connection's queue.

mod app;
pub mod arena;
pub mod client;
mod config;
mod connection;
pub mod cpu;
mod directory;
mod ids;
mod room;
pub mod storage;
mod web;

use std::net::SocketAddr;
use std::sync::Arc;

pub use config::Config;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::app::AppState;
use crate::cpu::{CpuPool, EngineBot, RandomMover, Strategy};
use crate::directory::Directory;
use crate::room::RoomContext;
use crate::storage::memory::MemoryStorage;
use crate::storage::sqlite::{SqliteStorage, Sync};
use crate::storage::writer::StorageHandle;
use crate::storage::{Storage, StorageError};

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
    /// A stored room could not be rebuilt.
    #[error("cannot rebuild a stored room: {0}")]
    Restore(String),
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
    connections: TaskTracker,
    config: Arc<Config>,
    storage: StorageHandle,
}

impl Server {
    /// Opens storage (the SQLite file, or memory), brings back every stored room, binds
    /// `config.addr` (port 0 picks a free port) and starts serving, with the CPU strategy the
    /// configuration names (the engine's bot unless it says `random`).
    pub async fn start(config: Config) -> Result<Server, StartError> {
        let strategy: Arc<dyn Strategy> = if config.cpu_strategy == "random" {
            Arc::new(RandomMover)
        } else {
            Arc::new(EngineBot)
        };
        Server::start_with(config, strategy).await
    }

    /// Like [`Server::start`], with `strategy` for CPU seats.
    pub async fn start_with(
        config: Config,
        strategy: Arc<dyn Strategy>,
    ) -> Result<Server, StartError> {
        let store: Box<dyn Storage> = if config.in_memory {
            Box::new(MemoryStorage::new())
        } else {
            let sync = if config.storage_sync == "normal" {
                Sync::Normal
            } else {
                Sync::Full
            };
            let path = config.database.clone();
            Box::new(
                tokio::task::spawn_blocking(move || SqliteStorage::open(&path, sync))
                    .await
                    .map_err(|e| StorageError::Database(e.to_string()))??,
            )
        };
        Server::start_with_storage(config, strategy, store).await
    }

    /// Like [`Server::start_with`], keeping rooms in `store` (whatever `config` says about
    /// storage): for tests, and for other storage back ends.
    pub async fn start_with_storage(
        config: Config,
        strategy: Arc<dyn Strategy>,
        mut store: Box<dyn Storage>,
    ) -> Result<Server, StartError> {
        let loaded = store.load()?;
        let listener =
            TcpListener::bind(config.addr)
                .await
                .map_err(|source| StartError::Listen {
                    addr: config.addr,
                    source,
                })?;
        let addr = listener.local_addr().map_err(|source| StartError::Listen {
            addr: config.addr,
            source,
        })?;
        let storage = StorageHandle::start(store);
        let config = Arc::new(config);
        let shutdown = CancellationToken::new();
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
        };
        let directory = Arc::new(Directory::new(context.clone()));
        // Every stored room comes back where it stood; time stood still while the server was down.
        let stopped_at = loaded
            .rooms
            .iter()
            .flat_map(|r| r.records.iter().map(|(at, _)| *at))
            .chain(loaded.alive_at)
            .max()
            .unwrap_or(0);
        let restored = loaded.rooms.len();
        for log in loaded.rooms {
            let id = log.id.clone();
            let handle =
                room::restore(&log, context.clone(), stopped_at).map_err(StartError::Restore)?;
            directory.insert(id, handle);
        }
        if restored > 0 {
            tracing::info!(rooms = restored, "rooms restored from storage");
        }
        // Rooms that end (idle for too long, or finished and not rematched) leave the directory.
        let reaper = directory.clone();
        tokio::spawn(async move {
            while let Some(id) = closed_rooms.recv().await {
                reaper.remove(&id);
            }
        });
        let connections = TaskTracker::new();
        let state = AppState {
            directory,
            config: config.clone(),
            connections: connections.clone(),
            storage: storage.clone(),
        };
        let app = app::router(state);
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
        });
        tracing::info!(%addr, "listening");
        Ok(Server {
            addr,
            shutdown,
            task,
            connections,
            config,
            storage,
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, tells every connected client the server is restarting, and waits (up to
    /// the configured time) for connections to close.
    pub async fn stop(self) {
        self.shutdown.cancel();
        self.connections.close();
        let wait = async {
            let _ = self.task.await;
            self.connections.wait().await;
        };
        if tokio::time::timeout(self.config.shutdown_timeout(), wait)
            .await
            .is_err()
        {
            tracing::warn!("shutdown timed out; closing what is left");
        }
        // Whatever the rooms handed to the writer is committed before the process ends.
        self.storage.stop().await;
    }
}
