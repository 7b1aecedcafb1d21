//! The server's configuration: every setting from a flag or a `FOURKINGS_*` environment variable.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, FromArgMatches, ValueEnum};

/// What the last steps of a shutdown (storage's last commit, the HTTP requests in flight) get
/// of its time, and at least, even when the rooms took all of it.
pub(crate) const SHUTDOWN_LAST_STEPS: Duration = Duration::from_millis(200);

/// How the server runs. Every field can be set by a flag or by the environment variable named in
/// its help; `fourkings serve --help` lists them with their defaults.
#[derive(Clone, Debug, Args)]
pub struct Config {
    /// The address to listen on.
    #[arg(long, env = "FOURKINGS_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Origins allowed to open a WebSocket (comma-separated, e.g. `https://chess.example.org`).
    /// Without any, a browser may connect only from the server's own origin; `*` allows any.
    /// Clients that send no Origin (not browsers) are always allowed.
    #[arg(
        long = "allowed-origin",
        env = "FOURKINGS_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// The most rooms the server holds at once.
    #[arg(long, env = "FOURKINGS_MAX_ROOMS", default_value_t = 10_000)]
    pub max_rooms: usize,
    /// The largest WebSocket message a client may send, in bytes; larger ones close the connection.
    #[arg(long, env = "FOURKINGS_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,
    /// Messages per second a connection may send on average; 0 for no limit.
    #[arg(long, env = "FOURKINGS_RATE_PER_SECOND", default_value_t = 20)]
    pub rate_per_second: u32,
    /// Messages a connection may send at once above the average rate (at least 1).
    #[arg(long, env = "FOURKINGS_RATE_BURST", default_value_t = 40)]
    pub rate_burst: u32,
    /// Rooms one client address may create a minute on average (IPv6: one /64 network); 0 for
    /// no limit. Past it, `POST /api/rooms` answers 429 `rate_limited` with `Retry-After`.
    #[arg(
        long,
        env = "FOURKINGS_ROOM_CREATIONS_PER_MINUTE",
        default_value_t = 10
    )]
    pub room_creations_per_minute: u32,
    /// Rooms one client address may create at once above that rate.
    #[arg(long, env = "FOURKINGS_ROOM_CREATION_BURST", default_value_t = 20)]
    pub room_creation_burst: u32,
    /// WebSockets one client address may hold open at once (IPv6: one /64 network); 0 for no
    /// limit. Past it, the upgrade is refused with 429 `too_many_connections`.
    #[arg(
        long,
        env = "FOURKINGS_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 100
    )]
    pub max_connections_per_address: usize,
    /// Sockets one client address may hold open at once, WebSockets included (IPv6: one /64
    /// network); one over is held unread (`--hold-over-cap-seconds`), then closed; 0 for no
    /// limit. Trusted proxies are not held to it.
    #[arg(long, env = "FOURKINGS_MAX_SOCKETS_PER_ADDRESS", default_value_t = 200)]
    pub max_sockets_per_address: usize,
    /// Seconds a connection over its address's socket cap is held unread before it is answered
    /// `429` and closed (a flood that re-opens what is closed then waits, instead of filling the
    /// accept queue); 0 closes it at once.
    #[arg(long, env = "FOURKINGS_HOLD_OVER_CAP_SECONDS", default_value_t = 10.0, value_parser = seconds)]
    pub hold_over_cap_seconds: f64,
    /// The most over-cap connections held at once (at most a quarter of the sockets the
    /// open-files limit allows); past it, the one held longest is released first.
    #[arg(long, env = "FOURKINGS_MAX_HELD_SOCKETS", default_value_t = 8192)]
    pub max_held_sockets: usize,
    /// The listening socket's backlog: connections the kernel keeps waiting to be accepted
    /// (it caps the figure at `net.core.somaxconn`). Default: the kernel's `somaxconn`.
    #[arg(long, env = "FOURKINGS_LISTEN_BACKLOG")]
    pub listen_backlog: Option<u32>,
    /// Sockets kept free for new clients near the open-files limit: past it, the oldest idle
    /// plain-HTTP connections are closed to make room (never a WebSocket).
    #[arg(long, env = "FOURKINGS_SOCKET_RESERVE", default_value_t = 32)]
    pub socket_reserve: usize,
    /// Seconds a connection may take to send a whole request head, and may wait idle for its
    /// next one (keep-alive), before it is closed.
    #[arg(long, env = "FOURKINGS_REQUEST_HEAD_SECONDS", default_value_t = 10.0, value_parser = seconds)]
    pub request_head_seconds: f64,
    /// Proxies (addresses or networks, comma-separated, e.g. `10.0.0.0/8`) whose
    /// `X-Forwarded-For` is believed: behind them, the client's address is the nearest one in
    /// that header that is not a trusted proxy. Without any, the header is ignored.
    #[arg(
        long = "trusted-proxy",
        env = "FOURKINGS_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = crate::address::parse_proxy
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The longest display name, in characters.
    #[arg(long, env = "FOURKINGS_MAX_NAME_CHARS", default_value_t = 32)]
    pub max_name_chars: usize,
    /// How many recent events each room keeps for clients that reconnect; older gaps get a
    /// snapshot.
    #[arg(long, env = "FOURKINGS_EVENT_HISTORY", default_value_t = 256)]
    pub event_history: usize,
    /// Messages queued for one connection before it counts as too slow and is dropped.
    #[arg(long, env = "FOURKINGS_OUTBOUND_QUEUE", default_value_t = 256)]
    pub outbound_queue: usize,
    /// Seconds a shutdown (SIGTERM, SIGINT) may take to store every room, tell every client and
    /// close; what is left then is abandoned (its records are already queued for storage).
    #[arg(long, env = "FOURKINGS_SHUTDOWN_SECONDS", default_value_t = 10.0, value_parser = seconds)]
    pub shutdown_seconds: f64,
    /// Seconds a shutdown first spends refusing new rooms and connections and answering
    /// `/readyz` with 503, before it closes anything: time for a load balancer to notice.
    #[arg(long, env = "FOURKINGS_DRAIN_SECONDS", default_value_t = 0.0, value_parser = seconds)]
    pub drain_seconds: f64,
    /// Seconds a player who dropped keeps their seat before the CPU plays for them (Duo: before
    /// the other team may claim the win).
    #[arg(long, env = "FOURKINGS_GRACE_SECONDS", default_value_t = 60.0, value_parser = seconds)]
    pub grace_seconds: f64,
    /// Seconds between heartbeats; a connection silent for three of them is dropped.
    #[arg(long, env = "FOURKINGS_HEARTBEAT_SECONDS", default_value_t = 2.0, value_parser = seconds)]
    pub heartbeat_seconds: f64,
    /// Seconds a connection may take to accept what the server writes; a client that reads
    /// nothing for that long (its receive window stays shut) is dropped.
    #[arg(long, env = "FOURKINGS_WRITE_TIMEOUT_SECONDS", default_value_t = 10.0, value_parser = seconds)]
    pub write_timeout_seconds: f64,
    /// Seconds a room may go without anyone connected before it is closed.
    #[arg(long, env = "FOURKINGS_IDLE_ROOM_SECONDS", default_value_t = 1800.0, value_parser = seconds)]
    pub idle_room_seconds: f64,
    /// Seconds a new room that nobody has ever connected to is kept before it is closed.
    #[arg(long, env = "FOURKINGS_UNJOINED_ROOM_SECONDS", default_value_t = 300.0, value_parser = seconds)]
    pub unjoined_room_seconds: f64,
    /// Milliseconds in one second of game time (turn limits, game and team clocks). 1000 except in tests
    /// and demonstrations.
    #[arg(long, env = "FOURKINGS_TIME_UNIT_MS", default_value_t = 1000)]
    pub time_unit_ms: u64,
    /// Blocking threads the CPU players think on (default: one per core).
    #[arg(long, env = "FOURKINGS_CPU_THREADS")]
    pub cpu_threads: Option<usize>,
    /// The longest a CPU player thinks about one move, in seconds (its level may think less; a
    /// turn limit always leaves it less).
    #[arg(long, env = "FOURKINGS_CPU_THINK_SECONDS", default_value_t = 5.0, value_parser = seconds)]
    pub cpu_think_seconds: f64,
    /// How long a CPU that moves right after a person waits before playing, in seconds, while
    /// that person's team still has a lifeline: long enough for a takeback to arrive first.
    #[arg(
        long,
        env = "FOURKINGS_CPU_TAKEBACK_WAIT_SECONDS",
        default_value_t = 1.5,
        value_parser = seconds
    )]
    pub cpu_takeback_wait_seconds: f64,
    /// The table each hard CPU search keeps from one move to the next, in MiB (one for each hard
    /// search running at once, so at most `--cpu-threads` of them).
    #[arg(long, env = "FOURKINGS_CPU_TABLE_MIB", default_value_t = 32)]
    pub cpu_table_mib: usize,
    /// How CPU players choose their moves.
    #[arg(long, env = "FOURKINGS_CPU_STRATEGY", value_enum, default_value_t = CpuStrategy::Bot)]
    pub cpu_strategy: CpuStrategy,
    /// Longest chat message, in characters.
    #[arg(long, env = "FOURKINGS_MAX_CHAT_CHARS", default_value_t = 500)]
    pub max_chat_chars: usize,
    /// Chat messages a connection may send per minute.
    #[arg(long, env = "FOURKINGS_CHAT_PER_MINUTE", default_value_t = 20)]
    pub chat_per_minute: u32,
    /// Chat messages a room keeps for the snapshots of those who join later.
    #[arg(long, env = "FOURKINGS_CHAT_HISTORY", default_value_t = 100)]
    pub chat_history: usize,
    /// Where every room and the archive of finished games are kept: a SQLite file (created if
    /// missing), or a PostgreSQL database named by a URL, `postgres://USER:PASSWORD@HOST:PORT/DB`
    /// (`?sslmode=require` for TLS).
    #[arg(long, env = "FOURKINGS_DATABASE", default_value = "fourkings.db")]
    pub database: Database,
    /// Connections to a PostgreSQL database the server may hold at once.
    #[arg(long, env = "FOURKINGS_DATABASE_CONNECTIONS", default_value_t = 4)]
    pub database_connections: usize,
    /// Seconds a request that needs storage (a new room, a game download across a rematch not
    /// stored yet) waits for it before it is answered `storage_unavailable`; a commit that runs
    /// longer makes storage count as stalled (rooms take no new writes while it lasts).
    #[arg(long, env = "FOURKINGS_STORAGE_TIMEOUT_SECONDS", default_value_t = 2.0, value_parser = seconds)]
    pub storage_timeout_seconds: f64,
    /// Writes that may wait for storage at once (a slow or failing disk); past it, rooms refuse
    /// what would need another (`storage_unavailable`) and their timers wait.
    #[arg(long, env = "FOURKINGS_MAX_HELD_WRITES", default_value_t = 10_000)]
    pub max_held_writes: usize,
    /// This node's URL as the other nodes of a cluster reach it (`http://HOST:PORT`): makes the
    /// server a node of a cluster over its PostgreSQL database, serving the rooms whose lease it
    /// holds and forwarding the others to their node. Port 0 stands for the port the server
    /// listens on.
    #[arg(long, env = "FOURKINGS_NODE_URL")]
    pub node_url: Option<String>,
    /// Seconds a node's lease on a room lasts without renewal (renewed three times a term): a
    /// node that dies leaves its rooms unserved for about this long.
    #[arg(long, env = "FOURKINGS_LEASE_SECONDS", default_value_t = 5.0, value_parser = seconds)]
    pub lease_seconds: f64,
    /// Keep everything in memory instead: nothing survives a restart.
    #[arg(long, env = "FOURKINGS_IN_MEMORY")]
    pub in_memory: bool,
    /// How commits reach the disk.
    #[arg(long, env = "FOURKINGS_STORAGE_SYNC", value_enum, default_value_t = StorageSync::Full)]
    pub storage_sync: StorageSync,
    /// Seconds a finished game's room waits for a rematch before it leaves memory (its game stays
    /// in the archive).
    #[arg(
        long,
        env = "FOURKINGS_FINISHED_ROOM_SECONDS",
        default_value_t = 1800.0,
        value_parser = seconds
    )]
    pub finished_room_seconds: f64,
    /// How log lines are written (to standard error).
    #[arg(long, env = "FOURKINGS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Which log lines are written: a level (`error`, `warn`, `info`, `debug`, `trace`) or
    /// `tracing` directives such as `info,fourkings_server=debug`.
    #[arg(long, env = "FOURKINGS_LOG", default_value = "info")]
    pub log: String,
}

