//! The WebSocket upgrade: the Origin it accepts (the server's own, or the configured ones) and
//! what is not a WebSocket upgrade at all. A refusal is an HTTP status with an error code.

use fourkings_protocol::{ErrorBody, ErrorCode};
use fourkings_tests::TestServer;
use tokio_tungstenite::tungstenite;

use crate::support::{lobby, test_server};

/// The status and error code of a refused WebSocket upgrade, or `None` if it was accepted.
async fn upgrade(
    server: &TestServer,
    room: &str,
    origin: Option<&str>,
) -> Option<(u16, ErrorCode)> {
    match server.connect_raw(room, origin).await {
        Ok(client) => {
            client.close().await;
            None
        }
        Err(e) => match e.downcast::<tungstenite::Error>() {
            Ok(tungstenite::Error::Http(response)) => {
                let body: ErrorBody =
                    serde_json::from_slice(response.body().as_deref().unwrap_or_default())
                        .expect("an error body");
                Some((response.status().as_u16(), body.code))
            }
            other => panic!("unexpected failure: {other:?}"),
        },
    }
}

/// One row: an upgrade to `room` with `origin`, and how it must be answered (`None`: accepted).
type Upgrade<'a> = (&'a str, Option<&'a str>, Option<(u16, ErrorCode)>);

/// Tries every upgrade of the table; fails once at the end, naming each row that failed.
async fn upgrades(server: &TestServer, rows: &[Upgrade<'_>]) {
    let mut failures = Vec::new();
    for (i, &(room, origin, expected)) in rows.iter().enumerate() {
        let answer = upgrade(server, room, origin).await;
        if answer != expected {
            failures.push(format!(
                "row {i} (room {room}, origin {origin:?}): expected {expected:?}, got {answer:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One row: a name, the request's headers, and the HTTP status that answers it.
type Request<'a> = (&'a str, &'a [(&'a str, &'a str)], u16);

const FORBIDDEN: Option<(u16, ErrorCode)> = Some((403, ErrorCode::ForbiddenOrigin));

#[tokio::test]
async fn the_websocket_upgrade_checks_the_origin() {
    let server = test_server(|_| {}).await;
    let (room, _, _) = lobby(&server).await;
    let own = format!("http://{}", server.server.addr());
    let own_upper = own.to_uppercase();
    let own_suffixed = format!("{own}.evil.example");
    let unknown = "0000000000000";
    upgrades(
        &server,
        &[
            // No Origin (not a browser), and the server's own origin (the Host header).
            (&room, None, None),
            (&room, Some(&own), None),
            (&room, Some(&own_upper), None),
            (&room, Some("http://evil.example"), FORBIDDEN),
            (&room, Some("null"), FORBIDDEN),
            (&room, Some("http://127.0.0.1"), FORBIDDEN),
            (&room, Some("http://127.0.0.1:1"), FORBIDDEN),
            (&room, Some(&own_suffixed), FORBIDDEN),
            // A refused origin learns nothing about rooms: unknown rooms are refused the same way.
            (unknown, Some("http://evil.example"), FORBIDDEN),
            (unknown, None, Some((404, ErrorCode::RoomNotFound))),
        ],
    )
    .await;
}

#[tokio::test]
async fn allowed_origins_replace_the_same_origin_rule() {
    let server = test_server(|c| {
        c.allowed_origins = vec!["https://chess.example.org".into()];
    })
    .await;
    let (room, _, _) = lobby(&server).await;
    let own = format!("http://{}", server.server.addr());
    upgrades(
        &server,
        &[
            (&room, None, None),
            (&room, Some("https://chess.example.org"), None),
            (&room, Some("https://evil.example"), FORBIDDEN),
            (&room, Some("http://chess.example.org"), FORBIDDEN),
            (&room, Some(&own), FORBIDDEN),
        ],
    )
    .await;
    let any = test_server(|c| c.allowed_origins = vec!["*".into()]).await;
    let (room, _, _) = lobby(&any).await;
    upgrades(&any, &[(&room, Some("https://anywhere.example"), None)]).await;
}

/// A request to a room's WebSocket address that is not a WebSocket upgrade is refused with a
/// code, and so is a WebSocket version other than 13 (with the version spoken); the room's
/// WebSocket still opens afterwards.
#[tokio::test]
async fn the_websocket_address_refuses_what_is_not_a_websocket() {
    let server = test_server(|_| {}).await;
    let (room, _, _) = lobby(&server).await;
    let url = format!("http://{}/ws/{room}", server.server.addr());
    let version_8 = [
        ("connection", "Upgrade"),
        ("upgrade", "websocket"),
        ("sec-websocket-version", "8"),
        ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    // Each row: a name, the request's headers, and the status it is answered with (426, Upgrade
    // Required, names the version spoken).
    let rows: [Request<'_>; 2] = [
        ("a plain GET", &[], 400),
        ("WebSocket version 8", &version_8, 426),
    ];
    let http = reqwest::Client::new();
    for (name, headers, status) in rows {
        let mut request = http.get(&url);
        for &(header, value) in headers {
            request = request.header(header, value);
        }
        let answer = request.send().await.expect("an answer");
        assert_eq!(answer.status(), status, "{name}");
        if status == 426 {
            assert_eq!(
                answer
                    .headers()
                    .get("sec-websocket-version")
                    .map(|v| v.as_bytes()),
                Some(&b"13"[..]),
                "{name}"
            );
        }
        let body: ErrorBody = answer.json().await.expect("an error body");
        assert_eq!(body.code, ErrorCode::NotWebSocket, "{name}");
    }
    assert_eq!(upgrade(&server, &room, None).await, None);
}
