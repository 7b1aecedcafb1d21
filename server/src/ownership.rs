//! Which rooms this node of a cluster owns: the leases it holds in PostgreSQL
//! ([`crate::storage::leases`]), each room with the epoch its writes carry. It knows nothing of
//! rooms themselves: the directory claims through it, and the cluster's upkeep renews through it.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::storage::StorageError;
use crate::storage::leases::{Claim, Leases};

/// This node's leases.
pub(crate) struct Ownership {
    /// How other nodes reach this one (`--node-url`), the name its leases are held under.
    node: String,
    leases: Leases,
    /// How long a lease lasts from its last renewal.
    term: Duration,
    held: Mutex<Held>,
    /// One adoption at a time: two requests for the same room must not claim it twice (each
    /// claim starts a new epoch, and the second would fence the first).
    adopting: tokio::sync::Mutex<()>,
}

/// The rooms held, and what is known of the leases.
#[derive(Default)]
struct Held {
    /// Each room this node serves, with its lease's epoch.
    rooms: HashMap<String, u64>,
    /// Rooms this node took but could not rebuild: it does not try them again (their leases
    /// run out, and each other node tries once).
    set_aside: HashSet<String>,
    /// When the last renewal that reached the database was sent: every lease held then lasts
    /// at least a term from it.
    renewed: Option<Instant>,
}

/// What a renewal of leases did.
pub(crate) struct Renewal {
    /// Leases renewed.
    pub(crate) renewed: usize,
    /// Rooms whose lease is lost: this node no longer holds them.
    pub(crate) lost: Vec<String>,
    /// Why the database could not be reached, if it could not.
    pub(crate) error: Option<StorageError>,
}

/// What a room's lookup in the cluster gave.
#[derive(Debug)]
pub(crate) enum Whereabouts {
    /// This node took the room's lease, under this epoch; `idle_since` as in [`Claim::Taken`].
    Taken { epoch: u64, idle_since: Option<u64> },
    /// Another node serves the room: its URL.
    Elsewhere(String),
    /// No open room has that id, or it is set aside.
    Missing,
}

impl Ownership {
    /// The leases of `node` in `leases`, each for `term`.
    pub(crate) fn new(node: String, leases: Leases, term: Duration) -> Ownership {
        Ownership {
            node,
            leases,
            term,
            held: Mutex::new(Held::default()),
            adopting: tokio::sync::Mutex::new(()),
        }
    }

    /// This node's URL.
    pub(crate) fn node(&self) -> &str {
        &self.node
    }

