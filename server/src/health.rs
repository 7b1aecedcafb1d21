//! Whether the server is up and whether it is ready for rooms: what `/healthz` and `/readyz`
//! answer. Up is simply answering at all; ready means storage takes writes, the server is not
//! shutting down, and it has room for another room.

use std::sync::atomic::{AtomicBool, Ordering};

/// What the server knows about its own state that the handlers cannot see elsewhere.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// Set once a shutdown has begun: nothing new is accepted from then on.
    draining: AtomicBool,
    /// On a node of a cluster, set while its leases cannot be renewed: the database does not
    /// answer it (even with no write to make, which storage's own health would notice).
    database_unreachable: AtomicBool,
}

/// Why the server is not ready, or that it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Readiness {
    /// Ready for rooms.
    Ready,
    /// Shutting down: it refuses new rooms and connections.
    Draining,
    /// Storage takes no writes: it fails, hangs or is behind by as much as it may be, or its
    /// thread has stopped.
    StorageStopped,
    /// A node of a cluster cannot reach its database (its leases cannot be renewed).
    DatabaseUnreachable,
    /// It holds as many sockets as the open-files limit allows, less the reserve: it closes idle
    /// connections for new ones.
    AtSocketLimit,
    /// It holds as many rooms as it may.
    Full,
}

impl Readiness {
    /// What `/readyz` says, in a word.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Readiness::Ready => "ready",
            Readiness::Draining => "shutting down",
            Readiness::StorageStopped => "storage stopped",
            Readiness::DatabaseUnreachable => "database unreachable",
            Readiness::AtSocketLimit => "at the open-files limit",
            Readiness::Full => "full",
        }
    }
}

impl Health {
    pub(crate) fn new() -> Health {
        Health::default()
    }

    /// A shutdown has begun.
    pub(crate) fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Whether a shutdown has begun.
    pub(crate) fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Whether a node of a cluster reaches its database, as its last renewal of leases found.
    pub(crate) fn set_database_reachable(&self, reachable: bool) {
        self.database_unreachable
            .store(!reachable, Ordering::Relaxed);
    }

    /// How ready the server is, given whether storage runs and whether it is full; draining
    /// comes first, since it is the one a load balancer most needs to see.
    pub(crate) fn readiness(
        &self,
        storage_running: bool,
        at_socket_limit: bool,
        full: bool,
    ) -> Readiness {
        if self.draining() {
            Readiness::Draining
        } else if !storage_running {
            Readiness::StorageStopped
        } else if self.database_unreachable.load(Ordering::Relaxed) {
            Readiness::DatabaseUnreachable
        } else if at_socket_limit {
            Readiness::AtSocketLimit
        } else if full {
            Readiness::Full
        } else {
            Readiness::Ready
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Health, Readiness};

    #[test]
    fn draining_comes_before_every_other_reason() {
        let health = Health::new();
        assert_eq!(health.readiness(true, false, false), Readiness::Ready);
        assert_eq!(
            health.readiness(false, false, false),
            Readiness::StorageStopped
        );
        assert_eq!(health.readiness(true, false, true), Readiness::Full);
        health.set_database_reachable(false);
        assert_eq!(
            health.readiness(true, false, true),
            Readiness::DatabaseUnreachable
        );
        assert_eq!(
            health.readiness(false, false, false),
            Readiness::StorageStopped
        );
        health.set_database_reachable(true);
        assert_eq!(health.readiness(true, false, false), Readiness::Ready);
        assert_eq!(health.readiness(true, true, true), Readiness::AtSocketLimit);
        health.drain();
        assert_eq!(health.readiness(true, false, false), Readiness::Draining);
        assert_eq!(health.readiness(false, false, true), Readiness::Draining);
    }
}
