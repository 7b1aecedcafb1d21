//! What a client without chess rules needs to mark every army's last move and to show any
//! earlier position: each move's coordinate form in the game view, the pieces giving check, and
//! the game's history (`GET /api/rooms/<id>/game/history`), whose diffs rebuild every position.

use std::collections::BTreeMap;

use fourkings_protocol::{
    ClientMessage, Event, GameHistory, GameView, Presence, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Store, Table, TestServer, on_every_store, seat};

/// The history of the room's game, read over HTTP.
async fn history(server: &TestServer, room: &str) -> GameHistory {
    let response = server.get(&format!("/api/rooms/{room}/game/history")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    response.json().await.unwrap()
}

/// The pieces after the first `plies` moves of `history`, by applying their diffs to the start.
fn position_after(history: &GameHistory, plies: usize) -> BTreeMap<String, String> {
    let mut pieces = history.start.clone();
    for ply in &history.plies[..plies] {
        for (square, piece) in &ply.changed {
            match piece {
                Some(piece) => pieces.insert(square.clone(), piece.clone()),
                None => pieces.remove(square),
            };
        }
    }
    pieces
}

/// The game a fresh connection is shown.
async fn game_view(server: &TestServer, room: &str) -> GameView {
    let (_, snapshot) = server.connect(room).await;
    snapshot.game.expect("a game has started")
}

on_every_store!(a_duo_game_is_rebuilt_from_its_history_with_its_checks);
async fn a_duo_game_is_rebuilt_from_its_history_with_its_checks(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::preset("duo"), true).await;
    let room = table.room.id.clone();
    let start = game_view(&server, &room).await;
    // The fool's mate: Black's queen mates from h4.
    table
        .play_opening(&[(0, "f2f3"), (1, "e7e5"), (2, "g2g4")])
        .await;
    let mated = table.send_move(seat(3), 3, "d8h4").await;
    let moved = table.players[0]
        .event_where(|_, event| match event {
            Event::Moved(moved) if moved.ply == 4 => Some(moved.clone()),
            _ => None,
        })
        .await;
    assert_eq!(moved.checking, ["h4"]);
    assert_eq!(moved.checks, [seat(0), seat(2)]);
    let answer = table.players[3].answer(mated).await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");

    let game = game_view(&server, &room).await;
    // Short algebraic in `moves`, every move's squares in `move_coordinates`.
    assert_eq!(game.moves, ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(game.move_coordinates, ["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(game.move_seats, [seat(0), seat(1), seat(2), seat(3)]);
    assert_eq!(game.checking, ["h4"]);

    let history = history(&server, &room).await;
    assert_eq!(history.id, game.id);
    assert_eq!(history.board, fourkings_protocol::BoardShape::Classic);
    assert_eq!(history.start, start.pieces);
    assert_eq!(position_after(&history, 4), game.pieces);
    let moves: Vec<&str> = history.plies.iter().map(|p| p.mv.as_str()).collect();
    assert_eq!(moves, game.move_coordinates);
    let last = history.plies.last().unwrap();
    assert_eq!((last.text.as_str(), last.seat), ("Qh4#", seat(3)));
    assert_eq!(last.checks, [seat(0), seat(2)]);
    assert_eq!(last.checking, ["h4"]);
    // Quiet moves give no check and name no checking piece.
    assert!(
        history.plies[..3]
            .iter()
            .all(|p| p.checks.is_empty() && p.checking.is_empty())
    );
    let after_two = position_after(&history, 2);
    assert_eq!(after_two.get("f3").map(String::as_str), Some("wP"));
    assert_eq!(after_two.get("e5").map(String::as_str), Some("bP"));
    assert!(!after_two.contains_key("g4") && !after_two.contains_key("e7"));
}

on_every_store!(a_takeback_shortens_the_history);
async fn a_takeback_shortens_the_history(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let settings = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let room = table.room.id.clone();
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g11"), (3, "m8l8")])
        .await;
    // Red's move, then taken back by its team: the history ends before it.
    let answer = table.play(seat(0), 4, "h4h5").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let token = table.tokens[2].clone();
    table.players[2]
        .ok(ClientMessage::TakeBack {
            seat: seat(2),
            token,
        })
        .await;
    let history = history(&server, &room).await;
    let game = game_view(&server, &room).await;
    assert_eq!(history.plies.len(), 4);
    assert_eq!(game.move_coordinates, ["h2h4", "b7c7", "g13g11", "m8l8"]);
    assert_eq!(position_after(&history, 4), game.pieces);
    // Each move's diff names its two squares, with the piece on the second.
    for (ply, record) in history.plies.iter().enumerate() {
        assert_eq!(record.changed.len(), 2, "ply {ply}: {:?}", record.changed);
        assert_eq!(record.seat, seat(ply as u8));
    }
    assert_eq!(history.plies[1].changed["c7"].as_deref(), Some("bP"));
}

#[tokio::test]
async fn the_history_of_no_game_is_not_found() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let lobby = server
        .get(&format!("/api/rooms/{}/game/history", room.id))
        .await;
    assert_eq!(lobby.status(), 404);
    let body: fourkings_protocol::ErrorBody = lobby.json().await.unwrap();
    assert_eq!(body.code, fourkings_protocol::ErrorCode::GameNotFound);
    let missing = server.get("/api/rooms/nosuchroom1/game/history").await;
    assert_eq!(missing.status(), 404);
}

on_every_store!(the_history_marks_the_moves_the_cpu_played_for_a_person);
async fn the_history_marks_the_moves_the_cpu_played_for_a_person(store: Store) {
    // No clock runs on anyone's turn: only Blue's absence makes the CPU play.
    let server = TestServer::on(store, |c| c.grace_seconds = 0.1).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let blue = table.players.remove(1);
    blue.close().await;
    table.players[0]
        .event_where(|_, e| match e {
            Event::Presence {
                seat: s, presence, ..
            } if *s == seat(1) && *presence == Presence::CpuPlaying => Some(()),
            _ => None,
        })
        .await;
    // Red moves; the CPU answers for Blue; Yellow moves.
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.ply == 2 => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(moved.automatic);
    let answer = table.players[1].legal_moves().await;
    let yellow = table.play(seat(2), 2, &answer.moves[0]).await;
    assert!(matches!(yellow, ServerMessage::Ack { .. }), "{yellow:?}");
    let history = history(&server, &room).await;
    let automatic: Vec<bool> = history.plies.iter().map(|p| p.automatic).collect();
    assert_eq!(automatic, [false, true, false]);
    // Written only when true, as in the `moved` event.
    let text = server
        .get(&format!("/api/rooms/{room}/game/history"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(text.matches(r#""automatic":true"#).count(), 1);
    assert!(!text.contains(r#""automatic":false"#));
}
