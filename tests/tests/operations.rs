//! Health, readiness and metrics, through the real HTTP routes.
//!
//! The metrics test plays a game to its end (and a room with CPU seats alongside), then scrapes
//! `/metrics` and checks that each counter moved by exactly what was done: rooms by state,
//! players and spectators, moves accepted and refused by code, one round trip measured per
//! answered move, a reconnection, CPU turns and their think time, storage commits.
//!
//! A shutdown ends within its configured time even when storage hangs. The binary raises its
//! open-files limit (every connection is an open file) to the hard limit, and says so.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use fourkings_protocol::{
    ChatChannel, ClientMessage, ClientRequest, ErrorBody, ErrorCode, Event, Presence,
    ServerMessage, SettingsPatch,
};
use fourkings_tests::doubles::TestStorage;
use fourkings_tests::{Store, Table, TestServer, seat};

/// The samples of a scrape: `name{labels}` → value.
async fn scrape(server: &TestServer) -> BTreeMap<String, f64> {
    let response = server.get("/metrics").await;
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let text = response.text().await.unwrap();
    assert!(text.trim_end().ends_with("# EOF"), "{text}");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("a sample");
            (series.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}

/// The value of one series (0 when it has not appeared yet).
fn value(samples: &BTreeMap<String, f64>, series: &str) -> f64 {
    samples.get(series).copied().unwrap_or(0.0)
}

/// The sum of every series of `name` (over all its labels).
fn total(samples: &BTreeMap<String, f64>, name: &str) -> f64 {
    samples
        .iter()
        .filter(|(series, _)| series.as_str() == name || series.starts_with(&format!("{name}{{")))
        .map(|(_, v)| v)
        .sum()
}

#[tokio::test]
async fn metrics_count_what_a_game_did() {
    let server = TestServer::start().await;
    let before = scrape(&server).await;
    assert_eq!(total(&before, "fourkings_moves_accepted_total"), 0.0);
    assert_eq!(total(&before, "fourkings_rooms"), 0.0);

    // Four people play a round, one move is refused twice, a player drops and comes back.
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    table
        .play_opening(&[(0, "h2h3"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")])
        .await;
    let answer = table.play(seat(1), 4, "c7d7").await;
    assert!(
        matches!(
            answer,
            ServerMessage::Error {
                code: ErrorCode::NotYourTurn,
                ..
            }
        ),
        "{answer:?}"
    );
    let answer = table.play(seat(0), 4, "h3h9").await;
    assert!(
        matches!(
            answer,
            ServerMessage::Error {
                code: ErrorCode::IllegalMove,
                ..
            }
        ),
        "{answer:?}"
    );
    let blue = table.players.remove(1);
    blue.close().await;
    // Once the room counts Blue away, Blue's return is a reconnection.
    table.players[0]
        .event_where(|_, e| {
            matches!(
                e,
                Event::Presence {
                    seat: s,
                    presence: Presence::Away,
                    ..
                } if *s == seat(1)
            )
            .then_some(())
        })
        .await;
    let (mut blue, _) = server.connect(&table.room.id).await;
    let token = table.tokens[1].clone();
    blue.ok(ClientMessage::Hello {
        seat_tokens: vec![token],
        host_token: None,
        since: None,
    })
    .await;
    table.players.insert(1, blue);
    // Red resigns: the game is over.
    let red = table.tokens[0].clone();
    table.players[0]
        .ok(ClientMessage::Resign {
            seat: seat(0),
            token: red,
        })
        .await;

    // A person with three CPUs, watched by a spectator: the CPUs answer the person's move.
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut person, _) = server.connect(&room.id).await;
    let token = person.take_seat(seat(0), "solo").await;
    let host_token = room.host_token.clone();
    person.ok(ClientMessage::Start { host_token }).await;
    let (mut spectator, _) = server.connect(&room.id).await;
    let answer = person
        .request(ClientMessage::Move {
            seat: seat(0),
            token: token.clone(),
            ply: 0,
            mv: "h2h3".into(),
        })
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    // The three CPU moves have been played once the person may move again.
    let legal = person.legal_moves().await;
    assert_eq!((legal.seat, legal.ply), (seat(0), 4));
    spectator.drain().await;

    let after = scrape(&server).await;
    let rooms = |state: &str| value(&after, &format!("fourkings_rooms{{state=\"{state}\"}}"));
    assert_eq!(
        (rooms("lobby"), rooms("playing"), rooms("finished")),
        (0.0, 1.0, 1.0)
    );
    let clients = |role: &str| {
        value(
            &after,
            &format!("fourkings_connected_clients{{role=\"{role}\"}}"),
        )
    };
    assert_eq!((clients("player"), clients("spectator")), (5.0, 1.0));
    assert_eq!(value(&after, "fourkings_moves_accepted_total"), 5.0);
    let rejected = |code: &str| {
        value(
            &after,
            &format!("fourkings_moves_rejected_total{{code=\"{code}\"}}"),
        )
    };
    assert_eq!(
        (rejected("not_your_turn"), rejected("illegal_move")),
        (1.0, 1.0)
    );
    assert_eq!(total(&after, "fourkings_moves_rejected_total"), 2.0);
    // Every answered move, accepted or not, is one round trip.
    assert_eq!(
        value(&after, "fourkings_move_round_trip_seconds_count"),
        7.0
    );
    assert!(value(&after, "fourkings_move_round_trip_seconds_sum") > 0.0);
    assert_eq!(value(&after, "fourkings_reconnections_total"), 1.0);
    assert!(total(&after, "fourkings_cpu_turns_total") >= 3.0);
    assert_eq!(
        total(&after, "fourkings_cpu_turns_total"),
        total(&after, "fourkings_cpu_think_seconds_count")
    );
    let commits = value(&after, "fourkings_storage_commit_seconds_count");
    assert!(commits >= 1.0);
    assert_eq!(
        value(&after, "fourkings_storage_batch_writes_count"),
        commits
    );
    // Each accepted move is a record, and more records came with seats, the start, the result.
    assert!(value(&after, "fourkings_storage_batch_writes_sum") >= 5.0 + 8.0);
    assert_eq!(value(&after, "fourkings_broadcast_queue_drops_total"), 0.0);
    server.server.stop().await;
}

#[tokio::test]
async fn a_client_dropped_for_a_full_queue_is_counted() {
    let server = TestServer::with_a_client_dropped_for_a_full_queue().await;
    let samples = scrape(&server).await;
    assert_eq!(
        value(&samples, "fourkings_broadcast_queue_drops_total"),
        1.0
    );
    server.server.stop().await;
}

#[tokio::test]
async fn a_draining_server_is_up_but_not_ready_and_takes_nothing_new() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let healthz = server.get("/healthz").await;
    assert_eq!(healthz.status(), 200);
    let readyz = server.get("/readyz").await;
    assert_eq!(readyz.status(), 200);
    assert_eq!(readyz.text().await.unwrap(), "ready");
    let (mut watcher, _) = server.connect(&room.id).await;

    server.server.drain();
    let readyz = server.get("/readyz").await;
    assert_eq!(readyz.status(), 503);
    assert_eq!(readyz.text().await.unwrap(), "shutting down");
    assert_eq!(server.get("/healthz").await.status(), 200, "still up");
    let refused = server.post_room("{}").await;
    assert_eq!(refused.status(), 503);
    assert_eq!(
        refused.json::<ErrorBody>().await.unwrap().code,
        ErrorCode::ShuttingDown
    );
    assert!(
        server.connect_raw(&room.id, None).await.is_err(),
        "no new WebSocket"
    );
    // What is already there carries on until the stop.
    watcher.drain().await;
    let closing = tokio::spawn(async move {
        let (_, code) = watcher.until_closed().await;
        code
    });
    server.server.stop().await;
    assert_eq!(
        closing.await.unwrap(),
        Some(fourkings_protocol::close::SERVER_RESTARTING.0)
    );
}

#[tokio::test]
async fn a_full_server_is_not_ready() {
    let server = TestServer::with(|c| c.max_rooms = 1).await;
    assert_eq!(server.get("/readyz").await.status(), 200);
    server.create_room(&SettingsPatch::default()).await;
    let readyz = server.get("/readyz").await;
    assert_eq!(readyz.status(), 503);
    assert_eq!(readyz.text().await.unwrap(), "full");
    server.server.stop().await;
}

#[tokio::test]
async fn a_shutdown_ends_within_its_time_even_when_storage_hangs() {
    let storage = TestStorage::new(Store::Memory);
    let server =
        TestServer::with_storage(|c| c.shutdown_seconds = 0.3, Box::new(storage.clone())).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut watcher, _) = server.connect(&room.id).await;
    // Storage hangs from here on, until the test ends.
    storage.set_open(false);
    // A chat line: the room hands it to storage, which never finishes; the room waits for it.
    watcher
        .send(&ClientRequest::new(
            1,
            ClientMessage::Chat {
                channel: ChatChannel::Spectators,
                text: "hello".into(),
                seat: None,
                token: None,
            },
        ))
        .await;
    let closing = tokio::spawn(async move {
        let (messages, code) = watcher.until_closed().await;
        (messages, code)
    });
    let began = Instant::now();
    // Bounded here too, so that a shutdown that hangs fails the test rather than stalling it.
    let stopped = tokio::time::timeout(Duration::from_secs(10), server.server.stop())
        .await
        .expect("the shutdown ends");
    let took = began.elapsed();
    // The shutdown says records were abandoned (the binary exits with a failure status), and the
    // client is still told to come back later, without the answer that was never stored.
    assert_eq!(stopped, fourkings_server::Stopped::RecordsAbandoned);
    let (messages, code) = closing.await.unwrap();
    assert_eq!(code, Some(fourkings_protocol::close::SERVER_RESTARTING.0));
    assert!(
        !messages
            .iter()
            .any(|m| matches!(m, ServerMessage::Ack { req: 1, .. })),
        "{messages:?}"
    );
    // The time, then a moment for storage and one for HTTP.
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(1500),
        "{took:?}"
    );
}

/// Every connection is an open file: `fourkings serve`, started under a soft limit of 256 and a
/// hard limit of 1,024 (set by `prlimit`, as a stock system's 1,024 would be), raises the soft
/// limit to the hard one, logs it with the connections it allows, and shows it in `/metrics`.
#[tokio::test]
async fn the_server_raises_its_open_files_limit_to_the_hard_limit() {
    let dir = fourkings_tests::temp_dir("open-files");
    let log = dir.path().join("server.log");
    let binary = fourkings_tests::fourkings_binary!().display().to_string();
    let server = fourkings_tests::ServerProcess::spawn_logging_to(
        std::path::Path::new("prlimit"),
        &[
            "--nofile=256:1024",
            "--",
            &binary,
            "serve",
            "--addr",
            "127.0.0.1:0",
        ],
        &[],
        std::fs::File::create(&log).unwrap(),
    );
    let text = reqwest::get(format!("{}/metrics", server.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.lines().any(|l| l == "fourkings_open_files_limit 1024"),
        "{text}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("open_files=1024") && logged.contains("connections=960"),
        "{logged}"
    );
}
