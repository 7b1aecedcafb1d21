//! The raw baseline that `loadgen` measures the game server against: a fan-out server with no game
//! logic, written as plainly and as leanly as tokio-tungstenite allows.
//!
//! It speaks just enough of the protocol for `loadgen`, with the same HTTP room creation
//! (`POST /api/rooms`), the same WebSocket framing (one JSON text frame a message) and messages of
//! the sizes the game server sends for a move: an ack to the mover, a `moved` event padded to
//! `--moved-bytes` to every connection of the room, and a `legal_moves` list of about
//! `--legal-bytes` to the seat to move next. Moves are not checked, nothing is stored or versioned beyond a
//! counter, and a room is a mutex around its connections' queues, locked by whichever reader
//! receives a move: no room task, no event log, no game. With `--room-task` each room gets a
//! task and an inbox, as in the game server's design, to price that hop on its own.
//!
//! What it keeps from the game server's design, because any server on the internet needs it and
//! the comparison should price only the game: a reader and a writer task per connection, a
//! bounded outbound queue per connection written with `feed` and one `flush`, the same socket
//! buffers (2 KiB to read, 4 KiB to write), and a heartbeat ping every `--heartbeat-seconds` (sent by the writer's own timer).
//!
//! `baseline-server --addr 127.0.0.1:0` prints `listening on http://<addr>` and serves until
//! killed.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use serde::Deserialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request as WsRequest};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

#[derive(Parser)]
struct Args {
    /// Where to listen (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8090")]
    addr: std::net::SocketAddr,
    /// Seconds between heartbeat pings to each connection (the game server's default is 2).
    #[arg(long, default_value_t = 2.0)]
    heartbeat_seconds: f64,
    /// Messages queued for one connection before it is dropped as too slow.
    #[arg(long, default_value_t = 256)]
    outbound_queue: usize,
    /// The size of the `moved` event every connection receives for a move, in bytes
    /// (`loadgen compare` passes the mean it saw from the game server in the same run).
    #[arg(long, default_value_t = 240)]
    moved_bytes: usize,
    /// The size of each `legal_moves` message, in bytes (`loadgen compare` passes the mean it saw
    /// from the game server in the same run).
    #[arg(long, default_value_t = 290)]
    legal_bytes: usize,
    /// The size of the snapshot a new connection receives, in bytes.
    #[arg(long, default_value_t = 2600)]
    snapshot_bytes: usize,
    /// Gives each room a task with an inbox, as the game server's design has it: readers hand
    /// each message to the room's task, which answers and fans out. Still no game logic, so the
    /// difference to the plain baseline prices the design's hop alone.
    #[arg(long)]
    room_task: bool,
}

/// What a room's task takes from a reader (with `--room-task`): the sender and its frame.
type Hop = (u64, Utf8Bytes);

/// How the readers reach a room.
#[derive(Clone, Default)]
struct RoomEntry {
    room: Arc<Mutex<Room>>,
    /// The room's inbox, with `--room-task`.
    inbox: Option<mpsc::Sender<Hop>>,
}

/// What a writer sends.
enum Out {
    Text(Utf8Bytes),
}

/// A connection as its room knows it.
struct Conn {
    id: u64,
    tx: mpsc::Sender<Out>,
    /// Bit `s`: holds seat `s` (receives its legal moves).
    seats: u8,
}

/// A room: its connections and a version counter.
#[derive(Default)]
struct Room {
    conns: Vec<Conn>,
    v: u64,
}

impl Room {
    /// Queues `frame` for every connection that `to` accepts; a full queue drops the connection.
    fn send(&mut self, frame: &Utf8Bytes, to: impl Fn(&Conn) -> bool) {
        self.conns
            .retain(|c| !to(c) || c.tx.try_send(Out::Text(frame.clone())).is_ok());
    }
}

/// What every connection shares.
struct Shared {
    rooms: Mutex<HashMap<String, RoomEntry>>,
    next_id: AtomicU64,
    args: Args,
    /// The `moves` array of every `legal_moves`, serialised once.
    moves_json: String,
    /// The padding that brings a `moved` event to `moved_bytes`.
    moved_pad: String,
    snapshot: Utf8Bytes,
}

/// The fields of a client message the baseline reads.
#[derive(Deserialize)]
struct ClientLite<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(default)]
    req: u64,
    seat: Option<u8>,
    ply: Option<u32>,
    #[serde(borrow, default)]
    seat_tokens: Vec<&'a str>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // The same runtime as `fourkings serve`: multi-threaded, one worker per core it may use.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(args))
}

