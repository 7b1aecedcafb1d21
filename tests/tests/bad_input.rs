//! Issue 3, item 6: bad input. Every case is answered with an error carrying the right code (and
//! the request id when one could be read), leaves the room exactly as it was (its public state, a
//! fresh spectator's snapshot and its version `v`), and the connection goes on (a `ping` that
//! follows is answered). Only floods and frames over the size limit end the connection, with the
//! WebSocket close code 1008 (policy violation).

use fourkings_protocol::{
    ClientMessage, CpuLevel, ErrorBody, ErrorCode, RoomInfo, ServerMessage, SettingsPatch, Snapshot,
};
use fourkings_server::Config;
use fourkings_tests::{Client, Table, TestServer};
use tokio_tungstenite::tungstenite;

/// The WebSocket close code for a policy violation.
const POLICY_VIOLATION: u16 = 1008;

/// A server for tests that send many requests quickly: the rate limit is high enough not to get
/// in the way (the flood test sets its own).
async fn test_server(adjust: impl FnOnce(&mut Config)) -> TestServer {
    TestServer::with(|config| {
        config.rate_per_second = 10_000;
        config.rate_burst = 10_000;
        adjust(config);
    })
    .await
}

/// The room as the outside sees it: `GET /api/rooms/<id>` and a fresh spectator's snapshot.
async fn room_state(server: &TestServer, room: &str) -> (RoomInfo, Snapshot) {
    let response = server.get(&format!("/api/rooms/{room}")).await;
    assert_eq!(response.status(), 200);
    let info: RoomInfo = response.json().await.unwrap();
    let (spectator, snapshot) = server.connect(room).await;
    spectator.close().await;
    assert_eq!(info.v, snapshot.v);
    (info, snapshot)
}

/// The very next message must be the answer to a `ping`: the connection still works, and nothing
/// (no event) was sent between the error and it.
async fn assert_alive(client: &mut Client) {
    let req = client.req();
    client.send(&ClientMessage::Ping { req }).await;
    match client.next().await {
        ServerMessage::Pong { req: r } if r == req => {}
        other => panic!("expected the pong for {req}, got {other:?}"),
    }
}

/// Sends `text` on `client`, a connection to `room`: the very next message must be the error
/// `code` for `req`, the connection must still answer a ping, and the room must be unchanged.
async fn refused_text(
    server: &TestServer,
    room: &str,
    client: &mut Client,
    text: &str,
    code: ErrorCode,
    req: Option<u64>,
) {
    client.drain().await;
    let before = room_state(server, room).await;
    client.send_text(text).await;
    match client.next().await {
        ServerMessage::Error {
            req: r,
            code: c,
            message,
        } => {
            assert_eq!((c, r), (code, req), "for {text}: {message}");
            assert!(!message.is_empty(), "an error explains itself in words");
        }
        other => panic!("for {text}: expected error {code:?}, got {other:?}"),
    }
    assert_alive(client).await;
    assert_eq!(before, room_state(server, room).await, "after {text}");
}

/// Like [`refused_text`] for a well-formed message; the error must repeat its `req`.
async fn refused(
    server: &TestServer,
    room: &str,
    client: &mut Client,
    code: ErrorCode,
    build: impl FnOnce(u64) -> ClientMessage,
) {
    let message = build(client.req());
    let text = serde_json::to_string(&message).unwrap();
    refused_text(server, room, client, &text, code, Some(message.req())).await;
}

/// A room in the lobby and one connection to it.
async fn lobby(server: &TestServer) -> (String, String, Client) {
    let room = server.create_room(&SettingsPatch::default()).await;
    let (client, _) = server.connect(&room.id).await;
    (room.id, room.host_token, client)
}

#[tokio::test]
async fn malformed_json_is_bad_json() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    for text in [
        "{",
        "not json",
        r#"{"type":"ping","req":1,}"#,
        r#"{"type":"ping" "req":1}"#,
        "",
        "\u{feff}{}",
    ] {
        refused_text(&server, &room, &mut client, text, ErrorCode::BadJson, None).await;
    }
}

