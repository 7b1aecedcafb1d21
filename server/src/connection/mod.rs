//! One WebSocket connection: a reader task that checks and parses frames and hands them to the
//! room, and its sending side ([`wire`]): a bounded queue that the room writes into the socket
//! itself, with a writer task for what the socket cannot take at once, the heartbeat and the
//! close.
//!
//! The socket is axum's `WebSocket`, from its `WebSocketUpgrade` (`crate::app`): a handshake of
//! our own paid too little to keep (tests/perf/README.md, "axum's `WebSocketUpgrade`").

mod wire;

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorCode, NotASeat, SeatIndex, ServerMessage, close,
};
use futures_util::StreamExt;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Error as WsError;

use crate::config::Config;
use crate::room::frames::encode;
use crate::room::{Command, RoomHandle};
use wire::{Heard, Heartbeat};
pub(crate) use wire::{Outbox, Queued};

/// Identifies a connection within the server.
pub(crate) type ConnId = u64;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// A connection's allowance of messages: `rate` a second on average, `burst` at once (at least
/// one); a rate of 0 sets no limit.
struct MessageRate(Option<DefaultDirectRateLimiter>);

impl MessageRate {
    fn new(rate: u32, burst: u32) -> MessageRate {
        MessageRate(NonZeroU32::new(rate).map(|rate| {
            let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
            RateLimiter::direct(Quota::per_second(rate).allow_burst(burst))
        }))
    }

    /// Whether one more message is within the rate (and counts it).
    fn allow(&self) -> bool {
        self.0.as_ref().is_none_or(|limit| limit.check().is_ok())
    }
}

/// Runs a connection to `room` until either side closes it; `span` names the room in the
/// connection's log lines.
pub(crate) async fn run(
    socket: WebSocket,
    room: RoomHandle,
    config: Arc<Config>,
    span: tracing::Span,
) {
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let (sink, mut stream) = socket.split();
    let heard = Arc::new(Heard::new());
    let heartbeat = Heartbeat {
        every: config.heartbeat(),
        heard: heard.clone(),
        span: span.clone(),
        conn,
    };
    let (outbox, writer) = Outbox::new(
        sink,
        config.outbound_queue,
        config.write_timeout(),
        heartbeat,
    );
    let mut writer = tokio::spawn(writer);
    let connected = Command::Connect {
        conn,
        outbox: outbox.clone(),
    };
    let mut writer_done = false;
    if room.send(connected).await {
        // Whichever side ends first ends the connection: the client closing (the reader), or the
        // server closing it (the writer sent the close frame; no need to wait for the reply).
        tokio::select! {
            end = read_loop(&mut stream, &room, conn, &outbox, &config, &heard) => {
                if end == ReadEnd::Flooded {
                    // The room answers what came within the limit, then says `rate_limited` and
                    // closes, in that order: it holds the answers (some wait to be durable).
                    if !room.send(Command::Flooded { conn }).await {
                        flooded(&outbox);
                    }
                    writer_done = drain_until_closed(&mut stream, &mut writer, config.write_timeout()).await;
                }
            }
            _ = &mut writer => writer_done = true,
        }
        room.send(Command::Disconnect { conn }).await;
    } else {
        // The room is gone (it closed, or its task failed and it is being rebuilt).
        let (code, reason) = close::ROOM_RESTARTING;
        outbox.close(code, reason);
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

/// Reads and drops what the client sends until the writer has sent the close frame (or `limit`
/// has passed): a socket closed with unread input is reset, and a reset can overtake the close
/// frame. Whether the writer finished.
async fn drain_until_closed(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    writer: &mut tokio::task::JoinHandle<()>,
    limit: std::time::Duration,
) -> bool {
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut *writer => return true,
            frame = stream.next() => if frame.is_none() { return false },
            () = &mut deadline => return false,
        }
    }
}

/// Why the reader stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadEnd {
    /// The client closed, the socket failed or the room ended: nothing more to do.
    Over,
    /// The client sent more than the rate allows: the room is to answer and close.
    Flooded,
}

