//! Delivery: the room's connections, what each has proved it holds, and how messages reach
//! them. Nothing goes out before every event it may reflect is durable: a message sent while
//! the journal is behind waits here, in order, until the writer reports the version it needs.
//!
//! A connection whose queue overflows (too slow to keep up) is closed, and one whose socket is
//! gone is forgotten; either leaves as a [`Departure`], which the room takes to mark its seats
//! away.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use fourkings_protocol::{SeatIndex, SeatSet, ServerMessage};

use super::events::EventLog;
use super::frames::encode;
use super::refusal::Refusal;
use crate::connection::{ConnId, Outbox, Queued};
use crate::metrics::Metrics;

/// A connection as the room knows it.
struct Conn {
    outbox: Outbox,
    /// The seats it proved it holds (it receives their legal moves and private events).
    seats: SeatSet,
    /// Whether it proved it holds the host token.
    host: bool,
}

/// A message to a connection.
enum Outgoing {
    Frame(Utf8Bytes),
    /// The answer to a request.
    Answer {
        frame: Utf8Bytes,
        /// The request's id.
        req: u64,
        /// For a move, which is measured and counted when its answer goes out.
        of_move: Option<MoveAnswer>,
    },
    /// Closes the connection, after what was sent to it before.
    Close(u16, &'static str),
}

/// What is measured and counted of a move's answer.
#[derive(Clone, Copy)]
pub(crate) struct MoveAnswer {
    /// When the connection read the move: its round trip ends when the answer is handed over.
    pub(crate) received: std::time::Instant,
    /// Whether it is an ack: the move is counted as accepted when it goes out, durable.
    pub(crate) accepted: bool,
}

/// A connection that left: it closed, or was dropped.
pub(crate) struct Departure {
    /// The connection.
    pub(crate) conn: ConnId,
    /// The seats it held.
    pub(crate) seats: SeatSet,
}

/// The room's connections and what is on its way to them.
pub(crate) struct Delivery {
    conns: HashMap<ConnId, Conn, foldhash::fast::RandomState>,
    /// Events up to this version are durable: what depends on later ones is held back.
    durable: u64,
    /// What waits for durability: the version it needs, the connection, the message.
    held: VecDeque<(u64, ConnId, Outgoing)>,
    /// The frames a fan-out is sending, by connection (empty between fan-outs; kept for its
    /// capacity, since every move fans out).
    fanning: Vec<(ConnId, Utf8Bytes)>,
    /// Connections that frames were queued for in this turn, behind nothing: they are written
    /// out at the end of the turn ([`Delivery::write_out`]).
    unwritten: Vec<ConnId>,
    /// Connections gone since the room last asked.
    departed: Vec<Departure>,
    metrics: Arc<Metrics>,
}

impl Delivery {
    /// No connections yet; nothing held.
    pub(crate) fn new(metrics: Arc<Metrics>) -> Delivery {
        Delivery {
            conns: HashMap::default(),
            durable: 0,
            held: VecDeque::new(),
            fanning: Vec::new(),
            unwritten: Vec::new(),
            departed: Vec::new(),
            metrics,
        }
    }

    /// A connection opened: it holds nothing yet.
    pub(crate) fn connect(&mut self, conn: ConnId, outbox: Outbox) {
        let conn_state = Conn {
            outbox,
            seats: SeatSet::EMPTY,
            host: false,
        };
        self.conns.insert(conn, conn_state);
    }

    /// A connection closed.
    pub(crate) fn disconnect(&mut self, conn: ConnId) {
        if let Some(gone) = self.conns.remove(&conn) {
            self.departed.push(Departure {
                conn,
                seats: gone.seats,
            });
        }
    }

    /// The connections that left since the last call.
    pub(crate) fn take_departures(&mut self) -> Vec<Departure> {
        std::mem::take(&mut self.departed)
    }

    /// Whether connections left that the room has not taken yet.
    pub(crate) fn has_departures(&self) -> bool {
        !self.departed.is_empty()
    }

    /// Whether `conn` is one of the room's connections.
    pub(crate) fn is_connected(&self, conn: ConnId) -> bool {
        self.conns.contains_key(&conn)
    }

