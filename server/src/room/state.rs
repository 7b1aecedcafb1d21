//! A room's state, its event log, and how events reach connections.

use std::collections::{HashMap, VecDeque};

use fourkings_engine::{Format, Game};
use fourkings_protocol::{
    ChatChannel, ChatLine, ClientMessage, CpuLevel, ErrorCode, Event, GameStatus, Occupant,
    RoomInfo, SeatIndex, SeatView, ServerMessage, Settings, Snapshot,
};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::clock::Clocks;
use super::observe::{Reported, record_kind, request_span};
use super::presence::Absence;
use super::record::{Record, StoredAbsence};
use super::session::Session;
use super::{Command, RoomContext, rules, views};
use crate::connection::{ConnId, Outbox, Queued};
use crate::ids::{new_token, token_matches};
use crate::storage::writer::Written;
use crate::storage::{RoomLog, Write};

/// Who sits in a seat.
#[derive(Clone, Debug)]
pub(crate) enum SeatSlot {
    Empty,
    Human {
        name: String,
        /// The seat's secret token: whoever presents it acts for the seat.
        token: String,
    },
    Cpu {
        level: CpuLevel,
    },
}

/// A connection as the room knows it.
pub(super) struct Conn {
    pub(super) outbox: Outbox,
    /// Bit `s` set: this connection proved it holds seat `s` (it receives that seat's legal moves
    /// and private events).
    pub(super) seats: u8,
    /// Whether it proved it holds the host token.
    pub(super) host: bool,
    /// When it sent its recent chat messages (for the per-minute limit).
    pub(super) chat_times: VecDeque<Instant>,
}

/// Who receives an event's private form (everyone else gets `hidden`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Audience {
    /// Every connection.
    Everyone,
    /// The connections holding any of these seats (bit mask).
    Seats(u8),
    /// The connections holding no seat.
    Spectators,
}

impl Audience {
    /// Whether a connection holding `seats` is in the audience.
    pub(super) fn includes(self, seats: u8) -> bool {
        match self {
            Audience::Everyone => true,
            Audience::Seats(mask) => seats & mask != 0,
            Audience::Spectators => seats == 0,
        }
    }
}

/// One logged event: what everyone receives, and what its private audience receives instead.
struct Logged {
    v: u64,
    public: Utf8Bytes,
    private: Option<(Audience, Utf8Bytes)>,
}

/// Why a request was refused: nothing changed.
pub(super) type Reject = (ErrorCode, String);

/// Builds a [`Reject`].
pub(super) fn reject<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Reject> {
    Err((code, message.into()))
}

/// What a successful request answers besides `ok`.
#[derive(Default)]
pub(super) struct Ack {
    pub(super) seat_token: Option<String>,
    pub(super) seats: Option<Vec<SeatIndex>>,
    pub(super) host: Option<bool>,
    /// Send this connection a snapshot after the ack (`hello` without a usable version).
    pub(super) snapshot: bool,
    /// Send this connection the events after this version after the ack.
    pub(super) replay_since: Option<u64>,
    /// Answer with `pong` instead of `ack`.
    pub(super) pong: bool,
}

