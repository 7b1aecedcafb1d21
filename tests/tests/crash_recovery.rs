//! Issue 6, item 2: crash recovery, end to end.
//!
//! The real binary runs on a database file in a fresh directory. The test sets up 50 rooms in
//! varied states: mid-game under every preset, turn limits and Duo team clocks running, CPU seats
//! (and rooms of CPUs only, started just before the kill so that they are still playing), a
//! player in the grace period, pending draw offers, a resignation waiting for the partner,
//! finished games awaiting a rematch, a rematch and a switch-partners session under way, lobbies
//! with seats taken and settings changed (one after a player was moved and the host role handed
//! over), a lifeline takeback, and chat in every channel. Every connection keeps its own copy of
//! its room ([`Model`]) from what the server sends, and the test records what was acknowledged:
//! tokens, versions, moves, chat.
//!
//! Then each room is captured (a fresh spectator snapshot and `GET /api/rooms/<id>`), the process
//! is killed with SIGKILL, left dead for a while, and started again on the same file. Every room
//! must be back as it was: version (plus exactly one `presence` event per person who was online:
//! the restart marks them `away`), board, moves, seats, host, settings, chat, draw offer and
//! result; a running turn limit resumes with the time it had left when the process died (the time
//! it was down does not count), and Duo's banks likewise (stopped, since everyone is away). Every
//! connection then reconnects with its tokens and its last version and must receive exactly the
//! events it missed (and a connection opened after the restart only the events after its
//! snapshot); one that was already behind when the process died gets a snapshot of the restored
//! room instead, since the records are stored and the events published from them are not. Then
//! the game carries on with legal moves. Every acknowledged move is in the move
//! list exactly once at its ply, and sending one again is refused as `stale_ply`.
//!
//! Issue 9, item 6 runs the same 50 rooms through SIGTERM instead: every connection receives what
//! it was owed and then the close for a restart (1012), the process exits cleanly, and every room
//! comes back just the same.
//!
//! A second, small test pins down the bug this one found: the restart's own `presence` events
//! were sent a second time, after the snapshot that already showed them.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail, ensure};
use fourkings_protocol::{
    ChatChannel, ChatLine, ClientMessage, CpuLevel, CreateRoomResponse, ErrorCode, Event,
    GameStatus, GameView, LegalMoves, Presence, RoomInfo, SeatView, ServerMessage, SettingsPatch,
    Snapshot,
};
use fourkings_tests::model::{Model, Step};
use fourkings_tests::{Client, ServerProcess, TempDir};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Milliseconds in a second of game time: a 60-second turn limit lasts 9 s, a 30-second one 4.5 s,
/// a 3-minute Duo bank 27 s. Enough for the turns left running at the kill to survive the setup,
/// the capture and the restart, short enough to be a real clock.
const TIME_UNIT_MS: &str = "150";
/// How long the server stays dead: time that must not count against any clock.
const DOWNTIME: Duration = Duration::from_secs(2);
/// Moves the people of each room play after the restart (fewer if the game ends).
const MOVES_AFTER: usize = 6;
/// Moves a room of CPUs is followed for after the restart (fewer if the game ends).
const CPU_MOVES_AFTER: usize = 30;
/// Leeway for the clock checks, beyond the bounds the test measures: milliseconds rounded and
/// truncated on the way.
const SLACK_MS: i128 = 20;
/// The whole test may not take longer than this.
const TEST_BUDGET: Duration = Duration::from_secs(150);
/// Display names by seat (stored and shown as given).
const NAMES: [&str; 4] = ["Ann", "Bøb ♞", "Cleo", "Dev 🙂"];
const PRESETS: [&str; 6] = [
    "teams",
    "teams-house",
    "teams-classic",
    "ffa",
    "ffa-walking-kings",
    "duo",
];

/// What a room goes through besides moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Twist {
    Plain,
    /// Seat 1's player (person 1) drops before the kill: away, in the grace period.
    Away,
    /// The first person offers a draw and the third (if any) agrees; CPU seats agree by
    /// themselves. The others agree after the restart.
    DrawOffer,
    /// Everyone agrees to a draw: finished, awaiting a rematch.
    Drawn,
    /// The first person resigns: finished, awaiting a rematch.
    Finished,
    /// Teams-classic: seat 1 resigns and seat 3 is asked; after the restart seat 3 declines.
    ResignationRequest,
    /// A lobby: two seats taken, a CPU seat, settings changed, chat. After the restart someone
    /// takes the last seat and the host starts.
    Lobby,
    /// A lobby where the host moved a player and handed the host role over. After the restart
    /// the old host token is refused and the new one starts the game.
    LobbyReshuffle,
    /// The last mover takes the move back with a lifeline; after the restart that move is still
    /// refused (`taken_back`).
    Takeback,
    /// A first game resigned and a rematch under way.
    Rematch,
    /// A switch-partners session in its second game (seats moved with the rematch).
    SwitchPartners,
    /// Silent partners: team chat in the lobby only.
    SilentPartners,
}

/// When a room is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// First, all together.
    Early,
    /// Last among the rooms of people, so that their clocks are running but far from out at the
    /// kill.
    Timed,
    /// Started just before the kill: CPUs still playing when it comes.
    AllCpu,
}

#[derive(Clone, Debug)]
struct Spec {
    label: String,
    patch: SettingsPatch,
    /// Seats the CPU takes: set by the host before the start with a level, or left empty for the
    /// start to fill (`None`).
    cpu: Vec<(u8, Option<CpuLevel>)>,
    /// Seats left empty in a lobby.
    empty: Vec<u8>,
    /// Whether the host sits at seat 0 (else the watcher holds the host token).
    host_sits: bool,
    /// Moves the people play before the kill (in the current game).
    moves: usize,
    /// Whether the room has chat in every channel it allows.
    chat: bool,
    twist: Twist,
    stage: Stage,
}

fn spec(label: &str, preset: &str) -> Spec {
    Spec {
        label: label.to_owned(),
        patch: SettingsPatch {
            preset: Some(preset.to_owned()),
            ..SettingsPatch::default()
        },
        cpu: Vec::new(),
        empty: Vec::new(),
        host_sits: true,
        moves: 6,
        chat: true,
        twist: Twist::Plain,
        stage: Stage::Early,
    }
}

