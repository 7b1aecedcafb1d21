//! `loadgen cluster`: nodes of a cluster under play, one of them killed, then all restarted in
//! turn. It starts a PostgreSQL server of its own and the nodes (`fourkings serve` with
//! `--node-url`) on 127.0.0.1, and measures:
//!
//! - **steady play**: rooms created on every node, each played at a set rate by four people, two
//!   connected to the room's node and two through other nodes (forwarded): the latency of acks
//!   and of `moved` deliveries, direct and forwarded (the hop's cost), and each node's CPU;
//! - **a node killed** (SIGKILL): for each of its rooms, the time from the kill to the first move
//!   accepted again (its players reconnect through the nodes left, which adopt the room);
//! - **a rolling restart**: the killed node started again, then every node in turn stopped with
//!   SIGTERM and started again, under play: each room's longest pause (the time between two
//!   acks beyond the rate's interval).
//!
//! At the end every room's moves are read back: every acknowledged move must stand at its ply.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use fourkings_protocol::{
    ClientMessage, ClientRequest, CreateRoomResponse, Event, LegalMoves, SeatIndex, ServerMessage,
    SettingsPatch,
};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{Client, ServerProcess};
use hdrhistogram::Histogram;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use tokio::time::Instant;

use crate::system;

/// What to run.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct Args {
    /// The `fourkings` binary the nodes run (a release build for figures).
    #[arg(long)]
    server: PathBuf,
    /// Nodes in the cluster.
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// Rooms created on each node: those of the first node are the ones its kill is timed on.
    #[arg(long, default_value_t = 50)]
    rooms_per_node: usize,
    /// Moves a second in each room.
    #[arg(long, default_value_t = 2.0)]
    rate: f64,
    /// Seconds of steady play measured.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// The nodes' lease, in seconds.
    #[arg(long, default_value_t = 5.0)]
    lease: f64,
    /// Seed of the move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Every person connects to the room's own node (no connection forwarded): the baseline
    /// for the forwarding's cost.
    #[arg(long)]
    all_direct: bool,
    /// The run fails if a room pauses longer than this during the rolling restart (seconds
    /// beyond the rate's interval).
    #[arg(long, default_value_t = 1.0)]
    max_pause_seconds: f64,
    /// A small, quick run (4 rooms a node, 2 seconds, a lease of 3 s, pauses up to 2 s), for the
    /// tests: a pause that waits for a lease to run out fails it.
    #[arg(long)]
    smoke: bool,
}

/// The nodes, as the rooms' clients see them.
struct Nodes {
    bases: Vec<String>,
    alive: Vec<bool>,
}

type Shared<T> = Rc<RefCell<T>>;

/// Latencies of one kind, in microseconds.
struct Latencies {
    direct: Histogram<u64>,
    forwarded: Histogram<u64>,
}

impl Latencies {
    fn new() -> Latencies {
        Latencies {
            direct: Histogram::new(3).expect("a histogram"),
            forwarded: Histogram::new(3).expect("a histogram"),
        }
    }

    fn record(&mut self, forwarded: bool, took: Duration) {
        let histogram = if forwarded {
            &mut self.forwarded
        } else {
            &mut self.direct
        };
        let _ = histogram.record(took.as_micros() as u64);
    }
}

/// What steady play measured.
struct Steady {
    acks: Latencies,
    deliveries: Latencies,
}

/// One seat of a room: its connection (none while it reconnects), token, and the node it goes
/// through.
struct Seat {
    client: Option<Client>,
    token: String,
    via: usize,
}

/// A room of the run.
struct Room {
    id: String,
    /// The node that serves it, as far as the run knows: the one it was created on, until that
    /// node goes (then whichever node adopted it, which the run does not follow).
    owner: Option<usize>,
    seats: Vec<Seat>,
    /// Every acknowledged move, by ply.
    acked: BTreeMap<u32, String>,
    /// When each move was acknowledged.
    ack_times: Vec<Instant>,
    /// The game ended (its moves are no longer measured).
    finished: bool,
    rng: rand_chacha::ChaCha8Rng,
}

