//! The HTTP server: accepts TCP connections and serves each with hyper's HTTP/1.1.
//!
//! This is what `axum::serve` does, with two differences. hyper is given a timer, which bounds
//! how long a client may take to send a request's head (30 s): `axum::serve` gives it none, and
//! a client that trickles its headers would hold a connection for ever. And every socket has
//! Nagle's algorithm off: a game sends small frames that must leave at once. Browsers speak
//! HTTP/1.1 to a plain-text server, so HTTP/2 is not missed.

use std::convert::Infallible;
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

/// How long to wait before accepting again after an error other than a connection's own (such as
/// running out of file descriptors): connections must close before a new one can be taken.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `stop` is cancelled, then finishes the requests in flight
/// (each connection closes after its current request) and returns once every connection has.
/// Upgraded connections are not waited for: they belong to their own tasks.
pub(crate) async fn serve(listener: TcpListener, app: Router, stop: CancellationToken) {
    let connections = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                tracing::error!(%error, "accepting a connection failed");
                tokio::select! {
                    () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    () = stop.cancelled() => break,
                }
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
        connections.spawn(serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(service),
            stop,
        ));
    }
    // No new connections from here on.
    drop(listener);
    connections.close();
    connections.wait().await;
}

async fn serve_connection<S>(
    io: TokioIo<tokio::net::TcpStream>,
    service: TowerToHyperService<S>,
    stop: CancellationToken,
) where
    S: tower::Service<Request<Incoming>, Response = axum::response::Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    // The timer enforces hyper's limit on reading a request's head (30 s), so that a client
    // that trickles its headers cannot hold a connection for ever.
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(io, service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
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
