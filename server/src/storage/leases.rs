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
    },
    /// Another node holds a lease that has not run out.
    Held {
        /// That node's URL (`--node-url`).
        node: String,
    },
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

    /// Claims `room` for `node` for `term`: taken, under the next epoch, if no lease is live
    /// (never held, run out, or released) or the live one is `node`'s own (a node restarted
    /// under the same URL: the new epoch fences its former run); otherwise held.
    pub async fn claim(
        &self,
        room: &str,
        node: &str,
        term: Duration,
    ) -> Result<Claim, StorageError> {
        self.bounded(async {
            let client = self.pool.get().await.map_err(StorageError::database)?;
            let taken = client
                .query_opt(
                    "INSERT INTO leases (room, node, epoch, expires_at)
                     VALUES ($1, $2, 1, now() + $3::FLOAT8 * interval '1 millisecond')
                     ON CONFLICT (room) DO UPDATE
                         SET node = EXCLUDED.node, epoch = leases.epoch + 1,
                             expires_at = EXCLUDED.expires_at
                         WHERE leases.expires_at <= now() OR leases.node = EXCLUDED.node
                     RETURNING epoch",
                    &[&room, &node, &millis(term)],
                )
                .await
                .map_err(StorageError::database)?;
            if let Some(row) = taken {
                return Ok(Claim::Taken {
                    epoch: row.get::<_, i64>(0) as u64,
                });
            }
            let holder = client
                .query_one("SELECT node FROM leases WHERE room = $1", &[&room])
                .await
                .map_err(StorageError::database)?;
            Ok(Claim::Held {
                node: holder.get(0),
            })
        })
        .await
    }

    /// Renews `node`'s leases `held` (each room with its epoch) for another `term`; returns
    /// the rooms whose lease is no longer `node`'s under that epoch (another node took it), which
    /// `node` must stop serving at once.
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
                    "UPDATE leases SET expires_at = now() + $4::FLOAT8 * interval '1 millisecond'
                     FROM unnest($1::TEXT[], $2::BIGINT[]) AS held(room, epoch)
                     WHERE leases.room = held.room AND leases.epoch = held.epoch
                         AND leases.node = $3
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
                    "UPDATE leases SET expires_at = now()
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
