//! `fourkings migrate` copies a SQLite file into PostgreSQL and back with nothing lost: rooms in
//! every state (new, in the lobby, in play, finished, closed) are served from the copy as they
//! were served from the original, their games download the same, and a database that already
//! holds rooms is never overwritten.

use std::path::Path;
use std::process::Command;

use fourkings_protocol::{ClientMessage, Event, SettingsPatch};
use fourkings_server::{Config, Database};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{Table, TestServer, WAIT, eventually, fourkings_binary, seat};

/// `fourkings migrate --from <from> --to <to>`: whether it succeeded, and what it printed.
fn migrate(from: &str, to: &str) -> (bool, String) {
    let output = Command::new(fourkings_binary!())
        .args(["migrate", "--from", from, "--to", to])
        .output()
        .expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn on(database: Database) -> impl Fn(&mut Config) {
    move |c: &mut Config| {
        c.in_memory = false;
        c.database = database.clone();
        c.finished_room_seconds = 0.3;
    }
}

/// What clients see of each room and game, to compare before and after a copy.
async fn served(server: &TestServer, rooms: &[String], games: &[String]) -> Vec<(u16, String)> {
    let mut seen = Vec::new();
    let paths = rooms
        .iter()
        .flat_map(|id| [format!("/api/rooms/{id}"), format!("/api/rooms/{id}/game")])
        .chain(games.iter().map(|id| format!("/api/games/{id}.pgn4")));
    for path in paths {
        let response = server.get(&path).await;
        seen.push((response.status().as_u16(), response.text().await.unwrap()));
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_moves_to_postgres_and_back_with_rooms_in_every_state() {
    let dir = fourkings_tests::temp_dir("migrate");
    let file = dir.path().join("rooms.db");
    let server = TestServer::with(on(Database::File(file.clone()))).await;

    let fresh = server.create_room(&SettingsPatch::default()).await;
    let lobby = Table::seat_four(&server, &SettingsPatch::default(), false).await;
    let mut playing = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    playing
        .play_opening(&[(0, "h2h4"), (1, "b7c7"), (2, "g13g12")])
        .await;
    playing.players[1]
        .ok(ClientMessage::Chat {
            channel: fourkings_protocol::ChatChannel::Room,
            text: "gl".into(),
            seat: Some(seat(1)),
            token: Some(playing.tokens[1].clone()),
        })
        .await;
    let mut finished = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    finished.play_opening(&[(0, "h2h4"), (1, "b7c7")]).await;
    finished.resign(seat(2)).await;
    let game = finished.players[0]
        .event_where(|_, e| match e {
            Event::GameChanged { game, .. } if game.result.is_some() => Some(game.id.clone()),
            _ => None,
        })
        .await;
    // The finished room leaves memory (closed in storage); its game stays in the archive.
    finished.players[0].until_closed().await;
    let closed_path = format!("/api/rooms/{}", finished.room.id);
    let (server_ref, closed_path) = (&server, &closed_path);
    let gone = eventually(WAIT, || async move {
        server_ref.get(closed_path).await.status() == 404
    })
    .await;
    assert!(gone, "the finished room closed");

    let rooms: Vec<String> = [
        &fresh.id,
        &lobby.room.id,
        &playing.room.id,
        &finished.room.id,
    ]
    .into_iter()
    .cloned()
    .collect();
    let games = vec![game];
    server.server.stop().await;
    // What the original serves after a restart is what every copy must serve.
    let server = TestServer::with(on(Database::File(file.clone()))).await;
    let original = served(&server, &rooms, &games).await;
    server.server.stop().await;
    assert_eq!(original[0].0, 200, "{:?}", original[0]);
    assert_eq!(original[6].0, 404, "the closed room is not served");
    assert_eq!(original[8].0, 200, "its game is");

    let database = TestPostgres::start();
    let file_text = file.display().to_string();
    let (ok, said) = migrate(&file_text, &database.url());
    assert!(ok, "{said}");
    assert!(
        said.contains("copied 4 rooms (3 open)") && said.contains("1 finished games"),
        "{said}"
    );
    let server = TestServer::with(on(Database::Postgres(database.url()))).await;
    assert_eq!(
        served(&server, &rooms, &games).await,
        original,
        "on PostgreSQL"
    );
    server.server.stop().await;

    // A database that holds rooms is not overwritten, either way.
    let (ok, said) = migrate(&file_text, &database.url());
    assert!(
        !ok && said.contains("already holds rooms or games"),
        "{said}"
    );
    let (ok, said) = migrate(&database.url(), &file_text);
    assert!(
        !ok && said.contains("already holds rooms or games"),
        "{said}"
    );

    let back = dir.path().join("back.db");
    let (ok, said) = migrate(&database.url(), &back.display().to_string());
    assert!(ok, "{said}");
    let server = TestServer::with(on(Database::File(back))).await;
    assert_eq!(
        served(&server, &rooms, &games).await,
        original,
        "back in a file"
    );
    server.server.stop().await;

    let (ok, said) = migrate(
        &dir.path().join("none.db").display().to_string(),
        &file_text,
    );
    assert!(!ok && said.contains("is not a database file"), "{said}");
    assert!(!Path::new(&dir.path().join("none.db")).exists());
}
