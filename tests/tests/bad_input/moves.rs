//! Moves that must not be played: out of turn, for another seat, for another ply, sent again,
//! illegal, not a move at all, or just taken back. Each is refused with its code and the game is
//! as it was: the move that was due can still be made.

use fourkings_protocol::{ClientMessage, ErrorCode, ServerMessage, SettingsPatch};
use fourkings_tests::{Table, seat};

use crate::support::{Row, refuse_all, room_state, test_server};

/// A row: `mv` for seat number `seat` with `token` at `ply`, refused with `code`.
fn move_row(name: &str, code: ErrorCode, seat: u8, token: &str, ply: u32, mv: &str) -> Row {
    let (token, mv) = (token.to_owned(), mv.to_owned());
    Row::message(
        format!("{name}: {mv} for seat {seat} at ply {ply}"),
        code,
        ClientMessage::Move {
            seat: fourkings_tests::seat(seat),
            token,
            ply,
            mv,
        },
    )
}

#[tokio::test]
async fn moves_out_of_turn_for_another_seat_or_for_another_ply_change_nothing() {
    use ErrorCode::{BadToken, NotYourTurn, StalePly};
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let (red, blue) = (table.tokens[0].clone(), table.tokens[1].clone());
    // From Blue's connection, before Red's first move.
    let from_blue = [
        move_row("Blue before Red", NotYourTurn, 1, &blue, 0, "b7c7"),
        move_row("Blue's token for Red's seat", BadToken, 0, &blue, 0, "h2h4"),
    ];
    refuse_all(&server, &room, &mut table.players[1], from_blue).await;
    // From Red's connection, before its first move.
    let from_red = [
        move_row("Blue's token for Red's seat", BadToken, 0, &blue, 0, "h2h4"),
        move_row("no token", BadToken, 0, "", 0, "h2h4"),
        move_row("a ply from the future", StalePly, 0, &red, 1, "h2h4"),
    ];
    refuse_all(&server, &room, &mut table.players[0], from_red).await;

    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    // After it, from Red's connection.
    let after = [
        // A client that did not see the ack sends it again: refused, not played twice.
        move_row("the same move again", StalePly, 0, &red, 0, "h2h4"),
        move_row(
            "another move for the ply played",
            StalePly,
            0,
            &red,
            0,
            "h4h5",
        ),
        move_row(
            "Red at the current ply, Blue to move",
            NotYourTurn,
            0,
            &red,
            1,
            "h4h5",
        ),
    ];
    refuse_all(&server, &room, &mut table.players[0], after).await;
    let (_, snapshot) = room_state(&server, &room).await;
    let game = snapshot.game.unwrap();
    assert_eq!((game.ply, game.moves.len()), (1, 1));
    assert_eq!(game.pieces.get("h4").map(String::as_str), Some("rP"));
    assert_eq!(game.pieces.get("h2"), None);
}

#[tokio::test]
async fn illegal_moves_and_malformed_move_text_are_refused() {
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let token = table.tokens[0].clone();
    let red = |code, mv: &str| move_row("Red's first move", code, 0, &token, 0, mv);
    let long = "h2".repeat(100);
    let rows = [
        // Well-formed, but not legal here: too far, onto its own piece, another army's piece, a
        // promotion that is no promotion.
        "h2h5", "h1h2", "d1d5", "b7c7", "h2h4q", "e1e3",
    ]
    .map(|mv| red(ErrorCode::IllegalMove, mv))
    .into_iter()
    .chain(
        // Not a move at all, or not on this board (the cross board has no corners).
        [
            "a1a2",
            "n14n13",
            "H2H4",
            "",
            "h2",
            "h2-h4",
            "h2 h4",
            " h2h4",
            "xyzzy",
            "o-o",
            "z9z9",
            "h0h1",
            "h15h16",
            "h2h4h6",
            "h2h4qq",
            "h2h4x",
            "2h4h",
            "h2h4🙂",
            "Nh2h4",
            long.as_str(),
        ]
        .map(|mv| red(ErrorCode::BadMove, mv)),
    );
    refuse_all(&server, &room, &mut table.players[0], rows).await;
    // After all that, the move is still Red's to make.
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn a_move_just_taken_back_is_refused_as_taken_back() {
    let server = test_server(|_| {}).await;
    let settings = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let room = table.room.id.clone();
    let token = table.tokens[0].clone();
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let red = &mut table.players[0];
    red.ok(ClientMessage::TakeBack {
        seat: seat(0),
        token: token.clone(),
    })
    .await;
    let rows = [move_row(
        "the move taken back",
        ErrorCode::TakenBack,
        0,
        &token,
        0,
        "h2h4",
    )];
    refuse_all(&server, &room, red, rows).await;
    // Another move is fine.
    let answer = table.play(seat(0), 0, "h2h3").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}
