//! What a room tells the people who run the server: its share of the metrics (its state, its
//! connections by role) and the context and content of its log lines.
//!
//! Every line a room logs is inside its task's `room` span (the room id); a request's lines are
//! inside a `request` span that names the seat it acts for. Nothing here ever logs a token: log
//! lines name records and requests by kind and seat, never by their contents.

use fourkings_engine::Game;
use fourkings_protocol::{ClientRequest, GameStatus, SeatIndex};

use super::record::{GameAction, Record, StoredSlot};
use super::seat_numbers;
use crate::metrics::Metrics;

/// What this room last added to the server's gauges, so that it moves them by the differences
/// only, and takes its share out when it ends.
#[derive(Debug, Default)]
pub(crate) struct Reported {
    /// The state it is counted in.
    status: Option<GameStatus>,
    /// Its connections that hold a seat.
    players: i64,
    /// Its connections that hold none.
    spectators: i64,
}

impl Reported {
    /// Moves the server's gauges by what changed since the last report: this room is now in
    /// `status` (`None`: it has ended) with these connections.
    pub(crate) fn update(
        &mut self,
        metrics: &Metrics,
        status: Option<GameStatus>,
        players: usize,
        spectators: usize,
    ) {
        let (players, spectators) = (players as i64, spectators as i64);
        if self.status != status {
            if let Some(old) = self.status {
                metrics.rooms(old).dec();
            }
            if let Some(new) = status {
                metrics.rooms(new).inc();
            }
            self.status = status;
        }
        if self.players != players {
            metrics.players.inc_by(players - self.players);
            self.players = players;
        }
        if self.spectators != spectators {
            metrics.spectators.inc_by(spectators - self.spectators);
            self.spectators = spectators;
        }
    }
}

/// Logs a change the room just made (not on replay: a restored room's history was logged when
/// it happened). `game` is the game after the change, `games_played` how many have begun.
pub(crate) fn log_record(record: &Record, game: Option<&Game>, games_played: u32) {
    let ply = game.map(Game::ply_count);
    let to_move = game
        .and_then(Game::to_move)
        .map(seat_numbers::protocol_seat);
    match record {
        Record::Created { settings, .. } => {
            tracing::info!(preset = %settings.preset, "room created");
        }
        Record::Seat { seat, slot } => {
            let occupant = match slot {
                StoredSlot::Empty => "empty",
                StoredSlot::Human { .. } => "person",
                StoredSlot::Cpu { .. } => "cpu",
            };
            tracing::debug!(seat = seat.get(), occupant, "seat changed");
        }
        Record::Permute { to } => tracing::debug!(to = ?to.map(SeatIndex::get), "players moved"),
        Record::Settings { .. } => tracing::debug!("settings changed"),
        Record::Host { seat, .. } => {
            tracing::debug!(seat = seat.map(SeatIndex::get), "host role handed over");
        }
        Record::HostSeat { seat } => tracing::debug!(seat = seat.map(SeatIndex::get), "host seat"),
        Record::GameStarted { first_seat, .. } => {
            tracing::info!(
                game = games_played,
                first_seat = first_seat.get(),
                "game started"
            );
        }
        Record::Game { action } => {
            let (kind, seat) = describe_action(action);
            tracing::debug!(seat = seat.map(SeatIndex::get), action = kind, ply, "game");
        }
        Record::TurnExpired => {
            tracing::debug!(seat = to_move.map(SeatIndex::get), "turn limit ran out")
        }
        Record::Premove { seat, .. } => tracing::debug!(seat = seat.get(), "premove queued"),
        Record::PremovesCleared { seat } => tracing::debug!(seat = seat.get(), "premoves cleared"),
        Record::Absence { seat, absence } => {
            tracing::debug!(seat = seat.get(), ?absence, "presence")
        }
        Record::Chat { line, .. } => tracing::debug!(seat = line.seat.map(SeatIndex::get), "chat"),
        Record::FirstSeat { seat } => tracing::debug!(seat = seat.get(), "first seat"),
        Record::Session { .. } => tracing::debug!("switch-partners session"),
    }
}

/// The span a request is handled in: its id, its kind and the seat it acts for (never its
/// tokens). A `debug` span: with the usual `info` logging it is never built.
pub(crate) fn request_span(request: &ClientRequest) -> tracing::Span {
    let message = &request.message;
    tracing::debug_span!(
        "request",
        req = request.req,
        kind = message.kind(),
        seat = message.seat().map(SeatIndex::get)
    )
}

/// A game action's kind and the seat it is for (`None` for a walking king's move).
fn describe_action(action: &GameAction) -> (&'static str, Option<SeatIndex>) {
    match action {
        // `automatic`: the CPU played it for a person (away, or out of time).
        GameAction::Move {
            seat,
            automatic,
            premove,
            ..
        } => (
            match (automatic, premove) {
                (true, _) => "automatic_move",
                (false, true) => "premove",
                (false, false) => "move",
            },
            Some(*seat),
        ),
        GameAction::Walk { .. } => ("walking_king", None),
        GameAction::Resign { seat } => ("resign", Some(*seat)),
        GameAction::AnswerResignation { seat, .. } => ("answer_resignation", Some(*seat)),
        GameAction::OfferDraw { seat } => ("offer_draw", Some(*seat)),
        GameAction::AcceptDraw { seat } => ("accept_draw", Some(*seat)),
        GameAction::DeclineDraw { seat } => ("decline_draw", Some(*seat)),
        GameAction::TakeBack { seat } => ("take_back", Some(*seat)),
        GameAction::ClaimWin { seat } => ("claim_win", Some(*seat)),
        GameAction::TimeOut { seat } => ("time_out", Some(*seat)),
        GameAction::Abandon { seat } => ("abandon", Some(*seat)),
    }
}

/// A record's kind, for error messages that must not quote the record (it may hold tokens).
pub(crate) fn record_kind(record: &Record) -> &'static str {
    match record {
        Record::Created { .. } => "created",
        Record::Seat { .. } => "seat",
        Record::Permute { .. } => "permute",
        Record::Settings { .. } => "settings",
        Record::Host { .. } => "host",
        Record::HostSeat { .. } => "host_seat",
        Record::GameStarted { .. } => "game_started",
        Record::Game { .. } => "game",
        Record::TurnExpired => "turn_expired",
        Record::Premove { .. } => "premove",
        Record::PremovesCleared { .. } => "premoves_cleared",
        Record::Absence { .. } => "absence",
        Record::Chat { .. } => "chat",
        Record::FirstSeat { .. } => "first_seat",
        Record::Session { .. } => "session",
    }
}
