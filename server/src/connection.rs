//! One WebSocket connection: a reader task that checks and parses frames and hands them to the
//! room, and a writer task that drains a bounded queue into the socket, writing a burst with
//! `feed` and one `flush`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use fourkings_protocol::close::TOO_SLOW;
use fourkings_protocol::{ClientMessage, ErrorCode, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::room::{Command, RoomHandle};

/// Identifies a connection within the server.
pub(crate) type ConnId = u64;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// The WebSocket close code for a policy violation (floods, oversized frames, too slow).
pub(crate) const POLICY_VIOLATION: u16 = 1008;

/// What the writer sends.
enum Outgoing {
    Text(Utf8Bytes),
    /// A heartbeat: the client's WebSocket answers with a pong.
    Ping,
    Close(u16, &'static str),
}

/// The sending side of a connection's queue, held by its room. Sending never waits: a connection
/// that cannot keep up is closed instead of slowing the room down.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: mpsc::Sender<Outgoing>,
    /// Cancelled when the queue was too full even for the close frame.
    overflow: CancellationToken,
}

impl Outbox {
    /// Queues a frame; `false` if the queue is full or gone.
    pub(crate) fn send(&self, frame: Utf8Bytes) -> bool {
        self.tx.try_send(Outgoing::Text(frame)).is_ok()
    }

    /// Queues a heartbeat ping (dropped if the queue is full: the connection is busy anyway).
    fn ping(&self) {
        let _ = self.tx.try_send(Outgoing::Ping);
    }

    /// Closes the connection with `code` after what is already queued.
    pub(crate) fn close(&self, code: u16, reason: &'static str) {
        if self.tx.try_send(Outgoing::Close(code, reason)).is_err() {
            self.overflow.cancel();
        }
    }
}

/// A token bucket: `rate` messages a second on average, `burst` at once.
struct RateLimit {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl RateLimit {
    fn new(rate: u32, burst: u32) -> RateLimit {
        RateLimit {
            tokens: f64::from(burst),
            rate: f64::from(rate),
            burst: f64::from(burst),
            last: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Runs a connection to `room` until either side closes it.
pub(crate) async fn run(socket: WebSocket, room: RoomHandle, config: Arc<Config>) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel(config.outbound_queue);
    let outbox = Outbox {
        tx,
        overflow: CancellationToken::new(),
    };
    let (sink, mut stream) = socket.split();
    let mut writer = tokio::spawn(write_loop(sink, rx, outbox.overflow.clone()));
    let connected = Command::Connect {
        conn,
        outbox: outbox.clone(),
    };
    let mut writer_done = false;
    if room.send(connected).await {
        // Whichever side ends first ends the connection: the client closing (the reader), or the
        // server closing it (the writer sent the close frame; no need to wait for the reply).
        tokio::select! {
            () = read_loop(&mut stream, &room, conn, &outbox, &config) => {}
            _ = &mut writer => writer_done = true,
        }
        room.send(Command::Disconnect { conn }).await;
    }
    if writer_done {
        // The server closed the connection. Read (and drop) what the client still sends for a
        // moment: closing a socket with unread input resets it, and the client might lose the
        // close frame, with its code, on the way.
        let linger = tokio::time::sleep(std::time::Duration::from_secs(1));
        tokio::pin!(linger);
        loop {
            tokio::select! {
                frame = stream.next() => if frame.is_none() { break },
                () = &mut linger => break,
            }
        }
    }
    drop(outbox);
    // A finished task's handle must not be awaited again: tokio panics ("polled after
    // completion").
    if !writer_done {
        let _ = writer.await;
    }
}

async fn read_loop(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    room: &RoomHandle,
    conn: ConnId,
    outbox: &Outbox,
    config: &Config,
) {
    let mut limit = RateLimit::new(config.rate_per_second, config.rate_burst);
    let fail = |req, code: ErrorCode, message: String| {
        outbox.send(encode(&ServerMessage::Error { req, code, message }));
    };
    // Heartbeats: a ping every interval; a connection silent for three intervals is dead.
    let heartbeat = config.heartbeat();
    let mut ticks = tokio::time::interval(heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_heard = tokio::time::Instant::now();
    loop {
        let frame = tokio::select! {
            frame = stream.next() => match frame {
                Some(frame) => frame,
                None => return,
            },
            _ = ticks.tick() => {
                if last_heard.elapsed() > heartbeat * 3 {
                    tracing::debug!(conn, "no heartbeat answer: dropping the connection");
                    let (code, reason) = fourkings_protocol::close::NO_HEARTBEAT;
                    outbox.close(code, reason);
                    return;
                }
                outbox.ping();
                continue;
            }
        };
        last_heard = tokio::time::Instant::now();
        let text = match frame {
            Ok(Message::Text(text)) => text,
            Ok(Message::Binary(_)) => {
                if !limit.allow() {
                    return flooded(outbox);
                }
                fail(
                    None,
                    ErrorCode::BadJson,
                    "frames are JSON text, not binary".into(),
                );
                continue;
            }
            Ok(Message::Close(_)) => return,
            // Control frames count toward the rate too: a flood of pings is still a flood.
            Ok(Message::Ping(_) | Message::Pong(_)) => {
                if !limit.allow() {
                    return flooded(outbox);
                }
                continue;
            }
            // A frame over the hard limit, or a broken frame: end the connection as a violation.
            Err(_) => {
                fail(
                    None,
                    ErrorCode::TooLarge,
                    "the frame was too large or malformed".into(),
                );
                outbox.close(POLICY_VIOLATION, "message too large or malformed");
                return;
            }
        };
        if !limit.allow() {
            return flooded(outbox);
        }
        if text.len() > config.max_message_bytes {
            fail(
                None,
                ErrorCode::TooLarge,
                format!("messages are at most {} bytes", config.max_message_bytes),
            );
            outbox.close(POLICY_VIOLATION, "message too large");
            return;
        }
        match parse(&text) {
            Ok(msg) => {
                let received = Instant::now();
                if !room
                    .send(Command::Message {
                        conn,
                        msg,
                        received,
                    })
                    .await
                {
                    return;
                }
            }
            Err((req, code, message)) => fail(req, code, message),
        }
    }
}

fn flooded(outbox: &Outbox) {
    outbox.send(encode(&ServerMessage::Error {
        req: None,
        code: ErrorCode::RateLimited,
        message: "too many messages".into(),
    }));
    outbox.close(POLICY_VIOLATION, "too many messages");
}

/// Parses a client message, or says what is wrong with it (with its `req` when it has one).
pub(crate) fn parse(text: &str) -> Result<ClientMessage, (Option<u64>, ErrorCode, String)> {
    if let Ok(msg) = serde_json::from_str::<ClientMessage>(text) {
        return Ok(msg);
    }
    // The fast path failed: find out why, to answer with the right code.
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| (None, ErrorCode::BadJson, e.to_string()))?;
    let Some(object) = value.as_object() else {
        return Err((
            None,
            ErrorCode::BadJson,
            "a message is a JSON object".into(),
        ));
    };
    let req = object.get("req").and_then(serde_json::Value::as_u64);
    let kind = object.get("type").and_then(serde_json::Value::as_str);
    match kind {
        None => Err((
            req,
            ErrorCode::UnknownType,
            "the message has no \"type\"".into(),
        )),
        Some(kind) if !ClientMessage::TYPES.contains(&kind) => Err((
            req,
            ErrorCode::UnknownType,
            format!("unknown message type {kind:?}"),
        )),
        Some(_) => match serde_json::from_value::<ClientMessage>(value) {
            Ok(msg) => Ok(msg),
            Err(e) => Err((req, ErrorCode::InvalidMessage, e.to_string())),
        },
    }
}

async fn write_loop(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Outgoing>,
    overflow: CancellationToken,
) {
    let close = |code, reason: &'static str| {
        Message::Close(Some(CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        }))
    };
    // Made once: a fresh `cancelled()` for every message registered and dropped a waiter
    // under the token's lock, 2% of the server's time under fan-out load.
    let overflowed = overflow.cancelled();
    tokio::pin!(overflowed);
    loop {
        let first = tokio::select! {
            biased;
            () = &mut overflowed => {
                let _ = sink.send(close(TOO_SLOW.0, TOO_SLOW.1)).await;
                return;
            }
            next = rx.recv() => next,
        };
        let mut next = first;
        // Write everything already queued, then flush once.
        loop {
            match next {
                None => {
                    let _ = sink.close().await;
                    return;
                }
                Some(Outgoing::Close(code, reason)) => {
                    let _ = sink.send(close(code, reason)).await;
                    return;
                }
                Some(Outgoing::Text(text)) => {
                    if sink.feed(Message::Text(text)).await.is_err() {
                        return;
                    }
                }
                Some(Outgoing::Ping) => {
                    if sink
                        .feed(Message::Ping(axum::body::Bytes::new()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
            match rx.try_recv() {
                Ok(more) => next = Some(more),
                Err(_) => break,
            }
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
}

fn encode(message: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(message).expect("server messages always serialise"))
}
