//! What durable storage costs: move round-trip latency, moves per second and CPU per move with
//! storage in memory (off), in SQLite and, given `--postgres URL`, in PostgreSQL, measured in one
//! run. Rounds rotate through the stores, so that a noisy neighbour slows each alike; medians and
//! their ratios to memory are printed.
//!
//! `cargo run --release -p fourkings-tests --bin storage-cost -- --rooms 50 --seconds 5 --rounds 3`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use clap::ValueEnum;
use fourkings_protocol::{
    ClientMessage, ClientRequest, CreateRoomResponse, SeatIndex, ServerMessage, SettingsPatch,
};
use fourkings_server::{Config, Database, Server, StorageSync};
use futures_util::{SinkExt, StreamExt};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use tokio_tungstenite::tungstenite::Message;

#[derive(Parser)]
struct Args {
    /// Rooms playing at once.
    #[arg(long, default_value_t = 50)]
    rooms: usize,
    /// Seconds each round measures.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Rounds per configuration (alternating).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// SQLite synchronisation.
    #[arg(long, value_enum, default_value_t = StorageSync::Full)]
    sync: StorageSync,
    /// Fail unless SQLite keeps at least this share of the throughput.
    #[arg(long)]
    require_ratio: Option<f64>,
    /// Measure PostgreSQL too, in this database (each round adds its rooms to it).
    #[arg(long)]
    postgres: Option<String>,
}

/// Where a round keeps its rooms.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Memory,
    Sqlite,
    Postgres,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Memory => "off (memory)",
            Kind::Sqlite => "SQLite file",
            Kind::Postgres => "PostgreSQL",
        }
    }
}

/// One round's result.
struct Round {
    moves: u64,
    seconds: f64,
    latency: Histogram<u64>,
    /// CPU seconds of this process (the server and the players) while it measured.
    cpu: f64,
    /// CPU seconds of PostgreSQL's processes while it measured.
    database_cpu: f64,
    /// The server's histogram of commit times: each bucket's bound (seconds) and how many
    /// commits took at most that long, then the total seconds and count.
    commits: Commits,
}

/// A histogram of commit times, as `/metrics` gives it.
#[derive(Default)]
struct Commits {
    buckets: Vec<(f64, u64)>,
    seconds: f64,
    count: u64,
}

impl Commits {
    /// Reads `fourkings_storage_commit_seconds` from a `/metrics` text.
    fn from_metrics(text: &str) -> Commits {
        let mut commits = Commits::default();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("fourkings_storage_commit_seconds") else {
                continue;
            };
            let Some((name, value)) = rest.rsplit_once(' ') else {
                continue;
            };
            let value: f64 = value.parse().unwrap_or(0.0);
            if let Some(bound) = name
                .strip_prefix("_bucket{le=\"")
                .and_then(|b| b.strip_suffix("\"}"))
            {
                let bound = bound.parse().unwrap_or(f64::INFINITY);
                commits.buckets.push((bound, value as u64));
            } else if name == "_sum" {
                commits.seconds = value;
            } else if name == "_count" {
                commits.count = value as u64;
            }
        }
        commits
    }

    fn add(&mut self, other: &Commits) {
        if self.buckets.is_empty() {
            self.buckets = other.buckets.clone();
        } else {
            for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
                mine.1 += theirs.1;
            }
        }
        self.seconds += other.seconds;
        self.count += other.count;
    }

    /// The least bucket bound that at least `q` of the commits took no longer than, in ms.
    fn quantile_bound_ms(&self, q: f64) -> f64 {
        let wanted = (self.count as f64 * q).ceil() as u64;
        self.buckets
            .iter()
            .find(|(_, n)| *n >= wanted)
            .map_or(f64::INFINITY, |(bound, _)| bound * 1000.0)
    }

    fn mean_ms(&self) -> f64 {
        self.seconds * 1000.0 / self.count.max(1) as f64
    }
}