/// All of a room's state. Owned by the room's task.
pub(crate) struct Room {
    pub(super) id: String,
    pub(super) context: RoomContext,
    /// The room's own inbox, weakly, for CPU results (a strong sender would keep the room alive).
    pub(super) inbox: mpsc::WeakSender<Command>,
    pub(super) settings: Settings,
    pub(super) seats: [SeatSlot; 4],
    /// Players who dropped: when their grace ends, and whether it has.
    pub(super) absence: [Option<Absence>; 4],
    pub(super) host_token: String,
    /// The seat the host sits in, if any.
    pub(super) host_seat: Option<SeatIndex>,
    pub(super) game: Option<Game>,
    /// The legal moves last listed for the seat to move, kept to find the move played from them.
    pub(super) legal: views::LegalMoveCache,
    /// The seat that moves first in the current (or next) game.
    pub(super) first_seat: SeatIndex,
    pub(super) clocks: Clocks,
    /// The switch-partners session, if one is being played.
    pub(super) session: Option<Session>,
    /// The version of the last event.
    pub(super) version: u64,
    history: VecDeque<Logged>,
    /// Recent chat with its audience, for snapshots.
    pub(super) chat: VecDeque<(Audience, ChatLine)>,
    /// Events emitted by the request being handled, sent after its ack.
    pending: Vec<u64>,
    /// The frames a flush is sending, by connection (empty between flushes).
    flushing: Vec<(ConnId, Utf8Bytes)>,
    /// Connections that frames were queued for in this turn, behind nothing: the room writes them
    /// out at the end of the turn ([`Room::write_out`]).
    unwritten: Vec<ConnId>,
    pub(super) conns: HashMap<ConnId, Conn, foldhash::fast::RandomState>,
    /// Whether a CPU move is being computed for the current ply.
    pub(super) cpu_thinking: bool,
    /// The CPU move being computed: the ply and hash it is for, and the flag that stops it once
    /// its result can no longer be used.
    pub(super) cpu_job: Option<super::play::CpuJob>,
    /// Since when nobody has been connected.
    pub(super) empty_since: Option<Instant>,
    /// Set when the room should end.
    pub(super) closing: bool,
    /// Storage writes made since the last hand-over to the writer.
    pub(super) writes: Vec<Write>,
    /// Events up to this version are durable: what depends on later ones is held back.
    durable: u64,
    /// The version last handed to the writer: a restart resumes numbering from it, so that no
    /// client ever holds a version the restored room has not reached.
    stored_version: u64,
    /// What waits for durability: the version it needs, the connection, the message.
    held: VecDeque<(u64, ConnId, Delivery)>,
    /// The writer reports durable versions here.
    committed: mpsc::UnboundedReceiver<u64>,
    committed_tx: mpsc::UnboundedSender<u64>,
    /// Set while records are applied on restore: nothing is stored, emitted or sent.
    pub(super) replaying: bool,
    /// How stored moments map to this run's clock, after a restore.
    pub(super) replay: Option<Replay>,
    /// Games begun in this room (the archive numbers them).
    pub(super) games_played: u32,
    /// Whether the current game, if over, is in the archive.
    pub(super) archived: bool,
    /// Since when a finished game has waited for a rematch.
    pub(super) finished_since: Option<Instant>,
    /// What this room last added to the server's gauges.
    pub(super) reported: Reported,
}

/// A message to a connection.
enum Delivery {
    Frame(Utf8Bytes),
    /// The answer to a move: its round trip ends when it is handed to the connection.
    Answer {
        frame: Utf8Bytes,
        /// When the connection read the move.
        received: std::time::Instant,
    },
}

/// The time base of a restored room.
pub(crate) struct Replay {
    /// This run's moment of `stopped_at`.
    pub(super) base: Instant,
    /// When the previous run stopped (ms since the epoch): time stood still from then to `base`.
    pub(super) stopped_at: u64,
    /// The moment of the record being applied (ms since the epoch).
    pub(super) at: u64,
}

impl Room {
    pub(super) fn new(
        id: String,
        settings: Settings,
        context: RoomContext,
        inbox: &mpsc::Sender<Command>,
    ) -> Room {
        let (committed_tx, committed) = mpsc::unbounded_channel();
        let mut room = Room {
            id,
            context,
            inbox: inbox.downgrade(),
            settings,
            seats: [
                SeatSlot::Empty,
                SeatSlot::Empty,
                SeatSlot::Empty,
                SeatSlot::Empty,
            ],
            absence: [None; 4],
            host_token: new_token(),
            host_seat: None,
            game: None,
            legal: views::LegalMoveCache::default(),
            first_seat: 0,
            clocks: Clocks::new(None, None),
            session: None,
            version: 0,
            history: VecDeque::new(),
            chat: VecDeque::new(),
            pending: Vec::new(),
            flushing: Vec::new(),
            unwritten: Vec::new(),
            conns: HashMap::default(),
            cpu_thinking: false,
            cpu_job: None,
            empty_since: Some(Instant::now()),
            closing: false,
            writes: Vec::new(),
            durable: 0,
            stored_version: 0,
            held: VecDeque::new(),
            committed,
            committed_tx,
            replaying: false,
            replay: None,
            games_played: 0,
            archived: false,
            finished_since: None,
            reported: Reported::default(),
        };
        let at = crate::storage::writer::now_ms();
        room.writes.push(Write::CreateRoom {
            room: room.id.clone(),
            at,
        });
        let created = Record::Created {
            settings: room.settings.clone(),
            host_token: room.host_token.clone(),
        };
        let _ = room.commit(created);
        room
    }

