//! Premoves: a seat queues moves while others move; the server plays the first the moment the
//! seat's turn begins, or drops the queue saying why; the queue is the seat's alone, kept over a
//! reconnection, emptied by a takeback, never played for a player who is away.

use fourkings_protocol::{
    ClientMessage, ErrorCode, Event, PremoveQueue, PremovesDropped, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Client, Table, TestServer, seat};

/// `seat` queues `mv`; the request's answer.
async fn premove(table: &mut Table, seat_number: u8, mv: &str) -> ServerMessage {
    let s = seat(seat_number);
    let token = table.tokens[s.index()].clone();
    table.players[s.index()]
        .request(ClientMessage::Premove {
            seat: s,
            token,
            mv: mv.to_owned(),
        })
        .await
}

/// The next `premoves` event `client` sees: the queue and why it was dropped.
async fn next_queue(client: &mut Client) -> (Vec<String>, Option<PremovesDropped>) {
    client
        .event_where(|_, e| match e {
            Event::Premoves { moves, dropped, .. } => Some((moves.clone(), *dropped)),
            _ => None,
        })
        .await
}

/// The next `moved` event `client` sees: its ply, seat and whether it was a premove.
async fn next_moved(client: &mut Client) -> (u32, u8, bool) {
    client
        .event_where(|_, e| match e {
            Event::Moved(m) => Some((m.ply, m.seat.get(), m.premove)),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn a_premove_is_played_the_moment_the_turn_begins_and_its_queue_is_private() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let answer = premove(&mut table, 1, "b7c7").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(
        next_queue(&mut table.players[1]).await,
        (vec!["b7c7".to_owned()], None)
    );
    // The others see the version pass, not the queue.
    let seen = table.players[2]
        .event_where(|_, e| match e {
            Event::Premoves { .. } => Some(true),
            Event::Hidden => Some(false),
            _ => None,
        })
        .await;
    assert!(!seen, "Yellow saw Blue's premove");
    table.players[3].drain().await;
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    // Red's move and Blue's premove, one after the other, with nothing between.
    let green = &mut table.players[3];
    let (first, _) = green.event().await;
    let (second, event) = green.event().await;
    assert_eq!(second, first + 1, "no round trip between the two moves");
    match event {
        Event::Moved(m) => assert_eq!((m.ply, m.seat, m.premove), (2, seat(1), true)),
        other => panic!("expected Blue's premove, got {other:?}"),
    }
    // Blue's queue is empty now, and Yellow is to move.
    assert_eq!(next_queue(&mut table.players[1]).await, (vec![], None));
    let answer = table.play(seat(2), 2, "g13g12").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn a_queue_plays_in_order_and_an_illegal_premove_drops_the_rest() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // Green queues a pawn move, then a rook move its own pawn still blocks.
    for mv in ["m8l8", "n4n5"] {
        let answer = premove(&mut table, 3, mv).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    }
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12")])
        .await;
    assert_eq!(next_moved(&mut table.players[0]).await, (1, 0, false));
    assert_eq!(next_moved(&mut table.players[0]).await, (2, 1, false));
    assert_eq!(next_moved(&mut table.players[0]).await, (3, 2, false));
    assert_eq!(next_moved(&mut table.players[0]).await, (4, 3, true));
    // Round two: Green's rook move is not legal, so nothing is played and the queue goes.
    table
        .play_opening_from(4, &[(0, "h4h5"), (1, "c7d7"), (2, "g12g11")])
        .await;
    let green = &mut table.players[3];
    let mut queues: Vec<(Vec<String>, Option<PremovesDropped>)> = Vec::new();
    while queues.last().is_none_or(|(_, dropped)| dropped.is_none()) {
        queues.push(next_queue(green).await);
    }
    assert_eq!(
        queues.last(),
        Some(&(vec![], Some(PremovesDropped::Illegal)))
    );
    // Green moves by hand.
    let (_, snapshot) = server.connect(&table.room.id).await;
    let game = snapshot.game.expect("a game");
    assert_eq!((game.ply, game.to_move), (7, Some(seat(3))), "{}", game.fen);
    let answer = table.play(seat(3), 7, "m6l6").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn the_queue_is_bounded_by_the_room_and_bad_text_is_refused() {
    let server = TestServer::start().await;
    let one = SettingsPatch {
        premoves: Some(1),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &one, true).await;
    assert!(matches!(
        premove(&mut table, 2, "g13g12").await,
        ServerMessage::Ack { .. }
    ));
    for (mv, code) in [
        ("g12g11", ErrorCode::PremovesFull),
        ("G13G12", ErrorCode::BadMove),
        ("a1a2", ErrorCode::BadMove),
    ] {
        let answer = premove(&mut table, 2, mv).await;
        assert!(
            matches!(answer, ServerMessage::Error { code: c, .. } if c == code),
            "{mv}: {answer:?}"
        );
    }
    // Cancelled, the queue takes a move again.
    let token = table.tokens[2].clone();
    table.players[2]
        .ok(ClientMessage::CancelPremoves {
            seat: seat(2),
            token,
        })
        .await;
    assert!(matches!(
        premove(&mut table, 2, "g13g11").await,
        ServerMessage::Ack { .. }
    ));
    // A room without premoves refuses them.
    let off = SettingsPatch {
        premoves: Some(0),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &off, true).await;
    assert!(matches!(
        premove(&mut table, 1, "b7c7").await,
        ServerMessage::Error {
            code: ErrorCode::PremovesFull,
            ..
        }
    ));
}

#[tokio::test]
async fn a_reconnecting_player_sees_its_queue_and_nobody_else_does() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    premove(&mut table, 3, "m8l8").await;
    let (mut again, _) = server.connect(&table.room.id).await;
    again
        .ok(ClientMessage::Hello {
            seat_tokens: vec![table.tokens[3].clone()],
            host_token: None,
            since: None,
        })
        .await;
    let snapshot = again.snapshot().await;
    assert_eq!(
        snapshot.premoves,
        vec![PremoveQueue {
            seat: seat(3),
            moves: vec!["m8l8".into()]
        }]
    );
    let (_, spectator) = server.connect(&table.room.id).await;
    assert!(spectator.premoves.is_empty());
}

#[tokio::test]
async fn a_takeback_empties_every_queue() {
    let server = TestServer::start().await;
    let lifelines = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &lifelines, true).await;
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    premove(&mut table, 3, "m8l8").await;
    // Yellow takes back its partner Red's move.
    let token = table.tokens[2].clone();
    table.players[2]
        .ok(ClientMessage::TakeBack {
            seat: seat(2),
            token,
        })
        .await;
    let green = &mut table.players[3];
    let mut last = next_queue(green).await;
    while last.1.is_none() {
        last = next_queue(green).await;
    }
    assert_eq!(last, (vec![], Some(PremovesDropped::TakenBack)));
}

#[tokio::test]
async fn a_player_who_is_away_when_the_turn_begins_has_no_premove_played() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    premove(&mut table, 0, "h4h5").await;
    // Red leaves (the connection drops); the others play on to Red's turn.
    let red = table.players.remove(0);
    drop(red);
    table
        .players
        .insert(0, server.connect(&table.room.id).await.0);
    let green = &mut table.players[3];
    green
        .event_where(|_, e| {
            matches!(e, Event::Presence { seat: s, .. } if *s == seat(0)).then_some(())
        })
        .await;
    for (seat_number, ply, mv) in [(1, 1, "b7c7"), (2, 2, "g13g12"), (3, 3, "m8l8")] {
        let answer = table.play(seat(seat_number), ply, mv).await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    }
    // Red's turn: nothing was played for Red, whose queue is gone.
    let (_, snapshot) = server.connect(&table.room.id).await;
    let game = snapshot.game.expect("a game");
    assert_eq!((game.ply, game.to_move), (4, Some(seat(0))));
    let (mut red, _) = server.connect(&table.room.id).await;
    red.ok(ClientMessage::Hello {
        seat_tokens: vec![table.tokens[0].clone()],
        host_token: None,
        since: None,
    })
    .await;
    assert!(red.snapshot().await.premoves.is_empty());
}