/// How CPU players choose their moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CpuStrategy {
    /// The engine's bot at each seat's level.
    Bot,
    /// Random legal moves: for demonstrations and tests.
    Random,
}

/// How storage commits reach the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StorageSync {
    /// Every commit is on the disk before it returns: survives a power cut.
    Full,
    /// Commits survive the server dying, not the machine (faster; SQLite's WAL
    /// `synchronous=NORMAL`).
    Normal,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One readable line per event, for people.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

impl Config {
    /// The defaults of `fourkings serve` (whatever the environment says), listening on
    /// `addr`, with storage in memory: for tests and embedding.
    pub fn with_addr(addr: SocketAddr) -> Config {
        // The flags are the one place a default is written: parse an empty command line with
        // the environment variables switched off, so that the machine a test runs on does not
        // change its settings.
        let command =
            Config::augment_args(clap::Command::new("fourkings")).mut_args(|arg| arg.env(None));
        let matches = command
            .try_get_matches_from(["fourkings"])
            .expect("every setting has a default");
        let mut config = Config::from_arg_matches(&matches).expect("the flags are Config's");
        config.addr = addr;
        config.in_memory = true;
        config
    }

    /// The longest a CPU player may think about one move.
    pub fn cpu_think_limit(&self) -> Duration {
        duration(self.cpu_think_seconds, 0.01, 3_600.0)
    }

