//! A failing disk is loud and bounded. While storage fails, a request that would need a write is
//! refused at once with `storage_unavailable` and changes nothing, reads keep working, `/readyz`
//! says `storage stopped`, one failure is counted once however many tries it takes, and what was
//! held is written and delivered as soon as storage works again, without a restart. What was held
//! when storage failed is answered within the storage timeout: past it, storage gives it up, its
//! requests are refused and its rooms go back to what is stored. Writes waiting for storage are
//! capped: past the cap, requests that would need another are refused the same way. Each runs on
//! every store (the double makes the store under it fail); the failures of a real PostgreSQL
//! server are in `storage_postgres.rs`, those of a real disk in `disk_full.rs`.

use fourkings_protocol::{
    ChatChannel, ClientMessage, ErrorCode, Event, RoomInfo, ServerMessage, SettingsPatch,
};
use fourkings_tests::doubles::TestStorage;
use fourkings_tests::{Store, Table, TestServer, WAIT, eventually, on_every_store, seat};

async fn readyz(server: &TestServer) -> (u16, String) {
    let response = server.get("/readyz").await;
    (response.status().as_u16(), response.text().await.unwrap())
}

on_every_store!(multi_thread: while_storage_fails_writes_are_refused_reads_go_on_and_everything_held_lands_after);
async fn while_storage_fails_writes_are_refused_reads_go_on_and_everything_held_lands_after(
    store: Store,
) {
    let storage = TestStorage::new(store);
    // A failure shorter than the storage timeout: what is held waits for storage.
    let server = TestServer::with_storage(
        |c| c.storage_timeout_seconds = 60.0,
        Box::new(storage.clone()),
    )
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // A second room, with nothing on its way to the disk when storage fails.
    let quiet = server.create_room(&SettingsPatch::default()).await;
    for player in &mut table.players {
        player.drain().await;
    }
    assert_eq!(readyz(&server).await, (200, "ready".to_owned()));

    // The disk fills up just as Red moves: the move is held, and retried.
    storage.set_failing(true);
    let red_move = table.send_move(seat(0), 0, "h2h4").await;
    let noticed = eventually(WAIT, || async {
        readyz(&server).await == (503, "storage stopped".to_owned())
    })
    .await;
    assert!(noticed, "readiness says storage stopped");

    // A request that needs a write is refused at once, and changes nothing.
    let info_before: RoomInfo = server
        .get(&format!("/api/rooms/{}", quiet.id))
        .await
        .json()
        .await
        .unwrap();
    let (mut visitor, snapshot) = server.connect(&quiet.id).await;
    assert_eq!(snapshot.v, info_before.v, "a new connection is served");
    let began = std::time::Instant::now();
    visitor
        .fails(
            ErrorCode::StorageUnavailable,
            ClientMessage::TakeSeat {
                seat: seat(0),
                name: "Ann".into(),
            },
        )
        .await;
    assert!(
        began.elapsed() < std::time::Duration::from_secs(2),
        "answered within the bound"
    );
    visitor
        .fails(
            ErrorCode::StorageUnavailable,
            ClientMessage::Chat {
                channel: ChatChannel::Spectators,
                text: "hello?".into(),
                seat: None,
                token: None,
            },
        )
        .await;
    let info_after: RoomInfo = server
        .get(&format!("/api/rooms/{}", quiet.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info_after, info_before, "the room is as it was");
    let created = server.post_room("").await;
    assert_eq!(
        created.status(),
        503,
        "no new room while nothing can be stored"
    );

    // One failure, however many tries it takes.
    let retried = eventually(WAIT, || async {
        server.metric("fourkings_storage_errors_total").await >= 3.0
    })
    .await;
    assert!(retried, "the commit is retried");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);

    // The disk has room again: what was held is stored and delivered, without a restart.
    storage.set_failing(false);
    assert!(matches!(
        table.players[0].answer(red_move).await,
        ServerMessage::Ack { .. }
    ));
    table.players[1]
        .event_where(|_, e| matches!(e, Event::Moved(_)).then_some(()))
        .await;
    let recovered = eventually(WAIT, || async { readyz(&server).await.0 == 200 }).await;
    assert!(recovered, "ready again");
    let token = visitor.take_seat(seat(0), "Ann").await;
    assert!(!token.is_empty(), "writes are taken again");
    let answer = table.play(seat(1), 1, "b7c7").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);
}

/// The storage timeout of the test below: short, so that storage gives up soon.
const GIVE_UP_SECONDS: f64 = 0.5;

