//! The rules have one home, the server, and clients are told what they let players do (the rules
//! view in snapshots, `settings_changed` and game views) and which seat played each move, instead
//! of working it out from the preset's name or the turn order.

use fourkings_protocol::{
    ChatChannel, ClaimRule, ClientMessage, ErrorCode, Event, GameFormat, ResignationRule,
    RulesView, SettingsPatch,
};
use fourkings_tests::{Table, TestServer, seat};

/// What a fresh room of `preset` tells a spectator it lets players do.
async fn lobby_rules(server: &TestServer, settings: &SettingsPatch) -> RulesView {
    let room = server.create_room(settings).await;
    let (_, snapshot) = server.connect(&room.id).await;
    assert!(snapshot.game.is_none());
    snapshot.rules
}

#[tokio::test]
async fn each_room_says_what_its_rules_let_players_do() {
    let server = TestServer::start().await;
    let teams = lobby_rules(&server, &SettingsPatch::preset("teams")).await;
    assert_eq!(
        teams,
        RulesView {
            format: GameFormat::Teams,
            resignation: ResignationRule::TeamLoses,
            team_chat: true,
            takebacks: 0,
            claim: None,
        }
    );
    let classic = lobby_rules(&server, &SettingsPatch::preset("teams-classic")).await;
    assert_eq!(classic.resignation, ResignationRule::PartnerConsent);
    let lifelines = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::preset("teams")
    };
    assert_eq!(lobby_rules(&server, &lifelines).await.takebacks, 2);
    let ffa = lobby_rules(&server, &SettingsPatch::preset("ffa")).await;
    assert_eq!(
        (ffa.format, ffa.resignation, ffa.team_chat, ffa.claim),
        (GameFormat::FreeForAll, ResignationRule::Out, false, None)
    );
    let walking = lobby_rules(&server, &SettingsPatch::preset("ffa-walking-kings")).await;
    assert_eq!(walking.resignation, ResignationRule::OutKingWalks);
    let claim = SettingsPatch {
        claim_win: Some(true),
        ..SettingsPatch::preset("ffa")
    };
    assert_eq!(
        lobby_rules(&server, &claim).await.claim,
        Some(ClaimRule::Lead)
    );
    let duo = lobby_rules(&server, &SettingsPatch::preset("duo")).await;
    assert_eq!(
        (duo.format, duo.resignation, duo.team_chat, duo.claim),
        (
            GameFormat::Duo,
            ResignationRule::TeamLoses,
            true,
            Some(ClaimRule::Abandonment)
        )
    );
}

#[tokio::test]
async fn a_new_preset_comes_with_its_rules() {
    let server = TestServer::start().await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let host = room.host_token.clone();
    let (mut h, _) = server.connect(&room.id).await;
    h.ok(ClientMessage::UpdateSettings {
        host_token: host,
        settings: SettingsPatch::preset("ffa"),
    })
    .await;
    let (_, event) = h.event().await;
    let Event::SettingsChanged { settings, rules } = event else {
        panic!("{event:?}")
    };
    assert_eq!(settings.preset, "ffa");
    assert_eq!(
        (rules.format, rules.resignation, rules.team_chat),
        (GameFormat::FreeForAll, ResignationRule::Out, false)
    );
}

#[tokio::test]
async fn silent_partners_close_team_chat_at_the_start_and_say_so() {
    let server = TestServer::start().await;
    let silent = SettingsPatch {
        silent_partners: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &silent, false).await;
    let (_, lobby) = server.connect(&table.room.id).await;
    assert!(lobby.rules.team_chat, "open before the start");
    let token = table.tokens[0].clone();
    let team_chat = |token: String| ClientMessage::Chat {
        channel: ChatChannel::Team,
        text: "before we start".into(),
        seat: Some(seat(0)),
        token: Some(token),
    };
    table.players[0].ok(team_chat(token.clone())).await;

    let host_token = table.room.host_token.clone();
    table.players[0]
        .ok(ClientMessage::Start { host_token })
        .await;
    let game = table.players[1]
        .event_where(|_, e| match e {
            Event::Started { game } => Some(game.clone()),
            _ => None,
        })
        .await;
    assert!(!game.rules.team_chat, "the start says team chat is closed");
    assert_eq!(game.rules.resignation, ResignationRule::TeamLoses);
    let (_, later) = server.connect(&table.room.id).await;
    assert!(!later.rules.team_chat);
    assert_eq!(later.game.map(|g| g.rules), Some(later.rules.clone()));
    // The server refuses exactly what it said.
    table.players[0]
        .fails(ErrorCode::NotAllowed, team_chat(token))
        .await;
}

#[tokio::test]
async fn every_move_names_the_seat_that_played_it_when_the_turn_order_skips_an_army() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::preset("ffa"), true).await;
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")])
        .await;
    // Blue resigns while Red is to move: Blue is out, and from now on the turn skips Blue.
    table.resign(seat(1)).await;
    for (ply, (seat, mv)) in [(seat(0), "h4h5"), (seat(2), "g12g11"), (seat(3), "l8k8")]
        .into_iter()
        .enumerate()
    {
        let answer = table.play(seat, 4 + ply as u32, mv).await;
        assert!(
            matches!(answer, fourkings_protocol::ServerMessage::Ack { .. }),
            "{mv}: {answer:?}"
        );
    }
    let (_, snapshot) = server.connect(&table.room.id).await;
    let game = snapshot.game.expect("a game");
    assert_eq!(game.moves.len(), 7);
    assert_eq!(game.move_seats, [0, 1, 2, 3, 0, 2, 3].map(seat));
    assert_eq!(game.to_move, Some(seat(0)));
}