    /// How long a CPU waits after a person's move that a lifeline could still take back.
    pub fn cpu_takeback_wait(&self) -> Duration {
        duration(self.cpu_takeback_wait_seconds, 0.0, 60.0)
    }

    /// How long a finished game's room stays.
    pub fn finished_room(&self) -> Duration {
        duration(self.finished_room_seconds, 0.0, MAX_SECONDS)
    }

    /// How long a shutdown may take.
    pub fn shutdown_timeout(&self) -> Duration {
        duration(self.shutdown_seconds, 0.0, 3_600.0)
    }

    /// How long a stopping room waits for its records to be durable before it closes its
    /// connections anyway (with 1012, without what was never stored): the shutdown time, less
    /// what its last steps get.
    pub fn room_flush_limit(&self) -> Duration {
        self.shutdown_timeout().saturating_sub(SHUTDOWN_LAST_STEPS)
    }

    /// How long a shutdown drains before it closes anything.
    pub fn drain(&self) -> Duration {
        duration(self.drain_seconds, 0.0, 3_600.0)
    }

    /// The limits on what players write, as snapshots tell clients.
    pub fn limits(&self) -> fourkings_protocol::Limits {
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        fourkings_protocol::Limits {
            name_chars: clamp(self.max_name_chars),
            chat_chars: clamp(self.max_chat_chars),
            chat_per_minute: self.chat_per_minute,
        }
    }