/// The 50 rooms.
fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    // Mid-game under every preset, three rooms each: more or fewer moves, chat in two of them,
    // the host seated or not.
    for (i, preset) in PRESETS.iter().enumerate() {
        for copy in 0..3 {
            let mut s = spec(&format!("{preset} mid-game {copy}"), preset);
            s.moves = 3 + 4 * copy + i % 3;
            s.chat = copy != 1;
            s.host_sits = copy != 2;
            specs.push(s);
        }
    }
    let twisted = |label: &str, preset: &str, twist: Twist| {
        let mut s = spec(label, preset);
        s.twist = twist;
        s
    };
    specs.push(twisted("teams, a player away", "teams", Twist::Away));
    specs.push(twisted("ffa, a player away", "ffa", Twist::Away));
    specs.push(twisted("teams, draw offered", "teams", Twist::DrawOffer));
    let mut s = twisted("ffa with CPUs, draw offered", "ffa", Twist::DrawOffer);
    s.cpu = vec![(1, Some(CpuLevel::Easy)), (3, None)];
    specs.push(s);
    specs.push(twisted(
        "teams-house, resigned",
        "teams-house",
        Twist::Finished,
    ));
    specs.push(twisted("duo, drawn", "duo", Twist::Drawn));
    specs.push(twisted(
        "teams-classic, resignation asked",
        "teams-classic",
        Twist::ResignationRequest,
    ));
    let mut s = twisted("lobby, settings changed", "teams", Twist::Lobby);
    s.cpu = vec![(3, Some(CpuLevel::Easy))];
    s.empty = vec![2];
    specs.push(s);
    let mut s = twisted("lobby, reshuffled", "teams-house", Twist::LobbyReshuffle);
    s.empty = vec![3];
    specs.push(s);
    let mut s = twisted("teams, lifeline taken", "teams", Twist::Takeback);
    s.patch.lifelines = Some(true);
    s.moves = 5;
    specs.push(s);
    let mut s = twisted("teams, rematch", "teams", Twist::Rematch);
    s.moves = 5;
    specs.push(s);
    let mut s = twisted("teams, switch partners", "teams", Twist::SwitchPartners);
    s.patch.switch_partners = Some(true);
    s.moves = 4;
    specs.push(s);
    let mut s = twisted("teams, silent partners", "teams", Twist::SilentPartners);
    s.patch.silent_partners = Some(true);
    specs.push(s);
    // People with CPUs.
    let mut s = spec("teams, two CPUs", "teams");
    s.cpu = vec![(1, None), (3, None)];
    specs.push(s);
    let mut s = spec("duo, two CPUs", "duo");
    s.cpu = vec![(2, Some(CpuLevel::Easy)), (3, Some(CpuLevel::Hard))];
    specs.push(s);
    let mut s = spec("ffa-walking-kings, three CPUs", "ffa-walking-kings");
    s.cpu = vec![
        (1, Some(CpuLevel::Easy)),
        (2, None),
        (3, Some(CpuLevel::Medium)),
    ];
    s.moves = 5;
    specs.push(s);
    let mut s = spec("teams-classic, two CPUs", "teams-classic");
    s.cpu = vec![(2, Some(CpuLevel::Hard)), (3, None)];
    s.patch.cpu_level = Some(CpuLevel::Easy);
    specs.push(s);
    // Clocks running.
    for (i, preset) in PRESETS.iter().enumerate() {
        let mut s = spec(&format!("{preset}, turn limit 60"), preset);
        s.patch.turn_limit = Some(60);
        s.moves = 3 + i % 3;
        s.chat = i % 2 == 0;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    for preset in ["teams", "ffa"] {
        let mut s = spec(&format!("{preset}, turn limit 30"), preset);
        s.patch.turn_limit = Some(30);
        s.moves = 4;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    for (minutes, limit) in [(3, 0), (5, 0), (10, 0), (3, 30)] {
        let mut s = spec(
            &format!("duo, team clock {minutes}, turn limit {limit}"),
            "duo",
        );
        s.patch.team_clock = Some(minutes);
        s.patch.turn_limit = Some(limit);
        s.moves = 5;
        s.stage = Stage::Timed;
        specs.push(s);
    }
    // CPUs only.
    for (preset, levels) in [
        (
            "teams",
            [Some(CpuLevel::Easy), None, Some(CpuLevel::Hard), None],
        ),
        ("ffa-walking-kings", [None; 4]),
        ("duo", [Some(CpuLevel::Medium), None, None, None]),
    ] {
        let mut s = spec(&format!("{preset}, CPUs only"), preset);
        s.cpu = (0..4)
            .map(|seat| (seat, levels[usize::from(seat)]))
            .collect();
        s.host_sits = false;
        s.chat = false;
        s.stage = Stage::AllCpu;
        specs.push(s);
    }
    assert_eq!(specs.len(), 50);
    specs
}

/// Where the server is.
#[derive(Clone)]
struct Base {
    http: String,
    ws: String,
    client: reqwest::Client,
}

impl Base {
    fn of(server: &ServerProcess) -> Base {
        Base {
            http: server.base.clone(),
            ws: server.base.replace("http://", "ws://"),
            client: reqwest::Client::new(),
        }
    }

    /// Opens a room's WebSocket and reads the snapshot that comes first. The server wrote it
    /// between the two moments returned: before connecting, and after it arrived.
    async fn connect(&self, room: &str) -> Result<(Client, Snapshot, (Instant, Instant))> {
        let asked = Instant::now();
        let mut client = Client::open(&format!("{}/ws/{room}", self.ws)).await?;
        match client.try_next().await? {
            ServerMessage::Snapshot(snapshot) => Ok((client, *snapshot, (asked, Instant::now()))),
            other => bail!("expected a snapshot first, got {other:?}"),
        }
    }

    async fn create(&self, patch: &SettingsPatch) -> Result<CreateRoomResponse> {
        let response = self
            .client
            .post(format!("{}/api/rooms", self.http))
            .body(serde_json::to_string(patch)?)
            .send()
            .await?;
        ensure!(
            response.status() == 201,
            "creating a room: {}",
            response.status()
        );
        Ok(response.json().await?)
    }

    async fn info(&self, room: &str) -> Result<RoomInfo> {
        let response = self
            .client
            .get(format!("{}/api/rooms/{room}", self.http))
            .send()
            .await?;
        ensure!(
            response.status() == 200,
            "GET /api/rooms/{room}: {}",
            response.status()
        );
        Ok(response.json().await?)
    }

    async fn status_of(&self, path: &str) -> Result<u16> {
        Ok(self
            .client
            .get(format!("{}{path}", self.http))
            .send()
            .await?
            .status()
            .as_u16())
    }
}

/// A move that was acknowledged.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Acked {
    /// The game it was played in.
    game: String,
    /// Plies played before it (its index in the move list).
    ply: u32,
    seat: u8,
    mv: String,
}

/// One connection of the test: a person holding a seat, or a spectator (each room's watcher). It
/// keeps its own copy of the room from what the server sends, and what it was told.
struct Peer {
    who: String,
    client: Option<Client>,
    model: Model,
    /// The seat it holds (it moves with the person: `move_player`, switch-partners rematches).
    seat: Option<u8>,
    token: Option<String>,
    /// The host token it presents, if any (a new one arrives with `host_token`).
    host_token: Option<String>,
    /// The latest legal moves, with their version.
    legal: Option<(u64, LegalMoves)>,
    /// Every event applied, by version.
    log: BTreeMap<u64, Event>,
    /// The chat lines it has read, oldest first.
    chat: Vec<ChatLine>,
    /// The current game.
    game_id: Option<String>,
    /// Its acknowledged moves that stand.
    acked: Vec<Acked>,
    /// Its acknowledged moves that a lifeline took back.
    taken_back: Vec<Acked>,
    /// The last messages it took in (shown when a move goes wrong).
    trace: Vec<String>,
}

fn answer_to(message: &ServerMessage) -> Option<u64> {
    match message {
        ServerMessage::Ack { req, .. } | ServerMessage::Error { req: Some(req), .. } => Some(*req),
        _ => None,
    }
}

impl Peer {
    async fn open(base: &Base, room: &str, who: String) -> Result<Peer> {
        let (client, snapshot, _) = base.connect(room).await.with_context(|| who.clone())?;
        Peer::open_with(client, &snapshot, who)
    }

    /// A peer on a connection that just received `snapshot`.
    fn open_with(client: Client, snapshot: &Snapshot, who: String) -> Result<Peer> {
        let mut peer = Peer {
            who,
            client: Some(client),
            model: Model::new(),
            seat: None,
            token: None,
            host_token: None,
            legal: None,
            log: BTreeMap::new(),
            chat: Vec::new(),
            game_id: None,
            acked: Vec::new(),
            taken_back: Vec::new(),
            trace: Vec::new(),
        };
        peer.adopt(snapshot)?;
        Ok(peer)
    }

    fn client(&mut self) -> Result<&mut Client> {
        let who = &self.who;
        self.client
            .as_mut()
            .ok_or_else(|| anyhow!("{who} is not connected"))
    }

    fn adopt(&mut self, snapshot: &Snapshot) -> Result<()> {
        self.model
            .adopt(snapshot)
            .map_err(|e| anyhow!("{}: {e}", self.who))?;
        self.chat.clone_from(&snapshot.chat);
        self.game_id = snapshot.game.as_ref().map(|g| g.id.clone());
        self.legal = snapshot.legal_moves.clone().map(|m| (snapshot.v, m));
        Ok(())
    }

    /// Takes in a server message: snapshots, events and legal moves change the copy of the room;
    /// anything else (answers) is handed back.
    fn take(&mut self, message: ServerMessage) -> Result<Option<ServerMessage>> {
        // The last few messages, for a failure's message.
        if self.trace.len() == 16 {
            self.trace.remove(0);
        }
        self.trace.push(format!("{:.150}", format!("{message:?}")));
        match message {
            ServerMessage::Snapshot(snapshot) => {
                self.adopt(&snapshot)?;
                Ok(None)
            }
            ServerMessage::Event { v, event } => {
                match self
                    .model
                    .event(v, &event)
                    .map_err(|e| anyhow!("{}: {e}", self.who))?
                {
                    Step::Applied => {
                        self.applied(v, event);
                        Ok(None)
                    }
                    step => bail!(
                        "{}: event v {v} is a {step:?} for a client at v {}: {event:?}",
                        self.who,
                        self.model.v
                    ),
                }
            }
            ServerMessage::LegalMoves { v, moves } => {
                self.legal = Some((v, moves));
                Ok(None)
            }
            other => Ok(Some(other)),
        }
    }