#[tokio::test]
async fn json_that_is_not_an_object_is_bad_json() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    for text in [
        "[]",
        r#"[{"type":"ping","req":1}]"#,
        r#""ping""#,
        "42",
        "null",
        "true",
    ] {
        refused_text(&server, &room, &mut client, text, ErrorCode::BadJson, None).await;
    }
}

#[tokio::test]
async fn an_unknown_or_missing_type_is_unknown_type_with_the_req() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    for (text, req) in [
        (r#"{"type":"dance","req":5}"#, Some(5)),
        (r#"{"type":"Ping","req":6}"#, Some(6)),
        (r#"{"type":"","req":7}"#, Some(7)),
        (r#"{"req":8}"#, Some(8)),
        (r#"{"type":5,"req":9}"#, Some(9)),
        (r#"{"type":null,"req":10}"#, Some(10)),
        ("{}", None),
        (r#"{"kind":"ping"}"#, None),
    ] {
        refused_text(
            &server,
            &room,
            &mut client,
            text,
            ErrorCode::UnknownType,
            req,
        )
        .await;
    }
}

#[tokio::test]
async fn missing_fields_are_invalid_and_the_req_is_echoed() {
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let token = table.tokens[0].clone();
    let client = &mut table.players[0];
    for (text, req) in [
        (
            format!(r#"{{"type":"move","req":11,"seat":0,"token":"{token}","move":"h2h4"}}"#),
            Some(11),
        ),
        (
            format!(r#"{{"type":"move","req":12,"seat":0,"token":"{token}","ply":0}}"#),
            Some(12),
        ),
        (
            r#"{"type":"move","req":13,"seat":0,"ply":0,"move":"h2h4"}"#.to_owned(),
            Some(13),
        ),
        (
            r#"{"type":"take_seat","req":14,"seat":2}"#.to_owned(),
            Some(14),
        ),
        (r#"{"type":"resync","req":15}"#.to_owned(), Some(15)),
        (r#"{"type":"start","req":16}"#.to_owned(), Some(16)),
        (r#"{"type":"ping"}"#.to_owned(), None),
        (
            format!(r#"{{"type":"move","seat":0,"token":"{token}","ply":0,"move":"h2h4"}}"#),
            None,
        ),
    ] {
        refused_text(
            &server,
            &room,
            client,
            &text,
            ErrorCode::InvalidMessage,
            req,
        )
        .await;
    }
    // Nothing above was played: the move is still there to make.
    let answer = table.play(0, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn fields_of_the_wrong_type_are_invalid() {
    let server = test_server(|_| {}).await;
    let (room, host_token, mut client) = lobby(&server).await;
    let cases = [
        (
            r#"{"type":"take_seat","req":20,"seat":"0","name":"Ann"}"#.to_owned(),
            Some(20),
        ),
        (
            r#"{"type":"take_seat","req":21,"seat":256,"name":"Ann"}"#.to_owned(),
            Some(21),
        ),
        (
            r#"{"type":"take_seat","req":22,"seat":-1,"name":"Ann"}"#.to_owned(),
            Some(22),
        ),
        (
            r#"{"type":"take_seat","req":23,"seat":0.5,"name":"Ann"}"#.to_owned(),
            Some(23),
        ),
        (
            r#"{"type":"take_seat","req":24,"seat":0,"name":7}"#.to_owned(),
            Some(24),
        ),
        (
            r#"{"type":"take_seat","req":25,"seat":0,"name":null}"#.to_owned(),
            Some(25),
        ),
        (
            r#"{"type":"hello","req":26,"seat_tokens":"abc"}"#.to_owned(),
            Some(26),
        ),
        (
            r#"{"type":"resync","req":27,"since":-1}"#.to_owned(),
            Some(27),
        ),
        (
            r#"{"type":"answer_draw","req":28,"seat":0,"token":"t","accept":"yes"}"#.to_owned(),
            Some(28),
        ),
        (
            format!(
                r#"{{"type":"update_settings","req":29,"host_token":"{host_token}","settings":{{"turn_limit":"60"}}}}"#
            ),
            Some(29),
        ),
        (
            format!(
                r#"{{"type":"update_settings","req":30,"host_token":"{host_token}","settings":{{"colour":"red"}}}}"#
            ),
            Some(30),
        ),
        (
            format!(
                r#"{{"type":"set_cpu","req":31,"host_token":"{host_token}","seat":1,"level":"grandmaster"}}"#
            ),
            Some(31),
        ),
        // A `req` that is not a non-negative integer cannot be echoed.
        (r#"{"type":"ping","req":"1"}"#.to_owned(), None),
        (r#"{"type":"ping","req":-1}"#.to_owned(), None),
        (r#"{"type":"ping","req":1.5}"#.to_owned(), None),
        (
            r#"{"type":"ping","req":18446744073709551616}"#.to_owned(),
            None,
        ),
    ];
    for (text, req) in cases {
        refused_text(
            &server,
            &room,
            &mut client,
            &text,
            ErrorCode::InvalidMessage,
            req,
        )
        .await;
    }
}

#[tokio::test]
async fn binary_frames_are_refused() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    let before = room_state(&server, &room).await;
    client.send_binary(br#"{"type":"ping","req":1}"#).await;
    match client.next().await {
        ServerMessage::Error { req, code, .. } => {
            assert_eq!((code, req), (ErrorCode::BadJson, None));
        }
        other => panic!("expected bad_json, got {other:?}"),
    }
    assert_alive(&mut client).await;
    assert_eq!(before, room_state(&server, &room).await);
}

/// A ping padded with an unknown field to exactly `len` bytes.
fn padded_ping(req: u64, len: usize) -> String {
    let head = format!(r#"{{"type":"ping","req":{req},"pad":""#);
    let pad = len - head.len() - 2;
    let text = format!("{head}{}\"}}", "x".repeat(pad));
    assert_eq!(text.len(), len);
    text
}

#[tokio::test]
async fn a_text_frame_over_the_limit_closes_the_connection_and_one_at_the_limit_is_fine() {
    let server = test_server(|c| c.max_message_bytes = 256).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut bystander, _) = server.connect(&room).await;
    let before = room_state(&server, &room).await;

    client.send_text(&padded_ping(1, 256)).await;
    assert!(matches!(
        client.next().await,
        ServerMessage::Pong { req: 1 }
    ));

    client.send_text(&padded_ping(2, 257)).await;
    let (messages, code) = client.until_closed().await;
    assert_eq!(code, Some(POLICY_VIOLATION), "{messages:?}");
    assert!(
        matches!(
            messages.as_slice(),
            [ServerMessage::Error {
                req: None,
                code: ErrorCode::TooLarge,
                ..
            }]
        ),
        "{messages:?}"
    );
    // Multi-byte characters count as bytes: 86 three-byte characters are 258 bytes.
    let (mut other, _) = server.connect(&room).await;
    let text = format!(r#"{{"type":"ping","req":3,"pad":"{}"}}"#, "€".repeat(86));
    assert!(text.chars().count() < 256 && text.len() > 256);
    other.send_text(&text).await;
    let (_, code) = other.until_closed().await;
    assert_eq!(code, Some(POLICY_VIOLATION));

    assert_alive(&mut bystander).await;
    assert_eq!(before, room_state(&server, &room).await);
}

#[tokio::test]
async fn a_frame_far_beyond_the_hard_cap_closes_cleanly_and_the_server_goes_on() {
    let server = test_server(|c| c.max_message_bytes = 256).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut bystander, _) = server.connect(&room).await;
    let before = room_state(&server, &room).await;

    // The socket itself refuses frames above 4 × 256 bytes before reading them.
    let huge = padded_ping(1, 1024 * 1024);
    // Sending may fail part way (the server closes without reading the rest), but the error and
    // the close frame arrive.
    let _ = client.try_send_text(&huge).await;
    let (messages, code) = client.until_closed().await;
    assert_eq!(code, Some(POLICY_VIOLATION), "{messages:?}");
    assert!(
        matches!(
            messages.as_slice(),
            [ServerMessage::Error {
                req: None,
                code: ErrorCode::TooLarge,
                ..
            }]
        ),
        "{messages:?}"
    );
    // Just above the hard cap too.
    let (mut other, _) = server.connect(&room).await;
    let _ = other.try_send_text(&padded_ping(2, 4 * 256 + 1)).await;
    let (_, code) = other.until_closed().await;
    assert_eq!(code, Some(POLICY_VIOLATION));

    assert_alive(&mut bystander).await;
    assert_eq!(before, room_state(&server, &room).await);
    // New rooms and connections are served as before.
    let (_, _, mut fresh) = lobby(&server).await;
    assert_alive(&mut fresh).await;
}

#[tokio::test]
async fn moves_out_of_turn_for_another_seat_or_for_another_ply_change_nothing() {
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let tokens = table.tokens.clone();
    let mv = |seat: u8, token: &str, ply: u32, text: &str| {
        let token = token.to_owned();
        let text = text.to_owned();
        move |req| ClientMessage::Move {
            req,
            seat,
            token,
            ply,
            mv: text,
        }
    };
    // Blue's own move before Red's.
    let blue = &mut table.players[1];
    refused(
        &server,
        &room,
        blue,
        ErrorCode::NotYourTurn,
        mv(1, &tokens[1], 0, "b7c7"),
    )
    .await;
    // Blue's valid token presented for Red's seat, from Blue's and from Red's connection.
    refused(
        &server,
        &room,
        blue,
        ErrorCode::BadToken,
        mv(0, &tokens[1], 0, "h2h4"),
    )
    .await;
    let red = &mut table.players[0];
    refused(
        &server,
        &room,
        red,
        ErrorCode::BadToken,
        mv(0, &tokens[1], 0, "h2h4"),
    )
    .await;
    refused(
        &server,
        &room,
        red,
        ErrorCode::BadToken,
        mv(0, "", 0, "h2h4"),
    )
    .await;
    // A ply from the future.
    refused(
        &server,
        &room,
        red,
        ErrorCode::StalePly,
        mv(0, &tokens[0], 1, "h2h4"),
    )
    .await;

    let answer = table.play(0, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let red = &mut table.players[0];
    // The same move resent (a client that did not see the ack): refused, not played twice.
    refused(
        &server,
        &room,
        red,
        ErrorCode::StalePly,
        mv(0, &tokens[0], 0, "h2h4"),
    )
    .await;
    refused(
        &server,
        &room,
        red,
        ErrorCode::StalePly,
        mv(0, &tokens[0], 0, "h4h5"),
    )
    .await;
    // Red at the current ply, but Blue is to move.
    refused(
        &server,
        &room,
        red,
        ErrorCode::NotYourTurn,
        mv(0, &tokens[0], 1, "h4h5"),
    )
    .await;
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
    let red = &mut table.players[0];
    let mv = |text: &str| {
        let token = token.clone();
        let text = text.to_owned();
        move |req| ClientMessage::Move {
            req,
            seat: 0,
            token,
            ply: 0,
            mv: text,
        }
    };
    // Well-formed, but not legal here: too far, onto its own piece, off the board (the cross
    // board has no corners), another army's piece, a promotion that is no promotion.
    for text in [
        "h2h5", "h1h2", "d1d5", "a1a2", "b7c7", "h2h4q", "e1e3", "n14n13",
    ] {
        refused(&server, &room, red, ErrorCode::IllegalMove, mv(text)).await;
    }
    // Not a move at all.
    for text in [
        "", "h2", "h2-h4", "h2 h4", " h2h4", "xyzzy", "o-o", "z9z9", "h0h1", "h15h16", "h2h4h6",
        "h2h4qq", "h2h4x", "2h4h", "h2h4🙂", "Nh2h4",
    ] {
        refused(&server, &room, red, ErrorCode::BadMove, mv(text)).await;
    }
    let long = "h2".repeat(100);
    refused(&server, &room, red, ErrorCode::BadMove, mv(&long)).await;
    // After all that, the move is still Red's to make.
    let answer = table.play(0, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn seat_actions_need_the_seats_token() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut other, _) = server.connect(&room).await;
    let mine = client.take_seat(0, "Ann").await;
    let theirs = other.take_seat(1, "Bob").await;
    for token in [String::new(), "not-a-token".to_owned(), theirs.clone()] {
        refused(&server, &room, &mut client, ErrorCode::BadToken, |req| {
            ClientMessage::LeaveSeat {
                req,
                seat: 0,
                token: token.clone(),
            }
        })
        .await;
    }
    // A token holds its own seat only, even for an empty one.
    refused(&server, &room, &mut client, ErrorCode::BadToken, |req| {
        ClientMessage::LeaveSeat {
            req,
            seat: 2,
            token: mine.clone(),
        }
    })
    .await;
    // Game actions check the token before anything else.
    refused(&server, &room, &mut client, ErrorCode::BadToken, |req| {
        ClientMessage::Resign {
            req,
            seat: 1,
            token: mine.clone(),
        }
    })
    .await;
    refused(&server, &room, &mut client, ErrorCode::NotStarted, |req| {
        ClientMessage::Resign {
            req,
            seat: 0,
            token: mine.clone(),
        }
    })
    .await;
    refused(&server, &room, &mut client, ErrorCode::NotStarted, |req| {
        ClientMessage::Move {
            req,
            seat: 0,
            token: mine.clone(),
            ply: 0,
            mv: "h2h4".into(),
        }
    })
    .await;
}

#[tokio::test]
async fn host_actions_need_the_host_token() {
    let server = test_server(|_| {}).await;
    let (room, host_token, mut client) = lobby(&server).await;
    let seat_token = client.take_seat(0, "Ann").await;
    let mut wrong = host_token.clone();
    // Same length, one character off.
    let last = if wrong.ends_with('A') { "B" } else { "A" };
    wrong.replace_range(wrong.len() - 1.., last);
    for token in [seat_token, wrong, String::new()] {
        let t = || token.clone();
        let code = ErrorCode::NotHost;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::Start {
                req,
                host_token: t(),
            }
        })
        .await;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::UpdateSettings {
                req,
                host_token: t(),
                settings: SettingsPatch {
                    turn_limit: Some(30),
                    ..SettingsPatch::default()
                },
            }
        })
        .await;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::SetCpu {
                req,
                host_token: t(),
                seat: 1,
                level: Some(CpuLevel::Hard),
            }
        })
        .await;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::MovePlayer {
                req,
                host_token: t(),
                from: 0,
                to: 1,
            }
        })
        .await;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::RemovePlayer {
                req,
                host_token: t(),
                seat: 0,
            }
        })
        .await;
        refused(&server, &room, &mut client, code, |req| {
            ClientMessage::TransferHost {
                req,
                host_token: t(),
                seat: 0,
            }
        })
        .await;
    }
}

#[tokio::test]
async fn taken_seats_bad_seats_and_bad_names_are_refused() {
    let server = test_server(|c| c.max_name_chars = 5).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut other, _) = server.connect(&room).await;
    other.take_seat(1, "Bob").await;
    let take = |seat: u8, name: &str| {
        let name = name.to_owned();
        move |req| ClientMessage::TakeSeat { req, seat, name }
    };
    refused(
        &server,
        &room,
        &mut client,
        ErrorCode::SeatTaken,
        take(1, "Ann"),
    )
    .await;
    for seat in [4, 5, 255] {
        refused(
            &server,
            &room,
            &mut client,
            ErrorCode::BadSeat,
            take(seat, "Ann"),
        )
        .await;
    }
    // Five characters are allowed however many bytes they take; six are not.
    for name in ["", " ", "\t\n", "abcdef", "🙂🙂🙂🙂🙂🙂", "ééééé "] {
        refused(
            &server,
            &room,
            &mut client,
            ErrorCode::BadName,
            take(0, name),
        )
        .await;
    }
    let emoji = "🙂🙂🙂🙂🙂";
    assert_eq!((emoji.chars().count(), emoji.len()), (5, 20));
    client.take_seat(0, emoji).await;
    client.take_seat(2, "ééééé").await;
    let info: RoomInfo = server
        .get(&format!("/api/rooms/{room}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.seats[0].name.as_deref(), Some(emoji));
    assert_eq!(info.seats[2].name.as_deref(), Some("ééééé"));
}

#[tokio::test]
async fn a_name_with_markup_is_stored_as_given() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut watcher, _) = server.connect(&room).await;
    let name = "<script>alert(1)</script>";
    client.take_seat(3, name).await;
    let (_, event) = watcher.event().await;
    assert_eq!(
        event,
        fourkings_protocol::Event::SeatTaken {
            seat: 3,
            name: name.to_owned()
        }
    );
    let (info, snapshot) = room_state(&server, &room).await;
    assert_eq!(info.seats[3].name.as_deref(), Some(name));
    assert_eq!(snapshot.seats[3].name.as_deref(), Some(name));
}

#[tokio::test]
async fn seats_and_settings_are_fixed_after_the_start() {
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let host_token = table.room.host_token.clone();
    let token = table.tokens[0].clone();
    let client = &mut table.players[0];
    let code = ErrorCode::AlreadyStarted;
    refused(&server, &room, client, code, |req| {
        ClientMessage::UpdateSettings {
            req,
            host_token: host_token.clone(),
            settings: SettingsPatch {
                castling: Some(false),
                ..SettingsPatch::default()
            },
        }
    })
    .await;
    refused(&server, &room, client, code, |req| ClientMessage::Start {
        req,
        host_token: host_token.clone(),
    })
    .await;
    refused(&server, &room, client, code, |req| ClientMessage::SetCpu {
        req,
        host_token: host_token.clone(),
        seat: 1,
        level: None,
    })
    .await;
    refused(&server, &room, client, code, |req| {
        ClientMessage::RemovePlayer {
            req,
            host_token: host_token.clone(),
            seat: 1,
        }
    })
    .await;
    refused(&server, &room, client, code, |req| {
        ClientMessage::LeaveSeat {
            req,
            seat: 0,
            token: token.clone(),
        }
    })
    .await;
    let (mut late, _) = server.connect(&room).await;
    refused(&server, &room, &mut late, code, |req| {
        ClientMessage::TakeSeat {
            req,
            seat: 0,
            name: "Late".into(),
        }
    })
    .await;
}

#[tokio::test]
async fn versions_newer_than_the_rooms_are_refused() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    client.take_seat(0, "Ann").await;
    refused(&server, &room, &mut client, ErrorCode::BadVersion, |req| {
        ClientMessage::Resync { req, since: 2 }
    })
    .await;
    refused(&server, &room, &mut client, ErrorCode::BadVersion, |req| {
        ClientMessage::Hello {
            req,
            seat_tokens: Vec::new(),
            host_token: None,
            since: Some(u64::MAX),
        }
    })
    .await;
}

#[tokio::test]
async fn a_flood_closes_the_connection_and_spares_the_others() {
    let server = TestServer::with(|c| {
        c.rate_per_second = 1;
        c.rate_burst = 5;
    })
    .await;
    let (room, _, mut flooder) = lobby(&server).await;
    let (mut bystander, _) = server.connect(&room).await;
    let before = room_state(&server, &room).await;
    let mut sent = 0;
    for req in 1..=50 {
        if flooder
            .try_send_text(&format!(r#"{{"type":"ping","req":{req}}}"#))
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
    }
    let (messages, code) = flooder.until_closed().await;
    assert_eq!(code, Some(POLICY_VIOLATION), "{messages:?}");
    let pongs = messages
        .iter()
        .filter(|m| matches!(m, ServerMessage::Pong { .. }))
        .count();
    // The burst, plus at most one token refilled while sending.
    assert!((1..=6).contains(&pongs), "{pongs} pongs of {sent} pings");
    let errors: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Error { code, req, .. } => Some((*code, *req)),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [(ErrorCode::RateLimited, None)], "{messages:?}");

    assert_alive(&mut bystander).await;
    assert_eq!(before, room_state(&server, &room).await);
    // The flooder may come back, with a fresh allowance.
    let (mut again, _) = server.connect(&room).await;
    assert_alive(&mut again).await;
}

/// The status and error code of a refused WebSocket upgrade, or `None` if it was accepted.
async fn upgrade(
    server: &TestServer,
    room: &str,
    origin: Option<&str>,
) -> Option<(u16, ErrorCode)> {
    match server.connect_raw(room, origin).await {
        Ok(client) => {
            client.close().await;
            None
        }
        Err(e) => match e.downcast::<tungstenite::Error>() {
            Ok(tungstenite::Error::Http(response)) => {
                let body: ErrorBody =
                    serde_json::from_slice(response.body().as_deref().unwrap_or_default())
                        .expect("an error body");
                Some((response.status().as_u16(), body.code))
            }
            other => panic!("unexpected failure: {other:?}"),
        },
    }
}

#[tokio::test]
async fn the_websocket_upgrade_checks_the_origin() {
    let server = test_server(|_| {}).await;
    let (room, _, _) = lobby(&server).await;
    let own = format!("http://{}", server.server.addr());
    let forbidden = Some((403, ErrorCode::ForbiddenOrigin));
    // No Origin (not a browser), and the server's own origin (the Host header).
    assert_eq!(upgrade(&server, &room, None).await, None);
    assert_eq!(upgrade(&server, &room, Some(&own)).await, None);
    assert_eq!(
        upgrade(&server, &room, Some(&own.to_uppercase())).await,
        None
    );
    for origin in [
        "http://evil.example",
        "null",
        "http://127.0.0.1",
        "http://127.0.0.1:1",
        &format!("{own}.evil.example"),
    ] {
        assert_eq!(
            upgrade(&server, &room, Some(origin)).await,
            forbidden,
            "{origin}"
        );
    }
    // A refused origin learns nothing about rooms: unknown rooms are refused the same way.
    assert_eq!(
        upgrade(&server, "0000000000000", Some("http://evil.example")).await,
        forbidden
    );
    assert_eq!(
        upgrade(&server, "0000000000000", None).await,
        Some((404, ErrorCode::RoomNotFound))
    );
}

/// A request to a room's WebSocket address that is not a WebSocket upgrade is refused with a
/// code, and so is a WebSocket version other than 13 (with the version spoken); the room's
/// WebSocket still opens afterwards.
#[tokio::test]
async fn the_websocket_address_refuses_what_is_not_a_websocket() {
    let server = test_server(|_| {}).await;
    let (room, _, _) = lobby(&server).await;
    let plain = server.get(&format!("/ws/{room}")).await;
    assert_eq!(plain.status(), 400);
    let body: ErrorBody = plain.json().await.expect("an error body");
    assert_eq!(body.code, ErrorCode::NotWebSocket);

    let old = reqwest::Client::new()
        .get(format!("http://{}/ws/{room}", server.server.addr()))
        .header("connection", "Upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "8")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .expect("an answer");
    assert_eq!(old.status(), 426);
    assert_eq!(
        old.headers()
            .get("sec-websocket-version")
            .map(|v| v.as_bytes()),
        Some(&b"13"[..])
    );
    let body: ErrorBody = old.json().await.expect("an error body");
    assert_eq!(body.code, ErrorCode::NotWebSocket);

    assert_eq!(upgrade(&server, &room, None).await, None);
}

#[tokio::test]
async fn allowed_origins_replace_the_same_origin_rule() {
    let server = test_server(|c| {
        c.allowed_origins = vec!["https://chess.example.org".into()];
    })
    .await;
    let (room, _, _) = lobby(&server).await;
    let own = format!("http://{}", server.server.addr());
    assert_eq!(upgrade(&server, &room, None).await, None);
    assert_eq!(
        upgrade(&server, &room, Some("https://chess.example.org")).await,
        None
    );
    for origin in [
        "https://evil.example",
        "http://chess.example.org",
        own.as_str(),
    ] {
        assert_eq!(
            upgrade(&server, &room, Some(origin)).await,
            Some((403, ErrorCode::ForbiddenOrigin)),
            "{origin}"
        );
    }
    let any = test_server(|c| c.allowed_origins = vec!["*".into()]).await;
    let (room, _, _) = lobby(&any).await;
    assert_eq!(
        upgrade(&any, &room, Some("https://anywhere.example")).await,
        None
    );
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
    let answer = table.play(0, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let red = &mut table.players[0];
    red.ok(|req| ClientMessage::TakeBack {
        req,
        seat: 0,
        token: token.clone(),
    })
    .await;
    refused(&server, &room, red, ErrorCode::TakenBack, |req| {
        ClientMessage::Move {
            req,
            seat: 0,
            token: token.clone(),
            ply: 0,
            mv: "h2h4".into(),
        }
    })
    .await;
    // Another move is fine.
    let answer = table.play(0, 0, "h2h3").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}