    /// A lease's term.
    pub(crate) fn term(&self) -> Duration {
        self.term
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims a new room's id: its epoch (the first), or `None` if the id is taken.
    pub(crate) async fn claim_new(&self, room: &str) -> Result<Option<u64>, StorageError> {
        let sent = Instant::now();
        if !self.leases.claim_new(room, &self.node, self.term).await? {
            return Ok(None);
        }
        self.hold(room, 1, sent);
        Ok(Some(1))
    }

    /// The lock under which a room is looked up and adopted; `is_here` is asked again under it.
    pub(crate) async fn adoption(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.adopting.lock().await
    }

    /// Claims an open room that this node does not serve (call under [`Ownership::adoption`]).
    pub(crate) async fn claim(&self, room: &str) -> Result<Whereabouts, StorageError> {
        if self.held().set_aside.contains(room) {
            return Ok(Whereabouts::Missing);
        }
        let sent = Instant::now();
        Ok(
            match self.leases.claim(room, &self.node, self.term).await? {
                Claim::Taken { epoch, idle_since } => {
                    self.hold(room, epoch, sent);
                    Whereabouts::Taken { epoch, idle_since }
                }
                Claim::Held { node } if node == self.node => Whereabouts::Missing,
                Claim::Held { node } => Whereabouts::Elsewhere(node),
                Claim::Missing => Whereabouts::Missing,
            },
        )
    }

    fn hold(&self, room: &str, epoch: u64, sent: Instant) {
        let mut held = self.held();
        held.rooms.insert(room.to_owned(), epoch);
        // A node's first lease counts as its first renewal.
        held.renewed.get_or_insert(sent);
    }

    /// A room taken but not rebuilt: not served, its lease left to run out, and not tried
    /// again by this node.
    pub(crate) fn set_aside(&self, room: &str) {
        let mut held = self.held();
        held.rooms.remove(room);
        held.set_aside.insert(room.to_owned());
    }

    /// How many rooms this node serves.
    pub(crate) fn len(&self) -> usize {
        self.held().rooms.len()
    }

    /// Open rooms that no node serves (with `own`, also those leased to this node's URL by a
    /// former run), at most `most`, excluding what this node holds.
    pub(crate) async fn unserved(
        &self,
        own: bool,
        most: usize,
    ) -> Result<Vec<String>, StorageError> {
        let mut rooms = self.leases.unserved(&self.node, own, most).await?;
        let held = self.held();
        rooms.retain(|room| !held.rooms.contains_key(room) && !held.set_aside.contains(room));
        Ok(rooms)
    }

    /// Renews every lease held for another term. The rooms lost are no longer held and must
    /// stop being served at once: those another node took, and all of them if no renewal has
    /// reached the database for a whole term (each may have been taken since).
    pub(crate) async fn renew(&self) -> Renewal {
        let sent = Instant::now();
        let rooms: Vec<(String, u64)> = self
            .held()
            .rooms
            .iter()
            .map(|(room, epoch)| (room.clone(), *epoch))
            .collect();
        let error = match self.leases.renew(&self.node, &rooms, self.term).await {
            Ok(lost) => {
                let mut held = self.held();
                held.renewed = Some(sent);
                let renewed = rooms.len() - lost.len();
                // Only under the epoch renewed: a room given up and taken again meanwhile (a
                // new epoch) is not lost.
                let lost = lost
                    .into_iter()
                    .filter(|room| {
                        let sent_epoch = rooms.iter().find(|(r, _)| r == room).map(|(_, e)| *e);
                        let still = held.rooms.get(room).copied() == sent_epoch;
                        if still {
                            held.rooms.remove(room);
                        }
                        still
                    })
                    .collect();
                return Renewal {
                    renewed,
                    lost,
                    error: None,
                };
            }
            Err(error) => error,
        };
        let mut held = self.held();
        let ran_out = held.renewed.is_some_and(|at| sent >= at + self.term);
        let lost = if ran_out {
            tracing::error!(
                rooms = held.rooms.len(),
                "no lease was renewed for a whole term: every room is given up, for another node to adopt"
            );
            held.renewed = None;
            held.rooms.drain().map(|(room, _)| room).collect()
        } else {
            Vec::new()
        };
        Renewal {
            renewed: 0,
            lost,
            error: Some(error),
        }
    }

    /// The epoch of this node's lease on `room`, if it holds one.
    pub(crate) fn epoch_of(&self, room: &str) -> Option<u64> {
        self.held().rooms.get(room).copied()
    }

    /// Releases this node's lease on `room` under `epoch`, whoever else is releasing it, and
    /// returns once the database has it (a lease another node took since is left alone).
    pub(crate) async fn release(&self, room: &str, epoch: u64) -> Result<(), StorageError> {
        {
            let mut held = self.held();
            if held.rooms.get(room) == Some(&epoch) {
                held.rooms.remove(room);
            }
        }
        self.leases
            .release(&self.node, &[(room.to_owned(), epoch)])
            .await
    }

    /// Forgets a room this node stopped serving (closed, or moved), releasing its lease if it is
    /// still this node's.
    pub(crate) async fn forget(&self, room: &str) {
        let Some(epoch) = self.held().rooms.remove(room) else {
            return;
        };
        if let Err(error) = self
            .leases
            .release(&self.node, &[(room.to_owned(), epoch)])
            .await
        {
            // It runs out within a term anyway.
            tracing::warn!(room, error = %crate::storage::Chain(&error), "a lease could not be released");
        }
    }

    /// Releases every lease held, so that other nodes adopt the rooms at once (the node is
    /// stopping, and its rooms have stored everything).
    pub(crate) async fn release_all(&self) -> Result<usize, StorageError> {
        let rooms: Vec<(String, u64)> = self.held().rooms.drain().collect();
        self.leases.release(&self.node, &rooms).await?;
        Ok(rooms.len())
    }
}
