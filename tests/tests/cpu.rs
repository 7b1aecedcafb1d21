//! CPU seats through the `Strategy` interface, stale results dropped, rooms of CPUs playing to the
//! end on their own, and walking kings moved by the server. A thinking CPU cancelled when its
//! answer goes stale, budgets within the turn limit, and draw offers answered as the strategy
//! judges.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fourkings_engine::Move;
use fourkings_protocol::{
    ClientMessage, CpuLevel, Event, GameChange, GameResult, ServerMessage, SettingsPatch,
};
use fourkings_server::cpu::{CpuRequest, RandomMover, Strategy};
use fourkings_tests::{Table, TestServer, WAIT, eventually, seat};

/// Creates a room of CPU seats with `settings`, starts it and waits for its result.
async fn play_to_the_end(server: &TestServer, settings: &SettingsPatch) -> GameResult {
    let room = server.create_room(settings).await;
    let (mut host, _) = server.connect(&room.id).await;
    let host_token = room.host_token.clone();
    host.ok(ClientMessage::Start { host_token }).await;
    host.event_where(|_, e| match e {
        Event::Moved(m) => m.result.clone(),
        Event::GameChanged { game, .. } => game.result.clone(),
        _ => None,
    })
    .await
}

#[tokio::test]
async fn a_room_of_cpu_seats_plays_to_the_end_on_its_own() {
    let server = TestServer::start().await;
    for preset in ["teams", "ffa", "ffa-walking-kings", "duo"] {
        let settings = SettingsPatch {
            preset: Some(preset.into()),
            move_limit: Some(400),
            ..SettingsPatch::default()
        };
        let result = play_to_the_end(&server, &settings).await;
        assert!(!result.text.is_empty(), "{preset}: {result:?}");
    }
}

/// Reads `client`'s events until the CPU plays for `who` (its player's grace period is over).
async fn until_cpu_plays_for(
    client: &mut fourkings_tests::Client,
    who: fourkings_protocol::SeatIndex,
) {
    client
        .event_where(|_, e| {
            matches!(
                e,
                Event::Presence {
                    seat: s,
                    presence: fourkings_protocol::Presence::CpuPlaying,
                    ..
                } if *s == who
            )
            .then_some(())
        })
        .await;
}

/// A CPU that holds its answer until the test lets it go, and counts its moves.
struct Held {
    calls: AtomicUsize,
    /// The test lets the CPU answer by sending on the other end.
    release: Mutex<mpsc::Receiver<()>>,
}

impl Strategy for Held {
    fn choose(&self, request: &CpuRequest) -> Move {
        self.calls.fetch_add(1, Ordering::SeqCst);
        // Bounded, so that a test that fails before it lets go does not hold the thread forever.
        let _ = self.release.lock().unwrap().recv_timeout(WAIT);
        RandomMover.choose(request)
    }
}

#[tokio::test]
async fn a_cpu_result_for_a_position_that_has_moved_on_is_dropped() {
    let (release, released) = mpsc::channel();
    let held = Arc::new(Held {
        calls: AtomicUsize::new(0),
        release: Mutex::new(released),
    });
    let server = TestServer::with_strategy(|c| c.grace_seconds = 0.05, held.clone()).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // Red drops; after the grace period the CPU starts thinking for Red (and holds its answer).
    let red = table.players.remove(0);
    red.close().await;
    until_cpu_plays_for(&mut table.players[0], seat(0)).await;
    // Red comes back and moves before the CPU has answered.
    let (mut red, _) = server.connect(&table.room.id).await;
    let token = table.tokens[0].clone();
    red.ok(ClientMessage::Hello {
        seat_tokens: vec![token.clone()],
        host_token: None,
        since: None,
    })
    .await;
    let answer = red
        .request(ClientMessage::Move {
            seat: seat(0),
            token,
            ply: 0,
            mv: "h2h4".into(),
        })
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    // Now the CPU answers, for a position that is gone. Its move is counted as it is handed to
    // the room, in the same step (this test's runtime has one thread); a ping answered after
    // that went through the room after the CPU's move.
    release.send(()).expect("the CPU waits");
    let answered = eventually(WAIT, || async {
        server.metric("fourkings_cpu_turns_total").await == 1.0
    })
    .await;
    assert!(answered, "the CPU answered");
    red.drain().await;
    assert_eq!(
        held.calls.load(Ordering::SeqCst),
        1,
        "the CPU did think for Red"
    );
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(
        snapshot.game.unwrap().moves,
        vec!["h2-h4".to_owned()],
        "its stale move was dropped"
    );
}

