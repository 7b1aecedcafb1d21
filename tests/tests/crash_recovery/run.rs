//! One run of the 50 rooms: set up, captured, the process stopped (SIGKILL or SIGTERM), left
//! down, started again on the same file, and every room recovered. On a cluster, the rooms are
//! served by a node, and after the downtime another node (at another address) adopts them all.

use std::time::{Duration, Instant};

use anyhow::{Result, bail, ensure};
use fourkings_protocol::{ChatChannel, ClientMessage, GameStatus};
use fourkings_tests::postgres::TestPostgres;
use fourkings_tests::{ServerProcess, fourkings_binary, temp_dir};

use crate::base::Base;
use crate::capture::capture;
use crate::clocks::Moments;
use crate::recover::recover;
use crate::room::Room;
use crate::setup::set_up;
use crate::specs::{Spec, Stage, Twist, specs};

/// Milliseconds in a second of game time: a 60-second turn limit lasts 9 s, a 30-second one 4.5 s,
/// a 3-minute Duo bank 27 s. Enough for the turns left running at the kill to survive the setup,
/// the capture and the restart, short enough to be a real clock.
const TIME_UNIT_MS: &str = "150";
/// How long the server stays dead: time that must not count against any clock.
const DOWNTIME: Duration = Duration::from_millis(2_500);
/// The nodes' lease on a cluster, inside the downtime: the node started after it finds every
/// lease run out. A node renews every third of it: 1.5 s leaves a renewal a second of margin on a
/// busy machine (with 0.6 s, a renewal 0.4 s late would give the rooms up before the kill).
const LEASE_SECONDS: &str = "1.5";
/// How long before its end a node may last have renewed its leases: the moment its rooms' time
/// stands still from, which can come before the marker. Renewals come every third of the lease,
/// or later on a busy machine; a node that went a whole lease without one would have given its
/// rooms up, so a lease is the bound that holds.
const LAST_RENEWAL: Duration = Duration::from_millis(1_500);

/// Runs `set_up`, `capture` or `recover` for many rooms at once.
async fn for_all<F, Fut>(rooms: Vec<Room>, run: F) -> Result<Vec<Room>>
where
    F: Fn(Room) -> Fut,
    Fut: std::future::Future<Output = Result<Room>> + Send + 'static,
{
    let mut tasks = tokio::task::JoinSet::new();
    for (i, room) in rooms.into_iter().enumerate() {
        let run = run(room);
        tasks.spawn(async move { (i, run.await) });
    }
    collect(tasks).await
}

async fn collect(mut tasks: tokio::task::JoinSet<(usize, Result<Room>)>) -> Result<Vec<Room>> {
    let mut done = Vec::new();
    let mut failures = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((i, Ok(room))) => done.push((i, room)),
            Ok((_, Err(e))) => failures.push(format!("{e:#}")),
            Err(e) => failures.push(format!("a task panicked: {e}")),
        }
    }
    if !failures.is_empty() {
        bail!("{} rooms failed:\n{}", failures.len(), failures.join("\n"));
    }
    done.sort_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, room)| room).collect())
}

async fn capture_all(base: &Base, rooms: Vec<Room>) -> Result<Vec<Room>> {
    let base = base.clone();
    for_all(rooms, move |mut room| {
        let base = base.clone();
        async move {
            capture(&base, &mut room).await?;
            Ok(room)
        }
    })
    .await
}

async fn set_up_all(base: &Base, specs: Vec<(usize, Spec)>) -> Result<Vec<Room>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (i, (n, spec)) in specs.into_iter().enumerate() {
        let base = base.clone();
        tasks.spawn(async move { (i, set_up(base, n, spec).await) });
    }
    collect(tasks).await
}

/// How the server is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGKILL: nothing is flushed, nobody is told.
    Kill,
    /// SIGTERM: every room is flushed and every client told the server is restarting (1012).
    Term,
}

/// Where the server keeps its rooms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    /// A SQLite file in a fresh folder.
    File,
    /// A PostgreSQL server of the test's own.
    Postgres,
    /// A node of a cluster over a PostgreSQL server of the test's own; another node takes over.
    Cluster,
}

