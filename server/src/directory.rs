//! The directory: room ids to room handles. The lock is never held across an `.await`.
//!
//! On a node of a cluster, a room this node does not serve is looked up in the database: served
//! by another node (whose URL the caller forwards to), or adopted here when no node serves it
//! (its lease claimed, its log read back, the room rebuilt and going on where it stood).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use fourkings_protocol::Settings;

use crate::ids::new_room_id;
use crate::ownership::{Ownership, Whereabouts};
use crate::room::{self, Command, RoomContext, RoomHandle};
use crate::storage::{Chain, RoomLog};

/// How many fresh ids a new room tries before it gives up: ids are random over a space where a
/// clash is rare, and several in a row mean something else is wrong.
const MOST_ID_TRIES: usize = 8;

/// Every room the server holds.
pub(crate) struct Directory {
    rooms: RwLock<HashMap<String, RoomHandle>>,
    context: RoomContext,
    /// This node's leases, on a node of a cluster.
    cluster: Option<Arc<Ownership>>,
}

/// Why a room could not be created.
#[derive(Debug)]
pub(crate) enum CreateError {
    /// The server holds as many rooms as it may.
    TooManyRooms,
    /// The database could not be asked for the room's lease.
    Storage,
}

/// Where a room is.
pub(crate) enum Found {
    /// Served here.
    Here(RoomHandle),
    /// Served by another node of the cluster: its URL.
    Elsewhere(String),
    /// No open room has that id.
    Missing,
    /// This node cannot tell or cannot take the room now (the database does not answer, or
    /// the node holds as many rooms as it may).
    Unavailable,
}

impl Directory {
    /// An empty directory for rooms in `context`, on a node of a cluster if `cluster` is given.
    pub(crate) fn new(context: RoomContext, cluster: Option<Arc<Ownership>>) -> Directory {
        Directory {
            rooms: RwLock::new(HashMap::new()),
            context,
            cluster,
        }
    }

    /// Creates a room; returns its id and host token.
    pub(crate) async fn create(&self, settings: Settings) -> Result<(String, String), CreateError> {
        if self.len() >= self.context.config.max_rooms {
            return Err(CreateError::TooManyRooms);
        }
        let (id, epoch) = self.new_id().await?;
        let (handle, host_token) = room::spawn(id.clone(), settings, self.context.clone(), epoch);
        self.insert(id.clone(), handle);
        Ok((id, host_token))
    }

    /// A fresh room id, and on a node of a cluster the epoch of the lease claimed for it.
    async fn new_id(&self) -> Result<(String, Option<u64>), CreateError> {
        for _ in 0..MOST_ID_TRIES {
            let id = new_room_id();
            if self.get(&id).is_some() {
                continue;
            }
            let Some(cluster) = &self.cluster else {
                return Ok((id, None));
            };
            match cluster.claim_new(&id).await {
                Ok(Some(epoch)) => return Ok((id, Some(epoch))),
                Ok(None) => continue,
                Err(error) => {
                    tracing::warn!(error = %Chain(&error), "a new room's lease could not be claimed");
                    return Err(CreateError::Storage);
                }
            }
        }
        tracing::error!(tries = MOST_ID_TRIES, "every new room id tried was taken");
        Err(CreateError::Storage)
    }

