//! Forwarding, on a node of a cluster: a request for a room that another node serves is sent on
//! to that node and its answer relayed back, a WebSocket included (the upgrade is passed through,
//! then the bytes are copied both ways untouched, so the room's node speaks to the client
//! itself: its heartbeats, its frames, its close codes; only when this node stops does it close a
//! relayed WebSocket itself, with 1012, between two of the room node's frames). The client's address goes on in
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
            if let Err(error) = relay_bytes(TokioIo::new(client), TokioIo::new(node), stop).await {
                tracing::trace!(%error, "a forwarded WebSocket ended with an error");
            }
        });
    }

    /// Waits until every relay has ended (after the stop).
    pub(crate) async fn wait(&self) {
        self.relays.close();
        self.relays.wait().await;
    }
}

/// How long a relay that is stopping waits for the rest of a frame the room's node is sending.
const FRAME_REST: Duration = Duration::from_secs(1);

/// Copies bytes both ways until either side closes. When this server stops first, the client
/// is told as the room's own node would tell it: the frame the node is sending is finished,
/// then a close frame, 1012 (the server is restarting), and the client reconnects elsewhere.
async fn relay_bytes<C, N>(client: C, node: N, stop: CancellationToken) -> std::io::Result<()>
where
    C: tokio::io::AsyncRead + tokio::io::AsyncWrite,
    N: tokio::io::AsyncRead + tokio::io::AsyncWrite,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut client_in, mut client_out) = tokio::io::split(client);
    let (mut node_in, mut node_out) = tokio::io::split(node);
    let mut up = vec![0; 4096];
    let mut down = vec![0; 4096];
    let mut frames = Frames::default();
    loop {
        tokio::select! {
            read = client_in.read(&mut up) => {
                let n = read?;
                if n == 0 {
                    return Ok(());
                }
                node_out.write_all(&up[..n]).await?;
            }
            read = node_in.read(&mut down) => {
                let n = read?;
                if n == 0 {
                    return Ok(());
                }
                frames.consume(&down[..n], false);
                client_out.write_all(&down[..n]).await?;
            }
            () = stop.cancelled() => break,
        }
    }
    let finish = async {
        while !frames.at_boundary() {
            let n = node_in.read(&mut down).await?;
            if n == 0 {
                return Ok(false);
            }
            let through = frames.consume(&down[..n], true);
            client_out.write_all(&down[..through]).await?;
        }
        Ok::<_, std::io::Error>(true)
    };
    if matches!(tokio::time::timeout(FRAME_REST, finish).await, Ok(Ok(true))) {
        client_out.write_all(&restarting_close_frame()).await?;
        client_out.flush().await?;
    }
    Ok(())
}

/// A close frame from a server (unmasked): 1012, the server is restarting.
fn restarting_close_frame() -> Vec<u8> {
    let close = fourkings_protocol::close::SERVER_RESTARTING;
    let reason = close.1.as_bytes();
    let mut frame = vec![0x88, (2 + reason.len()) as u8];
    frame.extend_from_slice(&close.0.to_be_bytes());
    frame.extend_from_slice(reason);
    frame
}

/// Where a stream of WebSocket frames stands (RFC 6455, section 5.2): in a frame's header,
/// in its payload, or between two frames, where another frame may be put.
#[derive(Default)]
struct Frames {
    /// The current frame's header bytes read so far (none between frames).
    header: Vec<u8>,
    /// Payload bytes of the current frame still to come.
    payload_left: u64,
}

impl Frames {
    /// Takes in `bytes`; with `to_boundary`, stops at the end of the current frame. Returns how
    /// many bytes were taken.
    fn consume(&mut self, bytes: &[u8], to_boundary: bool) -> usize {
        let mut taken = 0;
        while taken < bytes.len() {
            if to_boundary && self.at_boundary() {
                break;
            }
            if self.payload_left > 0 {
                let n = (bytes.len() - taken)
                    .min(usize::try_from(self.payload_left).unwrap_or(usize::MAX));
                taken += n;
                self.payload_left -= n as u64;
                continue;
            }
            self.header.push(bytes[taken]);
            taken += 1;
            if let Some(payload) = self.header_done() {
                self.header.clear();
                self.payload_left = payload;
            }
        }
        taken
    }

    /// The payload's length, once the header is whole.
    fn header_done(&self) -> Option<u64> {
        let h = &self.header;
        if h.len() < 2 {
            return None;
        }
        let masked = h[1] & 0x80 != 0;
        let (extended, length) = match h[1] & 0x7f {
            126 => (2, None),
            127 => (8, None),
            n => (0, Some(u64::from(n))),
        };
        let whole = 2 + extended + if masked { 4 } else { 0 };
        if h.len() < whole {
            return None;
        }
        Some(length.unwrap_or_else(|| {
            h[2..2 + extended]
                .iter()
                .fold(0, |n, &b| (n << 8) | u64::from(b))
        }))
    }

    /// Whether the stream is between two frames.
    fn at_boundary(&self) -> bool {
        self.header.is_empty() && self.payload_left == 0
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of every length form (7-bit, 16-bit, 64-bit), cut anywhere: the boundaries are
    /// found, and consuming to a boundary stops at the end of the frame under way.
    #[test]
    fn frame_boundaries_are_found_however_the_bytes_arrive() {
        let frame = |len: usize| {
            let mut f = vec![0x81];
            match len {
                0..=125 => f.push(len as u8),
                126..=65535 => {
                    f.push(126);
                    f.extend_from_slice(&(len as u16).to_be_bytes());
                }
                _ => {
                    f.push(127);
                    f.extend_from_slice(&(len as u64).to_be_bytes());
                }
            }
            f.extend(std::iter::repeat_n(b'x', len));
            f
        };
        let stream: Vec<u8> = [0, 5, 125, 126, 300, 70_000]
            .iter()
            .flat_map(|&len| frame(len))
            .collect();
        for chunk in [1, 3, 7, 1000, stream.len()] {
            let mut frames = Frames::default();
            for piece in stream.chunks(chunk) {
                assert_eq!(frames.consume(piece, false), piece.len());
            }
            assert!(frames.at_boundary(), "chunks of {chunk}");
        }
        // Cut in the middle of the 300-byte frame: to its end, and no further.
        let start = frame(0).len() + frame(5).len() + frame(125).len() + frame(126).len();
        let mut frames = Frames::default();
        frames.consume(&stream[..start + 10], false);
        assert!(!frames.at_boundary());
        let rest = &stream[start + 10..];
        let through = frames.consume(rest, true);
        assert_eq!(through, frame(300).len() - 10);
        assert!(frames.at_boundary());
    }

    #[test]
    fn the_close_frame_says_1012() {
        let frame = restarting_close_frame();
        assert_eq!(&frame[..4], &[0x88, frame.len() as u8 - 2, 0x03, 0xF4]);
    }
}
