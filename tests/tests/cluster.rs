//! Several nodes over one PostgreSQL database. A room belongs to the node that holds its lease;
//! a claim starts a new epoch, and the database refuses a write made under an epoch that is not
//! the lease's (fencing), so a node that lost a room, however long it was paused, never writes
//! into it again. On a real PostgreSQL server of the test's own.

use std::time::Duration;

use fourkings_server::storage::leases::{Claim, Leases};
use fourkings_server::storage::postgres::PostgresStorage;
use fourkings_server::storage::{Storage, StorageError, Write};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{WAIT, eventually};

const ROOM: &str = "r1";
const NODE_A: &str = "http://127.0.0.1:7001";
const NODE_B: &str = "http://127.0.0.1:7002";
/// A term long enough that it never runs out in a test unless the test waits for it.
const LONG: Duration = Duration::from_secs(60);
/// A term a test waits out, and within which it first shows the lease held: 1.5 s, a margin that
/// holds with both cores kept busy (tests/README.md).
const SHORT: Duration = Duration::from_millis(1_500);

/// The database, a store on it, and its leases, with one room created.
fn with_room() -> (TestPostgres, PostgresStorage, Leases) {
    let database = TestPostgres::start();
    let mut store = PostgresStorage::open(&database.url(), 2, Duration::from_secs(5))
        .expect("a fresh database opens");
    store
        .write(&[Write::CreateRoom {
            room: ROOM.into(),
            at: 1,
        }])
        .expect("the room is created");
    let leases = store.leases();
    (database, store, leases)
}

fn record(body: &str, epoch: Option<u64>) -> Write {
    Write::Record {
        room: ROOM.into(),
        at: 2,
        body: body.into(),
        v: None,
        epoch,
    }
}

/// The epoch of a claim that took the lease.
fn taken(claim: Claim) -> u64 {
    match claim {
        Claim::Taken { epoch, .. } => epoch,
        other => panic!("the lease was not taken: {other:?}"),
    }
}

fn stored(database: &TestPostgres) -> String {
    database.sql("SELECT string_agg(body, ',' ORDER BY id) FROM records")
}

#[tokio::test]
async fn a_lease_is_one_nodes_until_its_term_runs_out_and_each_claim_starts_a_new_epoch() {
    let (_database, _store, leases) = with_room();
    assert_eq!(taken(leases.claim(ROOM, NODE_A, SHORT).await.unwrap()), 1);
    assert_eq!(
        leases.claim(ROOM, NODE_B, SHORT).await.unwrap(),
        Claim::Held {
            node: NODE_A.into()
        },
        "held while its term lasts"
    );
    assert_eq!(leases.holder(ROOM).await.unwrap().as_deref(), Some(NODE_A));
    let ran_out = eventually(WAIT, || async {
        leases.holder(ROOM).await.unwrap().is_none()
    })
    .await;
    assert!(ran_out, "the term runs out");
    assert_eq!(taken(leases.claim(ROOM, NODE_B, LONG).await.unwrap()), 2);
    // A renewal under the old epoch finds the room gone; the holder's keeps it.
    let a_lost = leases
        .renew(NODE_A, &[(ROOM.into(), 1)], LONG)
        .await
        .unwrap();
    assert_eq!(a_lost, vec![ROOM.to_owned()]);
    let b_lost = leases
        .renew(NODE_B, &[(ROOM.into(), 2)], LONG)
        .await
        .unwrap();
    assert!(b_lost.is_empty());
    // Released, it can be claimed at once; a node restarted under its URL claims its own.
    leases.release(NODE_B, &[(ROOM.into(), 2)]).await.unwrap();
    assert_eq!(leases.holder(ROOM).await.unwrap(), None);
    assert_eq!(
        leases
            .renew(NODE_B, &[(ROOM.into(), 2)], LONG)
            .await
            .unwrap(),
        vec![ROOM.to_owned()],
        "a renewal sent before the release does not bring the lease back"
    );
    assert_eq!(leases.holder(ROOM).await.unwrap(), None);
    assert_eq!(taken(leases.claim(ROOM, NODE_A, LONG).await.unwrap()), 3);
    assert_eq!(taken(leases.claim(ROOM, NODE_A, LONG).await.unwrap()), 4);
}

