//! After a result: the switch-partners session counts the game, and the host may start the
//! next one.

use fourkings_engine::Preset;
use fourkings_protocol::{Event, SeatIndex};

use super::Room;
use super::requests::Ack;
use crate::room::record::Record;
use crate::room::refusal::Refusal;

/// A Duo rematch with rotation: for each seat, the seat its occupant moves to (W1 → B2, B1 → W1,
/// W2 → B1, B2 → W2). The turn order of the people goes on where it was, and partners stay
/// partners, now on the other colour.
const DUO_ROTATION: [SeatIndex; 4] = {
    let [w1, b1, w2, b2] = SeatIndex::ALL;
    [b2, w1, b1, w2]
};

impl Room {
    /// Counts a finished game in the switch-partners session, once.
    pub(super) fn count_session_game(&mut self) {
        let Some(outcome) = self.driver.game().and_then(|g| g.outcome().cloned()) else {
            return;
        };
        let Some(session) = self.session.as_ref().and_then(|s| s.counted(&outcome)) else {
            return;
        };
        let view = session.view(&self.seating);
        if self
            .commit(Record::Session {
                session: Some(session),
            })
            .is_ok()
        {
            self.emit(Event::Session(view));
        }
    }

    /// Everyone moves seats: the occupant of seat `s` goes to `to[s]`.
    fn move_everyone(&mut self, to: [SeatIndex; 4]) -> Result<(), Refusal> {
        self.commit(Record::Permute { to })?;
        self.delivery.move_seats(to);
        Ok(())
    }

    /// Host: a new game after a result.
    pub(super) fn rematch(&mut self, host_token: &str) -> Result<Ack, Refusal> {
        self.seating.check_host(host_token)?;
        if !self.driver.is_over() {
            return Err(Refusal::NotFinished);
        }
        let duo = self.settings.preset == Preset::Duo.name();
        let rotate = self.settings.rotate_first_seat;
        // White moves first in every Duo game: the people move round the seats instead, each
        // one seat back, so that whoever sat at B1 opens as W1.
        let first_seat = if rotate && !duo {
            self.driver.first_seat().next()
        } else {
            self.driver.first_seat()
        };
        let mut seat_moves = None;
        if rotate && duo {
            self.move_everyone(DUO_ROTATION)?;
            seat_moves = Some(DUO_ROTATION);
        }
        if let Some(session) = &self.session {
            let (next, moves) = session.next_game();
            if let Some(moves) = moves {
                self.move_everyone(moves)?;
                seat_moves = Some(moves);
            }
            self.commit(Record::Session {
                session: Some(next),
            })?;
        }
        self.commit(Record::GameStarted {
            seed: rand::random(),
            first_seat,
        })?;
        self.driver.clear_finished();
        let seats = self.seat_views();
        let game = self.game_view().expect("a game just began");
        self.emit(Event::Rematch {
            seats,
            game,
            seat_moves,
        });
        if let Some(session) = &self.session {
            let view = session.view(&self.seating);
            self.emit(Event::Session(view));
        }
        self.advance();
        Ok(Ack::default())
    }
}
