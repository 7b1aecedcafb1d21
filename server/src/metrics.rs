//! Prometheus metrics: what the server counts, and the text that `/metrics` serves.
//!
//! Every metric is registered once, when the server starts, and every label value is resolved to
//! its own handle then: the paths that run for each move (its ack, its broadcast, its commit) only
//! touch atomics (a histogram takes a short lock), with no allocation and no label lookup. Each
//! server has a registry of its own, so that several servers in one process (the tests) count
//! apart.

use std::time::Duration;

use fourkings_protocol::{CpuLevel, ErrorCode, GameStatus};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Metric, Registry};

use crate::panics::PanicSite;

/// The content type of the text `/metrics` serves (OpenMetrics, which Prometheus reads).
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// One label, e.g. `state="playing"`.
type Label = [(&'static str, &'static str); 1];

/// Every metric the server keeps, each a handle ready to use.
pub(crate) struct Metrics {
    /// What `/metrics` encodes.
    registry: Registry,
    /// Rooms held, by [`GameStatus`] (lobby, playing, finished), in that order.
    rooms: [Gauge; 3],
    /// Connections that hold at least one seat.
    pub(crate) players: Gauge,
    /// Connections that hold no seat.
    pub(crate) spectators: Gauge,
    /// Moves accepted (acknowledged).
    pub(crate) moves_accepted: Counter,
    /// Moves refused, by error code: a series appears with its code's first refusal (a move can
    /// be refused for a dozen of the codes, and refusals are not the hot path).
    moves_rejected: Family<Label, Counter>,
    /// From a move request's arrival to its answer being handed to the connection (an ack
    /// waits for the move to be durable).
    pub(crate) move_seconds: Histogram,
    /// Connections closed because their outbound queue was full.
    pub(crate) queue_drops: Counter,
    /// Players who came back to a seat they had dropped (once per seat).
    pub(crate) reconnections: Counter,
    /// CPU moves chosen, by level (easy, medium, hard).
    cpu_turns: [Counter; 3],
    /// How long choosing a CPU move took on its thread, by level.
    cpu_think_seconds: [Histogram; 3],
    /// What storage did.
    pub(crate) storage: StorageMetrics,
    /// Stored rooms that could not be rebuilt and were set aside (at start, or after their
    /// task failed).
    pub(crate) rooms_set_aside: Counter,
    /// Panics caught, by where: a CPU search, a room's task.
    panics: [Counter; 2],
    /// What this node of a cluster did with its leases (all zero on a server alone).
    pub(crate) cluster: ClusterMetrics,
    /// Accepting a connection failed (the process ran out of file descriptors, or the system
    /// of memory for sockets), each try.
    pub(crate) accept_errors: Counter,
    /// Connections not admitted (held unread, then closed): their address held as many sockets
    /// as one may.
    pub(crate) connections_refused: Counter,
    /// Over-cap connections held unread now.
    pub(crate) connections_held: Gauge,
    /// Idle plain-HTTP connections closed to keep room for new clients near the open-files
    /// limit.
    pub(crate) connections_shed: Counter,
}

/// What a node of a cluster did: the rooms it owns, its leases, the rooms it adopted.
pub(crate) struct ClusterMetrics {
    /// Rooms whose lease this node holds.
    pub(crate) rooms_owned: Gauge,
    /// Leases renewed (each lease of each renewal).
    pub(crate) leases_renewed: Counter,
    /// Leases this node found lost (taken by another node, or not renewed within their term).
    pub(crate) leases_lost: Counter,
    /// Rooms this node took over from no node (a node that stopped or died, or none yet).
    pub(crate) rooms_adopted: Counter,
    /// HTTP requests for rooms of other nodes, sent on to them.
    pub(crate) forwarded_requests: Counter,
    /// WebSockets to rooms of other nodes, relayed to them.
    pub(crate) forwarded_connections: Counter,
    /// Rooms another node handed over to this one, for a client that reached it (nobody was
    /// connected to them there).
    pub(crate) rooms_pulled: Counter,
}

