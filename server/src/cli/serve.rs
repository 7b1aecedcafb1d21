//! `fourkings serve`: runs the server until SIGINT or SIGTERM.

use std::io::IsTerminal;

use crate::{Config, LogFormat, Server, Stopped};
use tracing_subscriber::EnvFilter;

/// The multi-threaded runtime the server runs on.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

pub(crate) fn run(config: Config) -> anyhow::Result<()> {
    init_logs(&config)?;
    let config_format = config.log_format;
    // Every connection is an open file: with the soft limit a stock system sets, a server
    // would refuse connections long before the machine runs out of anything else.
    match crate::open_files::raise() {
        Ok(limit) => tracing::info!(
            open_files = limit,
            connections = limit.saturating_sub(crate::open_files::RESERVED),
            "open files: the soft limit is raised to the hard limit, enough for about this many connections"
        ),
        Err(error) => tracing::warn!(%error, "the open-files limit could not be raised"),
    }
    runtime()?.block_on(async {
        // The handlers are in place before anyone can know the server is up: a signal that comes
        // right after the `listening on` line still shuts it down gracefully.
        let signals = Signals::install()?;
        let server = Server::start(config).await?;
        announce(config_format, server.addr());
        signals.wait().await;
        tracing::info!("shutting down");
        match server.stop().await {
            Stopped::Clean => Ok(()),
            Stopped::RecordsAbandoned => Err(anyhow::anyhow!(
                "stopped before storage finished: the last records may not be stored"
            )),
        }
    })
}

/// Tests and scripts read the address from standard output's one line: `listening on
/// http://ADDR`, or with JSON logs the same message as a JSON log line (with an `address` field),
/// so that a log collector reading both streams of a container gets nothing but JSON.
fn announce(format: LogFormat, addr: std::net::SocketAddr) {
    let address = format!("http://{addr}");
    match format {
        LogFormat::Text => println!("listening on {address}"),
        LogFormat::Json => {
            let stdout = tracing_subscriber::fmt()
                .with_writer(std::io::stdout)
                .with_ansi(false)
                .json()
                .flatten_event(true)
                .finish();
            tracing::subscriber::with_default(stdout, || {
                tracing::info!(address = %address, "listening on {address}");
            });
        }
    }
}

/// Logs go to standard error (standard output carries only the `listening on` line), readable or
/// as JSON lines, filtered by `--log` (`RUST_LOG`, when set, wins: the usual way to debug).
fn init_logs(config: &Config) -> anyhow::Result<()> {
    let filter = match EnvFilter::try_from_default_env() {
        Ok(filter) => filter,
        Err(_) => EnvFilter::try_new(&config.log)
            .map_err(|e| anyhow::anyhow!("--log {:?}: {e}", config.log))?,
    };
    // Colours only for a terminal: a file or a log collector would get the escape codes.
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter);
    match config.log_format {
        LogFormat::Text => logs.init(),
        // The room and request spans become fields of every line they contain.
        LogFormat::Json => logs.json().flatten_event(true).init(),
    }
    Ok(())
}

/// SIGINT (Ctrl-C) and SIGTERM.
struct Signals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> anyhow::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                terminate: signal(SignalKind::terminate())?,
                interrupt: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    async fn wait(mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.terminate.recv() => {}
            _ = self.interrupt.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}
