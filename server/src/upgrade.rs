//! The WebSocket handshake (RFC 6455, section 4.2), answered here rather than by axum's
//! `WebSocketUpgrade`, so that a connection reads and writes the TCP stream itself.
//!
//! axum's `WebSocket` goes through hyper's `Upgraded` (a boxed stream over a rewind buffer over
//! the socket) and converts every message between its own types and tungstenite's. Under fan-out
//! load those layers cost 1,800 instructions a move (callgrind), 2.5% of the game server's;
//! reading the socket directly is what the raw baseline does.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

/// A connection's WebSocket, over its TCP stream.
pub(crate) type Socket = WebSocketStream<TcpStream>;

/// The only WebSocket version there is (RFC 6455).
const VERSION: &str = "13";

/// Why a request is not a WebSocket upgrade we can accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not an upgrade to a WebSocket at all (a plain GET, or missing headers): `400`.
    NotWebSocket(&'static str),
    /// A WebSocket version other than 13: `426`, naming the version we speak.
    Version,
}

impl Refusal {
    /// The HTTP status this refusal is answered with.
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Refusal::NotWebSocket(_) => StatusCode::BAD_REQUEST,
            Refusal::Version => StatusCode::UPGRADE_REQUIRED,
        }
    }

    /// What is wrong, for the client.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Refusal::NotWebSocket(why) => why,
            Refusal::Version => "only WebSocket version 13 is spoken here",
        }
    }
}

/// A WebSocket handshake checked and ready to be answered.
pub(crate) struct Handshake {
    accept: HeaderValue,
    on_upgrade: OnUpgrade,
}

impl Handshake {
    /// Checks that `request` asks for a WebSocket, and takes from it what accepting needs.
    pub(crate) fn from_request(request: &mut Request) -> Result<Handshake, Refusal> {
        let accept = accept_key(request.headers())?;
        // hyper leaves this in every HTTP/1.1 request whose connection can be taken over.
        let Some(on_upgrade) = request.extensions_mut().remove::<OnUpgrade>() else {
            return Err(Refusal::NotWebSocket("this connection cannot be upgraded"));
        };
        Ok(Handshake { accept, on_upgrade })
    }

    /// The `101 Switching Protocols` answer, and the socket once hyper has sent it and handed the
    /// connection over: `None` if the client went away first.
    pub(crate) fn accept(
        self,
        config: WebSocketConfig,
    ) -> (
        Response,
        impl Future<Output = Option<Socket>> + Send + 'static,
    ) {
        let response = Response::builder()
            .status(StatusCode::SWITCHING_PROTOCOLS)
            .header(header::CONNECTION, "upgrade")
            .header(header::UPGRADE, "websocket")
            .header(header::SEC_WEBSOCKET_ACCEPT, self.accept)
            .body(axum::body::Body::empty())
            .expect("a valid response");
        let on_upgrade = self.on_upgrade;
        let socket = async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(error) => {
                    tracing::debug!(%error, "the WebSocket upgrade did not complete");
                    return None;
                }
            };
            // `crate::http` serves every connection over this very type; anything else is a
            // server that was wired differently, which the tests would show at once.
            let Ok(parts) = upgraded.downcast::<TokioIo<TcpStream>>() else {
                tracing::error!("an upgraded connection is not a TCP stream; closing it");
                return None;
            };
            let stream = parts.io.into_inner();
            // Bytes the client sent right after its request, already read by hyper (rare: a
            // client waits for the answer before it writes).
            let socket = if parts.read_buf.is_empty() {
                WebSocketStream::from_raw_socket(stream, Role::Server, Some(config)).await
            } else {
                let early = parts.read_buf.to_vec();
                WebSocketStream::from_partially_read(stream, early, Role::Server, Some(config))
                    .await
            };
            Some(socket)
        };
        (response, socket)
    }
}

/// The `Sec-WebSocket-Accept` answer to a request with these headers, if they ask for a WebSocket.
fn accept_key(headers: &HeaderMap) -> Result<HeaderValue, Refusal> {
    if !has_token(headers, &header::CONNECTION, "upgrade") {
        return Err(Refusal::NotWebSocket(
            "a WebSocket address: the request must ask to upgrade (Connection: Upgrade)",
        ));
    }
    if !has_token(headers, &header::UPGRADE, "websocket") {
        return Err(Refusal::NotWebSocket(
            "a WebSocket address: the request must ask for a WebSocket (Upgrade: websocket)",
        ));
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v != VERSION)
    {
        return Err(Refusal::Version);
    }
    let Some(key) = headers.get(header::SEC_WEBSOCKET_KEY) else {
        return Err(Refusal::NotWebSocket(
            "the Sec-WebSocket-Key header is missing",
        ));
    };
    Ok(HeaderValue::from_str(&derive_accept_key(key.as_bytes())).expect("an accept key is base64"))
}

/// Whether the comma-separated header `name` holds `token`, compared without regard to case.
fn has_token(headers: &HeaderMap, name: &header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|part| part.trim().eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    header::HeaderName::from_static(name),
                    HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    const GOOD: [(&str, &str); 4] = [
        ("connection", "keep-alive, Upgrade"),
        ("upgrade", "WebSocket"),
        ("sec-websocket-version", "13"),
        ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];

    #[test]
    fn a_browser_handshake_is_answered_with_the_rfc_accept_key() {
        // The example of RFC 6455, section 1.3.
        assert_eq!(
            accept_key(&headers(&GOOD)),
            Ok(HeaderValue::from_static("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        );
    }

    #[test]
    fn requests_that_are_not_websocket_upgrades_are_refused() {
        let without = |name: &str| -> Vec<(&'static str, &'static str)> {
            GOOD.iter().copied().filter(|(n, _)| *n != name).collect()
        };
        for missing in ["connection", "upgrade", "sec-websocket-key"] {
            let refusal = accept_key(&headers(&without(missing))).expect_err("refused");
            assert_eq!(refusal.status(), StatusCode::BAD_REQUEST, "{missing}");
        }
        let mut old = without("sec-websocket-version");
        old.push(("sec-websocket-version", "8"));
        for pairs in [old, without("sec-websocket-version")] {
            let refusal = accept_key(&headers(&pairs)).expect_err("refused");
            assert_eq!(refusal, Refusal::Version);
            assert_eq!(refusal.status(), StatusCode::UPGRADE_REQUIRED);
        }
        let mut wrong = without("upgrade");
        wrong.push(("upgrade", "h2c"));
        assert!(accept_key(&headers(&wrong)).is_err());
    }

    #[test]
    fn a_request_hyper_cannot_hand_over_is_refused() {
        let mut request = Request::builder().uri("/ws/room");
        for (name, value) in GOOD {
            request = request.header(name, value);
        }
        let mut request = request.body(axum::body::Body::empty()).unwrap();
        assert!(matches!(
            Handshake::from_request(&mut request),
            Err(Refusal::NotWebSocket(_))
        ));
    }
}
