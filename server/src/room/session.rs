//! Rematches, and switch-partners sessions: three games with every pairing once, each person
//! earning 1 per team win and ½ per draw.

use fourkings_engine::{Game, Outcome, Preset, Seat};
use fourkings_protocol::{ErrorCode, Event, SeatIndex, SessionPoints, SessionView};

use serde::{Deserialize, Serialize};

use super::record::Record;
use super::state::{Ack, Reject, Room, SeatSlot, reject};

/// A switch-partners session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Session {
    /// The game being played or just finished, 1–3.
    game: u8,
    /// Where each person (numbered by their seat in game 1) sits now.
    seat_of: [SeatIndex; 4],
    /// Each person's points, in halves.
    halves: [u32; 4],
    /// Whether the current game's result has been counted.
    counted: bool,
}

/// Where persons 0–3 (A, B, C, D) sit in each game so that every pairing plays once, partners
/// opposite: A+C v B+D, then A+B v C+D, then A+D v B+C.
const PAIRINGS: [[SeatIndex; 4]; 3] = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 1, 3, 2]];

impl Session {
    pub(super) fn new() -> Session {
        Session {
            game: 1,
            seat_of: PAIRINGS[0],
            halves: [0; 4],
            counted: false,
        }
    }

    fn finished(&self) -> bool {
        self.game == 3 && self.counted
    }

    /// The standings as clients see them.
    pub(super) fn view(&self, room: &Room) -> SessionView {
        let mut standings: Vec<SessionPoints> = (0..4)
            .map(|person| {
                let seat = self.seat_of[person];
                let name = match &room.seats[usize::from(seat)] {
                    SeatSlot::Human { name, .. } => name.clone(),
                    _ => format!("CPU {}", seat),
                };
                SessionPoints {
                    name,
                    seat,
                    points: self.halves[person] as f32 / 2.0,
                }
            })
            .collect();
        standings.sort_by(|a, b| b.points.total_cmp(&a.points));
        SessionView {
            game: self.game,
            standings,
            finished: self.finished(),
        }
    }
}

impl Room {
    /// Counts a finished game in the switch-partners session, once.
    pub(super) fn count_session_game(&mut self) {
        let Some(outcome) = self.game.as_ref().and_then(|g| g.outcome().cloned()) else {
            return;
        };
        let Some(mut session) = self.session.clone() else {
            return;
        };
        if session.counted {
            return;
        }
        session.counted = true;
        for person in 0..4 {
            let seat = Seat::ALL[usize::from(session.seat_of[person])];
            session.halves[person] += match &outcome {
                Outcome::Win { team, .. } if seat.team() == *team => 2,
                Outcome::Draw { .. } => 1,
                _ => 0,
            };
        }
        let view = session.view(self);
        if self
            .commit(Record::Session {
                session: Some(session),
            })
            .is_ok()
        {
            self.emit(Event::Session(view));
        }
    }

    /// Host: a new game after a result.
    pub(super) fn rematch(&mut self, host_token: &str) -> Result<Ack, Reject> {
        self.authorize_host(host_token)?;
        if !self.game.as_ref().is_some_and(Game::is_over) {
            return reject(ErrorCode::NotFinished, "a rematch starts after a result");
        }
        let duo = self.settings.preset == Preset::Duo.name();
        let rotate = self.settings.rotate_first_seat;
        // White moves first in every Duo game: the people move round the seats instead, each
        // one seat back, so that whoever sat at B1 opens as W1.
        let first_seat = if rotate && !duo {
            (self.first_seat + 1) & 3
        } else {
            self.first_seat
        };
        let mut seat_moves = None;
        if rotate && duo {
            let moves = DUO_ROTATION;
            self.commit(Record::Permute { to: moves })?;
            self.permute_seat_proofs(moves);
            seat_moves = Some(moves);
        }
        if let Some(mut session) = self.session.clone() {
            if session.finished() {
                // A new session, counting persons by where they sit now.
                session = Session::new();
            } else {
                session.game += 1;
                session.counted = false;
                let next = PAIRINGS[usize::from(session.game - 1)];
                let moves = reseat(session.seat_of, next);
                session.seat_of = next;
                self.commit(Record::Permute { to: moves })?;
                self.permute_seat_proofs(moves);
                seat_moves = Some(moves);
            }
            self.commit(Record::Session {
                session: Some(session),
            })?;
        }
        self.commit(Record::GameStarted {
            seed: rand::random(),
            first_seat,
        })?;
        self.finished_since = None;
        let seats = self.seat_views();
        let game = self.game_view().expect("a game just began");
        self.emit(Event::Rematch {
            seats,
            game,
            seat_moves,
        });
        if let Some(session) = &self.session {
            let view = session.view(self);
            self.emit(Event::Session(view));
        }
        self.advance();
        Ok(Ack::default())
    }
}

/// A Duo rematch with rotation: for each seat, the seat its occupant moves to (W1 → B2, B1 → W1,
/// W2 → B1, B2 → W2). The turn order of the people goes on where it was, and partners stay
/// partners, now on the other colour.
const DUO_ROTATION: [SeatIndex; 4] = [3, 0, 1, 2];

/// For each seat now, the seat its occupant moves to when persons go from `now` to `next`.
fn reseat(now: [SeatIndex; 4], next: [SeatIndex; 4]) -> [SeatIndex; 4] {
    let mut to = [0; 4];
    for person in 0..4 {
        to[usize::from(now[person])] = next[person];
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pairing_plays_once() {
        let mut pairs = Vec::new();
        for seating in PAIRINGS {
            // Persons in seats 0 and 2 are partners, as are those in 1 and 3.
            let person_at = |seat: SeatIndex| seating.iter().position(|&s| s == seat).unwrap();
            let mut a = [person_at(0), person_at(2)];
            let mut b = [person_at(1), person_at(3)];
            a.sort_unstable();
            b.sort_unstable();
            pairs.push(a);
            pairs.push(b);
        }
        pairs.sort_unstable();
        assert_eq!(pairs, vec![[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
    }

    #[test]
    fn reseating_moves_each_person_to_their_next_seat() {
        let to = reseat(PAIRINGS[0], PAIRINGS[1]);
        // Person B (seat 1) goes to seat 2, person C (seat 2) to seat 1.
        assert_eq!(to, [0, 2, 1, 3]);
        let to = reseat(PAIRINGS[1], PAIRINGS[2]);
        // Now B sits in 2 and goes to 1; C sits in 1 and goes to 3; D sits in 3 and goes to 2.
        assert_eq!(to, [0, 3, 1, 2]);
    }
}
