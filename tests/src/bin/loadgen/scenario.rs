//! One load scenario against one running server: rooms created through the HTTP API, four
//! WebSocket clients a room (plus spectators), games started and played at a set rate from the
//! legal moves the server sends, every delivery timed from the moment its move was *scheduled*.
//!
//! Everything runs on the current thread: one task per room owns all of its connections and reads
//! them through one `SelectAll`, so 10,000 connections cost 2,500 tasks and their 4 KiB buffers.
//! State shared between rooms (histograms, counters) is `Rc<RefCell<…>>`, never locked.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use anyhow::{Context, bail};
use fourkings_protocol::{
    ClientMessage, ClientRequest, CpuLevel, CreateRoomResponse, GameClock, SeatIndex, SettingsPatch,
};
use futures_util::stream::{SelectAll, SplitSink};
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::system::{self, Usage};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Sink = SplitSink<Socket, Message>;

/// What to run.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct Scenario {
    /// Rooms playing at once.
    #[arg(long, default_value_t = 100)]
    pub(crate) rooms: usize,
    /// Spectators in each room, besides its players.
    #[arg(long, default_value_t = 0)]
    pub(crate) spectators: usize,
    /// Moves a second in each room (ignored with CPU seats: people move as soon as it is their
    /// turn).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) rate: f64,
    /// CPU seats in each room (seats 1, 2, 3, in that order); the others are people.
    #[arg(long, default_value_t = 0)]
    pub(crate) cpu_seats: u8,
    /// The CPU seats' level (the room's own default, medium, unless given).
    #[arg(long, value_parser = parse_level)]
    pub(crate) cpu_level: Option<CpuLevel>,
    /// Seconds measured, after the warm-up.
    #[arg(long, default_value_t = 10.0)]
    pub(crate) seconds: f64,
    /// Seconds every room plays before the measurement starts (at least two moves' time).
    #[arg(long, default_value_t = 2.0)]
    pub(crate) warmup: f64,
    /// Rooms being set up at once.
    #[arg(long, default_value_t = 64)]
    pub(crate) setup_concurrency: usize,
    /// Seed of the move choices.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Minutes of a game clock (with 2 seconds' increment) in every room; 0 for none.
    #[arg(long, default_value_t = 0)]
    pub(crate) game_clock_minutes: u32,
    /// People queue a premove for their next turn right after each move (another of the legal
    /// moves they had), and the time from the move before it to the premove's `moved` is measured.
    #[arg(long)]
    pub(crate) premoves: bool,
}

/// `easy`, `medium` or `hard`, as the protocol spells a level.
fn parse_level(text: &str) -> Result<CpuLevel, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("{text:?} is not a level: easy, medium or hard"))
}

/// What a scenario measured.
pub(crate) struct Outcome {
    /// Moves sent whose scheduled time fell in the window.
    pub(crate) moves: u64,
    /// Deliveries of those moves' `moved` events (one per connection of the room).
    pub(crate) delivered: u64,
    /// Deliveries that should have been made.
    pub(crate) expected: u64,
    /// Move (scheduled) → `moved` event at each connection, in microseconds.
    pub(crate) latency: Histogram<u64>,
    /// Move (scheduled) → the mover's ack, in microseconds.
    pub(crate) ack: Histogram<u64>,
    /// CPU used during the window.
    pub(crate) usage: Usage,
    /// The server's resident memory at the end of the window, in KiB.
    pub(crate) server_rss_kib: u64,
    /// Errors the server answered with, and connections that closed: both should be none.
    pub(crate) errors: u64,
    /// The first few of them, for the report.
    pub(crate) error_samples: Vec<String>,
    /// Mean size of a `moved` frame, and of a `legal_moves` frame, in bytes.
    pub(crate) moved_bytes: f64,
    pub(crate) legal_bytes: f64,
    /// Games that ended and were rematched during the run.
    pub(crate) rematches: u64,
    /// Premoves played in the window: at each connection, the time from the `moved` before one
    /// to its own `moved`, in microseconds.
    pub(crate) premove_gap: Histogram<u64>,
}

