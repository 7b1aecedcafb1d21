//! A dropped player keeps the seat for a grace period, then the CPU plays for them until they come
//! back; Duo stops its clocks instead and then lets the other team claim the win; heartbeats find
//! dead connections. Grace periods are short here (configured), not 60 s. Each test runs with each
//! store, in memory and on a SQLite file.

use std::time::{Duration, Instant};

use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorCode, Event, GameChange, Presence, SeatIndex, ServerMessage,
    SettingsPatch,
};
use fourkings_tests::{
    Client, Store, Table, TestServer, WAIT, eventually, now_ms, on_every_store, seat,
};

async fn presence_of(client: &mut Client, seat: SeatIndex) -> Presence {
    client
        .event_where(|_, e| match e {
            Event::Presence {
                seat: s, presence, ..
            } if *s == seat => Some(*presence),
            _ => None,
        })
        .await
}

async fn reconnect(server: &TestServer, room: &str, token: &str) -> Client {
    let (mut client, _) = server.connect(room).await;
    let token = token.to_owned();
    client
        .ok(ClientMessage::Hello {
            seat_tokens: vec![token],
            host_token: None,
            since: None,
        })
        .await;
    client
}

on_every_store!(a_player_back_within_the_grace_period_keeps_the_seat_and_others_see_only_presence);
async fn a_player_back_within_the_grace_period_keeps_the_seat_and_others_see_only_presence(
    store: Store,
) {
    let server = TestServer::on(store, |c| c.grace_seconds = 5.0).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let blue = table.players.remove(1);
    blue.close().await;
    assert_eq!(
        presence_of(&mut table.players[0], seat(1)).await,
        Presence::Away
    );
    let mut blue = reconnect(&server, &table.room.id, &table.tokens[1]).await;
    assert_eq!(
        presence_of(&mut table.players[0], seat(1)).await,
        Presence::Online
    );
    // Red moves; Blue, back, receives its legal moves and plays.
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let legal = blue.legal_moves().await;
    assert_eq!(legal.seat, seat(1));
    let token = table.tokens[1].clone();
    let mv = legal.moves[0].clone();
    blue.ok(ClientMessage::Move {
        seat: seat(1),
        token,
        ply: 1,
        mv,
    })
    .await;
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.seat == seat(1) => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(!moved.automatic);
}

on_every_store!(after_the_grace_period_the_cpu_plays_for_the_player_until_they_come_back);
async fn after_the_grace_period_the_cpu_plays_for_the_player_until_they_come_back(store: Store) {
    let server = TestServer::on(store, |c| c.grace_seconds = 0.2).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let blue = table.players.remove(1);
    blue.close().await;
    let dropped = Instant::now();
    assert_eq!(
        presence_of(&mut table.players[0], seat(1)).await,
        Presence::Away
    );
    assert_eq!(
        presence_of(&mut table.players[0], seat(1)).await,
        Presence::CpuPlaying
    );
    assert!(
        dropped.elapsed() >= Duration::from_millis(150),
        "not before the grace period ends"
    );
    // Red moves; the CPU answers for Blue.
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.seat == seat(1) => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(moved.automatic, "the CPU played for the absent player");
    // Blue comes back mid-game and plays its own moves again.
    let blue = reconnect(&server, &table.room.id, &table.tokens[1]).await;
    table.players.insert(1, blue);
    for (seat, ply) in [(seat(2), 2u32), (seat(3), 3), (seat(0), 4)] {
        let legal = table.players[seat.index()].legal_moves().await;
        assert_eq!((legal.seat, legal.ply), (seat, ply));
        let answer = table.play(seat, ply, &legal.moves[0]).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    }
    let legal = table.players[1].legal_moves().await;
    assert_eq!((legal.seat, legal.ply), (seat(1), 5));
    assert!(matches!(
        table.play(seat(1), 5, &legal.moves[0]).await,
        ServerMessage::Ack { .. }
    ));
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.ply == 6 => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(!moved.automatic, "Blue played it");
}

on_every_store!(duo_stops_its_clocks_for_the_grace_period_then_the_other_team_may_claim);
async fn duo_stops_its_clocks_for_the_grace_period_then_the_other_team_may_claim(store: Store) {
    let server = TestServer::on(store, |c| {
        c.grace_seconds = 0.2;
        c.time_unit_ms = 100;
    })
    .await;
    let settings = SettingsPatch {
        preset: Some("duo".into()),
        team_clock: Some(5),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let tokens = table.tokens.clone();
    // Too early: nobody is away.
    table.players[1]
        .fails(
            ErrorCode::CannotClaim,
            ClientMessage::ClaimWin {
                seat: seat(1),
                token: tokens[1].clone(),
            },
        )
        .await;
    let w2 = table.players.remove(2);
    w2.close().await;
    let clock = table.players[1]
        .event_where(|_, e| match e {
            Event::Presence {
                seat: s,
                presence: Presence::Away,
                clock,
                ..
            } if *s == seat(2) => Some(clock.clone()),
            _ => None,
        })
        .await;
    assert!(clock.paused, "Duo stops its clocks while a player is away");
    assert_eq!(
        presence_of(&mut table.players[1], seat(2)).await,
        Presence::Gone,
        "no CPU plays in Duo"
    );
    table.players[1]
        .ok(ClientMessage::ClaimWin {
            seat: seat(1),
            token: tokens[1].clone(),
        })
        .await;
    let result = table.players[0]
        .event_where(|_, e| match e {
            Event::GameChanged { what, game, .. } if *what == GameChange::WinClaimed => {
                game.result.clone()
            }
            _ => None,
        })
        .await;
    assert_eq!(
        (result.reason.as_str(), result.winners),
        ("abandonment", vec![seat(1), seat(3)])
    );
}

on_every_store!(heartbeats_find_a_dead_connection_within_a_few_heartbeats);
async fn heartbeats_find_a_dead_connection_within_a_few_heartbeats(store: Store) {
    // Heartbeats of 0.5 s: the three players who read must answer theirs within three of them
    // (1.5 s) while the table is set up, a margin that held with both cores kept busy.
    let server = TestServer::on(store, |c| {
        c.heartbeat_seconds = 0.5;
        c.grace_seconds = 10.0;
    })
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // Green's connection stays open but never reads again, so it never answers a ping: it is as
    // good as dead.
    let green = table.players.remove(3);
    let started = Instant::now();
    assert_eq!(
        presence_of(&mut table.players[0], seat(3)).await,
        Presence::Away
    );
    // Three heartbeats of silence, and a margin for a busy machine.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "found within a few heartbeats: {:?}",
        started.elapsed()
    );
    // What Green reads now ends with the close that says why.
    let mut green = green;
    let (_, code) = green.until_closed().await;
    assert_eq!(code, Some(fourkings_protocol::close::NO_HEARTBEAT.0));
}