#[tokio::test]
async fn the_database_refuses_a_write_from_an_epoch_that_is_not_the_leases() {
    let (database, mut store, leases) = with_room();
    assert_eq!(taken(leases.claim(ROOM, NODE_A, SHORT).await.unwrap()), 1);
    store
        .write(&[record("a1", Some(1))])
        .expect("the holder writes");
    // Node A stalls past its term; node B takes the room.
    let ran_out = eventually(WAIT, || async {
        leases.holder(ROOM).await.unwrap().is_none()
    })
    .await;
    assert!(ran_out);
    assert_eq!(taken(leases.claim(ROOM, NODE_B, LONG).await.unwrap()), 2);
    // A wakes up and writes under its old epoch: refused, with the whole batch it was in.
    let refused = store.write(&[Write::Alive { at: 5 }, record("a2", Some(1))]);
    assert!(
        matches!(&refused, Err(StorageError::Moved { room }) if room == ROOM),
        "{refused:?}"
    );
    for write in [
        Write::Version {
            room: ROOM.into(),
            v: 9,
            epoch: Some(1),
        },
        Write::CloseRoom {
            room: ROOM.into(),
            at: 6,
            epoch: Some(1),
        },
        // A write with no epoch at all is no better.
        record("a3", None),
    ] {
        let refused = store.write(std::slice::from_ref(&write));
        assert!(
            matches!(refused, Err(StorageError::Moved { .. })),
            "{write:?}: {refused:?}"
        );
    }
    assert_eq!(
        stored(&database),
        "a1",
        "nothing of A's after it lost the room"
    );
    assert_eq!(
        database.sql("SELECT version, closed_at IS NULL FROM rooms"),
        "0|t"
    );
    assert_eq!(database.sql("SELECT count(*) FROM alive"), "0");
    // B, the holder, writes.
    store
        .write(&[record("b1", Some(2))])
        .expect("the holder writes");
    assert_eq!(stored(&database), "a1,b1");
    assert_eq!(
        database.sql("SELECT string_agg(epoch::TEXT, ',' ORDER BY id) FROM records"),
        "1,2",
        "each record carries its epoch"
    );
}

#[tokio::test]
async fn a_room_with_no_lease_takes_writes_as_on_a_server_alone() {
    let (database, mut store, _leases) = with_room();
    store
        .write(&[record("x", None)])
        .expect("no lease, no fence");
    assert_eq!(stored(&database), "x");
}

/// A write in flight when the lease runs out holds the lease row: the node taking the room over
/// waits for it to commit, so the log it reads the room from has it (nothing written under the
/// old epoch lands after the new owner read the room).
#[tokio::test]
async fn a_claim_waits_for_the_writes_in_flight_under_the_old_epoch() {
    let (database, _store, leases) = with_room();
    assert_eq!(taken(leases.claim(ROOM, NODE_A, SHORT).await.unwrap()), 1);
    let ran_out = eventually(WAIT, || async {
        leases.holder(ROOM).await.unwrap().is_none()
    })
    .await;
    assert!(ran_out);
    // Node A's commit, slow: its record is in, the transaction still open.
    let mut slow = database.session(&format!(
        "BEGIN; INSERT INTO records (room, at, body, epoch) VALUES ('{ROOM}', 3, 's1', 1); \
         SELECT pg_sleep(2); COMMIT;"
    ));
    let sleeping = eventually(WAIT, || async {
        database.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == "1"
    })
    .await;
    assert!(sleeping, "the slow commit is under way");
    let began = std::time::Instant::now();
    assert_eq!(taken(leases.claim(ROOM, NODE_B, LONG).await.unwrap()), 2);
    assert!(
        began.elapsed() > Duration::from_millis(500),
        "the claim waited for the commit: {:?}",
        began.elapsed()
    );
    assert_eq!(
        stored(&database),
        "s1",
        "B reads the room with A's last record"
    );
    assert!(slow.wait().unwrap().success());
}

