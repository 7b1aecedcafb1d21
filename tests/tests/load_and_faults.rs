//! 200 rooms of four clients play random legal moves at the same time while clients drop and
//! reconnect at random; at the end every game is finished and consistent: no lost move, no
//! duplicated move, every client's board equal to the server's.
//!
//! Each client keeps its own copy of the room ([`Model`]) purely from what the server sends. The
//! faults, all drawn from a seeded generator:
//!
//! - a client drops its connection (a close handshake or just the socket), sometimes right after
//!   sending a move and before its answer, waits a few milliseconds (one drop in twenty waits
//!   150–500 ms, long enough to miss several events), reconnects and says `hello` with its seat
//!   token and the last version it holds (or, sometimes, without a version, to get a snapshot),
//!   and catches up from the missed events or the snapshot;
//! - a client "loses" an event (does not apply it), so that the next one shows a gap that it must
//!   notice and `resync` (a client that hears nothing for a second resyncs too: the lost event may
//!   have been the last one).
//!
//! Every game is played to its end (a move limit ends each), however long the machine takes.
//!
//! A move sent just before a drop may reach the room after the reconnection, so the move sent
//! again for the same ply may be refused (`stale_ply`, `not_your_turn`, `game_over`): that is
//! the only error a client accepts. The server keeps only a few events per room here, so that
//! some reconnections with a version are answered with a snapshot too. The server's own tasks
//! must not panic either. The seed can be set with `FOURKINGS_LOAD_SEED` (the interleaving of
//! 800 clients is not reproducible, only the random choices are).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use fourkings_protocol::{
    ClientMessage, ClientRequest, ErrorCode, Event, GameStatus, LegalMoves, SeatIndex,
    ServerMessage, SettingsPatch,
};
use fourkings_tests::model::{Model, Step};
use fourkings_tests::{Client, TestServer, WAIT};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ROOMS: usize = 200;
/// The presets the rooms cycle through.
const PRESETS: [&str; 6] = [
    "teams",
    "ffa",
    "duo",
    "teams-house",
    "ffa-walking-kings",
    "teams-classic",
];
/// How long the rooms may take to play every game to its end (a move limit ends each): a guard
/// against a stall, far above what they take (30 s on a quiet 2-core machine, about a minute on
/// a busy one), not a measure of speed. A game still going then is cut off and fails the test.
const PLAY_BUDGET: Duration = Duration::from_secs(150);
/// Events a room keeps for resync (small, so that some reconnections get a snapshot).
const EVENT_HISTORY: usize = 3;
/// The chance, after any message, that a client drops its connection.
const DROP_CHANCE: f64 = 0.01;
/// The chance that a client drops its connection right after sending a move.
const DROP_AFTER_MOVE_CHANCE: f64 = 0.05;
/// The chance that a reconnection says `hello` without a version (and gets a snapshot).
const HELLO_WITHOUT_VERSION_CHANCE: f64 = 0.2;
/// The chance that a client ignores an event, as if it had been lost, and must resync.
const LOSE_EVENT_CHANCE: f64 = 0.004;
/// How long a dropped client waits before reconnecting, in milliseconds: usually a few, sometimes
/// long enough to miss more events than the room keeps.
const DROP_DELAY_MS: std::ops::RangeInclusive<u64> = 1..=12;
/// The wait of a long drop, in milliseconds.
const LONG_DROP_DELAY_MS: std::ops::RangeInclusive<u64> = 150..=500;
/// The chance that a drop is a long one.
const LONG_DROP_CHANCE: f64 = 0.05;
/// How long a client waits for a message before it asks whether it missed one.
const IDLE: Duration = Duration::from_secs(1);