/// Runs the whole scenario and prints its tables.
pub(crate) async fn run(args: &Args) -> anyhow::Result<()> {
    let mut args = args.clone();
    if args.smoke {
        args.rooms_per_node = 4;
        args.seconds = 2.0;
        args.lease = 3.0;
        args.max_pause_seconds = 2.0;
    }
    ensure!(args.nodes >= 2, "a cluster of at least two nodes");
    let database = TestPostgres::start();
    let ports = free_ports(args.nodes)?;
    let launch = Launch {
        server: args.server.clone(),
        database: database.url(),
        lease: args.lease,
    };
    let mut processes = Vec::new();
    for &port in &ports {
        processes.push(Some(launch.start(port).await?));
    }
    let nodes = Rc::new(RefCell::new(Nodes {
        bases: ports
            .iter()
            .map(|port| format!("http://127.0.0.1:{port}"))
            .collect(),
        alive: vec![true; args.nodes],
    }));
    let interval = Duration::from_secs_f64(1.0 / args.rate);

    // Rooms, each with two seats through its node and two through the next nodes.
    let mut rooms = Vec::new();
    for home in 0..args.nodes {
        for i in 0..args.rooms_per_node {
            let seed = args.seed ^ ((home * 10_000 + i) as u64);
            rooms.push(set_up(&nodes, home, seed, args.all_direct).await?);
        }
    }
    println!(
        "{} nodes, {} rooms ({} a node), {} moves/s a room, lease {} s, {}",
        args.nodes,
        rooms.len(),
        args.rooms_per_node,
        args.rate,
        args.lease,
        if args.all_direct {
            "every connection to the room's node"
        } else {
            "half the connections through other nodes"
        }
    );

    // Steady play: every room at the rate, timed.
    let steady = Rc::new(RefCell::new(Steady {
        acks: Latencies::new(),
        deliveries: Latencies::new(),
    }));
    let pids: Vec<i32> = processes
        .iter()
        .map(|p| p.as_ref().map_or(0, |p| p.child.id() as i32))
        .collect();
    let cpu_before: Vec<f64> = pids
        .iter()
        .map(|&pid| system::cpu_seconds(pid).unwrap_or(0.0))
        .collect();
    let window = Instant::now();
    let until = window + Duration::from_secs_f64(args.seconds);
    let never = Rc::new(Cell::new(false));
    rooms = play_all(
        rooms,
        &nodes,
        interval,
        until,
        Some(steady.clone()),
        never.clone(),
        false,
    )
    .await?;
    let seconds = window.elapsed().as_secs_f64();
    let moves: usize = rooms
        .iter()
        .map(|r| r.ack_times.iter().filter(|&&at| at >= window).count())
        .sum();
    println!();
    println!("## Steady play: {moves} moves in {seconds:.1} s");
    println!();
    // A node's CPU goes to the moves of its rooms, and to relaying those of others' rooms for
    // the people connected through it: per move of its own rooms, it is what a move costs the
    // cluster, hop included.
    println!("| node | rooms owned | their moves | CPU (cores) | µs of CPU a move of its rooms |");
    println!("|---|---|---|---|---|");
    for (i, &pid) in pids.iter().enumerate() {
        let cpu = system::cpu_seconds(pid).unwrap_or(0.0) - cpu_before[i];
        let owned: Vec<&Room> = rooms.iter().filter(|r| r.owner == Some(i)).collect();
        let their_moves: usize = owned
            .iter()
            .map(|r| r.ack_times.iter().filter(|&&at| at >= window).count())
            .sum();
        println!(
            "| {} | {} | {their_moves} | {:.2} | {:.0} |",
            i + 1,
            owned.len(),
            cpu / seconds,
            cpu * 1e6 / their_moves.max(1) as f64
        );
    }
    {
        let steady = steady.borrow();
        println!();
        println!("| latency (ms) | direct p50 | direct p99 | forwarded p50 | forwarded p99 |");
        println!("|---|---|---|---|---|");
        for (what, latencies) in [
            ("ack", &steady.acks),
            ("`moved` delivered", &steady.deliveries),
        ] {
            println!(
                "| {what} | {:.2} | {:.2} | {:.2} | {:.2} |",
                ms(&latencies.direct, 0.5),
                ms(&latencies.direct, 0.99),
                ms(&latencies.forwarded, 0.5),
                ms(&latencies.forwarded, 0.99),
            );
        }
    }

    // The first node killed: its rooms are adopted by the others.
    let killed = Instant::now();
    if let Some(mut process) = processes[0].take() {
        process.signal_and_wait("KILL");
    }
    nodes.borrow_mut().alive[0] = false;
    let until = killed + Duration::from_secs_f64(args.lease * 2.0 + 10.0);
    let owned_by_killed: Vec<bool> = rooms.iter().map(|r| r.owner == Some(0)).collect();
    for room in &mut rooms {
        room.ack_times.clear();
    }
    rooms = play_all(rooms, &nodes, interval, until, None, never, true).await?;
    let mut back = Histogram::<u64>::new(3)?;
    for (room, owned) in rooms.iter().zip(&owned_by_killed) {
        if *owned && !room.finished {
            let first = room
                .ack_times
                .first()
                .with_context(|| format!("room {} never moved again after the kill", room.id))?;
            back.record(first.duration_since(killed).as_micros() as u64)?;
        }
    }
    println!();
    println!(
        "## Node 1 killed: its {} rooms moved again after (lease {} s)",
        back.len(),
        args.lease
    );
    seconds_table("from the kill to the first move accepted", &back);

    // A rolling restart under play: the killed node back, then each node stopped and started.
    let rolling = Instant::now();
    for room in &mut rooms {
        room.ack_times.clear();
    }
    let stop_play = Rc::new(Cell::new(false));
    let play = {
        let nodes = nodes.clone();
        let until = rolling + Duration::from_secs(3600);
        let stop = stop_play.clone();
        tokio::task::spawn_local(async move {
            play_all(rooms, &nodes, interval, until, None, stop, false).await
        })
    };
    let restarted = async {
        processes[0] = Some(launch.start(ports[0]).await?);
        nodes.borrow_mut().alive[0] = true;
        for i in 1..args.nodes {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let mut process = processes[i].take().expect("running");
            nodes.borrow_mut().alive[i] = false;
            let status =
                tokio::task::spawn_blocking(move || process.signal_and_wait("TERM")).await?;
            ensure!(
                status.success(),
                "node {} stopped cleanly: {status:?}",
                i + 1
            );
            processes[i] = Some(launch.start(ports[i]).await?);
            nodes.borrow_mut().alive[i] = true;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        stop_play.set(true);
        anyhow::Ok(())
    };
    restarted.await?;
    let rooms = play.await??;
    let mut pauses = Histogram::<u64>::new(3)?;
    for room in rooms.iter().filter(|r| !r.finished) {
        let longest = room
            .ack_times
            .windows(2)
            .map(|pair| pair[1].duration_since(pair[0]).saturating_sub(interval))
            .max()
            .unwrap_or_default();
        pauses.record(longest.as_micros() as u64)?;
    }
    println!();
    println!(
        "## Rolling restart of {} nodes under play ({:.1} s)",
        args.nodes,
        rolling.elapsed().as_secs_f64()
    );
    seconds_table("each room's longest pause beyond the rate", &pauses);

    ensure!(
        pauses.max() as f64 / 1e6 <= args.max_pause_seconds,
        "a room paused longer than {} s during the rolling restart",
        args.max_pause_seconds
    );

    // Nothing acknowledged is lost.
    let base = nodes.borrow().bases[1].clone();
    let mut checked = 0;
    for room in &rooms {
        let (_, snapshot) = Client::join(&base, &room.id).await?;
        let game = snapshot.game.context("a game")?;
        for (ply, mv) in &room.acked {
            ensure!(
                game.move_coordinates.get(*ply as usize) == Some(mv),
                "room {}: the acknowledged move {mv} at ply {ply} is not in {:?}",
                room.id,
                game.move_coordinates
            );
            checked += 1;
        }
    }
    println!();
    println!(
        "{checked} acknowledged moves checked in {} rooms: none lost",
        rooms.len()
    );
    Ok(())
}

/// `count` free ports of 127.0.0.1, for nodes that keep theirs across a restart.
fn free_ports(count: usize) -> anyhow::Result<Vec<u16>> {
    let listeners = (0..count)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<Vec<_>, _>>()?)
}

