//! The turn limit, game clocks and Duo's team clocks, kept by the server. Game time runs
//! fast here (`time_unit_ms`), so no test waits real seconds. Where a person must act before a
//! time runs out, the time is at least 1.5 s: a margin that held with both cores of a 2-core
//! machine kept busy (tests/README.md); times that nobody races may be as short as they like.

use fourkings_protocol::{
    ClientMessage, ErrorCode, Event, GameChange, GameClock, MovedEvent, ServerMessage,
    SettingsPatch,
};
use fourkings_tests::{Table, TestServer, seat};

#[tokio::test]
async fn every_diff_and_snapshot_says_when_the_turn_ends() {
    // 30 "seconds" of 100 ms: 3 s, for Red's move to come within.
    let server = TestServer::with(|c| c.time_unit_ms = 100).await;
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
    assert!(remaining <= 3_000 && remaining > 1_500, "{remaining}");
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
    assert!(next > 1_500 && next <= 3_000, "a fresh turn: {next}");
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
    // 30 "seconds" of 50 ms: 1.5 s, for Blue's move to come within.
    let server = TestServer::with(|c| c.time_unit_ms = 50).await;
    let settings = SettingsPatch {
        turn_limit: Some(30),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Red does nothing: after 1.5 s the CPU moves for Red, and the diff says so.
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
    // 3 minutes of 10 ms "seconds": 1.8 s per team, for W1's move to come within.
    let server = TestServer::with(|c| c.time_unit_ms = 10).await;
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
        banks[0] <= 1_750,
        "White's bank ran while W1 thought: {banks:?}"
    );
    assert_eq!(banks[1], 1_800, "Black's bank has not run: {banks:?}");
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

/// A game clock of `minutes`, `increment` and `delay` (game seconds).
fn game_clock(preset: &str, minutes: u32, increment: u32, delay: u32) -> SettingsPatch {
    SettingsPatch {
        preset: Some(preset.into()),
        game_clock: Some(Some(GameClock {
            minutes,
            increment,
            delay,
        })),
        ..SettingsPatch::default()
    }
}

/// The game as the next `timed_out` change shows it.
async fn timed_out(client: &mut fourkings_tests::Client) -> fourkings_protocol::GameView {
    client
        .event_where(|_, e| match e {
            Event::GameChanged { what, game, .. } if *what == GameChange::TimedOut => {
                Some(game.clone())
            }
            _ => None,
        })
        .await
}

/// The next `moved` event `client` sees.
async fn next_moved(client: &mut fourkings_tests::Client) -> MovedEvent {
    client
        .event_where(|_, e| match e {
            Event::Moved(m) => Some(m.clone()),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn each_seat_spends_its_own_bank_and_earns_the_increment() {
    // 1 minute of 50 ms "seconds": 3,000 ms a seat; 30 seconds of increment: 1,500 ms, for
    // Red's move to come within.
    let server = TestServer::with(|c| c.time_unit_ms = 50).await;
    let mut table = Table::seat_four(&server, &game_clock("teams", 1, 30, 0), true).await;
    let started = table.players[1]
        .event_where(|_, e| match e {
            Event::Started { game } => Some(game.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        started.clock.banks_ms.as_deref().map(<[u64]>::len),
        Some(4),
        "one bank a seat"
    );
    assert_eq!(
        started.clock.turn_remaining_ms,
        started.clock.banks_ms.map(|b| b[0])
    );
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let banks = next_moved(&mut table.players[1])
        .await
        .clock
        .banks_ms
        .expect("every moved carries the banks");
    // Red spent what it thought (under the increment here) and earned 1,500 ms; the others
    // stood still (Blue's has only just started).
    assert!(banks[0] > 3_000 && banks[0] <= 4_500, "{banks:?}");
    assert!(banks[1] <= 3_000 && banks[1] > 2_500, "{banks:?}");
    assert_eq!(&banks[2..], &[3_000, 3_000], "{banks:?}");
}

#[tokio::test]
async fn with_a_delay_the_bank_runs_only_after_it() {
    // A 60-second delay of 50 ms "seconds" (3 s) is longer than a move takes here.
    let server = TestServer::with(|c| c.time_unit_ms = 50).await;
    let mut table = Table::seat_four(&server, &game_clock("ffa", 1, 0, 60), true).await;
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let clock = next_moved(&mut table.players[2]).await.clock;
    assert_eq!(
        clock.banks_ms,
        Some(vec![3_000, 3_000, 3_000, 3_000]),
        "Red moved within its delay"
    );
    let delay = clock.delay_ms.expect("Blue's turn starts with its delay");
    assert!(delay > 2_000 && delay <= 3_000, "{delay}");
    // The turn ends after the delay and the bank: 6 s.
    let remaining = clock.turn_remaining_ms.expect("Blue's turn is timed");
    assert!(remaining > 5_000 && remaining <= 6_000, "{remaining}");
}

#[tokio::test]
async fn in_teams_a_seat_whose_bank_runs_out_loses_for_its_team_and_the_pgn4_says_t() {
    // 1 minute of 2 ms "seconds": 120 ms.
    let server = TestServer::with(|c| c.time_unit_ms = 2).await;
    let mut table = Table::seat_four(&server, &game_clock("teams", 1, 0, 0), true).await;
    let (seat_out, result) = table.players[1]
        .event_where(|_, e| match e {
            Event::GameChanged { what, seat, game } if *what == GameChange::TimedOut => {
                Some((*seat, game.result.clone()?))
            }
            _ => None,
        })
        .await;
    assert_eq!(seat_out, seat(0), "Red did not move");
    assert_eq!(
        (result.reason.as_str(), result.winners),
        ("timeout", vec![seat(1), seat(3)])
    );
    let pgn4 = server
        .get(&format!("/api/rooms/{}/game", table.room.id))
        .await
        .text()
        .await
        .unwrap();
    assert!(pgn4.contains("1. T"), "{pgn4}");
    assert!(pgn4.contains("Red lost on time"), "{pgn4}");
}

#[tokio::test]
async fn in_free_for_all_a_seat_whose_bank_runs_out_is_out_and_the_game_goes_on() {
    let server = TestServer::with(|c| c.time_unit_ms = 2).await;
    let mut table = Table::seat_four(&server, &game_clock("ffa", 1, 0, 0), true).await;
    let game = timed_out(&mut table.players[1]).await;
    assert!(game.result.is_none(), "three players are left");
    assert_eq!(game.to_move, Some(seat(1)));
    assert_eq!(game.armies[0], fourkings_protocol::ArmyState::Out);
    // Blue's bank is full: only Red's ran.
    assert!(
        game.clock.banks_ms.as_ref().is_some_and(|b| b[1] > 100),
        "{:?}",
        game.clock
    );
}

#[tokio::test]
async fn a_game_clock_is_checked_and_can_be_turned_off() {
    let server = TestServer::start().await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), false).await;
    let host_token = table.room.host_token.clone();
    let host = &mut table.players[0];
    for (bad, why) in [
        (game_clock("teams", 0, 0, 0), "no minutes"),
        (game_clock("teams", 61, 0, 0), "over an hour"),
        (game_clock("teams", 1, 61, 0), "an increment over a minute"),
        (game_clock("teams", 1, 5, 5), "an increment and a delay"),
        (game_clock("duo", 5, 0, 0), "Duo keeps its team clock"),
    ] {
        let answer = host
            .request(ClientMessage::UpdateSettings {
                host_token: host_token.clone(),
                settings: bad,
            })
            .await;
        assert!(
            matches!(
                answer,
                ServerMessage::Error {
                    code: ErrorCode::InvalidSettings,
                    ..
                }
            ),
            "{why}: {answer:?}"
        );
    }
    host.ok(ClientMessage::UpdateSettings {
        host_token: host_token.clone(),
        settings: game_clock("ffa", 8, 2, 0),
    })
    .await;
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(
        snapshot.settings.game_clock,
        Some(GameClock {
            minutes: 8,
            increment: 2,
            delay: 0
        })
    );
    // `null` turns it off; a patch without the field leaves it.
    let off: SettingsPatch = serde_json::from_str(r#"{"game_clock": null}"#).unwrap();
    assert_eq!(off.game_clock, Some(None));
    let host = &mut table.players[0];
    host.ok(ClientMessage::UpdateSettings {
        host_token,
        settings: off,
    })
    .await;
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(snapshot.settings.game_clock, None);
}

#[tokio::test]
async fn with_walking_kings_a_player_out_of_time_leaves_the_king_walking() {
    let server = TestServer::with(|c| c.time_unit_ms = 2).await;
    let mut table =
        Table::seat_four(&server, &game_clock("ffa-walking-kings", 1, 0, 0), true).await;
    let game = timed_out(&mut table.players[1]).await;
    assert_eq!(game.armies[0], fourkings_protocol::ArmyState::KingWalking);
    assert!(game.result.is_none());
}

#[tokio::test]
async fn with_a_turn_limit_too_whichever_comes_first_decides_and_the_cpu_spends_the_seats_bank() {
    // A two-minute bank and 30 seconds a move, of 10 ms: the turn limit (300 ms) comes first.
    // The CPU then thinks for at most 50 ms of Red's bank.
    let server = TestServer::with(|c| {
        c.time_unit_ms = 10;
        c.cpu_think_seconds = 0.05;
    })
    .await;
    let mut settings = game_clock("teams", 2, 0, 0);
    settings.turn_limit = Some(30);
    let mut table = Table::seat_four(&server, &settings, true).await;
    let started = table.players[1]
        .event_where(|_, e| match e {
            Event::Started { game } => Some(game.clock.clone()),
            _ => None,
        })
        .await;
    let first = started.turn_remaining_ms.expect("timed");
    assert!(first <= 300, "the turn ends with the turn limit: {first}");
    // Red does nothing: the CPU plays Red's move when the turn limit runs out, on Red's bank.
    let moved = next_moved(&mut table.players[1]).await;
    assert!(moved.automatic);
    let banks = moved.clock.banks_ms.expect("banks");
    // The turn limit's 300 ms and the CPU's thought, no more than its 50 ms and however long a
    // busy machine kept the room from acting on them.
    assert!(
        banks[0] <= 1_200 - 280 && banks[0] > 0,
        "Red's bank paid for the turn: {banks:?}"
    );
    assert_eq!(banks[2], 1_200, "{banks:?}");
}