impl Outcome {
    /// Moves per second over the window.
    pub(crate) fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.usage.seconds
    }

    /// Deliveries per second over the window.
    pub(crate) fn deliveries_per_second(&self) -> f64 {
        self.delivered as f64 / self.usage.seconds
    }

    /// Deliveries per CPU-second of the server.
    pub(crate) fn deliveries_per_server_cpu_second(&self) -> f64 {
        self.delivered as f64 / self.usage.server_cpu.max(1e-9)
    }

    /// Deliveries that never came.
    pub(crate) fn lost(&self) -> u64 {
        self.expected - self.delivered
    }

    /// A quantile of the delivery latency, in milliseconds.
    pub(crate) fn ms(&self, quantile: f64) -> f64 {
        self.latency.value_at_quantile(quantile) as f64 / 1000.0
    }

    /// A quantile of the ack latency, in milliseconds.
    pub(crate) fn ack_ms(&self, quantile: f64) -> f64 {
        self.ack.value_at_quantile(quantile) as f64 / 1000.0
    }

    /// Prints the outcome for people.
    pub(crate) fn print(&self, label: &str) {
        let u = &self.usage;
        println!(
            "{label}: {:.0} moves/s, {:.0} deliveries/s, delivered {}/{} (lost {}), errors {}, rematches {}",
            self.moves_per_second(),
            self.deliveries_per_second(),
            self.delivered,
            self.expected,
            self.lost(),
            self.errors,
            self.rematches,
        );
        println!(
            "  latency move→client ms: p50 {:.2} p90 {:.2} p99 {:.2} p99.9 {:.2} max {:.2}; ack p50 {:.2} p99 {:.2} max {:.2}",
            self.ms(0.5),
            self.ms(0.9),
            self.ms(0.99),
            self.ms(0.999),
            self.latency.max() as f64 / 1000.0,
            self.ack_ms(0.5),
            self.ack_ms(0.99),
            self.ack.max() as f64 / 1000.0,
        );
        println!(
            "  server {:.3} cores, {:.0} deliveries per CPU-second, RSS {} MiB; loadgen {:.2} cores; others {:.2} cores; frames: moved {:.0} B, legal_moves {:.0} B",
            u.server_cores(),
            self.deliveries_per_server_cpu_second(),
            self.server_rss_kib / 1024,
            u.loadgen_cores(),
            u.other_cores(),
            self.moved_bytes,
            self.legal_bytes,
        );
        if !self.premove_gap.is_empty() {
            let gap = |q: f64| self.premove_gap.value_at_quantile(q) as f64 / 1000.0;
            println!(
                "  premoves played: {} deliveries; the move before → the premove's moved, ms: p50 {:.3} p99 {:.3} max {:.3}",
                self.premove_gap.len(),
                gap(0.5),
                gap(0.99),
                self.premove_gap.max() as f64 / 1000.0,
            );
        }
        for sample in &self.error_samples {
            println!("  error: {sample}");
        }
    }
}

/// The fields of a server message that the load generator reads; the rest is skipped unparsed.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    req: Option<u64>,
    seat: Option<SeatIndex>,
    ply: Option<u32>,
    #[serde(borrow, default)]
    moves: Vec<&'a str>,
    #[serde(borrow)]
    seat_token: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event: Option<IncomingEvent<'a>>,
    #[serde(borrow)]
    code: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
}

/// The fields of an event that the load generator reads.
#[derive(Deserialize)]
struct IncomingEvent<'a> {
    #[serde(borrow)]
    kind: &'a str,
    ply: Option<u32>,
    /// Present (`true`) on a `moved` that was the player's premove.
    #[serde(default)]
    premove: bool,
    /// Present when a move ended the game.
    result: Option<IgnoredAny>,
    /// `game_changed` carries the game, with its result when it ended.
    game: Option<GameEnd>,
}