    fn applied(&mut self, v: u64, event: Event) {
        match &event {
            Event::Chat(line) => self.chat.push(line.clone()),
            Event::HostToken { host_token } => self.host_token = Some(host_token.clone()),
            Event::PlayerMoved { from, to } if self.seat == Some(*from) => self.seat = Some(*to),
            Event::Started { game } => self.game_id = Some(game.id.clone()),
            Event::GameChanged { what, game, .. }
                if *what == fourkings_protocol::GameChange::TakenBack =>
            {
                let (gone, kept) = std::mem::take(&mut self.acked)
                    .into_iter()
                    .partition(|a| a.game == game.id && a.ply >= game.ply);
                self.acked = kept;
                self.taken_back.extend::<Vec<Acked>>(gone);
            }
            Event::Rematch {
                game, seat_moves, ..
            } => {
                self.game_id = Some(game.id.clone());
                if let Some(moves) = seat_moves {
                    self.seat = self.seat.map(|s| moves[usize::from(s)]);
                    // Team chat stays with the pairing that wrote it.
                    self.chat.retain(|l| l.channel != ChatChannel::Team);
                }
            }
            _ => {}
        }
        self.log.insert(v, event);
    }

    /// The next message, taken in.
    async fn next(&mut self) -> Result<Option<ServerMessage>> {
        let who = self.who.clone();
        let message = self.client()?.try_next().await.with_context(|| who)?;
        self.take(message)
    }

    /// Sends a request and returns its answer, taking in everything before it.
    async fn request(&mut self, build: impl FnOnce(u64) -> ClientMessage) -> Result<ServerMessage> {
        let client = self.client()?;
        let req = client.req();
        client.send(&build(req)).await;
        loop {
            match self.next().await? {
                Some(answer) if answer_to(&answer) == Some(req) => return Ok(answer),
                Some(ServerMessage::Pong { .. }) | None => {}
                Some(other) => bail!(
                    "{}: {other:?} while waiting for the answer to {req}",
                    self.who
                ),
            }
        }
    }

    /// A request that must succeed.
    async fn ok(&mut self, build: impl FnOnce(u64) -> ClientMessage) -> Result<ServerMessage> {
        let answer = self.request(build).await?;
        ensure!(
            matches!(answer, ServerMessage::Ack { .. }),
            "{}: expected an ack, got {answer:?}",
            self.who
        );
        Ok(answer)
    }

    /// A request that must fail with `code`.
    async fn fails(
        &mut self,
        code: ErrorCode,
        build: impl FnOnce(u64) -> ClientMessage,
    ) -> Result<()> {
        match self.request(build).await? {
            ServerMessage::Error { code: c, .. } if c == code => Ok(()),
            other => bail!("{}: expected the error {code:?}, got {other:?}", self.who),
        }
    }

    /// Takes in everything the server sent before now.
    async fn drain(&mut self) -> Result<()> {
        if self.client.is_none() {
            return Ok(());
        }
        let client = self.client()?;
        let req = client.req();
        client.send(&ClientMessage::Ping { req }).await;
        loop {
            match self.next().await? {
                Some(ServerMessage::Pong { req: r }) if r == req => return Ok(()),
                Some(other) => bail!("{}: unexpected {other:?}", self.who),
                None => {}
            }
        }
    }

    /// Reads until the server closes the connection, which must be for a restart, taking in
    /// what came first; returns how many messages that was. Not connected: nothing to do.
    async fn until_restarting(&mut self) -> Result<usize> {
        let Some(mut client) = self.client.take() else {
            return Ok(0);
        };
        let (messages, code) = client.until_closed().await;
        let count = messages.len();
        for message in messages {
            match self.take(message)? {
                None | Some(ServerMessage::Pong { .. }) => {}
                Some(other) => bail!("{}: {other:?} before the restart", self.who),
            }
        }
        ensure!(
            code == Some(fourkings_protocol::close::SERVER_RESTARTING.0),
            "{}: closed with {code:?}, not for a restart",
            self.who
        );
        Ok(count)
    }

    /// `hello` with this peer's tokens and no version: the ack (a snapshot follows it).
    async fn hello(&mut self) -> Result<ServerMessage> {
        let seat_tokens = self.token.clone().into_iter().collect();
        let host_token = self.host_token.clone();
        self.ok(|req| ClientMessage::Hello {
            req,
            seat_tokens,
            host_token,
            since: None,
        })
        .await
    }

    async fn take_seat(&mut self, seat: u8, name: &str) -> Result<()> {
        let answer = self
            .ok(|req| ClientMessage::TakeSeat {
                req,
                seat,
                name: name.to_owned(),
            })
            .await?;
        let ServerMessage::Ack {
            seat_token: Some(token),
            ..
        } = answer
        else {
            bail!("{}: no seat token in {answer:?}", self.who);
        };
        self.seat = Some(seat);
        self.token = Some(token);
        Ok(())
    }

    /// The seat and token, for seat actions.
    fn credentials(&self) -> Result<(u8, String)> {
        match (self.seat, &self.token) {
            (Some(seat), Some(token)) => Ok((seat, token.clone())),
            _ => bail!("{} holds no seat", self.who),
        }
    }

    async fn seat_action(
        &mut self,
        build: impl FnOnce(u64, u8, String) -> ClientMessage,
    ) -> Result<ServerMessage> {
        let (seat, token) = self.credentials()?;
        self.ok(|req| build(req, seat, token)).await
    }

    /// Reconnects and says `hello` with its tokens and the last version it holds. Returns the
    /// ack, the events that followed it (up to the answer to a `ping` sent right after) and how
    /// many events arrived before the ack (ignored, as the protocol says). At `checkpoint`'s
    /// version the copy of the room must show `checkpoint`'s board and moves. A snapshot instead
    /// of the events is refused unless `snapshot_ok` (a room of CPUs may run more events ahead
    /// than the room keeps).
    async fn reconnect(
        &mut self,
        base: &Base,
        room: &str,
        checkpoint: Option<&Snapshot>,
        snapshot_ok: bool,
    ) -> Result<(ServerMessage, Vec<(u64, Event)>, usize)> {
        let (mut client, first, _) = base.connect(room).await.with_context(|| self.who.clone())?;
        let since = self.model.v;
        ensure!(
            first.v >= since,
            "{}: the room is at {} below the {since} it held",
            self.who,
            first.v
        );
        let req = client.req();
        client
            .send(&ClientMessage::Hello {
                req,
                seat_tokens: self.token.clone().into_iter().collect(),
                host_token: self.host_token.clone(),
                since: Some(since),
            })
            .await;
        let mut ignored = 0;
        let ack = loop {
            match client.try_next().await? {
                message @ ServerMessage::Ack { .. } if answer_to(&message) == Some(req) => {
                    break message;
                }
                ServerMessage::Event { .. } => ignored += 1,
                ServerMessage::LegalMoves { .. } => {}
                other => bail!("{}: {other:?} before the ack of hello", self.who),
            }
        };
        self.client = Some(client);
        self.legal = None;
        let ping = self.client()?.req();
        self.client()?
            .send(&ClientMessage::Ping { req: ping })
            .await;
        let mut replay = Vec::new();
        let mut checked = false;
        let check = |peer: &Peer, checked: &mut bool| -> Result<()> {
            if let Some(snapshot) = checkpoint {
                if !*checked && peer.model.v == snapshot.v {
                    *checked = true;
                    same_board(&peer.model, snapshot)
                        .with_context(|| format!("{} at v {}", peer.who, snapshot.v))?;
                }
            }
            Ok(())
        };
        check(self, &mut checked)?;
        loop {
            let who = self.who.clone();
            let message = self.client()?.try_next().await.with_context(|| who)?;
            match &message {
                ServerMessage::Event { v, event } => replay.push((*v, event.clone())),
                ServerMessage::Snapshot(_) if snapshot_ok => checked = true,
                ServerMessage::Snapshot(_) => {
                    bail!("{}: a snapshot instead of the missed events", self.who)
                }
                _ => {}
            }
            match self.take(message)? {
                Some(ServerMessage::Pong { req }) if req == ping => break,
                Some(other) => bail!("{}: unexpected {other:?}", self.who),
                None => check(self, &mut checked)?,
            }
        }
        if let Some(snapshot) = checkpoint {
            ensure!(
                checked,
                "{}: never at the version {} of the restored room",
                self.who,
                snapshot.v
            );
        }
        Ok((ack, replay, ignored))
    }

    /// A fresh snapshot for this connection (`hello` without tokens or version), not yet taken in.
    async fn own_snapshot(&mut self) -> Result<Snapshot> {
        self.ok(|req| ClientMessage::Hello {
            req,
            seat_tokens: Vec::new(),
            host_token: None,
            since: None,
        })
        .await?;
        let who = self.who.clone();
        match self.client()?.try_next().await.with_context(|| who)? {
            ServerMessage::Snapshot(snapshot) => Ok(*snapshot),
            other => bail!(
                "{}: expected a snapshot after hello, got {other:?}",
                self.who
            ),
        }
    }
}

