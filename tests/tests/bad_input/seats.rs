//! Seats and the host: actions without the seat's token or the host token, seats taken or out of
//! range, names that are empty or too long, what is fixed once the game has started, and
//! versions newer than the room's.

use fourkings_protocol::{ClientMessage, CpuLevel, ErrorCode, Event, RoomInfo, SettingsPatch};
use fourkings_tests::{Table, seat};

use crate::support::{Row, WithToken, lobby, refuse_all, room_state, test_server};

#[tokio::test]
async fn seat_actions_need_the_seats_token() {
    use ErrorCode::{BadToken, NotStarted};
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut other, _) = server.connect(&room).await;
    let mine = client.take_seat(seat(0), "Ann").await;
    let theirs = other.take_seat(seat(1), "Bob").await;
    let leave_0 = |token| ClientMessage::LeaveSeat {
        seat: seat(0),
        token,
    };
    let rows = [
        Row::with_token("leave seat 0, no token", BadToken, "", leave_0),
        Row::with_token(
            "leave seat 0, made-up token",
            BadToken,
            "not-a-token",
            leave_0,
        ),
        Row::with_token("leave seat 0, seat 1's token", BadToken, &theirs, leave_0),
        // A token holds its own seat only, even for an empty one.
        Row::with_token(
            "leave the empty seat 2, seat 0's token",
            BadToken,
            &mine,
            |token| ClientMessage::LeaveSeat {
                seat: seat(2),
                token,
            },
        ),
        // Game actions check the token before anything else.
        Row::with_token("resign seat 1, seat 0's token", BadToken, &mine, |token| {
            ClientMessage::Resign {
                seat: seat(1),
                token,
            }
        }),
        Row::with_token("resign in the lobby", NotStarted, &mine, |token| {
            ClientMessage::Resign {
                seat: seat(0),
                token,
            }
        }),
        Row::with_token("move in the lobby", NotStarted, &mine, |token| {
            ClientMessage::Move {
                seat: seat(0),
                token,
                ply: 0,
                mv: "h2h4".into(),
            }
        }),
    ];
    refuse_all(&server, &room, &mut client, rows).await;
}

/// Every host action, by name, built from a request id and a host token.
const HOST_ACTIONS: [(&str, WithToken); 6] = [
    ("start", |host_token| ClientMessage::Start { host_token }),
    ("update_settings", |host_token| {
        ClientMessage::UpdateSettings {
            host_token,
            settings: SettingsPatch {
                turn_limit: Some(30),
                ..SettingsPatch::default()
            },
        }
    }),
    ("set_cpu", |host_token| ClientMessage::SetCpu {
        host_token,
        seat: seat(1),
        level: Some(CpuLevel::Hard),
    }),
    ("move_player", |host_token| ClientMessage::MovePlayer {
        host_token,
        from: seat(0),
        to: seat(1),
    }),
    ("remove_player", |host_token| ClientMessage::RemovePlayer {
        host_token,
        seat: seat(0),
    }),
    ("transfer_host", |host_token| ClientMessage::TransferHost {
        host_token,
        seat: seat(0),
    }),
];

#[tokio::test]
async fn host_actions_need_the_host_token() {
    let server = test_server(|_| {}).await;
    let (room, host_token, mut client) = lobby(&server).await;
    let seat_token = client.take_seat(seat(0), "Ann").await;
    let mut wrong = host_token.clone();
    // Same length, one character off.
    let last = if wrong.ends_with('A') { "B" } else { "A" };
    wrong.replace_range(wrong.len() - 1.., last);
    // Every host action, with each token that is not the host's.
    let tokens = [
        ("the seat token", seat_token),
        ("a token one character off", wrong),
        ("no token", String::new()),
    ];
    let rows = tokens.iter().flat_map(|(whose, token)| {
        HOST_ACTIONS.map(|(action, build)| {
            Row::with_token(
                format!("{action} with {whose}"),
                ErrorCode::NotHost,
                token,
                build,
            )
        })
    });
    refuse_all(&server, &room, &mut client, rows).await;
}