#[derive(Deserialize)]
struct GameEnd {
    result: Option<IgnoredAny>,
}

/// The timeline every room follows, fixed once every room is set up.
#[derive(Clone, Copy)]
struct Timeline {
    /// Room `r` starts its game at `origin + r / rooms × interval`, then moves every interval.
    origin: Instant,
    /// Moves scheduled from here on are measured...
    measure_from: Instant,
    /// ...and none is sent from here on.
    measure_until: Instant,
    /// Deliveries still missing by then are lost.
    give_up: Instant,
}

/// What every room task shares.
struct Shared {
    latency: RefCell<Histogram<u64>>,
    ack: RefCell<Histogram<u64>>,
    premove_gap: RefCell<Histogram<u64>>,
    moves: Cell<u64>,
    delivered: Cell<u64>,
    expected: Cell<u64>,
    errors: Cell<u64>,
    error_samples: RefCell<Vec<String>>,
    moved_frames: Cell<(u64, u64)>,
    legal_frames: Cell<(u64, u64)>,
    rematches: Cell<u64>,
    /// Rooms set up so far.
    ready: Cell<usize>,
    ready_changed: tokio::sync::Notify,
    /// Set once every room is ready.
    timeline: watch::Sender<Option<Timeline>>,
}

impl Shared {
    fn error(&self, what: String) {
        self.errors.set(self.errors.get() + 1);
        let mut samples = self.error_samples.borrow_mut();
        if samples.len() < 5 {
            samples.push(what);
        }
    }
}

/// The client's socket settings: small buffers (the load generator holds 10,000 of them) and no
/// Nagle delay.
pub(crate) fn socket_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
}

/// Opens a room's WebSocket.
pub(crate) async fn connect(base: &str, room: &str) -> anyhow::Result<Socket> {
    let url = format!("{}/ws/{room}", base.replace("http://", "ws://"));
    let (socket, _) =
        tokio_tungstenite::connect_async_with_config(url, Some(socket_config()), true)
            .await
            .with_context(|| format!("opening the WebSocket of room {room}"))?;
    Ok(socket)
}

/// `POST /api/rooms`.
pub(crate) async fn create_room(
    http: &reqwest::Client,
    base: &str,
    settings: &SettingsPatch,
) -> anyhow::Result<CreateRoomResponse> {
    let response = http
        .post(format!("{base}/api/rooms"))
        .body(serde_json::to_string(settings)?)
        .send()
        .await?;
    if !response.status().is_success() {
        bail!(
            "creating a room: {} {}",
            response.status(),
            response.text().await?
        );
    }
    Ok(response.json().await?)
}

/// A client request as a text frame.
pub(crate) fn frame(request: &ClientRequest) -> Message {
    Message::text(serde_json::to_string(request).expect("client messages serialise"))
}

/// Reads `socket` until the ack of `req`, and returns its seat token if it has one.
pub(crate) async fn until_ack(socket: &mut Socket, req: u64) -> anyhow::Result<Option<String>> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .context("no answer for 30 s")?
            .context("the connection closed")??;
        let Message::Text(text) = frame else { continue };
        let msg: Incoming = serde_json::from_str(&text)?;
        match msg.kind {
            "ack" if msg.req == Some(req) => return Ok(msg.seat_token.map(Cow::into_owned)),
            "error" if msg.req == Some(req) => bail!(
                "{}: {}",
                msg.code.unwrap_or_default(),
                msg.message.unwrap_or_default()
            ),
            _ => {}
        }
    }
}