impl ClusterMetrics {
    /// Registers the cluster metrics in `r`.
    fn register(r: &mut Registry) -> ClusterMetrics {
        ClusterMetrics {
            rooms_owned: registered(
                r,
                "cluster_rooms_owned",
                "Rooms whose lease this node holds (a node of a cluster)",
                Gauge::default(),
            ),
            leases_renewed: registered(
                r,
                "cluster_leases_renewed",
                "Room leases renewed, each lease of each renewal",
                Counter::default(),
            ),
            leases_lost: registered(
                r,
                "cluster_leases_lost",
                "Room leases this node found lost: taken by another node, or not renewed \
                 within their term (the room's connections were closed with 1012)",
                Counter::default(),
            ),
            rooms_adopted: registered(
                r,
                "cluster_rooms_adopted",
                "Rooms this node took over because no node served them",
                Counter::default(),
            ),
            forwarded_requests: registered(
                r,
                "cluster_forwarded_requests",
                "HTTP requests for rooms that another node serves, sent on to it",
                Counter::default(),
            ),
            forwarded_connections: registered(
                r,
                "cluster_forwarded_connections",
                "WebSockets to rooms that another node serves, relayed to it",
                Counter::default(),
            ),
            rooms_pulled: registered(
                r,
                "cluster_rooms_pulled",
                "Rooms another node handed over to this one for a client that reached it \
                 (nobody was connected to them there)",
                Counter::default(),
            ),
        }
    }
}

/// What storage did: its transactions, their failures, and what waits for them.
pub(crate) struct StorageMetrics {
    /// Storage writes in each transaction.
    batch_writes: Histogram,
    /// How long each transaction took to commit.
    commit_seconds: Histogram,
    /// Transactions that failed (and were retried).
    pub(crate) errors: Counter,
    /// Times storage began to fail (one a failure, however many tries it takes).
    pub(crate) failures: Counter,
    /// Writes handed to the storage thread and not committed yet.
    pub(crate) queued_writes: Gauge,
}

impl StorageMetrics {
    /// Registers the storage metrics in `r`.
    fn register(r: &mut Registry) -> StorageMetrics {
        StorageMetrics {
            batch_writes: registered(
                r,
                "storage_batch_writes",
                "Storage writes (records, versions, archived games...) committed in one transaction",
                Histogram::new(BATCH_BUCKETS),
            ),
            commit_seconds: registered(
                r,
                "storage_commit_seconds",
                "How long one storage transaction took to commit",
                Histogram::new(SECONDS_BUCKETS),
            ),
            errors: registered(
                r,
                "storage_errors",
                "Storage transactions that failed, counting every try (each is retried until it \
                 succeeds)",
                Counter::default(),
            ),
            failures: registered(
                r,
                "storage_failures",
                "Times storage began to fail: rooms took no new writes until it worked again",
                Counter::default(),
            ),
            queued_writes: registered(
                r,
                "storage_queued_writes",
                "Writes handed to storage and not committed yet (what rooms hold back waits for \
                 them)",
                Gauge::default(),
            ),
        }
    }
}

/// Buckets for times that are usually well under a millisecond but can reach seconds.
const SECONDS_BUCKETS: [f64; 14] = [
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];
/// Buckets for a CPU player's thinking: from a random move to the hard level's seconds.
const THINK_BUCKETS: [f64; 13] = [
    0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.5, 4.0, 6.0, 10.0,
];
/// Buckets for the writes in one transaction: one room's move up to hundreds of rooms' at once.
const BATCH_BUCKETS: [f64; 12] = [
    1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0,
];

/// Registers `metric` under `name` with `help`, and returns the handle to count with.
fn registered<M: Metric + Clone>(registry: &mut Registry, name: &str, help: &str, metric: M) -> M {
    registry.register(name, help, metric.clone());
    metric
}