/// The model shows the snapshot's board and moves.
fn same_board(model: &Model, snapshot: &Snapshot) -> Result<()> {
    match &snapshot.game {
        Some(game) => {
            ensure!(
                model.moves == game.moves,
                "moves {:?} against the room's {:?}",
                model.moves,
                game.moves
            );
            ensure!(
                model.pieces == game.pieces,
                "the board differs from the room's"
            );
            ensure!(
                model.to_move == game.to_move,
                "to move {:?} against {:?}",
                model.to_move,
                game.to_move
            );
            ensure!(
                model.result == game.result,
                "result {:?} against {:?}",
                model.result,
                game.result
            );
        }
        None => ensure!(!model.started, "a game the room does not have"),
    }
    Ok(())
}

/// What a room looked like just before the kill.
struct Capture {
    snapshot: Snapshot,
    info: RoomInfo,
    /// When the snapshot was written: after the first moment, before the second.
    at: (Instant, Instant),
    /// The acknowledged moves of the current game, with their text in the move list.
    acked: Vec<(Acked, String)>,
}

struct Room {
    n: usize,
    label: String,
    spec: Spec,
    id: String,
    host_token: String,
    /// A spectator that has watched since the room was created (and holds the host token when
    /// the host does not sit).
    watcher: Peer,
    /// The people, in the order they sat down (person 0 sat at seat 0, ...).
    players: Vec<Peer>,
    rng: ChaCha8Rng,
    /// The person who made the last move.
    last_mover: Option<usize>,
    before: Option<Capture>,
    /// Seats whose people came back after the restart, in order.
    back: Vec<u8>,
    /// What the clock checks saw.
    notes: Vec<String>,
}

fn is_ffa(preset: &str) -> bool {
    preset.starts_with("ffa")
}

impl Room {
    fn preset(&self) -> &str {
        if self.spec.twist == Twist::Lobby {
            // Its settings change to free-for-all.
            return "ffa";
        }
        self.spec.patch.preset.as_deref().unwrap_or("teams")
    }

    fn timed(&self) -> bool {
        self.spec.patch.turn_limit.unwrap_or(0) > 0
            || self.spec.patch.team_clock.unwrap_or(0) > 0
            || self.spec.twist == Twist::Lobby
    }

    fn host(&mut self) -> &mut Peer {
        if self.spec.host_sits && self.spec.stage != Stage::AllCpu {
            &mut self.players[0]
        } else {
            &mut self.watcher
        }
    }

    fn person(&mut self, seat: u8) -> Result<&mut Peer> {
        let label = &self.label;
        self.players
            .iter_mut()
            .find(|p| p.seat == Some(seat))
            .ok_or_else(|| anyhow!("{label}: nobody at seat {seat}"))
    }

    fn human_seats(&self) -> Vec<u8> {
        self.players.iter().filter_map(|p| p.seat).collect()
    }

    fn connected(&mut self) -> impl Iterator<Item = &mut Peer> {
        std::iter::once(&mut self.watcher)
            .chain(self.players.iter_mut())
            .filter(|p| p.client.is_some())
    }

    async fn drain_all(&mut self) -> Result<()> {
        for peer in self.connected() {
            peer.drain().await?;
        }
        Ok(())
    }

    async fn start(&mut self) -> Result<()> {
        let host_token = self.host_token.clone();
        self.host()
            .ok(|req| ClientMessage::Start { req, host_token })
            .await?;
        Ok(())
    }

    async fn rematch(&mut self) -> Result<()> {
        let host_token = self.host_token.clone();
        self.host()
            .ok(|req| ClientMessage::Rematch { req, host_token })
            .await?;
        // Everyone takes in the rematch (seats may have moved with it).
        self.drain_all().await
    }

    /// Chat in every channel the room allows: the first person in the room chat, the second in
    /// the team chat, the watcher in the spectators' chat.
    async fn chat(&mut self, tag: &str) -> Result<()> {
        let n = self.n;
        if let Some(first) = self.players.first_mut() {
            let text = format!("good luck, all ({tag}, room {n}) ♞ <b>not bold</b>");
            first
                .seat_action(|req, seat, token| ClientMessage::Chat {
                    req,
                    channel: ChatChannel::Room,
                    text,
                    seat: Some(seat),
                    token: Some(token),
                })
                .await?;
        }
        let team_chat =
            !is_ffa(self.preset()) && (self.spec.twist != Twist::SilentPartners || tag == "lobby");
        if let (true, Some(second)) = (team_chat, self.players.get_mut(1)) {
            second
                .seat_action(|req, seat, token| ClientMessage::Chat {
                    req,
                    channel: ChatChannel::Team,
                    text: format!("watch the bishop ({tag})"),
                    seat: Some(seat),
                    token: Some(token),
                })
                .await?;
        }
        self.watcher
            .ok(|req| ClientMessage::Chat {
                req,
                channel: ChatChannel::Spectators,
                text: format!("Blue should castle ({tag})"),
                seat: None,
                token: None,
            })
            .await?;
        Ok(())
    }

    /// Waits until the room is still: a person is to move, or the game is over (CPU moves
    /// happen by themselves), and every connection has taken in everything.
    async fn settle(&mut self) -> Result<()> {
        self.drain_all().await?;
        loop {
            let humans = self.human_seats();
            let w = &self.watcher.model;
            let cpu_to_move =
                w.started && !w.finished() && w.to_move.is_some_and(|s| !humans.contains(&s));
            if !cpu_to_move {
                break;
            }
            self.watcher.next().await?;
        }
        self.drain_all().await
    }
}

/// Plays one move for the person to move (CPU moves happen by themselves meanwhile); false once
/// the game is over.
async fn play_one(room: &mut Room) -> Result<bool> {
    let timed = room.timed();
    loop {
        let newest = room
            .players
            .iter()
            .filter(|p| p.client.is_some())
            .map(|p| p.model.v)
            .max()
            .unwrap_or(0);
        if room.watcher.model.v < newest {
            room.watcher.next().await?;
            continue;
        }
        let w = &room.watcher.model;
        if !w.started {
            // The start (or a rematch) is on its way.
            room.watcher.next().await?;
            continue;
        }
        if w.finished() {
            return Ok(false);
        }
        let to_move = w.to_move;
        let target = w.v;
        let mover = to_move.and_then(|s| {
            room.players
                .iter()
                .position(|p| p.seat == Some(s) && p.client.is_some())
        });
        let Some(i) = mover else {
            // A CPU is to move (or a person who is not connected): wait for the move.
            room.watcher.next().await?;
            continue;
        };
        let peer = &mut room.players[i];
        if peer.model.v < target {
            peer.next().await?;
            continue;
        }
        if peer.model.v > target || peer.seat != to_move {
            continue;
        }
        let (seat, token) = peer.credentials()?;
        let ready = peer.legal.as_ref().is_some_and(|(v, legal)| {
            *v == peer.model.v && legal.seat == seat && legal.ply as usize == peer.model.moves.len()
        });
        if !ready {
            peer.next().await?;
            continue;
        }
        let (_, legal) = peer.legal.take().expect("checked");
        let mv = legal.moves[room.rng.random_range(0..legal.moves.len())].clone();
        let ply = legal.ply;
        let sent = mv.clone();
        let answer = peer
            .request(|req| ClientMessage::Move {
                req,
                seat,
                token,
                ply,
                mv: sent,
            })
            .await?;
        match answer {
            ServerMessage::Ack { .. } => {
                // Legal moves that arrived before the ack were for the position before the move.
                peer.legal = None;
                let game = peer
                    .game_id
                    .clone()
                    .ok_or_else(|| anyhow!("{}: no game", peer.who))?;
                peer.acked.push(Acked {
                    game,
                    ply,
                    seat,
                    mv,
                });
                room.last_mover = Some(i);
                return Ok(true);
            }
            // The turn limit ran out just then: the CPU played the move.
            ServerMessage::Error {
                code: ErrorCode::StalePly | ErrorCode::TimeUp | ErrorCode::NotYourTurn,
                ..
            } if timed => continue,
            other => bail!(
                "{}: move {mv} at ply {ply} after {:?}: {other:?}\n{}",
                peer.who,
                peer.model.moves,
                peer.trace.join("\n")
            ),
        }
    }
}

async fn play(room: &mut Room, moves: usize) -> Result<usize> {
    let mut played = 0;
    while played < moves && play_one(room).await? {
        played += 1;
    }
    Ok(played)
}

