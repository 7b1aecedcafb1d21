//! Joining, seats, and the host's controls.

use fourkings_protocol::{
    ClientMessage, CpuLevel, ErrorCode, Event, GameStatus, Occupant, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Table, TestServer, seat};

#[tokio::test]
async fn opening_the_websocket_gives_a_spectator_view() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (_client, snapshot) = server.connect(&room.id).await;
    assert_eq!(snapshot.room, room.id);
    assert_eq!(snapshot.status, GameStatus::Lobby);
    assert!(snapshot.your_seats.is_empty());
    assert!(!snapshot.you_are_host);
    assert_eq!(snapshot.seats.len(), 4);
    assert_eq!(snapshot.seats[0].label, "Red");
    assert!(snapshot.game.is_none());
}

#[tokio::test]
async fn taking_a_seat_returns_a_secret_token_and_everyone_sees_the_name() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut watcher, _) = server.connect(&room.id).await;
    let (mut player, _) = server.connect(&room.id).await;
    let name = "<b>Ana</b> & \"co\"";
    let token = player.take_seat(seat(2), name).await;
    assert!(token.len() >= 22);
    let (v, event) = watcher.event().await;
    assert_eq!(v, 1);
    assert_eq!(
        event,
        Event::SeatTaken {
            seat: seat(2),
            name: name.to_owned()
        }
    );
    // Stored as given: the public state shows the exact text (clients render it as text).
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.seats[2].name.as_deref(), Some(name));
    assert_eq!(info.seats[2].occupant, Occupant::Human);
    // The token proves the seat on a new connection.
    let (mut again, _) = server.connect(&room.id).await;
    let ack = again
        .ok(ClientMessage::Hello {
            seat_tokens: vec![token.clone()],
            host_token: None,
            since: None,
        })
        .await;
    assert!(
        matches!(ack, ServerMessage::Ack { seats: Some(ref s), host: Some(false), .. } if s == &vec![seat(2)])
    );
    assert_eq!(again.snapshot().await.your_seats, vec![seat(2)]);
}

#[tokio::test]
async fn one_device_may_hold_several_seats() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut device, _) = server.connect(&room.id).await;
    let first = device.take_seat(seat(0), "one").await;
    let second = device.take_seat(seat(1), "two").await;
    assert_ne!(first, second);
    let (mut again, _) = server.connect(&room.id).await;
    again
        .ok(ClientMessage::Hello {
            seat_tokens: vec![first, second],
            host_token: None,
            since: None,
        })
        .await;
    assert_eq!(again.snapshot().await.your_seats, vec![seat(0), seat(1)]);
}

#[tokio::test]
async fn a_taken_seat_cannot_be_taken_again_and_names_are_checked() {
    let server = TestServer::with(|c| c.max_name_chars = 5).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut a, _) = server.connect(&room.id).await;
    a.take_seat(seat(0), "ana").await;
    a.fails(
        ErrorCode::SeatTaken,
        ClientMessage::TakeSeat {
            seat: seat(0),
            name: "bo".into(),
        },
    )
    .await;
    // As text: a `ClientMessage` cannot hold seat 4.
    a.fails_text(ErrorCode::BadSeat, |req| {
        format!(r#"{{"type":"take_seat","req":{req},"seat":4,"name":"bo"}}"#)
    })
    .await;
    a.fails(
        ErrorCode::BadName,
        ClientMessage::TakeSeat {
            seat: seat(1),
            name: "   ".into(),
        },
    )
    .await;
    a.fails(
        ErrorCode::BadName,
        ClientMessage::TakeSeat {
            seat: seat(1),
            name: "sixsix".into(),
        },
    )
    .await;
    // The limit counts characters, not bytes: five emoji fit.
    a.take_seat(seat(1), "🐴🐴🐴🐴🐴").await;
}

