//! A node of a cluster keeping its rooms: in the background (two tasks) it renews its leases and
//! stops serving the rooms whose lease it lost, and it adopts the rooms no node serves (those of a node
//! that stopped or died), so that their timers and CPU players go on without waiting for a
//! client to ask for them.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::directory::Directory;
use crate::health::Health;
use crate::metrics::Metrics;
use crate::ownership::Ownership;
use crate::storage::Chain;

/// The most unserved rooms one scan adopts: a node that went away leaves many, and nodes that
/// scan together should share them out rather than one taking all.
const ADOPTIONS_PER_SCAN: usize = 8;

/// How often a node looks for rooms nobody serves, as a share of the lease: a room's pause
/// after its node died is the lease plus up to this.
const SCANS_PER_TERM: u32 = 10;

/// How often leases are renewed, as a share of the lease: two renewals may fail before one
/// runs out.
const RENEWALS_PER_TERM: u32 = 3;

/// Renews this node's leases until `stop`, and gives up the rooms whose lease it lost. A task
/// of its own: nothing else the node does (adopting rooms takes a while) may delay a renewal.
pub(crate) async fn renew_leases(
    directory: Arc<Directory>,
    ownership: Arc<Ownership>,
    metrics: Arc<Metrics>,
    health: Arc<Health>,
    stop: CancellationToken,
) {
    let mut renewal = tokio::time::interval(ownership.term() / RENEWALS_PER_TERM);
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = renewal.tick() => {}
        }
        let renewal = ownership.renew().await;
        health.set_database_reachable(renewal.error.is_none());
        match (&renewal.error, failing) {
            // Logged once an episode: the next success says when it ended.
            (Some(error), false) => {
                tracing::warn!(error = %Chain(error), "leases could not be renewed; trying again");
            }
            (None, true) => tracing::info!("leases are renewed again"),
            _ => {}
        }
        failing = renewal.error.is_some();
        metrics
            .cluster
            .leases_renewed
            .inc_by(renewal.renewed as u64);
        metrics
            .cluster
            .leases_lost
            .inc_by(renewal.lost.len() as u64);
        for room in renewal.lost {
            tracing::warn!(%room, "this node lost the room's lease");
            directory.lease_lost(&room).await;
        }
        metrics.cluster.rooms_owned.set(ownership.len() as i64);
    }
}

/// Adopts the rooms no node serves until `stop`, a few at a time; nothing while the node drains.
pub(crate) async fn adopt_unserved(
    directory: Arc<Directory>,
    ownership: Arc<Ownership>,
    metrics: Arc<Metrics>,
    health: Arc<Health>,
    stop: CancellationToken,
) {
    let every = (ownership.term() / SCANS_PER_TERM).max(Duration::from_millis(10));
    let mut scan = tokio::time::interval(every);
    scan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first scan also takes back what a former run under this node's URL held.
    let mut first_scan = true;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = scan.tick() => {}
        }
        if health.draining() {
            continue;
        }
        match ownership.unserved(first_scan, ADOPTIONS_PER_SCAN).await {
            Ok(rooms) => {
                first_scan = false;
                for room in rooms {
                    directory.adopt(&ownership, &room).await;
                }
                metrics.cluster.rooms_owned.set(ownership.len() as i64);
            }
            Err(error) => {
                tracing::debug!(error = %Chain(&error), "looking for unserved rooms");
            }
        }
    }
}