on_every_store!(a_quiet_client_that_answers_pings_stays_connected);
/// A quiet client that answers the pings is pinged again and again, never more often than the
/// heartbeat, and stays connected: the writer's heartbeat timer sets itself anew after every
/// ping, a heartbeat later.
async fn a_quiet_client_that_answers_pings_stays_connected(store: Store) {
    // Heartbeats of 0.2 s: the client's answer has three of them (0.6 s) to arrive, a margin
    // that held with both cores kept busy.
    let server = TestServer::on(store, |c| c.heartbeat_seconds = 0.2).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut client, _) = server.connect(&room.id).await;
    // Ten heartbeats, more than three times the silence that drops a client that answers
    // nothing: the scenario is the passing time itself.
    let pings = client
        .pings_within(Duration::from_secs(2))
        .await
        .expect("still connected, and sent nothing but pings");
    // At most one a heartbeat (and one more for where the window starts); at least half of
    // them on a busy machine.
    assert!((5..=11).contains(&pings), "{pings} pings in ten heartbeats");
    let req = client.req();
    client
        .send(&ClientRequest::new(req, ClientMessage::Ping))
        .await;
    let before = now_ms();
    match client.next().await {
        // The server's clock, this machine's here: a reference even without a timed game.
        ServerMessage::Pong {
            req: r,
            server_time,
        } => {
            assert_eq!(r, req);
            assert!((before.saturating_sub(1_000)..before + 60_000).contains(&server_time));
        }
        other => panic!("{other:?}"),
    }
}

on_every_store!(a_room_with_nobody_connected_closes_after_the_idle_time);
async fn a_room_with_nobody_connected_closes_after_the_idle_time(store: Store) {
    let server = TestServer::on(store, |c| c.idle_room_seconds = 0.2).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (client, _) = server.connect(&room.id).await;
    client.close().await;
    // A room with somebody connected stays.
    let kept = server.create_room(&SettingsPatch::default()).await;
    let (_watcher, _) = server.connect(&kept.id).await;
    let path = format!("/api/rooms/{}", room.id);
    assert_eq!(server.get(&path).await.status(), 200, "not closed at once");
    // A room's closing sends no event to await: its public state is polled.
    let (server, path) = (&server, &path);
    let gone = eventually(
        WAIT,
        || async move { server.get(path).await.status() == 404 },
    )
    .await;
    assert!(gone, "the idle room closed");
    assert_eq!(
        server
            .get(&format!("/api/rooms/{}", kept.id))
            .await
            .status(),
        200
    );
}

on_every_store!(an_away_player_shows_when_their_grace_period_ends);
async fn an_away_player_shows_when_their_grace_period_ends(store: Store) {
    let server = TestServer::on(store, |c| c.grace_seconds = 30.0).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let blue = table.players.remove(1);
    let dropped = now_ms();
    blue.close().await;
    let ends = table.players[0]
        .event_where(|_, e| match e {
            Event::Presence {
                seat: s,
                presence: Presence::Away,
                grace_ends_at,
                clock: _,
            } if *s == seat(1) => Some(*grace_ends_at),
            _ => None,
        })
        .await
        .expect("an away player's grace period has an end");
    // Thirty seconds after the drop, as the server's clock has it (this machine's, here).
    assert!(
        (dropped + 29_000..=now_ms() + 30_000).contains(&ends),
        "{ends} is not 30 s after {dropped}"
    );
    // A newcomer's snapshot and the room's public state say the same; the others say nothing.
    let (_, snapshot) = server.connect(&table.room.id).await;
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", table.room.id))
        .await
        .json()
        .await
        .unwrap();
    for seats in [&snapshot.seats, &info.seats] {
        let graces: Vec<_> = seats.iter().map(|s| s.grace_ends_at).collect();
        assert_eq!(graces, [None, Some(ends), None, None]);
    }
    // Back: no grace period any more.
    let _blue = reconnect(&server, &table.room.id, &table.tokens[1]).await;
    let back = table.players[0]
        .event_where(|_, e| match e {
            Event::Presence {
                seat: s,
                presence: Presence::Online,
                grace_ends_at,
                clock: _,
            } if *s == seat(1) => Some(*grace_ends_at),
            _ => None,
        })
        .await;
    assert_eq!(back, None);
}
