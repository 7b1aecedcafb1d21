//! Settings, changed only by the host, before the start, and applied to the game.

use fourkings_protocol::{
    ClientMessage, CpuLevel, ErrorCode, Event, PromotionChoice, RoomInfo, Settings, SettingsPatch,
};
use fourkings_tests::{Table, TestServer, seat};

/// A patch that changes every field, and the settings it must produce from `teams`.
fn every_field() -> (SettingsPatch, impl Fn(&Settings)) {
    let patch = SettingsPatch {
        preset: Some("teams-classic".into()),
        castling: Some(false),
        en_passant: Some(true),
        king_capture: Some(false),
        king_friendly_capture: None,
        promotion: Some(PromotionChoice::Minor),
        fifty_move_rule: Some(false),
        move_limit: Some(120),
        pawn_breakthrough: Some(true),
        lifelines: Some(true),
        silent_partners: Some(true),
        switch_partners: Some(true),
        claim_win: None,
        turn_limit: Some(60),
        team_clock: Some(0),
        game_clock: Some(Some(fourkings_protocol::GameClock {
            minutes: 2,
            increment: 10,
            delay: 0,
        })),
        premoves: Some(3),
        cpu_level: Some(CpuLevel::Hard),
        rotate_first_seat: Some(false),
        show_legal_moves: Some(false),
    };
    let check = |s: &Settings| {
        assert_eq!(s.preset, "teams-classic");
        assert!(!s.castling && s.en_passant && !s.king_capture && !s.fifty_move_rule);
        assert_eq!(s.promotion, PromotionChoice::Minor);
        assert_eq!((s.move_limit, s.turn_limit, s.team_clock), (120, 60, 0));
        assert_eq!(
            s.game_clock.map(|c| (c.minutes, c.increment)),
            Some((2, 10))
        );
        assert!(s.pawn_breakthrough && s.lifelines && s.silent_partners && s.switch_partners);
        assert_eq!((s.cpu_level, s.premoves), (CpuLevel::Hard, 3));
        assert!(!s.rotate_first_seat && !s.show_legal_moves);
    };
    (patch, check)
}

#[tokio::test]
async fn the_host_can_change_every_setting_before_the_start() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    let (patch, check) = every_field();
    h.ok(ClientMessage::UpdateSettings {
        host_token: host.clone(),
        settings: patch.clone(),
    })
    .await;
    let (_, event) = h.event().await;
    let Event::SettingsChanged { settings, .. } = event else {
        panic!("{event:?}")
    };
    check(&settings);
    let info: RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    check(&info.settings);
}

#[tokio::test]
async fn a_new_preset_resets_the_rule_options_to_its_own() {
    let server = TestServer::start().await;
    let room = server
        .create_room(&SettingsPatch {
            en_passant: Some(false),
            ..SettingsPatch::default()
        })
        .await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    h.ok(ClientMessage::UpdateSettings {
        host_token: host.clone(),
        settings: SettingsPatch::preset("ffa"),
    })
    .await;
    let info: RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info.settings.preset, "ffa");
    assert!(info.settings.en_passant, "ffa plays en passant");
    assert_eq!(info.settings.promotion, PromotionChoice::Queen);
}

#[tokio::test]
async fn settings_that_make_no_sense_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    let before: RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    let bad = [
        SettingsPatch {
            turn_limit: Some(45),
            ..SettingsPatch::default()
        },
        SettingsPatch {
            team_clock: Some(5),
            ..SettingsPatch::default()
        },
        SettingsPatch {
            preset: Some("duo".into()),
            king_capture: Some(true),
            ..SettingsPatch::default()
        },
        SettingsPatch {
            preset: Some("ffa".into()),
            lifelines: Some(true),
            ..SettingsPatch::default()
        },
        SettingsPatch {
            preset: Some("ffa".into()),
            silent_partners: Some(true),
            ..SettingsPatch::default()
        },
        SettingsPatch {
            claim_win: Some(true),
            ..SettingsPatch::default()
        },
        SettingsPatch::preset("four-player-go"),
    ];
    for patch in bad {
        h.fails(
            ErrorCode::InvalidSettings,
            ClientMessage::UpdateSettings {
                host_token: host.clone(),
                settings: patch.clone(),
            },
        )
        .await;
    }
    let after: RoomInfo = server
        .get(&format!("/api/rooms/{}", room.id))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(before, after);
}

#[tokio::test]
async fn settings_are_fixed_once_the_game_starts() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let host = table.room.host_token.clone();
    table.players[0]
        .fails(
            ErrorCode::AlreadyStarted,
            ClientMessage::UpdateSettings {
                host_token: host.clone(),
                settings: SettingsPatch {
                    castling: Some(false),
                    ..SettingsPatch::default()
                },
            },
        )
        .await;
}

#[tokio::test]
async fn the_settings_become_the_games_rules() {
    let server = TestServer::start().await;
    // Duo on the classic board, with lifelines refused but a move limit of four plies.
    let duo = SettingsPatch {
        preset: Some("duo".into()),
        move_limit: Some(4),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &duo, true).await;
    let game = loop {
        if let (_, Event::Started { game }) = table.players[1].event().await {
            break game;
        }
    };
    assert_eq!(game.board, fourkings_protocol::BoardShape::Classic);
    assert_eq!(game.pieces.get("e1").map(String::as_str), Some("wK"));
    assert_eq!(game.to_move, Some(seat(0)));
    table
        .play_opening(&[(0, "e2e4"), (1, "e7e5"), (2, "g1f3"), (3, "b8c6")])
        .await;
    let result = loop {
        if let (_, Event::Moved(moved)) = table.players[2].event().await {
            if let Some(result) = moved.result {
                break result;
            }
        }
    };
    assert_eq!(result.reason, "move_limit");
    assert!(result.winners.is_empty());

    // Teams with lifelines: each team starts with two.
    let lifelines = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &lifelines, true).await;
    let game = loop {
        if let (_, Event::Started { game }) = table.players[0].event().await {
            break game;
        }
    };
    assert_eq!(game.lifelines, [2, 2]);
}

/// RULES.md 7, Duo: "The king itself makes no friendly captures unless the room turns that on".
/// The setting is Duo's only, off by default, and the game follows it.
#[tokio::test]
async fn duo_kings_take_their_own_pieces_only_when_the_room_says_so() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::preset("duo"), true).await;
    let legal = table.players[0].legal_moves().await;
    assert_eq!(legal.moves.len(), 34, "{:?}", legal.moves);
    assert!(!legal.moves.iter().any(|m| m.starts_with("e1")));
    let with_king = SettingsPatch {
        king_friendly_capture: Some(true),
        ..SettingsPatch::preset("duo")
    };
    let mut table = Table::seat_four(&server, &with_king, true).await;
    let legal = table.players[0].legal_moves().await;
    assert_eq!(legal.moves.len(), 39);
    assert!(legal.moves.iter().any(|m| m == "e1e2"), "{:?}", legal.moves);
    // Not for other presets.
    let bad = SettingsPatch {
        king_friendly_capture: Some(true),
        ..SettingsPatch::preset("teams")
    };
    let response = server
        .post_room(&serde_json::to_string(&bad).unwrap())
        .await;
    assert_eq!(response.status(), 400);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(
        body.to_string()
            .contains("king_friendly_capture applies to Duo only"),
        "{body}"
    );
}
