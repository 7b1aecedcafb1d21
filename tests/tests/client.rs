//! A real client — `fourkings client`, which speaks only the protocol — plays whole games against
//! the server, four of them at one table.

use fourkings_protocol::{Event, SettingsPatch};
use fourkings_server::client::{ClientArgs, run};
use fourkings_tests::TestServer;

fn args(link: &str, seat: u8, host_token: Option<String>) -> ClientArgs {
    ClientArgs {
        link: link.to_owned(),
        seats: vec![fourkings_tests::seat(seat)],
        name: format!("client {seat}"),
        start: host_token.is_some(),
        host_token,
        seed: u64::from(seat) + 11,
        quiet: true,
        move_delay_ms: 0,
    }
}

/// Four clients, one per seat, play a whole game of `preset`; all four see the same result and
/// the same moves, and so does the server.
async fn four_clients_play(preset: &str) {
    let server = TestServer::with(|c| {
        c.rate_per_second = 1000;
        c.rate_burst = 1000;
    })
    .await;
    let room = server.create_room(&SettingsPatch::preset(preset)).await;
    let link = format!("{}{}", server.base, room.link);
    let (mut watcher, _) = server.connect(&room.id).await;
    let mut players = Vec::new();
    for seat in 1..4 {
        let args = args(&link, seat, None);
        players.push(tokio::spawn(async move { run(&args).await }));
    }
    // Start only once the three others sit.
    let mut seated = 0;
    while seated < 3 {
        if let (_, Event::SeatTaken { .. }) = watcher.event().await {
            seated += 1;
        }
    }
    let host = args(&link, 0, Some(room.host_token.clone()));
    players.insert(0, tokio::spawn(async move { run(&host).await }));
    let mut reports = Vec::new();
    for player in players {
        reports.push(player.await.unwrap().expect("the client finishes the game"));
    }
    let first = &reports[0];
    assert!(!first.moves.is_empty());
    for report in &reports[1..] {
        assert_eq!(report.result, first.result, "{preset}");
        assert_eq!(report.moves, first.moves, "{preset}");
    }
    assert!(reports.iter().all(|r| r.played > 0), "every client moved");
    let (_, snapshot) = server.connect(&room.id).await;
    let game = snapshot.game.unwrap();
    assert_eq!(game.moves, first.moves);
    assert_eq!(game.result.as_ref(), Some(&first.result));
}

#[tokio::test]
async fn four_clients_play_a_teams_game_to_the_end() {
    four_clients_play("teams").await;
}

#[tokio::test]
async fn four_clients_play_a_free_for_all_to_the_end() {
    four_clients_play("ffa").await;
}

#[tokio::test]
async fn four_clients_play_a_duo_game_to_the_end() {
    four_clients_play("duo").await;
}
