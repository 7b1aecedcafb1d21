//! What ends a connection: a text frame over the size limit (up to the socket's hard cap and far
//! beyond it) and a flood of requests. Each is answered with its error and its close code (1009 for a frame too large, 1008 for a flood)
//! (policy violation); the room, its other connections and the server go on as before.

use fourkings_protocol::{ErrorCode, ServerMessage};
use fourkings_tests::{Client, TestServer};

use fourkings_protocol::close;

use crate::support::{assert_alive, lobby, room_state, test_server};

/// A ping padded with an unknown field to exactly `len` bytes.
fn padded_ping(req: u64, len: usize) -> String {
    let head = format!(r#"{{"type":"ping","req":{req},"pad":""#);
    let pad = len - head.len() - 2;
    let text = format!("{head}{}\"}}", "x".repeat(pad));
    assert_eq!(text.len(), len);
    text
}

/// One row of a table of frames: a name, the frame, and whether it fits (else it closes the
/// connection that sends it).
struct Frame {
    name: &'static str,
    text: String,
    fits: bool,
}

/// Sends each frame of the table on a fresh connection to `room`: one that fits is answered (its
/// ping's pong), one that does not gets the error `too_large` alone and then the close code
/// 1009. Then the room is as it was, and a connection that was there all along still works.
/// Every row runs; the test fails once at the end, naming each row that failed.
async fn send_frames(server: &TestServer, room: &str, frames: Vec<Frame>) {
    let (mut bystander, _) = server.connect(room).await;
    let before = room_state(server, room).await;
    let mut failures = Vec::new();
    for (i, frame) in frames.into_iter().enumerate() {
        let (mut client, _) = server.connect(room).await;
        let outcome = if frame.fits {
            fits(&mut client, &frame.text).await
        } else {
            closes(&mut client, &frame.text).await
        };
        if let Err(problem) = outcome {
            failures.push(format!("row {i} ({}): {problem}", frame.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_alive(&mut bystander).await;
    assert_eq!(before, room_state(server, room).await);
}

async fn fits(client: &mut Client, text: &str) -> Result<(), String> {
    client.send_text(text).await;
    match client.try_next().await {
        Ok(ServerMessage::Pong { .. }) => Ok(()),
        other => Err(format!("expected a pong, got {other:?}")),
    }
}

async fn closes(client: &mut Client, text: &str) -> Result<(), String> {
    // Sending may fail part way (the server closes without reading the rest), but the error and
    // the close frame arrive.
    let _ = client.try_send_text(text).await;
    let (messages, code) = client.until_closed().await;
    let too_large = matches!(
        messages.as_slice(),
        [ServerMessage::Error {
            req: None,
            code: ErrorCode::TooLarge,
            ..
        }]
    );
    let expected = close::TOO_LARGE.0;
    if code != Some(expected) || !too_large {
        return Err(format!(
            "expected too_large and the close code {expected}, got {messages:?} and {code:?}"
        ));
    }
    Ok(())
}

#[tokio::test]
async fn a_text_frame_over_the_limit_closes_the_connection_and_one_at_the_limit_is_fine() {
    let server = test_server(|c| c.max_message_bytes = 256).await;
    let (room, _, _) = lobby(&server).await;
    // Multi-byte characters count as bytes: 86 three-byte characters are 258 bytes.
    let euros = format!(r#"{{"type":"ping","req":3,"pad":"{}"}}"#, "€".repeat(86));
    assert!(euros.chars().count() < 256 && euros.len() > 256);
    let frames = vec![
        Frame {
            name: "256 bytes, the limit",
            text: padded_ping(1, 256),
            fits: true,
        },
        Frame {
            name: "257 bytes",
            text: padded_ping(2, 257),
            fits: false,
        },
        Frame {
            name: "fewer than 256 characters, 258 bytes",
            text: euros,
            fits: false,
        },
    ];
    send_frames(&server, &room, frames).await;
}

#[tokio::test]
async fn a_frame_far_beyond_the_hard_cap_closes_cleanly_and_the_server_goes_on() {
    let server = test_server(|c| c.max_message_bytes = 256).await;
    let (room, _, _) = lobby(&server).await;
    // The socket itself refuses frames above 4 × 256 bytes before reading them.
    let frames = vec![
        Frame {
            name: "a megabyte",
            text: padded_ping(1, 1024 * 1024),
            fits: false,
        },
        Frame {
            name: "just above the hard cap",
            text: padded_ping(2, 4 * 256 + 1),
            fits: false,
        },
    ];
    send_frames(&server, &room, frames).await;
    // New rooms and connections are served as before.
    let (_, _, mut fresh) = lobby(&server).await;
    assert_alive(&mut fresh).await;
}

#[tokio::test]
async fn a_flood_closes_the_connection_and_spares_the_others() {
    let server = TestServer::with(|c| {
        c.rate_per_second = 1;
        c.rate_burst = 5;
    })
    .await;
    let (room, _, mut flooder) = lobby(&server).await;
    let (mut bystander, _) = server.connect(&room).await;
    let before = room_state(&server, &room).await;
    let mut sent = 0;
    for req in 1..=50 {
        if flooder
            .try_send_text(&format!(r#"{{"type":"ping","req":{req}}}"#))
            .await
            .is_err()
        {
            break;
        }
        sent += 1;
    }
    let (messages, code) = flooder.until_closed().await;
    assert_eq!(code, Some(close::TOO_MANY.0), "{messages:?}");
    let pongs = messages
        .iter()
        .filter(|m| matches!(m, ServerMessage::Pong { .. }))
        .count();
    // The burst, plus at most one token refilled while sending.
    assert!((1..=6).contains(&pongs), "{pongs} pongs of {sent} pings");
    let errors: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Error { code, req, .. } => Some((*code, *req)),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [(ErrorCode::RateLimited, None)], "{messages:?}");

    assert_alive(&mut bystander).await;
    assert_eq!(before, room_state(&server, &room).await);
    // The flooder may come back, with a fresh allowance.
    let (mut again, _) = server.connect(&room).await;
    assert_alive(&mut again).await;
}
