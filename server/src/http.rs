//! The HTTP server: accepts TCP connections and serves each with hyper's HTTP/1.1.
//!
//! This is what `axum::serve` does, with these differences. hyper is given a timer, which bounds
//! how long a client may take to send a request's head (`--request-head-seconds`, which also
//! bounds a keep-alive connection's wait for its next request): `axum::serve` gives it none, and
//! a client that trickles its headers would hold a connection for ever. Every socket is admitted
//! first ([`crate::admission`]: a cap per client address, idle connections shed near the
//! open-files limit). Accept errors (running out of file descriptors) are counted and logged
//! once an episode. And every socket has Nagle's algorithm off: a game sends small frames that
//! must leave at once. Browsers speak HTTP/1.1 to a plain-text server, so HTTP/2 is not missed.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::admission::{Admission, Tracked};
use crate::held::HeldSockets;
use crate::metrics::Metrics;

/// How often held over-cap connections whose time is up are released.
const RELEASE_EVERY: Duration = Duration::from_millis(250);

/// How long to wait before accepting again after an error other than a connection's own (such as
/// running out of file descriptors): connections must close before a new one can be taken.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How connections are served: who is admitted, and how long a request's head may take.
#[derive(Clone)]
pub(crate) struct Serving {
    pub(crate) admission: Arc<Admission>,
    pub(crate) held: Arc<HeldSockets>,
    pub(crate) request_head: Duration,
    pub(crate) metrics: Arc<Metrics>,
}

/// Serves `app` on `listener` until `stop` is cancelled, then finishes the requests in flight
/// (each connection closes after its current request) and returns once every connection has.
/// Upgraded connections are not waited for: they belong to their own tasks.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    stop: CancellationToken,
    serving: Serving,
) {
    let connections = TaskTracker::new();
    // Accept errors since the last success: logged once an episode, not once a try.
    let mut failing = 0u64;
    // Held connections are released when due even while nothing new is accepted.
    let mut release = tokio::time::interval(RELEASE_EVERY);
    release.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = release.tick() => {
                serving.held.release_due(tokio::time::Instant::now());
                serving.metrics.connections_held.set(serving.held.held() as i64);
                continue;
            }
            () = stop.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                serving.metrics.accept_errors.inc();
                if failing == 0 {
                    tracing::error!(%error, open = serving.admission.open(), "accepting connections fails; trying again");
                }
                failing += 1;
                tokio::select! {
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    () = stop.cancelled() => break,
                }
            }
        };
        if failing > 0 {
            tracing::info!(errors = failing, "accepting connections again");
            failing = 0;
        }
        // Held unread for a while (then closed), if its address holds as many as one may.
        let close = CancellationToken::new();
        let ticket = match serving.admission.admit(peer.ip(), close.clone()) {
            Ok((ticket, shed)) => {
                serving.metrics.connections_shed.inc_by(shed as u64);
                ticket
            }
            Err(_) => {
                serving.metrics.connections_refused.inc();
                serving.held.hold(stream, tokio::time::Instant::now());
                continue;
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "could not turn Nagle's algorithm off");
        }
        // Handlers read the peer's address as axum's `ConnectInfo`, as `axum::serve` would give it.
        let service = app.clone().map_request(move |request: Request<Incoming>| {
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        });
        let stop = stop.clone();
        let admission = serving.admission.clone();
        let id = ticket.id();
        let request_head = serving.request_head;
        connections.spawn(async move {
            serve_connection(
                TokioIo::new(ticket.track(stream)),
                TowerToHyperService::new(service),
                stop,
                close,
                request_head,
            )
            .await;
            // Ended, or a WebSocket now, which is never shed.
            admission.settled(id);
        });
    }
    // No new connections from here on.
    drop(listener);
    connections.close();
    connections.wait().await;
}

async fn serve_connection<S>(
    io: TokioIo<Tracked<tokio::net::TcpStream>>,
    service: TowerToHyperService<S>,
    stop: CancellationToken,
    shed: CancellationToken,
    request_head: Duration,
) where
    S: tower::Service<Request<Incoming>, Response = axum::response::Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    // The timer enforces the deadline on a request's head, so that a client that trickles its
    // headers, or keeps a connection open and sends nothing, cannot hold it for ever.
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(request_head)
        .serve_connection(io, service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        // Shed for a new client: closed at once.
        () = shed.cancelled() => return,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        tracing::trace!(%error, "HTTP connection ended with an error");
    }
}

/// Errors of one connection that failed while it was being accepted, not of the listener.
fn is_connection_error(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}