#[tokio::test]
async fn a_player_may_leave_before_the_start() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut a, _) = server.connect(&room.id).await;
    let token = a.take_seat(seat(3), "ana").await;
    a.fails(
        ErrorCode::BadToken,
        ClientMessage::LeaveSeat {
            seat: seat(3),
            token: "nope".into(),
        },
    )
    .await;
    a.ok(ClientMessage::LeaveSeat {
        seat: seat(3),
        token: token.clone(),
    })
    .await;
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.seats[3].occupant, Occupant::Empty);
    // The old token no longer holds anything.
    a.fails(
        ErrorCode::BadToken,
        ClientMessage::LeaveSeat {
            seat: seat(3),
            token,
        },
    )
    .await;
}

#[tokio::test]
async fn the_host_sets_cpu_seats_moves_and_removes_players_and_hands_the_role_on() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    h.ok(ClientMessage::Hello {
        seat_tokens: vec![],
        host_token: Some(host.clone()),
        since: None,
    })
    .await;
    assert!(h.snapshot().await.you_are_host);
    h.take_seat(seat(0), "host").await;
    let (mut p, _) = server.connect(&room.id).await;
    let p_token = p.take_seat(seat(1), "guest").await;
    // A CPU seat with a level; a taken seat cannot become one.
    h.ok(ClientMessage::SetCpu {
        host_token: host.clone(),
        seat: seat(2),
        level: Some(CpuLevel::Hard),
    })
    .await;
    h.fails(
        ErrorCode::SeatTaken,
        ClientMessage::SetCpu {
            host_token: host.clone(),
            seat: seat(1),
            level: Some(CpuLevel::Easy),
        },
    )
    .await;
    // Moving the guest from seat 1 to seat 3: their token goes with them.
    h.ok(ClientMessage::MovePlayer {
        host_token: host.clone(),
        from: seat(1),
        to: seat(3),
    })
    .await;
    p.ok(ClientMessage::Hello {
        seat_tokens: vec![p_token.clone()],
        host_token: None,
        since: None,
    })
    .await;
    assert_eq!(p.snapshot().await.your_seats, vec![seat(3)]);
    // Handing the host role to the guest: they receive a new host token, the old one stops working.
    h.ok(ClientMessage::TransferHost {
        host_token: host.clone(),
        seat: seat(3),
    })
    .await;
    let new_host = loop {
        if let (_, Event::HostToken { host_token }) = p.event().await {
            break host_token;
        }
    };
    assert_ne!(new_host, host);
    h.fails(
        ErrorCode::NotHost,
        ClientMessage::RemovePlayer {
            host_token: host.clone(),
            seat: seat(0),
        },
    )
    .await;
    // The new host removes the old host from seat 0.
    p.ok(ClientMessage::RemovePlayer {
        host_token: new_host.clone(),
        seat: seat(0),
    })
    .await;
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    let occupants: Vec<Occupant> = info.seats.iter().map(|s| s.occupant).collect();
    assert_eq!(
        occupants,
        vec![
            Occupant::Empty,
            Occupant::Empty,
            Occupant::Cpu,
            Occupant::Human
        ]
    );
    assert_eq!(info.seats[2].cpu_level, Some(CpuLevel::Hard));
    assert_eq!(info.host_seat, Some(seat(3)));
}

#[tokio::test]
async fn other_connections_see_the_host_token_event_only_as_hidden() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut guest, _) = server.connect(&room.id).await;
    guest.take_seat(seat(1), "guest").await;
    let (mut watcher, _) = server.connect(&room.id).await;
    watcher
        .ok(ClientMessage::TransferHost {
            host_token: host.clone(),
            seat: seat(1),
        })
        .await;
    let (v1, e1) = watcher.event().await;
    assert_eq!(e1, Event::HostChanged { seat: seat(1) });
    let (v2, e2) = watcher.event().await;
    assert_eq!(
        (v2, e2),
        (v1 + 1, Event::Hidden),
        "a per-seat event still advances the version"
    );
}