/// What the clients counted.
#[derive(Clone, Debug, Default)]
struct Stats {
    moves_sent: u64,
    moves_acked: u64,
    /// Acked moves whose `moved` event the client saw with the same seat, ply and move.
    acks_confirmed: u64,
    /// Acked moves the client only learnt about through a snapshot (still in the final record).
    acks_in_snapshots: u64,
    reconnections: u64,
    drops_after_move: u64,
    hellos_with_version: u64,
    hellos_without_version: u64,
    /// Hellos with a version answered with the missed events.
    caught_up_by_events: u64,
    /// Hellos with a version answered with a snapshot (the room no longer held the events).
    caught_up_by_snapshot: u64,
    /// Drops that waited long enough to miss several events.
    long_drops: u64,
    events_lost: u64,
    gaps_resynced: u64,
    /// Resyncs after a quiet while (the last event may be the lost one).
    idle_resyncs: u64,
    duplicates_ignored: u64,
    snapshots_adopted: u64,
    events_applied: u64,
    /// Moves sent just before a drop that the client later saw played.
    dropped_moves_played: u64,
    /// Plies for which the seat was asked again after a move sent just before a drop (that move
    /// had not reached the room yet, or never did).
    asked_again_after_drop: u64,
    /// Moves refused after a reconnection: the move sent for the same ply before the drop reached
    /// the room later and was played.
    refused_after_reconnect: u64,
    closed_by_server: u64,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.moves_sent += other.moves_sent;
        self.moves_acked += other.moves_acked;
        self.acks_confirmed += other.acks_confirmed;
        self.acks_in_snapshots += other.acks_in_snapshots;
        self.reconnections += other.reconnections;
        self.drops_after_move += other.drops_after_move;
        self.hellos_with_version += other.hellos_with_version;
        self.hellos_without_version += other.hellos_without_version;
        self.caught_up_by_events += other.caught_up_by_events;
        self.caught_up_by_snapshot += other.caught_up_by_snapshot;
        self.long_drops += other.long_drops;
        self.events_lost += other.events_lost;
        self.gaps_resynced += other.gaps_resynced;
        self.idle_resyncs += other.idle_resyncs;
        self.duplicates_ignored += other.duplicates_ignored;
        self.snapshots_adopted += other.snapshots_adopted;
        self.events_applied += other.events_applied;
        self.dropped_moves_played += other.dropped_moves_played;
        self.asked_again_after_drop += other.asked_again_after_drop;
        self.refused_after_reconnect += other.refused_after_reconnect;
        self.closed_by_server += other.closed_by_server;
    }
}

/// One client holding one seat.
struct Player {
    server: Arc<TestServer>,
    room: String,
    seat: SeatIndex,
    token: String,
    model: Model,
    rng: ChaCha8Rng,
    client: Option<Client>,
    /// The `hello` or `resync` waiting for its ack: until then, events and legal moves are
    /// ignored (what follows the ack covers them).
    catching_up: Option<u64>,
    /// The moves sent on this connection and not answered yet: request → ply, move. Usually one;
    /// two when the room asked for a later ply before refusing one sent after a reconnection
    /// (the move sent before the drop reached the room first).
    pending: BTreeMap<u64, (u32, String)>,
    /// Plies of moves sent on connections that dropped before the answer: their fate is unknown,
    /// so a later move for the same ply may be refused.
    unanswered: BTreeSet<u32>,
    /// Acked moves by the ply they were played at (0 for the first), not yet seen as `moved`.
    acked: BTreeMap<u32, String>,
    /// Whether faults are injected and moves played (off for the final check).
    playing: bool,
    /// Counts the connections opened.
    generation: u64,
    /// Whether the last `hello` carried a version.
    hello_with_version: bool,
    /// Set by the ack of a `hello`: whether it carried a version (the message after it shows
    /// how the server answered).
    after_hello: Option<bool>,
    /// The version held when it last changed, and when.
    progress: (u64, Instant),
    stats: Stats,
}

