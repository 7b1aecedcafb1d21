//! Nodes of a cluster over one PostgreSQL database, losing one (killed, paused past its lease,
//! stopped with SIGTERM) or losing the database. The room goes on at another node with nothing
//! acknowledged lost, and a node that lost a room never writes into it again.

use std::time::{Duration, Instant};

use fourkings_protocol::{ServerMessage, SettingsPatch};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{Client, ServerProcess, Table, WAIT, eventually, seat};

/// The opening every test plays: one move of each seat.
const OPENING: [(u8, &str); 4] = [(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")];

/// A lease the tests wait out. A node renews its leases every third of it: 1.5 s leaves a renewal
/// a second of margin on a busy machine (tests/README.md).
const LEASE: Duration = Duration::from_millis(1_500);

/// A lease no test waits out: a room that moves sooner was handed over.
const LONG_LEASE: Duration = Duration::from_secs(60);

/// A `fourkings serve` node over `database`, its leases lasting `lease`.
fn node(database: &TestPostgres, lease: Duration) -> ServerProcess {
    ServerProcess::spawn(
        fourkings_tests::fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[
            ("FOURKINGS_DATABASE", &database.url()),
            ("FOURKINGS_NODE_URL", "http://127.0.0.1:0"),
            ("FOURKINGS_LEASE_SECONDS", &lease.as_secs_f64().to_string()),
            ("FOURKINGS_CPU_STRATEGY", "random"),
            ("FOURKINGS_TRUSTED_PROXIES", "127.0.0.1"),
        ],
    )
}

/// Sends `signal` (`STOP`, `CONT`) to `process` without waiting for anything.
fn signal(process: &ServerProcess, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &process.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

/// What the database holds of a room: its lease's node and epoch.
fn lease_of(database: &TestPostgres, room: &str) -> String {
    database.sql(&format!(
        "SELECT node || ' ' || epoch FROM leases WHERE room = '{room}'"
    ))
}

/// The moves stored for a room, in order, by their coordinates.
fn stored_moves(database: &TestPostgres, room: &str) -> String {
    database.sql(&format!(
        "SELECT string_agg(body::json -> 'action' ->> 'mv', ',' ORDER BY id) FROM records \
         WHERE room = '{room}' AND body::json -> 'action' ->> 'kind' = 'move'"
    ))
}

/// The node that owns a room is killed (SIGKILL) in the middle of a game played through two
/// nodes. Its lease runs out, the other node adopts the room from the log, and everyone comes
/// back through it: every acknowledged move is there, once, and the next move is accepted within
/// the lease and a little more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_nodes_room_is_adopted_by_another_with_every_acknowledged_move() {
    let database = TestPostgres::start();
    let mut owner = node(&database, LEASE);
    let other = node(&database, LEASE);
    let mut table =
        Table::seat_four_through(&[&owner.base, &other.base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING).await;
    assert_eq!(lease_of(&database, &id), format!("{} 1", owner.base));

    let killed = Instant::now();
    owner.signal_and_wait("KILL");
    for player in &mut table.players {
        let (_, code) = player.until_closed().await;
        assert_ne!(code, Some(1000), "no orderly close from a killed node");
    }
    let mut red = Client::rejoin(&other.base, &id, &table.tokens[0], WAIT).await;
    let snapshot = red.snapshot().await;
    let game = snapshot.game.expect("the game goes on");
    assert_eq!(game.move_coordinates, ["h2h4", "b7c7", "g13g12", "m8l8"]);
    let answer = red.play_move(seat(0), &table.tokens[0], 4, "h4h5").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let pause = killed.elapsed();
    assert!(
        pause < LEASE + Duration::from_secs(3),
        "the room took a move again {pause:?} after the kill"
    );
    assert_eq!(lease_of(&database, &id), format!("{} 2", other.base));
    assert_eq!(
        stored_moves(&database, &id),
        "h2h4,b7c7,g13g12,m8l8,h4h5",
        "every acknowledged move once, in order"
    );
}

/// The owner is paused (SIGSTOP) past its lease: the other node adopts the room and a move is
/// made there. When the owner wakes, it finds its lease lost and closes its connections with
/// 1012, and a move sent to it meanwhile is never acknowledged: the database refuses its write
/// (its epoch is stale), so the room's log holds the adopter's move alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_paused_past_its_lease_loses_the_room_and_writes_nothing_into_it() {
    let database = TestPostgres::start();
    let owner = node(&database, LEASE);
    let other = node(&database, LEASE);
    let mut table = Table::seat_four_through(&[&owner.base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING[..2]).await;

    signal(&owner, "STOP");
    // Run out, or run out and taken already by the other node's scan.
    let ran_out = eventually(WAIT, || async {
        database.sql(&format!(
            "SELECT expires_at <= now() OR epoch > 1 FROM leases WHERE room = '{id}'"
        )) == "t"
    })
    .await;
    assert!(ran_out, "the paused owner's lease runs out");
    let mut yellow = Client::rejoin(&other.base, &id, &table.tokens[2], WAIT).await;
    let answer = yellow
        .play_move(seat(2), &table.tokens[2], 2, "g13g12")
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");

    signal(&owner, "CONT");
    // Sent to the owner as it wakes, on the position it still holds.
    let stale = table.send_move(seat(2), 2, "g13g11").await;
    for (index, player) in table.players.iter_mut().enumerate() {
        let (messages, code) = player.until_closed().await;
        assert_eq!(code, Some(1012), "seat {index} is told to reconnect");
        assert!(
            !messages
                .iter()
                .any(|m| matches!(m, ServerMessage::Ack { req, .. } if *req == stale)),
            "the stale move is never acknowledged: {messages:?}"
        );
    }
    assert_eq!(stored_moves(&database, &id), "h2h4,b7c7,g13g12");
    assert_eq!(lease_of(&database, &id), format!("{} 2", other.base));
    let lost = eventually(WAIT, || async {
        metric(&owner.base, "fourkings_cluster_leases_lost_total").await >= 1.0
    })
    .await;
    assert!(lost, "the owner counts the lease it lost");
}

/// SIGTERM on the owner hands its rooms over at once: every client is told 1012, the process
/// exits cleanly, the lease is released, and the other node serves the room as soon as a client
/// comes back, long before the lease would have run out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_hands_a_nodes_rooms_over_at_once() {
    let database = TestPostgres::start();
    let mut owner = node(&database, LONG_LEASE);
    let other = node(&database, LONG_LEASE);
    let mut table = Table::seat_four_through(&[&owner.base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING[..2]).await;

    let stopping = tokio::task::spawn_blocking(move || owner.signal_and_wait("TERM"));
    for player in &mut table.players {
        let (_, code) = player.until_closed().await;
        assert_eq!(code, Some(1012));
    }
    let told = Instant::now();
    let mut yellow = Client::rejoin(&other.base, &id, &table.tokens[2], WAIT).await;
    let answer = yellow
        .play_move(seat(2), &table.tokens[2], 2, "g13g12")
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let pause = told.elapsed();
    assert!(
        pause < Duration::from_secs(2),
        "the room took a move {pause:?} after its clients were told, its lease being 60 s"
    );
    assert!(stopping.await.unwrap().success(), "a clean exit");
    assert_eq!(lease_of(&database, &id), format!("{} 2", other.base));
    assert_eq!(stored_moves(&database, &id), "h2h4,b7c7,g13g12");
}

/// A node stopped with SIGTERM closes the WebSockets it relays to another node's rooms with 1012
/// (after the frame under way), as the room's own node would, and those people reconnect; the
/// room, on the node that stays, goes on for everyone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_node_tells_the_people_it_relays_to_reconnect() {
    let database = TestPostgres::start();
    let owner = node(&database, LONG_LEASE);
    let mut relay = node(&database, LONG_LEASE);
    let mut table =
        Table::seat_four_through(&[&owner.base, &relay.base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING[..2]).await;

    let stopping = tokio::task::spawn_blocking(move || relay.signal_and_wait("TERM"));
    for seat in [1, 3] {
        let (_, code) = table.players[seat].until_closed().await;
        assert_eq!(
            code,
            Some(1012),
            "seat {seat}, relayed, is told to reconnect"
        );
    }
    assert!(stopping.await.unwrap().success());
    let answer = table.play(seat(2), 2, "g13g12").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let mut green = Client::rejoin(&owner.base, &id, &table.tokens[3], WAIT).await;
    let answer = green.play_move(seat(3), &table.tokens[3], 3, "m8l8").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

/// A node whose database stops answering says so on `/readyz`, and once a whole lease has gone
/// by without a renewal it gives its rooms up (1012), since another node may have taken them.
/// With the database back, the room is adopted again and play goes on from where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_cut_off_from_its_database_says_so_and_gives_its_rooms_up_after_a_lease() {
    let database = TestPostgres::start();
    let node = fourkings_tests::TestServer::node(&database, LEASE).await;
    let mut table = Table::seat_four_through(&[&node.base], &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    table.play_opening(&OPENING[..1]).await;
    let readiness = || async { node.get("/readyz").await.text().await.unwrap() };
    assert_eq!(readiness().await, "ready");

    database.stop();
    let said = eventually(WAIT, || async {
        readiness().await == "database unreachable"
    })
    .await;
    assert!(said, "/readyz says why the node is not ready");
    for player in &mut table.players {
        let (_, code) = player.until_closed().await;
        assert_eq!(code, Some(1012), "the room is given up after a lease");
    }

    database.resume();
    let ready = eventually(WAIT, || async { readiness().await == "ready" }).await;
    assert!(ready, "ready again with the database back");
    let mut blue = Client::rejoin(&node.base, &id, &table.tokens[1], WAIT).await;
    let answer = blue.play_move(seat(1), &table.tokens[1], 1, "b7c7").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(stored_moves(&database, &id), "h2h4,b7c7");
}

/// A metric of the server at `base`.
async fn metric(base: &str, name: &str) -> f64 {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .expect("the server answers")
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in\n{text}"))
}