    /// Whether nobody is connected.
    pub(crate) fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// How many connections hold a seat, and how many hold none.
    pub(crate) fn players_and_spectators(&self) -> (usize, usize) {
        let players = self.conns.values().filter(|c| !c.seats.is_empty()).count();
        (players, self.conns.len() - players)
    }

    /// The seats `conn` proved it holds.
    pub(crate) fn seats_of(&self, conn: ConnId) -> SeatSet {
        self.conns.get(&conn).map_or(SeatSet::EMPTY, |c| c.seats)
    }

    /// Whether `conn` proved it holds the host token.
    pub(crate) fn is_host(&self, conn: ConnId) -> bool {
        self.conns.get(&conn).is_some_and(|c| c.host)
    }

    /// `conn` proved it holds `seat`.
    pub(crate) fn prove_seat(&mut self, conn: ConnId, seat: SeatIndex) {
        if let Some(c) = self.conns.get_mut(&conn) {
            c.seats = c.seats.with(seat);
        }
    }

    /// `conn` proved it holds the host token.
    pub(crate) fn prove_host(&mut self, conn: ConnId) {
        if let Some(c) = self.conns.get_mut(&conn) {
            c.host = true;
        }
    }

    /// Whether any connection holds `seat`.
    pub(crate) fn anyone_holds(&self, seat: SeatIndex) -> bool {
        self.conns.values().any(|c| c.seats.contains(seat))
    }

    /// Forgets every connection's proof of `seat` (the seat changed hands).
    pub(crate) fn forget_seat(&mut self, seat: SeatIndex) {
        for conn in self.conns.values_mut() {
            conn.seats = conn.seats.without(seat);
        }
    }

    /// Moves every connection's proofs according to `to[old seat] = new seat`.
    pub(crate) fn move_seats(&mut self, to: [SeatIndex; 4]) {
        for conn in self.conns.values_mut() {
            conn.seats = conn.seats.moved(to);
        }
    }

    /// The host role went to `seat` with a new token: the connections of that seat hold it,
    /// no other does.
    pub(crate) fn host_is_seat(&mut self, seat: SeatIndex) {
        for conn in self.conns.values_mut() {
            conn.host = conn.seats.contains(seat);
        }
    }

    /// The connections that `pick` picks among those holding `seat`.
    pub(crate) fn holders(&self, seat: SeatIndex, pick: impl Fn(ConnId) -> bool) -> Vec<ConnId> {
        self.conns
            .iter()
            .filter(|&(&id, c)| c.seats.contains(seat) && pick(id))
            .map(|(&id, _)| id)
            .collect()
    }

    /// Sends `frame` to `conn` once every event up to `needs` is durable.
    pub(crate) fn send(&mut self, conn: ConnId, frame: Utf8Bytes, needs: u64) {
        self.send_outgoing(conn, Outgoing::Frame(frame), needs);
    }

    /// Sends the answer to request `req` once every event up to `needs` is durable; a move's
    /// round trip is measured when its answer is handed over, and an accepted move counted then:
    /// the metrics count only moves that are stored.
    pub(crate) fn answer(
        &mut self,
        conn: ConnId,
        (req, frame): (u64, Utf8Bytes),
        of_move: Option<MoveAnswer>,
        needs: u64,
    ) {
        let answer = Outgoing::Answer {
            frame,
            req,
            of_move,
        };
        self.send_outgoing(conn, answer, needs);
    }

    /// Sends every connection but `except` the events of `log` from version `from` on, each in
    /// the form its seats may read, once every event up to `needs` is durable.
    pub(crate) fn fan_out(
        &mut self,
        log: &EventLog,
        from: u64,
        except: Option<ConnId>,
        needs: u64,
    ) {
        let mut frames = std::mem::take(&mut self.fanning);
        for logged in log.from(from) {
            for (&id, conn) in self.conns.iter().filter(|(id, _)| Some(**id) != except) {
                frames.push((id, logged.frame_for(conn.seats).clone()));
            }
        }
        for (id, frame) in frames.drain(..) {
            self.send(id, frame, needs);
        }
        self.fanning = frames;
    }