#[tokio::test]
async fn walking_kings_are_moved_by_the_server_on_their_turns() {
    let server = TestServer::start().await;
    let settings = SettingsPatch::preset("ffa-walking-kings");
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Blue opens b7 for its king, then resigns: its king walks on by itself.
    table
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12"), (3, "m8l8")])
        .await;
    table.resign(seat(1)).await;
    assert!(matches!(
        table.play(seat(0), 4, "h4h5").await,
        ServerMessage::Ack { .. }
    ));
    let walk = table.players[2]
        .event_where(|_, e| match e {
            Event::Moved(m) if m.seat == seat(1) => Some(m.clone()),
            _ => None,
        })
        .await;
    // Moved by the server, a king's move like any other in the text (the PGN4 export marks the
    // first walk with Blue's `R`).
    assert!(walk.automatic);
    assert!(walk.text.starts_with('K'), "{}", walk.text);
    assert_eq!(walk.to_move, Some(seat(2)));
}

/// A CPU that thinks until the room cancels it, and says so.
struct UntilCancelled {
    started: tokio::sync::mpsc::UnboundedSender<&'static str>,
}

impl Strategy for UntilCancelled {
    fn choose(&self, request: &CpuRequest) -> Move {
        let _ = self.started.send("thinking");
        // Thinks (without end, but for the cancel flag or a generous budget).
        let until = std::time::Instant::now() + request.budget;
        while !request.cancel.load(Ordering::Relaxed) && std::time::Instant::now() < until {
            std::thread::park_timeout(Duration::from_millis(1));
        }
        let _ = self
            .started
            .send(if request.cancel.load(Ordering::Relaxed) {
                "cancelled"
            } else {
                "budget spent"
            });
        RandomMover.choose(request)
    }
}

#[tokio::test]
async fn a_cpu_still_thinking_for_a_player_who_came_back_is_cancelled() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let strategy = Arc::new(UntilCancelled { started: tx });
    let server = TestServer::with_strategy(
        |c| {
            c.grace_seconds = 0.05;
            c.cpu_think_seconds = 60.0;
        },
        strategy,
    )
    .await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    // Red drops; after the grace period the CPU starts thinking for Red.
    let red = table.players.remove(0);
    red.close().await;
    assert_eq!(rx.recv().await, Some("thinking"));
    // Red comes back: the CPU's answer is no longer wanted, and it stops at once.
    let (mut red, _) = server.connect(&table.room.id).await;
    let token = table.tokens[0].clone();
    red.ok(ClientMessage::Hello {
        seat_tokens: vec![token],
        host_token: None,
        since: None,
    })
    .await;
    let answer = tokio::time::timeout(WAIT, rx.recv()).await;
    assert_eq!(answer, Ok(Some("cancelled")));
}

/// A CPU that records the budgets it is given and plays random moves.
struct Recorder {
    budgets: std::sync::Mutex<Vec<Duration>>,
    targets: std::sync::Mutex<Vec<Option<Duration>>>,
}

impl Recorder {
    fn new() -> Arc<Recorder> {
        Arc::new(Recorder {
            budgets: std::sync::Mutex::new(Vec::new()),
            targets: std::sync::Mutex::new(Vec::new()),
        })
    }
}

impl Strategy for Recorder {
    fn choose(&self, request: &CpuRequest) -> Move {
        self.budgets.lock().unwrap().push(request.budget);
        self.targets.lock().unwrap().push(request.target);
        RandomMover.choose(request)
    }
}