async fn read_loop(
    stream: &mut futures_util::stream::SplitStream<WebSocket>,
    room: &RoomHandle,
    conn: ConnId,
    outbox: &Outbox,
    config: &Config,
    heard: &Heard,
) -> ReadEnd {
    let limit = MessageRate::new(config.rate_per_second, config.rate_burst);
    let fail = |req, code: ErrorCode, message: String| {
        outbox.send(encode(&ServerMessage::Error { req, code, message }));
    };
    while let Some(frame) = stream.next().await {
        // One reading of the clock serves the heartbeat and the round trip.
        let now = Instant::now();
        heard.heard(now);
        let text = match frame_text(frame, &limit, outbox) {
            Frame::Text(text) => text,
            Frame::Skip => continue,
            Frame::End(end) => return end,
        };
        if !limit.allow() {
            return ReadEnd::Flooded;
        }
        if text.len() > config.max_message_bytes {
            fail(
                None,
                ErrorCode::TooLarge,
                format!("messages are at most {} bytes", config.max_message_bytes),
            );
            outbox.close(close::TOO_LARGE.0, close::TOO_LARGE.1);
            return ReadEnd::Over;
        }
        match parse(&text) {
            Ok(request) => {
                let received = now.into_std();
                if !room
                    .send(Command::Message {
                        conn,
                        request,
                        received,
                    })
                    .await
                {
                    return ReadEnd::Over;
                }
            }
            Err((req, code, message)) => fail(req, code, message),
        }
    }
    ReadEnd::Over
}

/// What the reader does with one frame.
enum Frame {
    /// A text frame, to check and parse.
    Text(Utf8Bytes),
    /// A frame with nothing to act on (a ping, or binary, which is answered with an error).
    Skip,
    /// The connection ends.
    End(ReadEnd),
}

/// Sorts one frame: text goes on to be parsed, control frames count toward the rate, and a
/// broken frame ends the connection with the close that says which.
fn frame_text(frame: Result<Message, axum::Error>, limit: &MessageRate, outbox: &Outbox) -> Frame {
    let fail = |code: ErrorCode, message: &str| {
        let message = message.to_owned();
        outbox.send(encode(&ServerMessage::Error {
            req: None,
            code,
            message,
        }));
    };
    match frame {
        Ok(Message::Text(text)) => Frame::Text(text),
        Ok(Message::Binary(_)) => {
            if !limit.allow() {
                return Frame::End(ReadEnd::Flooded);
            }
            fail(ErrorCode::BadJson, "frames are JSON text, not binary");
            Frame::Skip
        }
        Ok(Message::Close(_)) => Frame::End(ReadEnd::Over),
        // Control frames count toward the rate too: a flood of pings is still a flood.
        Ok(Message::Ping(_) | Message::Pong(_)) => {
            if limit.allow() {
                Frame::Skip
            } else {
                Frame::End(ReadEnd::Flooded)
            }
        }
        // A frame over the hard limit, not UTF-8, or broken.
        Err(error) => {
            let cause = error.into_inner().downcast::<WsError>().ok().map(|e| *e);
            let (code, message, close) = match cause {
                Some(WsError::Capacity(_)) => (
                    ErrorCode::TooLarge,
                    "the frame was too large",
                    close::TOO_LARGE,
                ),
                Some(WsError::Utf8(_)) => (
                    ErrorCode::NotUtf8,
                    "the frame was not UTF-8",
                    close::NOT_UTF8,
                ),
                _ => (
                    ErrorCode::BadFrame,
                    "the frame was malformed",
                    close::MALFORMED,
                ),
            };
            fail(code, message);
            outbox.close(close.0, close.1);
            Frame::End(ReadEnd::Over)
        }
    }
}

/// The error a flooding client gets before its connection is closed with [`close::TOO_MANY`].
pub(crate) fn rate_limited() -> Utf8Bytes {
    encode(&ServerMessage::Error {
        req: None,
        code: ErrorCode::RateLimited,
        message: "too many messages".into(),
    })
}

/// Says `rate_limited` and closes, when the room is not there to do it after its answers.
fn flooded(outbox: &Outbox) {
    outbox.send(rate_limited());
    outbox.close(close::TOO_MANY.0, close::TOO_MANY.1);
}

/// Parses a client request, or says what is wrong with it (with its `req` when it has one).
pub(crate) fn parse(text: &str) -> Result<ClientRequest, (Option<u64>, ErrorCode, String)> {
    if let Some(request) = parse_move(text) {
        return Ok(request);
    }
    if let Ok(request) = serde_json::from_str::<ClientRequest>(text) {
        return Ok(request);
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
        Some(kind) if !ClientMessage::kinds().contains(&kind) => Err((
            req,
            ErrorCode::UnknownType,
            format!("unknown message type {kind:?}"),
        )),
        Some(_) => match ClientRequest::deserialize(&value) {
            Ok(request) => Ok(request),
            Err(e) => match seat_out_of_range(value) {
                Some((field, not_a_seat)) => {
                    Err((req, ErrorCode::BadSeat, format!("{field:?}: {not_a_seat}")))
                }
                None => Err((req, ErrorCode::InvalidMessage, e.to_string())),
            },
        },
    }
}