    /// How long a dropped player keeps their seat.
    pub fn grace(&self) -> Duration {
        duration(self.grace_seconds, 0.0, MAX_SECONDS)
    }

    /// The heartbeat interval.
    pub fn heartbeat(&self) -> Duration {
        duration(self.heartbeat_seconds, 0.01, MAX_SECONDS)
    }

    /// How long a write to a client may wait for the client to read.
    pub fn write_timeout(&self) -> Duration {
        duration(self.write_timeout_seconds, 0.01, 3_600.0)
    }

    /// How long a room may be empty.
    pub fn idle_room(&self) -> Duration {
        duration(self.idle_room_seconds, 0.0, MAX_SECONDS)
    }

    /// How long a request waits for storage before it is answered `storage_unavailable`.
    pub fn storage_timeout(&self) -> Duration {
        duration(self.storage_timeout_seconds, 0.01, 3_600.0)
    }

    /// How long a connection may take to send a request's head, or wait for its next one.
    pub fn request_head(&self) -> Duration {
        duration(self.request_head_seconds, 0.01, 3_600.0)
    }

    /// How long a connection over its address's socket cap is held unread.
    pub fn hold_over_cap(&self) -> Duration {
        duration(self.hold_over_cap_seconds, 0.0, 3_600.0)
    }