#[tokio::test]
async fn at_the_start_every_empty_seat_becomes_cpu() {
    let server = TestServer::start().await;
    let room = server
        .create_room(&SettingsPatch {
            cpu_level: Some(CpuLevel::Easy),
            ..SettingsPatch::default()
        })
        .await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    h.take_seat(seat(0), "host").await;
    h.ok(ClientMessage::Start {
        host_token: host.clone(),
    })
    .await;
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.status, GameStatus::Playing);
    for seat in &info.seats[1..] {
        assert_eq!(
            (seat.occupant, seat.cpu_level),
            (Occupant::Cpu, Some(CpuLevel::Easy))
        );
    }
    // Seats are fixed once the game runs.
    let (mut late, _) = server.connect(&room.id).await;
    late.fails(
        ErrorCode::AlreadyStarted,
        ClientMessage::TakeSeat {
            seat: seat(1),
            name: "late".into(),
        },
    )
    .await;
    h.fails(
        ErrorCode::AlreadyStarted,
        ClientMessage::Start {
            host_token: host.clone(),
        },
    )
    .await;
}

#[tokio::test]
async fn only_the_host_token_controls_the_room() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut p, _) = server.connect(&room.id).await;
    let seat_token = p.take_seat(seat(0), "ana").await;
    for token in [seat_token.clone(), String::new(), "x".repeat(22)] {
        p.fails(
            ErrorCode::NotHost,
            ClientMessage::Start {
                host_token: token.clone(),
            },
        )
        .await;
        p.fails(
            ErrorCode::NotHost,
            ClientMessage::SetCpu {
                host_token: token.clone(),
                seat: seat(1),
                level: None,
            },
        )
        .await;
        p.fails(
            ErrorCode::NotHost,
            ClientMessage::UpdateSettings {
                host_token: token.clone(),
                settings: SettingsPatch {
                    castling: Some(false),
                    ..SettingsPatch::default()
                },
            },
        )
        .await;
    }
}

#[tokio::test]
async fn the_host_role_comes_back_with_the_hosts_seat() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    h.ok(ClientMessage::Hello {
        seat_tokens: vec![],
        host_token: Some(host.clone()),
        since: None,
    })
    .await;
    let seat_token = h.take_seat(seat(0), "host").await;
    h.close().await;
    // Back on a new device state that kept only the seat token: the snapshot hands the host
    // token back, and it works.
    let (mut back, _) = server.connect(&room.id).await;
    back.ok(ClientMessage::Hello {
        seat_tokens: vec![seat_token],
        host_token: None,
        since: None,
    })
    .await;
    let snapshot = back.snapshot().await;
    assert!(snapshot.you_are_host);
    assert_eq!(snapshot.host_token.as_deref(), Some(host.as_str()));
    // Others never see it.
    let (_, spectator) = server.connect(&room.id).await;
    assert!(spectator.host_token.is_none() && !spectator.you_are_host);
    back.ok(ClientMessage::SetCpu {
        host_token: host.clone(),
        seat: seat(1),
        level: Some(CpuLevel::Easy),
    })
    .await;
}

/// The ack of `hello` says which seat each presented token holds, in the order presented, and
/// the snapshot that follows carries the server's time.
#[tokio::test]
async fn hello_maps_each_token_to_its_seat() {
    let server = TestServer::start().await;
    let table = Table::seat_four(&server, &SettingsPatch::default(), false).await;
    let (mut client, _) = server.connect(&table.room.id).await;
    let tokens = vec![
        table.tokens[2].clone(),
        "no-such-token".to_owned(),
        table.tokens[0].clone(),
    ];
    let answer = client
        .request(ClientMessage::Hello {
            seat_tokens: tokens,
            host_token: None,
            since: None,
        })
        .await;
    match answer {
        ServerMessage::Ack {
            seats, token_seats, ..
        } => {
            assert_eq!(seats, Some(vec![seat(0), seat(2)]));
            assert_eq!(token_seats, Some(vec![Some(seat(2)), None, Some(seat(0))]));
        }
        other => panic!("{other:?}"),
    }
    let now = fourkings_tests::now_ms();
    let snapshot = client.snapshot().await;
    assert!((now - 60_000..=now + 1_000).contains(&snapshot.server_time));
}
