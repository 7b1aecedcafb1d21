//! What only a PostgreSQL database can do wrong, on a real PostgreSQL server of the test's own:
//! stopped or killed in the middle of a game (writes refused within the bound, reads served, everything
//! held written and delivered once it is back, with no restart), a statement that hangs behind
//! another session's lock or a network cut on the way to it (given up within the storage
//! timeout, the room back to what is stored, the same move taken once it is back), unreachable or set up by a newer
//! build at start (a clear error that never shows the password), a record altered in the
//! database (the room set aside, the others served), and a URL that requires TLS (served over
//! TLS when the certificate is trusted, refused when it is not or when the server has none). The scenarios every store shares run on
//! PostgreSQL through `on_every_store!`.

use std::time::{Duration, Instant};

use fourkings_protocol::{ClientMessage, ErrorCode, Event, ServerMessage, SettingsPatch};
use fourkings_server::{Config, Database, Server};
use fourkings_tests::disk::{SmallDisk, running_as_root};
use fourkings_tests::postgres::{Relay, TestPostgres};
use fourkings_tests::{Store, Table, TestServer, WAIT, eventually, seat, test_config};

async fn readyz(server: &TestServer) -> (u16, String) {
    let response = server.get("/readyz").await;
    (response.status().as_u16(), response.text().await.unwrap())
}

fn on(database: &TestPostgres) -> impl Fn(&mut Config) {
    let url = database.url();
    move |c: &mut Config| {
        c.in_memory = false;
        c.database = Database::Postgres(url.clone());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_stopped_mid_game_refuses_writes_serves_reads_and_takes_everything_held_back() {
    down_mid_game(TestPostgres::stop).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_killed_mid_game_refuses_writes_serves_reads_and_takes_everything_held_back() {
    down_mid_game(TestPostgres::kill).await;
}

/// The database goes down (`down`) as Red moves, and comes back.
async fn down_mid_game(down: fn(&TestPostgres)) {
    // An outage shorter than the storage timeout: what is held waits for the database.
    let server = TestServer::on(Store::Postgres, |c| c.storage_timeout_seconds = 60.0).await;
    let database = server.postgres().expect("on PostgreSQL");
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let quiet = server.create_room(&SettingsPatch::default()).await;
    for player in &mut table.players {
        player.drain().await;
    }
    assert_eq!(readyz(&server).await, (200, "ready".to_owned()));

    down(database);
    let red_move = table.send_move(seat(0), 0, "h2h4").await;
    let noticed = eventually(WAIT, || async {
        readyz(&server).await == (503, "storage stopped".to_owned())
    })
    .await;
    assert!(noticed, "readiness says storage stopped");

    let (mut visitor, snapshot) = server.connect(&quiet.id).await;
    assert_eq!(snapshot.v, 0, "a new connection is served from memory");
    let began = Instant::now();
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
        began.elapsed() < Duration::from_secs(2),
        "answered within the bound"
    );
    assert_eq!(
        server
            .get(&format!("/api/rooms/{}", quiet.id))
            .await
            .status(),
        200
    );
    assert_eq!(server.post_room("").await.status(), 503, "no new room");
    let retried = eventually(WAIT, || async {
        server.metric("fourkings_storage_errors_total").await >= 2.0
    })
    .await;
    assert!(retried, "the commit is retried");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);

    // Back: the held move is stored and delivered, and writes are taken again, with no restart.
    database.resume();
    assert!(matches!(
        table.players[0].answer(red_move).await,
        ServerMessage::Ack { .. }
    ));
    table.players[1]
        .event_where(|_, e| matches!(e, Event::Moved(_)).then_some(()))
        .await;
    let recovered = eventually(WAIT, || async { readyz(&server).await.0 == 200 }).await;
    assert!(recovered, "ready again");
    assert!(!visitor.take_seat(seat(0), "Ann").await.is_empty());
    let answer = table.play(seat(1), 1, "b7c7").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);
    let stored: u32 = database
        .sql("SELECT count(*) FROM records WHERE body LIKE '%h2h4%' OR body LIKE '%b7c7%'")
        .parse()
        .unwrap();
    assert_eq!(stored, 2, "both moves are in the database");
}

