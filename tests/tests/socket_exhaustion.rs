//! One address cannot starve the server of sockets. The binary runs under a soft and hard
//! open-files limit of 256 (set by `prlimit`, so it cannot raise it): about 190 sockets. One
//! address (127.0.0.2) keeps 1.5 times the limit in idle connections open for 20 seconds, sending
//! nothing and opening a new one for each the server closes; meanwhile another address
//! (127.0.0.3) asks for `/healthz` and creates rooms, each on a new connection, and must be
//! answered within 2 seconds at least 95% of the time, and a game in progress on a third
//! (127.0.0.1) must lose nothing: every move acknowledged, no connection dropped.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fourkings_protocol::{ClientMessage, ClientRequest, ServerMessage, SettingsPatch};
use fourkings_tests::{Client, ServerProcess, Table, seat};
use tokio::io::AsyncReadExt;
use tokio::time::Instant;

/// The process's open-files limit, soft and hard.
const LIMIT: usize = 256;
/// How long the attack lasts.
const ATTACK: Duration = Duration::from_secs(20);
/// The moves the game plays during the attack, one every two seconds.
const MOVES: [(u8, &str); 8] = [
    (0, "h2h4"),
    (1, "b7c7"),
    (2, "g13g12"),
    (3, "m8l8"),
    (0, "h4h5"),
    (1, "c7d7"),
    (2, "g12g11"),
    (3, "l8k8"),
];

/// One idle connection from 127.0.0.2, opened again each time the server closes it, until
/// `until`; counts the times it was closed.
async fn hold_idle(server: SocketAddr, until: Instant, closed: Arc<AtomicUsize>) {
    while Instant::now() < until {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind("127.0.0.2:0".parse().unwrap())
            .expect("127.0.0.2");
        if let Ok(Ok(mut stream)) = tokio::time::timeout_at(until, socket.connect(server)).await {
            let mut byte = [0u8; 1];
            // Sends nothing; waits for the server to close it (or the attack to end).
            if tokio::time::timeout_at(until, stream.read(&mut byte))
                .await
                .is_ok()
            {
                closed.fetch_add(1, Ordering::Relaxed);
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_from_one_address_starve_neither_another_address_nor_a_game() {
    let binary = fourkings_tests::fourkings_binary!().display().to_string();
    let server = ServerProcess::spawn(
        std::path::Path::new("prlimit"),
        &[
            &format!("--nofile={LIMIT}:{LIMIT}"),
            "--",
            &binary,
            "serve",
            "--addr",
            "127.0.0.1:0",
        ],
        // The shipped per-address cap: a test's servers otherwise run without one. The players'
        // connections are read only when they move: no heartbeat drops them meanwhile.
        &[
            ("FOURKINGS_MAX_SOCKETS_PER_ADDRESS", "200"),
            ("FOURKINGS_HEARTBEAT_SECONDS", "60"),
        ],
    );
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let mut table = Table::seat_four_through(&[&server.base], &SettingsPatch::default()).await;

    let until = Instant::now() + ATTACK;
    let closed = Arc::new(AtomicUsize::new(0));
    let attackers: Vec<_> = (0..LIMIT * 3 / 2)
        .map(|_| tokio::spawn(hold_idle(addr, until, closed.clone())))
        .collect();
    // Let the attack fill the server before anyone else asks.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let asker = tokio::spawn(async move {
        let client = reqwest::Client::builder()
            .local_address("127.0.0.3".parse::<std::net::IpAddr>().unwrap())
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(2))
            .build()
            .unwrap();
        let (mut asked, mut answered, mut at_limit) = (0, 0, false);
        while Instant::now() < until {
            if !at_limit {
                let ready = client.get(format!("http://{addr}/readyz")).send().await;
                if let Ok(answer) = ready {
                    at_limit = answer.text().await.unwrap_or_default() == "at the open-files limit";
                }
            }
            let base = format!("http://{addr}");
            let request = if asked % 2 == 0 {
                client.get(format!("{base}/healthz"))
            } else {
                client.post(format!("{base}/api/rooms")).body("{}")
            };
            asked += 1;
            if matches!(request.send().await, Ok(answer) if answer.status().is_success()) {
                answered += 1;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        (asked, answered, at_limit)
    });

    for (ply, (mover, mv)) in MOVES.iter().enumerate() {
        let answer = table.play(seat(*mover), ply as u32, mv).await;
        assert!(
            matches!(answer, ServerMessage::Ack { .. }),
            "ply {ply} during the attack: {answer:?}"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let (asked, answered, at_limit) = asker.await.unwrap();
    assert!(at_limit, "/readyz said the server was at its limit");
    for attacker in attackers {
        attacker.await.unwrap();
    }
    let closed = closed.load(Ordering::Relaxed);
    println!(
        "{answered} of {asked} requests from 127.0.0.3 answered within 2 s; \
         127.0.0.2's connections closed by the server {closed} times"
    );
    assert!(
        answered * 100 >= asked * 95,
        "{answered} of {asked} answered within 2 s"
    );
    assert!(closed > 0, "the idle connections were closed, some of them");
    // The game lost nothing, and its connections stayed: each still answers a ping.
    let (_, snapshot) = Client::join(&server.base, &table.room.id).await.unwrap();
    let played: Vec<&str> = MOVES.iter().map(|(_, mv)| *mv).collect();
    assert_eq!(snapshot.game.expect("the game").move_coordinates, played);
    for (index, player) in table.players.iter_mut().enumerate() {
        let req = player.req();
        player
            .send(&ClientRequest::new(req, ClientMessage::Ping))
            .await;
        let pong = loop {
            match player.try_next().await {
                Ok(ServerMessage::Pong { .. }) => break true,
                Ok(_) => continue,
                Err(_) => break false,
            }
        };
        assert!(pong, "seat {index}'s connection stayed open");
    }
    let metrics = reqwest::get(format!("{}/metrics", server.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for counted in [
        "fourkings_connections_refused_total",
        "fourkings_connections_shed_total",
    ] {
        let value: f64 = metrics
            .lines()
            .find_map(|l| l.strip_prefix(counted)?.trim().parse().ok())
            .unwrap_or(0.0);
        println!("{counted} {value}");
    }
}
