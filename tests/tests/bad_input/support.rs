//! What every table of bad input shares: a server, the room as the outside sees it, a row of a
//! table ([`Row`]: what is sent, and the error it must bring) and the loop that runs a table on
//! one connection ([`refuse_all`]).

use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorCode, RoomInfo, ServerMessage, SettingsPatch, Snapshot,
};
use fourkings_server::Config;
use fourkings_tests::{Client, TestServer};

/// A server for tests that send many requests quickly: the rate limit is high enough not to get
/// in the way (the flood test sets its own).
pub(crate) async fn test_server(adjust: impl FnOnce(&mut Config)) -> TestServer {
    TestServer::with(|config| {
        config.rate_per_second = 10_000;
        config.rate_burst = 10_000;
        adjust(config);
    })
    .await
}

/// A room in the lobby and one connection to it: the room's id, its host token, the connection.
pub(crate) async fn lobby(server: &TestServer) -> (String, String, Client) {
    let room = server.create_room(&SettingsPatch::default()).await;
    let (client, _) = server.connect(&room.id).await;
    (room.id, room.host_token, client)
}

/// The room as the outside sees it: `GET /api/rooms/<id>` and a fresh spectator's snapshot.
pub(crate) async fn room_state(server: &TestServer, room: &str) -> (RoomInfo, Snapshot) {
    let response = server.get(&format!("/api/rooms/{room}")).await;
    assert_eq!(response.status(), 200);
    let info: RoomInfo = response.json().await.unwrap();
    let (spectator, snapshot) = server.connect(room).await;
    spectator.close().await;
    assert_eq!(info.v, snapshot.v);
    // The server's clock moves on; the room is what is compared.
    (
        info,
        Snapshot {
            server_time: 0,
            ..snapshot
        },
    )
}

/// The very next message must be the answer to a `ping`: the connection still works, and nothing
/// (no event) was sent between the error and it.
pub(crate) async fn assert_alive(client: &mut Client) {
    if let Err(problem) = alive(client).await {
        panic!("{problem}");
    }
}

async fn alive(client: &mut Client) -> Result<(), String> {
    let req = send_ping(client).await?;
    match client.try_next().await {
        Ok(ServerMessage::Pong { req: r, .. }) if r == req => Ok(()),
        Ok(other) => Err(format!("expected the pong for {req}, got {other:?}")),
        Err(e) => Err(format!("expected the pong for {req}: {e:#}")),
    }
}

/// Sends a `ping` with a fresh request id and returns the id.
async fn send_ping(client: &mut Client) -> Result<u64, String> {
    let req = client.req();
    let ping = serde_json::to_string(&ClientRequest::new(req, ClientMessage::Ping))
        .expect("a ping serialises");
    client
        .try_send_text(&ping)
        .await
        .map_err(|e| format!("sending a ping: {e:#}"))?;
    Ok(req)
}

/// Reads up to the answer to a fresh `ping`, whatever comes first.
async fn skip_to_pong(client: &mut Client) -> Result<(), String> {
    let req = send_ping(client).await?;
    loop {
        match client.try_next().await {
            Ok(ServerMessage::Pong { req: r, .. }) if r == req => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(format!("{e:#}")),
        }
    }
}

/// What a row sends.
enum Input {
    /// Text as it is; the error must carry this `req` (`None` when none can be read from it).
    Text { text: String, req: Option<u64> },
    /// A well-formed message, sent with a fresh request id that the error must repeat.
    Message(Box<ClientMessage>),
    /// Text written with a fresh request id that the error must repeat.
    Written(Box<dyn FnOnce(u64) -> String>),
    /// A binary frame (the error carries no `req`).
    Binary(Vec<u8>),
}

/// Builds a message from a token (a seat's or the host's).
pub(crate) type WithToken = fn(String) -> ClientMessage;

/// One row of a table of bad input: what is sent, and the error code it must be answered with.
pub(crate) struct Row {
    /// Shown when the row fails.
    name: String,
    input: Input,
    code: ErrorCode,
}

impl Row {
    /// `text` sent as it is, answered with `code` and `req`; the text names the row.
    pub(crate) fn text(text: impl Into<String>, code: ErrorCode, req: Option<u64>) -> Row {
        let text = text.into();
        Row {
            name: format!("{text:.120}"),
            input: Input::Text { text, req },
            code,
        }
    }

