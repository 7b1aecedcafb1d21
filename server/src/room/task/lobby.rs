//! Before the start: seats, settings, CPU seats, the host role, and the start itself.

use fourkings_protocol::{CpuLevel, Event, SeatIndex, SeatSet, SettingsPatch};

use super::Room;
use super::requests::Ack;
use crate::connection::ConnId;
use crate::ids::new_token;
use crate::room::events::Audience;
use crate::room::record::{Record, StoredSlot};
use crate::room::refusal::Refusal;
use crate::room::rules;
use crate::room::seating::SeatSlot;

impl Room {
    fn in_lobby(&self) -> Result<(), Refusal> {
        if self.driver.is_started() {
            return Err(Refusal::AlreadyStarted);
        }
        Ok(())
    }

    pub(super) fn take_seat(
        &mut self,
        conn: ConnId,
        seat: SeatIndex,
        name: String,
    ) -> Result<Ack, Refusal> {
        self.in_lobby()?;
        let max = self.context.config.max_name_chars;
        if name.trim().is_empty() || name.chars().count() > max {
            return Err(Refusal::BadName { max });
        }
        if !matches!(self.seating.slot(seat), SeatSlot::Empty) {
            return Err(Refusal::SeatTaken("that seat is taken"));
        }
        let token = new_token();
        self.commit(Record::Seat {
            seat,
            slot: StoredSlot::Human {
                name: name.clone(),
                token: token.clone(),
            },
        })?;
        let is_host = self.delivery.is_host(conn);
        self.delivery.prove_seat(conn, seat);
        self.emit(Event::SeatTaken { seat, name });
        if is_host && self.seating.host_seat().is_none() {
            self.commit(Record::HostSeat { seat: Some(seat) })?;
            self.emit(Event::HostChanged { seat });
        }
        Ok(Ack {
            seat_token: Some(token),
            ..Ack::default()
        })
    }

    pub(super) fn leave_seat(&mut self, seat: SeatIndex, token: &str) -> Result<Ack, Refusal> {
        self.in_lobby()?;
        if self.seating.seat_of_token(token) != Some(seat) {
            return Err(Refusal::WrongSeatToken);
        }
        self.vacate(seat)?;
        Ok(Ack::default())
    }

    /// Empties `seat` and tells everyone.
    fn vacate(&mut self, seat: SeatIndex) -> Result<(), Refusal> {
        self.commit(Record::Seat {
            seat,
            slot: StoredSlot::Empty,
        })?;
        self.delivery.forget_seat(seat);
        if self.seating.host_seat() == Some(seat) {
            self.commit(Record::HostSeat { seat: None })?;
        }
        self.emit(Event::SeatLeft { seat });
        Ok(())
    }

    pub(super) fn update_settings(
        &mut self,
        host_token: &str,
        patch: &SettingsPatch,
    ) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        self.in_lobby()?;
        let settings = rules::apply(&self.settings, patch)?;
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
    ) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        self.in_lobby()?;
        if self.seating.is_human(seat) {
            return Err(Refusal::SeatTaken("a player sits there: remove them first"));
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
    ) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        self.in_lobby()?;
        if !self.seating.is_human(from) {
            return Err(Refusal::SeatEmpty("nobody sits in the seat to move from"));
        }
        if !matches!(self.seating.slot(to), SeatSlot::Empty) {
            return Err(Refusal::SeatTaken("the seat to move to is not empty"));
        }
        let mut moves = SeatIndex::ALL;
        moves.swap(from.index(), to.index());
        self.commit(Record::Permute { to: moves })?;
        self.delivery.move_seats(moves);
        self.emit(Event::PlayerMoved { from, to });
        Ok(Ack::default())
    }

    pub(super) fn remove_player(
        &mut self,
        host_token: &str,
        seat: SeatIndex,
    ) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        self.in_lobby()?;
        if !self.seating.is_human(seat) {
            return Err(Refusal::SeatEmpty("nobody sits there"));
        }
        self.vacate(seat)?;
        Ok(Ack::default())
    }

    pub(super) fn transfer_host(
        &mut self,
        host_token: &str,
        seat: SeatIndex,
    ) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        if !self.seating.is_human(seat) {
            return Err(Refusal::SeatEmpty(
                "the host role goes to a player in a seat",
            ));
        }
        let token = new_token();
        self.commit(Record::Host {
            token: token.clone(),
            seat: Some(seat),
        })?;
        self.delivery.host_is_seat(seat);
        self.emit(Event::HostChanged { seat });
        let private = Event::HostToken { host_token: token };
        let audience = Audience::Seats(SeatSet::single(seat));
        self.events.emit(Event::Hidden, Some((audience, private)));
        Ok(Ack::default())
    }

    pub(super) fn start(&mut self, host_token: &str) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        self.in_lobby()?;
        rules::rule_set(&self.settings)?;
        let level = self.settings.cpu_level;
        for seat in SeatIndex::ALL {
            if matches!(self.seating.slot(seat), SeatSlot::Empty) {
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
            first_seat: self.driver.first_seat(),
        })?;
        let game = self.game_view().expect("a game just began");
        self.emit(Event::Started { game });
        self.advance();
        Ok(Ack::default())
    }
}