/// The fields of a client message that hold a seat index.
const SEAT_FIELDS: [&str; 3] = ["seat", "from", "to"];

/// The seat field and its number, if `message` (which did not read as a client message) would
/// read but for a seat field that holds a number from 4 to 255. Such a message is answered
/// `bad_seat`, which tells a client more than `invalid_message`. A seat is read as a byte, so
/// anything else in a seat field (larger, negative, fractional, not a number) is not a seat index
/// at all and stays `invalid_message`.
fn seat_out_of_range(mut message: serde_json::Value) -> Option<(&'static str, NotASeat)> {
    let object = message.as_object_mut()?;
    let mut refused = None;
    for field in SEAT_FIELDS {
        let Some(value) = object.get_mut(field) else {
            continue;
        };
        let Some(number) = value.as_u64().and_then(|n| u8::try_from(n).ok()) else {
            continue;
        };
        if let Err(not_a_seat) = SeatIndex::try_from(number) {
            refused.get_or_insert((field, not_a_seat));
            // With a real seat in its place, does the rest of the message read?
            *value = SeatIndex::ALL[0].get().into();
        }
    }
    let refused = refused?;
    ClientRequest::deserialize(&message)
        .is_ok()
        .then_some(refused)
}

/// The fields of a `move`, read straight from the text.
#[derive(serde::Deserialize)]
struct MoveFields<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    req: u64,
    seat: SeatIndex,
    token: String,
    ply: u32,
    #[serde(rename = "move")]
    mv: String,
}

