//! A node of a cluster keeping its rooms: in the background it renews its leases, stops
//! serving the rooms whose lease it lost, and adopts the rooms no node serves (those of a node
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

/// Renews this node's leases and adopts unserved rooms until `stop`. Nothing is adopted while
/// the node drains.
pub(crate) async fn upkeep(
    directory: Arc<Directory>,
    ownership: Arc<Ownership>,
    metrics: Arc<Metrics>,
    health: Arc<Health>,
    stop: CancellationToken,
) {
    let term = ownership.term();
    let mut renewal = tokio::time::interval(term / RENEWALS_PER_TERM);
    let mut scan = tokio::time::interval((term / SCANS_PER_TERM).max(Duration::from_millis(10)));
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    scan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first scan also takes back what a former run under this node's URL held.
    let mut first_scan = true;
    let mut failing = false;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = renewal.tick() => {
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
                metrics.cluster.leases_renewed.inc_by(renewal.renewed as u64);
                metrics.cluster.leases_lost.inc_by(renewal.lost.len() as u64);
                for room in renewal.lost {
                    tracing::warn!(%room, "this node lost the room's lease");
                    directory.lease_lost(&room).await;
                }
                metrics.cluster.rooms_owned.set(ownership.len() as i64);
            }
            _ = scan.tick(), if !health.draining() => {
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
    }
}