/// How the nodes are started.
#[derive(Clone)]
struct Launch {
    server: PathBuf,
    database: String,
    lease: f64,
}

impl Launch {
    /// A node on `port`, started off this thread: waiting for its `listening` line would stop
    /// every room's play meanwhile.
    async fn start(&self, port: u16) -> anyhow::Result<ServerProcess> {
        let launch = self.clone();
        Ok(tokio::task::spawn_blocking(move || launch.start_blocking(port)).await?)
    }

    fn start_blocking(&self, port: u16) -> ServerProcess {
        let addr = format!("127.0.0.1:{port}");
        let url = format!("http://{addr}");
        ServerProcess::spawn(
            &self.server,
            &["serve", "--addr", &addr],
            &[
                ("FOURKINGS_DATABASE", &self.database),
                ("FOURKINGS_NODE_URL", &url),
                ("FOURKINGS_LEASE_SECONDS", &self.lease.to_string()),
                ("FOURKINGS_CPU_STRATEGY", "random"),
                ("FOURKINGS_RATE_PER_SECOND", "0"),
                ("FOURKINGS_LOG", "warn"),
                ("FOURKINGS_TRUSTED_PROXIES", "127.0.0.1"),
            ],
        )
    }
}

/// Creates a room on node `home` and seats four people: seats 0 and 3 through `home`, seats 1
/// and 2 through the next nodes (through `home` too, `all_direct`); the game is started.
async fn set_up(
    nodes: &Shared<Nodes>,
    home: usize,
    seed: u64,
    all_direct: bool,
) -> anyhow::Result<Room> {
    let (bases, count) = {
        let nodes = nodes.borrow();
        (nodes.bases.clone(), nodes.bases.len())
    };
    let created = reqwest::Client::new()
        .post(format!("{}/api/rooms", bases[home]))
        .body(serde_json::to_string(&SettingsPatch::default())?)
        .send()
        .await?;
    ensure!(
        created.status() == 201,
        "creating a room: {}",
        created.status()
    );
    let room: CreateRoomResponse = created.json().await?;
    let mut seats = Vec::new();
    for seat in SeatIndex::ALL {
        let via = match seat.index() {
            0 | 3 => home,
            _ if all_direct => home,
            i => (home + i) % count,
        };
        let (mut client, _) = Client::join(&bases[via], &room.id).await?;
        let token = client.take_seat(seat, &format!("player {seat}")).await;
        seats.push(Seat {
            client: Some(client),
            token,
            via,
        });
    }
    let host_token = room.host_token.clone();
    if let Some(client) = &mut seats[0].client {
        client.ok(ClientMessage::Start { host_token }).await;
    }
    Ok(Room {
        id: room.id,
        owner: Some(home),
        seats,
        acked: BTreeMap::new(),
        ack_times: Vec::new(),
        finished: false,
        rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    })
}