/// A server whose room was taken over by another node (here the test writes the other node's
/// lease): the database refuses the room's next write, and the server stops serving that room
/// at once, closing its connections with 1012 (to reconnect where the room is now) and telling
/// nobody of what was refused; its other rooms go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_room_moved_stops_serving_it_and_closes_its_connections_with_1012() {
    use fourkings_protocol::{Event, ServerMessage, SettingsPatch};
    use fourkings_tests::{Store, Table, TestServer, seat};

    let server = TestServer::on(Store::Postgres, |_| {}).await;
    let database = server.postgres().expect("on PostgreSQL");
    let mut moved = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let mut stays = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in moved.players.iter_mut().chain(stays.players.iter_mut()) {
        player.drain().await;
    }
    let id = moved.room.id.clone();
    database.sql(&format!(
        "INSERT INTO leases (room, node, epoch, expires_at) \
         VALUES ('{id}', '{NODE_B}', 7, now() + interval '1 minute')"
    ));

    let _refused = moved.send_move(seat(0), 0, "h2h4").await;
    for player in &mut moved.players {
        let (messages, code) = player.until_closed().await;
        assert_eq!(code, Some(fourkings_protocol::close::SERVER_RESTARTING.0));
        assert!(
            !messages.iter().any(|m| matches!(
                m,
                ServerMessage::Ack { .. }
                    | ServerMessage::Event {
                        event: Event::Moved(_),
                        ..
                    }
            )),
            "nobody hears of the refused move: {messages:?}"
        );
    }
    assert_eq!(
        database.sql(&format!(
            "SELECT count(*) FROM records WHERE room = '{id}' AND body LIKE '%h2h4%'"
        )),
        "0"
    );
    let gone = eventually(WAIT, || async {
        server.get(&format!("/api/rooms/{id}")).await.status() == 404
    })
    .await;
    assert!(gone, "this node no longer serves the room");

    let answer = stays.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 0.0);
}

#[tokio::test]
async fn a_new_rooms_id_is_claimed_only_if_no_room_or_lease_has_it_and_a_missing_room_is_never_leased()
 {
    let (database, mut store, leases) = with_room();
    assert!(leases.claim_new("fresh", NODE_A, LONG).await.unwrap());
    assert!(
        !leases.claim_new("fresh", NODE_B, LONG).await.unwrap(),
        "a lease has it"
    );
    assert!(
        !leases.claim_new(ROOM, NODE_B, LONG).await.unwrap(),
        "a room has it"
    );
    assert_eq!(
        leases.claim("nowhere", NODE_A, LONG).await.unwrap(),
        Claim::Missing
    );
    store
        .write(&[Write::CloseRoom {
            room: ROOM.into(),
            at: 3,
            epoch: None,
        }])
        .unwrap();
    assert_eq!(
        leases.claim(ROOM, NODE_A, LONG).await.unwrap(),
        Claim::Missing,
        "a closed room is not served again"
    );
    assert_eq!(
        database.sql("SELECT string_agg(room, ',') FROM leases"),
        "fresh"
    );
}

/// The rooms no node serves are those without a lease, or whose lease ran out or was released;
/// a node restarted under its URL also finds its own. A claim after a release says when the
/// room was last served, for the adopter to stop its clocks there.
#[tokio::test]
async fn unserved_rooms_are_found_and_a_claim_says_since_when_a_room_was_unserved() {
    let (_database, mut store, leases) = with_room();
    for room in ["r2", "r3"] {
        store
            .write(&[Write::CreateRoom {
                room: room.into(),
                at: 1,
            }])
            .unwrap();
    }
    let mut unserved = leases.unserved(NODE_B, false, 10).await.unwrap();
    unserved.sort();
    assert_eq!(unserved, ["r1", "r2", "r3"], "no room has a lease yet");
    assert_eq!(taken(leases.claim("r2", NODE_A, LONG).await.unwrap()), 1);
    assert_eq!(taken(leases.claim("r3", NODE_A, LONG).await.unwrap()), 1);
    leases.release(NODE_A, &[("r3".into(), 1)]).await.unwrap();
    let released_at = fourkings_tests::now_ms();
    let mut unserved = leases.unserved(NODE_B, false, 10).await.unwrap();
    unserved.sort();
    assert_eq!(unserved, ["r1", "r3"]);
    let mut own = leases.unserved(NODE_A, true, 10).await.unwrap();
    own.sort();
    assert_eq!(own, ["r1", "r2", "r3"], "with its own");
    assert_eq!(leases.unserved(NODE_B, false, 1).await.unwrap().len(), 1);
    match leases.claim("r3", NODE_B, LONG).await.unwrap() {
        Claim::Taken {
            epoch: 2,
            idle_since: Some(at),
        } => assert!(
            at.abs_diff(released_at) < 2_000,
            "unserved since the release: {at} against {released_at}"
        ),
        other => panic!("{other:?}"),
    }
}