/// The three CPU levels, in the order of the per-level arrays.
const LEVELS: [CpuLevel; 3] = [CpuLevel::Easy, CpuLevel::Medium, CpuLevel::Hard];
/// The three room states, in the order of [`Metrics::rooms`].
const STATES: [GameStatus; 3] = [GameStatus::Lobby, GameStatus::Playing, GameStatus::Finished];

impl Metrics {
    /// Registers every metric in a registry of its own.
    // One piece: one registration per metric, each with its name and help, as `/metrics` lists
    // them.
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("fourkings");
        let r = &mut registry;
        let rooms: Family<Label, Gauge> = registered(
            r,
            "rooms",
            "Rooms held, by state: lobby, playing or finished",
            Family::default(),
        );
        let clients: Family<Label, Gauge> = registered(
            r,
            "connected_clients",
            "WebSocket connections, by role: player (holds a seat) or spectator (holds none)",
            Family::default(),
        );
        let cpu_turns: Family<Label, Counter> = registered(
            r,
            "cpu_turns",
            "Moves chosen by the CPU (for CPU seats and for absent or timed-out players), by level",
            Family::default(),
        );
        let cpu_think = registered(
            r,
            "cpu_think_seconds",
            "How long the CPU took to choose a move, on its thread, by level",
            Family::<Label, Histogram>::new_with_constructor(|| Histogram::new(THINK_BUCKETS)),
        );
        let panics: Family<Label, Counter> = registered(
            r,
            "panics",
            "Panics caught, by where: a CPU search (a random legal move is played instead) or a \
             room's task",
            Family::default(),
        );
        let open_files: Gauge = registered(
            r,
            "open_files_limit",
            "The process's limit on open files, which every connection is one of (the soft \
             limit, which `fourkings serve` raises to the hard limit at start)",
            Gauge::default(),
        );
        open_files.set(crate::open_files::limit().map_or(-1, |l| l.min(i64::MAX as u64) as i64));
        Metrics {
            rooms: STATES.map(|s| rooms.get_or_create_owned(&[("state", status_name(s))])),
            players: clients.get_or_create_owned(&[("role", "player")]),
            spectators: clients.get_or_create_owned(&[("role", "spectator")]),
            moves_accepted: registered(
                r,
                "moves_accepted",
                "Moves accepted and acknowledged",
                Counter::default(),
            ),
            moves_rejected: registered(
                r,
                "moves_rejected",
                "Moves refused, by error code",
                Family::default(),
            ),
            move_seconds: registered(
                r,
                "move_round_trip_seconds",
                "From a move's arrival to its answer being queued for the client (an ack waits \
                 for the move to be durable)",
                Histogram::new(SECONDS_BUCKETS),
            ),
            queue_drops: registered(
                r,
                "broadcast_queue_drops",
                "Connections closed because their outbound queue was full (too slow to keep up)",
                Counter::default(),
            ),
            reconnections: registered(
                r,
                "reconnections",
                "Players who came back to a seat they had dropped (counted per seat)",
                Counter::default(),
            ),
            cpu_turns: LEVELS.map(|l| cpu_turns.get_or_create_owned(&[("level", level_name(l))])),
            cpu_think_seconds: LEVELS
                .map(|l| cpu_think.get_or_create_owned(&[("level", level_name(l))])),
            storage: StorageMetrics::register(r),
            rooms_set_aside: registered(
                r,
                "rooms_set_aside",
                "Stored rooms that could not be rebuilt (invalid records, or a task that kept \
                 failing): not served, kept in storage",
                Counter::default(),
            ),
            panics: PanicSite::ALL.map(|p| panics.get_or_create_owned(&[("site", p.name())])),
            cluster: ClusterMetrics::register(r),
            accept_errors: registered(
                r,
                "accept_errors",
                "Tries to accept a connection that failed (out of file descriptors, or of socket \
                 memory)",
                Counter::default(),
            ),
            connections_refused: registered(
                r,
                "connections_refused",
                "Connections not admitted because their address held as many sockets as one may \
                 (held unread for --hold-over-cap-seconds, then closed)",
                Counter::default(),
            ),
            connections_held: registered(
                r,
                "connections_held",
                "Connections over their address's socket cap held unread now",
                Gauge::default(),
            ),
            connections_shed: registered(
                r,
                "connections_shed",
                "Idle plain-HTTP connections closed to keep room for new clients near the \
                 open-files limit",
                Counter::default(),
            ),
            registry,
        }
    }

    /// The gauge of rooms in `status`.
    pub(crate) fn rooms(&self, status: GameStatus) -> &Gauge {
        &self.rooms[match status {
            GameStatus::Lobby => 0,
            GameStatus::Playing => 1,
            GameStatus::Finished => 2,
        }]
    }

    /// Counts a refused move.
    pub(crate) fn move_rejected(&self, code: ErrorCode) {
        self.moves_rejected
            .get_or_create(&[("code", code.as_str())])
            .inc();
    }

    /// Counts a panic caught at `site` (or, for the CPU, an answer that could not be played).
    pub(crate) fn panics(&self, site: PanicSite) {
        self.panics[site as usize].inc();
    }

    /// Counts a CPU move and how long it took to choose.
    pub(crate) fn cpu_turn(&self, level: CpuLevel, took: Duration) {
        let index = match level {
            CpuLevel::Easy => 0,
            CpuLevel::Medium => 1,
            CpuLevel::Hard => 2,
        };
        self.cpu_turns[index].inc();
        self.cpu_think_seconds[index].observe(took.as_secs_f64());
    }

    /// Counts one storage transaction: its writes and how long it took.
    pub(crate) fn storage_commit(&self, writes: usize, took: Duration) {
        self.storage.batch_writes.observe(writes as f64);
        self.storage.commit_seconds.observe(took.as_secs_f64());
    }

    /// Everything, in the text format.
    pub(crate) fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// `lobby`, `playing`, `finished`.
