//! Nothing is seen before it is stored, group commit, the archive of finished games, and a bad
//! database file stops the start-up. The tests of a running server run with each store, in memory
//! and on a SQLite file.

use std::process::Command;
use std::time::Duration;

use fourkings_engine::notation::{read_pgn, read_pgn4};
use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorBody, ErrorCode, Event, RoomInfo, ServerMessage,
    SettingsPatch,
};
use fourkings_server::storage::Write;
use fourkings_tests::doubles::TestStorage;
use fourkings_tests::{
    ServerProcess, Store, Table, TestServer, WAIT, eventually, fourkings_binary, on_every_store,
    seat,
};

on_every_store!(multi_thread: nothing_is_seen_before_it_is_stored);
async fn nothing_is_seen_before_it_is_stored(store: Store) {
    let storage = TestStorage::new(store);
    let server = TestServer::with_storage(
        |c| c.storage_timeout_seconds = 0.3,
        Box::new(storage.clone()),
    )
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in &mut table.players {
        player.drain().await;
    }
    let info_path = format!("/api/rooms/{}", table.room.id);
    let game_path = format!("/api/rooms/{}/game", table.room.id);
    let info_before: RoomInfo = server.get(&info_path).await.json().await.unwrap();
    let game_before = server.get(&game_path).await.text().await.unwrap();
    // The disk stalls: Red's move is accepted by the room, but neither the ack nor the diff may
    // reach anyone until it is stored.
    storage.set_open(false);
    let req = table.send_move(seat(0), 0, "h2h4").await;
    for player in &mut table.players {
        assert!(
            player.quiet_for(Duration::from_millis(300)).await.is_none(),
            "nothing before it is stored"
        );
    }
    assert!(!storage.stored_records().iter().any(|r| r.contains("h2h4")));
    // Nor on any other path. The room's info and its game download are the durable ones, at once; a
    // new room is not announced before it is stored (503 after the storage timeout); the metrics do
    // not count the move.
    let info: RoomInfo = server.get(&info_path).await.json().await.unwrap();
    assert_eq!(info, info_before, "the room as stored");
    let download = server.get(&game_path).await;
    assert_eq!(download.status(), 200);
    assert_eq!(
        download.text().await.unwrap(),
        game_before,
        "the game as stored"
    );
    let created = server.post_room("").await;
    assert_eq!(
        created.status(),
        503,
        "no 201 for a room that is not stored"
    );
    let body: ErrorBody = created.json().await.unwrap();
    assert_eq!(body.code, ErrorCode::StorageUnavailable);
    assert_eq!(server.metric("fourkings_moves_accepted_total").await, 0.0);
    storage.set_open(true);
    assert!(matches!(
        table.players[0].answer(req).await,
        ServerMessage::Ack { .. }
    ));
    assert!(
        storage.stored_records().iter().any(|r| r.contains("h2h4")),
        "stored before the ack"
    );
    table.players[2]
        .event_where(|_, e| matches!(e, Event::Moved(_)).then_some(()))
        .await;
    let info: RoomInfo = server.get(&info_path).await.json().await.unwrap();
    assert!(
        info.v > info_before.v,
        "the stored move is in the room's info"
    );
    let game = server.get(&game_path).await.text().await.unwrap();
    assert!(
        game.contains("h2-h4") && !game_before.contains("h2-h4"),
        "{game}"
    );
    assert_eq!(server.metric("fourkings_moves_accepted_total").await, 1.0);
}

on_every_store!(multi_thread: one_transaction_commits_the_records_of_many_rooms);
async fn one_transaction_commits_the_records_of_many_rooms(store: Store) {
    let storage = TestStorage::new(store);
    let server = TestServer::with_storage(|_| {}, Box::new(storage.clone())).await;
    let mut tables = Vec::new();
    for _ in 0..5 {
        tables.push(Table::seat_four(&server, &SettingsPatch::default(), true).await);
    }
    storage.set_open(false);
    let mut waiting = Vec::new();
    for table in &mut tables {
        waiting.push(table.send_move(seat(0), 0, "h2h4").await);
    }
    // Every room has accepted its move, and so handed its record to the writer, while the
    // writer is held (its queue counts them; a move is counted as accepted only once stored).
    let rooms = tables.len() as f64;
    let server = &server;
    let queued = eventually(WAIT, || async move {
        server.metric("fourkings_storage_queued_writes").await >= rooms
    })
    .await;
    assert!(queued, "every room handed its move to storage");
    assert_eq!(server.metric("fourkings_moves_accepted_total").await, 0.0);
    storage.set_open(true);
    for (table, req) in tables.iter_mut().zip(waiting) {
        assert!(matches!(
            table.players[0].answer(req).await,
            ServerMessage::Ack { .. }
        ));
    }
    let batches = storage.batches();
    let rooms_in_batch = |batch: &Vec<Write>| {
        let mut rooms: Vec<&str> = batch
            .iter()
            .filter_map(|w| match w {
                Write::Record { room, body, .. } if body.contains("h2h4") => Some(room.as_str()),
                _ => None,
            })
            .collect();
        rooms.dedup();
        rooms.len()
    };
    let most = batches.iter().map(rooms_in_batch).max().unwrap_or(0);
    assert!(
        most >= 2,
        "the moves of several rooms share one transaction (most in one: {most})"
    );
}

