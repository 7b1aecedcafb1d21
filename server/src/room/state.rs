//! A room's state, its event log, and how events reach connections.

use std::collections::{HashMap, VecDeque};

use axum::extract::ws::Utf8Bytes;
use fourkings_engine::{Format, Game};
use fourkings_protocol::{
    ClientMessage, CpuLevel, ErrorCode, Event, GameStatus, Occupant, RoomInfo, SeatIndex, SeatView,
    ServerMessage, Settings, Snapshot,
};
use tokio::sync::mpsc;

use super::{Command, RoomContext, rules, views};
use crate::connection::{ConnId, Outbox};
use crate::ids::{new_token, token_matches};

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
}

/// One logged event: what everyone receives, and what its private recipients receive instead.
struct Logged {
    v: u64,
    public: Utf8Bytes,
    /// Seats (bit mask) that receive `private` instead of `public`.
    private: Option<(u8, Utf8Bytes)>,
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
}

/// All of a room's state. Owned by the room's task.
pub(crate) struct Room {
    pub(super) id: String,
    pub(super) context: RoomContext,
    /// The room's own inbox, weakly, for CPU results (a strong sender would keep the room alive).
    pub(super) inbox: mpsc::WeakSender<Command>,
    pub(super) settings: Settings,
    pub(super) seats: [SeatSlot; 4],
    pub(super) host_token: String,
    /// The seat the host sits in, if any.
    pub(super) host_seat: Option<SeatIndex>,
    pub(super) game: Option<Game>,
    /// The version of the last event.
    pub(super) version: u64,
    history: VecDeque<Logged>,
    /// Events emitted by the request being handled, sent after its ack.
    pending: Vec<u64>,
    pub(super) conns: HashMap<ConnId, Conn>,
    /// Whether a CPU move is being computed for the current ply.
    pub(super) cpu_thinking: bool,
}

impl Room {
    pub(super) fn new(
        id: String,
        settings: Settings,
        context: RoomContext,
        inbox: &mpsc::Sender<Command>,
    ) -> Room {
        Room {
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
            host_token: new_token(),
            host_seat: None,
            game: None,
            version: 0,
            history: VecDeque::new(),
            pending: Vec::new(),
            conns: HashMap::new(),
            cpu_thinking: false,
        }
    }

    pub(super) fn host_token(&self) -> &str {
        &self.host_token
    }