    /// Adds a room rebuilt from storage.
    pub(crate) fn insert(&self, id: String, handle: RoomHandle) {
        self.rooms
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, handle);
    }

    /// Forgets a room that has ended (closed, set aside, or moved to another node), and
    /// releases its lease if this node still holds it.
    pub(crate) async fn ended(&self, id: &str) {
        self.rooms
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        if let Some(cluster) = &self.cluster {
            cluster.forget(id).await;
        }
    }

    /// Whether this server is a node of a cluster.
    pub(crate) fn is_clustered(&self) -> bool {
        self.cluster.is_some()
    }

    /// How many rooms it holds.
    pub(crate) fn len(&self) -> usize {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The room with this id, if it is served here.
    pub(crate) fn get(&self, id: &str) -> Option<RoomHandle> {
        self.rooms
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    /// Where the room with this id is: here, on another node, or nowhere. On a node of a
    /// cluster, a room that no node serves is adopted here.
    pub(crate) async fn find(&self, id: &str) -> Found {
        if let Some(room) = self.get(id) {
            return Found::Here(room);
        }
        match &self.cluster {
            Some(cluster) => self.adopt(cluster, id).await,
            None => Found::Missing,
        }
    }

    /// Takes the room `id` over if no node serves it: claims its lease, reads its log and
    /// rebuilds it, with time stood still since its last node was last known to serve it.
    pub(crate) async fn adopt(&self, cluster: &Ownership, id: &str) -> Found {
        let _one_at_a_time = cluster.adoption().await;
        if let Some(room) = self.get(id) {
            return Found::Here(room);
        }
        if self.len() >= self.context.config.max_rooms {
            return Found::Unavailable;
        }
        let (epoch, idle_since) = match cluster.claim(id).await {
            Ok(Whereabouts::Taken { epoch, idle_since }) => (epoch, idle_since),
            Ok(Whereabouts::Elsewhere(node)) => return Found::Elsewhere(node),
            Ok(Whereabouts::Missing) => return Found::Missing,
            Err(error) => {
                tracing::warn!(room = id, error = %Chain(&error), "a room's lease could not be looked up");
                return Found::Unavailable;
            }
        };
        let log = match self.context.storage.room(id).await {
            Ok(Some(log)) => log,
            Ok(None) => {
                // Closed between the claim and the read.
                cluster.forget(id).await;
                return Found::Missing;
            }
            Err(error) => {
                tracing::warn!(room = id, error = %Chain(&error), "an adopted room could not be read");
                cluster.forget(id).await;
                return Found::Unavailable;
            }
        };
        let stopped_at = idle_since.into_iter().chain(last_record_at(&log)).max();
        let stopped_at = stopped_at.unwrap_or_else(crate::storage::writer::now_ms);
        match room::restore(&log, self.context.clone(), stopped_at, Some(epoch)) {
            Ok(handle) => {
                self.context.metrics.cluster.rooms_adopted.inc();
                tracing::info!(room = id, epoch, "adopted a room no node served");
                self.insert(id.to_owned(), handle.clone());
                Found::Here(handle)
            }
            Err(error) => {
                self.context.metrics.rooms_set_aside.inc();
                tracing::error!(
                    room = id,
                    error = %Chain(&error),
                    "an adopted room cannot be rebuilt: it is set aside (not served, kept in storage)"
                );
                cluster.set_aside(id);
                Found::Missing
            }
        }
    }

    /// Hands the room `id` over to another node that asks for it, if nobody is connected to it
    /// here: it stores everything and ends, and its lease is released. Whether it was.
    pub(crate) async fn hand_over(&self, id: &str) -> bool {
        let (Some(room), Some(cluster)) = (self.get(id), &self.cluster) else {
            return false;
        };
        let Some(epoch) = cluster.epoch_of(id) else {
            return false;
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        if !room.send(Command::HandOver { reply }).await || answer.await != Ok(true) {
            return false;
        }
        self.rooms
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        // Released before the answer, so that the asking node finds the lease free (the room's
        // end also reaches the reaper, whose release may not have landed yet).
        if let Err(error) = cluster.release(id, epoch).await {
            tracing::warn!(room = id, error = %Chain(&error), "a handed-over room's lease could not be released");
            return false;
        }
        true
    }

    /// Tells the room `id` that this node lost its lease: it closes its connections (1012) and
    /// ends, and leaves the directory then.
    pub(crate) async fn lease_lost(&self, id: &str) {
        if let Some(room) = self.get(id) {
            room.send(Command::LeaseLost).await;
        }
    }
}

/// When the room's last record was written (ms since the epoch).
fn last_record_at(log: &RoomLog) -> Option<u64> {
    log.records.last().map(|(at, _)| *at)
}