    /// Closes `conn` with `code`, after everything sent to it before (held or not): the room
    /// forgets it then.
    pub(crate) fn close(&mut self, conn: ConnId, (code, reason): (u16, &'static str), needs: u64) {
        self.send_outgoing(conn, Outgoing::Close(code, reason), needs);
    }

    fn send_outgoing(&mut self, conn: ConnId, outgoing: Outgoing, needs: u64) {
        if self.durable < needs || !self.held.is_empty() {
            self.held.push_back((needs, conn, outgoing));
            return;
        }
        self.deliver(conn, outgoing);
    }

    fn deliver(&mut self, id: ConnId, outgoing: Outgoing) {
        if let Outgoing::Answer {
            of_move: Some(MoveAnswer { accepted: true, .. }),
            ..
        } = outgoing
        {
            // Durable now, whether or not its connection is still there to hear of it.
            self.metrics.moves_accepted.inc();
        }
        let Some(conn) = self.conns.get(&id) else {
            return;
        };
        let queued = match outgoing {
            Outgoing::Frame(frame) => conn.outbox.queue(frame),
            Outgoing::Answer { frame, of_move, .. } => {
                let queued = conn.outbox.queue(frame);
                if let Some(answer) = of_move {
                    self.metrics
                        .move_seconds
                        .observe(answer.received.elapsed().as_secs_f64());
                }
                queued
            }
            Outgoing::Close(code, reason) => {
                conn.outbox.close(code, reason);
                self.disconnect(id);
                return;
            }
        };
        match queued {
            Queued::First => self.unwritten.push(id),
            Queued::Behind => {}
            Queued::Full => {
                // Too slow to keep up: closed; it resyncs when it reconnects.
                let (code, reason) = fourkings_protocol::close::TOO_SLOW;
                conn.outbox.close(code, reason);
                self.metrics.queue_drops.inc();
                tracing::info!(conn = id, "a connection too slow to keep up was dropped");
                self.disconnect(id);
            }
            // The socket failed or closed: the client is gone (its reader tells the room so too,
            // which then changes nothing). Not a slow client: nothing to close or count.
            Queued::Gone => self.disconnect(id),
        }
    }

    /// The writer made everything up to `upto` durable: what waited for it goes out, in order.
    pub(crate) fn durable_upto(&mut self, upto: u64) {
        self.durable = self.durable.max(upto);
        while self
            .held
            .front()
            .is_some_and(|(needs, _, _)| *needs <= self.durable)
        {
            if let Some((_, conn, outgoing)) = self.held.pop_front() {
                self.deliver(conn, outgoing);
            }
        }
    }

    /// Storage gave up what the room handed it: nothing held may go out. Every request whose
    /// answer was held is answered `error` with `refusal`'s code instead, at once (the request
    /// changed nothing that anyone will see); the rest of what was held is dropped.
    pub(crate) fn refuse_held(&mut self, refusal: &Refusal) {
        let code = refusal.code();
        for (_, conn, outgoing) in std::mem::take(&mut self.held) {
            let Outgoing::Answer { req, of_move, .. } = outgoing else {
                continue;
            };
            if of_move.is_some() {
                self.metrics.move_rejected(code);
            }
            let error = ServerMessage::Error {
                req: Some(req),
                code,
                message: refusal.to_string(),
            };
            self.deliver(conn, Outgoing::Frame(encode(&error)));
        }
        self.write_out();
    }

    /// The version up to which events are durable.
    pub(crate) fn durable(&self) -> u64 {
        self.durable
    }

    /// Writes what this turn queued into the connections' sockets. The room does it itself, once
    /// a turn: handing each frame to a writer task cost a wake-up and a task switch per frame.
    pub(crate) fn write_out(&mut self) {
        for conn in self.unwritten.drain(..) {
            if let Some(c) = self.conns.get(&conn) {
                c.outbox.write_out();
            }
        }
    }

    /// Closes every connection with `code` after what is queued for it.
    pub(crate) fn close_all(&self, (code, reason): (u16, &'static str)) {
        for conn in self.conns.values() {
            conn.outbox.close(code, reason);
        }
    }

    /// How many connections are open.
    pub(crate) fn len(&self) -> usize {
        self.conns.len()
    }
}

impl Drop for Delivery {
    /// A room that ends closes its connections first, with its reason; one that did not (its
    /// task panicked) leaves them here, and they are told to reconnect to the rebuilt room.
    fn drop(&mut self) {
        self.close_all(fourkings_protocol::close::ROOM_RESTARTING);
    }
}
