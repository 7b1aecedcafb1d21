//! Room leases in PostgreSQL, for several nodes over one database: a room belongs to the node
//! that holds its lease, for a term the node renews in the background. Each claim of a room by
//! a node starts a new epoch; every write a node makes for the room carries the epoch of its
//! lease, and the database refuses one whose epoch is not the lease's
//! ([`StorageError::Moved`]; the function `fourkings_fence` of the schema's second migration),
//! so a node that was paused or cut off past its term can never write into a room that moved.
//! Time is the database's clock, the one clock every node shares.

use std::time::Duration;

use deadpool_postgres::Pool;

use super::StorageError;

/// What claiming a room's lease gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The lease is this node's, under a new epoch.
    Taken {
        /// The epoch every write for the room carries while the lease lasts.
        epoch: u64,
        /// When the room's previous holder last renewed its lease or released it (ms since
        /// the Unix epoch, the database's clock): the last moment the room was known to be
        /// served. `None` if the room had no lease before.
        idle_since: Option<u64>,
    },
    /// Another node holds a lease that has not run out.
    Held {
        /// That node's URL (`--node-url`).
        node: String,
    },
    /// No open room has this id (never created, or closed).
    Missing,
}

/// The leases of a PostgreSQL store ([`super::postgres::PostgresStorage::leases`]). Each call
/// takes at most the storage timeout.
#[derive(Clone)]
pub struct Leases {
    pool: Pool,
    timeout: Duration,
}

impl std::fmt::Debug for Leases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leases").finish_non_exhaustive()
    }
}

impl Leases {
    pub(super) fn new(pool: Pool, timeout: Duration) -> Leases {
        Leases { pool, timeout }
    }

