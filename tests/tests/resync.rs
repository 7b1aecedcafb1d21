//! Versions and resync. Each test runs with each store, in memory and on a SQLite file.

use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorCode, Event, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Client, Store, Table, TestServer, on_every_store, seat};

/// Everything a client receives until it has seen the event with version `v`.
async fn events_until(client: &mut Client, v: u64) -> Vec<(u64, Event)> {
    let mut events = Vec::new();
    loop {
        let (version, event) = client.event().await;
        events.push((version, event));
        if version >= v {
            return events;
        }
    }
}

on_every_store!(every_event_adds_one_to_the_version_for_everyone);
async fn every_event_adds_one_to_the_version_for_everyone(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut spectator, snapshot) = server.connect(&room.id).await;
    assert_eq!(snapshot.v, 0);
    let (mut a, _) = server.connect(&room.id).await;
    a.take_seat(seat(1), "ana").await;
    let host = room.host_token.clone();
    // A per-seat event (the host token for seat 1) is hidden from others but keeps the count.
    a.ok(ClientMessage::TransferHost {
        host_token: host.clone(),
        seat: seat(1),
    })
    .await;
    let seen = events_until(&mut spectator, 3).await;
    let versions: Vec<u64> = seen.iter().map(|(v, _)| *v).collect();
    assert_eq!(versions, vec![1, 2, 3]);
    assert_eq!(seen[2].1, Event::Hidden);
    let own = events_until(&mut a, 3).await;
    assert!(
        matches!(own.last(), Some((3, Event::HostToken { .. }))),
        "{own:?}"
    );
}

on_every_store!(a_client_that_reconnects_with_its_version_gets_exactly_what_it_missed);
async fn a_client_that_reconnects_with_its_version_gets_exactly_what_it_missed(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // Everyone has seen the start; Green drops.
    let (v, _) = loop {
        if let (v, Event::Started { .. }) = table.players[3].event().await {
            break (v, ());
        }
    };
    let green = table.players.remove(3);
    green.close().await;
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12")])
        .await;
    let (mut green, snapshot) = server.connect(&table.room.id).await;
    let missed_to = snapshot.v;
    let token = table.tokens[3].clone();
    let req = green.req();
    green
        .send(&ClientRequest::new(
            req,
            ClientMessage::Hello {
                seat_tokens: vec![token],
                host_token: None,
                since: Some(v),
            },
        ))
        .await;
    assert!(
        matches!(green.next().await, ServerMessage::Ack { req: r, seats: Some(ref s), .. } if r == req && s == &vec![seat(3)])
    );
    let mut versions = Vec::new();
    let mut moves = 0;
    loop {
        match green.next().await {
            ServerMessage::Event { v, event } => {
                // The moves, and the presence changes of Green leaving and coming back.
                match event {
                    Event::Moved(_) => moves += 1,
                    Event::Presence { seat: s, .. } if s == seat(3) => {}
                    other => panic!("only the missed events: {other:?}"),
                }
                versions.push(v);
            }
            ServerMessage::LegalMoves { moves, .. } => {
                assert_eq!((moves.seat, moves.ply), (seat(3), 3), "Green is to move");
                break;
            }
            other => panic!("only the missed events, then the legal moves: {other:?}"),
        }
    }
    assert_eq!(moves, 3);
    let last = *versions.last().unwrap();
    assert!(last >= missed_to);
    assert_eq!(
        versions,
        ((v + 1)..=last).collect::<Vec<_>>(),
        "each exactly once, in order"
    );
    // Nothing else follows: no event twice.
    assert!(
        green
            .quiet_for(std::time::Duration::from_millis(150))
            .await
            .is_none()
    );
}

on_every_store!(events_too_old_to_replay_come_as_a_snapshot);
async fn events_too_old_to_replay_come_as_a_snapshot(store: Store) {
    let server = TestServer::on(store, |c| c.event_history = 3).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let moves = [
        (seat(0), "h2h4"),
        (seat(1), "b7c7"),
        (seat(2), "g13g12"),
        (seat(3), "m8l8"),
        (seat(0), "h4h5"),
    ];
    for (ply, (seat, mv)) in moves.into_iter().enumerate() {
        assert!(matches!(
            table.play(seat, ply as u32, mv).await,
            ServerMessage::Ack { .. }
        ));
    }
    let (mut late, first) = server.connect(&table.room.id).await;
    late.ok(ClientMessage::Resync { since: 1 }).await;
    let snapshot = late.snapshot().await;
    assert_eq!(snapshot.v, first.v);
    assert_eq!(snapshot.game.unwrap().moves.len(), 5);
    // A version from the future is refused.
    late.fails(
        ErrorCode::BadVersion,
        ClientMessage::Resync { since: first.v + 1 },
    )
    .await;
    // Up to date: nothing to send.
    late.ok(ClientMessage::Resync { since: first.v }).await;
    assert!(
        late.quiet_for(std::time::Duration::from_millis(150))
            .await
            .is_none()
    );
}

on_every_store!(spectators_get_the_same_diffs_without_legal_moves);
async fn spectators_get_the_same_diffs_without_legal_moves(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let (mut spectator, _) = server.connect(&table.room.id).await;
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let player_view = loop {
        if let (v, Event::Moved(m)) = table.players[2].event().await {
            break (v, m);
        }
    };
    loop {
        match spectator.next().await {
            ServerMessage::Event {
                v,
                event: Event::Moved(m),
            } => {
                assert_eq!((v, m), player_view);
                break;
            }
            ServerMessage::LegalMoves { .. } => panic!("spectators get no legal moves"),
            _ => {}
        }
    }
}