fn status_name(status: GameStatus) -> &'static str {
    match status {
        GameStatus::Lobby => "lobby",
        GameStatus::Playing => "playing",
        GameStatus::Finished => "finished",
    }
}

/// `easy`, `medium`, `hard`.
fn level_name(level: CpuLevel) -> &'static str {
    match level {
        CpuLevel::Easy => "easy",
        CpuLevel::Medium => "medium",
        CpuLevel::Hard => "hard",
    }
}

#[cfg(test)]
mod tests {
    use fourkings_protocol::{CpuLevel, ErrorCode, GameStatus};

    use super::Metrics;

    #[test]
    fn the_text_names_every_metric_with_its_labels() {
        let metrics = Metrics::new();
        metrics.rooms(GameStatus::Playing).inc();
        metrics.move_rejected(ErrorCode::IllegalMove);
        metrics.move_rejected(ErrorCode::IllegalMove);
        metrics.cpu_turn(CpuLevel::Hard, std::time::Duration::from_millis(700));
        metrics.move_seconds.observe(0.003);
        let text = metrics.render();
        for line in [
            "fourkings_rooms{state=\"playing\"} 1",
            "fourkings_rooms{state=\"lobby\"} 0",
            "fourkings_moves_rejected_total{code=\"illegal_move\"} 2",
            "fourkings_cpu_turns_total{level=\"hard\"} 1",
            "fourkings_cpu_think_seconds_bucket{le=\"1.0\",level=\"hard\"} 1",
            "fourkings_cpu_think_seconds_bucket{le=\"0.5\",level=\"hard\"} 0",
            "fourkings_move_round_trip_seconds_count 1",
            "fourkings_move_round_trip_seconds_bucket{le=\"0.005\"} 1",
            "fourkings_connected_clients{role=\"spectator\"} 0",
            "fourkings_storage_commit_seconds_count 0",
            "fourkings_broadcast_queue_drops_total 0",
            "fourkings_reconnections_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        assert!(
            !text.contains("not_your_turn"),
            "no refusal, no series:\n{text}"
        );
    }
}
