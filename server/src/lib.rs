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
//! | `cpu` | the `Strategy` interface of CPU players and the blocking pool they think on |
//! | `ids` | room ids and secret tokens |
//! | `client` | `fourkings client`: a command-line client that speaks only the protocol |
//! | `web` | the browser client's files, embedded in the binary |
//!
//! Data flows one way: a connection parses a frame into a `ClientMessage` and sends it to its
//! room's inbox; the room validates it against its state and the engine, answers with an ack or an
//! error, records the events it caused (each with the next version), serialises each event once and
//! hands the same bytes to every connection's queue.

mod app;
pub mod client;
mod config;
mod connection;
pub mod cpu;
mod directory;
mod ids;
mod room;
mod web;

use std::net::SocketAddr;
use std::sync::Arc;

pub use config::Config;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::app::AppState;
use crate::cpu::{CpuPool, RandomMover, Strategy};
use crate::directory::Directory;
use crate::room::RoomContext;

/// A running server.
pub struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
    connections: TaskTracker,
    config: Arc<Config>,
}

impl Server {
    /// Binds `config.addr` (port 0 picks a free port) and starts serving, with the random mover
    /// for CPU seats.
    pub async fn start(config: Config) -> std::io::Result<Server> {
        Server::start_with(config, Arc::new(RandomMover)).await
    }

    /// Like [`Server::start`], with `strategy` for CPU seats.
    pub async fn start_with(
        config: Config,
        strategy: Arc<dyn Strategy>,
    ) -> std::io::Result<Server> {
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
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
        };
        let directory = Arc::new(Directory::new(context));
        // Rooms that end (idle for too long) leave the directory.
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
    }
}
