//! Abuse from one address cannot deny service to others. Room creation is limited per client
//! address (behind a trusted proxy, by the address it forwards, and only then), open sockets and
//! WebSockets per address are capped, a connection that sends no request head in time is closed,
//! and a room nobody ever joined expires within minutes. Every client of these
//! tests is on this machine: 127.0.0.1 floods, 127.0.0.2 plays.

use std::net::IpAddr;

use fourkings_protocol::{ClientMessage, ErrorBody, ErrorCode, ServerMessage, SettingsPatch};
use fourkings_tests::{TestServer, WAIT, eventually, seat};
use tokio_tungstenite::tungstenite;

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// `POST /api/rooms` with default settings from `client`, with `X-Forwarded-For` if given.
async fn create(
    server: &TestServer,
    client: &reqwest::Client,
    forwarded: Option<&str>,
) -> reqwest::Response {
    let mut request = client.post(format!("{}/api/rooms", server.base)).body("");
    if let Some(forwarded) = forwarded {
        request = request.header("x-forwarded-for", forwarded);
    }
    request.send().await.unwrap()
}

/// Creates rooms until one is refused: how many were created, and the refusal.
async fn create_until_refused(
    server: &TestServer,
    client: &reqwest::Client,
    forwarded: Option<&str>,
) -> (usize, reqwest::Response) {
    for created in 0..200 {
        let response = create(server, client, forwarded).await;
        if response.status() != 201 {
            return (created, response);
        }
    }
    panic!("200 rooms created from one address without a refusal");
}

#[tokio::test]
async fn a_flood_from_one_address_leaves_another_address_creating_and_playing() {
    let server = TestServer::with(|c| {
        c.room_creations_per_minute = 3;
        c.room_creation_burst = 6;
        c.max_connections_per_address = 4;
        // Without the limits, one address would fill the server.
        c.max_rooms = 40;
    })
    .await;
    let flooder = TestServer::http_from(ip("127.0.0.1"));
    let (created, refused) = create_until_refused(&server, &flooder, None).await;
    // The burst, plus a token refilled if the loop was slow (3 a minute: one every 20 s).
    assert!((6..=7).contains(&created), "{created} rooms");
    assert_eq!(refused.status(), 429);
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&retry), "Retry-After: {retry}");
    let body: ErrorBody = refused.json().await.unwrap();
    assert_eq!(body.code, ErrorCode::RateLimited);

    // The flooder's connections: four, then refused.
    let room = create(&server, &TestServer::http_from(ip("127.0.0.3")), None)
        .await
        .json::<fourkings_protocol::CreateRoomResponse>()
        .await
        .unwrap();
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(
            server
                .connect_from(&room.id, ip("127.0.0.1"))
                .await
                .expect("within the cap"),
        );
    }
    match server.connect_from(&room.id, ip("127.0.0.1")).await {
        Err(error) => match error.downcast_ref::<tungstenite::Error>() {
            Some(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 429),
            other => panic!("refused with 429, not {other:?}"),
        },
        Ok(_) => panic!("a fifth connection from one address is refused"),
    }

    // Another address creates a room and plays in it.
    let other = TestServer::http_from(ip("127.0.0.2"));
    let response = create(&server, &other, None).await;
    assert_eq!(response.status(), 201);
    let room = response
        .json::<fourkings_protocol::CreateRoomResponse>()
        .await
        .unwrap();
    let mut player = server
        .connect_from(&room.id, ip("127.0.0.2"))
        .await
        .expect("another address connects");
    let token = player.take_seat(seat(0), "Ann").await;
    let host_token = room.host_token.clone();
    player.ok(ClientMessage::Start { host_token }).await;
    let answer = player.play_move(seat(0), &token, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");

    // A connection that closes frees its place.
    open.pop().unwrap().close().await;
    let freed = eventually(WAIT, || async {
        server.connect_from(&room.id, ip("127.0.0.1")).await.is_ok()
    })
    .await;
    assert!(freed, "a place freed by a closed connection is taken again");
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_counts_and_only_then() {
    let limits = |c: &mut fourkings_server::Config| {
        c.room_creations_per_minute = 1;
        c.room_creation_burst = 2;
    };
    // Without a trusted proxy, the header is the client's own word: ignored.
    let server = TestServer::with(limits).await;
    let client = TestServer::http_from(ip("127.0.0.1"));
    assert_eq!(
        create(&server, &client, Some("203.0.113.1")).await.status(),
        201
    );
    assert_eq!(
        create(&server, &client, Some("203.0.113.2")).await.status(),
        201
    );
    assert_eq!(
        create(&server, &client, Some("203.0.113.3")).await.status(),
        429
    );

    // Behind one, each forwarded client counts apart, and the proxy itself is no client.
    let server = TestServer::with(|c| {
        limits(c);
        c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
    })
    .await;
    let (created, refused) = create_until_refused(&server, &client, Some("203.0.113.1")).await;
    assert_eq!((created, refused.status().as_u16()), (2, 429));
    // What a client wrote before the proxy's entry is not believed.
    assert_eq!(
        create(&server, &client, Some("198.51.100.9, 203.0.113.1"))
            .await
            .status(),
        429
    );
    assert_eq!(
        create(&server, &client, Some("203.0.113.2")).await.status(),
        201
    );
}

#[tokio::test]
async fn a_room_nobody_joined_expires_long_before_an_idle_one() {
    let server = TestServer::with(|c| c.unjoined_room_seconds = 0.2).await;
    let unjoined = server.create_room(&SettingsPatch::default()).await;
    let joined = server.create_room(&SettingsPatch::default()).await;
    let (visitor, _) = server.connect(&joined.id).await;
    visitor.close().await;
    let expired = eventually(WAIT, || async {
        server
            .get(&format!("/api/rooms/{}", unjoined.id))
            .await
            .status()
            == 404
    })
    .await;
    assert!(
        expired,
        "a room nobody joined is closed after the unjoined time"
    );
    // Created at the same moment, the room someone joined waits for the idle time (30 minutes).
    assert_eq!(
        server
            .get(&format!("/api/rooms/{}", joined.id))
            .await
            .status(),
        200
    );
}

/// Opens a TCP connection to `server` from the local address `local`.
async fn tcp_from(server: &TestServer, local: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{local}:0").parse().unwrap()).unwrap();
    socket.connect(server.server.addr()).await.unwrap()
}

/// Whether the server closes `stream` within `within`, and what it sent first.
async fn closed_within(
    stream: &mut tokio::net::TcpStream,
    within: std::time::Duration,
) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 4096];
    let mut said = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&said).into_owned()),
            Ok(Ok(n)) => said.extend_from_slice(&buffer[..n]),
            Err(_) => return None,
        }
    }
}