/// Creates a room and brings it to the state its spec asks for (all but starting a room of CPUs).
async fn set_up(base: Base, n: usize, spec: Spec) -> Result<Room> {
    let label = format!("room {n} ({})", spec.label);
    let created = base
        .create(&spec.patch)
        .await
        .with_context(|| label.clone())?;
    let mut watcher = Peer::open(&base, &created.id, format!("{label} watcher")).await?;
    let cpu_seats: Vec<u8> = spec.cpu.iter().map(|(s, _)| *s).collect();
    let humans: Vec<u8> = (0..4)
        .filter(|s| !cpu_seats.contains(s) && !spec.empty.contains(s))
        .collect();
    let host_sits = spec.host_sits && humans.first() == Some(&0);
    let mut spec = spec;
    spec.host_sits = host_sits;
    if !host_sits {
        watcher.host_token = Some(created.host_token.clone());
        let ack = watcher.hello().await?;
        ensure!(
            matches!(
                ack,
                ServerMessage::Ack {
                    host: Some(true),
                    ..
                }
            ),
            "{label}: host token refused"
        );
    }
    let mut players = Vec::new();
    for &seat in &humans {
        let mut peer = Peer::open(
            &base,
            &created.id,
            format!("{label} person {}", players.len()),
        )
        .await?;
        if seat == 0 && host_sits {
            peer.host_token = Some(created.host_token.clone());
            peer.hello().await?;
        }
        peer.take_seat(seat, NAMES[usize::from(seat)]).await?;
        players.push(peer);
    }
    let mut room = Room {
        n,
        label,
        id: created.id,
        host_token: created.host_token,
        watcher,
        players,
        rng: ChaCha8Rng::seed_from_u64(0xC4A5_0000 + n as u64),
        last_mover: None,
        before: None,
        back: Vec::new(),
        notes: Vec::new(),
        spec,
    };
    let host_token = room.host_token.clone();
    for (seat, level) in room.spec.cpu.clone() {
        if let Some(level) = level {
            let host_token = host_token.clone();
            room.host()
                .ok(|req| ClientMessage::SetCpu {
                    req,
                    host_token,
                    seat,
                    level: Some(level),
                })
                .await?;
        }
    }
    match room.spec.twist {
        Twist::Lobby => {
            let settings = SettingsPatch {
                preset: Some("ffa".into()),
                turn_limit: Some(30),
                cpu_level: Some(CpuLevel::Hard),
                rotate_first_seat: Some(false),
                ..SettingsPatch::default()
            };
            room.host()
                .ok(|req| ClientMessage::UpdateSettings {
                    req,
                    host_token,
                    settings,
                })
                .await?;
            room.chat("lobby").await?;
            return Ok(room);
        }
        Twist::LobbyReshuffle => {
            let token = host_token.clone();
            room.host()
                .ok(|req| ClientMessage::MovePlayer {
                    req,
                    host_token: token,
                    from: 2,
                    to: 3,
                })
                .await?;
            let token = host_token.clone();
            room.host()
                .ok(|req| ClientMessage::TransferHost {
                    req,
                    host_token: token,
                    seat: 1,
                })
                .await?;
            room.chat("lobby").await?;
            room.drain_all().await?;
            let new_host = room.person(1)?.host_token.clone();
            room.host_token =
                new_host.ok_or_else(|| anyhow!("{}: no new host token", room.label))?;
            ensure!(
                room.host_token != host_token,
                "{}: the host token did not change",
                room.label
            );
            return Ok(room);
        }
        Twist::SilentPartners => room.chat("lobby").await?,
        _ => {}
    }
    if room.spec.stage == Stage::AllCpu {
        return Ok(room);
    }
    room.start().await?;
    if matches!(room.spec.twist, Twist::Rematch | Twist::SwitchPartners) {
        play(&mut room, 2).await?;
        let resigner = if room.spec.twist == Twist::Rematch {
            0
        } else {
            1
        };
        room.players[resigner]
            .seat_action(|req, seat, token| ClientMessage::Resign { req, seat, token })
            .await?;
        room.rematch().await?;
    }
    let half = room.spec.moves / 2;
    for i in 0..room.spec.moves {
        if i == half && room.spec.chat {
            room.chat("game").await?;
        }
        if !play_one(&mut room).await? {
            bail!("{}: the game ended during the setup", room.label);
        }
    }
    twist_before_kill(&mut room).await?;
    Ok(room)
}

async fn twist_before_kill(room: &mut Room) -> Result<()> {
    // CPU moves still on their way would end a draw offer (an offer lapses with the next move).
    room.settle().await?;
    match room.spec.twist {
        Twist::Away => {
            room.drain_all().await?;
            let client = room.players[1].client.take().expect("connected");
            client.close().await;
        }
        Twist::DrawOffer | Twist::Drawn => {
            room.players[0]
                .seat_action(|req, seat, token| ClientMessage::OfferDraw { req, seat, token })
                .await?;
            let people = room.players.len();
            let agree: Vec<usize> = if room.spec.twist == Twist::Drawn {
                (1..people).collect()
            } else {
                vec![2]
            };
            for i in agree.into_iter().filter(|&i| i < people) {
                room.players[i]
                    .seat_action(|req, seat, token| ClientMessage::AnswerDraw {
                        req,
                        seat,
                        token,
                        accept: true,
                    })
                    .await?;
            }
        }
        Twist::Finished => {
            room.players[0]
                .seat_action(|req, seat, token| ClientMessage::Resign { req, seat, token })
                .await?;
        }
        Twist::ResignationRequest => {
            room.players[1]
                .seat_action(|req, seat, token| ClientMessage::Resign { req, seat, token })
                .await?;
        }
        Twist::Takeback => {
            let last = room
                .last_mover
                .ok_or_else(|| anyhow!("{}: nobody moved", room.label))?;
            room.players[last]
                .seat_action(|req, seat, token| ClientMessage::TakeBack { req, seat, token })
                .await?;
        }
        _ => {}
    }
    Ok(())
}

/// The seats whose people were online.
fn online_seats(seats: &[SeatView]) -> Vec<u8> {
    seats
        .iter()
        .filter(|s| s.presence == Some(Presence::Online))
        .map(|s| s.seat)
        .collect()
}

/// The seats as they must be after the restart: whoever was online is away.
fn after_restart(seats: &[SeatView]) -> Vec<SeatView> {
    seats
        .iter()
        .map(|s| SeatView {
            presence: s.presence.map(|p| {
                if p == Presence::Online {
                    Presence::Away
                } else {
                    p
                }
            }),
            ..s.clone()
        })
        .collect()
}

/// A game without its clock (checked apart).
fn without_clock(game: &GameView) -> GameView {
    GameView {
        clock: fourkings_protocol::Clock::default(),
        ..game.clone()
    }
}

/// Drains every connection of the room and captures it: a fresh spectator snapshot and the room
/// info. Every connection's copy must match the room, and every acknowledged move must be at its
/// ply.
async fn capture(base: &Base, room: &mut Room) -> Result<()> {
    let all_cpu = room.spec.stage == Stage::AllCpu;
    if all_cpu {
        room.drain_all().await?;
    } else {
        room.settle().await?;
    }
    let (client, snapshot, at) = base.connect(&room.id).await?;
    client.close().await;
    let info = base.info(&room.id).await?;
    let label = room.label.clone();
    if !all_cpu {
        ensure!(
            info.v == snapshot.v,
            "{label}: info at v {} but snapshot at v {}",
            info.v,
            snapshot.v
        );
        ensure!(
            info.seats == snapshot.seats && info.host_seat == snapshot.host_seat,
            "{label}: info and snapshot differ"
        );
        ensure!(
            info.settings == snapshot.settings && info.status == snapshot.status,
            "{label}: info and snapshot differ"
        );
    }
    let mut acked = Vec::new();
    for peer in std::iter::once(&room.watcher).chain(room.players.iter()) {
        // A person who dropped holds what they saw until then (their moves included).
        let connected = peer.client.is_some();
        if all_cpu {
            ensure!(
                peer.model.v <= snapshot.v,
                "{}: ahead of the room",
                peer.who
            );
            let moves = snapshot
                .game
                .as_ref()
                .map(|g| g.moves.clone())
                .unwrap_or_default();
            ensure!(
                moves.starts_with(&peer.model.moves),
                "{}: moves the room does not have",
                peer.who
            );
            continue;
        }
        ensure!(
            peer.model.v == snapshot.v || !connected,
            "{}: at v {} but the room is at v {}",
            peer.who,
            peer.model.v,
            snapshot.v
        );
        if connected {
            same_board(&peer.model, &snapshot).with_context(|| peer.who.clone())?;
        }
        for a in &peer.acked {
            if peer.game_id.as_ref() != Some(&a.game) {
                continue;
            }
            let seen = peer.model.seen.get(&(a.ply + 1));
            ensure!(
                seen == Some(&(a.seat, a.mv.clone())),
                "{}: acked {a:?} but the room played {seen:?} at that ply",
                peer.who
            );
            acked.push((a.clone(), peer.model.moves[a.ply as usize].clone()));
        }
    }
    if let Some(game) = &snapshot.game {
        match room.spec.twist {
            Twist::DrawOffer => ensure!(
                !game.draw_offer.is_empty() && game.result.is_none(),
                "{label}: no open draw offer"
            ),
            Twist::Drawn | Twist::Finished => {
                ensure!(game.result.is_some(), "{label}: not finished")
            }
            Twist::ResignationRequest => ensure!(
                game.resignation_request == Some(1),
                "{label}: no resignation request"
            ),
            Twist::Takeback => ensure!(game.lifelines.contains(&1), "{label}: no lifeline spent"),
            Twist::Away => ensure!(
                snapshot.seats[1].presence == Some(Presence::Away),
                "{label}: seat 1 is not away"
            ),
            _ => {}
        }
    }
    room.before = Some(Capture {
        snapshot,
        info,
        at,
        acked,
    });
    Ok(())
}