impl Player {
    fn fail(&self, what: impl std::fmt::Display) -> String {
        format!("room {} seat {}: {what}", self.room, self.seat)
    }

    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("connected")
    }

    /// Connects, reads the first snapshot and takes the seat.
    async fn seat(
        server: Arc<TestServer>,
        room: &str,
        seat: SeatIndex,
        seed: u64,
    ) -> Result<Player, String> {
        let (client, snapshot) = server.connect(room).await;
        let mut player = Player {
            server,
            room: room.to_owned(),
            seat,
            token: String::new(),
            model: Model::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            client: Some(client),
            catching_up: None,
            pending: BTreeMap::new(),
            unanswered: BTreeSet::new(),
            acked: BTreeMap::new(),
            playing: true,
            generation: 0,
            hello_with_version: false,
            after_hello: None,
            progress: (0, Instant::now()),
            stats: Stats::default(),
        };
        player.model.adopt(&snapshot).map_err(|e| player.fail(e))?;
        let name = format!("player {seat}");
        let answer = player
            .request(ClientMessage::TakeSeat { seat, name })
            .await?;
        match answer {
            ServerMessage::Ack {
                seat_token: Some(token),
                ..
            } => player.token = token,
            other => return Err(player.fail(format!("take_seat answered {other:?}"))),
        }
        Ok(player)
    }

    /// Sends a request and handles everything else until its answer, which it returns.
    async fn request(&mut self, message: ClientMessage) -> Result<ServerMessage, String> {
        self.reset_progress();
        let client = self.client();
        let req = client.req();
        client.send(&ClientRequest::new(req, message)).await;
        loop {
            let message = self.next(Instant::now() + WAIT).await?;
            match message {
                Some(
                    ServerMessage::Ack { req: r, .. } | ServerMessage::Error { req: Some(r), .. },
                ) if r == req => {
                    return Ok(message.expect("matched"));
                }
                Some(other) => self.handle(other).await?,
                None => return Err(self.fail(format!("no answer to request {req}"))),
            }
        }
    }

    /// The next message before `deadline` (`None` when the deadline comes first). The server
    /// closing the connection counts as a drop: the client reconnects.
    async fn next(&mut self, deadline: Instant) -> Result<Option<ServerMessage>, String> {
        loop {
            if self.client.is_none() {
                self.reconnect().await?;
            }
            let wake = (Instant::now() + IDLE).min(deadline);
            let client = self.client();
            match tokio::time::timeout_at(wake.into(), client.try_next()).await {
                Err(_) if wake >= deadline => return Ok(None),
                Err(_) => {
                    // Quiet for a while: the last event may have been lost, which no later event
                    // would reveal. Ask, unless nothing has moved for far too long.
                    if self.model.v != self.progress.0 {
                        self.progress = (self.model.v, Instant::now());
                    } else if self.progress.1.elapsed() > WAIT {
                        return Err(self.hang().await);
                    }
                    if self.catching_up.is_none() {
                        self.stats.idle_resyncs += 1;
                        self.resync().await;
                    }
                }
                Ok(Ok(message)) => return Ok(Some(message)),
                Ok(Err(_)) => {
                    // The server may close a client that falls behind ("too slow"): reconnect.
                    self.stats.closed_by_server += 1;
                    self.lose_connection();
                }
            }
        }
    }

    /// Says what a client that waits in vain holds, and what the room holds.
    async fn hang(&self) -> String {
        let (_, room) = self.server.connect(&self.room).await;
        let game = room.game.as_ref();
        self.fail(format!(
            "nothing happened for {WAIT:?}: the client holds v {} (ply {}, {:?} to move), waits \
             for {:?}, move {:?}; the room is at v {} (ply {:?}, {:?} to move)",
            self.model.v,
            self.model.moves.len(),
            self.model.to_move,
            self.catching_up,
            self.pending,
            room.v,
            game.map(|g| g.ply),
            game.map(|g| g.to_move),
        ))
    }

    /// Forgets the connection; a move waiting for its answer becomes one of unknown fate.
    fn lose_connection(&mut self) {
        self.client = None;
        self.catching_up = None;
        for (_, (ply, _)) in std::mem::take(&mut self.pending) {
            self.unanswered.insert(ply);
        }
    }

    /// Drops the connection on purpose: a close handshake or just the socket, then a short wait.
    async fn drop_connection(&mut self) {
        if let Some(client) = self.client.take() {
            if self.rng.random_bool(0.5) {
                let _ = tokio::time::timeout(Duration::from_secs(1), client.close()).await;
            } else {
                drop(client);
            }
        }
        self.lose_connection();
        let delay = if self.rng.random_bool(LONG_DROP_CHANCE) {
            self.stats.long_drops += 1;
            self.rng.random_range(LONG_DROP_DELAY_MS)
        } else {
            self.rng.random_range(DROP_DELAY_MS)
        };
        // The fault itself, not a wait for something: the client stays away a while.
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }

    /// Opens a new connection and says `hello` with the seat's token and, usually, the last
    /// version held.
    async fn reconnect(&mut self) -> Result<(), String> {
        let mut client = tokio::time::timeout(WAIT, self.server.connect_raw(&self.room, None))
            .await
            .map_err(|_| self.fail("reconnecting took too long"))?
            .map_err(|e| self.fail(format!("reconnecting: {e}")))?;
        self.stats.reconnections += 1;
        self.generation += 1;
        let since = if self.rng.random_bool(HELLO_WITHOUT_VERSION_CHANCE) {
            self.stats.hellos_without_version += 1;
            None
        } else {
            self.stats.hellos_with_version += 1;
            Some(self.model.v)
        };
        self.hello_with_version = since.is_some();
        let req = client.req();
        client
            .send(&ClientRequest::new(
                req,
                ClientMessage::Hello {
                    seat_tokens: vec![self.token.clone()],
                    host_token: None,
                    since,
                },
            ))
            .await;
        self.client = Some(client);
        self.catching_up = Some(req);
        Ok(())
    }

    /// Asks for the events after the version held.
    async fn resync(&mut self) {
        let since = self.model.v;
        let client = self.client();
        let req = client.req();
        client
            .send(&ClientRequest::new(req, ClientMessage::Resync { since }))
            .await;
        self.catching_up = Some(req);
    }

    /// Restarts the wait for progress (after a phase in which the client did not read).
    fn reset_progress(&mut self) {
        self.progress = (self.model.v, Instant::now());
    }

    /// Plays until the game ends or the deadline comes.
    async fn play(mut self, deadline: Instant) -> Result<Player, String> {
        self.reset_progress();
        while !self.model.finished() {
            let Some(message) = self.next(deadline).await? else {
                break;
            };
            self.handle(message).await?;
            if self.client.is_some() && self.rng.random_bool(DROP_CHANCE) {
                self.drop_connection().await;
            }
        }
        self.playing = false;
        Ok(self)
    }

    /// Handles one message from the server.
    async fn handle(&mut self, message: ServerMessage) -> Result<(), String> {
        let after_hello = self.after_hello.take();
        match message {
            ServerMessage::Snapshot(snapshot) => {
                if self.catching_up.is_some() {
                    return Ok(());
                }
                if after_hello == Some(true) {
                    self.stats.caught_up_by_snapshot += 1;
                }
                self.model.adopt(&snapshot).map_err(|e| self.fail(e))?;
                self.stats.snapshots_adopted += 1;
                self.check_acked();
                if let Some(legal) = &snapshot.legal_moves {
                    self.choose(legal).await?;
                }
            }
            ServerMessage::Event { v, event } => {
                if self.catching_up.is_some() {
                    return Ok(());
                }
                if after_hello == Some(true) {
                    self.stats.caught_up_by_events += 1;
                }
                if self.playing && v == self.model.v + 1 && self.rng.random_bool(LOSE_EVENT_CHANCE)
                {
                    self.stats.events_lost += 1;
                    return Ok(());
                }
                match self.model.event(v, &event).map_err(|e| self.fail(e))? {
                    Step::Applied => {
                        self.stats.events_applied += 1;
                        if let Event::Moved(moved) = &event {
                            let ply = moved.ply - 1;
                            if moved.seat == self.seat && self.unanswered.contains(&ply) {
                                self.stats.dropped_moves_played += 1;
                            }
                            if let Some(mv) = self.acked.remove(&ply) {
                                if moved.seat != self.seat || moved.mv != mv {
                                    return Err(self.fail(format!(
                                        "the server acked {mv} at ply {ply}, but the move played \
                                         there is {moved:?}"
                                    )));
                                }
                                self.stats.acks_confirmed += 1;
                            }
                        }
                    }
                    Step::Duplicate => self.stats.duplicates_ignored += 1,
                    Step::Gap => {
                        self.stats.gaps_resynced += 1;
                        self.resync().await;
                    }
                }
            }
            ServerMessage::LegalMoves { v, moves } => {
                if self.catching_up.is_some() || v < self.model.v {
                    return Ok(());
                }
                if v > self.model.v {
                    // Moves for a version not held yet: an event was missed.
                    self.stats.gaps_resynced += 1;
                    self.resync().await;
                    return Ok(());
                }
                self.choose(&moves).await?;
            }
            ServerMessage::Ack { req, seats, .. } => {
                if self.catching_up == Some(req) {
                    self.catching_up = None;
                    if let Some(seats) = seats {
                        if seats != vec![self.seat] {
                            return Err(self.fail(format!("hello acked seats {seats:?}")));
                        }
                        self.after_hello = Some(self.hello_with_version);
                    }
                } else {
                    let (ply, mv) = self.answered(req)?;
                    self.stats.moves_acked += 1;
                    self.acked.insert(ply, mv);
                }
            }
            ServerMessage::Error { req, code, message } => {
                let refused = matches!(
                    code,
                    ErrorCode::StalePly | ErrorCode::NotYourTurn | ErrorCode::GameOver
                );
                let what = format!("error {} ({message}) for request {req:?}", code.as_str());
                let (ply, _) = self.answered(req.ok_or_else(|| self.fail(&what))?)?;
                // Only a move for a ply whose move was also sent before a drop may lose.
                if !refused || !self.unanswered.contains(&ply) {
                    return Err(self.fail(format!("{what}, a move for ply {ply}")));
                }
                self.stats.refused_after_reconnect += 1;
            }
            ServerMessage::Pong { .. } => {}
        }
        Ok(())
    }

    /// The move that request `req` was, which must be the first one waiting (requests are
    /// answered in order).
    fn answered(&mut self, req: u64) -> Result<(u32, String), String> {
        match self.pending.pop_first() {
            Some((r, move_)) if r == req => Ok(move_),
            first => Err(self.fail(format!(
                "an answer to request {req}, but the first move waiting is {first:?}"
            ))),
        }
    }

    /// Acked moves whose plies came inside a snapshot: the record must at least reach them.
    fn check_acked(&mut self) {
        let plies = self.model.moves.len() as u32;
        let before = self.acked.len();
        self.acked.retain(|&ply, _| ply >= plies);
        self.stats.acks_in_snapshots += (before - self.acked.len()) as u64;
    }

    /// Plays a random legal move, and sometimes drops the connection before its answer.
    async fn choose(&mut self, legal: &LegalMoves) -> Result<(), String> {
        if legal.seat != self.seat {
            return Err(self.fail(format!("legal moves for another seat: {legal:?}")));
        }
        if !self.playing || self.model.finished() {
            return Ok(());
        }
        if let Some((ply, _)) = self.pending.values().find(|(ply, _)| *ply >= legal.ply) {
            if *ply == legal.ply {
                // Already sent (the legal moves came again, after a resync).
                return Ok(());
            }
            return Err(self.fail(format!(
                "legal moves for ply {} after a move for ply {ply}",
                legal.ply
            )));
        }
        if let Some((ply, _)) = self.pending.values().next() {
            // A move for an earlier ply still waits for its answer: it can only be refused.
            if !self.unanswered.contains(ply) {
                return Err(self.fail(format!(
                    "legal moves for ply {} while the move for ply {ply} waits, {:?}",
                    legal.ply, self.pending
                )));
            }
        }
        if legal.moves.is_empty() {
            return Err(self.fail(format!("no legal moves, yet the game goes on: {legal:?}")));
        }
        if self.unanswered.contains(&legal.ply) {
            self.stats.asked_again_after_drop += 1;
        }
        let mv = legal.moves[self.rng.random_range(0..legal.moves.len())].clone();
        let (seat, token, ply) = (self.seat, self.token.clone(), legal.ply);
        let client = self.client();
        let req = client.req();
        client
            .send(&ClientRequest::new(
                req,
                ClientMessage::Move {
                    seat,
                    token,
                    ply,
                    mv: mv.clone(),
                },
            ))
            .await;
        self.stats.moves_sent += 1;
        self.pending.insert(req, (ply, mv));
        if self.rng.random_bool(DROP_AFTER_MOVE_CHANCE) {
            self.stats.drops_after_move += 1;
            self.drop_connection().await;
        }
        Ok(())
    }

    /// After play: catches up with everything the room has sent (a `ping` is answered after
    /// everything before it), reconnecting if the connection is gone.
    async fn sync(&mut self) -> Result<(), String> {
        self.reset_progress();
        let deadline = Instant::now() + WAIT;
        loop {
            if self.client.is_none() {
                self.reconnect().await?;
            }
            let generation = self.generation;
            let client = self.client();
            let req = client.req();
            client
                .send(&ClientRequest::new(req, ClientMessage::Ping))
                .await;
            let mut answered = false;
            while !answered && self.generation == generation {
                match self.next(deadline).await? {
                    None => return Err(self.fail("the final catch-up took too long")),
                    Some(ServerMessage::Pong { req: r, .. }) if r == req => answered = true,
                    Some(other) => self.handle(other).await?,
                }
            }
            if answered && self.generation == generation && self.catching_up.is_none() {
                return Ok(());
            }
        }
    }
}

