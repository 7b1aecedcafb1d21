//! Forwarding, on a node of a cluster: a request for a room that another node serves is sent on
//! to that node and its answer relayed back, a WebSocket included (the upgrade is passed through,
//! then the bytes are copied both ways untouched, so the room's node speaks to the client
//! itself: its heartbeats, its frames, its close codes). The client's address goes on in
//! `X-Forwarded-For`, for the per-address limits of a node that trusts this one as a proxy.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The header a forwarded request carries, so that a node that does not serve the room either
/// does not send it on again (no request goes round between nodes that disagree for a moment).
pub(crate) const FORWARDED: &str = "x-fourkings-forwarded";

/// What forwarding needs from the server.
#[derive(Clone)]
pub(crate) struct Forwarder {
    /// How long connecting to a node and getting its answer's head may take.
    timeout: Duration,
    /// The relays of forwarded WebSockets.
    relays: TaskTracker,
    /// Cancelled when the server stops: relays end then, and their clients reconnect.
    stop: CancellationToken,
}

/// Why a request could not be forwarded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ForwardError {
    /// The node's URL is not one to connect to.
    #[error("the node's URL {0:?} cannot be used")]
    BadNode(String),
    /// The node could not be reached, or did not answer in time.
    #[error("the node {node} did not answer")]
    Unreachable {
        node: String,
        #[source]
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Forwarder {
    /// Forwards with `timeout` for each node's answer; relays end when `stop` is cancelled.
    pub(crate) fn new(timeout: Duration, stop: CancellationToken) -> Forwarder {
        Forwarder {
            timeout,
            relays: TaskTracker::new(),
            stop,
        }
    }

    /// Sends `request` (from `peer`) to `node` and gives back its answer; a WebSocket upgrade
    /// the node accepts is relayed until either side closes. `upgrade` is the client's side of
    /// the upgrade, when the request is one.
    pub(crate) async fn forward(
        &self,
        node: &str,
        request: Request,
        peer: SocketAddr,
        upgrade: Option<OnUpgrade>,
    ) -> Result<Response, ForwardError> {
        let unreachable =
            |cause: Box<dyn std::error::Error + Send + Sync>| ForwardError::Unreachable {
                node: node.to_owned(),
                cause,
            };
        let authority = node
            .parse::<Uri>()
            .ok()
            .and_then(|uri| uri.authority().cloned())
            .ok_or_else(|| ForwardError::BadNode(node.to_owned()))?;
        let request = outgoing(request, peer);
        let mut answer = self
            .send(authority.as_str(), request)
            .await
            .map_err(unreachable)?;
        if answer.status() == StatusCode::SWITCHING_PROTOCOLS {
            if let Some(client) = upgrade {
                let node_side = hyper::upgrade::on(&mut answer);
                self.relay(client, node_side);
            }
        }
        Ok(answer.map(Body::new).into_response())
    }

    /// Sends `request` to the node at `authority` (`host:port`) on a connection of its own, and
    /// gives back the answer's head (its body follows, and an upgrade, if the node agrees to one).
    async fn send(
        &self,
        authority: &str,
        request: Request,
    ) -> Result<hyper::Response<hyper::body::Incoming>, Box<dyn std::error::Error + Send + Sync>>
    {
        let answered = tokio::time::timeout(self.timeout, async {
            let stream = tokio::net::TcpStream::connect(authority).await?;
            stream.set_nodelay(true)?;
            let (mut sender, connection) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
            tokio::spawn(async move {
                if let Err(error) = connection.with_upgrades().await {
                    tracing::trace!(%error, "a forwarded connection ended with an error");
                }
            });
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(sender.send_request(request).await?)
        })
        .await;
        answered?
    }

    /// Asks `node` to hand room `room` over to this node (it does when nobody is connected to
    /// it there: `POST /cluster/rooms/<id>/handover`); whether it did.
    pub(crate) async fn ask_hand_over(&self, node: &str, room: &str) -> bool {
        let Some(authority) = node
            .parse::<Uri>()
            .ok()
            .and_then(|u| u.authority().cloned())
        else {
            return false;
        };
        let Ok(request) = Request::builder()
            .method("POST")
            .uri(format!("/cluster/rooms/{room}/handover"))
            .header("host", authority.as_str())
            .header(FORWARDED, "1")
            .body(Body::empty())
        else {
            return false;
        };
        match self.send(authority.as_str(), request).await {
            Ok(answer) => answer.status() == StatusCode::NO_CONTENT,
            Err(error) => {
                tracing::debug!(%error, node, "asking a node to hand a room over");
                false
            }
        }
    }

    /// Copies bytes both ways between the client's upgraded connection and the node's, until
    /// either closes or the server stops.
    fn relay(&self, client: OnUpgrade, node: OnUpgrade) {
        let stop = self.stop.clone();
        self.relays.spawn(async move {
            let (client, node) = match tokio::try_join!(client, node) {
                Ok(both) => both,
                Err(error) => {
                    tracing::debug!(%error, "a forwarded WebSocket did not upgrade");
                    return;
                }
            };
            let (mut client, mut node) = (TokioIo::new(client), TokioIo::new(node));
            tokio::select! {
                copied = tokio::io::copy_bidirectional(&mut client, &mut node) => {
                    if let Err(error) = copied {
                        tracing::trace!(%error, "a forwarded WebSocket ended with an error");
                    }
                }
                () = stop.cancelled() => {}
            }
        });
    }

    /// Waits until every relay has ended (after the stop).
    pub(crate) async fn wait(&self) {
        self.relays.close();
        self.relays.wait().await;
    }
}

/// The request as the room's node gets it: the same method, path, headers and body, with the
/// client's address added to `X-Forwarded-For` and the mark of a forwarded request.
fn outgoing(request: Request, peer: SocketAddr) -> Request {
    let (mut parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    parts.uri = path.parse().unwrap_or_else(|_| Uri::from_static("/"));
    // As a proxy appends: the addresses before this hop, then the one this node was reached
    // from.
    let forwarded_for = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .chain([peer.ip().to_string()])
        .collect::<Vec<_>>()
        .join(", ");
    if let Ok(value) = HeaderValue::from_str(&forwarded_for) {
        parts.headers.insert("x-forwarded-for", value);
    }
    parts
        .headers
        .insert(FORWARDED, HeaderValue::from_static("1"));
    parts.extensions = Default::default();
    Request::from_parts(parts, body)
}