    /// The listening socket's backlog: the configured one, else the kernel's `somaxconn` (4,096
    /// where it cannot be read, the kernel's default since Linux 5.4).
    pub fn listen_backlog(&self) -> u32 {
        self.listen_backlog.unwrap_or_else(|| {
            std::fs::read_to_string("/proc/sys/net/core/somaxconn")
                .ok()
                .and_then(|text| text.trim().parse().ok())
                .unwrap_or(4096)
        })
    }

    /// How long a room's lease lasts without renewal.
    pub fn lease(&self) -> Duration {
        duration(self.lease_seconds, 0.05, 3_600.0)
    }

    /// How long a room nobody has joined is kept.
    pub fn unjoined_room(&self) -> Duration {
        duration(self.unjoined_room_seconds, 0.0, MAX_SECONDS)
    }

    /// `seconds` of game time.
    pub fn game_time(&self, seconds: u64) -> Duration {
        Duration::from_millis(seconds.saturating_mul(self.time_unit_ms))
    }
}

/// Where rooms are kept: a SQLite file, or a PostgreSQL database.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file.
    File(std::path::PathBuf),
    /// A PostgreSQL database, by its URL (which may hold a password: shown without it).
    Postgres(String),
}

impl Database {
    /// Whether this is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Database::Postgres(_))
    }
}

impl std::str::FromStr for Database {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Database, Self::Err> {
        Ok(if crate::storage::postgres::is_url(text) {
            Database::Postgres(text.to_owned())
        } else {
            Database::File(text.into())
        })
    }
}

impl From<std::path::PathBuf> for Database {
    fn from(path: std::path::PathBuf) -> Database {
        Database::File(path)
    }
}

impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::File(path) => write!(f, "{}", path.display()),
            Database::Postgres(url) => f.write_str(&crate::storage::postgres::redacted(url)),
        }
    }
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

/// The most seconds any setting takes: about three years, far beyond any use and well within what
/// a `Duration` holds.
pub(crate) const MAX_SECONDS: f64 = 1e8;

/// Reads a number of seconds for a flag: a finite number from 0 to [`MAX_SECONDS`], so that no
/// setting becomes a `Duration` that cannot exist (which would panic where it is used).
pub(crate) fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.0..=MAX_SECONDS).contains(&value) {
        return Err(format!("{text} seconds is not between 0 and {MAX_SECONDS}"));
    }
    Ok(value)
}

/// `seconds` as a duration, kept between `least` and `most`.
pub(crate) fn duration(seconds: f64, least: f64, most: f64) -> Duration {
    Duration::from_secs_f64(seconds.clamp(least, most))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_finite_and_not_negative() {
        for good in ["0", "2.5", " 60 ", "1e8"] {
            assert!(seconds(good).is_ok(), "{good}");
        }
        for bad in ["nan", "NaN", "inf", "-1", "1e300", "1e8.5", "", "ten"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        let command = Config::augment_args(clap::Command::new("fourkings"));
        let refused = command
            .try_get_matches_from(["fourkings", "--grace-seconds", "1e300"])
            .unwrap_err();
        assert!(refused.to_string().contains("not between 0"), "{refused}");
    }

    /// `with_addr` takes every default from the flags: the same as `fourkings serve` given
    /// nothing, but for the address and storage.
    #[test]
    fn the_embedded_defaults_are_the_flags_defaults() {
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let command =
            Config::augment_args(clap::Command::new("fourkings")).mut_args(|arg| arg.env(None));
        let matches = command.try_get_matches_from(["fourkings"]).unwrap();
        let mut expected = Config::from_arg_matches(&matches).unwrap();
        assert!(!expected.in_memory, "the server keeps its rooms by default");
        assert_eq!(expected.addr, "127.0.0.1:8080".parse().unwrap());
        expected.addr = addr;
        expected.in_memory = true;
        assert_eq!(
            format!("{:?}", Config::with_addr(addr)),
            format!("{expected:?}")
        );
    }
}