/// Runs `scenario` against the server at `base` (`http://127.0.0.1:port`) whose process is `pid`.
pub(crate) async fn run(scenario: &Scenario, base: &str, pid: i32) -> anyhow::Result<Outcome> {
    let histogram = || Histogram::<u64>::new_with_bounds(1, 120_000_000, 3).expect("bounds");
    let (timeline, _) = watch::channel(None);
    let shared = Rc::new(Shared {
        latency: RefCell::new(histogram()),
        ack: RefCell::new(histogram()),
        premove_gap: RefCell::new(histogram()),
        moves: Cell::new(0),
        delivered: Cell::new(0),
        expected: Cell::new(0),
        errors: Cell::new(0),
        error_samples: RefCell::new(Vec::new()),
        moved_frames: Cell::new((0, 0)),
        legal_frames: Cell::new((0, 0)),
        rematches: Cell::new(0),
        ready: Cell::new(0),
        ready_changed: tokio::sync::Notify::new(),
        timeline,
    });
    let http = reqwest::Client::new();
    let setup = Rc::new(Semaphore::new(scenario.setup_concurrency.max(1)));
    let local = tokio::task::LocalSet::new();
    let outcome = local
        .run_until(async {
            let mut rooms = Vec::new();
            for index in 0..scenario.rooms {
                rooms.push(tokio::task::spawn_local(play_room(
                    shared.clone(),
                    scenario.clone(),
                    index,
                    base.to_owned(),
                    http.clone(),
                    setup.clone(),
                )));
            }
            // Every room is set up before any game starts: the setup is not what is measured.
            let setting_up = Instant::now();
            while shared.ready.get() < scenario.rooms {
                let notified = shared.ready_changed.notified();
                if shared.ready.get() >= scenario.rooms {
                    break;
                }
                if tokio::time::timeout(Duration::from_secs(120), notified)
                    .await
                    .is_err()
                {
                    bail!(
                        "only {} of {} rooms were set up after two minutes",
                        shared.ready.get(),
                        scenario.rooms
                    );
                }
                // A room whose setup failed counts as ready with an error: look for one.
                if shared.errors.get() > 0 {
                    bail!(
                        "setting up the rooms failed: {:?}",
                        shared.error_samples.borrow()
                    );
                }
            }
            eprintln!(
                "  {} rooms set up in {:.1} s",
                scenario.rooms,
                setting_up.elapsed().as_secs_f64()
            );
            let interval = Duration::from_secs_f64(1.0 / scenario.rate);
            let origin = Instant::now() + Duration::from_millis(200);
            let warmup = Duration::from_secs_f64(scenario.warmup).max(interval * 2);
            let measure_from = origin + warmup;
            let measure_until = measure_from + Duration::from_secs_f64(scenario.seconds);
            let give_up = measure_until + Duration::from_secs(5).max(interval * 2);
            shared.timeline.send_replace(Some(Timeline {
                origin,
                measure_from,
                measure_until,
                give_up,
            }));
            tokio::time::sleep_until(measure_from).await;
            let start = system::sample(pid)?;
            tokio::time::sleep_until(measure_until).await;
            let end = system::sample(pid)?;
            let server_rss_kib = system::rss_kib(pid)?;
            let mut held = Vec::new();
            for room in rooms {
                held.push(room.await??);
            }
            drop(held);
            let mean = |(n, bytes): (u64, u64)| bytes as f64 / n.max(1) as f64;
            Ok::<_, anyhow::Error>(Outcome {
                moves: shared.moves.get(),
                delivered: shared.delivered.get(),
                expected: shared.expected.get(),
                latency: shared.latency.borrow().clone(),
                ack: shared.ack.borrow().clone(),
                usage: system::usage(&start, &end),
                server_rss_kib,
                errors: shared.errors.get(),
                error_samples: shared.error_samples.borrow().clone(),
                moved_bytes: mean(shared.moved_frames.get()),
                legal_bytes: mean(shared.legal_frames.get()),
                rematches: shared.rematches.get(),
                premove_gap: shared.premove_gap.borrow().clone(),
            })
        })
        .await?;
    Ok(outcome)
}