#[tokio::test]
async fn taken_seats_bad_seats_and_bad_names_are_refused() {
    let server = test_server(|c| c.max_name_chars = 5).await;
    let (room, _, mut client) = lobby(&server).await;
    let (mut other, _) = server.connect(&room).await;
    other.take_seat(seat(1), "Bob").await;
    // Written as text: a `ClientMessage` cannot hold the seats out of range.
    let take = |code, seat: u8, name: &str| {
        let name = name.to_owned();
        Row::written(format!("seat {seat} as {name:?}"), code, move |req| {
            let message =
                serde_json::json!({"type": "take_seat", "req": req, "seat": seat, "name": name});
            message.to_string()
        })
    };
    let mut rows = vec![take(ErrorCode::SeatTaken, 1, "Ann")];
    rows.extend([4, 5, 255].map(|seat| take(ErrorCode::BadSeat, seat, "Ann")));
    // Five characters are allowed however many bytes they take; six are not.
    rows.extend(
        ["", " ", "\t\n", "abcdef", "🙂🙂🙂🙂🙂🙂", "ééééé "]
            .map(|name| take(ErrorCode::BadName, 0, name)),
    );
    refuse_all(&server, &room, &mut client, rows).await;
    let emoji = "🙂🙂🙂🙂🙂";
    assert_eq!((emoji.chars().count(), emoji.len()), (5, 20));
    client.take_seat(seat(0), emoji).await;
    client.take_seat(seat(2), "ééééé").await;
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
    client.take_seat(seat(3), name).await;
    let (_, event) = watcher.event().await;
    assert_eq!(
        event,
        Event::SeatTaken {
            seat: seat(3),
            name: name.to_owned()
        }
    );
    let (info, snapshot) = room_state(&server, &room).await;
    assert_eq!(info.seats[3].name.as_deref(), Some(name));
    assert_eq!(snapshot.seats[3].name.as_deref(), Some(name));
}

#[tokio::test]
async fn seats_and_settings_are_fixed_after_the_start() {
    use ErrorCode::AlreadyStarted;
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let host = table.room.host_token.clone();
    let from_the_host = [
        Row::with_token("update_settings", AlreadyStarted, &host, |host_token| {
            ClientMessage::UpdateSettings {
                host_token,
                settings: SettingsPatch {
                    castling: Some(false),
                    ..SettingsPatch::default()
                },
            }
        }),
        Row::with_token("start", AlreadyStarted, &host, |host_token| {
            ClientMessage::Start { host_token }
        }),
        Row::with_token("set_cpu", AlreadyStarted, &host, |host_token| {
            ClientMessage::SetCpu {
                host_token,
                seat: seat(1),
                level: None,
            }
        }),
        Row::with_token("remove_player", AlreadyStarted, &host, |host_token| {
            ClientMessage::RemovePlayer {
                host_token,
                seat: seat(1),
            }
        }),
        Row::with_token("leave_seat", AlreadyStarted, &table.tokens[0], |token| {
            ClientMessage::LeaveSeat {
                seat: seat(0),
                token,
            }
        }),
    ];
    refuse_all(&server, &room, &mut table.players[0], from_the_host).await;
    let (mut late, _) = server.connect(&room).await;
    let from_a_latecomer = [Row::message(
        "take_seat",
        AlreadyStarted,
        ClientMessage::TakeSeat {
            seat: seat(0),
            name: "Late".into(),
        },
    )];
    refuse_all(&server, &room, &mut late, from_a_latecomer).await;
}

#[tokio::test]
async fn versions_newer_than_the_rooms_are_refused() {
    let server = test_server(|_| {}).await;
    let (room, _, mut client) = lobby(&server).await;
    client.take_seat(seat(0), "Ann").await;
    let rows = [
        Row::message(
            "resync since 2",
            ErrorCode::BadVersion,
            ClientMessage::Resync { since: 2 },
        ),
        Row::message(
            "hello since the largest version",
            ErrorCode::BadVersion,
            ClientMessage::Hello {
                seat_tokens: Vec::new(),
                host_token: None,
                since: Some(u64::MAX),
            },
        ),
    ];
    refuse_all(&server, &room, &mut client, rows).await;
}
