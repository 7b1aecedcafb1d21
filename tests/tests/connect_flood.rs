//! A connect flood from one address starves neither another address nor a game. The binary runs
//! as the README starts it (it raises its own open-files limit), with the shipped cap of 200
//! sockets per address. One address (127.0.0.2) holds 1,500 idle connections for 20 seconds,
//! then 4,000, sending nothing and opening a new one at once for each the server closes;
//! meanwhile another address (127.0.0.3) asks for `/healthz` and creates rooms, each on a new
//! connection, and must be answered within 2 seconds at least 95% of the time in each phase, and
//! a game in progress from a third (127.0.0.1) must lose nothing. Each phase prints the kernel's
//! count of listen-queue overflows (`TcpExtListenOverflows`) during it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fourkings_protocol::{ClientMessage, ClientRequest, ServerMessage, SettingsPatch};
use fourkings_tests::{Client, ServerProcess, Table, seat};
use tokio::io::AsyncReadExt;
use tokio::time::Instant;

/// How long each phase of the flood lasts.
const PHASE: Duration = Duration::from_secs(20);
/// The idle connections the flooding address keeps open in each phase.
const FLOODS: [usize; 2] = [1_500, 4_000];
/// The moves the game plays, two in each phase: Red's and Blue's, ten seconds apart.
const MOVES: [(u8, &str); 4] = [(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")];

/// The kernel's count of connections dropped because a listening socket's accept queue was full.
fn listen_overflows() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/netstat").ok()?;
    let mut lines = text.lines().filter(|l| l.starts_with("TcpExt:"));
    let (names, values) = (lines.next()?, lines.next()?);
    let at = names
        .split_whitespace()
        .position(|n| n == "ListenOverflows")?;
    values.split_whitespace().nth(at)?.parse().ok()
}

/// One idle connection from 127.0.0.2, opened again at once each time the server closes it, until
/// `until`; counts the times it was closed.
async fn flood(server: SocketAddr, until: Instant, closed: Arc<AtomicUsize>) {
    while Instant::now() < until {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind("127.0.0.2:0".parse().unwrap())
            .expect("127.0.0.2");
        match tokio::time::timeout_at(until, socket.connect(server)).await {
            Ok(Ok(mut stream)) => {
                let mut buffer = [0u8; 512];
                // Sends nothing; reads until the server closes it (or the phase ends).
                loop {
                    match tokio::time::timeout_at(until, stream.read(&mut buffer)).await {
                        Ok(Ok(0) | Err(_)) => {
                            closed.fetch_add(1, Ordering::Relaxed);
                            break;
                        }
                        Ok(Ok(_)) => continue,
                        Err(_) => break,
                    }
                }
            }
            // Refused or out of ports: a breath before the next try.
            _ => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// `/healthz` and room creations from 127.0.0.3, each on a new connection, every 100 ms until
/// `until`: how many were asked and how many answered with success within 2 seconds.
async fn ask(addr: SocketAddr, until: Instant) -> (usize, usize) {
    let client = reqwest::Client::builder()
        .local_address("127.0.0.3".parse::<std::net::IpAddr>().unwrap())
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let (mut asked, mut answered) = (0, 0);
    while Instant::now() < until {
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
    (asked, answered)
}

/// A counter or gauge of the server's `/metrics`.
async fn metric(base: &str, name: &str) -> f64 {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connect_flood_from_one_address_starves_neither_another_address_nor_a_game() {
    // The flood's 4,000 sockets are this process's open files too.
    let limit = rlimit::increase_nofile_limit(u64::MAX).expect("the open-files limit");
    assert!(
        limit >= 5_000,
        "this test needs 5,000 open files (the hard limit is {limit})"
    );
    let binary = fourkings_tests::fourkings_binary!();
    let server = ServerProcess::spawn(
        binary,
        &["serve", "--addr", "127.0.0.1:0"],
        // The shipped per-address cap: a test's servers otherwise run without one. The players'
        // connections are read only when they move: no heartbeat drops them meanwhile.
        &[
            ("FOURKINGS_MAX_SOCKETS_PER_ADDRESS", "200"),
            ("FOURKINGS_HEARTBEAT_SECONDS", "60"),
        ],
    );
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let mut table = Table::seat_four_through(&[&server.base], &SettingsPatch::default()).await;
    let mut moves = MOVES.iter().enumerate();

    for flood_size in FLOODS {
        let overflows_before = listen_overflows();
        let until = Instant::now() + PHASE;
        let closed = Arc::new(AtomicUsize::new(0));
        let flooders: Vec<_> = (0..flood_size)
            .map(|_| tokio::spawn(flood(addr, until, closed.clone())))
            .collect();
        // Let the flood fill the server before anyone else asks.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let asker = tokio::spawn(ask(addr, until));
        for _ in 0..2 {
            let (ply, (mover, mv)) = moves.next().expect("a move for the phase");
            let answer = table.play(seat(*mover), ply as u32, mv).await;
            assert!(
                matches!(answer, ServerMessage::Ack { .. }),
                "ply {ply} during a flood of {flood_size}: {answer:?}"
            );
            tokio::time::sleep(Duration::from_secs(8)).await;
        }
        let (asked, answered) = asker.await.unwrap();
        for flooder in flooders {
            flooder.await.unwrap();
        }
        let overflows = match (overflows_before, listen_overflows()) {
            (Some(before), Some(after)) => format!("{}", after - before),
            _ => "unknown".to_owned(),
        };
        println!(
            "flood of {flood_size}: {answered} of {asked} requests from 127.0.0.3 answered \
             within 2 s; 127.0.0.2's connections closed by the server {} times; {overflows} \
             listen queue overflows; {} held at the end",
            closed.load(Ordering::Relaxed),
            metric(&server.base, "fourkings_connections_held").await,
        );
        assert!(
            answered * 100 >= asked * 95,
            "flood of {flood_size}: {answered} of {asked} answered within 2 s"
        );
    }
    assert!(metric(&server.base, "fourkings_connections_refused_total").await > 0.0);

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
}