#[tokio::test]
async fn an_unreachable_database_stops_the_start_within_the_timeout_and_hides_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = test_config();
    config.in_memory = false;
    config.storage_timeout_seconds = 1.0;
    config.database = Database::Postgres(format!("postgres://ann:hunter2@127.0.0.1:{port}/rooms"));
    let began = Instant::now();
    let error = Server::start(config)
        .await
        .err()
        .expect("no server without its database");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    let message = format!("{error}: {:?}", error);
    assert!(message.contains("cannot be reached"), "{message}");
    assert!(message.contains("ann:***@127.0.0.1"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
}

#[tokio::test]
async fn a_database_set_up_by_a_newer_build_is_refused_and_left_as_it_was() {
    let database = TestPostgres::start();
    let server = TestServer::with(on(&database)).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    server.server.stop().await;
    database.sql("UPDATE fourkings_schema SET version = 99");

    let mut config = test_config();
    on(&database)(&mut config);
    let error = Server::start(config).await.err().expect("refused");
    assert!(
        error
            .to_string()
            .contains("newer version of Four Kings (schema 99"),
        "{error}"
    );
    assert_eq!(database.sql("SELECT version FROM fourkings_schema"), "99");
    assert_eq!(
        database.sql(&format!(
            "SELECT count(*) FROM rooms WHERE id = '{}'",
            room.id
        )),
        "1"
    );
}

/// Every stored record is checked as it loads: a room whose records were changed in the
/// database into something the server never writes is set aside (not served, counted, kept);
/// the other rooms come back over the restart as they were.
#[tokio::test]
async fn rooms_come_back_over_a_restart_and_an_altered_one_is_set_aside() {
    let database = TestPostgres::start();
    let server = TestServer::with(on(&database)).await;
    let altered = server.create_room(&SettingsPatch::default()).await;
    let kept = server.create_room(&SettingsPatch::default()).await;
    server.server.stop().await;
    let changed = database.sql(&format!(
        "WITH changed AS (UPDATE records \
             SET body = replace(body, '\"preset\":\"teams\"', '\"preset\":\"chaturanga\"') \
             WHERE room = '{}' RETURNING id) \
         SELECT count(*) FROM changed",
        altered.id
    ));
    assert_eq!(changed, "1", "the room's creation record");

    let server = TestServer::with(on(&database)).await;
    let status = |id: String| {
        let server = &server;
        async move { server.get(&format!("/api/rooms/{id}")).await.status() }
    };
    assert_eq!(status(altered.id.clone()).await, 404, "not served");
    assert_eq!(status(kept.id.clone()).await, 200, "back as it was");
    assert_eq!(server.metric("fourkings_rooms_set_aside_total").await, 1.0);
    server.server.stop().await;
    assert_eq!(
        database.sql(&format!(
            "SELECT count(*) FROM records WHERE room = '{}' AND body LIKE '%chaturanga%'",
            altered.id
        )),
        "1",
        "kept for someone to look at"
    );
}

/// A statement that hangs (here, behind a lock another session holds): the commit is given up
/// within the storage timeout, the move refused and the room back to what is stored; once the
/// lock is gone, the same move is taken and stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_statement_is_given_up_within_the_timeout_and_the_room_goes_back() {
    let server = TestServer::on(Store::Postgres, |c| c.storage_timeout_seconds = 0.5).await;
    let database = server.postgres().expect("on PostgreSQL");
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in &mut table.players {
        player.drain().await;
    }
    let mut lock = database.session(
        "BEGIN; LOCK TABLE records IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT;",
    );
    let held = "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' \
                AND relation = 'records'::regclass AND granted";
    let locked = eventually(WAIT, || async { database.sql(held) == "1" }).await;
    assert!(locked, "the other session holds the lock");

    table.first_move_is_given_up(Duration::from_secs(3)).await;

    // The server ends the session (a backend asleep does not notice its client leave).
    database.sql(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE mode = 'AccessExclusiveLock' \
         AND relation = 'records'::regclass",
    );
    lock.wait().expect("psql exits");
    red_move_is_taken_once(&server, &table, database).await;
}

/// The network to the database is cut mid-game (nothing passes, nothing closes, so every call
/// hangs): the commit is given up within the storage timeout, the move refused and the room back
/// to what is stored; mended, the same move is taken and stored once, with no restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_cut_to_the_database_is_given_up_within_the_timeout_and_ridden_out() {
    let database = TestPostgres::start();
    let relay = Relay::to(&database).await;
    let url = relay.url();
    let server = TestServer::with(move |c| {
        c.in_memory = false;
        c.database = Database::Postgres(url);
        c.storage_timeout_seconds = 1.0;
    })
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in &mut table.players {
        player.drain().await;
    }

    relay.set_open(false);
    table.first_move_is_given_up(Duration::from_secs(5)).await;

    relay.set_open(true);
    red_move_is_taken_once(&server, &table, &database).await;
}