    /// Rebuilds a room from what storage kept: its records applied in order, its recent events
    /// for resync. `stopped_at` is when the previous run was last alive (ms since the epoch).
    pub(super) fn restore(
        log: &RoomLog,
        context: RoomContext,
        inbox: &mpsc::Sender<Command>,
        stopped_at: u64,
    ) -> Result<Room, String> {
        let defaults = rules::defaults(fourkings_engine::Preset::Teams);
        let mut room = Room::new(log.id.clone(), defaults, context, inbox);
        room.writes.clear();
        room.replaying = true;
        room.replay = Some(Replay {
            base: Instant::now(),
            stopped_at,
            at: stopped_at,
        });
        for (at, body) in &log.records {
            // The messages name records by kind only: a record may hold tokens.
            let record: Record = serde_json::from_str(body)
                .map_err(|e| format!("room {}: a record that cannot be read: {e}", log.id))?;
            if let Some(replay) = &mut room.replay {
                replay.at = *at;
            }
            room.apply(&record).map_err(|(code, message)| {
                format!(
                    "room {}: a {} record: {} ({message})",
                    log.id,
                    record_kind(&record),
                    code.as_str()
                )
            })?;
        }
        // Published events are not stored: a client behind this version gets a snapshot.
        room.version = log.version;
        room.durable = room.version;
        room.stored_version = room.version;
        room.archived = room.game.as_ref().is_some_and(Game::is_over);
        room.replaying = false;
        Ok(room)
    }

    /// After a restore: nobody is connected yet, so everyone is away (a player who already was
    /// keeps what was left of their grace period), and the game goes on where it stood.
    pub(super) fn resume(&mut self) {
        let grace = self.context.config.grace().as_millis() as u64;
        let deadline = crate::storage::writer::now_ms() + grace;
        for seat in 0..4u8 {
            if self.is_human(seat) && self.absence[usize::from(seat)].is_none() {
                self.set_absence(seat, StoredAbsence::Away { deadline });
            }
        }
        self.advance();
        // Nobody is connected yet: the events above reach clients through snapshots and replays
        // only. Left pending, the next flush would send them again to connections whose snapshot
        // or replay already had them.
        self.flush();
        self.persist();
    }

    pub(super) fn host_token(&self) -> &str {
        &self.host_token
    }