/// The moments the clock checks need.
#[derive(Clone, Copy)]
struct Moments {
    /// The last record written before the kill was sent (the marker): the server's notion of
    /// when it stopped is at or after it.
    marker: Instant,
    /// After the process was dead.
    killed: Instant,
    /// Before the new process was started.
    respawned: Instant,
}

fn ms(d: Duration) -> i128 {
    d.as_millis() as i128
}

/// `actual` must lie in `[low, high]`, give or take the slack; `notes` keeps what was seen.
fn within(notes: &mut Vec<String>, what: &str, actual: i128, low: i128, high: i128) -> Result<()> {
    let seen = format!("{what}: {actual} ms, expected {low}..={high} ms (± {SLACK_MS})");
    ensure!(
        actual >= low - SLACK_MS && actual <= high + SLACK_MS,
        "{seen}"
    );
    notes.push(seen);
    Ok(())
}

/// Checks the restored room against its capture, then reconnects everyone, carries on and checks
/// the moves at the end.
async fn recover(base: Base, mut room: Room, moments: Moments) -> Result<Room> {
    let label = room.label.clone();
    let all_cpu = room.spec.stage == Stage::AllCpu;
    let mut notes = Vec::new();
    let before = room
        .before
        .take()
        .ok_or_else(|| anyhow!("{label}: not captured"))?;
    let s1 = &before.snapshot;
    // The room as a newcomer sees it now. The newcomer stays while the others come back: from
    // its snapshot on, it must receive only newer events, in order.
    let (client, s2, seen_at) = base
        .connect(&room.id)
        .await
        .with_context(|| label.clone())?;
    let mut newcomer = Peer::open_with(client, &s2, format!("{label} newcomer"))?;
    let info2 = base.info(&room.id).await?;
    let online = online_seats(&s1.seats);
    ensure!(
        s2.status == s1.status || all_cpu,
        "{label}: status {:?} was {:?}",
        s2.status,
        s1.status
    );
    ensure!(s2.settings == s1.settings, "{label}: settings changed");
    ensure!(
        s2.host_seat == s1.host_seat,
        "{label}: host seat {:?} was {:?}",
        s2.host_seat,
        s1.host_seat
    );
    ensure!(
        s2.seats == after_restart(&s1.seats),
        "{label}: seats {:?} were {:?}",
        s2.seats,
        s1.seats
    );
    ensure!(
        s2.chat == s1.chat,
        "{label}: chat {:?} was {:?}",
        s2.chat,
        s1.chat
    );
    ensure!(
        s2.session == s1.session,
        "{label}: session {:?} was {:?}",
        s2.session,
        s1.session
    );
    ensure!(
        s2.your_seats.is_empty()
            && !s2.you_are_host
            && s2.host_token.is_none()
            && s2.legal_moves.is_none(),
        "{label}: a spectator's snapshot with secrets"
    );
    if all_cpu {
        ensure!(s2.v >= s1.v, "{label}: v {} was {}", s2.v, s1.v);
        let (g1, g2) = (
            s1.game.as_ref().expect("started"),
            s2.game.as_ref().expect("started"),
        );
        ensure!(
            g2.moves.starts_with(&g1.moves),
            "{label}: moves lost: {:?} then {:?}",
            g1.moves,
            g2.moves
        );
        ensure!(g2.id == g1.id, "{label}: another game");
    } else {
        ensure!(
            s2.v == s1.v + online.len() as u64,
            "{label}: v {} but it was {} with {} people online",
            s2.v,
            s1.v,
            online.len()
        );
        ensure!(
            s2.game.as_ref().map(without_clock) == s1.game.as_ref().map(without_clock),
            "{label}: the game changed:\n{:?}\nwas\n{:?}",
            s2.game,
            s1.game
        );
        ensure!(
            info2.v == s2.v,
            "{label}: info at v {} but snapshot at v {}",
            info2.v,
            s2.v
        );
        ensure!(
            info2.seats == after_restart(&before.info.seats)
                && info2.settings == before.info.settings
                && info2.host_seat == before.info.host_seat
                && info2.status == before.info.status,
            "{label}: GET /api/rooms {info2:?} was {:?}",
            before.info
        );
        for (acked, text) in &before.acked {
            let moves = &s2.game.as_ref().expect("a game").moves;
            ensure!(
                moves.get(acked.ply as usize) == Some(text),
                "{label}: acked {acked:?} ({text}) is not at its ply in {moves:?}"
            );
        }
    }
    // The clocks: a running turn limit goes on with what it had left when the process died;
    // Duo's banks stopped (everyone is away) with what they had.
    // Between the capture and the process's end, at least the time from the capture's arrival
    // to the last record (the marker was sent before it), at most the time from asking for the
    // capture to the end; after the restart, at most the time from starting the process to the
    // arrival of the new snapshot. The downtime in between does not count.
    let (asked, arrived) = before.at;
    let low_loss = ms(moments.marker.saturating_duration_since(arrived));
    let high_loss = ms(moments.killed.saturating_duration_since(asked))
        + ms(seen_at.1.saturating_duration_since(moments.respawned));
    let mut duo_check = None;
    if let (Some(g1), Some(g2), false) = (&s1.game, &s2.game, all_cpu) {
        if g1.result.is_none() {
            let (c1, c2) = (&g1.clock, &g2.clock);
            if g1.board == "classic" {
                // Duo: the clocks stopped at the restart, everyone being away.
                ensure!(
                    c2.paused || *c1 == fourkings_protocol::Clock::default(),
                    "{label}: Duo's clocks run with everyone away: {c2:?}"
                );
                if let Some(banks1) = c1.banks_ms {
                    let banks2 = c2
                        .banks_ms
                        .ok_or_else(|| anyhow!("{label}: the banks are gone"))?;
                    let team = usize::from(g1.to_move.expect("to move") & 1);
                    let other = 1 - team;
                    let idle = i128::from(banks1[other]);
                    within(
                        &mut notes,
                        &format!("{label}: the idle bank"),
                        i128::from(banks2[other]),
                        idle,
                        idle,
                    )?;
                    let b1 = i128::from(banks1[team]);
                    within(
                        &mut notes,
                        &format!("{label}: the running bank"),
                        i128::from(banks2[team]),
                        b1 - high_loss,
                        b1 - low_loss,
                    )?;
                }
                duo_check = Some((c2.banks_ms, c1.turn_remaining_ms));
            } else if let Some(r1) = c1.turn_remaining_ms {
                let r2 = c2
                    .turn_remaining_ms
                    .ok_or_else(|| anyhow!("{label}: the turn limit is gone: {c2:?}"))?;
                let r1 = i128::from(r1);
                within(
                    &mut notes,
                    &format!("{label}: the turn limit left"),
                    i128::from(r2),
                    r1 - high_loss,
                    r1 - low_loss,
                )?;
            }
        }
    }
    // The watcher comes back first: it receives the `away` of everyone who was online, and at
    // the restored version its copy shows the restored room.
    let (ack, replay, ignored) = room
        .watcher
        .reconnect(&base, &room.id, Some(&s2), all_cpu)
        .await?;
    let host = room.watcher.host_token.is_some();
    ensure!(
        matches!(&ack, ServerMessage::Ack { seats: Some(seats), host: Some(h), .. } if seats.is_empty() && *h == host),
        "{label}: the watcher's hello: {ack:?}"
    );
    if !all_cpu {
        ensure!(
            ignored == 0,
            "{label}: {ignored} events before the watcher's ack"
        );
        check_replay(&room, &room.watcher, s1.v, &online, s2.v, &replay)?;
    }
    // The newcomer, still there: nothing it has not seen yet (the restart's own events were in
    // its snapshot).
    newcomer.drain().await?;
    // Then the people, one by one, with their tokens and the last version each holds. Published
    // events are not stored, only the records behind them: someone who was already behind when
    // the server died (away, in their grace period) gets a snapshot of the restored room; everyone
    // who was up to date gets exactly the events of the restart and of the returns.
    for i in 0..room.players.len() {
        let since = room.players[i].model.v;
        let behind = since < s1.v;
        let base2 = base.clone();
        let id = room.id.clone();
        let (ack, replay, ignored) = room.players[i].reconnect(&base2, &id, None, behind).await?;
        let peer = &room.players[i];
        let seat = peer.seat.expect("a seat");
        let host = peer.host_token.as_ref() == Some(&room.host_token);
        ensure!(
            matches!(&ack, ServerMessage::Ack { seats: Some(seats), host: Some(h), .. } if *seats == [seat] && *h == host),
            "{}: hello with token and host token ({host}): {ack:?}",
            peer.who
        );
        ensure!(
            ignored == 0,
            "{}: {ignored} events before the ack",
            peer.who
        );
        if behind {
            same_board(&peer.model, &s2)
                .with_context(|| format!("{}: caught up after the restart", peer.who))?;
        } else {
            ensure!(
                replay.first().is_none_or(|(v, _)| *v == since + 1),
                "{}: the replay starts at {:?}, not {}",
                peer.who,
                replay.first(),
                since + 1
            );
            if !all_cpu {
                check_replay(&room, peer, s1.v, &online, s2.v, &replay)?;
            }
        }
        room.back.push(seat);
    }
    // The newcomer saw them come back, and nothing else it had not seen.
    newcomer.drain().await?;
    if !all_cpu {
        let back: Vec<(u8, Presence)> = newcomer
            .log
            .values()
            .filter_map(|e| match e {
                Event::Presence { seat, presence, .. } => Some((*seat, *presence)),
                _ => None,
            })
            .collect();
        let expected: Vec<(u8, Presence)> =
            room.back.iter().map(|&s| (s, Presence::Online)).collect();
        ensure!(
            back == expected,
            "{label}: the newcomer saw {back:?}, not {expected:?}"
        );
    }
    drop(newcomer);
    // Every connection's own snapshot: its seats, its chat, the host token if it holds the
    // host's seat.
    let host_token = room.host_token.clone();
    for peer in room.connected() {
        let snapshot = peer.own_snapshot().await?;
        ensure!(
            snapshot.your_seats == peer.seat.into_iter().collect::<Vec<_>>(),
            "{}: your_seats {:?}",
            peer.who,
            snapshot.your_seats
        );
        ensure!(
            snapshot.chat == peer.chat,
            "{}: chat {:?}, but it read {:?}",
            peer.who,
            snapshot.chat,
            peer.chat
        );
        let holds_host_seat = snapshot.host_seat.is_some() && snapshot.host_seat == peer.seat;
        ensure!(
            snapshot.host_token == holds_host_seat.then(|| host_token.clone()),
            "{}: host token {:?} in its snapshot",
            peer.who,
            snapshot.host_token
        );
        if !all_cpu {
            ensure!(
                snapshot.v == peer.model.v,
                "{}: snapshot v {} but it holds {}",
                peer.who,
                snapshot.v,
                peer.model.v
            );
            same_board(&peer.model, &snapshot).with_context(|| peer.who.clone())?;
        }
        peer.adopt(&snapshot)?;
    }
    // Duo's clocks run again now that everyone is back, with what they had.
    if let Some((banks2, r1)) = duo_check {
        let resumed = room
            .watcher
            .log
            .range(s2.v + 1..)
            .find_map(|(_, e)| match e {
                Event::Presence { clock, .. } if !clock.paused => Some(clock.clone()),
                _ => None,
            })
            .ok_or_else(|| anyhow!("{label}: the clocks did not run again"))?;
        if let Some(banks2) = banks2 {
            let banks = resumed
                .banks_ms
                .ok_or_else(|| anyhow!("{label}: no banks: {resumed:?}"))?;
            for team in 0..2 {
                let stopped = i128::from(banks2[team]);
                within(
                    &mut notes,
                    &format!("{label}: bank {team} when the clocks run again"),
                    i128::from(banks[team]),
                    stopped - 2,
                    stopped,
                )?;
            }
        }
        if let Some(r1) = r1 {
            let left = resumed
                .turn_remaining_ms
                .ok_or_else(|| anyhow!("{label}: no turn time: {resumed:?}"))?;
            let r1 = i128::from(r1);
            within(
                &mut notes,
                &format!("{label}: the turn time left when the clocks run again"),
                i128::from(left),
                r1 - high_loss,
                r1 - low_loss,
            )?;
        }
    }
    // A move acknowledged before the kill is not played twice: sent again, it is a stale ply.
    let current = s2
        .game
        .as_ref()
        .filter(|g| g.result.is_none())
        .map(|g| g.id.clone());
    if let (Some(game), false) = (&current, all_cpu) {
        let last = room
            .players
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                p.acked
                    .iter()
                    .filter(|a| &a.game == game)
                    .map(move |a| (i, a.clone()))
            })
            .max_by_key(|(_, a)| a.ply);
        if let Some((i, acked)) = last {
            let peer = &mut room.players[i];
            let (seat, token) = peer.credentials()?;
            peer.fails(ErrorCode::StalePly, |req| ClientMessage::Move {
                req,
                seat,
                token,
                ply: acked.ply,
                mv: acked.mv.clone(),
            })
            .await?;
        }
    }
    twist_after_restart(&base, &mut room, &s2).await?;
    // The game carries on.
    if all_cpu {
        follow_cpus(&mut room).await?;
    } else {
        play(&mut room, MOVES_AFTER).await?;
    }
    finish(&base, &mut room).await?;
    room.notes = notes;
    Ok(room)
}

