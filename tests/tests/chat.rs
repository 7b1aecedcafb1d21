//! Room chat for everyone, team chat for partners (off under silent partners), spectators' chat
//! apart from the players', limits, and text stored as given.

use fourkings_protocol::{ChatChannel, ChatLine, ClientMessage, ErrorCode, Event, SettingsPatch};
use fourkings_tests::{Client, Table, TestServer};

/// A chat message from seat number `seat`, if any.
fn say(seat: Option<u8>, token: Option<String>, channel: ChatChannel, text: &str) -> ClientMessage {
    let text = text.to_owned();
    ClientMessage::Chat {
        channel,
        text,
        seat: seat.map(fourkings_tests::seat),
        token,
    }
}

/// The next chat line or hidden event a client sees, with its version.
async fn next_chat(client: &mut Client) -> (u64, Option<ChatLine>) {
    client
        .event_where(|v, e| match e {
            Event::Chat(line) => Some((v, Some(line.clone()))),
            Event::Hidden => Some((v, None)),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn room_chat_reaches_everyone_and_team_chat_only_partners() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let (mut spectator, _) = server.connect(&table.room.id).await;
    let text = "<img src=x onerror=alert(1)> gg";
    let red = table.tokens[0].clone();
    table.players[0]
        .ok(say(Some(0), Some(red.clone()), ChatChannel::Room, text))
        .await;
    for client in table
        .players
        .iter_mut()
        .chain(std::iter::once(&mut spectator))
    {
        let (_, line) = next_chat(client).await;
        let line = line.expect("room chat is for everyone");
        assert_eq!(
            (
                line.channel,
                line.seat,
                line.name.as_str(),
                line.text.as_str()
            ),
            (
                ChatChannel::Room,
                Some(fourkings_tests::seat(0)),
                "player 0",
                text
            )
        );
    }
    // Team chat: Red's partner Yellow reads it; Blue, Green and the spectator see only that an
    // event happened (same version for everyone).
    table.players[0]
        .ok(say(
            Some(0),
            Some(red),
            ChatChannel::Team,
            "push the h-pawn",
        ))
        .await;
    let mut versions = Vec::new();
    for (seat, client) in table.players.iter_mut().enumerate() {
        let (v, line) = next_chat(client).await;
        versions.push(v);
        assert_eq!(line.is_some(), seat % 2 == 0, "seat {seat}");
    }
    let (v, line) = next_chat(&mut spectator).await;
    assert!(line.is_none());
    versions.push(v);
    assert!(versions.windows(2).all(|w| w[0] == w[1]), "{versions:?}");
    // A later snapshot shows each reader what they may read.
    let (mut yellow, _) = server.connect(&table.room.id).await;
    let token = table.tokens[2].clone();
    yellow
        .ok(ClientMessage::Hello {
            seat_tokens: vec![token],
            host_token: None,
            since: None,
        })
        .await;
    assert_eq!(yellow.snapshot().await.chat.len(), 2);
    let (_, outsider) = server.connect(&table.room.id).await;
    assert_eq!(outsider.chat.len(), 1);
}

#[tokio::test]
async fn spectators_chat_among_themselves() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let (mut a, _) = server.connect(&table.room.id).await;
    let (mut b, _) = server.connect(&table.room.id).await;
    a.ok(say(None, None, ChatChannel::Spectators, "Blue is lost"))
        .await;
    let (_, line) = next_chat(&mut b).await;
    assert_eq!(line.unwrap().text, "Blue is lost");
    let (_, line) = next_chat(&mut table.players[1]).await;
    assert!(line.is_none(), "players do not read the spectators");
    // Players may not write there, nor spectators in the players' channels.
    let token = table.tokens[1].clone();
    table.players[1]
        .fails(
            ErrorCode::BadChat,
            say(None, None, ChatChannel::Spectators, "hi"),
        )
        .await;
    table.players[1]
        .fails(
            ErrorCode::BadChat,
            say(Some(1), Some(token), ChatChannel::Spectators, "hi"),
        )
        .await;
    a.fails(ErrorCode::BadChat, say(None, None, ChatChannel::Room, "hi"))
        .await;
    a.fails(
        ErrorCode::BadToken,
        say(Some(1), Some("guess".into()), ChatChannel::Room, "hi"),
    )
    .await;
}

#[tokio::test]
async fn silent_partners_have_no_team_chat_after_the_start() {
    let server = TestServer::start().await;
    let settings = SettingsPatch {
        silent_partners: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, false).await;
    let red = table.tokens[0].clone();
    table.players[0]
        .ok(say(
            Some(0),
            Some(red.clone()),
            ChatChannel::Team,
            "plan before the start",
        ))
        .await;
    let host = table.room.host_token.clone();
    table.players[0]
        .ok(ClientMessage::Start { host_token: host })
        .await;
    table.players[0]
        .fails(
            ErrorCode::NotAllowed,
            say(Some(0), Some(red.clone()), ChatChannel::Team, "psst"),
        )
        .await;
    table.players[0]
        .ok(say(Some(0), Some(red), ChatChannel::Room, "good luck"))
        .await;
    // Free-for-all has no teams at all.
    let ffa = SettingsPatch::preset("ffa");
    let mut table = Table::seat_four(&server, &ffa, true).await;
    let token = table.tokens[0].clone();
    table.players[0]
        .fails(
            ErrorCode::NotAllowed,
            say(Some(0), Some(token), ChatChannel::Team, "?"),
        )
        .await;
}

#[tokio::test]
async fn chat_has_a_length_and_a_rate_limit() {
    let server = TestServer::with(|c| {
        c.max_chat_chars = 10;
        c.chat_per_minute = 3;
    })
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let token = table.tokens[0].clone();
    let p = &mut table.players[0];
    p.fails(
        ErrorCode::BadChat,
        say(Some(0), Some(token.clone()), ChatChannel::Room, "   "),
    )
    .await;
    p.fails(
        ErrorCode::BadChat,
        say(
            Some(0),
            Some(token.clone()),
            ChatChannel::Room,
            "elevenchars",
        ),
    )
    .await;
    // Ten characters, not bytes.
    p.ok(say(
        Some(0),
        Some(token.clone()),
        ChatChannel::Room,
        "ééééééééé!",
    ))
    .await;
    p.ok(say(Some(0), Some(token.clone()), ChatChannel::Room, "two"))
        .await;
    p.ok(say(
        Some(0),
        Some(token.clone()),
        ChatChannel::Room,
        "three",
    ))
    .await;
    p.fails(
        ErrorCode::ChatLimited,
        say(Some(0), Some(token), ChatChannel::Room, "four"),
    )
    .await;
}