#[tokio::test]
async fn a_queue_is_kept_over_a_restart_and_played_after_it() {
    let dir = fourkings_tests::temp_dir("premoves");
    let path = dir.path().join("rooms.db");
    let on_file = |c: &mut fourkings_server::Config| {
        c.in_memory = false;
        c.database = path.clone().into();
    };
    let server = TestServer::with(on_file).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    premove(&mut table, 1, "b7c7").await;
    next_queue(&mut table.players[1]).await;
    let (room, tokens) = (table.room.id.clone(), table.tokens.clone());
    drop(table);
    server.server.stop().await;

    let server = TestServer::with(on_file).await;
    let mut clients = Vec::new();
    for (s, token) in tokens.iter().enumerate() {
        let (mut client, _) = server.connect(&room).await;
        client
            .ok(ClientMessage::Hello {
                seat_tokens: vec![token.clone()],
                host_token: None,
                since: None,
            })
            .await;
        let snapshot = client.snapshot().await;
        let expected = if s == 1 {
            vec![PremoveQueue {
                seat: seat(1),
                moves: vec!["b7c7".into()],
            }]
        } else {
            vec![]
        };
        assert_eq!(snapshot.premoves, expected, "seat {s}");
        clients.push(client);
    }
    let answer = clients[0].play_move(seat(0), &tokens[0], 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(next_moved(&mut clients[2]).await, (1, 0, false));
    assert_eq!(next_moved(&mut clients[2]).await, (2, 1, true));
}