    /// The room's task: commands one at a time until every handle is gone or the server stops.
    pub(super) async fn run(mut self, mut inbox: mpsc::Receiver<Command>) {
        let shutdown = self.context.shutdown.clone();
        loop {
            tokio::select! {
                command = inbox.recv() => match command {
                    Some(command) => self.handle(command),
                    None => break,
                },
                () = shutdown.cancelled() => break,
            }
        }
        for conn in self.conns.values() {
            conn.outbox.close(1012, "the server is restarting");
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
                    },
                );
                self.send_snapshot(conn);
            }
            Command::Disconnect { conn } => {
                self.conns.remove(&conn);
            }
            Command::Message { conn, msg } => self.request(conn, msg),
            Command::Info { reply } => {
                let _ = reply.send(self.info());
            }
            Command::CpuMoved { ply, hash, mv } => {
                self.cpu_moved(ply, hash, mv);
                self.flush();
            }
        }
    }

    /// Handles one client request: the ack or error first, then the events it caused.
    fn request(&mut self, conn: ConnId, msg: ClientMessage) {
        let req = msg.req();
        let ping = matches!(msg, ClientMessage::Ping { .. });
        let result = self.dispatch(conn, msg);
        let answer = match &result {
            // `ping` is answered with `pong`, as the protocol says, not with an ack.
            Ok(_) if ping => ServerMessage::Pong { req },
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
        self.send_to(conn, &answer);
        if let Ok(ack) = result {
            if ack.snapshot {
                self.send_snapshot(conn);
            } else if let Some(since) = ack.replay_since {
                self.replay(conn, since);
            }
        }
        self.flush();
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
            ClientMessage::Ping { .. } => Ok(Ack::default()),
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
            c.seats |= mask;
            c.host |= host;
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
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.seats |= 1 << seat;
                }
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
                match &self.seats[usize::from(seat)] {
                    SeatSlot::Empty => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Empty,
                        name: None,
                        cpu_level: None,
                    },
                    SeatSlot::Human { name, .. } => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Human,
                        name: Some(name.clone()),
                        cpu_level: None,
                    },
                    SeatSlot::Cpu { level } => SeatView {
                        seat,
                        label,
                        occupant: Occupant::Cpu,
                        name: None,
                        cpu_level: Some(*level),
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

    fn snapshot_for(&self, conn: ConnId) -> Snapshot {
        let (seats, host) = self
            .conns
            .get(&conn)
            .map_or((0, false), |c| (c.seats, c.host));
        let game = self.game.as_ref();
        let legal_moves = game
            .and_then(views::legal_moves)
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
            game: game.map(views::game_view),
            legal_moves,
        }
    }

    pub(super) fn is_human(&self, seat: SeatIndex) -> bool {
        matches!(self.seats[usize::from(seat)], SeatSlot::Human { .. })
    }

    fn send_snapshot(&mut self, conn: ConnId) {
        let snapshot = ServerMessage::Snapshot(self.snapshot_for(conn));
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
            .history
            .iter()
            .filter(|l| l.v > since)
            .map(|l| Self::frame_for(l, seats).clone())
            .collect();
        for frame in frames {
            self.send_frame(conn, frame);
        }
        self.send_legal_moves_to(conn);
    }

    fn frame_for(logged: &Logged, seats: u8) -> &Utf8Bytes {
        match &logged.private {
            Some((mask, private)) if seats & mask != 0 => private,
            _ => &logged.public,
        }
    }

    /// Records an event for everyone; it is sent after the current request's ack.
    pub(super) fn emit(&mut self, event: Event) {
        self.emit_with_private(event, None);
    }

    /// Records an event; the seats in `private.0` receive `private.1` instead of it.
    pub(super) fn emit_with_private(&mut self, event: Event, private: Option<(u8, Event)>) {
        self.version += 1;
        let v = self.version;
        let public = encode(&ServerMessage::Event { v, event });
        let private =
            private.map(|(mask, event)| (mask, encode(&ServerMessage::Event { v, event })));
        self.history.push_back(Logged { v, public, private });
        while self.history.len() > self.context.config.event_history {
            self.history.pop_front();
        }
        self.pending.push(v);
    }

    /// Sends the events recorded since the last flush, then the legal moves of the seat to move.
    pub(super) fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let first = pending[0];
        let mut dropped = Vec::new();
        for logged in self.history.iter().filter(|l| l.v >= first) {
            for (&id, conn) in &self.conns {
                if !conn
                    .outbox
                    .send(Self::frame_for(logged, conn.seats).clone())
                {
                    dropped.push(id);
                }
            }
        }
        self.drop_conns(dropped);
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        for id in ids {
            self.send_legal_moves_to(id);
        }
    }

    fn send_legal_moves_to(&mut self, conn: ConnId) {
        let Some(moves) = self.game.as_ref().and_then(views::legal_moves) else {
            return;
        };
        let holds = self
            .conns
            .get(&conn)
            .is_some_and(|c| c.seats >> moves.seat & 1 != 0);
        if holds && self.is_human(moves.seat) {
            let message = ServerMessage::LegalMoves {
                v: self.version,
                moves,
            };
            self.send_to(conn, &message);
        }
    }

    pub(super) fn send_to(&mut self, conn: ConnId, message: &ServerMessage) {
        self.send_frame(conn, encode(message));
    }

    fn send_frame(&mut self, conn: ConnId, frame: Utf8Bytes) {
        let ok = self.conns.get(&conn).is_none_or(|c| c.outbox.send(frame));
        if !ok {
            self.drop_conns(vec![conn]);
        }
    }

    /// Connections whose queue overflowed: they are too slow and are closed; they resync when they
    /// reconnect.
    fn drop_conns(&mut self, ids: Vec<ConnId>) {
        for id in ids {
            if let Some(conn) = self.conns.remove(&id) {
                conn.outbox.close(1008, "too slow to keep up; reconnect");
            }
        }
    }

    /// Forgets every connection's proof of `seat` (the seat changed hands).
    pub(super) fn forget_seat(&mut self, seat: SeatIndex) {
        for conn in self.conns.values_mut() {
            conn.seats &= !(1 << seat);
        }
    }

    /// Moves every connection's proof of `from` to `to`.
    pub(super) fn move_seat_proofs(&mut self, from: SeatIndex, to: SeatIndex) {
        for conn in self.conns.values_mut() {
            if conn.seats >> from & 1 != 0 {
                conn.seats = (conn.seats & !(1 << from)) | 1 << to;
            }
        }
    }

    /// A fresh token for a seat.
    pub(super) fn fresh_token() -> String {
        new_token()
    }
}

/// Serialises a message once; the bytes are shared by every recipient.
pub(super) fn encode(message: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(message).expect("server messages always serialise"))
}