/// The opening every node test plays: one move of each seat.
const OPENING: [(u8, &str); 4] = [(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")];

/// Three nodes over one database. A room created on the first is played by four people
/// connected through all three: their WebSockets and the room's HTTP reads reach it through
/// whichever node they arrive at (relayed to the node that holds its lease), and every move is
/// seen by everyone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_is_played_through_all_three_nodes() {
    use fourkings_protocol::{Event, RoomInfo, SettingsPatch};
    use fourkings_tests::{Client, Table, TestServer};

    let database = TestPostgres::start();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        nodes.push(TestServer::node(&database, LONG).await);
    }
    let bases: Vec<&str> = nodes.iter().map(|node| node.base.as_str()).collect();
    let mut table = Table::seat_four_through(&bases, &SettingsPatch::default()).await;
    let id = table.room.id.clone();
    assert_eq!(
        database.sql(&format!("SELECT node FROM leases WHERE room = '{id}'")),
        bases[0],
        "the room is the node's that created it"
    );
    table.play_opening(&OPENING).await;
    // The last mover's partner, through another node, hears of the move.
    let last = table.players[1]
        .event_where(|v, event| match event {
            Event::Moved(moved) if moved.ply == 4 => Some(v),
            _ => None,
        })
        .await;
    for node in &bases {
        let (_, snapshot) = Client::join(node, &id).await.expect("the WebSocket opens");
        let game = snapshot.game.expect("the game is under way");
        assert_eq!(
            game.move_coordinates,
            ["h2h4", "b7c7", "g13g12", "m8l8"],
            "{node}"
        );
        assert!(snapshot.v >= last, "{node}");
    }
    for node in &nodes {
        let answer = node.get(&format!("/api/rooms/{id}")).await;
        assert_eq!(answer.status(), 200, "{}", node.base);
        let info: RoomInfo = answer.json().await.unwrap();
        assert_eq!(info.id, id);
        let history = node.get(&format!("/api/rooms/{id}/game/history")).await;
        assert_eq!(history.status(), 200, "{}", node.base);
    }
    for node in &nodes[1..] {
        assert!(
            node.metric("fourkings_cluster_forwarded_connections_total")
                .await
                >= 1.0
        );
        assert!(
            node.metric("fourkings_cluster_forwarded_requests_total")
                .await
                >= 2.0
        );
        assert_eq!(node.metric("fourkings_cluster_rooms_owned").await, 0.0);
    }
    let owned = eventually(WAIT, || async {
        nodes[0].metric("fourkings_cluster_rooms_owned").await == 1.0
    })
    .await;
    assert!(owned, "the first node counts the room it owns");
    assert_eq!(
        nodes[1].get("/api/rooms/0000000000000").await.status(),
        404,
        "no node serves a room that does not exist"
    );
}