/// Once storage is back, the room is as stored (no move), and the same move is taken and stored
/// once, with no restart.
async fn red_move_is_taken_once(server: &TestServer, table: &Table, database: &TestPostgres) {
    let recovered = eventually(WAIT, || async { readyz(server).await.0 == 200 }).await;
    assert!(recovered, "ready again");
    let (mut red, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(snapshot.game.as_ref().map(|g| g.ply), Some(0), "no move");
    let token = table.tokens[0].clone();
    red.ok(ClientMessage::Hello {
        seat_tokens: vec![token.clone()],
        host_token: None,
        since: Some(snapshot.v),
    })
    .await;
    red.ok(ClientMessage::Move {
        seat: seat(0),
        token,
        ply: 0,
        mv: "h2h4".into(),
    })
    .await;
    assert_eq!(
        database.sql("SELECT count(*) FROM records WHERE body LIKE '%h2h4%'"),
        "1",
        "stored once"
    );
}

/// `sslmode=require` is never quietly given up: a server without TLS is refused at start (and
/// the default, `prefer`, is what every other test here connects with, in plain text).
#[tokio::test]
async fn a_url_that_requires_tls_is_refused_by_a_server_without_it() {
    refused_at_start_requiring_tls(&TestPostgres::start()).await;
}

/// A server whose certificate no trusted root signed is refused at start, as a stranger would
/// be: requiring TLS means checking whom it is with.
#[tokio::test]
async fn a_url_that_requires_tls_refuses_a_certificate_no_trusted_root_signed() {
    refused_at_start_requiring_tls(&TestPostgres::start_with_tls()).await;
}

/// Starts a server on `database` with `sslmode=require`, which must fail before it sets up any
/// table.
async fn refused_at_start_requiring_tls(database: &TestPostgres) {
    let mut config = test_config();
    config.in_memory = false;
    config.storage_timeout_seconds = 2.0;
    config.database = Database::Postgres(format!("{}?sslmode=require", database.url()));
    let error = Server::start(config)
        .await
        .err()
        .expect("refused, with no plain-text fallback");
    assert!(error.to_string().contains("cannot be reached"), "{error}");
    assert_eq!(
        database.sql("SELECT count(*) FROM pg_tables WHERE tablename = 'rooms'"),
        "0"
    );
}

/// `sslmode=require` against a server with TLS: the connections are encrypted and checked
/// against the trusted roots (here the test's authority, named by `SSL_CERT_FILE` as to any
/// program that reads the system's roots), and the rooms are stored through them.
#[tokio::test]
async fn a_url_that_requires_tls_is_served_over_tls_checked_against_the_trusted_roots() {
    let database = TestPostgres::start_with_tls();
    let url = format!("{}?sslmode=require", database.url());
    let authority = database.authority().display().to_string();
    let server = fourkings_tests::ServerProcess::spawn(
        fourkings_tests::fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[("FOURKINGS_DATABASE", &url), ("SSL_CERT_FILE", &authority)],
    );
    let created = reqwest::Client::new()
        .post(format!("{}/api/rooms", server.base))
        .body("{}")
        .send()
        .await
        .expect("the server answers");
    assert!(created.status().is_success(), "{}", created.status());
    assert_eq!(database.sql("SELECT count(*) FROM rooms"), "1");
    let connections = |encrypted: bool| {
        database.sql(&format!(
            "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) \
             WHERE application_name = 'fourkings' AND ssl = {encrypted}"
        ))
    };
    assert_ne!(connections(true), "0", "the server's connections use TLS");
    assert_eq!(connections(false), "0", "none in plain text");
}

/// The disk under PostgreSQL fills up: the statement that needs a new page fails (PostgreSQL's
/// "could not extend file"), which is a storage failure like the others: the request is refused
/// within the storage timeout and nothing of it is stored, the failure counts once, and with
/// room again writes are taken with no restart, the game in progress going on. (A full disk
/// under the write-ahead log stops PostgreSQL itself, which the tests above stop and kill.)
/// Mounting the small disk needs root, as CI runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_under_the_database_refuses_writes_within_the_bound_and_room_brings_them_back()
{
    assert!(
        running_as_root(),
        "this test puts PostgreSQL on a small tmpfs, and mounting one needs root (CI runs as root)"
    );
    let dir = fourkings_tests::temp_dir("postgres-disk");
    let disk = SmallDisk::mount(dir.path(), 64).expect("a small tmpfs is mounted");
    let database = TestPostgres::start_on(disk.path());
    let timeout = Duration::from_secs(1);
    let server = TestServer::with(|c| {
        on(&database)(c);
        c.storage_timeout_seconds = timeout.as_secs_f64();
    })
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    for player in &mut table.players {
        player.drain().await;
    }
    let rooms_stored = || -> usize { database.sql("SELECT count(*) FROM rooms").parse().unwrap() };
    let before = rooms_stored();

    // Rooms are made until one needs more room than the disk has: each is answered within the
    // bound, a room or a refusal.
    disk.fill();
    let mut made = 0;
    loop {
        let began = Instant::now();
        let status = server.post_room("").await.status();
        assert!(
            began.elapsed() < timeout + Duration::from_secs(1),
            "answered within the bound: {:?}",
            began.elapsed()
        );
        if status == 503 {
            break;
        }
        assert_eq!(status, 201);
        made += 1;
        assert!(made < 2000, "the disk never ran out of room");
    }
    assert!(
        database.log().contains("No space left on device"),
        "the disk refused PostgreSQL:\n{}",
        database.log()
    );
    assert_eq!(
        rooms_stored(),
        before + made,
        "the refused room is not stored"
    );
    eprintln!("{made} rooms made on the full disk before one was refused");
    assert_eq!(server.metric("fourkings_storage_failures_total").await, 1.0);

    // Room again: rooms are made and the game goes on, with no restart.
    disk.make_room();
    let made_again = eventually(WAIT, || async {
        server.post_room("").await.status() == 201
    })
    .await;
    assert!(made_again, "a room is made once the disk has room");
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(rooms_stored(), before + made + 1);
    assert_eq!(readyz(&server).await, (200, "ready".to_owned()));
}