#[tokio::test]
async fn a_cpu_seat_thinks_within_the_turn_limit_with_a_margin() {
    let recorder = Recorder::new();
    // Game seconds of 10 ms: a turn limit of 30 is 300 ms.
    let server = TestServer::with_strategy(|c| c.time_unit_ms = 10, recorder.clone()).await;
    let settings = SettingsPatch {
        turn_limit: Some(30),
        move_limit: Some(12),
        ..SettingsPatch::default()
    };
    let room = server.create_room(&settings).await;
    let (mut host, _) = server.connect(&room.id).await;
    let host_token = room.host_token.clone();
    host.ok(ClientMessage::Start { host_token }).await;
    host.event_where(|_, e| match e {
        Event::Moved(m) => m.result.clone(),
        _ => None,
    })
    .await;
    let budgets = recorder.budgets.lock().unwrap().clone();
    assert_eq!(budgets.len(), 12, "one request a ply");
    for budget in budgets {
        // At most the turn limit less its margin (250 ms, or a fifth of what is left).
        assert!(
            budget <= Duration::from_millis(50) && !budget.is_zero(),
            "{budget:?}"
        );
    }
}

/// A CPU that never agrees to a draw.
struct Refuser;

impl Strategy for Refuser {
    fn choose(&self, request: &CpuRequest) -> Move {
        RandomMover.choose(request)
    }

    fn accepts_draw(
        &self,
        _: &fourkings_engine::Game,
        _: fourkings_engine::Seat,
        _: CpuLevel,
    ) -> bool {
        false
    }
}