/// Checks the events a reconnection received after its ack: those it missed before the kill
/// (as the watcher saw them, shaped for its seats), the restart's `away` for each person who was
/// online (`online`, in seat order), the `online` of each person back before it and its own, then
/// only automatic moves (a turn limit running out).
fn check_replay(
    room: &Room,
    peer: &Peer,
    v1: u64,
    online: &[u8],
    v2: u64,
    replay: &[(u64, Event)],
) -> Result<()> {
    let who = &peer.who;
    let mut back = room.back.clone();
    back.extend(peer.seat);
    let mut restart = online.iter();
    let mut returns = back.iter();
    for (v, event) in replay {
        if *v <= v1 {
            let watched = room
                .watcher
                .log
                .get(v)
                .ok_or_else(|| anyhow!("{who}: the watcher never saw v {v}"))?;
            let same = match (watched, event) {
                (Event::Hidden, Event::Hidden | Event::Chat(_) | Event::HostToken { .. }) => true,
                (Event::Chat(line), Event::Hidden) => line.channel == ChatChannel::Spectators,
                (a, b) => a == b,
            };
            ensure!(
                same,
                "{who}: v {v} replayed as {event:?}, but it was {watched:?}"
            );
        } else if *v <= v2 {
            let seat = restart.next();
            ensure!(
                matches!(event, Event::Presence { seat: s, presence: Presence::Away, .. } if Some(s) == seat),
                "{who}: v {v} of the restart is {event:?}, expected seat {seat:?} away"
            );
        } else if let Some(seat) = returns.next() {
            ensure!(
                matches!(event, Event::Presence { seat: s, presence: Presence::Online, .. } if s == seat),
                "{who}: v {v} is {event:?}, expected seat {seat} back online"
            );
        } else {
            ensure!(
                matches!(event, Event::Moved(m) if m.automatic) && room.timed(),
                "{who}: v {v} is {event:?}, more than it missed"
            );
        }
    }
    ensure!(
        restart.next().is_none(),
        "{who}: the replay misses the restart's presence events"
    );
    ensure!(
        returns.next().is_none(),
        "{who}: the replay misses people coming back"
    );
    Ok(())
}

