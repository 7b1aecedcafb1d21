//! Private rooms over HTTP.

use fourkings_protocol::{ErrorBody, ErrorCode, GameStatus, Occupant, RoomInfo, SettingsPatch};
use fourkings_tests::TestServer;

#[tokio::test]
async fn creating_a_room_returns_its_id_link_and_host_token() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    assert_eq!(room.link, format!("/r/{}", room.id));
    // 13 characters of Crockford base 32: 65 random bits, easy to read aloud.
    assert_eq!(room.id.len(), 13);
    assert!(
        room.id
            .bytes()
            .all(|b| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&b)),
        "{}",
        room.id
    );
    assert!(room.host_token.len() >= 22);
    let other = server.create_room(&SettingsPatch::default()).await;
    assert_ne!(room.id, other.id);
    assert_ne!(room.host_token, other.host_token);
}

#[tokio::test]
async fn settings_in_the_body_are_optional_and_applied() {
    let server = TestServer::start().await;
    let response = server.post_room("").await;
    assert_eq!(response.status(), 201, "an empty body gives the defaults");
    let patch = SettingsPatch {
        preset: Some("duo".into()),
        team_clock: Some(5),
        ..SettingsPatch::default()
    };
    let room = server.create_room(&patch).await;
    let info: RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.settings.preset, "duo");
    assert_eq!(info.settings.team_clock, 5);
    assert_eq!(info.seats[1].label, "B1");
}

#[tokio::test]
async fn bad_settings_are_refused_with_a_code() {
    let server = TestServer::start().await;
    for body in [
        r#"{"preset":"chess"}"#,
        r#"{"turn_limit":45}"#,
        r#"{"castling":"yes"}"#,
        "{",
        r#"{"colour":"red"}"#,
    ] {
        let response = server.post_room(body).await;
        assert_eq!(response.status(), 400, "{body}");
        let error: ErrorBody = response.json().await.unwrap();
        assert_eq!(error.code, ErrorCode::InvalidSettings, "{body}");
    }
}

#[tokio::test]
async fn a_rooms_public_state_is_readable_and_unknown_ids_get_404() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let response = server.get(&format!("/api/rooms/{}", room.id)).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(
        !text.contains(&room.host_token),
        "no secret in the public state"
    );
    let info: RoomInfo = serde_json::from_str(&text).unwrap();
    assert_eq!(info.id, room.id);
    assert_eq!(info.status, GameStatus::Lobby);
    assert!(info.seats.iter().all(|s| s.occupant == Occupant::Empty));
    for id in ["0000000000000", "not-a-room", "zzzzzzzzzzzzzzzzzzzzzzzzzzz"] {
        let response = server.get(&format!("/api/rooms/{id}")).await;
        assert_eq!(response.status(), 404, "{id}");
        let body = response.text().await.unwrap();
        assert!(
            !body.contains(&room.id),
            "a 404 says nothing about other rooms: {body}"
        );
        let error: ErrorBody = serde_json::from_str(&body).unwrap();
        assert_eq!(error.code, ErrorCode::RoomNotFound);
    }
}

#[tokio::test]
async fn there_is_no_public_list_of_rooms() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    for path in ["/api/rooms", "/api/rooms/", "/api"] {
        let response = server.get(path).await;
        assert_ne!(response.status(), 200, "{path}");
        assert!(!response.text().await.unwrap().contains(&room.id), "{path}");
    }
    // The home page is the web client, which knows no rooms.
    let home = server.get("/").await.text().await.unwrap();
    assert!(!home.contains(&room.id));
}

#[tokio::test]
async fn the_room_limit_is_enforced() {
    let server = TestServer::with(|c| c.max_rooms = 2).await;
    server.create_room(&SettingsPatch::default()).await;
    server.create_room(&SettingsPatch::default()).await;
    let response = server.post_room("").await;
    assert_eq!(response.status(), 503);
    let error: ErrorBody = response.json().await.unwrap();
    assert_eq!(error.code, ErrorCode::TooManyRooms);
}

/// The snapshot names the limits the server's settings set on names and chat, so that clients
/// check and name the same numbers.
#[tokio::test]
async fn the_snapshot_names_the_servers_limits() {
    let server = TestServer::with(|c| {
        c.max_name_chars = 12;
        c.max_chat_chars = 80;
        c.chat_per_minute = 7;
    })
    .await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut client, snapshot) = server.connect(&room.id).await;
    assert_eq!(
        snapshot.limits,
        fourkings_protocol::Limits {
            name_chars: 12,
            chat_chars: 80,
            chat_per_minute: 7
        }
    );
    // The limit named is the limit kept.
    client
        .fails(
            fourkings_protocol::ErrorCode::BadName,
            fourkings_protocol::ClientMessage::TakeSeat {
                seat: fourkings_tests::seat(0),
                name: "a".repeat(13),
            },
        )
        .await;
    client
        .take_seat(fourkings_tests::seat(0), &"a".repeat(12))
        .await;
}