async fn serve(args: Args) -> anyhow::Result<()> {
    // `{"type":"legal_moves","v":…,"seat":…,"ply":…,"moves":[]}` is about 60 bytes, and every
    // move adds seven (`"h2h4",`).
    let moves: Vec<String> = (0..args.legal_bytes.saturating_sub(60) / 7)
        .map(|i| {
            let file = char::from(b'a' + (i % 14) as u8);
            format!("{file}{}{file}{}", 2 + i % 9, 3 + i % 9)
        })
        .collect();
    // `{"type":"event","v":…,"event":{"kind":"moved","seat":…,"ply":…,"move":"h2h4","pad":""}}`
    // is about 90 bytes with typical numbers; the padding brings it to the size asked for.
    let moved_pad = "x".repeat(args.moved_bytes.saturating_sub(90));
    let snapshot = format!(
        r#"{{"type":"snapshot","v":0,"pad":"{}"}}"#,
        "x".repeat(args.snapshot_bytes.saturating_sub(32))
    );
    let shared = Arc::new(Shared {
        rooms: Mutex::new(HashMap::new()),
        next_id: AtomicU64::new(1),
        moves_json: serde_json::to_string(&moves)?,
        moved_pad,
        snapshot: Utf8Bytes::from(snapshot),
        args,
    });
    let listener = TcpListener::bind(shared.args.addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let shared = shared.clone();
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            // A WebSocket upgrade starts `GET /ws/`; anything else is the room API.
            let mut head = [0u8; 8];
            let is_ws = loop {
                match stream.peek(&mut head).await {
                    Ok(n) if n >= 8 => break &head == b"GET /ws/",
                    Ok(0) | Err(_) => return,
                    Ok(_) => tokio::task::yield_now().await,
                }
            };
            if is_ws {
                websocket(stream, shared).await;
            } else {
                let service =
                    hyper::service::service_fn(move |req| create_room(req, shared.clone()));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            }
        });
    }
}