/// Each address may hold so many sockets, WebSockets among them: one over is held unread for a
/// while (so that a flood that re-opens what is closed gains nothing by it), then refused with
/// `429 too_many_connections`, while another address connects; a socket freed lets the first
/// address in again.
#[tokio::test]
async fn sockets_are_capped_per_address_and_one_over_is_held_then_refused() {
    use std::time::Duration;
    // Held 2 s: the checks on either side of it have 1.5 s of margin on a busy machine.
    let server = TestServer::with(|c| {
        c.max_sockets_per_address = 2;
        c.hold_over_cap_seconds = 2.0;
    })
    .await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let _websocket = server
        .connect_from(&room.id, ip("127.0.0.2"))
        .await
        .unwrap();
    let idle = tcp_from(&server, "127.0.0.2").await;
    let mut over = tcp_from(&server, "127.0.0.2").await;
    assert_eq!(
        closed_within(&mut over, Duration::from_millis(500)).await,
        None,
        "the third socket of 127.0.0.2 is held, not closed at once"
    );
    let mut other = tcp_from(&server, "127.0.0.3").await;
    assert_eq!(
        closed_within(&mut other, Duration::from_millis(200)).await,
        None
    );
    let said = closed_within(&mut over, Duration::from_secs(5))
        .await
        .expect("the held socket is closed after its hold");
    assert!(
        said.starts_with("HTTP/1.1 429") && said.contains("too_many_connections"),
        "{said}"
    );
    drop(idle);
    let answered = eventually(WAIT, || async {
        TestServer::http_from(ip("127.0.0.2"))
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
    })
    .await;
    assert!(answered, "a freed socket lets 127.0.0.2 in again");
    assert!(server.metric("fourkings_connections_refused_total").await >= 1.0);
    assert_eq!(server.metric("fourkings_connections_held").await, 0.0);
}

/// A connection that sends no whole request head within the deadline is closed, and so is a
/// keep-alive connection that waits that long for its next request.
#[tokio::test]
async fn a_connection_without_a_request_head_or_idle_after_one_is_closed_after_the_deadline() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;
    let server = TestServer::with(|c| c.request_head_seconds = 0.3).await;
    let mut trickle = tcp_from(&server, "127.0.0.2").await;
    trickle
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .unwrap();
    let began = std::time::Instant::now();
    assert!(
        closed_within(&mut trickle, Duration::from_secs(5))
            .await
            .is_some()
    );
    assert!(
        began.elapsed() >= Duration::from_millis(250),
        "{:?}",
        began.elapsed()
    );

    let mut keep_alive = tcp_from(&server, "127.0.0.2").await;
    keep_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let began = std::time::Instant::now();
    assert!(
        closed_within(&mut keep_alive, Duration::from_secs(5))
            .await
            .is_some()
    );
    assert!(
        began.elapsed() >= Duration::from_millis(250),
        "{:?}",
        began.elapsed()
    );
}
