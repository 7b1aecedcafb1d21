//! A panic in a CPU search, or in one room's task, never freezes a seat or takes down other rooms.
//! The CPU falls back to a legal move; the room is rebuilt from what it had stored, and set aside
//! if it keeps failing. Each panic is logged and counted.

use std::sync::Arc;

use fourkings_engine::{Game, Move, Seat};
use fourkings_protocol::{
    ClientMessage, ClientRequest, CpuLevel, Event, ServerMessage, SettingsPatch, close,
};
use fourkings_server::cpu::{CpuRequest, RandomMover, Strategy};
use fourkings_tests::{Client, Store, TestServer, WAIT, eventually, seat};

/// A CPU whose search always panics.
struct PanickingSearch;

impl Strategy for PanickingSearch {
    fn choose(&self, _: &CpuRequest) -> Move {
        panic!("a bug in the search");
    }
}

/// A CPU that plays random moves, and whose judgement of a draw offer (made on the room's own
/// task) panics.
struct PanickingJudge;

impl Strategy for PanickingJudge {
    fn choose(&self, request: &CpuRequest) -> Move {
        RandomMover.choose(request)
    }

    fn accepts_draw(&self, _: &Game, _: Seat, _: CpuLevel) -> bool {
        panic!("a bug in the draw judgement");
    }
}

/// The moves (coordinate form) of the next `count` `Moved` events `client` reads.
async fn moves_seen(client: &mut Client, count: usize) -> Vec<String> {
    let mut seen = Vec::new();
    while seen.len() < count {
        if let (_, Event::Moved(moved)) = client.event().await {
            seen.push(moved.mv.clone());
        }
    }
    seen
}

/// Reads events until a move leaves seat 0 to move: the ply it is to move at.
async fn until_seat_0_moves(client: &mut Client) -> u32 {
    client
        .event_where(|_, e| match e {
            Event::Moved(moved) if moved.to_move == Some(seat(0)) => Some(moved.ply),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn a_cpu_search_that_panics_is_replaced_by_a_legal_move_and_counted() {
    let server = TestServer::with_strategy(|_| {}, Arc::new(PanickingSearch)).await;
    // Every seat is the CPU's: every move of the game is a fallback.
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut watcher, _) = server.connect(&room.id).await;
    let host_token = room.host_token.clone();
    watcher.ok(ClientMessage::Start { host_token }).await;
    let moves = moves_seen(&mut watcher, 8).await;
    assert_eq!(moves.len(), 8, "the game goes on: {moves:?}");
    let counted = eventually(WAIT, || async {
        server.metric("fourkings_panics_total").await >= 8.0
    })
    .await;
    assert!(counted, "every panic is counted");
    // A panic is counted before its fallback's turn: as many panics as turns counted before.
    let turns = server.metric("fourkings_cpu_turns_total").await;
    let panics = server.metric("fourkings_panics_total").await;
    assert!(
        turns >= 8.0 && panics >= turns,
        "each CPU turn was a fallback: {turns} turns, {panics} panics"
    );
}

/// Sets up a room where seat 0 is a person and the others the CPU, on `server`, and starts it:
/// the person's client and seat token.
async fn person_against_cpus(server: &TestServer) -> (String, Client, String) {
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut person, _) = server.connect(&room.id).await;
    let token = person.take_seat(seat(0), "person").await;
    let host_token = room.host_token.clone();
    person.ok(ClientMessage::Start { host_token }).await;
    (room.id, person, token)
}

/// `person` offers a draw, which the CPUs judge on the room's task: it panics, and the
/// connection is closed for the client to reconnect. The messages read until the close.
async fn offer_draw_and_be_closed(person: &mut Client, token: &str) -> Option<u16> {
    let req = person.req();
    person
        .send(&ClientRequest::new(
            req,
            ClientMessage::OfferDraw {
                seat: seat(0),
                token: token.to_owned(),
            },
        ))
        .await;
    let (messages, code) = person.until_closed().await;
    assert!(
        !messages
            .iter()
            .any(|m| matches!(m, ServerMessage::Ack { req: r, .. } if *r == req)),
        "the offer that crashed the room was not acknowledged: {messages:?}"
    );
    code
}

async fn a_room_whose_task_panics_is_rebuilt_from_storage_and_set_aside_if_it_keeps_panicking(
    store: Store,
) {
    let server = TestServer::on_with_strategy(store, |_| {}, Arc::new(PanickingJudge)).await;
    let (room, mut person, token) = person_against_cpus(&server).await;
    // Another room, on the same server, that must not notice.
    let (other, mut bystander, other_token) = person_against_cpus(&server).await;

    person.play_move(seat(0), &token, 0, "h2h4").await;
    assert_eq!(until_seat_0_moves(&mut person).await, 4);
    let closed = offer_draw_and_be_closed(&mut person, &token).await;
    assert_eq!(closed, Some(close::ROOM_RESTARTING.0));
    assert_eq!(server.metric("fourkings_panics_total").await, 1.0);

    // The player comes back to the rebuilt room: the game is where it was, and goes on.
    let (mut person, snapshot) = server.connect(&room).await;
    let game = snapshot.game.expect("the game is still on");
    assert_eq!(game.moves.len(), 4, "{:?}", game.moves);
    person
        .ok(ClientMessage::Hello {
            seat_tokens: vec![token.clone()],
            host_token: None,
            since: None,
        })
        .await;
    let answer = person.play_move(seat(0), &token, 4, "h4h5").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    assert_eq!(
        until_seat_0_moves(&mut person).await,
        8,
        "the CPUs move again"
    );

    // The other room played on throughout.
    let answer = bystander.play_move(seat(0), &other_token, 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");

    // Rebuilt three times, the fourth panic sets the room aside.
    for rebuilt in 2..=4 {
        let (mut again, _) = server.connect(&room).await;
        again
            .ok(ClientMessage::Hello {
                seat_tokens: vec![token.clone()],
                host_token: None,
                since: None,
            })
            .await;
        assert_eq!(
            offer_draw_and_be_closed(&mut again, &token).await,
            Some(close::ROOM_RESTARTING.0),
            "panic {rebuilt}"
        );
    }
    let gone = eventually(WAIT, || async {
        server.get(&format!("/api/rooms/{room}")).await.status() == 404
    })
    .await;
    assert!(gone, "a room that keeps panicking is set aside");
    assert_eq!(server.metric("fourkings_panics_total").await, 4.0);
    assert_eq!(
        server.get(&format!("/api/rooms/{other}")).await.status(),
        200,
        "the other room is still served"
    );
}

fourkings_tests::on_every_store!(
    a_room_whose_task_panics_is_rebuilt_from_storage_and_set_aside_if_it_keeps_panicking
);
