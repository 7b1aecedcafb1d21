//! Rematches keep the seats and rotate the first seat (in Duo the people, White always opening); a
//! switch-partners session plays three games with every pairing once and ends with the standings.

use fourkings_protocol::{ClientMessage, ErrorCode, Event, SeatIndex, SessionView, SettingsPatch};
use fourkings_tests::{Client, Table, TestServer, seat};

/// Ends the current game: `seat` resigns for its team.
async fn resign(table: &mut Table, seat: SeatIndex) {
    let token = table.tokens[seat.index()].clone();
    table.players[seat.index()]
        .ok(ClientMessage::Resign { seat, token })
        .await;
}

async fn rematch(
    table: &mut Table,
) -> (
    Vec<fourkings_protocol::SeatView>,
    fourkings_protocol::GameView,
    Option<[SeatIndex; 4]>,
) {
    let host = table.room.host_token.clone();
    table.players[0]
        .ok(ClientMessage::Rematch { host_token: host })
        .await;
    table.players[0]
        .event_where(|_, e| match e {
            Event::Rematch {
                seats,
                game,
                seat_moves,
            } => Some((seats.clone(), game.clone(), *seat_moves)),
            _ => None,
        })
        .await
}

async fn session(client: &mut Client) -> SessionView {
    client
        .event_where(|_, e| match e {
            Event::Session(view) => Some(view.clone()),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn a_rematch_keeps_the_seats_and_moves_the_first_seat_on() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let host = table.room.host_token.clone();
    table.players[0]
        .fails(
            ErrorCode::NotFinished,
            ClientMessage::Rematch {
                host_token: host.clone(),
            },
        )
        .await;
    resign(&mut table, seat(1)).await;
    let token = table.tokens[1].clone();
    table.players[1]
        .fails(
            ErrorCode::NotHost,
            ClientMessage::Rematch { host_token: token },
        )
        .await;
    let (seats, game, moves) = rematch(&mut table).await;
    assert_eq!(moves, None);
    let names: Vec<_> = seats.iter().map(|s| s.name.clone().unwrap()).collect();
    assert_eq!(names, ["player 0", "player 1", "player 2", "player 3"]);
    assert_eq!(
        (game.first_seat, game.to_move, game.ply),
        (seat(1), Some(seat(1)), 0),
        "Blue opens the rematch"
    );
    assert!(game.result.is_none());
    // The seats' tokens still work: Blue plays the first move.
    let legal = table.players[1].legal_moves().await;
    assert!(matches!(
        table.play(seat(1), 0, &legal.moves[0]).await,
        fourkings_protocol::ServerMessage::Ack { .. }
    ));
    // Without rotation the first seat stays.
    let fixed = SettingsPatch {
        rotate_first_seat: Some(false),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &fixed, true).await;
    resign(&mut table, seat(0)).await;
    let (_, game, _) = rematch(&mut table).await;
    assert_eq!(game.first_seat, seat(0));
}

/// RULES.md 7 and 9: "White moves first in every game, rematches included" and "In Duo the
/// people move round the seats instead: White always moves first." A rotated Duo rematch moves
/// everyone one seat back (the person at B1 opens as W1), and partners stay partners.
#[tokio::test]
async fn a_duo_rematch_starts_with_white_and_moves_the_people_round_the_seats() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::preset("duo"), true).await;
    resign(&mut table, seat(1)).await;
    let (seats, game, moves) = rematch(&mut table).await;
    assert_eq!(
        moves,
        Some([3, 0, 1, 2].map(seat)),
        "W1 → B2, B1 → W1, W2 → B1, B2 → W2"
    );
    let names: Vec<_> = seats.iter().map(|s| s.name.clone().unwrap()).collect();
    assert_eq!(names, ["player 1", "player 2", "player 3", "player 0"]);
    assert_eq!(
        (game.first_seat, game.to_move, game.ply),
        (seat(0), Some(seat(0)), 0),
        "W1 opens, as in every Duo game"
    );
    assert!(game.fen.contains(" w "), "White to move: {}", game.fen);
    // Tokens moved with their people: the person who sat at B1 now holds W1 and plays White's
    // first move.
    let legal = table.players[1].legal_moves().await;
    let token = table.tokens[1].clone();
    let answer = table.players[1]
        .play_move(seat(0), &token, 0, &legal.moves[0])
        .await;
    assert!(
        matches!(answer, fourkings_protocol::ServerMessage::Ack { .. }),
        "{answer:?}"
    );
    // A second rematch moves them on again; without rotation nobody moves. (The person who
    // sat at B1, now W1, resigns for White.)
    let token = table.tokens[1].clone();
    table.players[1]
        .ok(ClientMessage::Resign {
            seat: seat(0),
            token,
        })
        .await;
    let (seats, game, moves) = rematch(&mut table).await;
    assert_eq!(moves, Some([3, 0, 1, 2].map(seat)));
    assert_eq!(seats[0].name.as_deref(), Some("player 2"));
    assert_eq!(game.to_move, Some(seat(0)));
    let fixed = SettingsPatch {
        rotate_first_seat: Some(false),
        ..SettingsPatch::preset("duo")
    };
    let mut table = Table::seat_four(&server, &fixed, true).await;
    resign(&mut table, seat(0)).await;
    let (seats, game, moves) = rematch(&mut table).await;
    assert_eq!(moves, None);
    assert_eq!(seats[0].name.as_deref(), Some("player 0"));
    assert_eq!(game.to_move, Some(seat(0)));
}