    /// The room's task: commands and timers one at a time, until the room is closed (nobody
    /// connected for the idle time), every handle is gone, or the server stops.
    pub(super) async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        let shutdown = self.context.shutdown.clone();
        // The stop signal and the timer are made once and re-armed only when the deadline
        // changes: making them afresh for every command (a waiter registered and dropped, a
        // timer entry inserted and removed) was a visible share of a busy room's time.
        let stopping = shutdown.cancelled();
        tokio::pin!(stopping);
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed: Option<Instant> = None;
        self.report();
        loop {
            let wake = self.next_deadline();
            if wake != armed {
                if let Some(at) = wake {
                    timer.as_mut().reset(at);
                }
                armed = wake;
            }
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.handle(command),
                    None => break,
                },
                Some(upto) = self.committed.recv() => self.made_durable(upto),
                () = &mut timer, if armed.is_some() => {
                    // Fired: whatever deadline comes next is armed anew, even an equal one.
                    armed = None;
                    self.on_timer(Instant::now());
                    self.flush();
                }
                () = &mut stopping => {
                    self.shut_down().await;
                    break;
                }
            }
            self.persist();
            self.write_out();
            self.report();
            if self.closing {
                tracing::info!("closing the room");
                for conn in self.conns.values() {
                    let (code, reason) = fourkings_protocol::close::ROOM_CLOSED;
                    conn.outbox.close(code, reason);
                }
                let at = crate::storage::writer::now_ms();
                let close = Write::CloseRoom {
                    room: self.id.clone(),
                    at,
                };
                self.context.storage.write(&mut vec![close], None);
                break;
            }
        }
        self.unreport();
        let _ = self.context.closed.send(self.id.clone());
    }

    /// The server is stopping: everything this room did is handed to the writer, and what waited
    /// for it to be durable (acks, events) is delivered once it is; then every connection is told
    /// the server is restarting, so that its client reconnects with backoff. Requests that come
    /// in meanwhile are not handled: the client sends them again after reconnecting. The server
    /// bounds how long this may take.
    async fn shut_down(&mut self) {
        self.cancel_cpu();
        self.persist();
        while self.durable < self.stored_version {
            match self.committed.recv().await {
                Some(upto) => self.made_durable(upto),
                None => break,
            }
        }
        let (code, reason) = fourkings_protocol::close::SERVER_RESTARTING;
        for conn in self.conns.values() {
            conn.outbox.close(code, reason);
        }
        tracing::debug!(connections = self.conns.len(), "room flushed for shutdown");
    }

    /// The earliest moment a timer needs the room: a turn or bank running out, a grace period
    /// ending, the room having been empty for too long.
    fn next_deadline(&self) -> Option<Instant> {
        let playing = self.game.as_ref().is_some_and(|g| !g.is_over());
        let clocks = playing
            .then(|| [self.clocks.turn_deadline(), self.clocks.bank_deadline()])
            .into_iter()
            .flatten()
            .flatten();
        let graces = self
            .absence
            .iter()
            .flatten()
            .filter(|a| !a.grace_over)
            .map(|a| a.deadline);
        let idle = self
            .empty_since
            .map(|since| since + self.context.config.idle_room());
        let finished = self
            .finished_since
            .map(|since| since + self.context.config.finished_room());
        clocks.chain(graces).chain(idle).chain(finished).min()
    }

    /// Whatever timers are due at `now`.
    fn on_timer(&mut self, now: Instant) {
        self.grace_timers(now);
        self.clock_timers(now);
        if self
            .empty_since
            .is_some_and(|since| now >= since + self.context.config.idle_room())
        {
            self.closing = true;
        }
        if self
            .finished_since
            .is_some_and(|since| now >= since + self.context.config.finished_room())
        {
            self.closing = true;
        }
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Connect { conn, outbox } => {
                self.conns.insert(
                    conn,
                    Conn {
                        outbox,
                        seats: 0,
                        host: false,
                        chat_times: VecDeque::new(),
                    },
                );
                self.empty_since = None;
                self.send_snapshot(conn);
            }
            Command::Disconnect { conn } => {
                self.conn_gone(conn);
                self.flush();
            }
            Command::Message {
                conn,
                msg,
                received,
            } => {
                let span = request_span(&msg);
                span.in_scope(|| self.request(conn, msg, received));
            }
            Command::Info { reply } => {
                let _ = reply.send(self.info());
            }
            Command::GameFile { reply } => {
                let _ = reply.send(self.game_file());
            }
            Command::CpuMoved { ply, hash, mv } => {
                self.cpu_moved(ply, hash, mv);
                self.flush();
            }
        }
    }

    /// Handles one client request: the ack or error first, then the events it caused.
    fn request(&mut self, conn: ConnId, msg: ClientMessage, received: std::time::Instant) {
        let req = msg.req();
        let is_move = matches!(msg, ClientMessage::Move { .. });
        let result = self.dispatch(conn, msg);
        if is_move {
            match &result {
                Ok(_) => {
                    self.context.metrics.moves_accepted.inc();
                }
                Err((code, _)) => self.context.metrics.move_rejected(*code),
            }
        }
        let answer = match &result {
            Ok(ack) if ack.pong => ServerMessage::Pong { req },
            Ok(ack) => ServerMessage::Ack {
                req,
                seat_token: ack.seat_token.clone(),
                seats: ack.seats.clone(),
                host: ack.host,
            },
            Err((code, message)) => ServerMessage::Error {
                req: Some(req),
                code: *code,
                message: message.clone(),
            },
        };
        if is_move {
            let frame = match answer {
                ServerMessage::Ack {
                    req,
                    seat_token: None,
                    seats: None,
                    host: None,
                } => plain_ack(req),
                _ => encode(&answer),
            };
            self.send_delivery(conn, Delivery::Answer { frame, received });
        } else {
            self.send_to(conn, &answer);
        }
        // A snapshot or a replay already covers this request's own events: the flush below must
        // not send them to this connection a second time.
        let mut covered = None;
        if let Ok(ack) = result {
            if ack.snapshot {
                self.send_snapshot(conn);
                covered = Some(conn);
            } else if let Some(since) = ack.replay_since {
                self.replay(conn, since);
                covered = Some(conn);
            }
        }
        self.flush_except(covered);
    }

    fn dispatch(&mut self, conn: ConnId, msg: ClientMessage) -> Result<Ack, Reject> {
        match msg {
            ClientMessage::Hello {
                seat_tokens,
                host_token,
                since,
                ..
            } => self.hello(conn, &seat_tokens, host_token.as_deref(), since),
            ClientMessage::TakeSeat { seat, name, .. } => self.take_seat(conn, seat, name),
            ClientMessage::LeaveSeat { seat, token, .. } => self.leave_seat(seat, &token),
            ClientMessage::UpdateSettings {
                host_token,
                settings,
                ..
            } => self.update_settings(&host_token, &settings),
            ClientMessage::SetCpu {
                host_token,
                seat,
                level,
                ..
            } => self.set_cpu(&host_token, seat, level),
            ClientMessage::MovePlayer {
                host_token,
                from,
                to,
                ..
            } => self.move_player(&host_token, from, to),
            ClientMessage::RemovePlayer {
                host_token, seat, ..
            } => self.remove_player(&host_token, seat),
            ClientMessage::TransferHost {
                host_token, seat, ..
            } => self.transfer_host(&host_token, seat),
            ClientMessage::Start { host_token, .. } => self.start(&host_token),
            ClientMessage::Move {
                seat,
                token,
                ply,
                mv,
                ..
            } => self.play_move(conn, seat, &token, ply, &mv),
            ClientMessage::Resign { seat, token, .. } => self.resign(conn, seat, &token),
            ClientMessage::AnswerResignation {
                seat,
                token,
                accept,
                ..
            } => self.answer_resignation(conn, seat, &token, accept),
            ClientMessage::OfferDraw { seat, token, .. } => self.offer_draw(conn, seat, &token),
            ClientMessage::AnswerDraw {
                seat,
                token,
                accept,
                ..
            } => self.answer_draw(conn, seat, &token, accept),
            ClientMessage::TakeBack { seat, token, .. } => self.take_back(conn, seat, &token),
            ClientMessage::ClaimWin { seat, token, .. } => self.claim_win(conn, seat, &token),
            ClientMessage::Chat {
                channel,
                text,
                seat,
                token,
                ..
            } => self.write_chat(conn, channel, text, seat, token.as_deref()),
            ClientMessage::Rematch { host_token, .. } => self.rematch(&host_token),
            ClientMessage::Resync { since, .. } => {
                if since > self.version {
                    return reject(
                        ErrorCode::BadVersion,
                        format!("the room is at version {}", self.version),
                    );
                }
                Ok(Ack {
                    replay_since: Some(since),
                    ..Ack::default()
                })
            }
            ClientMessage::Ping { .. } => Ok(Ack {
                pong: true,
                ..Ack::default()
            }),
        }
    }

    fn hello(
        &mut self,
        conn: ConnId,
        tokens: &[String],
        host_token: Option<&str>,
        since: Option<u64>,
    ) -> Result<Ack, Reject> {
        if since.is_some_and(|v| v > self.version) {
            return reject(
                ErrorCode::BadVersion,
                format!("the room is at version {}", self.version),
            );
        }
        let mut mask = 0u8;
        for token in tokens {
            if let Some(seat) = self.seat_of_token(token) {
                mask |= 1 << seat;
            }
        }
        let host = host_token.is_some_and(|t| token_matches(t, &self.host_token));
        if let Some(c) = self.conns.get_mut(&conn) {
            c.host |= host;
        }
        for seat in (0..4).filter(|s| mask >> s & 1 != 0) {
            self.seat_proven(conn, seat);
        }
        let seats = (0..4).filter(|s| mask >> s & 1 != 0).collect();
        Ok(Ack {
            seats: Some(seats),
            host: Some(host),
            snapshot: since.is_none(),
            replay_since: since,
            ..Ack::default()
        })
    }

    /// The seat a token holds, if any.
    pub(super) fn seat_of_token(&self, token: &str) -> Option<SeatIndex> {
        (0..4u8).find(|&s| matches!(&self.seats[usize::from(s)], SeatSlot::Human { token: t, .. } if token_matches(token, t)))
    }

    /// Checks a seat and its token, and remembers that `conn` holds the seat.
    pub(super) fn authorize(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        token: &str,
    ) -> Result<(), Reject> {
        if seat > 3 {
            return reject(ErrorCode::BadSeat, "seats are 0 to 3");
        }
        match &self.seats[usize::from(seat)] {
            SeatSlot::Human { token: real, .. } if token_matches(token, real) => {
                self.seat_proven(conn, seat);
                Ok(())
            }
            _ => reject(ErrorCode::BadToken, "this token does not hold that seat"),
        }
    }

    /// Checks the host token.
    pub(super) fn authorize_host(&self, token: &str) -> Result<(), Reject> {
        if token_matches(token, &self.host_token) {
            Ok(())
        } else {
            reject(ErrorCode::NotHost, "only the host may do this")
        }
    }

    /// The board's format under the current settings.
    pub(super) fn format(&self) -> Format {
        rules::rule_set(&self.settings)
            .map(|r| r.format)
            .unwrap_or(Format::Teams)
    }

    pub(super) fn status(&self) -> GameStatus {
        match &self.game {
            None => GameStatus::Lobby,
            Some(game) if game.is_over() => GameStatus::Finished,
            Some(_) => GameStatus::Playing,
        }
    }

    pub(super) fn seat_views(&self) -> Vec<SeatView> {
        let format = self.format();
        (0..4u8)
            .map(|seat| {
                let label = views::seat_label(format, seat);
                let presence = self.presence(seat);
                match &self.seats[usize::from(seat)] {
                    SeatSlot::Empty => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Empty,
                        name: None,
                        cpu_level: None,
                        presence,
                    },
                    SeatSlot::Human { name, .. } => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Human,
                        name: Some(name.clone()),
                        cpu_level: None,
                        presence,
                    },
                    SeatSlot::Cpu { level } => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Cpu,
                        name: None,
                        cpu_level: Some(*level),
                        presence,
                    },
                }
            })
            .collect()
    }

    fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id.clone(),
            status: self.status(),
            settings: self.settings.clone(),
            seats: self.seat_views(),
            host_seat: self.host_seat,
            v: self.version,
        }
    }

    /// The game as clients see it, with the clocks.
    pub(super) fn game_view(&self) -> Option<fourkings_protocol::GameView> {
        let game = self.game.as_ref()?;
        let clock = self.clocks.view(self.now());
        Some(views::game_view(
            game,
            self.game_id(),
            clock,
            self.first_seat,
            self.settings.silent_partners,
        ))
    }

    fn snapshot_for(&self, conn: ConnId) -> Snapshot {
        let (seats, host) = self
            .conns
            .get(&conn)
            .map_or((0, false), |c| (c.seats, c.host));
        let legal_moves = self
            .game
            .as_ref()
            .and_then(|game| views::legal_moves(game, &mut views::LegalMoveCache::default()))
            .filter(|m| seats >> m.seat & 1 != 0 && self.is_human(m.seat));
        let holds_host_seat = self.host_seat.is_some_and(|h| seats >> h & 1 != 0);
        Snapshot {
            protocol: fourkings_protocol::PROTOCOL_VERSION,
            v: self.version,
            room: self.id.clone(),
            status: self.status(),
            settings: self.settings.clone(),
            seats: self.seat_views(),
            host_seat: self.host_seat,
            your_seats: (0..4).filter(|s| seats >> s & 1 != 0).collect(),
            you_are_host: host || holds_host_seat,
            host_token: holds_host_seat.then(|| self.host_token.clone()),
            game: self.game_view(),
            legal_moves,
            chat: self
                .chat
                .iter()
                .filter(|(a, _)| a.includes(seats))
                .map(|(_, l)| l.clone())
                .collect(),
            session: self.session.as_ref().map(|s| s.view(self)),
            rules: crate::rules_view::room_rules(&self.settings, self.game.is_some()),
        }
    }

    pub(super) fn is_human(&self, seat: SeatIndex) -> bool {
        matches!(self.seats[usize::from(seat)], SeatSlot::Human { .. })
    }

    fn send_snapshot(&mut self, conn: ConnId) {
        let snapshot = ServerMessage::Snapshot(Box::new(self.snapshot_for(conn)));
        self.send_to(conn, &snapshot);
    }

    /// Sends `conn` the events after `since`, or a snapshot if the log no longer holds them all.
    fn replay(&mut self, conn: ConnId, since: u64) {
        let oldest = self.history.front().map_or(self.version + 1, |l| l.v);
        if since + 1 < oldest && since < self.version {
            self.send_snapshot(conn);
            return;
        }
        let seats = self.conns.get(&conn).map_or(0, |c| c.seats);
        let frames: Vec<Utf8Bytes> = self
            .logged_from(since + 1)
            .map(|l| Self::frame_for(l, seats).clone())
            .collect();
        for frame in frames {
            self.send_frame(conn, frame);
        }
        self.send_legal_moves_to(conn);
    }

    /// The logged events from version `v` on. The log is in the order of versions, and those
    /// wanted are usually the last one or two: a scan from the front went through the whole
    /// log (up to `event_history` events) for every move.
    fn logged_from(&self, v: u64) -> impl Iterator<Item = &Logged> {
        let start = self.history.partition_point(|l| l.v < v);
        self.history.range(start..)
    }

    fn frame_for(logged: &Logged, seats: u8) -> &Utf8Bytes {
        match &logged.private {
            Some((audience, private)) if audience.includes(seats) => private,
            _ => &logged.public,
        }
    }

    /// Records an event for everyone; it is sent after the current request's ack.
    pub(super) fn emit(&mut self, event: Event) {
        self.emit_with_private(event, None);
    }

    /// Records an event; the connections in the audience receive the private event instead.
    pub(super) fn emit_with_private(&mut self, event: Event, private: Option<(Audience, Event)>) {
        self.version += 1;
        let v = self.version;
        let public = encode(&ServerMessage::Event { v, event });
        let private =
            private.map(|(audience, event)| (audience, encode(&ServerMessage::Event { v, event })));
        self.log(Logged { v, public, private });
    }

    /// Records an event for everyone, already written as its frame for version `v`, which must
    /// be the next version (`version + 1`).
    pub(super) fn emit_written(&mut self, v: u64, public: Utf8Bytes) {
        assert_eq!(
            v,
            self.version + 1,
            "an event is written for the next version"
        );
        self.version = v;
        self.log(Logged {
            v,
            public,
            private: None,
        });
    }

    /// Keeps an event for resync and marks it to be sent after the current request's ack.
    fn log(&mut self, logged: Logged) {
        self.pending.push(logged.v);
        self.history.push_back(logged);
        while self.history.len() > self.context.config.event_history {
            self.history.pop_front();
        }
    }

    /// Sends the events recorded since the last flush, then the legal moves of the seat to move.
    pub(super) fn flush(&mut self) {
        self.flush_except(None);
    }

    /// Like [`Room::flush`], skipping `except` (its snapshot or replay already covered all this).
    fn flush_except(&mut self, except: Option<ConnId>) {
        if self.pending.is_empty() {
            return;
        }
        let first = self.pending[0];
        // Both vectors keep their room from one flush to the next: every move flushes.
        self.pending.clear();
        let mut frames = std::mem::take(&mut self.flushing);
        for logged in self.logged_from(first) {
            for (&id, conn) in self.conns.iter().filter(|(id, _)| Some(**id) != except) {
                frames.push((id, Self::frame_for(logged, conn.seats).clone()));
            }
        }
        for (id, frame) in frames.drain(..) {
            self.send_frame(id, frame);
        }
        self.flushing = frames;
        self.send_legal_moves(|id| Some(id) != except);
    }

    fn send_legal_moves_to(&mut self, conn: ConnId) {
        self.send_legal_moves(|id| id == conn);
    }

    /// Sends the legal moves of the seat to move to the connections `to` picks that hold that
    /// seat, if a person holds it. The moves are generated and encoded once, and only when
    /// someone is to receive them: doing it for every connection of the room was a tenth of
    /// the server's CPU time under fan-out load.
    fn send_legal_moves(&mut self, to: impl Fn(ConnId) -> bool) {
        let Some(seat) = self.game.as_ref().and_then(views::seat_with_legal_moves) else {
            return;
        };
        if !self.is_human(seat) || self.clocks.expired {
            return;
        }
        let holders: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|&(&id, c)| c.seats >> seat & 1 != 0 && to(id))
            .map(|(&id, _)| id)
            .collect();
        if holders.is_empty() {
            return;
        }
        let Some(game) = self.game.as_ref() else {
            return;
        };
        let moves = self.legal.moves(game);
        let frame = views::legal_moves_frame(self.version, seat, game.ply_count(), moves);
        for id in holders {
            self.send_frame(id, frame.clone());
        }
    }

    pub(super) fn send_to(&mut self, conn: ConnId, message: &ServerMessage) {
        self.send_frame(conn, encode(message));
    }

    /// Sends `frame` to `conn` now, or once every event it may reflect is durable.
    fn send_frame(&mut self, conn: ConnId, frame: Utf8Bytes) {
        self.send_delivery(conn, Delivery::Frame(frame));
    }

    /// Like [`Room::send_frame`], for any delivery.
    fn send_delivery(&mut self, conn: ConnId, delivery: Delivery) {
        if self.durable < self.version || !self.held.is_empty() {
            self.held.push_back((self.version, conn, delivery));
            return;
        }
        self.deliver(conn, delivery);
    }

    fn deliver(&mut self, conn: ConnId, delivery: Delivery) {
        let queued = match (self.conns.get(&conn), delivery) {
            (None, _) => return,
            (Some(c), Delivery::Frame(frame)) => c.outbox.queue(frame),
            (Some(c), Delivery::Answer { frame, received }) => {
                let queued = c.outbox.queue(frame);
                self.context
                    .metrics
                    .move_seconds
                    .observe(received.elapsed().as_secs_f64());
                queued
            }
        };
        match queued {
            Queued::First => self.unwritten.push(conn),
            Queued::Behind => {}
            Queued::Full => self.drop_conns(vec![conn]),
            // The socket failed or closed: the client is gone (its reader tells the room so too,
            // which then changes nothing). Not a slow client: nothing to close or count.
            Queued::Gone => self.conn_gone(conn),
        }
    }

    /// Writes what this turn queued into the connections' sockets. The room does it itself, once
    /// a turn: handing each frame to a writer task cost a wake-up and a task switch per frame.
    fn write_out(&mut self) {
        for conn in self.unwritten.drain(..) {
            if let Some(c) = self.conns.get(&conn) {
                c.outbox.write_out();
            }
        }
    }

    /// The writer committed everything up to `upto`: what waited for it goes out, in order.
    fn made_durable(&mut self, upto: u64) {
        self.durable = self.durable.max(upto);
        while self
            .held
            .front()
            .is_some_and(|(need, _, _)| *need <= self.durable)
        {
            if let Some((_, conn, delivery)) = self.held.pop_front() {
                self.deliver(conn, delivery);
            }
        }
    }

    /// Hands the writes made so far to the writer; it reports back when they are durable, or
    /// they are already, and what waited for them goes out now.
    pub(super) fn persist(&mut self) {
        // Releasing what was held may drop a slow connection, which records more: those are
        // written in the same turn.
        while self.persist_once() == Written::Now {
            self.made_durable(self.version);
        }
    }

    /// One hand-over; [`Written::Later`] also when there was nothing to write.
    fn persist_once(&mut self) -> Written {
        if self.writes.is_empty() && self.stored_version == self.version {
            return Written::Later;
        }
        if self.stored_version != self.version {
            // The version rides on the last record (no write of its own) when there is one.
            let last_record = self.writes.iter_mut().rev().find_map(|w| match w {
                Write::Record { v, .. } => Some(v),
                _ => None,
            });
            match last_record {
                Some(v) => *v = Some(self.version),
                None => self.writes.push(Write::Version {
                    room: self.id.clone(),
                    v: self.version,
                }),
            }
            self.stored_version = self.version;
        }
        self.context.storage.write(
            &mut self.writes,
            Some((self.committed_tx.clone(), self.version)),
        )
    }

    /// Connections whose queue overflowed: they are too slow and are closed; they resync when they
    /// reconnect.
    fn drop_conns(&mut self, ids: Vec<ConnId>) {
        for id in ids {
            if let Some(conn) = self.conns.get(&id) {
                let (code, reason) = fourkings_protocol::close::TOO_SLOW;
                conn.outbox.close(code, reason);
                self.context.metrics.queue_drops.inc();
                tracing::info!(conn = id, "a connection too slow to keep up was dropped");
            }
            self.conn_gone(id);
        }
    }

    /// Forgets every connection's proof of `seat` (the seat changed hands).
    pub(super) fn forget_seat(&mut self, seat: SeatIndex) {
        for conn in self.conns.values_mut() {
            conn.seats &= !(1 << seat);
        }
        self.absence[usize::from(seat)] = None;
    }

    /// Moves every connection's proof of seats according to `to[old seat] = new seat`.
    pub(super) fn permute_seat_proofs(&mut self, to: [SeatIndex; 4]) {
        for conn in self.conns.values_mut() {
            let old = conn.seats;
            conn.seats = (0..4u8)
                .filter(|s| old >> s & 1 != 0)
                .fold(0, |m, s| m | 1 << to[usize::from(s)]);
        }
    }

    /// A fresh token for a seat.
    pub(super) fn fresh_token() -> String {
        new_token()
    }

    /// Keeps a chat line, with its audience, for the snapshots of those who come later.
    pub(super) fn remember_chat(&mut self, audience: Audience, line: ChatLine) {
        self.chat.push_back((audience, line));
        while self.chat.len() > self.context.config.chat_history {
            self.chat.pop_front();
        }
    }

    /// The channel's audience.
    pub(super) fn chat_audience(channel: ChatChannel, seat: Option<SeatIndex>) -> Audience {
        match (channel, seat) {
            (ChatChannel::Room, _) => Audience::Everyone,
            (ChatChannel::Team, Some(seat)) => Audience::Seats(1 << seat | 1 << ((seat + 2) & 3)),
            _ => Audience::Spectators,
        }
    }
}

/// `{"type":"ack","req":…}`, written directly: every move is answered with it, and it is the
/// same as serialising [`ServerMessage::Ack`] with no other field (a test checks it).
fn plain_ack(req: u64) -> Utf8Bytes {
    let mut numbers = itoa::Buffer::new();
    let req = numbers.format(req);
    let mut text = String::with_capacity(24 + req.len());
    text.push_str(r#"{"type":"ack","req":"#);
    text.push_str(req);
    text.push('}');
    Utf8Bytes::from(text)
}

/// Serialises a message once; the bytes are shared by every recipient.
pub(super) fn encode(message: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(message).expect("server messages always serialise"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_ack_is_what_serde_writes() {
        for req in [0, 1, 9, 10, 12_345, u64::from(u32::MAX), u64::MAX] {
            let serde = encode(&ServerMessage::Ack {
                req,
                seat_token: None,
                seats: None,
                host: None,
            });
            assert_eq!(plain_ack(req), serde);
        }
    }
}
