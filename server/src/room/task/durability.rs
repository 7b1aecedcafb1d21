//! The room and storage: the journal handed to the writer at the end of each turn, what the
//! writer made durable released to clients and HTTP readers, writes storage gave up refused, and
//! the room's last writes flushed when the server stops.

use tokio::time::Instant;

use super::Room;
use crate::room::refusal::Refusal;
use crate::storage::health::StorageDown;
use crate::storage::writer::{Report, Written};

impl Room {
    /// Storage gave up what the room handed it: every request whose answer waited for it is
    /// refused, and nothing else that waited goes out. The room's connections are closed when
    /// it is dropped (they reconnect to the room rebuilt from what is stored).
    pub(super) fn storage_lost(&mut self) {
        tracing::warn!(
            durable = self.delivery.durable(),
            handed_over = self.journal.stored_version(),
            "storage gave up this room's latest writes: its requests are refused, and it goes back to what is stored"
        );
        self.delivery
            .refuse_held(&Refusal::StorageUnavailable(StorageDown::GaveUp));
    }

    /// This node no longer holds the room's lease (another node took it and the database
    /// refused the room's writes, or the lease could not be renewed in time): nothing that
    /// waited for storage goes out, and every connection is told to reconnect (1012); a client
    /// that does reaches the room wherever it is served now.
    pub(super) fn moved_away(&mut self) {
        tracing::warn!(
            durable = self.delivery.durable(),
            handed_over = self.journal.stored_version(),
            "this node no longer holds the room's lease: its connections are closed, to reconnect where it is served"
        );
        self.delivery
            .close_all(fourkings_protocol::close::SERVER_RESTARTING);
    }

    /// Hands the journal to the writer; what waited for it goes out now if it is durable at
    /// once.
    pub(super) fn persist(&mut self) {
        let version = self.events.version();
        if self.journal.hand_over(version) == Written::Now {
            self.durable_upto(version);
        }
    }

    /// Storage made everything up to `upto` durable: what waited for it goes out, to clients and
    /// to HTTP readers.
    pub(super) fn durable_upto(&mut self, upto: u64) {
        self.delivery.durable_upto(upto);
        let durable = self.delivery.durable();
        self.views
            .durable_upto(durable, durable >= self.events.version());
    }

    /// Whether everything the room published is durable (nothing on its way to the disk).
    pub(super) fn all_durable(&self) -> bool {
        self.delivery.durable() >= self.events.version()
    }

    /// The server is stopping: everything this room did is handed to the writer, and what waited
    /// for it to be durable (acks, events) is delivered once it is; then every connection is told
    /// the server is restarting, so that its client reconnects with backoff. Requests that come
    /// in meanwhile are not handled: the client sends them again after reconnecting. The server
    /// bounds how long this may take.
    pub(super) async fn shut_down(&mut self) {
        self.driver.cancel_cpu();
        self.persist();
        let limit = Instant::now() + self.context.config.room_flush_limit();
        while self.delivery.durable() < self.journal.stored_version() {
            match tokio::time::timeout_at(limit, self.journal.report()).await {
                Ok(Some(Report::Durable(upto))) => self.durable_upto(upto),
                Ok(Some(Report::Lost)) => {
                    self.storage_lost();
                    break;
                }
                // What waited is not delivered: the database refused it.
                Ok(Some(Report::Moved)) => break,
                Ok(None) => break,
                Err(_) => {
                    // What waits for storage is never sent: it may not be stored.
                    tracing::warn!(
                        durable = self.delivery.durable(),
                        handed_over = self.journal.stored_version(),
                        "storage did not make this room's records durable in time; closing its connections anyway"
                    );
                    break;
                }
            }
        }
        self.delivery
            .close_all(fourkings_protocol::close::SERVER_RESTARTING);
        tracing::debug!(
            connections = self.delivery.len(),
            "room flushed for shutdown"
        );
    }
}