pub(crate) async fn run(stop: Stop, backend: Backend) -> Result<()> {
    let dir = temp_dir("crash");
    // Kept until the end: the folder of the file, or the database server.
    let postgres = (backend != Backend::File).then(TestPostgres::start);
    let database = match &postgres {
        Some(postgres) => postgres.url(),
        None => {
            let file = dir.path().join("rooms.db");
            file.to_str().expect("a UTF-8 path").to_owned()
        }
    };
    let args = [
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--rate-per-second",
        "1000",
        "--rate-burst",
        "1000",
        "--time-unit-ms",
        TIME_UNIT_MS,
        "--grace-seconds",
        "600",
        "--heartbeat-seconds",
        "60",
        // A newcomer is left unread while the others come back, and in a room of CPUs only the
        // game goes on meanwhile: its socket fills, and with the default queue (256) and write
        // timeout it was sometimes dropped as too slow. Slow clients are tested elsewhere.
        "--outbound-queue",
        "100000",
        "--write-timeout-seconds",
        "600",
        // Random CPU players move at once and always agree to a draw, so the rooms reach the
        // states this test needs on cue; what the bot decides is tested elsewhere.
        "--cpu-strategy",
        "random",
    ];
    let mut env = vec![("FOURKINGS_DATABASE", database.as_str())];
    if backend == Backend::Cluster {
        env.push(("FOURKINGS_NODE_URL", "http://127.0.0.1:0"));
        env.push(("FOURKINGS_LEASE_SECONDS", LEASE_SECONDS));
    }
    let began = Instant::now();
    let mut server = ServerProcess::spawn(fourkings_binary!(), &args, &env);
    let base = Base::of(&server);
    let specs: Vec<(usize, Spec)> = specs()
        .into_iter()
        .enumerate()
        .map(|(i, s)| (i + 1, s))
        .collect();
    let by_stage = |stage: Stage| {
        specs
            .iter()
            .filter(|(_, s)| s.stage == stage)
            .cloned()
            .collect::<Vec<_>>()
    };
    // The rooms of people without clocks are still once set up: they are captured at once. The
    // rooms with clocks come next, so that their turns run for as short a while as possible
    // before the kill; then the last record before the kill (the marker); then the rooms of CPUs
    // start, and are captured while they play.
    let mut early = set_up_all(&base, by_stage(Stage::Early)).await?;
    let mut cpu_rooms = set_up_all(&base, by_stage(Stage::AllCpu)).await?;
    let marker_room = early
        .iter()
        .position(|r| r.spec.twist == Twist::Lobby)
        .expect("a lobby");
    let mut marker = early.remove(marker_room);
    let mut rooms = capture_all(&base, early).await?;
    let early_done = began.elapsed();
    let timed = set_up_all(&base, by_stage(Stage::Timed)).await?;
    rooms.extend(capture_all(&base, timed).await?);
    let timed_done = began.elapsed();
    let marked = Instant::now();
    marker
        .watcher
        .ok(ClientMessage::Chat {
            channel: ChatChannel::Spectators,
            text: "the last words before the kill".into(),
            seat: None,
            token: None,
        })
        .await?;
    capture(&base, &mut marker).await?;
    rooms.push(marker);
    for room in &mut cpu_rooms {
        room.start().await?;
    }
    rooms.extend(capture_all(&base, cpu_rooms).await?);
    let mut told = 0;
    let signalled = Instant::now();
    match stop {
        Stop::Kill => {
            let status = server.signal_and_wait("KILL");
            ensure!(!status.success(), "SIGKILL ends the process: {status:?}");
        }
        Stop::Term => {
            let stopping = tokio::task::spawn_blocking(move || server.signal_and_wait("TERM"));
            // Every connection is told the server is restarting, after whatever it was owed.
            for room in &mut rooms {
                for peer in std::iter::once(&mut room.watcher).chain(room.players.iter_mut()) {
                    told += peer.until_restarting().await?;
                }
            }
            let status = stopping.await?;
            ensure!(
                status.success(),
                "SIGTERM ends the process cleanly: {status:?}"
            );
        }
    }
    let killed = Instant::now();
    let stopped_in = killed - signalled;
    let mut cpu_moves_seen = 0;
    for room in &mut rooms {
        if room.spec.stage == Stage::AllCpu {
            cpu_moves_seen += room
                .before
                .as_ref()
                .and_then(|c| c.snapshot.game.as_ref())
                .map_or(0, |g| g.moves.len());
        }
        // The connections ended with the process.
        for peer in std::iter::once(&mut room.watcher).chain(room.players.iter_mut()) {
            peer.client = None;
        }
    }
    let playing_cpus = rooms
        .iter()
        .filter(|r| {
            r.spec.stage == Stage::AllCpu
                && r.before
                    .as_ref()
                    .is_some_and(|c| c.snapshot.status == GameStatus::Playing)
        })
        .count();
    // The scenario itself, not a wait for something: the server stays down a while, and that
    // time must not count against any clock (the clock checks measure it).
    tokio::time::sleep(DOWNTIME).await;
    let respawned = Instant::now();
    let server = ServerProcess::spawn(fourkings_binary!(), &args, &env);
    let restarted_in = respawned.elapsed();
    let base = Base::of(&server);
    let moments = Moments {
        marker: marked,
        killed,
        respawned,
        stopped_before_marker: if backend == Backend::Cluster {
            LAST_RENEWAL
        } else {
            Duration::ZERO
        },
    };
    let recovered = {
        let base = base.clone();
        for_all(rooms, move |room| recover(base.clone(), room, moments)).await?
    };
    let acked: usize = recovered
        .iter()
        .flat_map(|r| r.players.iter())
        .map(|p| p.acked.len())
        .sum();
    for note in recovered.iter().flat_map(|r| r.notes.iter()) {
        eprintln!("{note}");
    }
    eprintln!(
        "{} rooms: set up and captured in {:.1} s (rooms without clocks {:.1} s), {stop:?} \
         ({told} messages delivered on the way out, exited in {:.2} s), restarted in {:.2} s, recovered and played on; {acked} acknowledged moves standing; \
         {playing_cpus} of the 3 rooms of CPUs still playing at the kill ({cpu_moves_seen} of their \
         moves captured); \
         {:.1} s in all",
        recovered.len(),
        timed_done.as_secs_f64(),
        early_done.as_secs_f64(),
        stopped_in.as_secs_f64(),
        restarted_in.as_secs_f64(),
        began.elapsed().as_secs_f64(),
    );
    Ok(())
}
