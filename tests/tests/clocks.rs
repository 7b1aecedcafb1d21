//! Issue 4, items 1 and 2: the turn limit and Duo's team clocks, kept by the server. Game time runs
//! fast here (`time_unit_ms`), so no test waits real seconds.

use fourkings_protocol::{
    ClientMessage, ErrorCode, Event, GameChange, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Table, TestServer, seat};

#[tokio::test]
async fn every_diff_and_snapshot_says_when_the_turn_ends() {
    // 30 "seconds" of 20 ms: 600 ms.
    let server = TestServer::with(|c| c.time_unit_ms = 20).await;
    let settings = SettingsPatch {
        turn_limit: Some(30),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let started = table.players[1]
        .event_where(|_, e| match e {
            Event::Started { game } => Some(game.clone()),
            _ => None,
        })
        .await;
    let remaining = started
        .clock
        .turn_remaining_ms
        .expect("a turn limit is running");
    assert!(remaining <= 600 && remaining > 300, "{remaining}");
    assert!(started.clock.turn_ends_at.is_some());
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let moved = table.players[2]
        .event_where(|_, e| match e {
            Event::Moved(m) => Some(m.clone()),
            _ => None,
        })
        .await;
    let next = moved.clock.turn_remaining_ms.expect("Blue's turn is timed");
    assert!(next > 300 && next <= 600, "a fresh turn: {next}");
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert!(
        snapshot
            .game
            .unwrap()
            .clock
            .turn_remaining_ms
            .is_some_and(|r| r <= next)
    );
}

#[tokio::test]
async fn when_the_turn_limit_runs_out_the_cpu_plays_the_move_for_the_player() {
    let server = TestServer::with(|c| c.time_unit_ms = 10).await;
    let settings = SettingsPatch {
        turn_limit: Some(30),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Red does nothing: after 300 ms the CPU moves for Red, and the diff says so.
    let moved = table.players[1]
        .event_where(|_, e| match e {
            Event::Moved(m) => Some(m.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        (moved.seat, moved.ply, moved.to_move),
        (seat(0), 1, Some(seat(1)))
    );
    assert!(moved.automatic, "played for the player");
    // Red's late move is refused; the game went on.
    let token = table.tokens[0].clone();
    table.players[0]
        .fails(
            ErrorCode::StalePly,
            ClientMessage::Move {
                seat: seat(0),
                token,
                ply: 0,
                mv: "h2h4".into(),
            },
        )
        .await;
    // Blue moves in time: not automatic.
    let legal = table.players[1].legal_moves().await;
    assert!(matches!(
        table.play(seat(1), 1, &legal.moves[0]).await,
        ServerMessage::Ack { .. }
    ));
    let moved = table.players[2]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.seat == seat(1) => Some(m.clone()),
            _ => None,
        })
        .await;
    assert!(!moved.automatic);
}

#[tokio::test]
async fn duo_team_banks_run_only_on_their_turns_and_an_empty_bank_loses() {
    // 3 minutes of 2 ms "seconds": 360 ms per team.
    let server = TestServer::with(|c| c.time_unit_ms = 2).await;
    let settings = SettingsPatch {
        preset: Some("duo".into()),
        team_clock: Some(3),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // W1 thinks for 50 ms (this sleep makes the time to measure; it waits for no condition).
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(matches!(
        table.play(seat(0), 0, "e2e4").await,
        ServerMessage::Ack { .. }
    ));
    let moved = table.players[1]
        .event_where(|_, e| match e {
            Event::Moved(m) => Some(m.clone()),
            _ => None,
        })
        .await;
    let banks = moved.clock.banks_ms.expect("Duo shows both banks");
    assert!(
        banks[0] <= 310,
        "White's bank ran while W1 thought: {banks:?}"
    );
    assert_eq!(banks[1], 360, "Black's bank has not run: {banks:?}");
    // Black lets its bank run out: White wins on time.
    let result = table.players[0]
        .event_where(|_, e| match e {
            Event::GameChanged { what, game, .. } if *what == GameChange::TimedOut => {
                game.result.clone()
            }
            _ => None,
        })
        .await;
    assert_eq!(
        (result.reason.as_str(), result.winners),
        ("timeout", vec![seat(0), seat(2)])
    );
}
