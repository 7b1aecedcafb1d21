//! What the room shows: the snapshot a connection starts from, the room's public info, the
//! game as clients draw it, and the game as a file.

use fourkings_engine::Format;
use fourkings_protocol::{GameView, RoomInfo, SeatView, ServerMessage, Snapshot};

use super::Room;
use crate::connection::ConnId;
use crate::room::archive;
use crate::room::command::{GameDocument, GameFile};
use crate::room::rules;
use crate::room::views;

impl Room {
    /// The board's format under the current settings.
    pub(super) fn format(&self) -> Format {
        rules::rule_set(&self.settings)
            .map(|r| r.format)
            .unwrap_or(Format::Teams)
    }

    /// The id of the current game in the archive: `<room>-<n>`.
    pub(super) fn game_id(&self) -> String {
        format!("{}-{}", self.id, self.driver.games_played())
    }

    /// The seats as clients see them.
    pub(super) fn seat_views(&self) -> Vec<SeatView> {
        self.seating.views(self.format(), self.cpu_may_play())
    }

    /// The game as clients see it, with the clocks.
    pub(super) fn game_view(&self) -> Option<GameView> {
        let silent = self.settings.silent_partners;
        self.driver.view(self.game_id(), self.time.now(), silent)
    }

    /// The room's public state.
    pub(super) fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id.clone(),
            status: self.driver.status(),
            settings: self.settings.clone(),
            seats: self.seat_views(),
            host_seat: self.seating.host_seat(),
            v: self.events.version(),
        }
    }

    /// The current game, finished or not, as `document`.
    pub(super) fn game_file(&self, document: GameDocument) -> Option<GameFile> {
        let events = self.driver.game()?.events().len();
        self.game_file_upto(document, events)
    }

    /// The current game as it stood after its first `events` events, as `document`.
    pub(super) fn game_file_upto(&self, document: GameDocument, events: usize) -> Option<GameFile> {
        let game = self.driver.game()?;
        if document == GameDocument::History {
            let history =
                views::history_upto(game, self.game_id(), events, self.driver.automatic_plies());
            return Some(GameFile {
                id: history.id.clone(),
                extension: "json",
                text: serde_json::to_string(&history).expect("protocol values always serialise"),
            });
        }
        let table = archive::Table {
            room: &self.id,
            game_id: self.game_id(),
            names: self.seating.player_names(),
            settings: &self.settings,
        };
        Some(archive::game_file_upto(
            table,
            game,
            events,
            self.time.wall_now(),
        ))
    }

    /// Everything `conn` needs to draw the room, as what it holds lets it see it.
    fn snapshot_for(&self, conn: ConnId) -> Snapshot {
        let seats = self.delivery.seats_of(conn);
        let host = self.delivery.is_host(conn);
        let legal_moves = self
            .driver
            .legal_moves()
            .filter(|m| seats.contains(m.seat) && self.seating.is_human(m.seat));
        let holds_host_seat = self.seating.host_seat().is_some_and(|h| seats.contains(h));
        Snapshot {
            protocol: fourkings_protocol::PROTOCOL_VERSION,
            v: self.events.version(),
            room: self.id.clone(),
            status: self.driver.status(),
            settings: self.settings.clone(),
            seats: self.seat_views(),
            host_seat: self.seating.host_seat(),
            your_seats: seats.iter().collect(),
            you_are_host: host || holds_host_seat,
            host_token: holds_host_seat.then(|| self.seating.host_token().to_owned()),
            game: self.game_view(),
            legal_moves,
            chat: self.chat.lines_for(seats),
            session: self.session.as_ref().map(|s| s.view(&self.seating)),
            premoves: self.driver.premoves().views(seats.iter()),
            rules: crate::rules_view::room_rules(&self.settings, self.driver.is_started()),
            limits: self.context.config.limits(),
            server_time: self.time.wall_now(),
        }
    }

    /// Sends `conn` the whole room.
    pub(super) fn send_snapshot(&mut self, conn: ConnId) {
        let snapshot = ServerMessage::Snapshot(Box::new(self.snapshot_for(conn)));
        self.send_to(conn, &snapshot);
    }
}
