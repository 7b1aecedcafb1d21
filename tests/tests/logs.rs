//! Logs. The real binary runs with JSON logs at the debug level (the most it says short of tracing)
//! while people create a room, sit, chat, play against CPUs, send a move with a wrong token, drop
//! and come back with their token; then it is stopped with SIGTERM. Every line must be JSON; every
//! line a room logs must carry the room's id, and those about a seat its seat; and no secret (a
//! seat token, the host token, even a wrong token someone sent) may appear in any line. The default
//! format is readable text, with the room in its lines too.

use fourkings_protocol::{
    ChatChannel, ClientMessage, CreateRoomResponse, SeatIndex, ServerMessage,
};
use fourkings_tests::{Client, ServerProcess, fourkings_binary, seat, temp_dir};
use serde_json::Value;

/// Moves each person plays (the CPUs answer each one).
const MOVES: u32 = 6;

async fn create_room(base: &str) -> CreateRoomResponse {
    reqwest::Client::new()
        .post(format!("{base}/api/rooms"))
        .body("{}")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn open(base: &str, room: &str) -> Client {
    let mut client = Client::open(&format!("{}/ws/{room}", base.replace("http://", "ws://")))
        .await
        .unwrap();
    client.snapshot().await;
    client
}

/// Plays one of the legal moves for `seat` when they arrive; false once the game is over.
async fn play_one(client: &mut Client, seat: SeatIndex, token: &str) -> bool {
    loop {
        match client.next().await {
            ServerMessage::LegalMoves { moves, .. } if moves.seat == seat => {
                let mv = moves.moves[moves.moves.len() / 2].clone();
                let answer = client.play_move(seat, token, moves.ply, &mv).await;
                return matches!(answer, ServerMessage::Ack { .. });
            }
            ServerMessage::Event {
                event: fourkings_protocol::Event::Moved(moved),
                ..
            } if moved.result.is_some() => return false,
            _ => {}
        }
    }
}

/// Whether `line` was logged inside the room's span, and the span's fields.
fn room_of(line: &Value) -> Option<&str> {
    line["spans"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == "room")
        .and_then(|s| s["room"].as_str())
}

#[tokio::test]
async fn json_logs_name_the_room_and_seat_and_never_a_secret() {
    let dir = temp_dir("logs");
    let log_path = dir.path().join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut server = ServerProcess::spawn_logging_to(
        fourkings_binary!(),
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--cpu-strategy",
            "random",
            "--log-format",
            "json",
            "--log",
            "debug",
        ],
        &[],
        log,
    );
    let base = server.base.clone();
    let room = create_room(&base).await;
    let mut secrets = vec![room.host_token.clone()];
    let mut ann = open(&base, &room.id).await;
    let mut cleo = open(&base, &room.id).await;
    let ann_token = ann.take_seat(seat(0), "Ann").await;
    let cleo_token = cleo.take_seat(seat(2), "Cleo").await;
    secrets.extend([ann_token.clone(), cleo_token.clone()]);
    ann.ok(ClientMessage::Chat {
        channel: ChatChannel::Team,
        text: "good luck".into(),
        seat: Some(seat(0)),
        token: Some(ann_token.clone()),
    })
    .await;
    // A wrong token is someone's guess at a secret: it is not logged either.
    let guess = "GuessedTokenAbcdefghij".to_owned();
    secrets.push(guess.clone());
    let answer = cleo
        .request(ClientMessage::Move {
            seat: seat(2),
            token: guess,
            ply: 0,
            mv: "h2h3".into(),
        })
        .await;
    assert!(matches!(answer, ServerMessage::Error { .. }), "{answer:?}");
    let host_token = room.host_token.clone();
    ann.ok(ClientMessage::Start { host_token }).await;
    for _ in 0..MOVES {
        if !play_one(&mut ann, seat(0), &ann_token).await
            || !play_one(&mut cleo, seat(2), &cleo_token).await
        {
            break;
        }
    }
    // Cleo drops and comes back with her token.
    cleo.close().await;
    let mut cleo = open(&base, &room.id).await;
    let token = cleo_token.clone();
    let host_token = Some(room.host_token.clone());
    cleo.ok(ClientMessage::Hello {
        seat_tokens: vec![token],
        host_token,
        since: None,
    })
    .await;
    let status = tokio::task::spawn_blocking(move || server.signal_and_wait("TERM"))
        .await
        .unwrap();
    assert!(status.success());

    let text = std::fs::read_to_string(&log_path).unwrap();
    for secret in &secrets {
        assert!(
            !text.contains(secret.as_str()),
            "a secret in the log:\n{text}"
        );
    }
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    let room_lines: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"].as_str().is_some_and(|t| t.contains("::room")))
        .collect();
    assert!(room_lines.len() > 2 * MOVES as usize, "{text}");
    for line in &room_lines {
        assert_eq!(room_of(line), Some(room.id.as_str()), "{line}");
    }
    // Lines about a seat name it: a move, a seat taken, a player back.
    let seat_of = |line: &Value| {
        line["seat"].as_u64().or_else(|| {
            line["spans"]
                .as_array()?
                .iter()
                .find_map(|s| s["seat"].as_u64())
        })
    };
    for (message, seat) in [("seat changed", 0), ("seat changed", 2), ("player back", 2)] {
        assert!(
            room_lines
                .iter()
                .any(|l| l["message"] == message && seat_of(l) == Some(seat)),
            "{message} for seat {seat} in\n{text}"
        );
    }
    let moves: Vec<&&Value> = room_lines
        .iter()
        .filter(|l| l["message"] == "game" && l["action"] == "move")
        .collect();
    assert!(moves.len() >= 2 * MOVES as usize, "{text}");
    assert!(moves.iter().all(|l| seat_of(l).is_some()), "{text}");
    // A refused request is logged in its request's span, with the seat it was for.
    assert!(
        lines.iter().any(|l| l["spans"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s["name"] == "request" && s["seat"] == 2))),
        "{text}"
    );
}

#[tokio::test]
async fn logs_are_readable_text_by_default() {
    let dir = temp_dir("logs");
    let log_path = dir.path().join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut server = ServerProcess::spawn_logging_to(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0"],
        &[],
        log,
    );
    let room = create_room(&server.base).await;
    let status = tokio::task::spawn_blocking(move || server.signal_and_wait("TERM"))
        .await
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log_path).unwrap();
    assert!(text.lines().count() >= 3, "{text}");
    assert!(text.lines().all(|l| !l.starts_with('{')), "{text}");
    let created = text
        .lines()
        .find(|l| l.contains("room created"))
        .unwrap_or_else(|| panic!("a room created line in\n{text}"));
    assert!(
        created.contains(&format!("room{{room={}}}", room.id)),
        "{created}"
    );
    assert!(!text.contains(&room.host_token), "{text}");
}
