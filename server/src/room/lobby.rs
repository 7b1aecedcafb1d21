//! Before the start: seats, settings, CPU seats, the host role, and the start itself.

use fourkings_protocol::{CpuLevel, ErrorCode, Event, SeatIndex, SettingsPatch};

use super::record::{Record, StoredSlot};
use super::rules;
use super::state::{Ack, Audience, Reject, Room, SeatSlot, reject};
use crate::connection::ConnId;

impl Room {
    fn in_lobby(&self) -> Result<(), Reject> {
        if self.game.is_some() {
            return reject(
                ErrorCode::AlreadyStarted,
                "the game has started: seats and settings are fixed",
            );
        }
        Ok(())
    }

    fn check_seat(seat: SeatIndex) -> Result<usize, Reject> {
        if seat > 3 {
            return reject(ErrorCode::BadSeat, "seats are 0 to 3");
        }
        Ok(usize::from(seat))
    }

    pub(super) fn take_seat(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        name: String,
    ) -> Result<Ack, Reject> {
        let index = Self::check_seat(seat)?;
        self.in_lobby()?;
        let max = self.context.config.max_name_chars;
        if name.trim().is_empty() || name.chars().count() > max {
            return reject(
                ErrorCode::BadName,
                format!("a name has 1 to {max} characters"),
            );
        }
        if !matches!(self.seats[index], SeatSlot::Empty) {
            return reject(ErrorCode::SeatTaken, "that seat is taken");
        }
        let token = Self::fresh_token();
        self.commit(Record::Seat {
            seat,
            slot: StoredSlot::Human {
                name: name.clone(),
                token: token.clone(),
            },
        })?;
        let is_host = self.conns.get(&conn).is_some_and(|c| c.host);
        if let Some(c) = self.conns.get_mut(&conn) {
            c.seats |= 1 << seat;
        }
        self.emit(Event::SeatTaken { seat, name });
        if is_host && self.host_seat.is_none() {
            self.commit(Record::HostSeat { seat: Some(seat) })?;
            self.emit(Event::HostChanged { seat });
        }
        Ok(Ack {
            seat_token: Some(token),
            ..Ack::default()
        })
    }

    pub(super) fn leave_seat(&mut self, seat: SeatIndex, token: &str) -> Result<Ack, Reject> {
        Self::check_seat(seat)?;
        self.in_lobby()?;
        if self.seat_of_token(token) != Some(seat) {
            return reject(ErrorCode::BadToken, "this token does not hold that seat");
        }
        self.vacate(seat)?;
        Ok(Ack::default())
    }

    /// Empties `seat` and tells everyone.
    fn vacate(&mut self, seat: SeatIndex) -> Result<(), Reject> {
        self.commit(Record::Seat {
            seat,
            slot: StoredSlot::Empty,
        })?;
        self.forget_seat(seat);
        if self.host_seat == Some(seat) {
            self.commit(Record::HostSeat { seat: None })?;
        }
        self.emit(Event::SeatLeft { seat });
        Ok(())
    }

    pub(super) fn update_settings(
        &mut self,
        host_token: &str,
        patch: &SettingsPatch,
    ) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        self.in_lobby()?;
        let settings =
            rules::apply(&self.settings, patch).map_err(|e| (ErrorCode::InvalidSettings, e))?;
        if settings != self.settings {
            self.commit(Record::Settings {
                settings: settings.clone(),
            })?;
            let rules = crate::rules_view::room_rules(&settings, false);
            self.emit(Event::SettingsChanged { settings, rules });
        }
        Ok(Ack::default())
    }

    pub(super) fn set_cpu(
        &mut self,
        host_token: &str,
        seat: SeatIndex,
        level: Option<CpuLevel>,
    ) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        let index = Self::check_seat(seat)?;
        self.in_lobby()?;
        if matches!(self.seats[index], SeatSlot::Human { .. }) {
            return reject(
                ErrorCode::SeatTaken,
                "a player sits there: remove them first",
            );
        }
        let slot = match level {
            Some(level) => StoredSlot::Cpu { level },
            None => StoredSlot::Empty,
        };
        self.commit(Record::Seat { seat, slot })?;
        self.emit(Event::CpuSeat { seat, level });
        Ok(Ack::default())
    }

    pub(super) fn move_player(
        &mut self,
        host_token: &str,
        from: SeatIndex,
        to: SeatIndex,
    ) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        let (f, t) = (Self::check_seat(from)?, Self::check_seat(to)?);
        self.in_lobby()?;
        if !matches!(self.seats[f], SeatSlot::Human { .. }) {
            return reject(ErrorCode::SeatEmpty, "nobody sits in the seat to move from");
        }
        if !matches!(self.seats[t], SeatSlot::Empty) {
            return reject(ErrorCode::SeatTaken, "the seat to move to is not empty");
        }
        let mut moves = [0, 1, 2, 3];
        moves.swap(f, t);
        self.commit(Record::Permute { to: moves })?;
        self.permute_seat_proofs(moves);
        self.emit(Event::PlayerMoved { from, to });
        Ok(Ack::default())
    }

    pub(super) fn remove_player(
        &mut self,
        host_token: &str,
        seat: SeatIndex,
    ) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        let index = Self::check_seat(seat)?;
        self.in_lobby()?;
        if !matches!(self.seats[index], SeatSlot::Human { .. }) {
            return reject(ErrorCode::SeatEmpty, "nobody sits there");
        }
        self.vacate(seat)?;
        Ok(Ack::default())
    }

    pub(super) fn transfer_host(
        &mut self,
        host_token: &str,
        seat: SeatIndex,
    ) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        let index = Self::check_seat(seat)?;
        if !matches!(self.seats[index], SeatSlot::Human { .. }) {
            return reject(
                ErrorCode::SeatEmpty,
                "the host role goes to a player in a seat",
            );
        }
        let token = Self::fresh_token();
        self.commit(Record::Host {
            token: token.clone(),
            seat: Some(seat),
        })?;
        for conn in self.conns.values_mut() {
            conn.host = conn.seats >> seat & 1 != 0;
        }
        self.emit(Event::HostChanged { seat });
        let private = Event::HostToken { host_token: token };
        self.emit_with_private(Event::Hidden, Some((Audience::Seats(1 << seat), private)));
        Ok(Ack::default())
    }

    pub(super) fn start(&mut self, host_token: &str) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        self.in_lobby()?;
        rules::rule_set(&self.settings).map_err(|e| (ErrorCode::InvalidSettings, e))?;
        let level = self.settings.cpu_level;
        for seat in 0..4u8 {
            if matches!(self.seats[usize::from(seat)], SeatSlot::Empty) {
                self.commit(Record::Seat {
                    seat,
                    slot: StoredSlot::Cpu { level },
                })?;
                self.emit(Event::CpuSeat {
                    seat,
                    level: Some(level),
                });
            }
        }
        self.commit(Record::GameStarted {
            seed: rand::random(),
            first_seat: self.first_seat,
        })?;
        let view = self.game_view().expect("a game just began");
        self.emit(Event::Started { game: view });
        self.advance();
        Ok(Ack::default())
    }
}
