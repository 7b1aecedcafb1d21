//! The server's configuration: every setting from a flag or a `FOURKINGS_*` environment variable.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

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
    /// Messages per second a connection may send on average.
    #[arg(long, env = "FOURKINGS_RATE_PER_SECOND", default_value_t = 20)]
    pub rate_per_second: u32,
    /// Messages a connection may send in a burst above the average rate.
    #[arg(long, env = "FOURKINGS_RATE_BURST", default_value_t = 40)]
    pub rate_burst: u32,
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
    /// Seconds a shutdown waits for connections and rooms to finish.
    #[arg(long, env = "FOURKINGS_SHUTDOWN_SECONDS", default_value_t = 10)]
    pub shutdown_seconds: u64,
}

impl Config {
    /// The defaults, listening on `addr`.
    pub fn with_addr(addr: SocketAddr) -> Config {
        Config {
            addr,
            allowed_origins: Vec::new(),
            max_rooms: 10_000,
            max_message_bytes: 4096,
            rate_per_second: 20,
            rate_burst: 40,
            max_name_chars: 32,
            event_history: 256,
            outbound_queue: 256,
            shutdown_seconds: 10,
        }
    }

    /// How long a shutdown may take.
    pub fn shutdown_timeout(&self) -> Duration {
        Duration::from_secs(self.shutdown_seconds)
    }
}
