//! With the binary and a real disk that fills up: a SQLite file on a small tmpfs, filled by the
//! test. The failure is logged once, `/readyz` says so, a request that needs a write is refused at
//! once, storage comes back by itself when there is room again, and a shutdown while it fails tells
//! every client 1012 and exits with a failure status, since the last records may be lost. Mounting
//! needs root (CI runs as root); elsewhere the storage doubles of `storage_failure.rs` show the
//! same behaviour, and this test says that it did not run.

use std::path::Path;
use std::time::Duration;

use fourkings_protocol::{ClientMessage, CreateRoomResponse, ErrorCode, close};
use fourkings_tests::disk::{SmallDisk, running_as_root};
use fourkings_tests::{Client, ServerProcess, WAIT, fourkings_binary, seat, temp_dir};

async fn readyz(base: &str) -> (u16, String) {
    let response = reqwest::get(format!("{base}/readyz")).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn metric(base: &str, name: &str) -> f64 {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|line| line.starts_with(name))
        .filter_map(|line| line.rsplit_once(' '))
        .map(|(_, value)| value.parse::<f64>().unwrap())
        .sum()
}

fn log_lines(path: &Path, words: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|line| line.contains(words))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_is_loud_bounded_recovered_from_and_a_shutdown_during_it_tells_the_truth() {
    if !running_as_root() {
        eprintln!(
            "not run: mounting a small tmpfs needs root (storage_failure.rs covers this with doubles)"
        );
        return;
    }
    let dir = temp_dir("disk-full");
    let disk = match SmallDisk::mount(dir.path(), 4) {
        Ok(disk) => disk,
        // Root without the right to mount (a container): the doubles cover it.
        Err(why) => {
            eprintln!("not run: a tmpfs cannot be mounted here ({why})");
            return;
        }
    };
    let database = disk.path().join("rooms.db");
    let log_path = dir.path().join("server.log");
    let mut server = ServerProcess::spawn_logging_to(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0", "--shutdown-seconds", "2"],
        &[("FOURKINGS_DATABASE", database.to_str().unwrap())],
        std::fs::File::create(&log_path).unwrap(),
    );
    let base = server.base.clone();
    let room: CreateRoomResponse = reqwest::Client::new()
        .post(format!("{base}/api/rooms"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ws = format!("{}/ws/{}", base.replace("http", "ws"), room.id);
    let mut client = Client::open(&ws).await.unwrap();
    client.snapshot().await;
    client.take_seat(seat(0), "Ann").await;

    // The disk fills up: the writer's next commit (its stamp comes every second) fails.
    disk.fill();
    let stopped = fourkings_tests::eventually(WAIT, || async {
        readyz(&base).await == (503, "storage stopped".to_owned())
    })
    .await;
    assert!(stopped, "readiness says storage stopped");
    let began = std::time::Instant::now();
    client
        .fails(
            ErrorCode::StorageUnavailable,
            ClientMessage::TakeSeat {
                seat: seat(1),
                name: "Bob".into(),
            },
        )
        .await;
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "refused within the bound"
    );
    let retried = fourkings_tests::eventually(WAIT, || async {
        metric(&base, "fourkings_storage_errors_total").await >= 3.0
    })
    .await;
    assert!(retried, "the commit is retried");
    assert_eq!(metric(&base, "fourkings_storage_failures_total").await, 1.0);
    assert_eq!(
        log_lines(&log_path, "storage failed"),
        1,
        "one error line a failure"
    );

    // Room again: storage comes back by itself, and takes writes.
    disk.make_room();
    let ready = fourkings_tests::eventually(WAIT, || async { readyz(&base).await.0 == 200 }).await;
    assert!(ready, "ready again without a restart");
    assert_eq!(log_lines(&log_path, "storage works again"), 1);
    client.take_seat(seat(1), "Bob").await;

    // Full again, and a shutdown: the client is told 1012, the exit status says records may be
    // lost.
    disk.fill();
    let stopped =
        fourkings_tests::eventually(WAIT, || async { readyz(&base).await.0 == 503 }).await;
    assert!(stopped, "storage stopped again");
    let closing = tokio::spawn(async move { client.until_closed().await.1 });
    let status = server.signal_and_wait("TERM");
    assert_eq!(closing.await.unwrap(), Some(close::SERVER_RESTARTING.0));
    assert!(
        !status.success(),
        "a shutdown that abandoned records fails: {status}"
    );
    assert_eq!(
        log_lines(&log_path, "storage did not store its last writes"),
        1
    );
    assert_eq!(log_lines(&log_path, "storage failed"), 2);
    drop(disk);
}