/// Plays every room at the rate until `until` (or until `stop` is set; with `once`, until each
/// has had a move accepted), each in a task of its own; returns them.
async fn play_all(
    rooms: Vec<Room>,
    nodes: &Shared<Nodes>,
    interval: Duration,
    until: Instant,
    steady: Option<Shared<Steady>>,
    stop: Rc<Cell<bool>>,
    once: bool,
) -> anyhow::Result<Vec<Room>> {
    let mut tasks = Vec::new();
    for (i, mut room) in rooms.into_iter().enumerate() {
        let nodes = nodes.clone();
        let steady = steady.clone();
        let stop = stop.clone();
        tasks.push(tokio::task::spawn_local(async move {
            // Spread over the interval, so that the rooms do not all move at once; a room waiting
            // to move again moves as soon as it can.
            let spread = if once { 0.0 } else { (i % 97) as f64 / 97.0 };
            let first = Instant::now() + interval.mul_f64(spread);
            let pace = Pace {
                interval,
                first,
                until,
                stop: &stop,
                once,
            };
            room.play(&nodes, pace, steady.as_ref()).await?;
            anyhow::Ok(room)
        }));
    }
    let mut rooms = Vec::new();
    for task in tasks {
        rooms.push(task.await??);
    }
    Ok(rooms)
}

/// How long any one step may take before the run gives up on it.
const STEP: Duration = Duration::from_secs(30);

/// When a room moves: every `interval` from `first`, until `until` or `stop`, or (`once`) until
/// one move is accepted.
struct Pace<'a> {
    interval: Duration,
    first: Instant,
    until: Instant,
    stop: &'a Cell<bool>,
    once: bool,
}