/// Creates a room and seats its four players.
async fn open_room(
    server: Arc<TestServer>,
    index: usize,
    seed: u64,
) -> Result<(String, String, Vec<Player>), String> {
    let preset = PRESETS[index % PRESETS.len()];
    let move_limit = 60 + (index as u32 * 7) % 41;
    let room = server
        .create_room(&SettingsPatch {
            preset: Some(preset.into()),
            move_limit: Some(move_limit),
            ..SettingsPatch::default()
        })
        .await;
    let mut players = Vec::new();
    for seat in SeatIndex::ALL {
        let player_seed =
            seed ^ (((index as u64) << 8) | u64::from(seat.get())).wrapping_mul(0x9e37_79b9);
        players.push(Player::seat(server.clone(), &room.id, seat, player_seed).await?);
    }
    Ok((room.id, room.host_token, players))
}

/// The host starts the game; then all four play until the end or the deadline.
async fn run_room(
    host_token: String,
    mut players: Vec<Player>,
    deadline: Instant,
) -> Result<Vec<Player>, String> {
    let answer = players[0]
        .request(ClientMessage::Start { host_token })
        .await?;
    if !matches!(answer, ServerMessage::Ack { .. }) {
        return Err(players[0].fail(format!("start answered {answer:?}")));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for player in players {
        tasks.spawn(player.play(deadline));
    }
    // In the order they end, so that the first failure is the one reported (the others in its
    // room then wait in vain).
    let mut done = Vec::new();
    while let Some(result) = tasks.join_next().await {
        done.push(result.map_err(|e| format!("a player panicked: {e}"))??);
    }
    done.sort_by_key(|p| p.seat);
    Ok(done)
}

/// After play: every player catches up, then each must hold exactly what a fresh connection's
/// snapshot shows. Returns whether the game finished.
async fn check_room(
    server: &TestServer,
    room: &str,
    players: &mut [Player],
) -> Result<Option<String>, String> {
    // A move sent just before the deadline may still be on its way in: sync until the room's
    // version stands still between two snapshots.
    for _ in 0..5 {
        let (_, before) = server.connect(room).await;
        for player in players.iter_mut() {
            player.sync().await?;
        }
        let (_, snapshot) = server.connect(room).await;
        if snapshot.v != before.v {
            continue;
        }
        let game = snapshot
            .game
            .as_ref()
            .ok_or_else(|| format!("room {room}: no game"))?;
        if game.moves.len() as u32 != game.ply {
            return Err(format!(
                "room {room}: {} moves for {} plies",
                game.moves.len(),
                game.ply
            ));
        }
        for player in players.iter() {
            let model = &player.model;
            let fail = |what: &str| {
                Err(player.fail(format!(
                    "{what} differs from the server's (client v {}, server v {})",
                    model.v, snapshot.v
                )))
            };
            if model.v != snapshot.v {
                return fail("the version");
            }
            if model.moves != game.moves {
                return fail("the move list");
            }
            if model.pieces != game.pieces {
                return fail("the board");
            }
            if model.to_move != game.to_move || model.result != game.result {
                return fail("the turn or the result");
            }
            // Every acked move not seen as an event came inside a snapshot, which the record
            // covers.
            if let Some((ply, mv)) = player.acked.iter().next() {
                return Err(player.fail(format!("the acked move {mv} at ply {ply} is missing")));
            }
        }
        if (snapshot.status == GameStatus::Finished) != game.result.is_some() {
            return Err(format!(
                "room {room}: status {:?} but result {:?}",
                snapshot.status, game.result
            ));
        }
        return Ok(game.result.as_ref().map(|r| r.reason.clone()));
    }
    Err(format!("room {room}: the version never stood still"))
}

/// Counts the panics of every thread of this test binary, the server's tasks included: a panic
/// in a connection's or a room's task does not fail a test by itself. A panic in this package's
/// own code (a test's assertion, a helper's `expect`) fails its test already, and is not counted:
/// the tests of this file run side by side, and one's failure is not another's.
fn count_panics() -> &'static AtomicUsize {
    static PANICS: OnceLock<AtomicUsize> = OnceLock::new();
    PANICS.get_or_init(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_the_tests = info
                .location()
                .is_some_and(|at| at.file().starts_with("tests/"));
            if let (Some(panics), false) = (PANICS.get(), in_the_tests) {
                panics.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
        AtomicUsize::new(0)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_rooms_play_through_drops_and_reconnections_without_losing_a_move() {
    let panics = count_panics();
    let started = Instant::now();
    let seed: u64 = std::env::var("FOURKINGS_LOAD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x4b1_6565);
    let server = Arc::new(
        TestServer::with(|c| {
            c.rate_per_second = 100_000;
            c.rate_burst = 100_000;
            c.event_history = EVENT_HISTORY;
        })
        .await,
    );

    // Create the rooms and seat four players in each, all at once.
    let opening: Vec<_> = (0..ROOMS)
        .map(|i| tokio::spawn(open_room(server.clone(), i, seed)))
        .collect();
    let mut rooms = Vec::new();
    for task in opening {
        rooms.push(task.await.expect("seating does not panic").unwrap());
    }
    let seated = started.elapsed();

    // Start every game and let them all play at the same time.
    let deadline = Instant::now() + PLAY_BUDGET;
    let playing: Vec<_> = rooms
        .into_iter()
        .map(|(id, host, players)| {
            (
                id,
                tokio::spawn(async move { run_room(host, players, deadline).await }),
            )
        })
        .collect();
    let mut finished_rooms = Vec::new();
    for (id, task) in playing {
        let players = task.await.expect("a room does not panic").unwrap();
        finished_rooms.push((id, players));
    }
    let played = started.elapsed();

    // Check every room against a fresh connection's snapshot.
    let mut finished = 0;
    let mut reasons = BTreeMap::<String, usize>::new();
    let mut stats = Stats::default();
    let mut plies = 0;
    for (id, mut players) in finished_rooms {
        if let Some(reason) = check_room(&server, &id, &mut players).await.unwrap() {
            finished += 1;
            *reasons.entry(reason).or_default() += 1;
        }
        plies += players[0].model.moves.len();
        for player in &players {
            stats.add(&player.stats);
        }
    }
    println!(
        "{ROOMS} rooms (seed {seed}): {finished} finished, {} cut off by the guard; {plies} plies; \
         seated in {seated:?}, played in {:?}, checked in {:?}",
        ROOMS - finished,
        played - seated,
        started.elapsed() - played
    );
    println!("results: {reasons:?}");
    println!("{stats:#?}");

    // Every connection's task ends without a panic (`stop` waits for them).
    let server = Arc::into_inner(server).expect("the players are gone");
    server.server.stop().await;
    assert_eq!(
        panics.load(Ordering::SeqCst),
        0,
        "the server's tasks did not panic"
    );

    assert_eq!(
        finished, ROOMS,
        "every game reaches its end (the others stalled until the guard of {PLAY_BUDGET:?})"
    );
    // The faults happened, of every kind.
    assert!(stats.reconnections >= 200, "{stats:?}");
    assert!(stats.drops_after_move >= 50, "{stats:?}");
    assert!(stats.hellos_with_version >= 50, "{stats:?}");
    assert!(stats.hellos_without_version >= 20, "{stats:?}");
    assert!(stats.gaps_resynced >= 20, "{stats:?}");
    assert!(stats.caught_up_by_events >= 20, "{stats:?}");
    assert!(stats.caught_up_by_snapshot >= 3, "{stats:?}");
    assert_eq!(
        stats.moves_acked,
        stats.acks_confirmed + stats.acks_in_snapshots
    );
}

/// A client too slow to keep up is closed (4002) without the server's connection task
/// panicking: the writer ends first there, and its task handle used to be awaited a second time
/// ("JoinHandle polled after completion").
#[tokio::test]
async fn a_client_closed_for_falling_behind_ends_without_a_panic() {
    let panics = count_panics();
    let server = TestServer::with_a_client_dropped_for_a_full_queue().await;
    // `stop` waits for every connection's task to end.
    server.server.stop().await;
    assert_eq!(panics.load(Ordering::SeqCst), 0);
}

/// A client that stops reading altogether is dropped once a write has waited the write timeout
/// for it, rather than holding its connection (and what is queued for it) forever. The same
/// client, reading again before the timeout, gets the 4002 close: see the test above.
#[tokio::test]
async fn a_client_that_reads_nothing_is_dropped_after_the_write_timeout() {
    let write_timeout = Duration::from_millis(200);
    let server = TestServer::with(|c| {
        TestServer::slow_reader_limits(c);
        c.write_timeout_seconds = write_timeout.as_secs_f64();
        // Only the write timeout may end the connection here.
        c.heartbeat_seconds = 600.0;
    })
    .await;
    let mut client = server.slow_reader_dropped().await;
    // The scenario itself, not a wait for something: the client goes on reading nothing for
    // many times the write timeout (a connection the server gave up on also lingers a second
    // for the client's last frames).
    tokio::time::sleep(write_timeout * 10).await;
    let (_, code) = client.until_closed().await;
    assert_eq!(code, None, "dropped without a close frame");
    server.server.stop().await;
}

/// A client that stops reading until the server's socket to it is full, then reads again, gets
/// every event once and in order: what the room could not write into the socket waits in the
/// connection's queue, and the connection's writer sends it when the socket drains.
#[tokio::test]
async fn a_client_that_pauses_reading_gets_every_event_in_order() {
    // Events of about 300 bytes, more in all than the socket buffers between the room and the
    // client hold (the server's send buffer grows to 4 MB; the client's receive buffer is 4 KB).
    const UPDATES: u32 = 20_000;
    let server = TestServer::with(|c| {
        TestServer::slow_reader_limits(c);
        // Room for everything either client is sent (the host reads only after its flood): only
        // the socket may hold the paused client up.
        c.outbound_queue = 3 * UPDATES as usize;
        // Only the socket draining may wake the connection's writer (and the slow reader's
        // limits let a write wait for as long as the host's flood takes).
        c.heartbeat_seconds = 600.0;
    })
    .await;
    let room = server.create_room(&SettingsPatch::default()).await;
    let (mut host, _) = server.connect(&room.id).await;
    let mut paused = server.connect_slow_reader(&room.id).await;
    assert!(host.flood(&room.host_token, UPDATES).await);
    // A ping answers after every event of the flood: the host counts the changes (an update that
    // changes nothing makes no event).
    host.send(&ClientRequest::new(u64::MAX, ClientMessage::Ping))
        .await;
    let mut expected = 0;
    loop {
        match host.next().await {
            ServerMessage::Pong { req: u64::MAX, .. } => break,
            ServerMessage::Event {
                event: Event::SettingsChanged { .. },
                ..
            } => expected += 1,
            _ => {}
        }
    }
    assert!(expected >= UPDATES - 1);
    let (mut bytes, mut last_v, mut changes) = (0, None, 0);
    while changes < expected {
        let message = paused.next().await;
        bytes += serde_json::to_string(&message).expect("serialises").len();
        if let ServerMessage::Event { v, event } = message {
            if let Some(last) = last_v {
                assert_eq!(v, last + 1, "events in order, none missing");
            }
            last_v = Some(v);
            if matches!(event, Event::SettingsChanged { .. }) {
                changes += 1;
            }
        }
    }
    // The test's premise: more was sent than the socket buffers between the room and the
    // client can hold, so the room's writes had to wait for the client at some point.
    let send_buffer_max = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_wmem")
        .ok()
        .and_then(|limits| limits.split_whitespace().nth(2)?.parse::<usize>().ok())
        .unwrap_or(4_194_304);
    assert!(
        bytes > send_buffer_max + 4096,
        "the server's socket must have filled: {bytes} bytes against {send_buffer_max}"
    );
    assert!(paused.quiet_for(Duration::from_millis(50)).await.is_none());
    server.server.stop().await;
}