on_every_store!(finished_games_are_archived_and_downloadable_after_their_room_has_gone);
async fn finished_games_are_archived_and_downloadable_after_their_room_has_gone(store: Store) {
    let server = TestServer::on(store, |c| c.finished_room_seconds = 0.3).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12")])
        .await;
    table.resign(seat(3)).await;
    let game = table.players[0]
        .event_where(|_, e| match e {
            Event::GameChanged { game, .. } if game.result.is_some() => Some(game.clone()),
            _ => None,
        })
        .await;
    let path = format!("/api/games/{}.pgn4", game.id);
    let response = server.get(&path).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let pgn = read_pgn4(&text).expect("the archive is valid PGN4");
    assert_eq!(
        pgn.game.plies().map(|p| p.text.clone()).collect::<Vec<_>>(),
        game.moves
    );
    assert!(text.contains("[Red \"player 0\"]"), "{text}");
    assert!(
        pgn.game.is_over(),
        "the resignation is in the record:\n{text}"
    );
    // Wrong extension, unknown game: 404.
    assert_eq!(
        server
            .get(&format!("/api/games/{}.pgn", game.id))
            .await
            .status(),
        404
    );
    assert_eq!(
        server.get("/api/games/0000000000000-1.pgn4").await.status(),
        404
    );
    assert_eq!(server.get("/api/games/../etc.pgn4").await.status(), 404);
    // The room leaves memory after the configured time, closing its connections with the code
    // that says so; the game stays.
    let (_, code) = table.players[0].until_closed().await;
    assert_eq!(code, Some(fourkings_protocol::close::ROOM_CLOSED.0));
    let room_path = format!("/api/rooms/{}", table.room.id);
    // A room leaving memory sends no event to await: its public state is polled.
    let (server, room_path) = (&server, &room_path);
    let gone = eventually(WAIT, || async move {
        server.get(room_path).await.status() == 404
    })
    .await;
    assert!(gone, "the finished room left memory");
    assert_eq!(
        server.get(&path).await.status(),
        200,
        "its game is still downloadable"
    );
}

on_every_store!(the_game_in_play_downloads_as_the_server_records_it);
async fn the_game_in_play_downloads_as_the_server_records_it(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), false).await;
    let path = format!("/api/rooms/{}/game", table.room.id);
    let before = server.get(&path).await;
    assert_eq!(before.status(), 404, "no game before the start");
    assert!(before.text().await.unwrap().contains("game_not_found"));
    let host_token = table.room.host_token.clone();
    table.players[0]
        .ok(ClientMessage::Start { host_token })
        .await;
    table.play_opening(&[(0, "h2h4"), (1, "b7c7")]).await;
    let response = server.get(&path).await;
    assert_eq!(response.status(), 200);
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.contains(&format!("fourkings-{}-1.pgn4", table.room.id)),
        "{disposition}"
    );
    let text = response.text().await.unwrap();
    let pgn = read_pgn4(&text).expect("the live record is valid PGN4");
    assert_eq!(pgn.game.plies().count(), 2, "{text}");
    assert!(!pgn.game.is_over(), "the game goes on:\n{text}");
    assert!(text.contains("[Blue \"player 1\"]"), "{text}");
    assert_eq!(server.get("/api/rooms/nosuchroom/game").await.status(), 404);
}