    /// `message` sent with a fresh request id, answered with `code` and that id.
    pub(crate) fn message(name: impl Into<String>, code: ErrorCode, message: ClientMessage) -> Row {
        Row {
            name: name.into(),
            input: Input::Message(Box::new(message)),
            code,
        }
    }

    /// The text `build` writes with a fresh request id, answered with `code` and that id: for
    /// what a [`ClientMessage`] cannot hold, such as a seat out of range.
    pub(crate) fn written(
        name: impl Into<String>,
        code: ErrorCode,
        build: impl FnOnce(u64) -> String + 'static,
    ) -> Row {
        Row {
            name: name.into(),
            input: Input::Written(Box::new(build)),
            code,
        }
    }

    /// The message `build` makes from `token` (a seat's or the host's), sent with a fresh request
    /// id and answered with `code` and that id.
    pub(crate) fn with_token(
        name: impl Into<String>,
        code: ErrorCode,
        token: &str,
        build: WithToken,
    ) -> Row {
        Row::message(name, code, build(token.to_owned()))
    }

    /// A binary frame, answered with `code` and no `req`.
    pub(crate) fn binary(name: impl Into<String>, bytes: &[u8], code: ErrorCode) -> Row {
        Row {
            name: name.into(),
            input: Input::Binary(bytes.to_vec()),
            code,
        }
    }

    /// Sends the row on `client` and checks the answer: the very next message is the error.
    async fn refused(self, client: &mut Client) -> Result<(), String> {
        let (sent, req) = match self.input {
            Input::Text { text, req } => {
                client.send_text(&text).await;
                (text, req)
            }
            Input::Message(message) => {
                let req = client.req();
                let request = ClientRequest::new(req, *message);
                let text = serde_json::to_string(&request).expect("client messages serialise");
                client.send_text(&text).await;
                (text, Some(req))
            }
            Input::Written(build) => {
                let req = client.req();
                let text = build(req);
                client.send_text(&text).await;
                (text, Some(req))
            }
            Input::Binary(bytes) => {
                client.send_binary(&bytes).await;
                (format!("{} bytes in a binary frame", bytes.len()), None)
            }
        };
        match client.try_next().await {
            Ok(ServerMessage::Error {
                req: r,
                code: c,
                message,
            }) => {
                if (c, r) != (self.code, req) {
                    return Err(format!(
                        "expected {:?} for req {req:?}, got {c:?} for req {r:?} ({message}); sent {sent}",
                        self.code
                    ));
                }
                if message.is_empty() {
                    return Err("an error explains itself in words; this one is empty".into());
                }
                Ok(())
            }
            Ok(other) => Err(format!(
                "expected the error {:?}, got {other:?}; sent {sent}",
                self.code
            )),
            Err(e) => Err(format!(
                "expected the error {:?}: {e:#}; sent {sent}",
                self.code
            )),
        }
    }
}

/// Runs a table on `client`, a connection to `room`, row by row: each row's very next answer
/// must be its error, the connection must still answer a ping, and the room must be as it was
/// (its public state, a fresh spectator's snapshot and its version). Every row runs; the test
/// fails once at the end, naming each row that failed and why.
pub(crate) async fn refuse_all(
    server: &TestServer,
    room: &str,
    client: &mut Client,
    rows: impl IntoIterator<Item = Row>,
) {
    client.drain().await;
    let mut failures = Vec::new();
    let mut count = 0;
    for (i, row) in rows.into_iter().enumerate() {
        count += 1;
        let name = row.name.clone();
        let before = room_state(server, room).await;
        let outcome = match row.refused(client).await {
            Ok(()) => alive(client).await,
            Err(problem) => Err(problem),
        };
        let after = room_state(server, room).await;
        let outcome = outcome.and_then(|()| {
            if before == after {
                Ok(())
            } else {
                Err("the room changed".to_owned())
            }
        });
        if let Err(problem) = outcome {
            failures.push(format!("row {i} ({name}): {problem}"));
            // The next row starts from a clean slate: whatever the failure left unread is read.
            if skip_to_pong(client).await.is_err() {
                failures.push(format!("the connection no longer answers after row {i}"));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