/// A move sent, waiting for its deliveries.
struct Sent {
    /// The game it was played in (the room's count of rematches) and the ply it made.
    game: u64,
    ply: u32,
    /// When it was scheduled: latency counts from here, however late it was sent.
    at: Instant,
    /// Whether it was scheduled inside the window.
    measured: bool,
    /// Deliveries seen so far.
    got: usize,
}

/// A move chosen, to be sent at its scheduled time.
struct Planned {
    conn: usize,
    at: Instant,
    message: Message,
    ply: u32,
    req: u64,
    /// With premoves: another of the legal moves, queued for the seat's next turn, and its
    /// request id.
    premove: Option<(Message, u64)>,
}

/// One room: its setup, then its game, until the window is over and every measured move has been
/// delivered (or counted lost).
async fn play_room(
    shared: Rc<Shared>,
    scenario: Scenario,
    index: usize,
    base: String,
    http: reqwest::Client,
    setup: Rc<Semaphore>,
) -> anyhow::Result<Box<dyn std::any::Any>> {
    let permit = setup.acquire().await?;
    let people = usize::from(4 - scenario.cpu_seats.min(3));
    let connections = people + scenario.spectators;
    let settings = SettingsPatch {
        game_clock: (scenario.game_clock_minutes > 0).then_some(Some(GameClock {
            minutes: scenario.game_clock_minutes,
            increment: 2,
            delay: 0,
        })),
        cpu_level: scenario.cpu_level,
        ..SettingsPatch::default()
    };
    let set = set_up(&base, &http, &settings, people, connections).await;
    let (room, mut sinks, streams, tokens) = match set {
        Ok(set) => set,
        Err(e) => {
            shared.error(format!("room {index}: {e:#}"));
            shared.ready.set(shared.ready.get() + 1);
            shared.ready_changed.notify_one();
            return Ok(Box::new(()));
        }
    };
    drop(permit);
    shared.ready.set(shared.ready.get() + 1);
    shared.ready_changed.notify_one();
    let mut timeline_rx = shared.timeline.subscribe();
    let timeline = timeline_rx
        .wait_for(Option::is_some)
        .await?
        .expect("waited for it");
    let interval = Duration::from_secs_f64(1.0 / scenario.rate);
    let phase = interval.mul_f64(index as f64 / scenario.rooms as f64);
    let mut next_slot = timeline.origin + phase;
    let paced = scenario.cpu_seats == 0;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(scenario.seed ^ (index as u64) << 20);
    let mut streams: SelectAll<_> = streams
        .into_iter()
        .enumerate()
        .map(|(i, s)| s.map(move |m| (i, m)))
        .collect();
    let mut req = 100u64;
    // The start is scheduled like a move, so that the rooms' games begin spread out.
    tokio::time::sleep_until(next_slot).await;
    next_slot += interval;
    req += 1;
    sinks[0]
        .send(frame(&ClientRequest::new(
            req,
            ClientMessage::Start {
                host_token: room.host_token.clone(),
            },
        )))
        .await?;
    let mut planned: Option<Planned> = None;
    let mut sent: Vec<Sent> = Vec::new();
    // The game each connection is in, by the rematches it has seen.
    let mut games = vec![0u64; connections];
    let mut pending_ack: Option<(u64, Instant, bool)> = None;
    // The request id of the latest premove sent.
    let mut premove_req = None;
    // When each connection last received a `moved`.
    let mut last_moved = vec![Instant::now(); connections];
    let mut sent_rematch_for = u64::MAX;
    loop {
        let now = Instant::now();
        if now >= timeline.measure_until
            && (now >= timeline.give_up || sent.iter().all(|s| !s.measured))
        {
            break;
        }
        let wake = planned.as_ref().map(|p| p.at);
        tokio::select! {
            next = streams.next() => {
                let Some((conn, received)) = next else {
                    shared.error(format!("room {index}: every connection closed"));
                    break;
                };
                let text = match received {
                    Ok(Message::Text(text)) => text,
                    Ok(Message::Close(close)) => {
                        shared.error(format!("room {index} connection {conn}: closed {close:?}"));
                        continue;
                    }
                    Ok(_) => continue,
                    Err(e) => {
                        shared.error(format!("room {index} connection {conn}: {e}"));
                        continue;
                    }
                };
                let msg: Incoming = match serde_json::from_str(&text) {
                    Ok(msg) => msg,
                    Err(e) => {
                        shared.error(format!("room {index}: unreadable {text:?}: {e}"));
                        continue;
                    }
                };
                match msg.kind {
                    "event" => {
                        let Some(event) = msg.event else { continue };
                        match event.kind {
                            "moved" => {
                                let arrived = Instant::now();
                                if event.premove && arrived >= timeline.measure_from {
                                    record(&shared.premove_gap, last_moved[conn]);
                                }
                                last_moved[conn] = arrived;
                                let (n, bytes) = shared.moved_frames.get();
                                shared.moved_frames.set((n + 1, bytes + text.len() as u64));
                                let ply = event.ply.unwrap_or(0);
                                let game = games[conn];
                                // A move planned for a position the game has left (a premove
                                // played it, or the game ended) is not sent.
                                if conn == 0 && (event.result.is_some() || planned.as_ref().is_some_and(|p| ply > p.ply)) {
                                    planned = None;
                                }
                                if let Some(i) = sent.iter().position(|s| s.game == game && s.ply == ply) {
                                    let s = &mut sent[i];
                                    s.got += 1;
                                    if s.measured {
                                        shared.delivered.set(shared.delivered.get() + 1);
                                        record(&shared.latency, s.at);
                                    }
                                    if s.got == connections {
                                        sent.swap_remove(i);
                                    }
                                }
                                if event.result.is_some() && conn == 0 {
                                    sent_rematch_for = rematch(&mut sinks[0], &mut req, &room, games[0], sent_rematch_for).await?;
                                }
                            }
                            "game_changed" if conn == 0 && event.game.is_some_and(|g| g.result.is_some()) => {
                                sent_rematch_for = rematch(&mut sinks[0], &mut req, &room, games[0], sent_rematch_for).await?;
                            }
                            "rematch" => {
                                games[conn] += 1;
                                if conn == 0 {
                                    shared.rematches.set(shared.rematches.get() + 1);
                                }
                            }
                            _ => {}
                        }
                    }
                    "legal_moves" => {
                        let (n, bytes) = shared.legal_frames.get();
                        shared.legal_frames.set((n + 1, bytes + text.len() as u64));
                        let (Some(seat), Some(ply)) = (msg.seat, msg.ply) else { continue };
                        if msg.moves.is_empty() || seat.index() >= people || conn >= people {
                            continue;
                        }
                        let pick = rng.random_range(0..msg.moves.len());
                        let mv = msg.moves[pick].to_owned();
                        // Another of the moves, most likely still legal after the others move.
                        let spare = (scenario.premoves && msg.moves.len() > 1)
                            .then(|| msg.moves[(pick + 1 + rng.random_range(0..msg.moves.len() - 1)) % msg.moves.len()]);
                        let at = if paced {
                            let at = next_slot;
                            next_slot += interval;
                            at
                        } else {
                            // People in rooms with CPUs answer at once: the CPUs set the pace.
                            Instant::now()
                        };
                        if at >= timeline.measure_until {
                            continue;
                        }
                        req += 1;
                        planned = Some(Planned {
                            conn,
                            at,
                            message: frame(&ClientRequest::new(req, ClientMessage::Move {
                                seat,
                                token: tokens[seat.index()].clone(),
                                ply,
                                mv,
                            })),
                            ply,
                            req,
                            premove: spare.map(|spare| {
                                req += 1;
                                let premove = frame(&ClientRequest::new(req, ClientMessage::Premove {
                                    seat,
                                    token: tokens[seat.index()].clone(),
                                    mv: spare.to_owned(),
                                }));
                                (premove, req)
                            }),
                        });
                    }
                    "ack" => {
                        if let Some((r, at, measured)) = pending_ack {
                            if msg.req == Some(r) {
                                if measured {
                                    record(&shared.ack, at);
                                }
                                pending_ack = None;
                            }
                        }
                    }
                    // A premove sent behind a move that ended the game finds it over: no fault.
                    "error" if msg.req.is_some() && msg.req == premove_req && msg.code.as_deref() == Some("game_over") => {}
                    "error" => shared.error(format!(
                        "room {index}: error {} {}",
                        msg.code.unwrap_or_default(),
                        msg.message.unwrap_or_default()
                    )),
                    _ => {}
                }
            }
            () = sleep_until(wake) => {
                let Some(p) = planned.take() else { continue };
                let measured = p.at >= timeline.measure_from;
                if measured {
                    shared.moves.set(shared.moves.get() + 1);
                    shared.expected.set(shared.expected.get() + connections as u64);
                }
                sent.push(Sent {
                    game: games[p.conn],
                    ply: p.ply + 1,
                    at: p.at,
                    measured,
                    got: 0,
                });
                pending_ack = Some((p.req, p.at, measured));
                sinks[p.conn].send(p.message).await?;
                if let Some((premove, req)) = p.premove {
                    premove_req = Some(req);
                    sinks[p.conn].send(premove).await?;
                }
            }
            () = tokio::time::sleep_until(timeline.give_up) => {}
        }
    }
    // The caller drops the connections once every room is done: a disconnection would make the
    // server work (presence events) while other rooms are still measured.
    Ok(Box::new((sinks, streams)))
}