on_every_store!(duo_games_are_archived_as_pgn);
async fn duo_games_are_archived_as_pgn(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let duo = SettingsPatch::preset("duo");
    let mut table = Table::seat_four(&server, &duo, true).await;
    table
        .play_opening(&[(0, "e2e4"), (1, "e7e5"), (2, "g1f3")])
        .await;
    table.resign(seat(3)).await;
    let game = table.players[0]
        .event_where(|_, e| match e {
            Event::GameChanged { game, .. } if game.result.is_some() => Some(game.clone()),
            _ => None,
        })
        .await;
    assert_eq!(game.result.as_ref().unwrap().reason, "resignation");
    let text = server
        .get(&format!("/api/games/{}.pgn", game.id))
        .await
        .text()
        .await
        .unwrap();
    let pgn = read_pgn(&text).expect("the archive is valid PGN");
    assert!(text.contains("1. e4 e5 2. Nf3"), "{text}");
    assert!(text.contains("[White \"player 0 & player 2\"]"), "{text}");
    assert!(pgn.game.is_over());
    assert_eq!(
        server
            .get(&format!("/api/games/{}.pgn4", game.id))
            .await
            .status(),
        404
    );
}

/// Starts the binary on `path` and returns its exit status and standard error.
fn start_on(path: &std::path::Path) -> (bool, String) {
    let child = Command::new(fourkings_binary!())
        .args(["serve", "--addr", "127.0.0.1:0", "--database"])
        .arg(path)
        .env("FOURKINGS_SHUTDOWN_SECONDS", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let pid = child.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    // A server that wrongly starts would serve forever: it is stopped, and reported as started.
    let output = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            rx.recv().expect("the waiting thread answers")
        });
    let output = output.expect("the binary ran");
    let stopped_by_us = output.status.code().is_none();
    (
        output.status.success() || stopped_by_us,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A database made by a real server, with one room in it.
fn real_database(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("rooms.db");
    let database = path.to_str().unwrap().to_owned();
    let mut server = ServerProcess::spawn(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[("FOURKINGS_DATABASE", &database)],
    );
    let status = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-X",
            "POST",
            &format!("{}/api/rooms", server.base),
        ])
        .status();
    assert!(status.is_ok_and(|s| s.success()));
    assert!(server.signal_and_wait("TERM").success());
    path
}

#[test]
fn a_bad_database_file_stops_the_start_and_is_left_as_it_was() {
    // Each case: the file, and words the error must contain besides the file's name.
    let mut cases: Vec<(std::path::PathBuf, &str)> = Vec::new();
    let temp = fourkings_tests::temp_dir("bad-garbage");
    let dir = temp.path();
    let garbage = dir.join("rooms.db");
    std::fs::write(
        &garbage,
        b"this is not a database, just text that happens to be here".repeat(100),
    )
    .unwrap();
    cases.push((garbage, "not a usable SQLite database"));

    let temp = fourkings_tests::temp_dir("bad-truncated");
    let dir = temp.path();
    let truncated = real_database(dir);
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let _ = std::fs::remove_file(dir.join("rooms.db-wal"));
    cases.push((truncated, "is truncated"));

    let temp = fourkings_tests::temp_dir("bad-corrupt");
    let dir = temp.path();
    let corrupt = real_database(dir);
    let mut bytes = std::fs::read(&corrupt).unwrap();
    assert!(bytes.len() >= 3 * 4096, "a database of several pages");
    // The second page (a table's root) overwritten with noise, the length unchanged.
    for (i, byte) in bytes[4096..8192].iter_mut().enumerate() {
        *byte = (i * 151 % 251) as u8;
    }
    std::fs::write(&corrupt, &bytes).unwrap();
    cases.push((corrupt, "damaged"));

    let temp = fourkings_tests::temp_dir("bad-newer");
    let dir = temp.path();
    let newer = real_database(dir);
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99;")
        .unwrap();
    cases.push((newer, "newer version"));

    let temp = fourkings_tests::temp_dir("bad-readonly");
    let dir = temp.path();
    let readonly = real_database(dir);
    let mut permissions = std::fs::metadata(&readonly).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&readonly, permissions).unwrap();
    cases.push((readonly, "read-only"));

    let temp = fourkings_tests::temp_dir("bad-foreign");
    let dir = temp.path();
    let foreign = dir.join("rooms.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE recipes (name TEXT);")
        .unwrap();
    cases.push((foreign, "something else"));

    for (path, words) in cases {
        let before = std::fs::read(&path).unwrap();
        let (ok, stderr) = start_on(&path);
        assert!(!ok, "{}: the server must not start", path.display());
        assert!(
            stderr.contains(&path.display().to_string()),
            "names the file: {stderr}"
        );
        assert!(
            stderr.contains(words),
            "says what is wrong ({words}): {stderr}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{}: left as it was",
            path.display()
        );
    }
}