/// A room nobody is connected to moves to the node that its first connection reaches (its
/// creator hands it over), so that a balancer routing by room sends every connection straight
/// to it; a connection reaching another node while someone is connected is relayed instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_moves_to_the_node_its_first_connection_reaches_and_later_ones_are_relayed() {
    use fourkings_protocol::SettingsPatch;
    use fourkings_tests::{Client, TestServer, seat};

    let database = TestPostgres::start();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        // A node waits for another's answer as long as for its storage (2 s by default). With
        // both cores busy the room once ended at another node (epoch 2 there), as when a
        // handover's answer comes after the asking node gave up and relayed the connection to
        // the creator, which adopts the room again. 10 s leaves that race its margin.
        nodes.push(
            TestServer::node_with(&database, LONG, |c| c.storage_timeout_seconds = 10.0).await,
        );
    }
    let room = nodes[0].create_room(&SettingsPatch::default()).await;
    let lease = || {
        database.sql(&format!(
            "SELECT node || ' ' || epoch FROM leases WHERE room = '{}'",
            room.id
        ))
    };
    assert_eq!(lease(), format!("{} 1", nodes[0].base));

    // Only a node may ask for a room: an address not trusted as one is refused.
    let stranger = TestServer::http_from("127.0.0.2".parse().unwrap())
        .post(format!(
            "{}/cluster/rooms/{}/handover",
            nodes[0].base, room.id
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 403);
    let (mut first, _) = Client::join(&nodes[1].base, &room.id).await.unwrap();
    assert_eq!(
        lease(),
        format!("{} 2", nodes[1].base),
        "the room moved to the first connection's node"
    );
    assert_eq!(
        nodes[1]
            .metric("fourkings_cluster_rooms_pulled_total")
            .await,
        1.0
    );
    assert_eq!(
        nodes[1]
            .metric("fourkings_cluster_forwarded_connections_total")
            .await,
        0.0
    );
    let token = first.take_seat(seat(0), "first").await;
    assert!(!token.is_empty());

    let (mut second, snapshot) = Client::join(&nodes[2].base, &room.id).await.unwrap();
    assert_eq!(
        snapshot.seats[0].name.as_deref(),
        Some("first"),
        "the room as it stands"
    );
    assert_eq!(
        lease(),
        format!("{} 2", nodes[1].base),
        "someone is connected: it stays"
    );
    assert_eq!(
        nodes[2]
            .metric("fourkings_cluster_forwarded_connections_total")
            .await,
        1.0
    );
    second.take_seat(seat(1), "second").await;
    let gone = eventually(WAIT, || async {
        nodes[0].metric("fourkings_cluster_rooms_owned").await == 0.0
    })
    .await;
    assert!(gone, "its creator no longer holds it");
}

/// A WebSocket relayed by another node counts against its client's own address on the room's
/// node (the relaying node appends it to `X-Forwarded-For`, and the nodes trust each other): with
/// one connection an address, a second from the same client is refused through the relay, and
/// another client's is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_websocket_counts_against_its_clients_address_on_the_rooms_node() {
    use fourkings_protocol::SettingsPatch;
    use fourkings_tests::TestServer;
    use tokio_tungstenite::tungstenite;

    let database = TestPostgres::start();
    let owner = TestServer::node_with(&database, LONG, |config| {
        config.max_connections_per_address = 1;
    })
    .await;
    let relay = TestServer::node(&database, LONG).await;
    let room = owner.create_room(&SettingsPatch::default()).await;
    // Someone on the room's own node: the room stays there.
    let _here = owner
        .connect_from(&room.id, "127.0.0.4".parse().unwrap())
        .await
        .unwrap();
    let _first = relay
        .connect_from(&room.id, "127.0.0.2".parse().unwrap())
        .await
        .expect("a first connection from 127.0.0.2");
    match relay
        .connect_from(&room.id, "127.0.0.2".parse().unwrap())
        .await
    {
        Err(error) => match error.downcast_ref::<tungstenite::Error>() {
            Some(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 429),
            other => panic!("refused with 429, not {other:?}"),
        },
        Ok(_) => panic!("a second connection from 127.0.0.2 is refused"),
    }
    relay
        .connect_from(&room.id, "127.0.0.3".parse().unwrap())
        .await
        .expect("another address is not held to 127.0.0.2's count");
    assert_eq!(
        relay
            .metric("fourkings_cluster_forwarded_connections_total")
            .await,
        3.0
    );
}
