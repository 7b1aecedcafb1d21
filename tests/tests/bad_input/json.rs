//! Frames that are not a message the server can act on: text that is not JSON, JSON that is not
//! an object, an unknown or missing `type`, missing fields, fields of the wrong type, binary
//! frames. Each is answered with its error and the `req` when one could be read.

use fourkings_protocol::{ErrorCode, ServerMessage, SettingsPatch};
use fourkings_tests::{Table, seat};

use crate::support::{Row, lobby, refuse_all, test_server};

/// Runs `rows` on a connection to a fresh room in the lobby.
async fn refuse_in_a_lobby(rows: impl FnOnce(&str) -> Vec<Row>) {
    let server = test_server(|_| {}).await;
    let (room, host_token, mut client) = lobby(&server).await;
    refuse_all(&server, &room, &mut client, rows(&host_token)).await;
}

#[tokio::test]
async fn malformed_json_is_bad_json() {
    refuse_in_a_lobby(|_| {
        let bad = |text: &str| Row::text(text, ErrorCode::BadJson, None);
        vec![
            bad("{"),
            bad("not json"),
            bad(r#"{"type":"ping","req":1,}"#),
            bad(r#"{"type":"ping" "req":1}"#),
            bad(""),
            bad("\u{feff}{}"),
        ]
    })
    .await;
}

#[tokio::test]
async fn json_that_is_not_an_object_is_bad_json() {
    refuse_in_a_lobby(|_| {
        let bad = |text: &str| Row::text(text, ErrorCode::BadJson, None);
        vec![
            bad("[]"),
            bad(r#"[{"type":"ping","req":1}]"#),
            bad(r#""ping""#),
            bad("42"),
            bad("null"),
            bad("true"),
        ]
    })
    .await;
}

#[tokio::test]
async fn an_unknown_or_missing_type_is_unknown_type_with_the_req() {
    refuse_in_a_lobby(|_| {
        let unknown = |text: &str, req| Row::text(text, ErrorCode::UnknownType, req);
        vec![
            unknown(r#"{"type":"dance","req":5}"#, Some(5)),
            unknown(r#"{"type":"Ping","req":6}"#, Some(6)),
            unknown(r#"{"type":"","req":7}"#, Some(7)),
            unknown(r#"{"req":8}"#, Some(8)),
            unknown(r#"{"type":5,"req":9}"#, Some(9)),
            unknown(r#"{"type":null,"req":10}"#, Some(10)),
            unknown("{}", None),
            unknown(r#"{"kind":"ping"}"#, None),
        ]
    })
    .await;
}

#[tokio::test]
async fn missing_fields_are_invalid_and_the_req_is_echoed() {
    let server = test_server(|_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let room = table.room.id.clone();
    let token = table.tokens[0].clone();
    let invalid = |text: String, req| Row::text(text, ErrorCode::InvalidMessage, req);
    let rows = vec![
        invalid(
            format!(r#"{{"type":"move","req":11,"seat":0,"token":"{token}","move":"h2h4"}}"#),
            Some(11),
        ),
        invalid(
            format!(r#"{{"type":"move","req":12,"seat":0,"token":"{token}","ply":0}}"#),
            Some(12),
        ),
        invalid(
            r#"{"type":"move","req":13,"seat":0,"ply":0,"move":"h2h4"}"#.into(),
            Some(13),
        ),
        invalid(r#"{"type":"take_seat","req":14,"seat":2}"#.into(), Some(14)),
        invalid(r#"{"type":"resync","req":15}"#.into(), Some(15)),
        invalid(r#"{"type":"start","req":16}"#.into(), Some(16)),
        invalid(r#"{"type":"ping"}"#.into(), None),
        invalid(
            format!(r#"{{"type":"move","seat":0,"token":"{token}","ply":0,"move":"h2h4"}}"#),
            None,
        ),
    ];
    refuse_all(&server, &room, &mut table.players[0], rows).await;
    // Nothing above was played: the move is still there to make.
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
}

#[tokio::test]
async fn fields_of_the_wrong_type_are_invalid() {
    refuse_in_a_lobby(|host_token| {
        let invalid = |text: String, req| Row::text(text, ErrorCode::InvalidMessage, req);
        let settings = |req: u64, settings: &str| {
            format!(
                r#"{{"type":"update_settings","req":{req},"host_token":"{host_token}","settings":{settings}}}"#
            )
        };
        vec![
            invalid(
                r#"{"type":"take_seat","req":20,"seat":"0","name":"Ann"}"#.into(),
                Some(20),
            ),
            invalid(
                r#"{"type":"take_seat","req":21,"seat":256,"name":"Ann"}"#.into(),
                Some(21),
            ),
            invalid(
                r#"{"type":"take_seat","req":22,"seat":-1,"name":"Ann"}"#.into(),
                Some(22),
            ),
            invalid(
                r#"{"type":"take_seat","req":23,"seat":0.5,"name":"Ann"}"#.into(),
                Some(23),
            ),
            invalid(
                r#"{"type":"take_seat","req":24,"seat":0,"name":7}"#.into(),
                Some(24),
            ),
            invalid(
                r#"{"type":"take_seat","req":25,"seat":0,"name":null}"#.into(),
                Some(25),
            ),
            invalid(
                r#"{"type":"hello","req":26,"seat_tokens":"abc"}"#.into(),
                Some(26),
            ),
            invalid(r#"{"type":"resync","req":27,"since":-1}"#.into(), Some(27)),
            invalid(
                r#"{"type":"answer_draw","req":28,"seat":0,"token":"t","accept":"yes"}"#.into(),
                Some(28),
            ),
            invalid(settings(29, r#"{"turn_limit":"60"}"#), Some(29)),
            invalid(settings(30, r#"{"colour":"red"}"#), Some(30)),
            invalid(
                format!(
                    r#"{{"type":"set_cpu","req":31,"host_token":"{host_token}","seat":1,"level":"grandmaster"}}"#
                ),
                Some(31),
            ),
            // A `req` that is not a non-negative integer cannot be echoed.
            invalid(r#"{"type":"ping","req":"1"}"#.into(), None),
            invalid(r#"{"type":"ping","req":-1}"#.into(), None),
            invalid(r#"{"type":"ping","req":1.5}"#.into(), None),
            invalid(
                r#"{"type":"ping","req":18446744073709551616}"#.into(),
                None,
            ),
        ]
    })
    .await;
}

#[tokio::test]
async fn binary_frames_are_refused() {
    refuse_in_a_lobby(|_| {
        vec![Row::binary(
            "a ping in a binary frame",
            br#"{"type":"ping","req":1}"#,
            ErrorCode::BadJson,
        )]
    })
    .await;
}