/// CPU seconds spent so far by this process, and by PostgreSQL's processes on this machine.
fn cpu_seconds() -> anyhow::Result<(f64, f64)> {
    let ticks = procfs::ticks_per_second() as f64;
    let own = procfs::process::Process::myself()?.stat()?;
    let mut database = 0;
    for process in procfs::process::all_processes()?.flatten() {
        if let Ok(stat) = process.stat() {
            if stat.comm == "postgres" {
                database += stat.utime + stat.stime;
            }
        }
    }
    Ok((
        (own.utime + own.stime) as f64 / ticks,
        database as f64 / ticks,
    ))
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("fourkings-storage-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut kinds = vec![Kind::Memory, Kind::Sqlite];
    if args.postgres.is_some() {
        kinds.push(Kind::Postgres);
    }
    let mut results: Vec<Vec<Round>> = kinds.iter().map(|_| Vec::new()).collect();
    for round in 0..args.rounds {
        // The order turns every round, so that a load that comes or goes mid-run weighs on all.
        for i in 0..kinds.len() {
            let k = (i + round) % kinds.len();
            let database = match kinds[k] {
                Kind::Memory => None,
                Kind::Sqlite => Some(Database::File(dir.join(format!("round-{round}.db")))),
                Kind::Postgres => args.postgres.clone().map(Database::Postgres),
            };
            results[k].push(measure(&args, database).await?);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let summary = |rounds: &[Round]| {
        let mut rates: Vec<f64> = rounds.iter().map(|r| r.moves as f64 / r.seconds).collect();
        rates.sort_by(f64::total_cmp);
        let mut all = Histogram::<u64>::new(3).expect("histogram");
        for r in rounds {
            all.add(&r.latency).expect("same bounds");
        }
        let moves: u64 = rounds.iter().map(|r| r.moves).sum::<u64>().max(1);
        let per_move = |cpu: f64| cpu * 1e6 / moves as f64;
        let mut commits = Commits::default();
        for r in rounds {
            commits.add(&r.commits);
        }
        (
            rates[rates.len() / 2],
            all,
            per_move(rounds.iter().map(|r| r.cpu).sum()),
            per_move(rounds.iter().map(|r| r.database_cpu).sum()),
            commits,
        )
    };
    let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "{} rooms, {} rounds of {} s each, rotating; SQLite sync={}; moves/s are the median round's",
        args.rooms,
        args.rounds,
        args.seconds,
        args.sync
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_owned())
    );
    println!("move: a move's round trip, from sending it to its ack; commit: one transaction");
    println!(
        "{:<16} {:>8} {:>9} {:>9} {:>9} {:>12} {:>14} {:>9} {:>9}",
        "storage",
        "moves/s",
        "move p50",
        "move p99",
        "move max",
        "commit mean",
        "commit p99 <=",
        "CPU/move",
        "DB/move"
    );
    for (kind, rounds) in kinds.iter().zip(&results) {
        let (rate, latency, cpu, database_cpu, commits) = summary(rounds);
        let commit = |text: String| {
            if *kind == Kind::Memory {
                "-".to_owned()
            } else {
                text
            }
        };
        println!(
            "{:<16} {rate:>8.0} {:>6.2} ms {:>6.2} ms {:>6.2} ms {:>12} {:>14} {cpu:>6.0} us {database_cpu:>6.0} us",
            kind.name(),
            ms(&latency, 0.5),
            ms(&latency, 0.99),
            latency.max() as f64 / 1000.0,
            commit(format!("{:.2} ms", commits.mean_ms())),
            commit(format!("{} ms", commits.quantile_bound_ms(0.99))),
        );
    }
    // Each round's rounds ran back to back under the same neighbours: the median of the rounds'
    // ratios is the figure least moved by a noisy machine.
    let ratio_to_memory = |k: usize| {
        let mut ratios: Vec<f64> = results[0]
            .iter()
            .zip(&results[k])
            .map(|(off, on)| (on.moves as f64 / on.seconds) / (off.moves as f64 / off.seconds))
            .collect();
        ratios.sort_by(f64::total_cmp);
        let listed: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        (ratios[ratios.len() / 2], listed.join(" "))
    };
    for (k, kind) in kinds.iter().enumerate().skip(1) {
        let (ratio, listed) = ratio_to_memory(k);
        println!(
            "throughput on {}: {ratio:.2} of memory's (median of the rounds' ratios: {listed})",
            kind.name()
        );
    }
    let (ratio, _) = ratio_to_memory(1);
    if let Some(required) = args.require_ratio {
        if ratio < required {
            bail!("storage keeps {ratio:.2} of the throughput, below the required {required}");
        }
    }
    Ok(())
}

/// Runs `args.rooms` rooms against a fresh server for `args.seconds`.
async fn measure(args: &Args, database: Option<Database>) -> anyhow::Result<Round> {
    let mut config = Config::with_addr("127.0.0.1:0".parse()?);
    config.rate_per_second = 100_000;
    config.rate_burst = 100_000;
    // Every player comes from 127.0.0.1.
    config.room_creations_per_minute = 0;
    config.max_connections_per_address = 0;
    config.max_sockets_per_address = 0;
    if let Some(database) = database {
        config.in_memory = false;
        config.database = database;
        config.storage_sync = args.sync;
    }
    let server = Server::start(config).await?;
    let base = format!("http://{}", server.addr());
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for seed in 0..args.rooms {
        players.push(tokio::spawn(play_room(
            base.clone(),
            seed as u64,
            stop.clone(),
        )));
    }
    // Let every room start before measuring.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let cpu_before = cpu_seconds()?;
    let mut counted = Vec::new();
    tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
    stop.store(true, Ordering::SeqCst);
    let seconds = started.elapsed().as_secs_f64();
    let cpu_after = cpu_seconds()?;
    for player in players {
        counted.push(player.await??);
    }
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await?
        .text()
        .await?;
    server.stop().await;
    let mut latency = Histogram::<u64>::new(3)?;
    let mut moves = 0;
    for (n, h) in counted {
        moves += n;
        latency.add(&h)?;
    }
    Ok(Round {
        moves,
        seconds,
        latency,
        cpu: cpu_after.0 - cpu_before.0,
        database_cpu: cpu_after.1 - cpu_before.1,
        commits: Commits::from_metrics(&metrics),
    })
}

/// One room played by one connection holding all four seats, moving as fast as the server acks,
/// a new room whenever a game ends. Returns the moves acked after the warm-up and their latencies.
async fn play_room(
    base: String,
    seed: u64,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<(u64, Histogram<u64>)> {
    let http = reqwest::Client::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut latency = Histogram::<u64>::new(3)?;
    let mut moves = 0u64;
    let warmup_until = Instant::now() + Duration::from_millis(500);
    while !stop.load(Ordering::SeqCst) {
        let room: CreateRoomResponse = http
            .post(format!("{base}/api/rooms"))
            .body(serde_json::to_string(&SettingsPatch {
                move_limit: Some(300),
                ..SettingsPatch::default()
            })?)
            .send()
            .await?
            .json()
            .await?;
        let url = format!("{}/ws/{}", base.replace("http://", "ws://"), room.id);
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await?;
        let mut req = 0u64;
        let send =
            |msg: ClientRequest| Message::text(serde_json::to_string(&msg).expect("serialises"));
        let mut tokens = vec![String::new(); 4];
        for seat in SeatIndex::ALL {
            req += 1;
            socket
                .send(send(ClientRequest::new(
                    req,
                    ClientMessage::TakeSeat {
                        seat,
                        name: format!("p{seat}"),
                    },
                )))
                .await?;
        }
        req += 1;
        socket
            .send(send(ClientRequest::new(
                req,
                ClientMessage::Start {
                    host_token: room.host_token.clone(),
                },
            )))
            .await?;
        let mut pending: Option<(u64, Instant)> = None;
        let mut seat_req = std::collections::HashMap::new();
        for (seat, r) in SeatIndex::ALL.into_iter().zip(1..) {
            seat_req.insert(r, seat);
        }
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok((moves, latency));
            }
            let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
                .await
                .context("no message for 10 s")?
                .context("the connection ended")??;
            let Message::Text(text) = frame else { continue };
            match serde_json::from_str::<ServerMessage>(&text)? {
                ServerMessage::Ack {
                    req: r,
                    seat_token: Some(token),
                    ..
                } => {
                    if let Some(&seat) = seat_req.get(&r) {
                        tokens[seat.index()] = token;
                    }
                }
                ServerMessage::Ack { req: r, .. } => {
                    if let Some((waiting, sent)) = pending {
                        if waiting == r {
                            pending = None;
                            if sent >= warmup_until {
                                latency.record(sent.elapsed().as_micros() as u64)?;
                                moves += 1;
                            }
                        }
                    }
                }
                ServerMessage::LegalMoves { moves: legal, .. } => {
                    if legal.moves.is_empty() || tokens[legal.seat.index()].is_empty() {
                        continue;
                    }
                    let mv = legal.moves[rng.random_range(0..legal.moves.len())].clone();
                    req += 1;
                    let token = tokens[legal.seat.index()].clone();
                    pending = Some((req, Instant::now()));
                    socket
                        .send(send(ClientRequest::new(
                            req,
                            ClientMessage::Move {
                                seat: legal.seat,
                                token,
                                ply: legal.ply,
                                mv,
                            },
                        )))
                        .await?;
                }
                ServerMessage::Event {
                    event: fourkings_protocol::Event::Moved(m),
                    ..
                } if m.result.is_some() => break,
                ServerMessage::Event {
                    event: fourkings_protocol::Event::GameChanged { game, .. },
                    ..
                } if game.result.is_some() => {
                    break;
                }
                ServerMessage::Error { code, message, .. } => {
                    bail!("server error {}: {message}", code.as_str())
                }
                _ => {}
            }
        }
    }
    Ok((moves, latency))
}