#[tokio::test]
async fn a_switch_partners_session_plays_every_pairing_once_and_ends_with_standings() {
    let server = TestServer::start().await;
    let settings = SettingsPatch {
        switch_partners: Some(true),
        rotate_first_seat: Some(false),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Persons: A = "player 0", B = "player 1", C = "player 2", D = "player 3".
    // Game 1 (A+C v B+D): B resigns, A and C win.
    resign(&mut table, seat(1)).await;
    let view = session(&mut table.players[0]).await;
    assert_eq!(view.game, 1);
    let points = |view: &SessionView, name: &str| {
        view.standings
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .points
    };
    assert_eq!(
        (
            points(&view, "player 0"),
            points(&view, "player 2"),
            points(&view, "player 1")
        ),
        (1.0, 1.0, 0.0)
    );
    // Game 2: A+B v C+D. B and C swap seats; their tokens follow them.
    let (seats, _, moves) = rematch(&mut table).await;
    assert_eq!(moves, Some([0, 2, 1, 3].map(seat)));
    let names: Vec<_> = seats.iter().map(|s| s.name.clone().unwrap()).collect();
    assert_eq!(names, ["player 0", "player 2", "player 1", "player 3"]);
    table.tokens.swap(1, 2);
    table.players.swap(1, 2);
    // A draw: everyone agrees (seat order now A, C, B, D).
    for seat in SeatIndex::ALL {
        let token = table.tokens[seat.index()].clone();
        table.players[seat.index()]
            .ok(ClientMessage::OfferDraw { seat, token })
            .await;
    }
    let view = loop {
        let view = session(&mut table.players[0]).await;
        if view.game == 2 && view.standings.iter().map(|p| p.points).sum::<f32>() > 2.0 {
            break view;
        }
    };
    assert_eq!(points(&view, "player 0"), 1.5);
    assert_eq!(points(&view, "player 3"), 0.5);
    // Game 3: A+D v B+C. C (seat 1) resigns: A and D win.
    let (seats, _, moves) = rematch(&mut table).await;
    let names: Vec<_> = seats.iter().map(|s| s.name.clone().unwrap()).collect();
    assert_eq!(names, ["player 0", "player 1", "player 3", "player 2"]);
    let moves = moves.unwrap();
    let (old_players, old_tokens) = (
        std::mem::take(&mut table.players),
        std::mem::take(&mut table.tokens),
    );
    let mut slots: Vec<Option<(Client, String)>> = (0..4).map(|_| None).collect();
    for (old, (client, token)) in old_players.into_iter().zip(old_tokens).enumerate() {
        slots[usize::from(moves[old])] = Some((client, token));
    }
    for slot in slots {
        let (client, token) = slot.unwrap();
        table.players.push(client);
        table.tokens.push(token);
    }
    resign(&mut table, seat(3)).await;
    let view = loop {
        let view = session(&mut table.players[0]).await;
        if view.finished {
            break view;
        }
    };
    assert_eq!(view.game, 3);
    assert_eq!(points(&view, "player 0"), 2.5, "won twice and drew once");
    assert_eq!(points(&view, "player 3"), 1.5);
    assert_eq!(points(&view, "player 1"), 0.5);
    assert_eq!(points(&view, "player 2"), 1.5);
    assert_eq!(
        view.standings[0].name, "player 0",
        "standings are highest first"
    );
}
