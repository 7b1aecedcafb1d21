//! The `fourkings` binary — defaults, flags and environment, graceful shutdown.

use std::process::Command;

use fourkings_protocol::{CreateRoomResponse, ErrorBody, ErrorCode, ServerMessage};
use fourkings_tests::{ServerProcess, fourkings_binary};
use futures_util::StreamExt;

/// One option of `serve --help`: its flag, environment variable and default.
#[derive(Debug)]
struct Setting {
    flag: String,
    env: Option<String>,
    default: Option<String>,
}

/// The options `fourkings serve --help` lists.
fn settings() -> Vec<Setting> {
    let output = Command::new(fourkings_binary!())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let mut settings: Vec<Setting> = Vec::new();
    for line in help.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("--") {
            let flag = rest.split([' ', ',', '=']).next().unwrap_or("");
            settings.push(Setting {
                flag: format!("--{flag}"),
                env: None,
                default: None,
            });
        } else if let Some(setting) = settings.last_mut() {
            let inner = |prefix: &str| {
                line.strip_prefix(prefix)
                    .and_then(|r| r.strip_suffix(']'))
                    .map(|r| r.trim_end_matches('=').to_owned())
            };
            if let Some(env) = inner("[env: ") {
                setting.env = Some(env);
            } else if let Some(default) = inner("[default: ") {
                setting.default = Some(default);
            }
        }
    }
    settings.retain(|s| s.flag != "--help");
    settings
}

/// Every setting of `serve --help` has its environment variable, and the operator's guide
/// (`server/README.md`, "Settings and limits") lists each one with its flag and its default (in
/// the row of its variable).
#[test]
fn every_setting_has_a_variable_and_a_row_in_the_readme_with_its_default() {
    let settings = settings();
    assert!(settings.len() >= 25, "{settings:?}");
    let readme = include_str!("../../server/README.md");
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Settings"))
        .expect("a Settings section");
    for setting in &settings {
        let env = setting
            .env
            .as_deref()
            .unwrap_or_else(|| panic!("{} has no environment variable", setting.flag));
        assert!(env.starts_with("FOURKINGS_"), "{env}");
        let row = section
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&format!("`{env}`")))
            .unwrap_or_else(|| panic!("no server/README.md row for {env}"));
        assert!(
            row.contains(&format!("`{}`", setting.flag)),
            "{}: {row}",
            setting.flag
        );
        if let Some(default) = &setting.default {
            assert!(
                row.contains(default.as_str()),
                "{env}'s default {default}: {row}"
            );
        }
    }
    assert!(
        settings
            .iter()
            .any(|s| s.flag == "--addr" && s.default.as_deref() == Some("127.0.0.1:8080"))
    );
}

#[tokio::test]
async fn plain_fourkings_serves_and_takes_its_settings_from_the_environment() {
    let server = ServerProcess::spawn(
        fourkings_binary!(),
        &[],
        &[
            ("FOURKINGS_ADDR", "127.0.0.1:0"),
            ("FOURKINGS_MAX_ROOMS", "1"),
        ],
    );
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    let http = reqwest::Client::new();
    let health = http
        .get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let first = http
        .post(format!("{}/api/rooms", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 201);
    let second = http
        .post(format!("{}/api/rooms", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 503, "FOURKINGS_MAX_ROOMS=1 applies");
    assert_eq!(
        second.json::<ErrorBody>().await.unwrap().code,
        ErrorCode::TooManyRooms
    );
}

#[tokio::test]
async fn flags_set_the_limits() {
    let server = ServerProcess::spawn(
        fourkings_binary!(),
        &["serve", "--addr", "127.0.0.1:0", "--max-rooms", "1"],
        &[],
    );
    let http = reqwest::Client::new();
    assert_eq!(
        http.post(format!("{}/api/rooms", server.base))
            .send()
            .await
            .unwrap()
            .status(),
        201
    );
    assert_eq!(
        http.post(format!("{}/api/rooms", server.base))
            .send()
            .await
            .unwrap()
            .status(),
        503
    );
}

#[tokio::test]
async fn sigterm_and_sigint_shut_down_gracefully_and_tell_clients() {
    for signal in ["TERM", "INT"] {
        let mut server = ServerProcess::spawn(
            fourkings_binary!(),
            &["serve", "--addr", "127.0.0.1:0"],
            &[],
        );
        let http = reqwest::Client::new();
        let room: CreateRoomResponse = http
            .post(format!("{}/api/rooms", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let url = format!("{}/ws/{}", server.base.replace("http://", "ws://"), room.id);
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let first = socket.next().await.unwrap().unwrap();
        let message: ServerMessage = serde_json::from_str(first.to_text().unwrap()).unwrap();
        assert!(matches!(message, ServerMessage::Snapshot(_)));
        let stopped = tokio::task::spawn_blocking(move || server.signal_and_wait(signal));
        // The client is told the server is restarting (1012), so it reconnects with backoff.
        let mut code = None;
        while let Some(Ok(frame)) = socket.next().await {
            if let tokio_tungstenite::tungstenite::Message::Close(Some(frame)) = frame {
                code = Some(u16::from(frame.code));
            }
        }
        assert_eq!(code, Some(1012), "SIG{signal}");
        let status = stopped.await.unwrap();
        assert!(status.success(), "SIG{signal}: {status:?}");
    }
}

#[tokio::test]
async fn the_fourkings_client_binary_plays_a_whole_game() {
    let server = ServerProcess::spawn(
        fourkings_binary!(),
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--rate-per-second",
            "1000",
            "--rate-burst",
            "1000",
        ],
        &[],
    );
    let http = reqwest::Client::new();
    let room: CreateRoomResponse = http
        .post(format!("{}/api/rooms", server.base))
        .body(r#"{"preset":"ffa"}"#)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let link = format!("{}{}", server.base, room.link);
    let output = tokio::task::spawn_blocking(move || {
        Command::new(fourkings_binary!())
            .args([
                "client",
                &link,
                "--name",
                "term",
                "--host-token",
                &room.host_token,
                "--start",
            ])
            .args([
                "--seat",
                "0",
                "--seat",
                "1",
                "--seat",
                "2",
                "--seat",
                "3",
                "--move-delay-ms",
                "0",
                "--seed",
                "7",
            ])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("result: "), "{stdout}");
    assert!(
        stdout
            .lines()
            .filter(|l| l
                .trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit()))
            .count()
            > 4
    );
}