on_every_store!(multi_thread: what_storage_held_when_it_failed_is_refused_within_the_timeout_and_the_room_goes_back);
async fn what_storage_held_when_it_failed_is_refused_within_the_timeout_and_the_room_goes_back(
    store: Store,
) {
    let storage = TestStorage::new(store);
    let server = TestServer::with_storage(
        |c| c.storage_timeout_seconds = GIVE_UP_SECONDS,
        Box::new(storage.clone()),
    )
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let id = table.room.id.clone();
    for player in &mut table.players {
        player.drain().await;
    }
    let (mut watcher, before) = server.connect(&id).await;
    assert_eq!(before.game.as_ref().map(|g| g.ply), Some(0));

    // The disk fills up just as Red moves: the move is held while storage is retried, and
    // refused once storage gives it up.
    storage.set_failing(true);
    table
        .first_move_is_given_up(std::time::Duration::from_secs(2))
        .await;
    // The watcher too is told to reconnect, and did not hear of the move.
    watcher
        .closed_unaware_of_moves(fourkings_protocol::close::ROOM_RESTARTING.0)
        .await;

    // The room is what is stored: as before the move, on every path.
    let (mut red, snapshot) = server.connect(&id).await;
    assert_eq!(snapshot.v, before.v, "the same version");
    assert_eq!(snapshot.game.as_ref().map(|g| g.ply), Some(0), "no move");
    let info: RoomInfo = server
        .get(&format!("/api/rooms/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.v, before.v);
    assert!(
        !storage.stored_records().iter().any(|r| r.contains("h2h4")),
        "nothing of the move is stored"
    );
    // Still failing: Red is back in the seat (it reads only), and a move is refused at once.
    let token = table.tokens[0].clone();
    red.ok(ClientMessage::Hello {
        seat_tokens: vec![token.clone()],
        host_token: None,
        since: Some(before.v),
    })
    .await;
    let red_move = ClientMessage::Move {
        seat: seat(0),
        token: token.clone(),
        ply: 0,
        mv: "h2h4".into(),
    };
    let retried = std::time::Instant::now();
    red.fails(ErrorCode::StorageUnavailable, red_move.clone())
        .await;
    assert!(retried.elapsed() < std::time::Duration::from_secs(1));

    // Storage works again, without a restart: the room takes the move, and the seats nobody
    // came back to are marked away, now that it can be stored.
    storage.set_failing(false);
    let recovered = eventually(WAIT, || async { readyz(&server).await.0 == 200 }).await;
    assert!(recovered, "ready again");
    red.event_where(|_, e| {
        matches!(
            e,
            Event::Presence {
                presence: fourkings_protocol::Presence::Away,
                ..
            }
        )
        .then_some(())
    })
    .await;
    red.ok(red_move).await;
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);
    assert_eq!(server.metric("fourkings_moves_accepted_total").await, 1.0);
}

on_every_store!(multi_thread: writes_waiting_for_a_slow_disk_are_capped_and_all_land_when_it_catches_up);
async fn writes_waiting_for_a_slow_disk_are_capped_and_all_land_when_it_catches_up(store: Store) {
    let storage = TestStorage::new(store);
    let server = TestServer::with_storage(
        |c| {
            c.max_held_writes = 3;
            // Slow, not stalled: only the cap refuses.
            c.storage_timeout_seconds = 60.0;
        },
        Box::new(storage.clone()),
    )
    .await;
    let mut tables = Vec::new();
    for _ in 0..4 {
        let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
        for player in &mut table.players {
            player.drain().await;
        }
        tables.push(table);
    }
    storage.set_open(false);
    // Moves until the cap: each room's move is one write.
    let mut held = Vec::new();
    for table in tables.iter_mut().take(3) {
        held.push(table.send_move(seat(0), 0, "h2h4").await);
    }
    let server_ref = &server;
    let full = eventually(WAIT, || async move {
        server_ref.metric("fourkings_storage_queued_writes").await >= 3.0
    })
    .await;
    assert!(full, "three writes wait");
    let (code, text) = readyz(&server).await;
    assert_eq!((code, text.as_str()), (503, "storage stopped"));
    // At the cap, the fourth room's move is refused, and its room stays as it was.
    let refused = tables[3].play(seat(0), 0, "h2h4").await;
    assert!(
        matches!(
            refused,
            ServerMessage::Error {
                code: ErrorCode::StorageUnavailable,
                ..
            }
        ),
        "{refused:?}"
    );
    // The disk catches up: every held move is stored and acknowledged.
    storage.set_open(true);
    for (table, req) in tables.iter_mut().zip(held) {
        assert!(matches!(
            table.players[0].answer(req).await,
            ServerMessage::Ack { .. }
        ));
    }
    let answer = tables[3].play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(server.metric("fourkings_moves_accepted_total").await, 4.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_file_deleted_or_replaced_while_running_is_noticed_as_a_storage_failure() {
    let dir = fourkings_tests::temp_dir("identity");
    let path = dir.path().join("rooms.db");
    let server = TestServer::with(|c| {
        c.in_memory = false;
        c.database = path.clone().into();
    })
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in &mut table.players {
        player.drain().await;
    }
    let stopped = || async { readyz(&server).await == (503, "storage stopped".to_owned()) };

    // Deleted (a hard link keeps it, to be put back): noticed by the next commit, within the
    // second the writer stamps the file as alive, with nothing written into the lost file.
    let kept = dir.path().join("kept.db");
    std::fs::hard_link(&path, &kept).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        eventually(WAIT, stopped).await,
        "a deleted file stops storage"
    );
    let refused = table.play(seat(0), 0, "h2h4").await;
    assert!(
        matches!(
            refused,
            ServerMessage::Error {
                code: ErrorCode::StorageUnavailable,
                ..
            }
        ),
        "{refused:?}"
    );
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);

    // Put back where it was: storage works again.
    std::fs::rename(&kept, &path).unwrap();
    assert!(
        eventually(WAIT, || async { readyz(&server).await.0 == 200 }).await,
        "the file back, storage works"
    );
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");

    // Replaced by another file (a copy, renamed over it): noticed the same way.
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::rename(&copy, &path).unwrap();
    assert!(
        eventually(WAIT, stopped).await,
        "a replaced file stops storage"
    );
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 2.0);
}