/// What happens after the restart that only some rooms do.
async fn twist_after_restart(base: &Base, room: &mut Room, s2: &Snapshot) -> Result<()> {
    let label = room.label.clone();
    match room.spec.twist {
        Twist::DrawOffer => {
            // Those who had not agreed agree now: the offer was still open.
            let agreed = s2
                .game
                .as_ref()
                .map(|g| g.draw_offer.clone())
                .unwrap_or_default();
            let rest: Vec<usize> = (0..room.players.len())
                .filter(|&i| room.players[i].seat.is_some_and(|s| !agreed.contains(&s)))
                .collect();
            ensure!(!rest.is_empty(), "{label}: everyone had agreed");
            for i in rest {
                room.players[i]
                    .seat_action(|req, seat, token| ClientMessage::AnswerDraw {
                        req,
                        seat,
                        token,
                        accept: true,
                    })
                    .await?;
            }
            room.drain_all().await?;
            let result = room.watcher.model.result.clone();
            ensure!(
                result.as_ref().is_some_and(|r| r.reason == "agreement"),
                "{label}: not drawn: {result:?}"
            );
        }
        Twist::Drawn | Twist::Finished => {
            // The finished game is in the archive, and the host may rematch.
            let game = s2.game.as_ref().expect("a game");
            let extension = if game.board == "classic" {
                "pgn"
            } else {
                "pgn4"
            };
            let status = base
                .status_of(&format!("/api/games/{}.{extension}", game.id))
                .await?;
            ensure!(status == 200, "{label}: the archived game answers {status}");
            room.rematch().await?;
        }
        Twist::ResignationRequest => {
            room.person(3)?
                .seat_action(|req, seat, token| ClientMessage::AnswerResignation {
                    req,
                    seat,
                    token,
                    accept: false,
                })
                .await?;
        }
        Twist::Takeback => {
            // The move taken back is still refused, and not among the legal moves.
            let taken: Vec<Acked> = room
                .players
                .iter()
                .flat_map(|p| p.taken_back.clone())
                .collect();
            let acked = taken
                .last()
                .ok_or_else(|| anyhow!("{label}: nothing was taken back"))?
                .clone();
            let game = s2.game.as_ref().expect("a game");
            ensure!(
                game.ply == acked.ply && game.to_move == Some(acked.seat),
                "{label}: not at the ply taken back"
            );
            let peer = room.person(acked.seat)?;
            peer.drain().await?;
            let legal = peer
                .legal
                .clone()
                .ok_or_else(|| anyhow!("{label}: no legal moves"))?;
            ensure!(
                !legal.1.moves.contains(&acked.mv),
                "{label}: {} is legal again",
                acked.mv
            );
            let (seat, token) = peer.credentials()?;
            peer.fails(ErrorCode::TakenBack, |req| ClientMessage::Move {
                req,
                seat,
                token,
                ply: acked.ply,
                mv: acked.mv.clone(),
            })
            .await?;
        }
        Twist::Lobby => {
            let mut late = Peer::open(base, &room.id, format!("{label} late person")).await?;
            late.take_seat(2, "Late Lou").await?;
            room.players.push(late);
            room.start().await?;
        }
        Twist::SilentPartners => {
            // The rule came back with the settings: no team chat once the game has started.
            let (seat, token) = room.players[1].credentials()?;
            room.players[1]
                .fails(ErrorCode::NotAllowed, |req| ClientMessage::Chat {
                    req,
                    channel: ChatChannel::Team,
                    text: "psst".into(),
                    seat: Some(seat),
                    token: Some(token),
                })
                .await?;
        }
        Twist::LobbyReshuffle => {
            // The old host token no longer works; the new one does.
            let old = room.players[0]
                .host_token
                .clone()
                .expect("the first host token");
            room.players[0]
                .fails(ErrorCode::NotHost, |req| ClientMessage::Start {
                    req,
                    host_token: old,
                })
                .await?;
            let host_token = room.host_token.clone();
            room.person(1)?
                .ok(|req| ClientMessage::Start { req, host_token })
                .await?;
        }
        _ => {}
    }
    Ok(())
}

/// A room of CPUs: the watcher follows it for a while after the restart (the game goes on by
/// itself), its copy fitting together move by move.
async fn follow_cpus(room: &mut Room) -> Result<()> {
    let start = room.watcher.model.moves.len();
    while !room.watcher.model.finished() && room.watcher.model.moves.len() < start + CPU_MOVES_AFTER
    {
        room.watcher.next().await?;
    }
    Ok(())
}

/// At the end: every connection has taken in everything, and every acknowledged move of the
/// current game is in its move list exactly once, at its ply.
async fn finish(base: &Base, room: &mut Room) -> Result<()> {
    let all_cpu = room.spec.stage == Stage::AllCpu;
    if all_cpu {
        room.drain_all().await?;
    } else {
        room.settle().await?;
    }
    let (client, s3, _) = base.connect(&room.id).await?;
    client.close().await;
    let label = &room.label;
    let moves = s3
        .game
        .as_ref()
        .map(|g| g.moves.clone())
        .unwrap_or_default();
    let game_id = s3.game.as_ref().map(|g| g.id.clone());
    ensure!(
        moves.starts_with(&room.watcher.model.moves),
        "{label}: the watcher's moves are not the room's"
    );
    for peer in std::iter::once(&room.watcher).chain(room.players.iter()) {
        if !all_cpu {
            ensure!(
                peer.model.v == s3.v,
                "{}: at v {} but the room is at {}",
                peer.who,
                peer.model.v,
                s3.v
            );
            same_board(&peer.model, &s3).with_context(|| peer.who.clone())?;
        }
        for a in peer
            .acked
            .iter()
            .filter(|a| Some(&a.game) == game_id.as_ref())
        {
            let index = a.ply as usize;
            ensure!(
                peer.model.seen.get(&(a.ply + 1)) == Some(&(a.seat, a.mv.clone()))
                    && moves.get(index) == peer.model.moves.get(index),
                "{}: the acked {a:?} is not at its ply",
                peer.who
            );
        }
    }
    Ok(())
}

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
enum Stop {
    /// SIGKILL: nothing is flushed, nobody is told.
    Kill,
    /// SIGTERM: every room is flushed and every client told the server is restarting (1012).
    Term,
}

/// The two runs of 50 rooms take turns: side by side they would share the two cores, and the
/// clock checks are about the server's time, not the machine's load.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_room_comes_back_after_a_kill_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run(Stop::Kill))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// Issue 9, item 6: the same 50 rooms through a graceful restart. Every connection receives
/// what it was owed and then the close for a restart, the process exits cleanly, and every room
/// comes back as after a kill: nothing lost, and every client carries on from its version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_room_comes_back_after_sigterm_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run(Stop::Term))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

async fn run(stop: Stop) -> Result<()> {
    let dir = TempDir::new("crash");
    let database = dir.0.join("rooms.db");
    let database = database.to_str().expect("a UTF-8 path").to_owned();
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
    let env = [("FOURKINGS_DATABASE", database.as_str())];
    let began = Instant::now();
    let mut server = ServerProcess::spawn(&args, &env);
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
        .ok(|req| ClientMessage::Chat {
            req,
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
    tokio::time::sleep(DOWNTIME).await;
    let respawned = Instant::now();
    let server = ServerProcess::spawn(&args, &env);
    let restarted_in = respawned.elapsed();
    let base = Base::of(&server);
    let moments = Moments {
        marker: marked,
        killed,
        respawned,
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

/// The restart marks the people who were online `away` while nobody is connected. Those events
/// reach clients through snapshots and replays; they must not be sent again, out of order, to a
/// connection whose snapshot already showed them once someone else's request is handled (they
/// used to be, with the first request after a restart).
#[tokio::test]
async fn the_restarts_own_events_are_not_sent_again_after_a_snapshot() {
    let result = tokio::time::timeout(Duration::from_secs(60), async {
        let dir = TempDir::new("crash");
        let database = dir.0.join("rooms.db");
        let env = [(
            "FOURKINGS_DATABASE",
            database.to_str().expect("a UTF-8 path"),
        )];
        let args = ["serve", "--addr", "127.0.0.1:0"];
        let mut server = ServerProcess::spawn(&args, &env);
        let base = Base::of(&server);
        let created = base.create(&SettingsPatch::default()).await?;
        let mut ann = Peer::open(&base, &created.id, "Ann".into()).await?;
        ann.take_seat(0, "Ann").await?;
        let mut bob = Peer::open(&base, &created.id, "Bob".into()).await?;
        bob.take_seat(1, "Bob").await?;
        bob.drain().await?;
        server.signal_and_wait("KILL");
        let server = ServerProcess::spawn(&args, &env);
        let base = Base::of(&server);
        // A newcomer's snapshot shows both players away (two events after Bob's version)...
        let (client, snapshot, _) = base.connect(&created.id).await?;
        ensure!(
            snapshot.v == bob.model.v + 2,
            "v {} after {}",
            snapshot.v,
            bob.model.v
        );
        let mut newcomer = Peer::open_with(client, &snapshot, "newcomer".into())?;
        // ... and after Bob is back, it receives only what came after its snapshot: Bob online.
        let (_, replay, _) = bob.reconnect(&base, &created.id, None, false).await?;
        ensure!(
            replay.len() == 3,
            "Bob missed the two away and his own online: {replay:?}"
        );
        newcomer.drain().await?;
        ensure!(
            newcomer.log.keys().copied().collect::<Vec<_>>() == [snapshot.v + 1],
            "the newcomer received {:?}",
            newcomer.log
        );
        ensure!(
            matches!(
                newcomer.log.get(&(snapshot.v + 1)),
                Some(Event::Presence {
                    seat: 1,
                    presence: Presence::Online,
                    ..
                })
            ),
            "the newcomer received {:?}",
            newcomer.log
        );
        Ok::<(), anyhow::Error>(())
    })
    .await;
    result
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}