#[test]
fn a_missing_database_is_created_and_migrated() {
    let temp = fourkings_tests::temp_dir("bad-fresh");
    let dir = temp.path();
    let path = dir.join("new.db");
    let database = path.to_str().unwrap().to_owned();
    let mut server = ServerProcess::spawn(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[("FOURKINGS_DATABASE", &database)],
    );
    assert!(server.signal_and_wait("TERM").success());
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version >= 1);
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

/// An empty file is started as a new database, and the log says so.
#[test]
fn an_empty_database_file_starts_a_new_database_and_says_so() {
    let temp = fourkings_tests::temp_dir("bad-empty");
    let dir = temp.path();
    let path = dir.join("rooms.db");
    std::fs::write(&path, b"").unwrap();
    let log_path = dir.join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let database = path.to_str().unwrap().to_owned();
    let mut server = ServerProcess::spawn_logging_to(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[("FOURKINGS_DATABASE", &database)],
        log,
    );
    assert!(server.signal_and_wait("TERM").success());
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        log.contains("the database file is empty (0 bytes): starting a new, empty database in it")
            && log.contains(&database),
        "{log}"
    );
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version >= 1, "the new database has the schema");
}

/// Every stored record is checked as it loads. A room whose records were changed on disk into
/// something the server never writes is set aside (not served, counted, kept in the file); the
/// other rooms are served as before.
#[tokio::test]
async fn a_room_whose_records_were_altered_on_disk_is_set_aside_and_the_rest_served() {
    let dir = fourkings_tests::temp_dir("altered");
    let path = dir.path().join("rooms.db");
    let on_file = |c: &mut fourkings_server::Config| {
        c.in_memory = false;
        c.database = path.clone().into();
    };
    let server = TestServer::with(on_file).await;
    let altered = server.create_room(&SettingsPatch::default()).await;
    let kept = server.create_room(&SettingsPatch::default()).await;
    server.server.stop().await;

    let changed = rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE records SET body = replace(body, '\"preset\":\"teams\"', '\"preset\":\"chaturanga\"') \
             WHERE room = ?1",
            [&altered.id],
        )
        .unwrap();
    assert_eq!(changed, 1, "the room's creation record");

    let server = TestServer::with(on_file).await;
    assert_eq!(
        server
            .get(&format!("/api/rooms/{}", altered.id))
            .await
            .status(),
        404,
        "not served with settings it never had"
    );
    assert_eq!(
        server
            .get(&format!("/api/rooms/{}", kept.id))
            .await
            .status(),
        200
    );
    assert_eq!(server.metric("fourkings_rooms_set_aside_total").await, 1.0);
    server.server.stop().await;
    let still_there: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM records WHERE room = ?1 AND body LIKE '%chaturanga%'",
            [&altered.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(still_there, 1, "kept in the file for someone to look at");
}

on_every_store!(multi_thread: the_room_info_shows_seats_and_moves_as_stored);
/// The room's info, while changes are on their way to the disk, is the room as stored, whatever
/// changed: a seat taken, then (once that is stored) a move.
async fn the_room_info_shows_seats_and_moves_as_stored(store: Store) {
    let storage = TestStorage::new(store);
    let server = TestServer::with_storage(|_| {}, Box::new(storage.clone())).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let info_path = format!("/api/rooms/{}", room.id);
    let info = || async {
        server
            .get(&info_path)
            .await
            .json::<RoomInfo>()
            .await
            .unwrap()
    };
    let (mut ann, _) = server.connect(&room.id).await;
    let empty = info().await;

    storage.set_open(false);
    let req = ann.req();
    ann.send(&ClientRequest::new(
        req,
        ClientMessage::TakeSeat {
            seat: seat(0),
            name: "Ann".into(),
        },
    ))
    .await;
    // The room has taken the seat once its record waits for storage.
    let server_ref = &server;
    let queued = eventually(WAIT, || async move {
        server_ref.metric("fourkings_storage_queued_writes").await >= 1.0
    })
    .await;
    assert!(queued);
    assert_eq!(
        info().await,
        empty,
        "the seat is not shown before it is stored"
    );
    storage.set_open(true);
    assert!(matches!(ann.answer(req).await, ServerMessage::Ack { .. }));
    let seated = info().await;
    assert_eq!(seated.seats[0].name.as_deref(), Some("Ann"), "{seated:?}");
    assert!(seated.v > empty.v);
}