    /// Claims the id of a room `node` is about to create, for `term`, under epoch 1: `false`
    /// if the id is taken (a room, open or closed, or a lease has it).
    pub async fn claim_new(
        &self,
        room: &str,
        node: &str,
        term: Duration,
    ) -> Result<bool, StorageError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            let taken = client
                .query_opt(
                    "INSERT INTO leases (room, node, epoch, expires_at, renewed_at)
                     SELECT $1, $2, 1, now() + $3::FLOAT8 * interval '1 millisecond', now()
                     WHERE NOT EXISTS (SELECT 1 FROM rooms WHERE id = $1)
                     ON CONFLICT (room) DO NOTHING
                     RETURNING epoch",
                    &[&room, &node, &millis(term)],
                )
                .await
                .map_err(StorageError::database)?;
            Ok(taken.is_some())
        })
        .await
    }

    /// Claims the open room `room` for `node` for `term`: taken, under the next epoch, if no
    /// lease is live (never held, run out, or released) or the live one is `node`'s own (a node
    /// restarted under the same URL: the new epoch fences its former run); otherwise held by
    /// another node, or missing if no open room has that id.
    pub async fn claim(
        &self,
        room: &str,
        node: &str,
        term: Duration,
    ) -> Result<Claim, StorageError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            // `before` sees the lease as it was when the statement began: its last renewal.
            let taken = client
                .query_opt(
                    "WITH before AS (SELECT renewed_at FROM leases WHERE room = $1)
                     INSERT INTO leases (room, node, epoch, expires_at, renewed_at)
                     SELECT $1, $2, 1, now() + $3::FLOAT8 * interval '1 millisecond', now()
                     WHERE EXISTS (SELECT 1 FROM rooms WHERE id = $1 AND closed_at IS NULL)
                     ON CONFLICT (room) DO UPDATE
                         SET node = EXCLUDED.node, epoch = leases.epoch + 1,
                             expires_at = EXCLUDED.expires_at, renewed_at = now()
                         WHERE leases.expires_at <= now() OR leases.node = EXCLUDED.node
                     RETURNING epoch,
                         (SELECT (extract(epoch FROM renewed_at) * 1000)::BIGINT FROM before)",
                    &[&room, &node, &millis(term)],
                )
                .await
                .map_err(StorageError::database)?;
            if let Some(row) = taken {
                return Ok(Claim::Taken {
                    epoch: row.get::<_, i64>(0) as u64,
                    idle_since: row.get::<_, Option<i64>>(1).map(|at| at as u64),
                });
            }
            let found = client
                .query_one(
                    "SELECT (SELECT node FROM leases WHERE room = $1),
                         EXISTS (SELECT 1 FROM rooms WHERE id = $1 AND closed_at IS NULL)",
                    &[&room],
                )
                .await
                .map_err(StorageError::database)?;
            Ok(match (found.get::<_, Option<String>>(0), found.get(1)) {
                (Some(node), true) => Claim::Held { node },
                _ => Claim::Missing,
            })
        })
        .await
    }

    /// Open rooms that no node serves: without a lease, or whose lease ran out or was released;
    /// with `own`, also those whose lease is `node`'s (a node restarted under its URL takes its
    /// rooms back at once). At most `most` of them, in random order, so that nodes scanning
    /// together spread the rooms of a node that went away between them.
    pub async fn unserved(
        &self,
        node: &str,
        own: bool,
        most: usize,
    ) -> Result<Vec<String>, StorageError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            let rows = client
                .query(
                    "SELECT rooms.id FROM rooms LEFT JOIN leases ON leases.room = rooms.id
                     WHERE rooms.closed_at IS NULL
                         AND (leases.room IS NULL OR leases.expires_at <= now()
                              OR ($2 AND leases.node = $1))
                     ORDER BY random() LIMIT $3",
                    &[&node, &own, &(most as i64)],
                )
                .await
                .map_err(StorageError::database)?;
            Ok(rows.into_iter().map(|row| row.get(0)).collect())
        })
        .await
    }

    /// Renews `node`'s leases `held` (each room with its epoch) for another `term`; returns
    /// the rooms whose lease is no longer `node`'s under that epoch (another node took it) or
    /// was released (its end set to its last renewal: a renewal sent before the release must
    /// not bring it back), which `node` must stop serving at once. A lease that ran out and that
    /// no node took yet is renewed: whichever of the renewal and another node's claim comes
    /// second finds the lease as the first left it.
    pub async fn renew(
        &self,
        node: &str,
        held: &[(String, u64)],
        term: Duration,
    ) -> Result<Vec<String>, StorageError> {
        let (rooms, epochs) = columns(held);
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            let renewed: std::collections::HashSet<String> = client
                .query(
                    "UPDATE leases
                     SET expires_at = now() + $4::FLOAT8 * interval '1 millisecond',
                         renewed_at = now()
                     FROM unnest($1::TEXT[], $2::BIGINT[]) AS held(room, epoch)
                     WHERE leases.room = held.room AND leases.epoch = held.epoch
                         AND leases.node = $3 AND leases.expires_at > leases.renewed_at
                     RETURNING leases.room",
                    &[&rooms, &epochs, &node, &millis(term)],
                )
                .await
                .map_err(StorageError::database)?
                .into_iter()
                .map(|row| row.get(0))
                .collect();
            Ok(rooms
                .into_iter()
                .filter(|room| !renewed.contains(room))
                .collect())
        })
        .await
    }

    /// Ends `node`'s leases `held` at once, so that another node may claim each room without
    /// waiting for its term to run out (a node shutting down hands its rooms over).
    pub async fn release(&self, node: &str, held: &[(String, u64)]) -> Result<(), StorageError> {
        let (rooms, epochs) = columns(held);
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            client
                .execute(
                    "UPDATE leases SET expires_at = now(), renewed_at = now()
                     FROM unnest($1::TEXT[], $2::BIGINT[]) AS held(room, epoch)
                     WHERE leases.room = held.room AND leases.epoch = held.epoch
                         AND leases.node = $3",
                    &[&rooms, &epochs, &node],
                )
                .await
                .map_err(StorageError::database)?;
            Ok(())
        })
        .await
    }

    /// The node whose lease on `room` is live, if any.
    pub async fn holder(&self, room: &str) -> Result<Option<String>, StorageError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            let row = client
                .query_opt(
                    "SELECT node FROM leases WHERE room = $1 AND expires_at > now()",
                    &[&room],
                )
                .await
                .map_err(StorageError::database)?;
            Ok(row.map(|row| row.get(0)))
        })
        .await
    }

    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, StorageError>>,
    ) -> Result<T, StorageError> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(StorageError::database(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no answer from PostgreSQL within {:?}", self.timeout),
                )))
            })
    }
}

/// A term in milliseconds, as the statements take it.
fn millis(term: Duration) -> f64 {
    term.as_secs_f64() * 1000.0
}

/// Rooms and epochs as two arrays, for `unnest`.
fn columns(held: &[(String, u64)]) -> (Vec<String>, Vec<i64>) {
    held.iter()
        .map(|(room, epoch)| (room.clone(), *epoch as i64))
        .unzip()
}