/// A `move` message, parsed without the general path: most messages are moves, and reading
/// `ClientRequest` (tagged by a field that may come anywhere) first copies the whole message
/// into a tree (tests/perf/README.md, "What the hot path does"). Anything that is not a
/// well-formed move is left to the general path, which gives the same result for moves (a test
/// checks it).
fn parse_move(text: &str) -> Option<ClientRequest> {
    let fields = serde_json::from_str::<MoveFields<'_>>(text).ok()?;
    let message = ClientMessage::Move {
        seat: fields.seat,
        token: fields.token,
        ply: fields.ply,
        mv: fields.mv,
    };
    (fields.kind == "move").then_some(ClientRequest::new(fields.req, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path for moves agrees with the general parser: it accepts only what the general
    /// parser reads as a move, reads it the same, and leaves nothing the general parser reads as
    /// a move to it.
    #[test]
    fn moves_parse_the_same_on_the_fast_path() {
        let cases = [
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"move":"h2h4","ply":3,"token":"abc","seat":2,"req":9,"type":"move"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"a\"b\\u00e9","ply":0,"move":"H2H4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4","extra":[1,{}]}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0}"#,
            r#"{"type":"move","req":1,"seat":300,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":-1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":7,"ply":0,"move":"h2h4"}"#,
            r#"{"type":"resign","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"Move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"mo\u0076e","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"req":2,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"ping","req":4}"#,
            r#"[1,2]"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"} x"#,
            "",
            r#"{"type":"move","req":01,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":1.0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":1e2,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":4294967296,"move":"h2h4"}"#,
            r#"{"type":"move","req":18446744073709551615,"seat":3,"token":"","ply":4294967295,"move":""}"#,
            r#"{"type":"move","req":18446744073709551616,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":256,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":4,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":255,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"ab\u0063","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"é—ü","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}}"#,
            r#"{"type":"move", "req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4"}"#,
            r#"{"type":"move","req":1,"seat":0,"token":"abc","ply":0,"move":"h2h4" }"#,
            "{\"type\":\"move\",\"req\":1,\"seat\":0,\"token\":\"a\tb\",\"ply\":0,\"move\":\"h2h4\"}",
        ];
        for text in cases {
            let general = serde_json::from_str::<ClientRequest>(text).ok();
            let fast = parse_move(text);
            if fast.is_some() {
                assert_eq!(fast, general, "{text}");
            }
            if matches!(
                general.as_ref().map(|r| &r.message),
                Some(ClientMessage::Move { .. })
            ) {
                assert!(fast.is_some(), "{text}");
            }
            // Whatever the general parser reads, `parse` reads the same.
            if let Some(general) = general {
                assert_eq!(parse(text).ok(), Some(general), "{text}");
            }
        }
    }

    /// A seat field holding a number from 4 to 255 is `bad_seat` (in any message, on the fast
    /// path's messages too); other numbers and types there, or another fault in the message, are
    /// `invalid_message`.
    #[test]
    fn seats_out_of_range_are_bad_seats() {
        use ErrorCode::{BadSeat, InvalidMessage};
        let cases = [
            (
                r#"{"type":"move","req":1,"seat":4,"token":"t","ply":0,"move":"h2h4"}"#,
                BadSeat,
            ),
            (
                r#"{"type":"move","req":1,"seat":255,"token":"t","ply":0,"move":"h2h4"}"#,
                BadSeat,
            ),
            (
                r#"{"type":"take_seat","req":1,"seat":5,"name":"Ann"}"#,
                BadSeat,
            ),
            (
                r#"{"type":"chat","req":1,"channel":"room","text":"hi","seat":9,"token":"t"}"#,
                BadSeat,
            ),
            (
                r#"{"type":"move_player","req":1,"host_token":"h","from":0,"to":4}"#,
                BadSeat,
            ),
            (
                r#"{"type":"move_player","req":1,"host_token":"h","from":7,"to":4}"#,
                BadSeat,
            ),
            (
                r#"{"type":"set_cpu","req":1,"host_token":"h","seat":4,"level":null}"#,
                BadSeat,
            ),
            (
                r#"{"type":"move","req":1,"seat":256,"token":"t","ply":0,"move":"h2h4"}"#,
                InvalidMessage,
            ),
            (
                r#"{"type":"move","req":1,"seat":300,"token":"t","ply":0,"move":"h2h4"}"#,
                InvalidMessage,
            ),
            (
                r#"{"type":"take_seat","req":1,"seat":-1,"name":"Ann"}"#,
                InvalidMessage,
            ),
            (
                r#"{"type":"take_seat","req":1,"seat":4.0,"name":"Ann"}"#,
                InvalidMessage,
            ),
            (
                r#"{"type":"take_seat","req":1,"seat":"4","name":"Ann"}"#,
                InvalidMessage,
            ),
            // The seat is not all that is wrong.
            (r#"{"type":"take_seat","req":1,"seat":4}"#, InvalidMessage),
            (
                r#"{"type":"move","req":1,"seat":4,"token":"t","ply":-1,"move":"h2h4"}"#,
                InvalidMessage,
            ),
            (
                r#"{"type":"move_player","req":1,"host_token":"h","from":4,"to":-1}"#,
                InvalidMessage,
            ),
        ];
        for (text, code) in cases {
            assert_eq!(parse_move(text), None, "{text}");
            let (req, got, message) = parse(text).expect_err(text);
            assert_eq!((req, got), (Some(1), code), "{text}: {message}");
        }
        let (_, _, message) = parse(cases[4].0).unwrap_err();
        assert_eq!(message, r#""to": 4 is not a seat: seats are 0 to 3"#);
    }

    /// Random moves as clients write them read as serde reads them, on the fast path.
    #[test]
    fn random_moves_take_the_fast_path() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let alphabet: Vec<char> = "abcdef0123456789h2h4qé\"\\".chars().collect();
        for _ in 0..2_000 {
            let mut text_of = |len: usize| -> String {
                (0..len)
                    .map(|_| alphabet[rng.random_range(0..alphabet.len())])
                    .collect()
            };
            let (token, mv) = (text_of(32), text_of(5));
            let req = rng.random::<u64>() >> rng.random_range(0..64);
            let message = ClientRequest::new(
                req,
                ClientMessage::Move {
                    seat: SeatIndex::ALL[rng.random_range(0..4)],
                    token,
                    ply: rng.random::<u32>() >> rng.random_range(0..32),
                    mv,
                },
            );
            let text = serde_json::to_string(&message).unwrap();
            assert_eq!(parse_move(&text), Some(message.clone()), "{text}");
            assert_eq!(parse(&text).ok(), Some(message), "{text}");
        }
    }

    #[test]
    fn the_burst_passes_then_the_rate_holds_and_zero_sets_no_limit() {
        // One a second: nothing refills within this test.
        let limit = MessageRate::new(1, 5);
        assert_eq!((0..8).filter(|_| limit.allow()).count(), 5);
        // A burst of 0 still lets one message through.
        let limit = MessageRate::new(1, 0);
        assert_eq!((0..3).filter(|_| limit.allow()).count(), 1);
        let unlimited = MessageRate::new(0, 0);
        assert!((0..10_000).all(|_| unlimited.allow()));
    }
}