impl Room {
    /// Plays moves at `pace`, reconnecting seats whose connection ends.
    async fn play(
        &mut self,
        nodes: &Shared<Nodes>,
        pace: Pace<'_>,
        steady: Option<&Shared<Steady>>,
    ) -> anyhow::Result<()> {
        let Pace {
            interval,
            first,
            until,
            stop,
            once,
        } = pace;
        let mut next = first;
        while !self.finished && Instant::now() < until && !stop.get() {
            let Some(legal) = self.legal_moves(nodes).await? else {
                continue;
            };
            tokio::time::sleep_until(next).await;
            next = (next + interval).max(Instant::now());
            let mv = legal
                .moves
                .choose(&mut self.rng)
                .context("a seat to move has a move")?
                .clone();
            let seat = legal.seat;
            let sent = Instant::now();
            // A move that got no ack is tried again at once, not at the next slot: the pauses
            // measured are the server's, not the pace's.
            match self.send_move(seat, legal.ply, &mv).await {
                Some(true) => {}
                // Refused (the room moved on while this seat was away): read the room again.
                Some(false) => {
                    next = Instant::now();
                    continue;
                }
                None => {
                    self.seats[seat.index()].client = None;
                    next = Instant::now();
                    continue;
                }
            }
            let acked = Instant::now();
            self.acked.insert(legal.ply, mv);
            self.ack_times.push(acked);
            if let Some(steady) = steady {
                let forwarded = Some(self.seats[seat.index()].via) != self.owner;
                steady
                    .borrow_mut()
                    .acks
                    .record(forwarded, acked.duration_since(sent));
            }
            self.await_deliveries(seat, legal.ply, sent, steady).await;
            if once {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The legal moves of the seat to move, from its connection (reconnecting it first if it
    /// has none); `None` when the connection ended meanwhile.
    async fn legal_moves(&mut self, nodes: &Shared<Nodes>) -> anyhow::Result<Option<LegalMoves>> {
        for index in 0..4 {
            if self.seats[index].client.is_none() {
                self.reconnect(index, nodes).await?;
            }
        }
        // Whoever is to move hears its legal moves; the others hear nothing of the sort.
        let reads = self.seats.iter_mut().map(|seat| async {
            let client = seat.client.as_mut()?;
            loop {
                match tokio::time::timeout(STEP, client.try_next()).await {
                    Ok(Ok(ServerMessage::LegalMoves { moves, .. })) => return Some(Ok(moves)),
                    // After a hello, the seat's snapshot carries them.
                    Ok(Ok(ServerMessage::Snapshot(snapshot))) if snapshot.legal_moves.is_some() => {
                        return Some(Ok(snapshot.legal_moves.expect("checked")));
                    }
                    Ok(Ok(ServerMessage::Event {
                        event: Event::Moved(moved),
                        ..
                    })) if moved.result.is_some() => return Some(Err(())),
                    Ok(Ok(_)) => continue,
                    _ => return Some(Err(())),
                }
            }
        });
        let mut reads: futures_util::stream::FuturesUnordered<_> = reads.collect();
        use futures_util::StreamExt;
        let found = loop {
            match reads.next().await {
                Some(Some(Ok(moves))) => break Some(moves),
                // A connection ended, or the game did: find out which below.
                Some(Some(Err(()))) => break None,
                Some(None) => continue,
                None => break None,
            }
        };
        drop(reads);
        if found.is_none() {
            self.check_connections().await;
        }
        Ok(found)
    }

    /// After a read failed: drops connections that ended, and marks the room finished if its
    /// game is over.
    async fn check_connections(&mut self) {
        for seat in &mut self.seats {
            let Some(client) = seat.client.as_mut() else {
                continue;
            };
            let req = client.req();
            if client
                .try_send(&ClientRequest::new(req, ClientMessage::Ping))
                .await
                .is_err()
            {
                seat.client = None;
                continue;
            }
            let alive = tokio::time::timeout(Duration::from_secs(5), async {
                loop {
                    match client.try_next().await {
                        Ok(ServerMessage::Pong { .. }) => return true,
                        Ok(_) => continue,
                        Err(_) => return false,
                    }
                }
            })
            .await
            .unwrap_or(false);
            if !alive {
                seat.client = None;
            }
        }
        if self.seats.iter().all(|s| s.client.is_some()) {
            // Every connection answers, and none had moves to make: the game is over.
            self.finished = true;
        }
    }

    /// Sends the move and waits for its answer: `Some(true)` acknowledged, `Some(false)` refused,
    /// `None` the connection ended first.
    async fn send_move(&mut self, seat: SeatIndex, ply: u32, mv: &str) -> Option<bool> {
        let token = self.seats[seat.index()].token.clone();
        let client = self.seats[seat.index()].client.as_mut()?;
        let req = client.req();
        let request = ClientRequest::new(
            req,
            ClientMessage::Move {
                seat,
                token,
                ply,
                mv: mv.to_owned(),
            },
        );
        client.try_send(&request).await.ok()?;
        loop {
            match tokio::time::timeout(STEP, client.try_next()).await {
                Ok(Ok(ServerMessage::Ack { req: r, .. })) if r == req => return Some(true),
                Ok(Ok(ServerMessage::Error { req: Some(r), .. })) if r == req => {
                    return Some(false);
                }
                Ok(Ok(_)) => continue,
                _ => return None,
            }
        }
    }

    /// Waits until every other connection has the move's `moved` event, timing each.
    async fn await_deliveries(
        &mut self,
        mover: SeatIndex,
        ply: u32,
        sent: Instant,
        steady: Option<&Shared<Steady>>,
    ) {
        let owner = self.owner;
        let reads = self
            .seats
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| *i != mover.index())
            .map(|(_, seat)| async move {
                let client = seat.client.as_mut()?;
                loop {
                    match tokio::time::timeout(STEP, client.try_next()).await {
                        Ok(Ok(ServerMessage::Event {
                            event: Event::Moved(moved),
                            ..
                        })) if moved.ply == ply + 1 => {
                            return Some((Some(seat.via) != owner, Instant::now()));
                        }
                        Ok(Ok(_)) => continue,
                        _ => {
                            seat.client = None;
                            return None;
                        }
                    }
                }
            });
        let arrived = futures_util::future::join_all(reads).await;
        if let Some(steady) = steady {
            let mut steady = steady.borrow_mut();
            for (forwarded, at) in arrived.into_iter().flatten() {
                steady.deliveries.record(forwarded, at.duration_since(sent));
            }
        }
    }

    /// Connects seat `index` again through a live node (the room's own if it is alive, else
    /// one at random), trying until a node serves the room, and says hello with its token.
    async fn reconnect(&mut self, index: usize, nodes: &Shared<Nodes>) -> anyhow::Result<()> {
        let deadline = Instant::now() + STEP;
        loop {
            let via = {
                let nodes = nodes.borrow();
                let live: Vec<usize> = (0..nodes.bases.len()).filter(|&i| nodes.alive[i]).collect();
                let wanted = self.seats[index].via;
                if live.contains(&wanted) {
                    wanted
                } else {
                    *live.choose(&mut self.rng).context("a live node")?
                }
            };
            let base = nodes.borrow().bases[via].clone();
            if let Ok((mut client, _)) = Client::join(&base, &self.id).await {
                if hello(&mut client, &self.seats[index].token).await {
                    let seat = &mut self.seats[index];
                    seat.client = Some(client);
                    seat.via = via;
                    if self.owner.is_some_and(|owner| !nodes.borrow().alive[owner]) {
                        self.owner = None;
                    }
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                bail!("room {}: no node served it within {STEP:?}", self.id);
            }
            tokio::time::sleep(Duration::from_millis(20 + self.rng.random_range(0..30))).await;
        }
    }
}

/// Says hello with a seat's token: whether it was acknowledged.
async fn hello(client: &mut Client, token: &str) -> bool {
    let req = client.req();
    let hello = ClientMessage::Hello {
        seat_tokens: vec![token.to_owned()],
        host_token: None,
        since: None,
    };
    if client
        .try_send(&ClientRequest::new(req, hello))
        .await
        .is_err()
    {
        return false;
    }
    loop {
        match tokio::time::timeout(STEP, client.try_next()).await {
            Ok(Ok(ServerMessage::Ack { req: r, .. })) if r == req => return true,
            Ok(Ok(ServerMessage::Error { req: Some(r), .. })) if r == req => return false,
            Ok(Ok(_)) => continue,
            _ => return false,
        }
    }
}

/// A table of one row: `histogram`'s p50, p99 and max (recorded in microseconds), in seconds.
fn seconds_table(what: &str, histogram: &Histogram<u64>) {
    println!();
    println!("| {what} | p50 | p99 | max |");
    println!("|---|---|---|---|");
    println!(
        "| seconds | {:.2} | {:.2} | {:.2} |",
        ms(histogram, 0.5) / 1000.0,
        ms(histogram, 0.99) / 1000.0,
        histogram.max() as f64 / 1e6
    );
}

/// A quantile in milliseconds.
fn ms(histogram: &Histogram<u64>, quantile: f64) -> f64 {
    histogram.value_at_quantile(quantile) as f64 / 1000.0
}