/// Asks for a rematch once per game (the host's connection holds the host token).
async fn rematch(
    sink: &mut Sink,
    req: &mut u64,
    room: &CreateRoomResponse,
    game: u64,
    done_for: u64,
) -> anyhow::Result<u64> {
    if done_for == game {
        return Ok(done_for);
    }
    *req += 1;
    sink.send(frame(&ClientRequest::new(
        *req,
        ClientMessage::Rematch {
            host_token: room.host_token.clone(),
        },
    )))
    .await?;
    Ok(game)
}

fn record(histogram: &RefCell<Histogram<u64>>, since: Instant) {
    let micros = since.elapsed().as_micros() as u64;
    let _ = histogram.borrow_mut().record(micros.max(1));
}

/// Sleeps until `at`, or forever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

type Streams = Vec<futures_util::stream::SplitStream<Socket>>;

/// Creates a room, opens its connections and seats the people: connection `s` holds seat `s`.
async fn set_up(
    base: &str,
    http: &reqwest::Client,
    settings: &SettingsPatch,
    people: usize,
    connections: usize,
) -> anyhow::Result<(CreateRoomResponse, Vec<Sink>, Streams, Vec<String>)> {
    let room = create_room(http, base, settings).await?;
    let mut sinks = Vec::new();
    let mut streams = Vec::new();
    let mut tokens = Vec::new();
    for conn in 0..connections {
        let mut socket = connect(base, &room.id).await?;
        if conn < people {
            let seat = SeatIndex::ALL[conn];
            socket
                .send(frame(&ClientRequest::new(
                    1,
                    ClientMessage::TakeSeat {
                        seat,
                        name: format!("p{seat}"),
                    },
                )))
                .await?;
            let token = until_ack(&mut socket, 1)
                .await?
                .context("take_seat's ack has no token")?;
            tokens.push(token);
        }
        let (sink, stream) = socket.split();
        sinks.push(sink);
        streams.push(stream);
    }
    Ok((room, sinks, streams, tokens))
}
