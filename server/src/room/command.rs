//! What a room takes from the server around it: the commands of its inbox, the handle that
//! sends them, and the context it runs in.

use std::sync::Arc;

use fourkings_protocol::{ClientRequest, RoomInfo};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::driver::CpuAnswer;
use crate::config::Config;
use crate::connection::{ConnId, Outbox};
use crate::cpu::CpuPool;
use crate::metrics::Metrics;
use crate::storage::writer::StorageHandle;

/// A game as a document for HTTP readers: its record (PGN4 for the cross board, PGN for Duo)
/// or its history (JSON).
#[derive(Debug)]
pub(crate) struct GameFile {
    /// The game's id (`<room>-<n>`), which names the file.
    pub(crate) id: String,
    /// `pgn4`, `pgn` or `json`.
    pub(crate) extension: &'static str,
    /// The document.
    pub(crate) text: String,
}

/// Which document of the current game an HTTP reader asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GameDocument {
    /// The record, to download: PGN4, or PGN for Duo.
    Record,
    /// Every position, as the protocol's `GameHistory` in JSON.
    History,
}

/// What a room's inbox takes.
pub(crate) enum Command {
    /// A connection opened the room's WebSocket.
    Connect {
        /// The connection.
        conn: ConnId,
        /// Where its messages go.
        outbox: Outbox,
    },
    /// A connection closed.
    Disconnect {
        /// The connection.
        conn: ConnId,
    },
    /// A connection sent more than the rate allows: it gets the answers to what it sent before,
    /// then the error `rate_limited`, then the close.
    Flooded {
        /// The connection.
        conn: ConnId,
    },
    /// A request from a connection.
    Message {
        /// The connection.
        conn: ConnId,
        /// The request.
        request: ClientRequest,
        /// When the connection read it (a move's round trip is measured from here).
        received: std::time::Instant,
    },
    /// The room's public state, for `GET /api/rooms/<id>`.
    Info {
        /// Where the answer goes.
        reply: oneshot::Sender<RoomInfo>,
    },
    /// A document of the current game, if a game has started.
    GameFile {
        /// Which document.
        document: GameDocument,
        /// Where the answer goes.
        reply: oneshot::Sender<Option<GameFile>>,
    },
    /// A CPU player chose a move.
    CpuMoved(CpuAnswer),
    /// This node lost the room's lease (another node took it, or the lease could not be
    /// renewed): the room stops at once and tells its connections to reconnect.
    LeaseLost,
    /// Another node of the cluster asks for the room, to serve a client that reached it: if
    /// nobody is connected here, the room stores everything and ends (answering `true`), and
    /// that node adopts it; otherwise it stays (`false`).
    HandOver {
        /// Where the answer goes.
        reply: oneshot::Sender<bool>,
    },
}

/// A cheap, cloneable handle on a room's task.
#[derive(Clone)]
pub(crate) struct RoomHandle {
    tx: mpsc::Sender<Command>,
}

impl RoomHandle {
    /// The handle on the room whose inbox `tx` sends to.
    pub(crate) fn new(tx: mpsc::Sender<Command>) -> RoomHandle {
        RoomHandle { tx }
    }

    /// Sends a command; `false` if the room has ended.
    pub(crate) async fn send(&self, command: Command) -> bool {
        // Nearly always there is room: `try_send` takes it without the future that waits for a
        // permit, and only a full inbox waits.
        match self.tx.try_send(command) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(command)) => self.tx.send(command).await.is_ok(),
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// What a room needs from the server around it.
#[derive(Clone)]
pub(crate) struct RoomContext {
    pub(crate) config: Arc<Config>,
    pub(crate) cpu: CpuPool,
    pub(crate) shutdown: CancellationToken,
    /// Where a room that ends sends its id, so the directory forgets it.
    pub(crate) closed: mpsc::UnboundedSender<String>,
    /// The writer that makes every record durable.
    pub(crate) storage: StorageHandle,
    /// What the room counts.
    pub(crate) metrics: Arc<Metrics>,
    /// Every room's task, so that a shutdown can wait until each has flushed.
    pub(crate) tasks: TaskTracker,
}