/// A room with a person on seat 0 and CPUs on the others; the person offers a draw and the
/// answer (`draw_agreed` or `draw_declined`) is returned.
async fn offer_draw_to_cpus(strategy: Arc<dyn Strategy>) -> GameChange {
    let server = TestServer::with_strategy(|_| {}, strategy).await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut person, _) = server.connect(&room.id).await;
    let token = person.take_seat(seat(0), "person").await;
    let host_token = room.host_token.clone();
    person.ok(ClientMessage::Start { host_token }).await;
    person
        .ok(ClientMessage::OfferDraw {
            seat: seat(0),
            token,
        })
        .await;
    person
        .event_where(|_, e| match e {
            Event::GameChanged { what, .. } if *what != GameChange::DrawOffered => Some(*what),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn cpu_seats_answer_draw_offers_as_their_strategy_judges() {
    assert_eq!(
        offer_draw_to_cpus(Arc::new(RandomMover)).await,
        GameChange::DrawAgreed
    );
    assert_eq!(
        offer_draw_to_cpus(Arc::new(Refuser)).await,
        GameChange::DrawDeclined
    );
}

/// A CPU that holds each answer until the test lets it go, and answers its first search with
/// the first of the moves it is offered and every later one with the last.
struct HeldInTurn {
    calls: AtomicUsize,
    release: Mutex<mpsc::Receiver<()>>,
    /// The moves it chose, in coordinate form, by call (the searches may finish in either
    /// order once released).
    chosen: Mutex<Vec<Option<String>>>,
}

impl Strategy for HeldInTurn {
    fn choose(&self, request: &CpuRequest) -> Move {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        let _ = self.release.lock().unwrap().recv_timeout(WAIT);
        let moves = request.root.moves();
        let mv = if call == 0 {
            moves[0]
        } else {
            moves[moves.len() - 1]
        };
        let mut chosen = self.chosen.lock().unwrap();
        if chosen.len() <= call {
            chosen.resize(call + 1, None);
        }
        chosen[call] = Some(mv.to_string().replace('-', ""));
        mv
    }
}

/// A server whose CPU is [`HeldInTurn`] (on two threads, so that two searches can wait at
/// once), with a short grace period: the server, the CPU, and the sender that lets it answer.
async fn held_in_turn_server() -> (TestServer, Arc<HeldInTurn>, mpsc::Sender<()>) {
    let (release, released) = mpsc::channel();
    let held = Arc::new(HeldInTurn {
        calls: AtomicUsize::new(0),
        release: Mutex::new(released),
        chosen: Mutex::new(Vec::new()),
    });
    let server = TestServer::with_strategy(
        |c| {
            c.grace_seconds = 0.05;
            c.cpu_threads = Some(2);
        },
        held.clone(),
    )
    .await;
    (server, held, release)
}

/// The moves both held searches chose, once both have answered (in whichever order their
/// threads ran).
async fn both_answers(held: &HeldInTurn) -> Vec<String> {
    let answered = eventually(WAIT, || async {
        held.chosen.lock().unwrap().iter().flatten().count() == 2
    })
    .await;
    assert!(answered, "both searches answered");
    held.chosen
        .lock()
        .unwrap()
        .iter()
        .flatten()
        .cloned()
        .collect()
}

/// A search from before a rematch answers after the new game's search has begun, for a position
/// that looks the same (the first ply of the same start): its move is not played, and it leaves the
/// new search waited for.
#[tokio::test]
async fn a_cpu_result_from_before_a_rematch_changes_nothing_in_the_new_game() {
    let (server, held, release) = held_in_turn_server().await;
    let settings = SettingsPatch {
        rotate_first_seat: Some(false),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Red drops; the CPU starts thinking for Red (and holds its answer).
    let red = table.players.remove(0);
    red.close().await;
    let thinking = eventually(WAIT, || async { held.calls.load(Ordering::SeqCst) == 1 }).await;
    assert!(thinking, "the CPU thinks for Red");
    // The game ends and a new one begins, Red to move first again, in the same position.
    let blue_token = table.tokens[1].clone();
    table.players[0]
        .ok(ClientMessage::Resign {
            seat: seat(1),
            token: blue_token,
        })
        .await;
    let host_token = table.room.host_token.clone();
    table.players[0]
        .ok(ClientMessage::Rematch { host_token })
        .await;
    let second = eventually(WAIT, || async { held.calls.load(Ordering::SeqCst) == 2 }).await;
    assert!(second, "the CPU thinks for Red in the new game");
    // The old search answers first, then the new one.
    release.send(()).expect("the first search waits");
    release.send(()).expect("the second search waits");
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(moved) => Some(moved.clone()),
            _ => None,
        })
        .await;
    let (_, snapshot) = server.connect(&table.room.id).await;
    let game = snapshot.game.expect("a game");
    assert_eq!(moved.ply, 1);
    assert_eq!(game.moves.len(), 1, "one move only: {:?}", game.moves);
    let chosen = both_answers(&held).await;
    assert_eq!(chosen.len(), 2);
    assert_ne!(chosen[0], chosen[1]);
    assert_eq!(
        moved.mv, chosen[1],
        "the new search's move is played, not the old one's"
    );
    assert_eq!(
        held.calls.load(Ordering::SeqCst),
        2,
        "no third search began"
    );
}

/// A search from before a takeback answers for a position that is gone: its move is not played, and
/// the search for the position after the takeback decides.
#[tokio::test]
async fn a_cpu_result_from_before_a_takeback_is_not_played() {
    let (server, held, release) = held_in_turn_server().await;
    let settings = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    // Blue drops; once the CPU plays for Blue, Red moves and the CPU thinks for Blue.
    let blue = table.players.remove(1);
    blue.close().await;
    until_cpu_plays_for(&mut table.players[0], seat(1)).await;
    let red_token = table.tokens[0].clone();
    let answer = table.players[0]
        .play_move(seat(0), &red_token, 0, "h2h4")
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let thinking = eventually(WAIT, || async { held.calls.load(Ordering::SeqCst) == 1 }).await;
    assert!(thinking, "the CPU thinks for Blue");
    // Yellow takes Red's move back with a lifeline, and Red plays another.
    let yellow_token = table.tokens[2].clone();
    table.players[1]
        .ok(ClientMessage::TakeBack {
            seat: seat(2),
            token: yellow_token,
        })
        .await;
    let answer = table.players[0]
        .play_move(seat(0), &red_token, 0, "h2h3")
        .await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    // The old search answers, for the position before the takeback; then the new one.
    release.send(()).expect("the first search waits");
    let second = eventually(WAIT, || async { held.calls.load(Ordering::SeqCst) == 2 }).await;
    assert!(second, "a search of the new position begins");
    release.send(()).expect("the second search waits");
    let moved = table.players[0]
        .event_where(|_, e| match e {
            Event::Moved(moved) if moved.seat == seat(1) => Some(moved.clone()),
            _ => None,
        })
        .await;
    let chosen = both_answers(&held).await;
    assert_eq!(
        moved.mv, chosen[1],
        "the new search's move, not the stale {}",
        chosen[0]
    );
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(
        snapshot.game.unwrap().moves.len(),
        2,
        "Red's move and Blue's, once"
    );
}

/// After a person's move that their team could take back with a lifeline, a CPU that moves next
/// waits a moment (`cpu_takeback_wait_seconds`) before playing, so that the takeback arrives first;
/// without a lifeline it plays at once.
#[tokio::test]
async fn a_cpu_waits_for_a_takeback_while_the_movers_team_has_a_lifeline() {
    let wait = 0.6;
    let server = TestServer::with(|c| c.cpu_takeback_wait_seconds = wait).await;
    for lifelines in [true, false] {
        let settings = SettingsPatch {
            lifelines: Some(lifelines),
            ..SettingsPatch::default()
        };
        let room = server.create_room(&settings).await;
        let (mut red, _) = server.connect(&room.id).await;
        let token = red.take_seat(seat(0), "Ann").await;
        red.ok(ClientMessage::Start {
            host_token: room.host_token.clone(),
        })
        .await;
        let moved_at = std::time::Instant::now();
        let answer = red.play_move(seat(0), &token, 0, "h2h4").await;
        assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
        if lifelines {
            // Blue (a CPU) has not played: Red takes the move back.
            red.ok(ClientMessage::TakeBack {
                seat: seat(0),
                token: token.clone(),
            })
            .await;
            // Played again, and this time left: the CPU answers after its wait.
            let answer = red.play_move(seat(0), &token, 0, "h2h3").await;
            assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
        }
        let again = std::time::Instant::now();
        let blue = red
            .event_where(|_, e| match e {
                Event::Moved(m) if m.seat == seat(1) => Some(m.ply),
                _ => None,
            })
            .await;
        assert_eq!(blue, 2);
        let waited = again.elapsed().as_secs_f64();
        if lifelines {
            assert!(waited >= wait * 0.9, "the CPU waited {waited} s");
        } else {
            assert!(
                moved_at.elapsed().as_secs_f64() < wait,
                "without a lifeline the CPU plays at once, not after {waited} s"
            );
        }
    }
}

/// With a game clock a CPU thinks within its own bank: it aims at what is left of the turn's
/// delay (free) and a thirtieth of the bank past its last second, may think up to three times
/// that past the delay, and never spends the bank's last second; with less than a second, a
/// tenth of what is left.
#[tokio::test]
async fn a_cpu_seat_thinks_within_its_bank() {
    let ms = Duration::from_millis;
    // (game second in ms, delay in game seconds, the budget's range, the target's range; each
    // range allows for what the request waited for a thread)
    let cases = [
        // A one-minute bank of 100 ms seconds (6 s): a thirtieth of the 5 s past the last
        // second is 167 ms, three times that 500 ms.
        (100, 0, (ms(450), ms(500)), (ms(120), ms(167))),
        // The same with a 5-second delay (500 ms), spent before the bank: free.
        (100, 5, (ms(950), ms(1_000)), (ms(620), ms(667))),
        // A one-minute bank of 10 ms seconds (600 ms) is under the second a CPU keeps: a tenth
        // of it, 60 ms.
        (10, 0, (ms(40), ms(60)), (ms(40), ms(60))),
    ];
    for (unit, delay, budget_range, target_range) in cases {
        let recorder = Recorder::new();
        let server = TestServer::with_strategy(|c| c.time_unit_ms = unit, recorder.clone()).await;
        let settings = SettingsPatch {
            game_clock: Some(Some(fourkings_protocol::GameClock {
                minutes: 1,
                increment: 0,
                delay,
            })),
            move_limit: Some(8),
            ..SettingsPatch::default()
        };
        let result = play_to_the_end(&server, &settings).await;
        assert_eq!(result.reason, "move_limit", "nobody lost on time");
        let budgets = recorder.budgets.lock().unwrap().clone();
        let targets = recorder.targets.lock().unwrap().clone();
        assert_eq!(budgets.len(), 8, "one request a ply");
        for (budget, target) in budgets.into_iter().zip(targets) {
            let target = target.expect("a clock gives a target");
            assert!(
                (budget_range.0..=budget_range.1).contains(&budget)
                    && (target_range.0..=target_range.1).contains(&target),
                "{unit} ms seconds, delay {delay}: budget {budget:?}, target {target:?}"
            );
        }
    }
}