/// `POST /api/rooms`: a new room, answered as the game server answers.
async fn create_room(
    req: Request<hyper::body::Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.method() != hyper::Method::POST || req.uri().path() != "/api/rooms" {
        let mut response = Response::new(Full::new(Bytes::from_static(b"not found")));
        *response.status_mut() = StatusCode::NOT_FOUND;
        return Ok(response);
    }
    let n = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let id = format!("{n:013}");
    let mut entry = RoomEntry::default();
    if shared.args.room_task {
        let (inbox, rx) = mpsc::channel(64);
        entry.inbox = Some(inbox);
        tokio::spawn(room_task(shared.clone(), entry.room.clone(), rx));
    }
    shared
        .rooms
        .lock()
        .expect("not poisoned")
        .insert(id.clone(), entry);
    let body = format!(r#"{{"id":"{id}","link":"/r/{id}","host_token":"{n:022}"}}"#);
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::CREATED;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// One WebSocket: the upgrade, then a reader (this task) and a writer task.
async fn websocket(stream: TcpStream, shared: Arc<Shared>) {
    let mut room = None;
    // tungstenite's handshake callback fixes this signature, large error and all.
    #[expect(clippy::result_large_err)]
    let find = |req: &WsRequest, response| {
        let id = req.uri().path().trim_start_matches("/ws/");
        room = shared.rooms.lock().expect("not poisoned").get(id).cloned();
        if room.is_some() {
            Ok(response)
        } else {
            let mut refusal = ErrorResponse::new(Some("no such room".into()));
            *refusal.status_mut() = StatusCode::NOT_FOUND;
            Err(refusal)
        }
    };
    let config = WebSocketConfig::default()
        .read_buffer_size(2048)
        .write_buffer_size(4096)
        .max_message_size(Some(16 * 1024))
        .max_frame_size(Some(16 * 1024));
    let Ok(socket) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, find, Some(config)).await
    else {
        return;
    };
    let Some(RoomEntry { room, inbox }) = room else {
        return;
    };
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel(shared.args.outbound_queue);
    let _ = tx.try_send(Out::Text(shared.snapshot.clone()));
    room.lock().expect("not poisoned").conns.push(Conn {
        id,
        tx: tx.clone(),
        seats: 0,
    });
    let (sink, mut stream) = socket.split();
    let heartbeat = Duration::from_secs_f64(shared.args.heartbeat_seconds.max(0.01));
    let writer = tokio::spawn(write_loop(sink, rx, heartbeat));
    while let Some(Ok(frame)) = stream.next().await {
        match frame {
            Message::Text(text) => match &inbox {
                Some(inbox) => {
                    if inbox.send((id, text)).await.is_err() {
                        break;
                    }
                }
                None => {
                    if let Ok(msg) = serde_json::from_str::<ClientLite>(&text) {
                        handle(&shared, &room, id, &tx, &msg);
                    }
                }
            },
            Message::Close(_) => break,
            _ => {}
        }
    }
    room.lock()
        .expect("not poisoned")
        .conns
        .retain(|c| c.id != id);
    drop(tx);
    let _ = writer.await;
}

/// A room's task (with `--room-task`): answers the messages its readers hand it, in order.
async fn room_task(shared: Arc<Shared>, room: Arc<Mutex<Room>>, mut inbox: mpsc::Receiver<Hop>) {
    while let Some((id, text)) = inbox.recv().await {
        let Ok(msg) = serde_json::from_str::<ClientLite>(&text) else {
            continue;
        };
        let tx = {
            let room = room.lock().expect("not poisoned");
            room.conns.iter().find(|c| c.id == id).map(|c| c.tx.clone())
        };
        if let Some(tx) = tx {
            handle(&shared, &room, id, &tx, &msg);
        }
    }
}

/// Answers one message: an ack, and for a move (or a start) the event and the next legal moves.
fn handle(shared: &Shared, room: &Mutex<Room>, id: u64, tx: &mpsc::Sender<Out>, msg: &ClientLite) {
    let req = msg.req;
    let ack = match msg.kind {
        "take_seat" => {
            let seat = msg.seat.unwrap_or(0) & 3;
            set_seats(room, id, 1 << seat);
            format!(r#"{{"type":"ack","req":{req},"seat_token":"{seat}{id:021}"}}"#)
        }
        "hello" => {
            // Tokens are `<seat><digits>`: the seat is the first character.
            let seats: Vec<u8> = msg
                .seat_tokens
                .iter()
                .filter_map(|t| t.bytes().next().map(|b| b.wrapping_sub(b'0') & 3))
                .collect();
            set_seats(room, id, seats.iter().fold(0, |m, s| m | 1 << s));
            format!(r#"{{"type":"ack","req":{req},"seats":{seats:?},"host":false}}"#)
        }
        _ => format!(r#"{{"type":"ack","req":{req}}}"#),
    };
    let _ = tx.try_send(Out::Text(Utf8Bytes::from(ack)));
    let (event, to_move, ply) = match msg.kind {
        "start" | "rematch" => (
            format!(
                r#""kind":"started","first_seat":0,"pad":"{}""#,
                shared.moved_pad
            ),
            0,
            0,
        ),
        "move" => {
            let (seat, ply) = (msg.seat.unwrap_or(0) & 3, msg.ply.unwrap_or(0) + 1);
            (
                format!(
                    r#""kind":"moved","seat":{seat},"ply":{ply},"move":"h2h4","pad":"{}""#,
                    shared.moved_pad
                ),
                (seat + 1) & 3,
                ply,
            )
        }
        _ => return,
    };
    let mut room = room.lock().expect("not poisoned");
    room.v += 1;
    let v = room.v;
    let event = Utf8Bytes::from(format!(r#"{{"type":"event","v":{v},"event":{{{event}}}}}"#));
    room.send(&event, |_| true);
    let legal = Utf8Bytes::from(format!(
        r#"{{"type":"legal_moves","v":{v},"seat":{to_move},"ply":{ply},"moves":{}}}"#,
        shared.moves_json
    ));
    room.send(&legal, |c| c.seats >> to_move & 1 != 0);
}

fn set_seats(room: &Mutex<Room>, id: u64, seats: u8) {
    let mut room = room.lock().expect("not poisoned");
    if let Some(conn) = room.conns.iter_mut().find(|c| c.id == id) {
        conn.seats |= seats;
    }
}

/// Drains the queue into the socket, a burst at a time with one flush, and pings on a timer.
async fn write_loop(
    mut sink: futures_util::stream::SplitSink<
        tokio_tungstenite::WebSocketStream<TcpStream>,
        Message,
    >,
    mut rx: mpsc::Receiver<Out>,
    heartbeat: Duration,
) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + heartbeat, heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            next = rx.recv() => {
                let Some(Out::Text(first)) = next else {
                    let _ = sink.close().await;
                    return;
                };
                if sink.feed(Message::Text(first)).await.is_err() {
                    return;
                }
                while let Ok(Out::Text(more)) = rx.try_recv() {
                    if sink.feed(Message::Text(more)).await.is_err() {
                        return;
                    }
                }
            }
            _ = ticks.tick() => {
                if sink.feed(Message::Ping(Bytes::new())).await.is_err() {
                    return;
                }
            }
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
}
