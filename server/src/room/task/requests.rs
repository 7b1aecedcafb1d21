//! A client's request: routed to its handler, answered (`ack`, `pong` or `error`), and followed
//! by the events it caused.

use fourkings_protocol::{ClientMessage, ClientRequest, SeatIndex, SeatSet, ServerMessage};

use super::Room;
use crate::connection::ConnId;
use crate::room::delivery::MoveAnswer;
use crate::room::frames::encode;
use crate::room::refusal::Refusal;

/// What a successful request answers besides `ok`.
#[derive(Default)]
pub(super) struct Ack {
    pub(super) seat_token: Option<String>,
    pub(super) seats: Option<Vec<SeatIndex>>,
    pub(super) token_seats: Option<Vec<Option<SeatIndex>>>,
    pub(super) host: Option<bool>,
    /// Send this connection a snapshot after the ack (`hello` without a usable version).
    pub(super) snapshot: bool,
    /// Send this connection the events after this version after the ack.
    pub(super) replay_since: Option<u64>,
    /// Answer with `pong` instead of `ack`.
    pub(super) pong: bool,
}

/// What a connection is sent after the answer to its request, besides the events.
enum Then {
    Nothing,
    /// The whole room.
    Snapshot,
    /// The events after this version.
    Replay(u64),
}

impl Room {
    /// Handles one client request and queues its answer (the events it caused follow at the end
    /// of the turn); returns the connection a snapshot or replay already brought up to date,
    /// which the turn's events must skip.
    pub(super) fn request(
        &mut self,
        conn: ConnId,
        request: ClientRequest,
        received: std::time::Instant,
    ) -> Option<ConnId> {
        let ClientRequest { req, message: msg } = request;
        let is_move = matches!(msg, ClientMessage::Move { .. });
        let result = match self.storage_refusal(&msg) {
            Some(refusal) => Err(refusal),
            None => self.dispatch(conn, msg),
        };
        // An accepted move is counted when its ack goes out, once it is durable (delivery).
        let accepted_move = is_move && result.is_ok();
        if let (true, Err(refusal)) = (is_move, &result) {
            self.context.metrics.move_rejected(refusal.code());
        }
        let (answer, then) = match result {
            Ok(ack) if ack.pong => {
                let server_time = self.time.wall_now();
                (ServerMessage::Pong { req, server_time }, Then::Nothing)
            }
            Ok(ack) => {
                let then = match (ack.snapshot, ack.replay_since) {
                    (true, _) => Then::Snapshot,
                    (false, Some(since)) => Then::Replay(since),
                    (false, None) => Then::Nothing,
                };
                let answer = ServerMessage::Ack {
                    req,
                    seat_token: ack.seat_token,
                    seats: ack.seats,
                    token_seats: ack.token_seats,
                    host: ack.host,
                };
                (answer, then)
            }
            Err(refusal) => {
                let answer = ServerMessage::Error {
                    req: Some(req),
                    code: refusal.code(),
                    message: refusal.to_string(),
                };
                (answer, Then::Nothing)
            }
        };
        let of_move = is_move.then_some(MoveAnswer {
            received,
            accepted: accepted_move,
        });
        let needs = self.events.version();
        self.delivery
            .answer(conn, (req, encode(&answer)), of_move, needs);
        // A snapshot or a replay already covers this request's own events: the turn's flush must
        // not send them to this connection a second time.
        match then {
            Then::Nothing => None,
            Then::Snapshot => {
                self.send_snapshot(conn);
                Some(conn)
            }
            Then::Replay(since) => {
                self.replay(conn, since);
                Some(conn)
            }
        }
    }

    /// The refusal of a request that may need a write while storage takes none (it fails, hangs
    /// or is behind by all it may be): the room stays as it is, and the client hears so at once.
    /// Messages that only read are answered as usual; a `hello` that proves a seat records its
    /// player back, one record a connection at most.
    fn storage_refusal(&self, msg: &ClientMessage) -> Option<Refusal> {
        if !msg.may_write() {
            return None;
        }
        self.context.storage.health().err().map(Refusal::from)
    }

    /// Routes a message to its handler.
    // One piece: one arm per client message, the table of contents of the room's handlers.
    fn dispatch(&mut self, conn: ConnId, msg: ClientMessage) -> Result<Ack, Refusal> {
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
            ClientMessage::Premove { seat, token, mv } => self.premove(conn, seat, &token, mv),
            ClientMessage::CancelPremoves { seat, token } => {
                self.cancel_premoves(conn, seat, &token)
            }
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
                self.check_version(since)?;
                Ok(Ack {
                    replay_since: Some(since),
                    ..Ack::default()
                })
            }
            ClientMessage::Ping => Ok(Ack {
                pong: true,
                ..Ack::default()
            }),
        }
    }

    /// Refuses a version the room has not reached.
    fn check_version(&self, since: u64) -> Result<(), Refusal> {
        let at = self.events.version();
        if since > at {
            return Err(Refusal::AheadOfRoom { at });
        }
        Ok(())
    }

    fn hello(
        &mut self,
        conn: ConnId,
        tokens: &[String],
        host_token: Option<&str>,
        since: Option<u64>,
    ) -> Result<Ack, Refusal> {
        if let Some(since) = since {
            self.check_version(since)?;
        }
        let token_seats: Vec<Option<SeatIndex>> = tokens
            .iter()
            .map(|token| self.seating.seat_of_token(token))
            .collect();
        let seats: SeatSet = token_seats.iter().flatten().copied().collect();
        let host = host_token.is_some_and(|t| self.seating.is_host_token(t));
        if host {
            self.delivery.prove_host(conn);
        }
        for seat in seats.iter() {
            self.seat_proven(conn, seat);
        }
        Ok(Ack {
            seats: Some(seats.iter().collect()),
            token_seats: Some(token_seats),
            host: Some(host),
            snapshot: since.is_none(),
            replay_since: since,
            ..Ack::default()
        })
    }
}
